//! Sessions with equal process-wide settings share one app-server: N of them count one process;
//! a Session with another provider key gets its own; evicting a sharing Session leaves the
//! process to the others, and evicting the last ends it; an evicted Session resumes its thread.

use crate::support;

use support::*;

const SHARING: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_with_equal_settings_count_one_process() {
    let Some(binary) = codex_binary("sessions_with_equal_settings_count_one_process") else {
        return;
    };
    let model = weather_model(r#"{"city":"Lima"}"#).await;
    let (_root, adapter, host) = sharing_adapter(binary);
    let url = model.base_url();
    let mut sessions = Vec::new();
    for i in 0..SHARING {
        sessions.push(
            prepare_fresh(
                &adapter,
                named_configuration(&url, &format!("s{i}")),
                "codex",
            )
            .await,
        );
    }
    let pids = host.process_ids();
    assert_eq!(pids.len(), 1, "{SHARING} Sessions, one process");
    for (n, (_, executor)) in sessions.iter().enumerate() {
        weather_turn(executor.as_ref(), 1, &format!("s{n} asks")).await;
    }
    assert_eq!(host.process_ids(), pids);

    // Another provider key cannot share.
    let mut other = named_configuration(&url, "other");
    other.model_provider.api_key = "sk-another-key".into();
    let (_other_state, other) = prepare_fresh(&adapter, other, "codex").await;
    assert_eq!(host.process_ids().len(), 2);
    drop(other);

    // Evicting one leaves the process to the others.
    sessions[0].1.evict().await.unwrap();
    assert!(!sessions[0].1.is_resident());
    assert!(running(pids[0]));
    weather_turn(sessions[1].1.as_ref(), 2, "s1 asks again").await;
    // Evicting every one ends it.
    for (_, executor) in &sessions {
        executor.evict().await.unwrap();
    }
    until_gone(pids[0]).await;
    assert!(host.process_ids().is_empty());
    // An evicted Session resumes its own thread, with its history, on a new shared process.
    weather_turn(sessions[2].1.as_ref(), 2, "s2 asks again").await;
    let resumed = requests_of(&model.journal(), "s2")
        .last()
        .unwrap()
        .to_string();
    assert!(
        resumed.contains("s2 asks") && resumed.contains("weather #1"),
        "{resumed}"
    );
    assert_eq!(host.process_ids().len(), 1);
}
