//! Concurrent conflicting writes give one outcome on both engines: SQLite serialises them in
//! its writer task, PostgreSQL through row locks and unique keys across pooled connections.

use crate::support;

use support::{P, deletion, session_with};
use switchboard_store::{EnvironmentRecord, IdempotencyRecord, StoreError};

/// Runs `n` copies of `f(i)` at once; their outcomes in order.
async fn at_once<T, F, Fut>(n: usize, f: F) -> Vec<T>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let tasks: Vec<_> = (0..n).map(|i| tokio::spawn(f(i))).collect();
    let mut out = Vec::with_capacity(n);
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

both_engines! {
    async fn of_concurrent_deletes_of_one_session_exactly_one_deletes(s) {
        s.write_session(session_with("sess_1", "turn_1", &["item_1"])).await.unwrap();
        let outcomes = at_once(8, |_| {
            let s = s.clone();
            async move { s.delete_session(P, &deletion("sess_1"), None).await.unwrap() }
        })
        .await;
        assert_eq!(outcomes.iter().filter(|d| **d).count(), 1, "{outcomes:?}");
        assert_eq!(s.pending_deletions().await.unwrap(), vec![deletion("sess_1")]);
        assert_eq!(s.get_session(P, "sess_1").await.unwrap(), None);
    }

    async fn of_concurrent_enrollment_exchanges_exactly_one_wins(s) {
        s.put_environment(&EnvironmentRecord {
            id: "env_1".into(),
            project_id: P.into(),
            created_at: 1,
            kind: "self_hosted".into(),
            enrollment_digest: Some("token".into()),
            credential_digest: None,
            doc: "{}".into(),
        })
        .await
        .unwrap();
        let outcomes = at_once(8, |i| {
            let s = s.clone();
            async move { s.exchange_enrollment("token", &format!("cred_{i}")).await.unwrap() }
        })
        .await;
        let winners: Vec<usize> = (0..8).filter(|i| outcomes[*i].is_some()).collect();
        assert_eq!(winners.len(), 1, "{outcomes:?}");
        let stored = s.get_environment(P, "env_1").await.unwrap().unwrap();
        assert_eq!(stored.credential_digest, Some(format!("cred_{}", winners[0])));
    }

    async fn of_concurrent_inputs_under_one_key_exactly_one_lands(s) {
        s.write_session(session_with("sess_1", "turn_0", &[])).await.unwrap();
        let outcomes = at_once(8, |i| {
            let s = s.clone();
            async move {
                let mut w = session_with("sess_1", &format!("turn_{}", i + 1), &[]);
                w.idempotency = Some(IdempotencyRecord {
                    session_id: "sess_1".into(),
                    project_id: P.into(),
                    key: "key_1".into(),
                    fingerprint: format!("f{i}"),
                    created_at: 1,
                });
                s.write_session(w).await
            }
        })
        .await;
        let landed: Vec<usize> = (0..8).filter(|i| outcomes[*i].is_ok()).collect();
        assert_eq!(landed.len(), 1);
        assert!(outcomes.iter().all(|o| matches!(o, Ok(()) | Err(StoreError::Conflict(_)))));
        let key = s.get_idempotency(P, "sess_1", "key_1").await.unwrap().unwrap();
        assert_eq!(key.fingerprint, format!("f{}", landed[0]));
        for i in 0..8 {
            let turn = s.get_turn(P, "sess_1", &format!("turn_{}", i + 1)).await.unwrap();
            assert_eq!(turn.is_some(), i == landed[0], "turn_{}", i + 1);
        }
    }
}
