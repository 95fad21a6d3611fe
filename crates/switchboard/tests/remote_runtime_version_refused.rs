//! A Runtime speaking another protocol version gets `hello_refused` (naming the version Core
//! speaks) and the connection closes; nothing is attached, so Core stays not ready.

use crate::support;

use futures::{SinkExt, StreamExt};
use support::{Core, Mock, TOKEN, WAIT, scratch};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_protocol_version_is_refused() {
    let dir = scratch("remote-version-");
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;

    let mut request = format!("{}/runtime/connect", core.ws_url())
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let hello = r#"{"type":"hello","payload":{"version":"0.0.1","runtime_id":"old-runtime","runtime_version":"0.0.1"}}"#;
    socket.send(Message::Text(hello.into())).await.unwrap();

    let answer = tokio::time::timeout(WAIT, socket.next())
        .await
        .expect("Core answers hello")
        .expect("a frame")
        .expect("a message");
    let Message::Text(text) = answer else {
        panic!("{answer:?}")
    };
    let frame: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
    assert_eq!(frame["type"], "hello_refused", "{frame}");
    assert_eq!(frame["payload"]["code"], "incompatible_version", "{frame}");
    let supported = frame["payload"]["supported_version"].as_str().unwrap();
    assert_ne!(supported, "0.0.1");
    let message = frame["payload"]["message"].as_str().unwrap();
    assert!(
        message.contains("old-runtime") && message.contains("upgrade"),
        "{message}"
    );

    // Core closes the connection after refusing.
    let next = tokio::time::timeout(WAIT, socket.next())
        .await
        .expect("Core closes");
    assert!(
        matches!(next, Some(Ok(Message::Close(_))) | None | Some(Err(_))),
        "unexpected frame after hello_refused: {next:?}"
    );
    assert_eq!(core.readyz().await, 503);
}
