//! Threads of released Sessions still to be deleted from a home that outlives them.
//!
//! A Session's thread may live in a `CODEX_HOME` outside its state directory: a shared
//! process's ([`crate::host`]), which stays for the other Sessions of its key. Releasing the
//! Session deletes the thread through codex (`thread/delete`: its rollout and index entry) on a
//! process of that home ([`crate::executor`]). A Session released with no executor on this
//! Runtime (prepared before it restarted), or with no process slot while no process of the
//! home lives, has no process to do that with, and starting one for it would run beside the
//! Runtime's live-process bound. So its thread id is kept in [`RELEASED_FILE`] beside that
//! home, and the next process launched on the home deletes the threads kept there before it
//! serves anything ([`crate::launch::launch`]). Either way, once no Session's state names the
//! home any more and no process lives on it, the whole home goes
//! ([`crate::host::ProcessHost::remove_if_unused`]), codex's own databases with it: nothing is
//! left there to resume, and their freed pages keep no deleted thread's bytes.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::jsonrpc::Connection;
use crate::launch::{CONTROL_TIMEOUT, StateLayout, THREAD_HOME_FILE, THREAD_ID_FILE};

/// The file beside a home (in its state directory) that lists released threads, one id a line.
pub const RELEASED_FILE: &str = "released-threads";

/// Keeps the thread of the Session whose state directory is `state_dir` for deletion from its
/// home, when that home lies outside `state_dir` (a home inside it goes with the directory).
/// The directory of the home it was kept beside, if it was.
pub fn keep(state_dir: &Path) -> std::io::Result<Option<PathBuf>> {
    let thread_id = StateLayout::new(state_dir.to_owned()).read_id(THREAD_ID_FILE);
    let (Some(home_dir), Some(thread_id)) = (foreign_home(state_dir), thread_id) else {
        return Ok(None);
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(home_dir.join(RELEASED_FILE))?;
    writeln!(file, "{thread_id}")?;
    Ok(Some(home_dir))
}

/// The directory of the home that the thread of the Session whose state directory is
/// `state_dir` lives in, when that home lies outside `state_dir` and is there.
pub fn foreign_home(state_dir: &Path) -> Option<PathBuf> {
    let home = StateLayout::new(state_dir.to_owned()).read_id(THREAD_HOME_FILE)?;
    let home_dir = Path::new(&home).parent()?.to_owned();
    // A Session bound to a warm process has a link for a state directory, and its home is the
    // link's target: compared as the same directory, it is its own.
    (!same_dir(&home_dir, state_dir) && home_dir.is_dir()).then_some(home_dir)
}

/// Whether `a` and `b` are the same directory: compared resolved (links, `..`) when both
/// resolve, as written otherwise.
pub(crate) fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Whether a Session state directory under `state_root` still names the home in `home_dir` as
/// its thread's (`thread-home`). When the root cannot be read, it counts as named.
pub fn home_named(state_root: &Path, home_dir: &Path) -> bool {
    let home = StateLayout::new(home_dir.to_owned()).codex_home();
    let Ok(entries) = std::fs::read_dir(state_root) else {
        return true;
    };
    entries.flatten().any(|entry| {
        StateLayout::new(entry.path())
            .read_id(THREAD_HOME_FILE)
            .is_some_and(|named| Path::new(&named) == home)
    })
}

/// Deletes the threads kept beside `layout`'s home through `connection`, the process just
/// launched on it. The list is taken first (renamed away), so a thread kept meanwhile waits
/// for the next launch instead of being lost; one codex cannot delete is logged and dropped.
pub async fn delete_kept(connection: &Connection, layout: &StateLayout) {
    let kept = layout.join(RELEASED_FILE);
    let taken = layout.join(&format!("{RELEASED_FILE}.{}", std::process::id()));
    if tokio::fs::rename(&kept, &taken).await.is_err() {
        return;
    }
    let text = tokio::fs::read_to_string(&taken).await.unwrap_or_default();
    for thread_id in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let params = json!({"threadId": thread_id});
        if let Err(error) = connection
            .request("thread/delete", params, CONTROL_TIMEOUT)
            .await
        {
            tracing::warn!(%thread_id, %error, "cannot delete a released Session's thread");
        }
    }
    let _ = tokio::fs::remove_file(&taken).await;
}
