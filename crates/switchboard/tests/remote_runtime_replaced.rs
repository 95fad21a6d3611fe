//! A newer connection with the same `runtime_id` replaces the older one: Core closes the old
//! socket (a Runtime that reconnected after a failure Core missed leaves no dead link behind),
//! and keeps serving the new one.

use crate::support;

use futures::{SinkExt, StreamExt};
use support::{Core, Mock, TOKEN, WAIT, scratch};
use switchboard_protocol::PROTOCOL_VERSION;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A raw connection welcomed as `runtime_id`.
async fn welcomed(core: &Core, runtime_id: &str) -> Socket {
    let mut request = format!("{}/runtime/connect", core.ws_url())
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let hello = serde_json::json!({"type": "hello", "payload": {
        "version": PROTOCOL_VERSION, "runtime_id": runtime_id, "runtime_version": "test",
    }});
    socket
        .send(Message::Text(hello.to_string().into()))
        .await
        .unwrap();
    let frame = next_text(&mut socket).await.expect("Core answers hello");
    assert_eq!(frame["type"], "welcome", "{frame}");
    socket
}

/// The next text frame as JSON, or `None` when the connection closes.
async fn next_text(socket: &mut Socket) -> Option<serde_json::Value> {
    loop {
        let next = tokio::time::timeout(WAIT, socket.next())
            .await
            .expect("Core answers or closes");
        match next {
            Some(Ok(Message::Text(text))) => return Some(serde_json::from_str(&text).unwrap()),
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
            Some(Ok(_)) => continue,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_connection_replaces_the_older_one() {
    let dir = scratch("remote-replaced-");
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;

    let mut old = welcomed(&core, "same-runtime").await;
    let mut new = welcomed(&core, "same-runtime").await;
    assert_eq!(
        next_text(&mut old).await,
        None,
        "the old connection is closed"
    );

    // The new one is served: an undecodable frame is answered with protocol_error.
    new.send(Message::Text(
        r#"{"type":"no_such_frame","id":"f1","payload":{}}"#.into(),
    ))
    .await
    .unwrap();
    let reply = next_text(&mut new)
        .await
        .expect("a reply on the new connection");
    assert_eq!(reply["type"], "protocol_error", "{reply}");
    assert_eq!(reply["id"], "f1");
    assert_eq!(reply["payload"]["error_code"], "unknown_type");
}
