//! Vault credentials of a Session's HTTP MCP servers, end to end in Core: the selection frozen
//! at create (an implicit one shown in the tool's `credential_id`, anonymous null), and the
//! dispatch-time recheck that opens the bearer, follows rotation, and fails, never anonymous,
//! once the credential or its Vault is gone or its OAuth token has expired.

use crate::support;

use serde_json::{Value, json};
use support::Peer;
use switchboard_core::session::credentials::{CredentialUnavailable, resolve_bearers};
use switchboard_core::session::state::SessionDoc;

const URL: &str = "https://mcp.example.com/mcp";
const ANON: &str = "https://anon.example.com/mcp";

async fn vault(peer: &Peer) -> String {
    let (status, v) = peer
        .request("POST", "/vaults", Some(json!({"name": "v"})))
        .await;
    assert_eq!(status, 201, "{v}");
    v["id"].as_str().unwrap().to_owned()
}

async fn credential(peer: &Peer, vault: &str, auth: Value) -> String {
    let (status, c) = peer
        .request(
            "POST",
            &format!("/vaults/{vault}/credentials"),
            Some(json!({"name": "c", "auth": auth})),
        )
        .await;
    assert_eq!(status, 201, "{c}");
    c["id"].as_str().unwrap().to_owned()
}

fn mcp(label: &str, url: &str) -> Value {
    json!({"type": "mcp", "server_label": label, "transport": {"type": "http", "server_url": url}})
}

async fn create(peer: &Peer, tools: Value, vault_ids: Value) -> Value {
    let (status, s) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(json!({
                "environment": {"type": "none"},
                "agent": {"model": "gpt-test", "tools": tools},
                "input": "hi",
                "vault_ids": vault_ids,
            })),
        )
        .await;
    assert_eq!(status, 201, "{s}");
    s
}

async fn doc(peer: &Peer, id: &str) -> SessionDoc {
    let rec = peer
        .state
        .store
        .get_session(&peer.project().await, id)
        .await
        .unwrap()
        .unwrap();
    switchboard_core::session::engine::parse_record(&rec)
        .unwrap()
        .1
}

async fn bearers(
    peer: &Peer,
    doc: &SessionDoc,
    now: i64,
) -> Result<Vec<(String, String)>, CredentialUnavailable> {
    let found = resolve_bearers(
        peer.state.store.as_ref(),
        &peer.state.secrets,
        &peer.project().await,
        &doc.vault_ids,
        &doc.credentials,
        now,
    )
    .await?;
    Ok(found.into_iter().map(|(l, b)| (l, b.0)).collect())
}

fn tool_credential(session: &Value, i: usize) -> Value {
    session["agent"]["tools"][i]["credential_id"].clone()
}

