//! The pins live in `crates/pins/pins.env`; every reader must see the same values: the install
//! script (run in its `--print-pins` mode), the harness declarations, the adapters' version
//! probes, and the Runtime's install table (which `switchboard harness install`, `serve` and the
//! `session_turn` benchmark use).

use std::path::Path;
use std::process::Command;

use switchboard_execution::HarnessId;
use switchboard_runtime::install;

#[test]
fn every_reader_of_the_pins_agrees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("bash")
        .arg(root.join("scripts/install-harnesses.sh"))
        .arg("--print-pins")
        .output()
        .expect("bash runs the install script");
    assert!(out.status.success(), "{out:?}");
    let script = String::from_utf8(out.stdout).unwrap();

    let rows = [
        (
            "codex",
            HarnessId::Codex,
            &install::CODEX,
            switchboard_codex::binary::PINNED,
            (
                switchboard_pins::CODEX_PACKAGE,
                switchboard_pins::CODEX_VERSION,
                switchboard_pins::CODEX_NATIVE,
            ),
        ),
        (
            "claude-code",
            HarnessId::ClaudeCode,
            &install::CLAUDE_CODE,
            switchboard_claude::binary::PINNED,
            (
                switchboard_pins::CLAUDE_CODE_PACKAGE,
                switchboard_pins::CLAUDE_CODE_VERSION,
                switchboard_pins::CLAUDE_CODE_NATIVE,
            ),
        ),
    ];
    let mut expected = String::new();
    for (dir, harness, row, adapter, (package, version, native)) in rows {
        expected.push_str(&format!("{dir} {package} {version} {native}\n"));
        let declared = switchboard_harness::declaration(harness).native;
        assert_eq!((declared.name, declared.version), (package, version));
        assert!(declared.adapter, "{dir}");
        assert_eq!(
            (adapter.pinned_version, adapter.native_relative_path),
            (version, native)
        );
        assert_eq!(adapter.install_dir, format!(".harnesses/{dir}"));
        assert_eq!(
            (
                row.npm_package,
                row.pinned_version,
                row.native_relative_path,
                row.dir_name
            ),
            (package, version, native, dir)
        );
    }
    // The ACP stand-ins the ACP adapter's tests run in place of MiniMax Code.
    for (dir, package, version, native) in [
        (
            "codex-acp",
            switchboard_pins::CODEX_ACP_PACKAGE,
            switchboard_pins::CODEX_ACP_VERSION,
            switchboard_pins::CODEX_ACP_NATIVE,
        ),
        (
            "claude-agent-acp",
            switchboard_pins::CLAUDE_AGENT_ACP_PACKAGE,
            switchboard_pins::CLAUDE_AGENT_ACP_VERSION,
            switchboard_pins::CLAUDE_AGENT_ACP_NATIVE,
        ),
    ] {
        expected.push_str(&format!("{dir} {package} {version} {native}\n"));
    }
    assert_eq!(script, expected);

    let minimax = switchboard_harness::declaration(HarnessId::MinimaxCode).native;
    assert_eq!(
        (minimax.name, minimax.version, minimax.adapter),
        (
            switchboard_pins::MINIMAX_CODE_PACKAGE,
            switchboard_pins::MINIMAX_CODE_VERSION,
            true
        )
    );
    // Exactly the harnesses with an adapter are installable, except MiniMax Code, which the
    // registry this machine reaches does not carry (its adapter finds an installed `mcode`).
    let installable: Vec<_> = install::ALL.iter().map(|r| r.name).collect();
    let with_adapter: Vec<_> = HarnessId::ALL
        .iter()
        .filter(|h| switchboard_harness::declaration(**h).native.adapter)
        .filter(|h| **h != HarnessId::MinimaxCode)
        .map(|h| h.as_str())
        .collect();
    assert_eq!(installable, with_adapter);
}
