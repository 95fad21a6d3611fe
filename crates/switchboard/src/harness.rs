//! `switchboard harness install <codex|claude_code>` and `switchboard harness list`.
//!
//! `install` puts the pinned npm package into `<data_dir>/harnesses/<harness>/` and then checks
//! the native executable the same way the Runtime does before advertising it, so "installed"
//! here means "the Runtime will say available". `list` shows each harness as the Runtime
//! resolves it (environment variable, data dir, then the repository's `.harnesses/`), with the
//! same probe: the command line and Core's heartbeat cannot disagree.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use switchboard_runtime::install::{self, HarnessInstall};
use switchboard_runtime::{Locator, probe};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

#[derive(Args)]
pub struct HarnessArgs {
    /// Where harnesses are installed (`<data_dir>/harnesses/…`), as for `serve`.
    #[arg(
        long,
        env = "SWITCHBOARD_DATA_DIR",
        default_value = ".switchboard",
        global = true
    )]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub action: HarnessAction,
}

#[derive(Subcommand)]
pub enum HarnessAction {
    /// Install a harness's pinned npm package and verify its native executable.
    Install {
        /// `codex` or `claude_code`.
        #[arg(value_parser = parse_harness)]
        harness: &'static HarnessInstall,
    },
    /// Show each harness: pinned version, resolved path, and whether it is available.
    List,
}

fn parse_harness(name: &str) -> Result<&'static HarnessInstall, String> {
    install::by_name(name).ok_or_else(|| {
        let names: Vec<_> = install::ALL.iter().map(|row| row.name).collect();
        format!("unknown harness '{name}' ({})", names.join(", "))
    })
}

pub async fn run(args: HarnessArgs) -> anyhow::Result<()> {
    match args.action {
        HarnessAction::Install { harness } => install(&args.data_dir, harness).await,
        HarnessAction::List => list(&args.data_dir).await,
    }
}

async fn install(data_dir: &Path, row: &HarnessInstall) -> anyhow::Result<()> {
    // Only the data dir: an environment override or the repository's install must not make a
    // failed install look verified.
    let locator = Locator::new(data_dir);
    let dir = locator.install_dir(row);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    // A private package.json keeps the folder its own npm project, so npm never walks up and
    // installs into an enclosing one.
    let manifest = dir.join("package.json");
    if !manifest.exists() {
        let body = format!(
            "{{\n  \"name\": \"switchboard-harness-{}\",\n  \"private\": true\n}}\n",
            row.dir_name
        );
        std::fs::write(&manifest, body)
            .with_context(|| format!("writing {}", manifest.display()))?;
    }

    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template(
        "{spinner} {prefix} {wide_msg}",
    )?);
    spinner.set_prefix(format!("npm install {}", row.npm_spec()));
    spinner.enable_steady_tick(Duration::from_millis(120));
    let log = run_npm(&dir, row, &spinner).await;
    spinner.finish_and_clear();
    log?;

    let installation = probe(&locator, row).await;
    if !installation.available() {
        bail!(
            "{} was installed into {} but its native executable {} {}",
            row.npm_spec(),
            dir.display(),
            installation.located.path.display(),
            installation.describe()
        );
    }
    println!(
        "{} {} installed: {}",
        row.name,
        installation.found_version().unwrap_or_default(),
        installation.located.path.display()
    );
    Ok(())
}

/// Runs npm, showing its latest output line on the spinner; on failure the whole output is in
/// the error.
async fn run_npm(dir: &Path, row: &HarnessInstall, spinner: &ProgressBar) -> anyhow::Result<()> {
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
            std::io::ErrorKind::NotFound => anyhow::anyhow!("npm is required to install harnesses"),
            _ => anyhow::Error::new(e).context("starting npm"),
        })?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        unreachable!("both are piped above");
    };
    let mut output = Vec::new();
    let mut lines = output_lines(stdout, stderr);
    while let Some(line) = lines.recv().await {
        spinner.set_message(line.clone());
        output.push(line);
    }
    let status = child.wait().await.context("waiting for npm")?;
    if !status.success() {
        bail!(
            "npm install {} failed ({status}):\n{}",
            row.npm_spec(),
            output.join("\n")
        );
    }
    Ok(())
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

async fn list(data_dir: &Path) -> anyhow::Result<()> {
    let locator = Locator::from_env(data_dir);
    println!("{:<12} {:<9} {:<10} PATH", "HARNESS", "PINNED", "AVAILABLE");
    for row in &install::ALL {
        let installation = probe(&locator, row).await;
        println!(
            "{:<12} {:<9} {:<10} {} ({}; {})",
            row.name,
            row.pinned_version,
            if installation.available() {
                "yes"
            } else {
                "no"
            },
            installation.located.path.display(),
            installation.located.source.describe(),
            installation.describe(),
        );
    }
    Ok(())
}
