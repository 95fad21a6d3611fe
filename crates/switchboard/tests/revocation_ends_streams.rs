//! Issue 13, item 7: an event stream opened with a key ends once `switchboard keys revoke` (another
//! process, same data directory) revokes that key; a stream opened with another key goes on.

use crate::support;

use support::{API_KEY, Mock, open_events, read_to_close, read_until, scratch, start_limited_on};

/// `switchboard keys ARGS --data-dir DIR`'s stdout.
fn keys(data_dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("keys")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn revoking_a_key_ends_its_streams() {
    if !support::codex_installed("revoking_a_key_ends_its_streams") {
        return;
    }
    let dir = scratch("revoke-");
    let mock = Mock::start(dir.path(), None).await;
    let data = dir.path().join("data");
    let core = start_limited_on(&data, &mock, &[]).await;
    let addr = core.addr();
    let id = core.create_session().await;
    core.wait_session(&id, "idle").await;

    let created = keys(&data, &["create"]);
    let (key_id, secret) = created.trim().split_once('\t').unwrap();
    let mut doomed = open_events(&addr, &id, secret).await;
    let mut kept = open_events(&addr, &id, API_KEY).await;

    assert!(keys(&data, &["revoke", key_id]).contains("revoked"));
    // The revoked key's stream ends (a clean end of the chunked body, then nothing more).
    let rest = read_to_close(&mut doomed).await;
    assert!(rest.ends_with("0\r\n\r\n"), "{rest:?}");

    // The other stream still delivers: the next Turn's events arrive on it.
    let (status, body) = core.post_message(&id, "again").await;
    assert_eq!(status, 202, "{body}");
    read_until(&mut kept, "agent.session.idle").await;
}

/// Many open streams share the Core's one epoch watcher: a revocation ends every stream of the
/// revoked key and none of another key's.
#[tokio::test]
async fn one_revocation_ends_every_stream_of_its_key_among_many() {
    if !support::codex_installed("one_revocation_ends_every_stream_of_its_key_among_many") {
        return;
    }
    // 50 streams, within the 64 connections `start_limited_on` allows.
    const EACH: usize = 25;
    let dir = scratch("revoke-many-");
    let mock = Mock::start(dir.path(), None).await;
    let data = dir.path().join("data");
    let core = start_limited_on(&data, &mock, &[]).await;
    let addr = core.addr();
    let id = core.create_session().await;
    core.wait_session(&id, "idle").await;

    let created = keys(&data, &["create"]);
    let (key_id, secret) = created.trim().split_once('\t').unwrap();
    let opened = futures::future::join_all((0..EACH * 2).map(|n| {
        let (addr, id) = (addr.clone(), id.clone());
        let key = if n < EACH {
            secret.to_owned()
        } else {
            API_KEY.to_owned()
        };
        async move { open_events(&addr, &id, &key).await }
    }))
    .await;
    let (doomed, kept): (Vec<_>, Vec<_>) =
        opened.into_iter().enumerate().partition(|(n, _)| *n < EACH);

    assert!(keys(&data, &["revoke", key_id]).contains("revoked"));
    let ends = futures::future::join_all(
        doomed
            .into_iter()
            .map(|(_, mut tcp)| async move { read_to_close(&mut tcp).await }),
    )
    .await;
    for rest in ends {
        assert!(rest.ends_with("0\r\n\r\n"), "{rest:?}");
    }

    let (status, body) = core.post_message(&id, "again").await;
    assert_eq!(status, 202, "{body}");
    futures::future::join_all(
        kept.into_iter()
            .map(|(_, mut tcp)| async move { read_until(&mut tcp, "agent.session.idle").await }),
    )
    .await;
}
