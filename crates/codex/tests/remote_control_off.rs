//! Codex's remote control (a ChatGPT account driving the app-server from chatgpt.com) is off in
//! every process the adapter starts: Switchboard is the process's only client. With it on and no
//! ChatGPT login, codex waits for one, reloading its auth file about once a second for as long as
//! the process lives, idle or not.

use crate::support;

use std::time::{Duration, Instant};

use support::fake_responses::{FakeResponses, Script};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_process_starts_with_remote_control_disabled() {
    let Some(binary) = codex_binary("a_session_process_starts_with_remote_control_disabled") else {
        return;
    };
    let model = FakeResponses::start(Script::Text("Done".into())).await;
    let (state, executor) = session(binary, &model.base_url(), vec![]).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Hello").await;
    let events = until_terminal(&mut turn).await;
    assert_eq!(final_answer(&events).as_deref(), Some("Done"));

    // Codex logs to a database in its home (its first rows land about 10 s after it starts);
    // the remote control loop logs its state once, when the process starts.
    let log = state.path().join("codex-home/logs_2.sqlite");
    let started = logged(&log, "%remote control websocket loop started%").await;
    assert!(
        started.contains("initial_desired_state=Disabled"),
        "remote control started as: {started}"
    );
    let waits = rows(&log, "%waiting to resolve remote control preference%");
    assert!(waits.is_empty(), "codex waited for a login: {waits:?}");
    drop(executor);
}

/// The first of codex's log lines matching `pattern` (SQL `LIKE`), waiting up to 60 s for it.
async fn logged(log: &std::path::Path, pattern: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(line) = rows(log, pattern).into_iter().next() {
            return line;
        }
        assert!(Instant::now() < deadline, "codex never logged {pattern}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Codex's log lines matching `pattern`, in order (none while its database is not there yet).
fn rows(log: &std::path::Path, pattern: &str) -> Vec<String> {
    let Ok(db) =
        rusqlite::Connection::open_with_flags(log, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return vec![];
    };
    let Ok(mut query) = db
        .prepare("SELECT feedback_log_body FROM logs WHERE feedback_log_body LIKE ?1 ORDER BY id")
    else {
        return vec![];
    };
    query
        .query_map([pattern], |row| row.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}
