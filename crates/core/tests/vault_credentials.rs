//! Vault credentials of a Session's HTTP MCP servers, end to end in Core: the selection frozen
//! at create (an implicit one shown in the tool's `credential_id`, anonymous null), and the
//! dispatch-time recheck that opens the bearer, follows rotation, and fails, never anonymous,
//! once the credential or its Vault is gone or its OAuth token has expired.

// Test code may panic (clippy.toml's test allowance misses integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

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
    let rec = peer.state.store.get_session(id).await.unwrap().unwrap();
    serde_json::from_str(&rec.doc).unwrap()
}

async fn bearers(
    peer: &Peer,
    doc: &SessionDoc,
    now: i64,
) -> Result<Vec<(String, String)>, CredentialUnavailable> {
    let found = resolve_bearers(
        peer.state.store.as_ref(),
        &peer.state.secrets,
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
    let s = create(
        &peer,
        json!([mcp("docs", URL), mcp("anon", ANON)]),
        json!([v]),
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
    let rec = peer.state.store.get_session(id).await.unwrap().unwrap();
    assert!(!rec.doc.contains("tok-first"));

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
