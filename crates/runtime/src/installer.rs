//! Installs a harness's pinned npm package into the data dir, then checks it as the heartbeat
//! would: "installed" means "the Runtime will say available".
//!
//! Shared by `switchboard harness install` and `serve`'s install of a missing harness. Progress
//! goes to an [`InstallReport`], so the way it is shown (a terminal spinner) stays with the
//! caller.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

use crate::install::HarnessInstall;
use crate::locate::Locator;
use crate::probe::{Installation, probe};

/// How many of npm's output lines are kept for a failure's summary (the rest is in npm's log).
const KEPT_LINES: usize = 200;

/// What an install reports while it runs.
pub trait InstallReport: Send + Sync {
    /// The install of `row` begins.
    fn started(&self, row: &HarnessInstall);
    /// One line of npm's output.
    fn line(&self, row: &HarnessInstall, line: &str);
    /// The install ended (verified, or why not).
    fn finished(&self, row: &HarnessInstall, outcome: &Result<Installation, InstallError>);
}

/// A report that shows nothing.
pub struct Silent;

impl InstallReport for Silent {
    fn started(&self, _: &HarnessInstall) {}
    fn line(&self, _: &HarnessInstall, _: &str) {}
    fn finished(&self, _: &HarnessInstall, _: &Result<Installation, InstallError>) {}
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("npm is required to install harnesses, and it is not on PATH")]
    NoNpm,
    #[error("cannot start npm: {0}")]
    Spawn(std::io::Error),
    #[error("npm install {spec} failed ({status}): {summary}")]
    Npm {
        spec: String,
        status: String,
        /// npm's own one-line account of the failure ([`summary`]).
        summary: String,
    },
    #[error("{spec} was installed into {dir} but its native executable {path} {why}")]
    Unusable {
        spec: String,
        dir: PathBuf,
        path: PathBuf,
        why: String,
    },
}

/// Installs `row` into `data_dir` and verifies its executable there (only there: an environment
/// override or the repository's install must not make a failed install look verified).
pub async fn install(
    data_dir: &Path,
    row: &HarnessInstall,
    report: &dyn InstallReport,
) -> Result<Installation, InstallError> {
    report.started(row);
    let outcome = run(data_dir, row, report).await;
    report.finished(row, &outcome);
    outcome
}

async fn run(
    data_dir: &Path,
    row: &HarnessInstall,
    report: &dyn InstallReport,
) -> Result<Installation, InstallError> {
    let locator = Locator::new(data_dir);
    let dir = locator.install_dir(row);
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| InstallError::Io { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    // A private package.json keeps the folder its own npm project, so npm never walks up and
    // installs into an enclosing one.
    let manifest = dir.join("package.json");
    if !manifest.exists() {
        let body = format!(
            "{{\n  \"name\": \"switchboard-harness-{}\",\n  \"private\": true\n}}\n",
            row.dir_name
        );
        std::fs::write(&manifest, body).map_err(io(&manifest))?;
    }
    run_npm(&dir, row, report).await?;
    let installation = probe(&locator, row).await;
    if !installation.available() {
        return Err(InstallError::Unusable {
            spec: row.npm_spec(),
            dir,
            path: installation.located.path.clone(),
            why: installation.describe(),
        });
    }
    Ok(installation)
}

async fn run_npm(
    dir: &Path,
    row: &HarnessInstall,
    report: &dyn InstallReport,
) -> Result<(), InstallError> {
    // Never `--omit=optional`: the platform binary is an optional dependency.
    let mut child = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--save-exact"])
        .arg(row.npm_spec())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => InstallError::NoNpm,
            _ => InstallError::Spawn(e),
        })?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        unreachable!("both are piped above");
    };
    let mut kept: Vec<String> = Vec::new();
    let mut lines = output_lines(stdout, stderr);
    while let Some(line) = lines.recv().await {
        report.line(row, &line);
        if kept.len() < KEPT_LINES {
            kept.push(line);
        }
    }
    let status = child.wait().await.map_err(InstallError::Spawn)?;
    if !status.success() {
        return Err(InstallError::Npm {
            spec: row.npm_spec(),
            status: status.to_string(),
            summary: summary(&kept),
        });
    }
    Ok(())
}

/// npm's first `npm error` line that says what went wrong (not the `code`/`syscall`/`errno`
/// header lines), e.g. `FetchError: request to … failed, reason: connect ECONNREFUSED …`;
/// else its last nonblank line.
pub fn summary(output: &[String]) -> String {
    let errors = output
        .iter()
        .filter_map(|l| l.strip_prefix("npm error "))
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let headers = ["code ", "syscall ", "errno "];
    errors
        .clone()
        .find(|l| !headers.iter().any(|h| l.starts_with(h)))
        .or_else(|| errors.clone().next())
        .or_else(|| {
            output
                .iter()
                .rev()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
        })
        .unwrap_or("npm printed nothing")
        .to_owned()
}

/// Both output streams as one channel of lines, in arrival order.
fn output_lines(
    stdout: tokio::process::ChildStdout,
    stderr: tokio::process::ChildStderr,
) -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(forward_lines(stdout, tx.clone()));
    tokio::spawn(forward_lines(stderr, tx));
    rx
}

async fn forward_lines(reader: impl AsyncRead + Unpin, tx: mpsc::UnboundedSender<String>) {
    let mut lines = BufReader::new(reader).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if tx.send(line).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn the_summary_is_npms_own_account_of_the_failure() {
        let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
        let refused = lines(
            "npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno ECONNREFUSED\nnpm error FetchError: request to http://127.0.0.1:9/@openai%2fcodex failed, reason: connect ECONNREFUSED 127.0.0.1:9\nnpm error     at ClientRequest.<anonymous> (index.js:130:14)\nnpm error A complete log of this run can be found in: /x.log",
        );
        assert_eq!(
            summary(&refused),
            "FetchError: request to http://127.0.0.1:9/@openai%2fcodex failed, reason: connect ECONNREFUSED 127.0.0.1:9"
        );
        let notarget = lines(
            "npm error code ETARGET\nnpm error notarget No matching version found for @openai/codex@9.9.9.",
        );
        assert_eq!(
            summary(&notarget),
            "notarget No matching version found for @openai/codex@9.9.9."
        );
        assert_eq!(summary(&lines("npm error code E1")), "code E1");
        assert_eq!(summary(&lines("killed\n\n")), "killed");
        assert_eq!(summary(&[]), "npm printed nothing");
    }
}
