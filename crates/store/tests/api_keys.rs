//! API keys, the write probe, Agent updates and the data key check, on both engines.

use crate::support;

use support::P;
use switchboard_store::{AgentRecord, ApiKeyRecord, KeyCheckStore, ProjectRecord};

fn key(id: &str, created_at: i64) -> ApiKeyRecord {
    ApiKeyRecord {
        id: id.to_owned(),
        project_id: P.into(),
        digest: format!("digest_{id}"),
        hint: "sk-ab".into(),
        created_at,
        revoked_at: None,
    }
}

both_engines! {
    async fn keys_are_listed_found_by_digest_and_revoked_once(s) {
        s.insert_project(&ProjectRecord {
            id: P.into(),
            name: "tests".into(),
            created_at: 1,
            archived_at: None,
        })
        .await
        .unwrap();
        assert_eq!(s.count_api_keys().await.unwrap(), 0);
        s.insert_api_key(&key("key_b", 2)).await.unwrap();
        s.insert_api_key(&key("key_a", 2)).await.unwrap();
        s.insert_api_key(&key("key_c", 1)).await.unwrap();
        // A digest is unique: the second insert fails and writes nothing.
        let mut twin = key("key_d", 3);
        twin.digest = "digest_key_a".into();
        assert!(s.insert_api_key(&twin).await.is_err());
        assert_eq!(s.count_api_keys().await.unwrap(), 3);

        let ids: Vec<String> = s.list_api_keys().await.unwrap().into_iter().map(|k| k.id).collect();
        assert_eq!(ids, ["key_c", "key_a", "key_b"], "by creation, then ID");
        assert_eq!(s.active_api_key("digest_key_a").await.unwrap(), Some(key("key_a", 2)));

        assert!(s.revoke_api_key("key_a", 9).await.unwrap());
        assert!(!s.revoke_api_key("key_a", 10).await.unwrap(), "already revoked");
        assert!(!s.revoke_api_key("key_x", 10).await.unwrap());
        assert_eq!(s.active_api_key("digest_key_a").await.unwrap(), None);
        let revoked = s.list_api_keys().await.unwrap().remove(1);
        assert_eq!(revoked.revoked_at, Some(9));
        assert_eq!(s.count_api_keys().await.unwrap(), 3, "revoked keys still count");
    }

    async fn probe_write_commits_again_and_again(s) {
        s.probe_write(1).await.unwrap();
        s.probe_write(2).await.unwrap();
    }

    async fn an_agent_update_replaces_config_and_keeps_its_position(s) {
        let a = |id: &str, t: i64, config: &str| AgentRecord {
            id: id.into(),
            project_id: P.into(),
            created_at: 1,
            updated_at: t,
            config: config.into(),
        };
        s.insert_agent(&a("agent_1", 1, r#"{"v":1}"#)).await.unwrap();
        s.insert_agent(&a("agent_2", 1, r#"{"v":2}"#)).await.unwrap();
        assert!(s.update_agent(&a("agent_1", 5, r#"{"z":1e3,"a":0.10}"#)).await.unwrap());
        assert!(!s.update_agent(&a("agent_x", 5, "{}")).await.unwrap());
        assert_eq!(
            s.get_agent(P, "agent_1").await.unwrap(),
            Some(a("agent_1", 5, r#"{"z":1e3,"a":0.10}"#))
        );
        let listed: Vec<String> = s.list_agents(P, &Default::default()).await.unwrap().data
            .into_iter().map(|a| a.id).collect();
        assert_eq!(listed, ["agent_2", "agent_1"]);
    }
}

/// The first canary offered is kept; later offers get it back.
async fn key_check_keeps_the_first_canary(s: &dyn KeyCheckStore) {
    assert_eq!(s.key_check("sealed:first").await.unwrap(), "sealed:first");
    assert_eq!(s.key_check("sealed:second").await.unwrap(), "sealed:first");
}

#[tokio::test]
async fn sqlite_key_check_keeps_the_first_canary() {
    let (_dir, s) = support::store().await;
    key_check_keeps_the_first_canary(&s).await;
}

#[tokio::test]
async fn postgres_key_check_keeps_the_first_canary() {
    let test = "api_keys::postgres_key_check";
    let Some(db) = switchboard_store::test_support::database_or_skip(test).await else {
        return;
    };
    let s = switchboard_store::PgStore::open(&db.url).await.unwrap();
    key_check_keeps_the_first_canary(&s).await;
}
