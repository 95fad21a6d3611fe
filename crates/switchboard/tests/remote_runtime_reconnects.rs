//! When the connection drops after a successful handshake (here: Core restarts), `switchboard
//! runtime` dials again with backoff and is welcomed by the new Core, which becomes ready.

use crate::support;

use support::{Core, Mock, TOKEN, scratch};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_reconnects_when_core_restarts() {
    let dir = scratch("remote-reconnect-");
    let mock = Mock::start(dir.path(), None).await;
    let core_dir = dir.path().join("core");
    let mut core = Core::start(&core_dir, &mock).await;
    let listen = core.root.trim_start_matches("http://").to_owned();

    let mut runtime = core.runtime(TOKEN, &dir.path().join("runtime"), false);
    let first = runtime.line().await;
    assert!(
        first.starts_with("Runtime remote-test connected to "),
        "{first}"
    );
    core.wait_readyz(200).await;

    core.process.child.kill().await.expect("stopping Core");
    drop(core);
    let core = Core::start_on(&core_dir, &mock, &listen).await;
    // The Runtime is still running, and says so again once the new Core welcomes it.
    let again = runtime.line().await;
    assert_eq!(again, first);
    core.wait_readyz(200).await;
    assert!(
        runtime.child.try_wait().unwrap().is_none(),
        "the Runtime exited"
    );
}
