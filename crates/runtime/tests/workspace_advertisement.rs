//! A Runtime advertises managed workspaces only when its `bwrap` probe succeeded at start; the
//! workspace capabilities the Runtime itself provides (a self-hosted directory, reading and
//! writing workspace files) are advertised either way, within each harness's declaration.

use crate::support;

use switchboard_runtime::workspace::sandbox::Bwrap;
use switchboard_runtime::{Locator, Registry};

#[tokio::test]
async fn managed_workspace_is_advertised_only_with_a_working_bwrap() {
    let data = support::scratch("ws-adv-");
    let with =
        support::workspace::bwrap("managed_workspace_is_advertised_only_with_a_working_bwrap");
    let Some(with) = with else { return };

    for (bwrap, managed) in [(Some(with), true), (None::<Bwrap>, false)] {
        let registry = Registry::standard(Locator::new(data.path())).with_bwrap(bwrap);
        let heartbeat = registry.heartbeat().await;
        assert_eq!(heartbeat.supported_harnesses.len(), 3);
        // minimax_code (the ACP adapter) advertises `environment: none` only.
        let placed = heartbeat
            .supported_harnesses
            .iter()
            .filter(|ad| ad.harness != switchboard_protocol::configuration::HarnessId::MinimaxCode);
        for ad in placed {
            let caps = &ad.capabilities;
            assert_eq!(caps.managed_workspace, managed, "{:?}", ad.harness);
            assert!(caps.local_environment, "{:?}", ad.harness);
            assert!(caps.workspace_read_preparation, "{:?}", ad.harness);
            assert!(caps.workspace_output_export, "{:?}", ad.harness);
        }
    }

    // A `bwrap` that cannot run is no sandbox.
    let broken = data.path().join("bwrap");
    std::fs::write(&broken, "not a program").unwrap();
    assert_eq!(Bwrap::at(&broken), None);
}
