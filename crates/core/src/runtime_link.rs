//! `GET /runtime/connect`: where a remote Runtime (`switchboard runtime`) dials Core, and
//! `POST /runtime/enroll`, where a self-hosted Environment's Runtime trades its one-time
//! enrollment token for the credential it connects with.
//!
//! Not Project API routes: they live outside `/v1`, take no `OpenAI-Beta` header and no
//! Project key. A connecting Runtime presents, as `Authorization: Bearer`, either the
//! deployment's Runtime token (a deployment link: `environment: none` and managed workspaces)
//! or an Environment's credential (a link bound to that self-hosted Environment, which receives
//! its Sessions and nothing else; see [`crate::session::runtimes::Route`]). Anything else, and
//! the deployment token when none is configured, gets the same 401.
//!
//! After the upgrade the Runtime's first frame must be `hello`. Core answers `welcome` (same
//! protocol version) and attaches the link to the Session engine, or `hello_refused` and closes.
//! From then on the socket is only a transport: text frames are decoded into
//! [`Envelope<RuntimeToCore>`] and handed to the engine, the engine's
//! [`Envelope<CoreToRuntime>`]s are written back as text frames. A frame that does not decode is
//! answered with `protocol_error` and skipped. When the socket closes (or stays silent past
//! [`LIVENESS_TIMEOUT`]) the link's frame channel closes, and the engine treats the link as lost:
//! its started Turns fail, queued work waits for the next Runtime.
//!
//! A newer connection with the same `runtime_id` replaces the older one (core-contracts §6.1):
//! a Runtime that reconnects after a network failure Core did not notice would otherwise leave
//! a dead link behind that work could be sent to. Only within one authority, though: an
//! enrolled Runtime never replaces a deployment link or another Environment's, whatever
//! `runtime_id` it claims. An exchange of a new enrollment token ends the Environment's open
//! connections, whose credential it has just replaced.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use sha2::{Digest, Sha256};
use switchboard_protocol::envelope::{Envelope, MessageSet};
use switchboard_protocol::messages::{Hello, ProtocolError};
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use switchboard_wire::{ApiError, ErrorCode};
use tokio::sync::{mpsc, oneshot};

use crate::auth;
use crate::edge::{Failure, GatedJson};
use crate::enrollment;
use crate::session::Engine;
use crate::state::AppState;
use crate::sync::lock;

/// The path remote Runtimes dial.
pub const PATH: &str = "/runtime/connect";
/// Where an enrollment token is exchanged for an Environment credential.
pub const ENROLL_PATH: &str = "/runtime/enroll";
/// The one answer to every token that cannot be exchanged (wrong, spent, replaced, or not a
/// self-hosted Environment's): a caller learns nothing about which.
pub const ENROLL_REFUSED: &str = "A valid enrollment token is required.";
/// The one answer to a connection with neither the Runtime token nor a current credential.
pub const CONNECT_REFUSED: &str = "A valid Runtime token is required.";
/// Bound on the Runtime's `hello` after the upgrade.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(15);
/// A link that sends nothing for this long is dropped as lost. Runtimes send a heartbeat every
/// 15 seconds by default, so this is four missed heartbeats: it catches a peer that vanished
/// without closing its TCP connection.
pub const LIVENESS_TIMEOUT: Duration = Duration::from_secs(60);
/// Depth of the Core → Runtime and Runtime → Core channels, as for the local Runtime.
const CHANNEL_CAPACITY: usize = 64;

/// The route, merged into the application router outside `/v1`.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route(PATH, get(connect))
        .route(ENROLL_PATH, post(enroll))
        .layer(Extension(Arc::new(Connections::default())))
}

/// Who a connection authenticated as: the deployment (`None`) or one self-hosted Environment.
type Authority = Option<String>;
/// An open connection: its number and the signal that ends it.
type Open = (u64, oneshot::Sender<()>);

/// The open connection of each Runtime (its authority and `runtime_id`), to end it when a newer
/// one arrives or its credential is replaced.
#[derive(Default)]
struct Connections {
    next: AtomicU64,
    open: Mutex<HashMap<(Authority, String), Open>>,
}

impl Connections {
    /// Registers a welcomed connection, ending the previous one of the same Runtime. The
    /// receiver resolves when this connection is replaced in turn.
    fn register(&self, authority: &Authority, runtime_id: &str) -> (u64, oneshot::Receiver<()>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (replace, replaced) = oneshot::channel();
        let key = (authority.clone(), runtime_id.to_owned());
        let previous = lock(&self.open).insert(key, (id, replace));
        if let Some((_, previous)) = previous {
            tracing::warn!(runtime = %runtime_id, "Runtime connected again; closing its previous connection");
            let _ = previous.send(());
        }
        (id, replaced)
    }

