//! The command line as a newcomer meets it: relative paths from flags and the environment are
//! made absolute against the directory the command ran in, and a declared harness without an
//! adapter says so instead of "unknown harness".

use std::process::Command;

fn switchboard(cwd: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.current_dir(cwd)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("SWITCHBOARD_CLAUDE_BIN")
        .env("SWITCHBOARD_NO_REPO_HARNESSES", "1");
    cmd
}

#[test]
fn relative_data_dir_and_binary_overrides_resolve_against_the_starting_directory() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let out = switchboard(&cwd)
        .env("SWITCHBOARD_CODEX_BIN", "bin/codex")
        .args(["harness", "list"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let codex = text.lines().find(|l| l.starts_with("codex ")).unwrap();
    let claude = text
        .lines()
        .find(|l| l.starts_with("claude_code "))
        .unwrap();
    assert!(
        codex.contains(&format!(
            " {}/bin/codex (environment; not installed)",
            cwd.display()
        )),
        "{codex}"
    );
    assert!(
        claude.contains(&format!(
            " {}/.switchboard/harnesses/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude (data dir; not installed)",
            cwd.display()
        )),
        "{claude}"
    );
}

#[test]
fn installing_minimax_code_explains_how_to_use_an_installed_mcode() {
    let dir = tempfile::tempdir().unwrap();
    let out = switchboard(dir.path())
        .args(["harness", "install", "minimax_code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(
            "invalid value 'minimax_code' for '<HARNESS>': the minimax_code harness cannot be installed from here: the npm registry this machine reaches answers 404 for @minimax-ai/code@0.4.12. Install MiniMax Code 0.4.12 yourself, then set SWITCHBOARD_MINIMAX_CODE_BIN to its mcode executable (or put mcode on PATH) before starting the Runtime"
        ),
        "{stderr}"
    );
    // Nothing was written for it.
    assert!(!dir.path().join(".switchboard").exists());
}

#[test]
fn serve_refuses_to_install_minimax_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = switchboard(dir.path())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--install-harness",
            "minimax_code",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(
            "invalid value 'minimax_code' for '--install-harness <H>': the minimax_code harness cannot be installed from here"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join(".switchboard").exists());
}
