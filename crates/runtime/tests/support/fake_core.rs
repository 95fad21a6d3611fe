//! A stand-in Core on loopback: accepts one Runtime WebSocket, answers `hello`, records every
//! frame the Runtime sends, and sends what the test tells it to.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::HelloRefused;
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use tokio::sync::mpsc;

/// How the fake answers `hello`.
#[derive(Clone, Debug)]
pub enum Answer {
    /// As this build's Core would (`Hello::answer`).
    Current,
    /// As a Core speaking another protocol version would: refuse and close.
    RefuseAs { supported_version: String },
}

/// What the test can make the fake Core do.
pub enum Command {
    Frame(Box<Envelope<CoreToRuntime>>),
    /// Text sent as is (to send frames that do not decode).
    Raw(String),
    Close,
}

#[derive(Clone)]
struct Shared {
    answer: Answer,
    received: mpsc::UnboundedSender<Envelope<RuntimeToCore>>,
    commands: Arc<Mutex<Option<mpsc::UnboundedReceiver<Command>>>>,
    authorization: Arc<Mutex<Option<String>>>,
}

pub struct FakeCore {
    pub url: String,
    pub received: mpsc::UnboundedReceiver<Envelope<RuntimeToCore>>,
    pub commands: mpsc::UnboundedSender<Command>,
    authorization: Arc<Mutex<Option<String>>>,
}

impl FakeCore {
    pub async fn start(answer: Answer) -> FakeCore {
        let (received_tx, received) = mpsc::unbounded_channel();
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let authorization = Arc::new(Mutex::new(None));
        let shared = Shared {
            answer,
            received: received_tx,
            commands: Arc::new(Mutex::new(Some(commands_rx))),
            authorization: authorization.clone(),
        };
        let app = Router::new()
            .route("/api/v1/runtime/ws", get(upgrade))
            .with_state(shared);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeCore {
            url: format!("ws://{addr}/api/v1/runtime/ws"),
            received,
            commands,
            authorization,
        }
    }

    /// The `Authorization` header of the upgrade request.
    pub fn authorization(&self) -> Option<String> {
        self.authorization.lock().unwrap().clone()
    }

    pub async fn next(&mut self) -> Envelope<RuntimeToCore> {
        tokio::time::timeout(super::WAIT, self.received.recv())
            .await
            .expect("timed out waiting for a Runtime frame")
            .expect("the connection ended")
    }

    /// The next frame that is not a heartbeat.
    pub async fn next_non_heartbeat(&mut self) -> Envelope<RuntimeToCore> {
        loop {
            let frame = self.next().await;
            if !matches!(frame.message, RuntimeToCore::Heartbeat(_)) {
                return frame;
            }
        }
    }

    pub fn send(&self, command: Command) {
        self.commands
            .send(command)
            .expect("the fake Core is running");
    }
}

async fn upgrade(
    State(shared): State<Shared>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    *shared.authorization.lock().unwrap() = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    ws.on_upgrade(move |socket| serve(socket, shared))
}

async fn serve(mut socket: WebSocket, shared: Shared) {
    let Some(Ok(Message::Text(first))) = socket.recv().await else {
        return;
    };
    let hello = Envelope::<RuntimeToCore>::from_json(first.as_str()).expect("hello decodes");
    let RuntimeToCore::Hello(h) = &hello.message else {
        panic!("the first frame is not hello: {hello:?}");
    };
    let answer: CoreToRuntime = match &shared.answer {
        Answer::Current => match h.answer() {
            Ok(welcome) => welcome.into(),
            Err(refused) => refused.into(),
        },
        Answer::RefuseAs { supported_version } => HelloRefused {
            code: "incompatible_version".into(),
            message: format!(
                "Runtime {} speaks protocol {} but this Core speaks {supported_version}; upgrade the older side.",
                h.runtime_id, h.version
            ),
            supported_version: supported_version.clone(),
        }
        .into(),
    };
    let _ = shared.received.send(hello);
    let welcomed = matches!(answer, CoreToRuntime::Welcome(_));
    let text = Envelope::new(None, answer).to_json().unwrap();
    if socket.send(Message::Text(text.into())).await.is_err() || !welcomed {
        let _ = socket.send(Message::Close(None)).await;
        return;
    }
    let mut commands = shared
        .commands
        .lock()
        .unwrap()
        .take()
        .expect("one connection");
    loop {
        tokio::select! {
            message = socket.recv() => match message {
                Some(Ok(Message::Text(text))) => {
                    let frame = Envelope::<RuntimeToCore>::from_json(text.as_str())
                        .expect("the Runtime sends well-formed frames");
                    let _ = shared.received.send(frame);
                }
                Some(Ok(_)) => {}
                _ => return,
            },
            command = commands.recv() => match command {
                Some(Command::Frame(frame)) => {
                    let _ = socket.send(Message::Text(frame.to_json().unwrap().into())).await;
                }
                Some(Command::Raw(text)) => {
                    let _ = socket.send(Message::Text(text.into())).await;
                }
                Some(Command::Close) | None => {
                    let _ = socket.send(Message::Close(None)).await;
                    return;
                }
            },
        }
    }
}
