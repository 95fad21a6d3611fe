//! Environments: upsert keeps position, the kind filter pages, digests find one Environment
//! and cannot be shared, and a Session write can carry its Environment atomically.

use crate::support;

use support::P;
use switchboard_store::{
    EnvironmentFilter, EnvironmentRecord, Order, PageQuery, SessionRecord, SessionWrite, StoreError,
};

fn env(i: i64, kind: &str) -> EnvironmentRecord {
    EnvironmentRecord {
        project_id: P.into(),
        id: format!("env_{i:032}"),
        created_at: i,
        kind: kind.to_owned(),
        enrollment_digest: None,
        credential_digest: None,
        doc: format!(r#"{{"n":{i}.50}}"#),
    }
}

fn all() -> PageQuery {
    PageQuery {
        after: None,
        limit: 100,
        order: Order::Asc,
    }
}

both_engines! {
    async fn environments_upsert_filter_and_find_by_digest(s) {
        for i in 0..4 {
            let kind = if i % 2 == 0 {
                "openai_hosted"
            } else {
                "self_hosted"
            };
            s.put_environment(&env(i, kind)).await.unwrap();
        }
        // An upsert replaces the document but keeps the row's place and its digests (which only
        // the enrollment writes change).
        let mut first = env(0, "openai_hosted");
        first.doc = r#"{"status":"ready"}"#.into();
        first.enrollment_digest = Some("zz".into());
        s.put_environment(&first).await.unwrap();
        assert_eq!(
            s.get_environment(P, &first.id)
                .await
                .unwrap()
                .unwrap()
                .enrollment_digest,
            None
        );
        assert!(s.set_enrollment_digest(P, &first.id, "aa").await.unwrap());
        first.enrollment_digest = Some("aa".into());
        let ids: Vec<String> = s
            .list_environments(P, &all(), &EnvironmentFilter::default())
            .await
            .unwrap()
            .data
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, (0..4).map(|i| env(i, "").id).collect::<Vec<_>>());
        assert_eq!(
            s.get_environment(P, &first.id).await.unwrap(),
            Some(first.clone())
        );

        let hosted = s
            .list_environments(
                P,
                &all(),
                &EnvironmentFilter {
                    kind: Some("self_hosted".into()),
                },
            )
            .await
            .unwrap();
        assert_eq!(hosted.data.len(), 2);

        assert_eq!(
            s.environment_by_enrollment("aa")
                .await
                .unwrap()
                .map(|e| e.id),
            Some(first.id.clone())
        );
        assert_eq!(s.environment_by_credential("aa").await.unwrap(), None);
        // Another Environment cannot take the same digest.
        let mut other = env(7, "self_hosted");
        other.enrollment_digest = Some("aa".into());
        assert!(matches!(
            s.put_environment(&other).await,
            Err(StoreError::Conflict(_))
        ));

        assert!(s.delete_environment(P, &first.id).await.unwrap());
        assert!(!s.delete_environment(P, &first.id).await.unwrap());
        assert_eq!(s.environment_by_enrollment("aa").await.unwrap(), None);
    }

    async fn a_session_write_carries_its_environment(s) {
        let e = env(9, "openai_hosted");
        let write = SessionWrite {
            session: Some(SessionRecord {
                project_id: P.into(),
                id: "sesn_1".into(),
                created_at: 1,
                agent_id: None,
                metadata: "{}".into(),
                active_turn_id: None,
                doc: format!(r#"{{"environment_id":"{}"}}"#, e.id),
                agent: None,
            }),
            environment: Some(e.clone()),
            ..SessionWrite::default()
        };
        s.write_session(write).await.unwrap();
        assert_eq!(s.get_environment(P, &e.id).await.unwrap(), Some(e));
        assert!(s.get_session(P, "sesn_1").await.unwrap().is_some());
    }

    async fn an_enrollment_token_is_exchanged_once_and_the_document_is_kept(s) {
        let mut e = env(3, "self_hosted");
        e.enrollment_digest = Some("token-1".into());
        s.put_environment(&e).await.unwrap();

        assert_eq!(
            s.exchange_enrollment("token-1", "cred-1").await.unwrap(),
            Some(e.id.clone())
        );
        // The token is spent: a second exchange finds nothing and changes nothing.
        assert_eq!(
            s.exchange_enrollment("token-1", "cred-2").await.unwrap(),
            None
        );
        let stored = s.get_environment(P, &e.id).await.unwrap().unwrap();
        assert_eq!(stored.enrollment_digest, None);
        assert_eq!(stored.credential_digest.as_deref(), Some("cred-1"));
        assert_eq!(
            (stored.kind.as_str(), stored.doc.as_str()),
            ("self_hosted", e.doc.as_str())
        );

        // A new token replaces only the enrollment digest; exchanging it rotates the credential.
        assert!(s.set_enrollment_digest(P, &e.id, "token-2").await.unwrap());
        assert!(
            !s.set_enrollment_digest(P, "env_missing", "token-3")
                .await
                .unwrap()
        );
        assert_eq!(
            s.environment_by_credential("cred-1")
                .await
                .unwrap()
                .map(|e| e.id),
            Some(e.id.clone())
        );
        assert_eq!(
            s.exchange_enrollment("token-2", "cred-3").await.unwrap(),
            Some(e.id.clone())
        );
        assert_eq!(s.environment_by_credential("cred-1").await.unwrap(), None);
        assert_eq!(
            s.get_environment(P, &e.id).await.unwrap().unwrap().doc,
            e.doc
        );
    }
}
