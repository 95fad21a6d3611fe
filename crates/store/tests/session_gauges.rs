//! The metrics endpoint's Session figures: Sessions by their document's `status` and the sum of
//! their `required_actions`, over every Project, on both engines.

use crate::support;

use support::session;
use switchboard_store::{ProjectRecord, SessionRecord, SessionWrite};

fn write(id: &str, project: &str, doc: &str) -> SessionWrite {
    SessionWrite {
        session: Some(SessionRecord {
            project_id: project.into(),
            doc: doc.into(),
            ..session(id)
        }),
        ..Default::default()
    }
}

both_engines! {
    async fn counts_sessions_by_status_and_their_required_actions(s) {
        assert_eq!(s.session_gauges().await.unwrap().required_actions, 0);
        let project = support::P;
        let other = "proj_0000000000000000000000000000000b".to_owned();
        s.insert_project(&ProjectRecord {
            id: other.clone(),
            name: "other".into(),
            created_at: 1,
            archived_at: None,
        })
        .await
        .unwrap();
        for (id, p, doc) in [
            ("s1", project, r#"{"status":"idle","required_actions":[]}"#),
            ("s2", project, r#"{"status":"requires_action","required_actions":[{"a":1},{"b":2}]}"#),
            ("s3", other.as_str(), r#"{"status":"requires_action","required_actions":[{"c":3}]}"#),
            ("s4", project, r#"{"status":"in_progress","required_actions":[]}"#),
        ] {
            s.write_session(write(id, p, doc)).await.unwrap();
        }
        let mut gauges = s.session_gauges().await.unwrap();
        gauges.by_status.sort();
        assert_eq!(
            gauges.by_status,
            [
                ("idle".to_owned(), 1),
                ("in_progress".to_owned(), 1),
                ("requires_action".to_owned(), 2),
            ]
        );
        assert_eq!(gauges.required_actions, 3);
        // An answered action leaves the count with the write that removed it.
        s.write_session(write("s2", project, r#"{"status":"idle","required_actions":[]}"#))
            .await
            .unwrap();
        let gauges = s.session_gauges().await.unwrap();
        assert_eq!(gauges.required_actions, 1);
    }
}
