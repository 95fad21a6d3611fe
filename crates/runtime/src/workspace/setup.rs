//! Setup commands: run once per Environment, in order, inside the workspace's sandbox.

use std::process::Stdio;

use switchboard_protocol::workspace::SetupCommand;

use super::sandbox::{Bwrap, Layout};

/// How much of a failed command's output the error message quotes.
const OUTPUT_TAIL: usize = 2000;

/// Runs `command` with `sh -c` in the sandbox `layout` describes (whose `chdir` is the
/// command's checked cwd); `Err` carries the message of a command that failed or did not run.
pub async fn run(
    bwrap: &Bwrap,
    layout: &Layout,
    env: &[(String, String)],
    command: &SetupCommand,
) -> Result<(), String> {
    let wrapper = bwrap.wrapper(layout);
    let Some((program, args)) = wrapper.split_first() else {
        return Err("the sandbox has no command line".to_owned());
    };
    let output = tokio::process::Command::new(program)
        .args(args)
        .arg("/bin/sh")
        .arg("-c")
        .arg(&command.command)
        .env_clear()
        .env(
            "PATH",
            "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
        )
        .env("HOME", "/tmp")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| {
            format!(
                "the setup command `{}` could not start: {e}",
                command.command
            )
        })?;
    if output.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    if text.trim().is_empty() {
        text = String::from_utf8_lossy(&output.stdout).into_owned();
    }
    let text = text.trim();
    let tail = &text[text.floor_char_boundary(text.len().saturating_sub(OUTPUT_TAIL))..];
    let status = match output.status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "was killed by a signal".to_owned(),
    };
    Err(if tail.is_empty() {
        format!("the setup command `{}` {status}", command.command)
    } else {
        format!("the setup command `{}` {status}: {tail}", command.command)
    })
}
