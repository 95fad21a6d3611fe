//! The Runtime as a daemon that dials Core over a WebSocket.
//!
//! `ws://HOST:PORT/…` with `Authorization: Bearer <token>`. The connection opens with the
//! version handshake: the Runtime sends `hello`, Core answers `welcome` (same protocol version)
//! or `hello_refused` and closes; a refusal is a [`RemoteError::Refused`] that says which side
//! to upgrade, never a retry loop. After `welcome` the connection serves the same frame loop as
//! [`crate::LocalRuntime`] (heartbeat at once, then periodically): this module only turns
//! WebSocket text messages into envelopes and back.
//!
//! A frame that does not decode is answered with `protocol_error` and skipped; the connection
//! stays up, because one bad frame says nothing about the next.

use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{Hello, ProtocolError};
use switchboard_protocol::{CoreToRuntime, PROTOCOL_VERSION, RuntimeToCore};
use tokio::sync::{broadcast, mpsc};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::frame_loop::{OUTPUT_CAPACITY, RuntimeOptions, serve_frames};
use crate::registry::Registry;

/// Bound on opening the connection and on Core's answer to `hello`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(15);

/// How this Runtime introduces itself and runs Sessions.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// A stable identifier of this Runtime (device or process), sent in `hello`.
    pub runtime_id: String,
    pub runtime: RuntimeOptions,
}

#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("`{url}` is not a usable Core URL: {detail}")]
    BadUrl { url: String, detail: String },
    #[error("could not connect to Core at {url}: {source}")]
    Connect {
        url: String,
        source: Box<tungstenite::Error>,
    },
    #[error(
        "Core refused this Runtime ({code}): {message} Core speaks protocol {supported_version}; this Runtime speaks {PROTOCOL_VERSION}."
    )]
    Refused {
        code: String,
        message: String,
        supported_version: String,
    },
    #[error("the handshake with Core failed: {0}")]
    Handshake(String),
    #[error("Core did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the connection to Core failed: {0}")]
    Transport(Box<tungstenite::Error>),
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Dials Core, performs the handshake, and serves frames until the connection closes.
///
/// Returns `Ok` when Core closes the connection after a successful handshake.
pub async fn run_remote(
    core_url: &str,
    token: &str,
    registry: Arc<Registry>,
    options: RemoteOptions,
) -> Result<(), RemoteError> {
    run_remote_with(core_url, token, registry, options, || {}).await
}

/// [`run_remote`], calling `on_welcome` once Core has welcomed this Runtime and before the
/// first frame is served: the moment a daemon is connected, and what tells a connection that
/// dropped after the handshake from one that never got that far.
pub async fn run_remote_with(
    core_url: &str,
    token: &str,
    registry: Arc<Registry>,
    options: RemoteOptions,
    on_welcome: impl FnOnce(),
) -> Result<(), RemoteError> {
    let socket = bounded(connect(core_url, token)).await?;
    let socket = bounded(handshake(socket, &options.runtime_id)).await?;
    on_welcome();
    serve(socket, registry, options.runtime).await
}

async fn bounded<T>(step: impl Future<Output = Result<T, RemoteError>>) -> Result<T, RemoteError> {
    tokio::time::timeout(HANDSHAKE_TIMEOUT, step)
        .await
        .map_err(|_| RemoteError::Timeout(HANDSHAKE_TIMEOUT))?
}

async fn connect(core_url: &str, token: &str) -> Result<Socket, RemoteError> {
    let bad_url = |detail: String| RemoteError::BadUrl {
        url: core_url.to_owned(),
        detail,
    };
    let mut request = core_url
        .into_client_request()
        .map_err(|e| bad_url(e.to_string()))?;
    let bearer = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| bad_url("the token is not a valid header value".into()))?;
    request.headers_mut().insert("authorization", bearer);
    let (socket, _) = tokio_tungstenite::connect_async(request)
        .await
        .map_err(|e| RemoteError::Connect {
            url: core_url.to_owned(),
            source: Box::new(e),
        })?;
    Ok(socket)
}

