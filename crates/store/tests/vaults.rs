//! Vaults and credentials: upsert keeps position, status and metadata filters page, a
//! credential belongs to one Vault, and deleting a Vault deletes its credentials.

use crate::support;

use support::P;
use switchboard_store::{CredentialRecord, Order, PageQuery, VaultFilter, VaultRecord};

fn vault(i: i64, status: &str, team: &str) -> VaultRecord {
    VaultRecord {
        project_id: P.into(),
        id: format!("vault_{i:032}"),
        created_at: i,
        status: status.to_owned(),
        metadata: format!(r#"{{"team":"{team}"}}"#),
        doc: format!(r#"{{"n":{i}}}"#),
    }
}

fn cred(i: i64, vault_id: &str) -> CredentialRecord {
    CredentialRecord {
        project_id: P.into(),
        id: format!("cred_{i:032}"),
        vault_id: vault_id.to_owned(),
        created_at: i,
        status: "active".into(),
        metadata: "{}".into(),
        doc: format!(r#"{{"n":{i}}}"#),
    }
}

fn all() -> PageQuery {
    PageQuery {
        after: None,
        limit: 100,
        order: Order::Asc,
    }
}

fn ids<T>(page: &[T], id: fn(&T) -> &str) -> Vec<String> {
    page.iter().map(|r| id(r).to_owned()).collect()
}

both_engines! {
    async fn vaults_upsert_filter_by_status_and_metadata(s) {
        s.put_vault(&vault(1, "active", "a")).await.unwrap();
        s.put_vault(&vault(2, "archived", "b")).await.unwrap();
        s.put_vault(&vault(3, "active", "b")).await.unwrap();
        // An update keeps the row's place and creation time.
        let mut one = vault(1, "active", "b");
        one.created_at = 99;
        s.put_vault(&one).await.unwrap();
        let got = s.get_vault(P, &one.id).await.unwrap().unwrap();
        assert_eq!(
            (got.created_at, got.metadata.as_str()),
            (1, r#"{"team":"b"}"#)
        );

        let every = s
            .list_vaults(P, &all(), &VaultFilter::default())
            .await
            .unwrap();
        assert_eq!(
            ids(&every.data, |v| &v.id),
            [1, 2, 3].map(|i| vault(i, "", "").id)
        );
        let active = VaultFilter {
            status: vec!["active".into()],
            metadata: vec![("team".into(), "b".into())],
        };
        let page = s.list_vaults(P, &all(), &active).await.unwrap();
        assert_eq!(
            ids(&page.data, |v| &v.id),
            [1, 3].map(|i| vault(i, "", "").id)
        );
        let both = VaultFilter {
            status: vec!["active".into(), "archived".into()],
            metadata: vec![],
        };
        assert_eq!(s.list_vaults(P, &all(), &both).await.unwrap().data.len(), 3);
    }

    async fn credentials_belong_to_one_vault_and_go_with_it(s) {
        let (a, b) = (vault(1, "active", "a"), vault(2, "active", "a"));
        s.put_vault(&a).await.unwrap();
        s.put_vault(&b).await.unwrap();
        s.put_credential(&cred(1, &a.id)).await.unwrap();
        s.put_credential(&cred(2, &b.id)).await.unwrap();
        s.put_credential(&cred(3, &a.id)).await.unwrap();
        // A credential is found only under its own Vault.
        assert!(
            s.get_credential(P, &b.id, &cred(1, "").id)
                .await
                .unwrap()
                .is_none()
        );
        let page = s
            .list_credentials(P, &a.id, &all(), &VaultFilter::default())
            .await
            .unwrap();
        assert_eq!(ids(&page.data, |c| &c.id), [1, 3].map(|i| cred(i, "").id));
        let of = s
            .credentials_of(P, &[b.id.clone(), a.id.clone()])
            .await
            .unwrap();
        assert_eq!(ids(&of, |c| &c.id), [2, 1, 3].map(|i| cred(i, "").id));
        // A credential cannot name a missing Vault.
        assert!(s.put_credential(&cred(4, "vault_missing")).await.is_err());

        assert!(
            !s.delete_credential(P, &b.id, &cred(1, "").id)
                .await
                .unwrap()
        );
        assert!(s.delete_vault(P, &a.id).await.unwrap());
        assert!(
            s.get_credential(P, &a.id, &cred(3, "").id)
                .await
                .unwrap()
                .is_none()
        );
        assert_eq!(
            s.credentials_of(P, std::slice::from_ref(&a.id))
                .await
                .unwrap()
                .len(),
            0
        );
        assert!(
            s.delete_credential(P, &b.id, &cred(2, "").id)
                .await
                .unwrap()
        );
    }
}
