//! Session claims and fencing (issue 16, several Core replicas on one database): a Session is
//! held by one replica at a time, every change of holder raises the epoch, and a write made
//! under a lost or stale claim fails with `StoreError::Fenced` and writes nothing. Claims exist
//! only on PostgreSQL; SQLite (one process) has none and writes unfenced.

use crate::support;

use std::sync::Arc;

use support::{P, item, session, session_with};
use switchboard_store::{
    ClaimOutcome, ClaimStore, Fence, Orphan, Previous, ReplicaRecord, SessionRecord, SessionWrite,
    Store, StoreError,
};

const LONG: i64 = 60_000;

fn replica(id: &str) -> ReplicaRecord {
    ReplicaRecord {
        id: id.into(),
        address: format!("http://{id}.invalid"),
        routes: vec!["deployment/codex".into()],
    }
}

async fn claimed(c: &dyn ClaimStore, session: &str, replica: &str, ttl: i64) -> (i64, Previous) {
    match c.claim(session, replica, ttl).await.unwrap() {
        ClaimOutcome::Claimed { epoch, previous } => (epoch, previous),
        held => panic!("expected a claim, got {held:?}"),
    }
}

fn fence(session: &str, replica: &str, epoch: i64) -> Fence {
    Fence {
        session_id: session.into(),
        replica_id: replica.into(),
        epoch,
    }
}