    fn unregister(&self, authority: &Authority, runtime_id: &str, id: u64) {
        let key = (authority.clone(), runtime_id.to_owned());
        let mut open = lock(&self.open);
        if open.get(&key).is_some_and(|(current, _)| *current == id) {
            open.remove(&key);
        }
    }

    /// Ends every connection of an Environment: its credential was just replaced.
    fn close_environment(&self, environment_id: &str) {
        let mut open = lock(&self.open);
        let ended: Vec<_> = open
            .keys()
            .filter(|(authority, _)| authority.as_deref() == Some(environment_id))
            .cloned()
            .collect();
        for key in ended {
            if let Some((_, end)) = open.remove(&key) {
                tracing::warn!(environment = %environment_id, runtime = %key.1, "the Environment enrolled again; closing the connection of its previous credential");
                let _ = end.send(());
            }
        }
    }
}

/// `POST /runtime/enroll {token}` → `{environment_id, credential}`. The token works once: the
/// exchange clears it in the same write that stores the credential's digest.
async fn enroll(
    State(state): State<Arc<AppState>>,
    Extension(connections): Extension<Arc<Connections>>,
    GatedJson(body): GatedJson,
) -> Response {
    let token = match enrollment_token(&body) {
        Ok(token) => token,
        Err(failure) => return failure.into_response(),
    };
    match enrollment::exchange(state.store.as_ref(), token).await {
        Ok(Some(enrolled)) => {
            tracing::info!(environment = %enrolled.environment_id, "a Runtime enrolled");
            connections.close_environment(&enrolled.environment_id);
            Json(serde_json::json!({
                "environment_id": enrolled.environment_id,
                "credential": enrolled.credential,
            }))
            .into_response()
        }
        Ok(None) => {
            Failure(ApiError::new(ErrorCode::Unauthorized, None, ENROLL_REFUSED)).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "store failure during enrollment");
            Failure(ApiError::internal()).into_response()
        }
    }
}

/// The body's `token`: the only member, a string (the protocol forms of the public API).
fn enrollment_token(body: &serde_json::Map<String, serde_json::Value>) -> Result<&str, Failure> {
    use switchboard_execution::error_messages::{invalid_type, kind, missing, unknown};
    if let Some(key) = body.keys().find(|k| k.as_str() != "token") {
        return Err(unknown(key).into());
    }
    match body.get("token") {
        None => Err(missing("token").into()),
        Some(serde_json::Value::String(token)) => Ok(token),
        Some(other) => Err(invalid_type("token", kind::STRING, other).into()),
    }
}

/// The authority of a connecting Runtime: the deployment's Runtime token first (compared in
/// constant time), then an Environment's credential (looked up by digest).
/// An enrolled Runtime's authority comes with its Environment's Project.
async fn authenticate(
    state: &AppState,
    presented: Option<&str>,
) -> Result<Option<(String, String)>, Failure> {
    if token_matches(state.config.runtime_token.as_deref(), presented) {
        return Ok(None);
    }
    let refused = || {
        Failure(ApiError::new(
            ErrorCode::Unauthorized,
            None,
            CONNECT_REFUSED,
        ))
    };
    let Some(presented) = presented else {
        return Err(refused());
    };
    match enrollment::environment_for(state.store.as_ref(), presented).await {
        Ok(Some(environment)) => Ok(Some(environment)),
        Ok(None) => Err(refused()),
        Err(e) => {
            tracing::error!(error = %e, "store failure while authenticating a Runtime");
            Err(Failure(ApiError::new(
                ErrorCode::AuthenticationUnavailable,
                None,
                "Authentication is temporarily unavailable.",
            )))
        }
    }
}

async fn connect(
    State(state): State<Arc<AppState>>,
    Extension(connections): Extension<Arc<Connections>>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    // The token is checked before anything else, so a probe learns nothing but 401.
    let presented = auth::bearer(
        headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok()),
    );
    let enrolled = match authenticate(&state, presented).await {
        Ok(enrolled) => enrolled,
        Err(failure) => return failure.into_response(),
    };
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => {
            let mut error = ApiError::invalid_body(format!(
                "This endpoint accepts WebSocket connections only: {}",
                rejection.body_text()
            ));
            error.status = rejection.status().as_u16();
            return Failure(error).into_response();
        }
    };
    let engine = state.engine.clone();
    upgrade.on_upgrade(move |socket| serve_link(engine, connections, enrolled, socket))
}

