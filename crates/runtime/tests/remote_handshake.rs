//! `run_remote` dials Core with the bearer token, sends `hello`, and after `welcome` sends the
//! heartbeat at once and serves the same frame loop as the LocalRuntime; a frame that does not
//! decode is answered with `protocol_error`; Core closing the socket ends it cleanly.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use support::fake_core::{Answer, Command, FakeCore};
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{ExecutionRelease, PreparationState};
use switchboard_protocol::{PROTOCOL_VERSION, RuntimeToCore};
use switchboard_runtime::{Locator, Registry, RemoteOptions, RuntimeOptions, run_remote};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshake_heartbeat_and_frames_over_websocket() {
    let mut core = FakeCore::start(Answer::Current).await;
    let data = support::scratch("remote-");
    // No codex here: the harness is advertised, unavailable.
    let registry = Arc::new(Registry::standard(Locator::new(data.path())));
    let options = RemoteOptions {
        runtime_id: "runtime-test".into(),
        runtime: RuntimeOptions {
            idle_timeout: Duration::from_secs(300),
            heartbeat_interval: Duration::from_secs(30),
            ..RuntimeOptions::for_data_dir(data.path())
        },
    };
    let url = core.url.clone();
    let runtime =
        tokio::spawn(async move { run_remote(&url, "daemon-token", registry, options).await });

    let hello = core.next().await;
    let RuntimeToCore::Hello(hello) = hello.message else {
        panic!("{hello:?}")
    };
    assert_eq!(hello.version, PROTOCOL_VERSION);
    assert_eq!(hello.runtime_id, "runtime-test");
    assert_eq!(core.authorization().as_deref(), Some("Bearer daemon-token"));

    // The heartbeat at once, before Core asks anything.
    let beat = core.next().await;
    let RuntimeToCore::Heartbeat(beat) = beat.message else {
        panic!("{beat:?}")
    };
    assert_eq!(
        beat.supported_harnesses.len(),
        3,
        "codex, claude_code and minimax_code"
    );
    assert!(!beat.supported_harnesses[0].available);

    // The shared frame loop answers.
    let release = ExecutionRelease {
        session_id: "sess_x".into(),
    };
    core.send(Command::Frame(Box::new(Envelope::new(
        Some("sess_x".into()),
        release.into(),
    ))));
    let frame = core.next_non_heartbeat().await;
    assert_eq!(frame.id.as_deref(), Some("sess_x"));
    let RuntimeToCore::PreparationStatus(status) = frame.message else {
        panic!("{frame:?}")
    };
    assert_eq!(status.state, PreparationState::Released);

    // A frame that does not decode is reported, and the connection stays up.
    core.send(Command::Raw(
        r#"{"type":"no_such_frame","id":"frame_1","payload":{}}"#.into(),
    ));
    let frame = core.next_non_heartbeat().await;
    assert_eq!(frame.id.as_deref(), Some("frame_1"));
    let RuntimeToCore::ProtocolError(error) = frame.message else {
        panic!("{frame:?}")
    };
    assert_eq!(error.error_code, "unknown_type");
    assert_eq!(error.frame_type.as_deref(), Some("no_such_frame"));

    core.send(Command::Close);
    let outcome = tokio::time::timeout(support::WAIT, runtime)
        .await
        .expect("run_remote ends when Core closes")
        .unwrap();
    assert!(outcome.is_ok(), "{outcome:?}");
}
