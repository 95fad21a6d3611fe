//! An `mcp_oauth` refresh against an HTTPS token endpoint: the endpoint's certificate is signed
//! by a private CA made at test time and trusted as a deployment trusts one (`SSL_CERT_FILE`,
//! the system trust store). The SSRF rule still holds over TLS: the same loopback endpoint is
//! refused without the deployment flag, and an endpoint nobody trusts is never sent a secret.
//! It sets the process's environment, which holds because nextest runs every test in its own
//! process.

// The runtime tests' HTTPS support and environment setter: one copy each, shared by path.
#[path = "../../runtime/tests/support/process_env.rs"]
mod process_env;
#[path = "../../runtime/tests/support/tls.rs"]
mod tls;

use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;
use serde_json::json;
use switchboard_core::oauth::{RefreshError, RefreshRequest, refresh};
use switchboard_execution::vault::{EndpointAuth, UrlPolicy};
use tls::{TestCa, TlsListener};

type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// An HTTPS token endpoint on `localhost` with `ca`'s certificate, recording each request's
/// `Authorization` and body, answering a fresh token.
async fn token_endpoint(ca: &TestCa) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let log = seen.clone();
    let app = axum::Router::new().route(
        "/token",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let log = log.clone();
            async move {
                let auth = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                log.lock().unwrap().push((auth, body));
                axum::Json(json!({"access_token": "acc-tls", "token_type": "Bearer",
                    "expires_in": 600, "refresh_token": "rt-tls-2"}))
            }
        }),
    );
    let listener = TlsListener::bind("127.0.0.1:0".parse().unwrap(), ca.server.clone()).await;
    let port = axum::serve::Listener::local_addr(&listener).unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("https://localhost:{port}/token"), seen)
}

fn request(endpoint: &str) -> RefreshRequest<'_> {
    RefreshRequest {
        token_endpoint: endpoint,
        client_id: "client-1",
        method: EndpointAuth::ClientSecretBasic,
        client_secret: Some("cs-secret".into()),
        refresh_token: "rt-tls-1".into(),
        resource: None,
        scope: Some("read"),
    }
}

#[tokio::test]
async fn a_token_endpoint_on_https_with_a_trusted_ca_refreshes() {
    let ca = TestCa::new();
    ca.trust_in_this_process();
    let (url, seen) = token_endpoint(&ca).await;
    let local = UrlPolicy {
        allow_loopback_http: true,
    };

    let refreshed = refresh(request(&url), local).await.unwrap();
    assert_eq!(refreshed.access_token, "acc-tls");
    assert_eq!(refreshed.expires_in, Some(600));
    assert_eq!(refreshed.refresh_token.as_deref(), Some("rt-tls-2"));
    let [(auth, body)] = seen.lock().unwrap().clone().try_into().unwrap();
    // base64("client-1:cs-secret")
    assert_eq!(auth, "Basic Y2xpZW50LTE6Y3Mtc2VjcmV0");
    assert_eq!(
        body,
        "grant_type=refresh_token&refresh_token=rt-tls-1&scope=read"
    );

    // Without the deployment flag, the loopback endpoint is refused before any request.
    assert!(matches!(
        refresh(request(&url), UrlPolicy::default()).await,
        Err(RefreshError::Blocked)
    ));
    // An endpoint whose CA nobody trusts: the handshake fails, no request is made.
    let (untrusted, untrusted_seen) = token_endpoint(&TestCa::new()).await;
    assert!(matches!(
        refresh(request(&untrusted), local).await,
        Err(RefreshError::Unreachable(_))
    ));
    assert!(untrusted_seen.lock().unwrap().is_empty());
    assert_eq!(seen.lock().unwrap().len(), 1);
}
