//! `switchboard mock-model` as a stand-alone program, for running the server before (or
//! without) the `switchboard` binary: `cargo run -p switchboard-mock-model --example mock_model
//! -- --script scenario.json`. Same arguments, same output.

use clap::Parser;
use switchboard_mock_model::cli::{MockModelArgs, run};

#[derive(Parser)]
#[command(name = "mock-model", about = "Scripted, deterministic model server")]
struct Cli {
    #[command(flatten)]
    args: MockModelArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    run(Cli::parse().args).await
}
