//! `switchboard harness install <codex|claude_code>` and `switchboard harness list`.
//!
//! `install` runs the Runtime's installer (`switchboard_runtime::installer`, shared with
//! `serve`), which puts the pinned npm package into `<data_dir>/harnesses/<harness>/` and then
//! checks the native executable the same way the Runtime does before advertising it, so
//! "installed" here means "the Runtime will say available". `list` shows each harness as the
//! Runtime resolves it (environment variable, data dir, then the repository's `.harnesses/`),
//! with the same probe: the command line and Core's heartbeat cannot disagree.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use switchboard_execution::HarnessId;
use switchboard_runtime::install::{self, HarnessInstall};
use switchboard_runtime::installer::{self, InstallError, InstallReport};
use switchboard_runtime::{Installation, Locator, probe};

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

/// An installable harness; a declared harness without an adapter in this build says so, as
/// Session admission does.
pub fn parse_harness(name: &str) -> Result<&'static HarnessInstall, String> {
    if let Some(row) = install::by_name(name) {
        return Ok(row);
    }
    match HarnessId::parse(name) {
        Some(HarnessId::MinimaxCode) => Err(minimax_code_not_installable()),
        Some(h) if !switchboard_harness::declaration(h).native.adapter => Err(format!(
            "the {name} harness has no adapter in this build, so it cannot be installed or run"
        )),
        _ => {
            let names: Vec<_> = install::ALL.iter().map(|row| row.name).collect();
            Err(format!("unknown harness '{name}' ({})", names.join(", ")))
        }
    }
}

/// MiniMax Code runs (the ACP adapter's `minimax_code` profile) but cannot be installed from the
/// registry this machine reaches: say so, and how to use an installed `mcode`.
fn minimax_code_not_installable() -> String {
    let native = switchboard_harness::declaration(HarnessId::MinimaxCode).native;
    format!(
        "the minimax_code harness cannot be installed from here: the npm registry this machine \
         reaches answers 404 for {}@{}. Install MiniMax Code {} yourself, then set \
         SWITCHBOARD_MINIMAX_CODE_BIN to its mcode executable (or put mcode on PATH) before \
         starting the Runtime",
        native.name, native.version, native.version,
    )
}

pub async fn run(args: HarnessArgs) -> anyhow::Result<()> {
    let data_dir = crate::paths::absolute(&args.data_dir)?;
    match args.action {
        HarnessAction::Install { harness } => install(&data_dir, harness).await,
        HarnessAction::List => list(&data_dir).await,
    }
}

async fn install(data_dir: &Path, row: &HarnessInstall) -> anyhow::Result<()> {
    let report = Spinner::default();
    let installation = installer::install(data_dir, row, &report).await?;
    println!(
        "{} {} installed: {}",
        row.name,
        installation.found_version().unwrap_or_default(),
        installation.located.path.display()
    );
    Ok(())
}

/// An indicatif line on stderr showing npm's latest output line while a harness installs.
#[derive(Default)]
pub struct Spinner {
    bar: std::sync::Mutex<Option<ProgressBar>>,
    /// Also log one line when each install ends (for `serve`, whose output is a log).
    pub log_outcome: bool,
}

impl Spinner {
    pub fn logging() -> Arc<Self> {
        Arc::new(Spinner {
            bar: Default::default(),
            log_outcome: true,
        })
    }
}

impl Spinner {
    /// The bar, even after a panic elsewhere while it was held: the slot is only ever
    /// replaced or taken whole, so what a poisoned lock holds is still consistent.
    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl InstallReport for Spinner {
    fn started(&self, row: &HarnessInstall) {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix} {wide_msg}") {
            bar.set_style(style);
        }
        bar.set_prefix(format!("npm install {}", row.npm_spec()));
        bar.enable_steady_tick(Duration::from_millis(120));
        *self.bar() = Some(bar);
    }

    fn line(&self, _: &HarnessInstall, line: &str) {
        if let Some(bar) = self.bar().as_ref() {
            bar.set_message(line.to_owned());
        }
    }

    fn finished(&self, row: &HarnessInstall, outcome: &Result<Installation, InstallError>) {
        if let Some(bar) = self.bar().take() {
            bar.finish_and_clear();
        }
        if !self.log_outcome {
            return;
        }
        match outcome {
            Ok(found) => tracing::info!(
                harness = row.name,
                version = found.found_version().unwrap_or_default(),
                path = %found.located.path.display(),
                "harness installed"
            ),
            Err(e) => tracing::error!(
                harness = row.name,
                retry = format!("switchboard harness install {}", row.name),
                "harness install failed: {e}"
            ),
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
