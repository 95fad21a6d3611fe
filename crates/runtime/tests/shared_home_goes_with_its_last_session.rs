//! Releasing the Sessions of a shared home one by one, after a restart and on a live process:
//! while another Session still names the home, a released thread is kept for the home's next
//! process (or deleted on the live one); once the last one is released, and no process lives on
//! it, the whole home goes, codex's own databases with it, so nothing either Session said is
//! left on disk.

use std::path::Path;

use crate::support;

use support::mcp::{binary, configuration, leak_scan, prepared_turn};
use support::shared::{homes, release, rollouts, runtime_sharing};
use support::warm::text_model;
use switchboard_mock_model::MockModel;
use switchboard_protocol::configuration::HarnessId;
use switchboard_runtime::LocalRuntime;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_home_goes_with_its_last_session() {
    let Some(binary) = binary(HarnessId::Codex, "a_shared_home_goes_with_its_last_session") else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("shared-home-last-");
    let mut runtime = runtime_sharing(binary.clone(), state.path(), None);
    two_after_a_turn_each(&mut runtime, &model).await;
    runtime.shutdown().await;
    assert_eq!(homes(state.path()), 1);

    let mut runtime = runtime_sharing(binary, state.path(), None);
    release(&mut runtime, "sess_0").await;
    assert_eq!(
        homes(state.path()),
        1,
        "the other Session still names the home"
    );
    assert!(!rollouts(state.path(), "hello-1").is_empty());

    release_the_last(runtime, state.path()).await;
}

/// The same without a restart: each release deletes its thread on the live shared process, and
/// the last one, whose process ends with it, takes the home and codex's databases with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_home_goes_with_its_last_live_session() {
    let test = "a_shared_home_goes_with_its_last_live_session";
    let Some(binary) = binary(HarnessId::Codex, test) else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("shared-home-live-");
    let mut runtime = runtime_sharing(binary, state.path(), None);
    two_after_a_turn_each(&mut runtime, &model).await;

    release(&mut runtime, "sess_0").await;
    assert_eq!(homes(state.path()), 1, "the other Session still runs on it");
    assert_eq!(rollouts(state.path(), "hello-0"), Vec::<String>::new());
    assert!(!rollouts(state.path(), "hello-1").is_empty());

    release_the_last(runtime, state.path()).await;
}

/// Sessions `sess_0` and `sess_1`, on one shared process, each after a Turn that said
/// `hello-<n>`.
async fn two_after_a_turn_each(runtime: &mut LocalRuntime, model: &MockModel) {
    for n in 0..2 {
        let config = configuration(HarnessId::Codex, model, vec![]);
        prepared_turn(runtime, &format!("sess_{n}"), config, &format!("hello-{n}")).await;
    }
}

/// Releases `sess_1`, the home's last Session: the home goes, and nothing either Session said
/// is left under `state`.
async fn release_the_last(mut runtime: LocalRuntime, state: &Path) {
    release(&mut runtime, "sess_1").await;
    assert_eq!(homes(state), 0, "no Session names the home any more");
    for said in ["hello-0", "hello-1"] {
        assert_eq!(leak_scan(said, &[state]), Vec::<String>::new());
    }
    runtime.shutdown().await;
}