/// Whether `presented` is the configured token. Both sides are hashed first so the comparison
/// takes the same time whatever the tokens' lengths and contents; no token configured (or an
/// empty one) accepts nothing.
pub(crate) fn token_matches(expected: Option<&str>, presented: Option<&str>) -> bool {
    let (Some(expected), Some(presented)) = (expected.filter(|t| !t.is_empty()), presented) else {
        return false;
    };
    let (a, b) = (
        Sha256::digest(expected.as_bytes()),
        Sha256::digest(presented.as_bytes()),
    );
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

type Sink = SplitSink<WebSocket, Message>;
type Stream = SplitStream<WebSocket>;

/// What Core does with a Runtime's first frame.
enum Opening {
    /// Send this `welcome` frame and attach the Runtime.
    Welcome(Hello, String),
    /// Answer with this frame and close: `hello_refused` for another protocol version,
    /// `protocol_error` for anything that is not a `hello`.
    Refuse(String),
    /// A reply frame did not encode (logged): close without one.
    Failed,
}

/// Core's side of the handshake, for the text of the first frame.
fn open(text: &str) -> Opening {
    let frame = match Envelope::<RuntimeToCore>::from_json(text) {
        Ok(frame) => frame,
        Err(error) => {
            let (id, frame_type) = frame_identity(text);
            return refuse(protocol_error(
                id,
                frame_type,
                error.code(),
                &error.to_string(),
            ));
        }
    };
    let hello = match frame.message {
        RuntimeToCore::Hello(hello) => hello,
        other => {
            return refuse(protocol_error(
                frame.id,
                Some(other.type_name().to_owned()),
                "hello_required",
                "the first frame of a connection must be `hello`",
            ));
        }
    };
    match hello.answer() {
        Ok(welcome) => match encode(Envelope::<CoreToRuntime>::new(None, welcome.into())) {
            Some(welcome) => Opening::Welcome(hello, welcome),
            None => Opening::Failed,
        },
        Err(refused) => refuse(encode(Envelope::<CoreToRuntime>::new(None, refused.into()))),
    }
}

fn refuse(reply: Option<String>) -> Opening {
    reply.map_or(Opening::Failed, Opening::Refuse)
}

/// A frame Core makes, as text; `None` (logged) if it does not encode.
fn encode<M: MessageSet>(frame: Envelope<M>) -> Option<String> {
    frame
        .to_json()
        .map_err(|e| tracing::error!(error = %e, "a frame Core made does not encode"))
        .ok()
}

/// A `protocol_error` frame's text. The frame is the Runtime→Core message type: the protocol
/// has one `protocol_error` shape, and Core answers an undecodable frame with it as a Runtime
/// does.
fn protocol_error(
    id: Option<String>,
    frame_type: Option<String>,
    code: &str,
    message: &str,
) -> Option<String> {
    let error = ProtocolError {
        frame_type,
        error_code: code.to_owned(),
        message: message.to_owned(),
    };
    encode(Envelope::<RuntimeToCore>::new(id, error.into()))
}

/// The `id` and `type` of a frame that failed strict decoding, read leniently for the reply.
fn frame_identity(text: &str) -> (Option<String>, Option<String>) {
    let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let field = |name: &str| value.get(name).and_then(|v| v.as_str()).map(str::to_owned);
    (field("id"), field("type"))
}

/// The first text frame, skipping control frames; `None` when the socket ends first.
async fn first_text(stream: &mut Stream) -> Option<Result<String, &'static str>> {
    loop {
        match stream.next().await? {
            Ok(Message::Text(text)) => return Some(Ok(text.as_str().to_owned())),
            Ok(Message::Binary(_)) => return Some(Err("binary")),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
        }
    }
}

async fn close(mut sink: Sink, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = sink.send(Message::Close(Some(frame))).await;
    let _ = sink.close().await;
}

