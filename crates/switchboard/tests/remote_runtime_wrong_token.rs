//! A Runtime with the wrong token is refused: Core answers 401 in the public error shape, and
//! `switchboard runtime` exits non-zero saying which token to check instead of retrying.

use crate::support;

use support::{Core, Mock, TOKEN, scratch};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_is_refused_and_the_runtime_exits() {
    let dir = scratch("remote-token-");
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;

    let runtime = core.runtime("not-the-token", &dir.path().join("runtime"), true);
    let (status, stderr) = runtime.exit().await;
    assert!(!status.success(), "{status:?}: {stderr}");
    assert!(stderr.contains("401"), "{stderr}");
    assert!(
        stderr.contains("A valid Runtime token is required."),
        "{stderr}"
    );
    assert!(stderr.contains("--token"), "{stderr}");
    assert_eq!(core.readyz().await, 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connect_route_answers_401_without_the_token() {
    let dir = scratch("remote-token-http-");
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;
    let http = reqwest::Client::new();
    let url = format!("{}/runtime/connect", core.root);

    let expected = serde_json::json!({"error": {
        "message": "A valid Runtime token is required.",
        "type": "invalid_request_error",
        "param": null,
        "code": null,
    }});
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Bearer sk-sb-remote-runtime-test"),
    ] {
        let mut request = http.get(&url);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 401, "{auth:?}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body, expected, "{auth:?}");
    }
    // The right token without a WebSocket upgrade is a 400, not a 401.
    let response = http.get(&url).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 400);
}
