//! Issue 18: a warm codex process runs one primer Turn before any Session takes it
//! (`codex/src/primer.rs`), against the adapter's own loopback sink. The primer never reaches
//! the Session's model provider, and leaves nothing a Session could see: no rollout in the
//! warm process's home before binding, and after the bound Session's first Turn exactly one
//! rollout there, the Session's own thread's, with the provider's journal holding only that
//! Session's request.

use crate::support;

use std::path::{Path, PathBuf};

use support::mcp::run;
use support::warm::{runtime_warm, text_model, until_bound, until_warmed};
use support::{codex_binary, configuration, prepare};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::messages::TurnOutcome;
use switchboard_runtime::warm::POOL_DIR;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_primer_turn_leaves_no_trace_and_never_reaches_the_provider() {
    let Some(binary) =
        codex_binary("the_primer_turn_leaves_no_trace_and_never_reaches_the_provider")
    else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("warm-primer-");
    let mut runtime = runtime_warm(binary, state.path(), 8, 1);
    let mut notices = runtime.notices();
    let config = configuration(&model.base_url(), vec![]);

    prepare(&mut runtime, "sess_cold", config.clone()).await;
    until_warmed(&mut notices).await;
    // Primed and ready: no model request yet (preparing opens a thread, which asks nothing).
    assert!(model.journal().is_empty(), "{:?}", model.journal());
    let pool = state.path().join("sessions").join(POOL_DIR);
    let warm_dirs: Vec<PathBuf> = std::fs::read_dir(&pool)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(warm_dirs.len(), 1, "{warm_dirs:?}");
    assert_eq!(
        rollouts(&warm_dirs[0].join("codex-home")),
        Vec::<PathBuf>::new()
    );

    prepare(&mut runtime, "sess_warm", config).await;
    until_bound(&mut notices, "sess_warm").await;
    let frames = run(&mut runtime, "sess_warm", "run_1", "hello").await;
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }

    let session = state.path().join("sessions/sess_warm");
    let thread = std::fs::read_to_string(session.join("thread-id")).unwrap();
    let found = rollouts(&session.join("codex-home"));
    assert_eq!(found.len(), 1, "{found:?}");
    let name = found[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.contains(thread.trim()),
        "{name} is not thread {thread}"
    );
    let journal = model.journal();
    assert_eq!(
        journal.len(),
        1,
        "one request, the Session's Turn: {journal:?}"
    );
    let body = journal[0].to_string();
    assert!(
        body.contains("hello") && body.contains("answer briefly"),
        "{body}"
    );
    runtime.shutdown().await;
}

/// Every rollout file under a codex home's `sessions/`.
fn rollouts(home: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.to_string_lossy().contains("rollout-") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&home.join("sessions"), &mut out);
    out
}
