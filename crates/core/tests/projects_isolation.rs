//! The Project isolation matrix (issue 16): every public route × {no key, revoked key, a key
//! of an archived Project, another Project's key, own key}. Another Project's ID answers
//! exactly what a missing one does (status and body byte for byte), lists never show another
//! Project's rows, and a `tool_result` for another Project's Session is a 404.

use crate::support;

use serde_json::{Value, json};
use support::{KEY, Peer};
use switchboard_core::auth;

/// A request with `key` (none: no Authorization header): status and the raw body.
async fn raw(
    peer: &Peer,
    key: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, String) {
    let mut req = reqwest::Client::new()
        .request(method.parse().unwrap(), format!("{}{path}", peer.base))
        .header("openai-beta", "agents=v1");
    if let Some(key) = key {
        req = req.header("authorization", format!("Bearer {key}"));
    }
    if let Some(body) = body {
        req = req.json(body);
    }
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

fn unauthorized() -> Value {
    json!({"error": {
        "message": "A valid Agents API bearer key is required.",
        "type": "invalid_request_error", "param": null, "code": null,
    }})
}

fn not_found() -> Value {
    json!({"error": {
        "message": "Resource not found.",
        "type": "not_found_error", "param": null, "code": "not_found_error",
    }})
}

/// A well-formed ID that names nothing, of the same kind as `id`.
fn missing(id: &str) -> String {
    let (prefix, _) = id.rsplit_once('_').unwrap();
    format!("{prefix}_{}", "0".repeat(32))
}

/// Keys of the matrix besides [`KEY`] (the own Project's).
struct Keys {
    foreign: String,
    revoked: String,
    archived: String,
}

async fn keys(peer: &Peer) -> Keys {
    let store = peer.state.store.as_ref();
    let own = peer.project().await;
    let key_of = |project: String| async move {
        let secret = auth::generate_secret();
        let rec = auth::record_for(&secret, &project, 1);
        store.insert_api_key(&rec).await.unwrap();
        (secret, rec.id)
    };
    let other = auth::new_project("other", 1);
    store.insert_project(&other).await.unwrap();
    let (foreign, _) = key_of(other.id.clone()).await;
    let (revoked, revoked_id) = key_of(own).await;
    assert!(store.revoke_api_key(&revoked_id, 2).await.unwrap());
    let gone = auth::new_project("gone", 1);
    store.insert_project(&gone).await.unwrap();
    let (archived, _) = key_of(gone.id.clone()).await;
    assert!(store.archive_project(&gone.id, 2).await.unwrap());
    Keys {
        foreign,
        revoked,
        archived,
    }
}

/// No key, a revoked key and an archived Project's key: the same 401 and body.
async fn refused(peer: &Peer, k: &Keys, method: &str, path: &str, body: Option<&Value>) {
    for key in [None, Some(k.revoked.as_str()), Some(k.archived.as_str())] {
        let (status, text) = raw(peer, key, method, path, body).await;
        assert_eq!(status, 401, "{method} {path} with {key:?}: {text}");
        let got: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(got, unauthorized(), "{method} {path}");
    }
}

/// The foreign key on `path` answers byte for byte what it answers on `absent` (the same route
/// with a missing ID), and both are the public 404; the own key gets `own`.
async fn hidden(
    peer: &Peer,
    k: &Keys,
    method: &str,
    path: &str,
    absent: &str,
    body: Option<&Value>,
) {
    refused(peer, k, method, path, body).await;
    let (status, foreign) = raw(peer, Some(&k.foreign), method, path, body).await;
    let (missing_status, missing) = raw(peer, Some(&k.foreign), method, absent, body).await;
    let (own_missing_status, own_missing) = raw(peer, Some(KEY), method, absent, body).await;
    assert_eq!(status, 404, "{method} {path}: {foreign}");
    assert_eq!(
        (status, &foreign),
        (missing_status, &missing),
        "{method} {path}"
    );
    assert_eq!(
        (status, &foreign),
        (own_missing_status, &own_missing),
        "{method} {path}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&foreign).unwrap(),
        not_found()
    );
}

async fn own(peer: &Peer, method: &str, path: &str, body: Option<&Value>, want: u16) -> Value {
    let (status, text) = raw(peer, Some(KEY), method, path, body).await;
    assert_eq!(status, want, "{method} {path}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// A list route: refused without a usable key; the foreign key's list never holds `id`, the
/// own key's does.
async fn listed(peer: &Peer, k: &Keys, path: &str, id: &str) {
    refused(peer, k, "GET", path, None).await;
    let (status, text) = raw(peer, Some(&k.foreign), "GET", path, None).await;
    assert_eq!(status, 200, "GET {path}: {text}");
    let list: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(list["data"], json!([]), "GET {path} with the foreign key");
    let list = own(peer, "GET", path, None, 200).await;
    assert!(
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == id),
        "GET {path}: {list}"
    );
}

#[tokio::test]
async fn another_projects_resources_are_missing_and_unlisted() {
    let mut peer = Peer::start().await;
    let k = keys(&peer).await;

    // The own Project's resources: a Session whose Turn waits on a function call and has a
    // Subagent with a Turn and an Item, an Agent, a Vault with a credential, and an Environment.
    let (sid, run, tid) = peer.started_turn().await;
    let (sub, child_turn, child_item) = child(&peer, &sid, &run).await;
    peer.call(&sid, &run, "c1").await;
    let agent = own(&peer, "POST", "/agents", Some(&json!({"model": "m"})), 201).await;
    let aid = agent["id"].as_str().unwrap().to_owned();
    let vault = own(&peer, "POST", "/vaults", Some(&json!({"name": "v"})), 201).await;
    let vid = vault["id"].as_str().unwrap().to_owned();
    let cred_body = json!({"name": "c", "auth": {
        "type": "static_bearer", "mcp_server_url": "https://mcp.example.com/mcp", "token": "t",
    }});
    let cred = own(
        &peer,
        "POST",
        &format!("/vaults/{vid}/credentials"),
        Some(&cred_body),
        201,
    )
    .await;
    let cid = cred["id"].as_str().unwrap().to_owned();
    let env_body = json!({"environment": {"type": "openai_hosted"}});
    let env = own(&peer, "POST", "/agents/environments", Some(&env_body), 201).await;
    let eid = env["id"].as_str().unwrap().to_owned();

    // Creates with a usable key land in the key's own Project; without one, nothing.
    refused(&peer, &k, "POST", "/agents", Some(&json!({"model": "m"}))).await;
    refused(&peer, &k, "POST", "/vaults", Some(&json!({"name": "v"}))).await;
    refused(&peer, &k, "POST", "/agents/environments", Some(&env_body)).await;
    refused(
        &peer,
        &k,
        "POST",
        "/agents/sessions",
        Some(&json!({"agent": {"model": "m"}})),
    )
    .await;

    // Lists.
    listed(&peer, &k, "/agents", &aid).await;
    listed(&peer, &k, "/agents/sessions", &sid).await;
    listed(&peer, &k, "/vaults", &vid).await;
    listed(&peer, &k, "/agents/environments", &eid).await;

    // Agents.
    let a = format!("/agents/{aid}");
    let a_missing = format!("/agents/{}", missing(&aid));
    let patch = json!({"model": "m2"});
    hidden(&peer, &k, "GET", &a, &a_missing, None).await;
    hidden(&peer, &k, "POST", &a, &a_missing, Some(&patch)).await;
    hidden(&peer, &k, "DELETE", &a, &a_missing, None).await;
    own(&peer, "GET", &a, None, 200).await;

    // Sessions, their Turns, Items, events and Subagents.
    let s = format!("/agents/sessions/{sid}");
    let sm = format!("/agents/sessions/{}", missing(&sid));
    let session_routes = [
        ("GET", String::new(), None),
        ("POST", String::new(), Some(json!({"metadata": {"k": "v"}}))),
        ("DELETE", String::new(), None),
        ("GET", "/items".to_owned(), None),
        ("GET", "/turns".to_owned(), None),
        ("GET", format!("/turns/{tid}"), None),
        ("GET", format!("/turns/{tid}/items"), None),
        ("GET", "/subagents".to_owned(), None),
        ("GET", format!("/subagents/{sub}"), None),
        ("GET", format!("/subagents/{sub}/turns"), None),
        ("GET", format!("/subagents/{sub}/items"), None),
        ("GET", format!("/subagents/{sub}/turns/{child_turn}"), None),
        (
            "GET",
            format!("/subagents/{sub}/turns/{child_turn}/items"),
            None,
        ),
        ("GET", "/events".to_owned(), None),
        (
            "POST",
            "/events".to_owned(),
            Some(json!({"events": [{
                "type": "agent.session.input.tool_result",
                "turn_id": tid, "call_id": "c1", "success": true, "output": "foreign",
            }]})),
        ),
    ];
    for (method, tail, body) in &session_routes {
        let path = format!("{s}{tail}");
        let absent = format!("{sm}{tail}");
        hidden(&peer, &k, method, &path, &absent, body.as_ref()).await;
    }
    // A missing Turn of the own Session is the same 404 as well.
    let own_missing_turn = format!("{s}/turns/{}", missing(&tid));
    let (status, text) = raw(&peer, Some(KEY), "GET", &own_missing_turn, None).await;
    assert_eq!(
        (status, serde_json::from_str::<Value>(&text).unwrap()),
        (404, not_found())
    );
    own(&peer, "GET", &format!("{s}/turns/{tid}"), None, 200).await;
    own(&peer, "GET", &format!("{s}/items"), None, 200).await;
    // The Subagent's routes answer the own key with the real child (the foreign key's 404
    // above was not for want of a row), and its missing IDs are the same 404.
    let subagent = own(&peer, "GET", &format!("{s}/subagents/{sub}"), None, 200).await;
    assert_eq!(subagent["id"], sub.as_str(), "{subagent}");
    let items = own(
        &peer,
        "GET",
        &format!("{s}/subagents/{sub}/turns/{child_turn}/items"),
        None,
        200,
    )
    .await;
    assert!(
        items["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["content"].to_string().contains(&child_item)),
        "{items}"
    );
    for absent in [
        format!("{s}/subagents/{}", missing(&sub)),
        format!("{s}/subagents/{sub}/turns/{}", missing(&child_turn)),
    ] {
        let (status, text) = raw(&peer, Some(KEY), "GET", &absent, None).await;
        assert_eq!(
            (status, serde_json::from_str::<Value>(&text).unwrap()),
            (404, not_found()),
            "GET {absent}"
        );
    }

    // The foreign tool_result changed nothing: the call still waits, and the own key's result
    // is the one admitted.
    let session = own(&peer, "GET", &s, None, 200).await;
    assert_eq!(session["status"], "requires_action", "{session}");
    let result = peer.admitted_result(&sid, &tid, "c1", "own").await;
    assert_eq!(result.call_id, "c1");

    // Vaults and credentials.
    let v = format!("/vaults/{vid}");
    let vm = format!("/vaults/{}", missing(&vid));
    hidden(&peer, &k, "GET", &v, &vm, None).await;
    hidden(&peer, &k, "POST", &v, &vm, Some(&json!({"name": "w"}))).await;
    hidden(
        &peer,
        &k,
        "GET",
        &format!("{v}/credentials"),
        &format!("{vm}/credentials"),
        None,
    )
    .await;
    hidden(
        &peer,
        &k,
        "POST",
        &format!("{v}/credentials"),
        &format!("{vm}/credentials"),
        Some(&cred_body),
    )
    .await;
    let c = format!("{v}/credentials/{cid}");
    let cm = format!("{v}/credentials/{}", missing(&cid));
    hidden(&peer, &k, "GET", &c, &cm, None).await;
    hidden(
        &peer,
        &k,
        "POST",
        &c,
        &cm,
        Some(&json!({"metadata": {"k": "v"}})),
    )
    .await;
    hidden(&peer, &k, "DELETE", &c, &cm, None).await;
    hidden(&peer, &k, "DELETE", &v, &vm, None).await;
    own(&peer, "GET", &c, None, 200).await;

    // Environments.
    let e = format!("/agents/environments/{eid}");
    let em = format!("/agents/environments/{}", missing(&eid));
    hidden(&peer, &k, "GET", &e, &em, None).await;
    hidden(&peer, &k, "DELETE", &e, &em, None).await;
    for (method, body) in [
        ("GET", None),
        (
            "POST",
            Some(json!({"type": "inline", "path": "/workspace/a.txt", "data": "aGk="})),
        ),
    ] {
        hidden(
            &peer,
            &k,
            method,
            &format!("{e}/files"),
            &format!("{em}/files"),
            body.as_ref(),
        )
        .await;
    }
    own(&peer, "GET", &e, None, 200).await;

    // Nothing of the own Project went: every resource is still there for its own key.
    own(&peer, "GET", &a, None, 200).await;
    own(&peer, "GET", &v, None, 200).await;
    own(&peer, "GET", &c, None, 200).await;
}

/// Plays a child of the running Turn (its status, a Turn and an assistant message Item) and
/// returns its public Subagent ID, child Turn ID and the message's text, read with the own key.
async fn child(peer: &Peer, sid: &str, run: &str) -> (String, String, String) {
    use switchboard_protocol::subagents::{
        ChildItem, ChildMessage, SubagentItem, SubagentState, SubagentStatus, SubagentTurn,
        SubagentTurnStatus,
    };
    let text = "the child's own words".to_owned();
    let status = SubagentStatus {
        subagent_id: "native-child".into(),
        parent_id: None,
        name: Some("helper".into()),
        instructions: Some("look it up".into()),
        state: SubagentState::Active,
    };
    peer.send(run, status.into()).await;
    let turn = SubagentTurn {
        subagent_id: "native-child".into(),
        turn_id: "native-turn".into(),
        status: SubagentTurnStatus::InProgress,
    };
    peer.send(run, turn.into()).await;
    let item = SubagentItem {
        subagent_id: "native-child".into(),
        turn_id: "native-turn".into(),
        item: ChildItem::AssistantMessage(ChildMessage {
            item_id: "native-item".into(),
            text: text.clone(),
        }),
    };
    peer.send(run, item.into()).await;
    let path = format!("/agents/sessions/{sid}/subagents");
    let list = || async {
        let subs = own(peer, "GET", &path, None, 200).await;
        let sub = subs["data"][0]["id"].as_str()?.to_owned();
        let turns = own(peer, "GET", &format!("{path}/{sub}/turns"), None, 200).await;
        let items = own(peer, "GET", &format!("{path}/{sub}/items"), None, 200).await;
        let turn = turns["data"][0]["id"].as_str()?.to_owned();
        (!items["data"].as_array()?.is_empty()).then_some((sub, turn))
    };
    peer.until(|| async { list().await.is_some() }).await;
    let (sub, turn) = list().await.unwrap();
    (sub, turn, text)
}

#[tokio::test]
async fn idempotency_keys_are_per_project() {
    let peer = Peer::start().await;
    let k = keys(&peer).await;
    let body = json!({"environment": {"type": "openai_hosted"}});
    let post = |key: String| {
        let base = peer.base.clone();
        let body = body.clone();
        async move {
            let resp = reqwest::Client::new()
                .post(format!("{base}/agents/environments"))
                .header("authorization", format!("Bearer {key}"))
                .header("openai-beta", "agents=v1")
                .header("idempotency-key", "same-key")
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = resp.status().as_u16();
            (status, resp.json::<Value>().await.unwrap())
        }
    };
    let (s1, own_env) = post(KEY.to_owned()).await;
    let (s2, foreign_env) = post(k.foreign.clone()).await;
    let (s3, own_again) = post(KEY.to_owned()).await;
    assert_eq!((s1, s2, s3), (201, 201, 201));
    // The other Project's request with the same key is its own create, not the first's replay.
    assert_ne!(own_env["id"], foreign_env["id"]);
    assert_eq!(own_env["id"], own_again["id"]);
}
