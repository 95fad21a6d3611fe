//! The sandbox relay on its own (`switchboard sandbox-relay` is the same code): the Runtime's
//! tests run it where the `switchboard` binary is not built.

use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match switchboard_runtime::workspace::relay::run_inside(std::env::args_os().skip(1).collect())
        .await
    {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            eprintln!("{error}");
            ExitCode::from(125)
        }
    }
}
