//! The Session's native identity, and whether a launch starts it or resumes it.
//!
//! The adapter chooses the native session id itself (a UUID, `--session-id`) and keeps it in
//! the state directory, so the id is known before claude says anything and survives evictions
//! and Runtime restarts. claude persists the conversation as
//! `CLAUDE_CONFIG_DIR/projects/<cwd>/<id>.jsonl` as soon as a Turn's input arrives; once that
//! transcript exists, the next launch passes `--resume <id>` (with every other flag again) and
//! claude continues with the whole history. Before it exists (a process evicted before its
//! first Turn) there is nothing to resume, and `--resume` would fail with "No conversation
//! found", so the launch starts the same id afresh.

use std::path::Path;

use crate::flags::NativeSession;
use crate::layout::{SESSION_ID_FILE, StateLayout};

/// The Session's native id: the one recorded in the state directory, or a new one (recorded).
pub fn session_id(layout: &StateLayout) -> std::io::Result<String> {
    if let Some(id) = layout.read_id(SESSION_ID_FILE) {
        return Ok(id);
    }
    let id = uuid::Uuid::new_v4().to_string();
    layout.write_id(SESSION_ID_FILE, &id)?;
    Ok(id)
}

/// `--resume` when claude has a transcript for `id`, else `--session-id`.
pub fn native_session<'a>(layout: &StateLayout, id: &'a str) -> NativeSession<'a> {
    if transcript_exists(&layout.config_dir().join("projects"), id) {
        NativeSession::Resume(id)
    } else {
        NativeSession::Start(id)
    }
}

fn transcript_exists(projects: &Path, id: &str) -> bool {
    let file = format!("{id}.jsonl");
    let Ok(entries) = std::fs::read_dir(projects) else {
        return false;
    };
    entries
        .flatten()
        .any(|project| project.path().join(&file).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_kept_and_resume_needs_a_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let layout = StateLayout::new(dir.path().to_owned());
        let id = session_id(&layout).unwrap();
        assert_eq!(session_id(&layout).unwrap(), id);
        assert_eq!(native_session(&layout, &id), NativeSession::Start(&id));
        let project = layout.config_dir().join("projects/-state-work");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join(format!("{id}.jsonl")), "{}\n").unwrap();
        assert_eq!(native_session(&layout, &id), NativeSession::Resume(&id));
    }
}