async fn handshake(mut socket: Socket, runtime_id: &str) -> Result<Socket, RemoteError> {
    let hello = Hello::current(runtime_id, env!("CARGO_PKG_VERSION"));
    let text = Envelope::new(None, RuntimeToCore::from(hello))
        .to_json()
        .map_err(|e| RemoteError::Handshake(format!("could not encode hello: {e}")))?;
    socket
        .send(Message::Text(text.into()))
        .await
        .map_err(|e| RemoteError::Transport(Box::new(e)))?;
    loop {
        let message = socket
            .next()
            .await
            .ok_or_else(|| {
                RemoteError::Handshake("Core closed the connection before answering hello".into())
            })?
            .map_err(|e| RemoteError::Transport(Box::new(e)))?;
        let text = match message {
            Message::Text(text) => text,
            Message::Close(frame) => {
                return Err(RemoteError::Handshake(format!(
                    "Core closed the connection before answering hello ({frame:?})"
                )));
            }
            // Pings are answered by the socket itself.
            _ => continue,
        };
        let frame = Envelope::<CoreToRuntime>::from_json(text.as_str())
            .map_err(|e| RemoteError::Handshake(format!("Core's answer to hello: {e}")))?;
        return match frame.message {
            CoreToRuntime::Welcome(w) if w.version == PROTOCOL_VERSION => Ok(socket),
            CoreToRuntime::Welcome(w) => Err(RemoteError::Handshake(format!(
                "Core welcomed protocol {} but this Runtime speaks {PROTOCOL_VERSION}",
                w.version
            ))),
            CoreToRuntime::HelloRefused(r) => Err(RemoteError::Refused {
                code: r.code,
                message: r.message,
                supported_version: r.supported_version,
            }),
            other => Err(RemoteError::Handshake(format!(
                "Core sent `{}` before answering hello",
                switchboard_protocol::envelope::MessageSet::type_name(&other)
            ))),
        };
    }
}

/// Bridges the socket to the frame loop until either side closes.
async fn serve(
    socket: Socket,
    registry: Arc<Registry>,
    options: RuntimeOptions,
) -> Result<(), RemoteError> {
    let (mut sink, mut stream) = socket.split();
    let (to_loop, inbound) = mpsc::channel(64);
    let (out, mut from_loop) = mpsc::channel::<Envelope<RuntimeToCore>>(OUTPUT_CAPACITY);
    let (notices, _) = broadcast::channel(16);
    let frames = tokio::spawn(serve_frames(
        registry,
        options,
        inbound,
        out.clone(),
        notices,
    ));

    let writer = tokio::spawn(async move {
        while let Some(frame) = from_loop.recv().await {
            let text = match frame.to_json() {
                Ok(text) => text,
                Err(e) => {
                    tracing::error!("dropping a frame that does not serialize: {e}");
                    continue;
                }
            };
            sink.send(Message::Text(text.into())).await?;
        }
        sink.close().await
    });

    let mut outcome = Ok(());
    while let Some(message) = stream.next().await {
        let text = match message {
            Ok(Message::Text(text)) => text,
            Ok(Message::Close(_)) => break,
            Ok(_) => continue,
            Err(e) => {
                outcome = Err(RemoteError::Transport(Box::new(e)));
                break;
            }
        };
        match Envelope::<CoreToRuntime>::from_json(text.as_str()) {
            Ok(frame) => {
                if to_loop.send(frame).await.is_err() {
                    break;
                }
            }
            Err(error) => {
                let (id, frame_type) = frame_identity(text.as_str());
                let reply = ProtocolError {
                    frame_type,
                    error_code: error.code().to_owned(),
                    message: error.to_string(),
                };
                let _ = out.send(Envelope::new(id, reply.into())).await;
            }
        }
    }
    // Closing the loop's input ends it (and every native process); the writer then drains.
    drop(to_loop);
    drop(out);
    let _ = frames.await;
    let _ = writer.await;
    outcome
}

/// The `id` and `type` of a frame that failed strict decoding, read leniently for the reply.
fn frame_identity(text: &str) -> (Option<String>, Option<String>) {
    let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let field = |name: &str| value.get(name).and_then(|v| v.as_str()).map(str::to_owned);
    (field("id"), field("type"))
}
