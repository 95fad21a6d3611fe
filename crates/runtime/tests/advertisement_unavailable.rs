//! A harness is advertised `available: false` unless its executable exists at the resolved path
//! AND `--version` reports exactly the pin; capabilities never exceed the declaration.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use switchboard_protocol::configuration::HarnessId;
use switchboard_runtime::locate::Source;
use switchboard_runtime::{Locator, Registry, Status, install, probe};

/// A stand-in executable that prints `output` for `--version`.
fn fake_binary(dir: &Path, output: &str) -> PathBuf {
    let path = dir.join("fake-codex");
    std::fs::write(&path, format!("#!/bin/sh\necho '{output}'\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

// One test function on purpose: writing an executable while another test thread forks can make
// exec fail with ETXTBSY.
#[tokio::test]
async fn unavailable_when_missing_or_mismatched_available_when_pinned() {
    let dir = support::scratch("advertise-");

    // Nothing installed: the data-dir path is reported, and the heartbeat says unavailable.
    let locator = Locator::new(dir.path());
    let missing = probe(&locator, &install::CODEX).await;
    assert_eq!(missing.status, Status::Missing);
    assert_eq!(missing.located.source, Source::DataDir);
    assert!(missing.located.path.ends_with(format!(
        "harnesses/codex/{}",
        install::CODEX.native_relative_path
    )));
    let heartbeat = Registry::standard(locator).heartbeat().await;
    let codex = &heartbeat.supported_harnesses[0];
    // Every registered adapter is advertised: codex, claude_code, then minimax_code (no
    // `mcode` here: unavailable, with the reason).
    assert_eq!(heartbeat.supported_harnesses.len(), 3);
    let minimax = &heartbeat.supported_harnesses[2];
    assert_eq!(minimax.harness, HarnessId::MinimaxCode);
    assert!(!minimax.available);
    assert_eq!(codex.harness, HarnessId::Codex);
    assert_eq!(
        heartbeat.supported_harnesses[1].harness,
        HarnessId::ClaudeCode
    );
    assert!(!heartbeat.supported_harnesses[1].available);
    assert!(!codex.available);
    assert_eq!(codex.version, None);

    // Another version: unavailable, with the found version in the human description.
    let other = fake_binary(dir.path(), "codex-cli 0.170.0");
    let locator = Locator::new(dir.path()).with_explicit(HarnessId::Codex, &other);
    let mismatch = probe(&locator, &install::CODEX).await;
    assert_eq!(
        mismatch.status,
        Status::VersionMismatch {
            found: "0.170.0".into()
        }
    );
    assert!(mismatch.describe().contains("0.171.0 is pinned"));
    let heartbeat = Registry::standard(locator).heartbeat().await;
    assert!(!heartbeat.supported_harnesses[0].available);
    assert_eq!(heartbeat.supported_harnesses[0].version, None);

    // The pinned version (faked): available, and the frame has the wire shape.
    let pinned = fake_binary(
        dir.path(),
        &format!("codex-cli {}", install::CODEX.pinned_version),
    );
    let locator = Locator::new(dir.path()).with_explicit(HarnessId::Codex, &pinned);
    let heartbeat = Registry::standard(locator).heartbeat().await;
    let json = serde_json::to_value(&heartbeat).unwrap();
    let entry = &json["supported_harnesses"][0];
    assert_eq!(entry["harness"], "codex");
    assert_eq!(entry["available"], true);
    assert_eq!(entry["version"], install::CODEX.pinned_version);
    // Narrowed to the declaration: nothing is true that the declaration lacks, whatever the
    // adapter implements.
    let declaration = switchboard_runtime::advertise::declaration_of(HarnessId::Codex);
    for (name, value) in entry["capabilities"].as_object().unwrap() {
        let capability = switchboard_harness::Capability::parse(name).unwrap();
        if value == true {
            assert!(
                declaration.has_capability(capability),
                "{name} widens the declaration"
            );
        }
    }
    assert_eq!(entry["capabilities"]["streaming"], true);
}