#[tokio::test]
async fn implicit_selection_is_shown_frozen_and_rechecked_at_dispatch() {
    let peer = Peer::start().await;
    let v = vault(&peer).await;
    let c = credential(
        &peer,
        &v,
        json!({"type": "static_bearer", "mcp_server_url": URL, "token": "tok-first"}),
    )
    .await;
    // Attached twice, the Vault still offers one match.
    let s = create(
        &peer,
        json!([mcp("docs", URL), mcp("anon", ANON)]),
        json!([v, v]),
    )
    .await;
    let id = s["id"].as_str().unwrap();
    // Reads show the implicit selection; the server without a credential stays anonymous.
    assert_eq!(tool_credential(&s, 0), json!(c));
    assert_eq!(tool_credential(&s, 1), Value::Null);
    assert_eq!(tool_credential(&peer.session(id).await, 0), json!(c));

    let d = doc(&peer, id).await;
    assert_eq!(d.credentials.len(), 1);
    assert_eq!(
        (
            d.credentials[0].server_label.as_str(),
            d.credentials[0].kind.as_str()
        ),
        ("docs", "static_bearer")
    );
    assert_eq!(
        bearers(&peer, &d, 0).await.unwrap(),
        [("docs".into(), "tok-first".into())]
    );
    // The stored Session holds no secret.
    let rec = peer
        .state
        .store
        .get_session(&peer.project().await, id)
        .await
        .unwrap()
        .unwrap();
    assert!(!rec.doc.contains("tok-first"));

    // Without the data key that sealed it, the secret cannot be opened: credential storage is
    // unavailable, and the work fails rather than running anonymously.
    let other_key = switchboard_core::secrets::SecretBox::from_key(&[9u8; 32]).unwrap();
    let err = resolve_bearers(
        peer.state.store.as_ref(),
        &other_key,
        &peer.project().await,
        &d.vault_ids,
        &d.credentials,
        0,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CredentialUnavailable::Storage), "{err}");
    assert_eq!(err.to_string(), "Credential storage is unavailable.");

    // A rotated secret is what the next dispatch sends: the selection, not the token, is frozen.
    let (status, _) = peer
        .request(
            "POST",
            &format!("/vaults/{v}/credentials/{c}"),
            Some(json!({"auth": {"type": "static_bearer", "token": "tok-second"}})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(bearers(&peer, &d, 0).await.unwrap()[0].1, "tok-second");

    // A deleted credential fails the work; a deleted Vault too. Never anonymous.
    let (status, _) = peer
        .request("DELETE", &format!("/vaults/{v}/credentials/{c}"), None)
        .await;
    assert_eq!(status, 200);
    let err = bearers(&peer, &d, 0).await.unwrap_err();
    assert!(
        matches!(err, CredentialUnavailable::Credential { .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "The vault credential of MCP server docs is unavailable: it was deleted."
    );
    peer.request("DELETE", &format!("/vaults/{v}"), None).await;
    let err = bearers(&peer, &d, 0).await.unwrap_err();
    assert!(matches!(err, CredentialUnavailable::Vault { .. }), "{err}");
}

#[tokio::test]
async fn explicit_selection_and_expired_oauth_tokens() {
    let peer = Peer::start().await;
    let (a, b) = (vault(&peer).await, vault(&peer).await);
    // Two credentials for the same URL: an explicit credential_id chooses between them.
    credential(
        &peer,
        &a,
        json!({"type": "static_bearer", "mcp_server_url": URL, "token": "tok-a"}),
    )
    .await;
    let oauth = credential(
        &peer,
        &b,
        json!({"type": "mcp_oauth", "mcp_server_url": URL, "access_token": "acc-b",
               "expires_at": "2030-01-01T00:00:00Z"}),
    )
    .await;
    let mut tool = mcp("docs", URL);
    tool["credential_id"] = json!(oauth);
    let s = create(&peer, json!([tool]), json!([a, b])).await;
    assert_eq!(tool_credential(&s, 0), json!(oauth));
    let d = doc(&peer, s["id"].as_str().unwrap()).await;
    assert_eq!(d.credentials[0].kind, "mcp_oauth");
    assert_eq!(d.credentials[0].vault_id, b);
    let before = 1_893_455_999; // 2029-12-31T23:59:59Z
    assert_eq!(bearers(&peer, &d, before).await.unwrap()[0].1, "acc-b");
    // Once expires_at has passed the token is not used (no refresh configured).
    let err = bearers(&peer, &d, before + 1).await.unwrap_err();
    assert!(
        matches!(err, CredentialUnavailable::Expired { .. }),
        "{err}"
    );
    // A binding whose Vault is not among the Session's vault_ids is refused.
    let mut detached = d.clone();
    detached.vault_ids = vec![a.clone()];
    let err = bearers(&peer, &detached, before).await.unwrap_err();
    assert!(matches!(err, CredentialUnavailable::Vault { .. }), "{err}");
}

/// A local OAuth token endpoint that records each request's `Authorization` header and form
/// body, and answers `status` with `answer`.
struct TokenEndpoint {
    url: String,
    seen: std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>,
}

async fn token_endpoint(status: u16, answer: Value) -> TokenEndpoint {
    use axum::http::{HeaderMap, StatusCode};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let app = axum::Router::new().route(
        "/token",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let log = log.clone();
            let answer = answer.clone();
            async move {
                let auth = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                log.lock().unwrap().push((auth, body));
                (StatusCode::from_u16(status).unwrap(), axum::Json(answer))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    TokenEndpoint { url, seen }
}

/// An expired `mcp_oauth` credential refreshing at `endpoint`, stored directly (its loopback
/// HTTP endpoint needs the deployment flag at the route), and a Session bound to it.
async fn expired_oauth_session(peer: &Peer, endpoint: &str) -> (String, String, SessionDoc) {
    use switchboard_core::vaults::{ACTIVE, CredentialDoc, seal_auth};
    use switchboard_execution::vault::{AuthCreate, EndpointAuth, RefreshCreate};
    let v = vault(peer).await;
    let auth = AuthCreate::McpOauth {
        mcp_server_url: URL.into(),
        access_token: "acc-old".into(),
        expires_at: Some("2020-01-01T00:00:00Z".into()),
        refresh: Some(RefreshCreate {
            client_id: "client-1".into(),
            refresh_token: "rt-old".into(),
            token_endpoint: endpoint.into(),
            token_endpoint_auth: EndpointAuth::ClientSecretBasic,
            client_secret: Some("cs-1".into()),
            resource: None,
            scope: Some("read".into()),
        }),
    };
    let stored = CredentialDoc {
        name: "oauth".into(),
        updated_at: 1,
        auth: seal_auth(&peer.state.secrets, auth).unwrap(),
    };
    let id = switchboard_wire::ids::new_id(switchboard_wire::ids::IdKind::Credential);
    peer.state
        .store
        .put_credential(&switchboard_store::CredentialRecord {
            id: id.clone(),
            project_id: peer.project().await,
            vault_id: v.clone(),
            created_at: 1,
            status: ACTIVE.into(),
            metadata: "{}".into(),
            doc: serde_json::to_string(&stored).unwrap(),
        })
        .await
        .unwrap();
    let s = create(peer, json!([mcp("docs", URL)]), json!([v])).await;
    let d = doc(peer, s["id"].as_str().unwrap()).await;
    (v, id, d)
}

async fn bearer_at(
    peer: &Peer,
    d: &SessionDoc,
    now: i64,
    allow_loopback_http: bool,
) -> Result<String, CredentialUnavailable> {
    switchboard_core::session::credentials::resolve_bearer_with(
        peer.state.store.as_ref(),
        &peer.state.secrets,
        &peer.project().await,
        &d.vault_ids,
        &d.credentials[0],
        now,
        switchboard_execution::vault::UrlPolicy {
            allow_loopback_http,
        },
    )
    .await
    .map(|b| b.0)
}

#[tokio::test]
async fn an_expired_oauth_token_is_refreshed_once_and_stored() {
    let peer = Peer::start().await;
    let endpoint = token_endpoint(
        200,
        json!({"access_token": "acc-new", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-new"}),
    )
    .await;
    let (v, c, d) = expired_oauth_session(&peer, &endpoint.url).await;
    let now = 1_900_000_000;
    assert_eq!(bearer_at(&peer, &d, now, true).await.unwrap(), "acc-new");
    {
        let seen = endpoint.seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        // client_secret_basic: `client-1:cs-1` in the Basic header, the grant in the body.
        assert_eq!(seen[0].0, "Basic Y2xpZW50LTE6Y3MtMQ==");
        assert_eq!(
            seen[0].1,
            "grant_type=refresh_token&refresh_token=rt-old&scope=read"
        );
    }
    // Stored: the new expiry is public, the new tokens are sealed.
    let (_, cred) = peer
        .request("GET", &format!("/vaults/{v}/credentials/{c}"), None)
        .await;
    assert_eq!(
        cred["auth"]["expires_at"],
        json!(switchboard_execution::vault::rfc3339_from_seconds(
            now + 3600
        ))
    );
    let rec = peer
        .state
        .store
        .get_credential(&peer.project().await, &v, &c)
        .await
        .unwrap()
        .unwrap();
    assert!(!rec.doc.contains("acc-new") && !rec.doc.contains("rt-new"));
    // Until it expires the new token is used as is; after, the rotated refresh token refreshes.
    assert_eq!(
        bearer_at(&peer, &d, now + 60, true).await.unwrap(),
        "acc-new"
    );
    assert_eq!(endpoint.seen.lock().unwrap().len(), 1);
    bearer_at(&peer, &d, now + 3600, true).await.unwrap();
    let seen = endpoint.seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert!(seen[1].1.contains("refresh_token=rt-new"), "{}", seen[1].1);
}

#[tokio::test]
async fn a_failed_refresh_is_not_retried_and_fails_the_work() {
    let peer = Peer::start().await;
    let endpoint = token_endpoint(400, json!({"error": "invalid_grant"})).await;
    let (v, c, d) = expired_oauth_session(&peer, &endpoint.url).await;
    let before = peer
        .state
        .store
        .get_credential(&peer.project().await, &v, &c)
        .await
        .unwrap()
        .unwrap();
    let err = bearer_at(&peer, &d, 1_900_000_000, true).await.unwrap_err();
    assert!(
        matches!(err, CredentialUnavailable::Refresh { .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "The OAuth access token of MCP server docs has expired and refreshing it failed."
    );
    assert_eq!(endpoint.seen.lock().unwrap().len(), 1);
    let after = peer
        .state
        .store
        .get_credential(&peer.project().await, &v, &c)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(before, after);
}

#[tokio::test]
async fn a_loopback_token_endpoint_is_refused_without_the_deployment_flag() {
    let peer = Peer::start().await;
    let endpoint = token_endpoint(200, json!({"access_token": "acc-new"})).await;
    let (_, _, d) = expired_oauth_session(&peer, &endpoint.url).await;
    let err = bearer_at(&peer, &d, 1_900_000_000, false)
        .await
        .unwrap_err();
    assert!(
        matches!(err, CredentialUnavailable::Refresh { .. }),
        "{err}"
    );
    assert!(endpoint.seen.lock().unwrap().is_empty());
}