/// One Runtime connection, from the upgrade to the end of its link.
async fn serve_link(
    engine: Arc<Engine>,
    connections: Arc<Connections>,
    enrolled: Option<(String, String)>,
    socket: WebSocket,
) {
    let authority: Authority = enrolled
        .as_ref()
        .map(|(environment, _)| environment.clone());
    let (mut sink, mut stream) = socket.split();
    let text = match tokio::time::timeout(HANDSHAKE_TIMEOUT, first_text(&mut stream)).await {
        Ok(Some(Ok(text))) => text,
        Ok(Some(Err(_binary))) => {
            if let Some(reply) =
                protocol_error(None, None, "bad_frame", "frames are JSON text messages")
            {
                let _ = sink.send(Message::Text(reply.into())).await;
            }
            return close(sink, close_code::PROTOCOL, "expected hello").await;
        }
        Ok(None) => return,
        Err(_) => {
            tracing::warn!("a Runtime sent no hello within {HANDSHAKE_TIMEOUT:?}");
            return close(sink, close_code::POLICY, "no hello").await;
        }
    };
    let (hello, welcome) = match open(&text) {
        Opening::Welcome(hello, welcome) => (hello, welcome),
        Opening::Refuse(reply) => {
            tracing::warn!(reply = %reply, "a Runtime was refused at the handshake");
            let _ = sink.send(Message::Text(reply.into())).await;
            return close(sink, close_code::POLICY, "hello refused").await;
        }
        Opening::Failed => return close(sink, close_code::ERROR, "internal error").await,
    };
    // Registered before the welcome: a Runtime that has its welcome may connect again at once,
    // and that newer connection must find this one to replace (registering after the send let
    // a loaded Core register the older connection last, closing the newer one instead).
    let (connection, mut replaced) = connections.register(&authority, &hello.runtime_id);
    if sink.send(Message::Text(welcome.into())).await.is_err() {
        connections.unregister(&authority, &hello.runtime_id, connection);
        return;
    }
    tracing::info!(runtime = %hello.runtime_id, version = %hello.runtime_version, environment = ?authority, "Runtime connected");

    let (to_runtime, mut outbound) = mpsc::channel::<Envelope<CoreToRuntime>>(CHANNEL_CAPACITY);
    let (inbound, from_runtime) = mpsc::channel::<Envelope<RuntimeToCore>>(CHANNEL_CAPACITY);
    // Replies Core makes on the link itself (`protocol_error`), written in order with the rest.
    let (replies, mut reply_rx) = mpsc::channel::<String>(8);
    let link = engine.attach(
        hello.runtime_id.clone(),
        false,
        enrolled,
        to_runtime,
        from_runtime,
    );

    let mut writer = tokio::spawn(async move {
        loop {
            let text = tokio::select! {
                frame = outbound.recv() => match frame {
                    Some(frame) => match frame.to_json() {
                        Ok(text) => text,
                        Err(e) => {
                            tracing::error!(link, "dropping a frame that does not serialize: {e}");
                            continue;
                        }
                    },
                    // The engine let go of the link.
                    None => break,
                },
                Some(text) = reply_rx.recv() => text,
            };
            if sink.send(Message::Text(text.into())).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });

    loop {
        let next = tokio::select! {
            next = tokio::time::timeout(LIVENESS_TIMEOUT, stream.next()) => next,
            _ = &mut replaced => break,
            // The socket can no longer be written.
            _ = &mut writer => break,
        };
        let message = match next {
            Ok(Some(Ok(message))) => message,
            Ok(Some(Err(e))) => {
                tracing::warn!(link, "Runtime connection failed: {e}");
                break;
            }
            Ok(None) => break,
            Err(_) => {
                tracing::warn!(
                    link,
                    "Runtime sent nothing for {LIVENESS_TIMEOUT:?}; dropping it"
                );
                break;
            }
        };
        let text = match message {
            Message::Text(text) => text,
            Message::Close(_) => break,
            Message::Binary(_) => {
                if let Some(reply) =
                    protocol_error(None, None, "bad_frame", "frames are JSON text messages")
                {
                    let _ = replies.send(reply).await;
                }
                continue;
            }
            Message::Ping(_) | Message::Pong(_) => continue,
        };
        match Envelope::<RuntimeToCore>::from_json(text.as_str()) {
            Ok(frame) => {
                if inbound.send(frame).await.is_err() {
                    break;
                }
            }
            Err(error) => {
                let (id, frame_type) = frame_identity(text.as_str());
                tracing::warn!(link, frame = ?frame_type, "undecodable Runtime frame: {error}");
                if let Some(reply) =
                    protocol_error(id, frame_type, error.code(), &error.to_string())
                {
                    let _ = replies.send(reply).await;
                }
            }
        }
    }
    // Closing the engine's input is how it learns the link is lost; nothing more can be
    // written to a socket that ended.
    drop(inbound);
    writer.abort();
    connections.unregister(&authority, &hello.runtime_id, connection);
    tracing::info!(link, runtime = %hello.runtime_id, "Runtime disconnected");
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_protocol::PROTOCOL_VERSION;

    fn hello(version: &str) -> String {
        let hello = Hello {
            version: version.to_owned(),
            runtime_id: "rt-1".to_owned(),
            runtime_version: "0.1.0".to_owned(),
        };
        Envelope::<RuntimeToCore>::new(None, hello.into())
            .to_json()
            .unwrap()
    }

    fn frame(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn the_current_version_is_welcomed() {
        let Opening::Welcome(hello, welcome) = open(&hello(PROTOCOL_VERSION)) else {
            panic!("refused")
        };
        assert_eq!(hello.runtime_id, "rt-1");
        let welcome = frame(&welcome);
        assert_eq!(welcome["type"], "welcome");
        assert_eq!(welcome["payload"]["version"], PROTOCOL_VERSION);
    }

    #[test]
    fn another_version_is_refused_with_the_supported_one() {
        let Opening::Refuse(reply) = open(&hello("0.0.1")) else {
            panic!("welcomed")
        };
        let reply = frame(&reply);
        assert_eq!(reply["type"], "hello_refused");
        assert_eq!(reply["payload"]["code"], "incompatible_version");
        assert_eq!(reply["payload"]["supported_version"], PROTOCOL_VERSION);
        let message = reply["payload"]["message"].as_str().unwrap();
        assert!(
            message.contains("0.0.1") && message.contains("upgrade"),
            "{message}"
        );
    }

    #[test]
    fn a_first_frame_that_is_not_hello_is_a_protocol_error() {
        let beat = r#"{"type":"heartbeat","payload":{"supported_harnesses":[]}}"#;
        let Opening::Refuse(reply) = open(beat) else {
            panic!("welcomed")
        };
        let reply = frame(&reply);
        assert_eq!(reply["type"], "protocol_error");
        assert_eq!(reply["payload"]["type"], "heartbeat");
        assert_eq!(reply["payload"]["error_code"], "hello_required");

        let Opening::Refuse(reply) = open(r#"{"type":"hola","id":"f1","payload":{}}"#) else {
            panic!("welcomed")
        };
        let reply = frame(&reply);
        assert_eq!(reply["type"], "protocol_error");
        assert_eq!(reply["id"], "f1");
        assert_eq!(reply["payload"]["type"], "hola");
        assert_eq!(reply["payload"]["error_code"], "unknown_type");
    }

    #[test]
    fn the_enroll_body_is_one_string_token() {
        let body = |v: serde_json::Value| v.as_object().unwrap().clone();
        let error = |v| enrollment_token(&body(v)).err().unwrap().0.body();
        assert_eq!(
            enrollment_token(&body(serde_json::json!({"token": "sbenr_x"}))).ok(),
            Some("sbenr_x")
        );
        let missing = error(serde_json::json!({}));
        assert_eq!(missing["error"]["code"], "missing_required_parameter");
        assert_eq!(missing["error"]["param"], "token");
        let unknown = error(serde_json::json!({"token": "t", "runtime": 1}));
        assert_eq!(unknown["error"]["code"], "unknown_parameter");
        assert_eq!(unknown["error"]["param"], "runtime");
        let typed = error(serde_json::json!({"token": 7}));
        assert_eq!(typed["error"]["code"], "invalid_type");
        assert_eq!(typed["error"]["param"], "token");
    }

    #[test]
    fn a_runtime_replaces_only_connections_of_its_own_authority() {
        let connections = Connections::default();
        let env = Some("env_a".to_owned());
        let (_, mut deployment) = connections.register(&None, "rt");
        let (_, mut enrolled) = connections.register(&env, "rt");
        // Same runtime_id, another authority: the deployment link stays.
        assert!(deployment.try_recv().is_err());
        let (_, mut again) = connections.register(&env, "rt");
        assert!(enrolled.try_recv().is_ok());
        connections.close_environment("env_a");
        assert!(again.try_recv().is_ok());
        assert!(deployment.try_recv().is_err());
    }

    #[test]
    fn only_the_configured_token_matches() {
        assert!(token_matches(Some("secret"), Some("secret")));
        assert!(!token_matches(Some("secret"), Some("secreT")));
        assert!(!token_matches(Some("secret"), Some("secret-and-more")));
        assert!(!token_matches(Some("secret"), None));
        assert!(!token_matches(None, Some("secret")));
        assert!(!token_matches(Some(""), Some("")));
    }
}