/// A change of the Session document with one more Item, made under `fence`.
fn change(fence: Option<Fence>, n: &str) -> SessionWrite {
    SessionWrite {
        session: Some(SessionRecord {
            doc: format!(r#"{{"n":"{n}"}}"#),
            active_turn_id: Some("turn_1".into()),
            ..session("sess_1")
        }),
        items: vec![item("sess_1", "turn_1", &format!("item_{n}"))],
        fence,
        ..Default::default()
    }
}

both_engines! {
    async fn only_postgres_has_claims_and_sqlite_writes_unfenced(s) {
        let is_pg = s.claims().is_some();
        s.write_session(session_with("sess_1", "turn_1", &[])).await.unwrap();
        // On SQLite a fence names nothing to check: one process, every write is its own.
        if !is_pg {
            s.write_session(change(Some(fence("sess_1", "r1", 7)), "a")).await.unwrap();
            assert!(s.get_session(P, "sess_1").await.unwrap().unwrap().doc.contains("\"a\""));
        }
    }
}

/// The PostgreSQL store of a fresh test database, as both traits; `None` when skipped.
async fn pg(test: &str) -> Option<(support::Guard, Arc<dyn Store>, Arc<dyn ClaimStore>)> {
    let (guard, s) = support::postgres(test).await?;
    let c = s.claims().expect("PostgreSQL has claims");
    Some((guard, s, c))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_replica_holds_a_session_and_each_new_holder_raises_the_epoch() {
    let Some((_g, s, c)) = pg("claims::one_replica_holds").await else {
        return;
    };
    c.heartbeat(&replica("r1"), LONG).await.unwrap();
    c.heartbeat(&replica("r2"), LONG).await.unwrap();
    s.write_session(session_with("sess_1", "turn_1", &[]))
        .await
        .unwrap();

    assert_eq!(
        claimed(c.as_ref(), "sess_1", "r1", LONG).await,
        (1, Previous::None)
    );
    // Held: the other replica is told who holds it (and where to forward).
    assert_eq!(
        c.claim("sess_1", "r2", LONG).await.unwrap(),
        ClaimOutcome::Held(replica("r1"))
    );
    assert_eq!(c.holder("sess_1").await.unwrap(), Some(replica("r1")));
    // Its own row again: a new epoch (a reload after an unload), not a takeover.
    assert_eq!(
        claimed(c.as_ref(), "sess_1", "r1", LONG).await,
        (2, Previous::Own)
    );
    // A stale release (an old epoch's) leaves the newer claim alone.
    c.release(&fence("sess_1", "r1", 1)).await.unwrap();
    assert_eq!(c.holder("sess_1").await.unwrap(), Some(replica("r1")));
    c.release(&fence("sess_1", "r1", 2)).await.unwrap();
    assert_eq!(c.holder("sess_1").await.unwrap(), None);
    assert_eq!(
        claimed(c.as_ref(), "sess_1", "r2", LONG).await,
        (1, Previous::None)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_claims_have_one_winner() {
    let Some((_g, s, c)) = pg("claims::concurrent_claims").await else {
        return;
    };
    s.write_session(session_with("sess_1", "turn_1", &[]))
        .await
        .unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let c = c.clone();
            tokio::spawn(async move { c.claim("sess_1", &format!("r{i}"), LONG).await.unwrap() })
        })
        .collect();
    let mut won = 0;
    for t in tasks {
        if matches!(t.await.unwrap(), ClaimOutcome::Claimed { .. }) {
            won += 1;
        }
    }
    assert_eq!(won, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_under_a_lost_or_stale_claim_writes_nothing() {
    let Some((_g, s, c)) = pg("claims::fenced_write").await else {
        return;
    };
    s.write_session(session_with("sess_1", "turn_1", &[]))
        .await
        .unwrap();
    let (e1, _) = claimed(c.as_ref(), "sess_1", "r1", LONG).await;
    // The holder's write passes its fence.
    s.write_session(change(Some(fence("sess_1", "r1", e1)), "a"))
        .await
        .unwrap();
    let before = s.get_session(P, "sess_1").await.unwrap();

    // Its claim expires and r2 takes the Session over: r1's epoch is stale.
    let (e1b, _) = claimed(c.as_ref(), "sess_1", "r1", 0).await;
    let (e2, previous) = claimed(c.as_ref(), "sess_1", "r2", LONG).await;
    assert_eq!((previous, e2), (Previous::Expired, e1b + 1));
    let stale = s
        .write_session(change(Some(fence("sess_1", "r1", e1b)), "b"))
        .await;
    assert!(
        matches!(stale, Err(StoreError::Fenced { ref replica_id, epoch })
        if replica_id == "r1" && epoch == e1b),
        "{stale:?}"
    );
    // The right replica with an old epoch is fenced too.
    let old = s
        .write_session(change(Some(fence("sess_1", "r2", e2 - 1)), "c"))
        .await;
    assert!(matches!(old, Err(StoreError::Fenced { .. })), "{old:?}");
    // Nothing of the fenced writes landed: neither the document nor its Item.
    assert_eq!(s.get_session(P, "sess_1").await.unwrap(), before);
    let items = s.turn_items(P, "sess_1", "turn_1").await.unwrap();
    assert_eq!(items, vec![item("sess_1", "turn_1", "item_a")]);

    // A released claim (the Session unloaded) fences every write made under it.
    c.release(&fence("sess_1", "r2", e2)).await.unwrap();
    let gone = s
        .write_session(change(Some(fence("sess_1", "r2", e2)), "d"))
        .await;
    assert!(matches!(gone, Err(StoreError::Fenced { .. })), "{gone:?}");
    assert_eq!(s.get_session(P, "sess_1").await.unwrap(), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handover_moves_the_claim_and_notifies_and_a_dead_holder_leaves_orphans() {
    let Some((_g, s, c)) = pg("claims::handover").await else {
        return;
    };
    c.heartbeat(&replica("r1"), LONG).await.unwrap();
    c.heartbeat(&replica("r2"), LONG).await.unwrap();
    let mut notes = c.handovers().await.unwrap();
    s.write_session(SessionWrite {
        session: Some(SessionRecord {
            active_turn_id: Some("turn_1".into()),
            ..session("sess_1")
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    let (e1, _) = claimed(c.as_ref(), "sess_1", "r1", LONG).await;
    assert!(
        c.hand_over(&fence("sess_1", "r1", e1), "r2", LONG)
            .await
            .unwrap()
    );
    assert_eq!(notes.recv().await.as_deref(), Some("sess_1"));
    assert_eq!(c.holder("sess_1").await.unwrap(), Some(replica("r2")));
    assert_eq!(
        c.held_unsettled("r2").await.unwrap(),
        vec!["sess_1".to_owned()]
    );
    assert!(c.claimed_session("sess_1", "r2").await.unwrap().is_some());
    assert!(c.claimed_session("sess_1", "r1").await.unwrap().is_none());
    // The old holder cannot hand it over again, nor write.
    assert!(
        !c.hand_over(&fence("sess_1", "r1", e1), "r1", LONG)
            .await
            .unwrap()
    );
    let late = s
        .write_session(change(Some(fence("sess_1", "r1", e1)), "x"))
        .await;
    assert!(matches!(late, Err(StoreError::Fenced { .. })), "{late:?}");
    assert_eq!(c.orphans().await.unwrap(), vec![]);

    // r2 dies: its heartbeat stops and its claim runs out; the Session is an orphan.
    c.heartbeat(&replica("r2"), 0).await.unwrap();
    assert_eq!(c.holder("sess_1").await.unwrap(), None);
    let ids: Vec<String> = c
        .live_replicas()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, vec!["r1".to_owned()]);
    assert_eq!(
        c.orphans().await.unwrap(),
        vec![Orphan {
            session_id: "sess_1".into(),
            project_id: P.into()
        }]
    );
    assert_eq!(
        claimed(c.as_ref(), "sess_1", "r1", LONG).await.1,
        Previous::Expired
    );
    assert_eq!(c.orphans().await.unwrap(), vec![]);
    c.retire("r1").await.unwrap();
    assert_eq!(c.holder("sess_1").await.unwrap(), None);
}
