//! Root Turns' traces for `sessions.traces`: each Turn's finished spans, appended batch by batch
//! (one OTLP JSON document a line), listed in Turn creation order. One module for both engines:
//! the SQL is the same.

use crate::sql::{Listing, of_session};
use crate::writer::{Bind, Statement};

/// One root Turn's trace as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRecord {
    /// The root Turn's ID.
    pub id: String,
    pub session_id: String,
    /// The Turn's document (its `created_at` is the trace's).
    pub turn_doc: String,
    /// OTLP JSON documents (`{"resourceSpans": […]}`), one a line, oldest first.
    pub spans: String,
}

/// Appends one OTLP JSON document to the Turn's trace; nothing when the Turn of that Session is
/// not stored (never written, or deleted with its Session).
pub(crate) fn append(session_id: &str, turn_id: &str, otlp: &str) -> Statement {
    Statement::new(
        "INSERT INTO session_traces (seq, id, session_id, spans) \
         SELECT seq, id, session_id, $3 FROM turns WHERE id = $2 AND session_id = $1 \
         ON CONFLICT (id) DO UPDATE SET spans = session_traces.spans || excluded.spans",
        vec![
            Bind::Text(session_id.to_owned()),
            Bind::Text(turn_id.to_owned()),
            Bind::Text(format!("{otlp}\n")),
        ],
    )
}

/// The listing of one Session's traces, with each Turn's document beside it.
pub(crate) fn listing<R>(
    project: &str,
    session_id: &str,
    row: fn(&R) -> TraceRecord,
) -> Listing<R, TraceRecord> {
    Listing {
        table: "session_traces",
        columns: "seq, id, session_id, spans, \
                  (SELECT doc FROM turns WHERE turns.id = session_traces.id) AS turn_doc",
        scope: of_session(project, session_id),
        filter: vec![],
        row,
    }
}
