//! Sessions with an active Turn are listed oldest first, and leave the list once settled.

use crate::support;

use support::{P, session};
use switchboard_store::{SessionRecord, SessionWrite};

fn write(id: &str, active: Option<&str>) -> SessionWrite {
    SessionWrite {
        session: Some(SessionRecord {
            project_id: P.into(),
            active_turn_id: active.map(str::to_owned),
            ..session(id)
        }),
        ..Default::default()
    }
}

both_engines! {
    async fn unsettled_sessions_oldest_first(s) {
        for (id, active) in [
            ("s0", None),
            ("s1", Some("t1")),
            ("s2", None),
            ("s3", Some("t3")),
        ] {
            s.write_session(write(id, active)).await.unwrap();
        }
        // s0 starts a Turn after s3 did; it still sorts by creation.
        s.write_session(write("s0", Some("t0"))).await.unwrap();
        let ids = |v: Vec<SessionRecord>| v.into_iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(
            ids(s.unsettled_sessions().await.unwrap()),
            ["s0", "s1", "s3"]
        );

        s.write_session(write("s1", None)).await.unwrap();
        let unsettled = s.unsettled_sessions().await.unwrap();
        assert_eq!(unsettled[1].active_turn_id.as_deref(), Some("t3"));
        assert_eq!(ids(unsettled), ["s0", "s3"]);
    }
}
