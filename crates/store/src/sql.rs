//! The SQL both engines run. The queries are portable (`$N` placeholders, `ON CONFLICT`), so
//! what they are is written once here: conditions and listings assembled at run time (every
//! value bound, never spliced), cursor pages in `seq` order, and the statements of one
//! [`SessionWrite`]. Each engine only binds and runs them ([`crate::sqlite`],
//! [`crate::postgres`]).

use crate::writer::{Bind, Statement};
use crate::{EnvironmentRecord, Order, Page, PageQuery, SessionWrite};

/// A listing of one table in `seq` order; `R` is the engine's row type.
pub(crate) struct Listing<R, T> {
    pub table: &'static str,
    pub columns: &'static str,
    /// What every row of the listing, the cursor's included, belongs to (a Turn's Session).
    pub scope: Vec<Cond>,
    /// What listed rows must also meet (`agent_id`, metadata, an Item's Turn).
    pub filter: Vec<Cond>,
    pub row: fn(&R) -> T,
}

impl<R, T> Listing<R, T> {
    /// The `seq` of the cursor row `after`, looked up in the listing's scope only, so a row of
    /// another Session or Project is an unknown cursor whether or not it passes the filters.
    pub fn cursor(&self, after: &str) -> Sql {
        let mut cursor = Sql::default();
        cursor
            .push("SELECT seq FROM ")
            .push(self.table)
            .push(" WHERE id = ")
            .bind(Bind::Text(after.to_owned()));
        for c in &self.scope {
            cursor.push(" AND ").cond(c);
        }
        cursor
    }

    /// The page's rows past the cursor's `seq`, in order, one more than the limit (to tell
    /// whether more follow).
    pub fn rows(&self, q: &PageQuery, after_seq: Option<i64>) -> Sql {
        let mut sql = Sql::default();
        sql.push("SELECT ")
            .push(self.columns)
            .push(" FROM ")
            .push(self.table)
            .push(" WHERE 1 = 1");
        for c in self.scope.iter().chain(&self.filter) {
            sql.push(" AND ").cond(c);
        }
        if let Some(seq) = after_seq {
            sql.push(match q.order {
                Order::Asc => " AND seq > ",
                Order::Desc => " AND seq < ",
            })
            .bind(Bind::I64(seq));
        }
        sql.push(match q.order {
            Order::Asc => " ORDER BY seq ASC LIMIT ",
            Order::Desc => " ORDER BY seq DESC LIMIT ",
        })
        .bind(Bind::I64(i64::from(q.limit) + 1));
        sql
    }

    /// The page made of what [`Listing::rows`] returned.
    pub fn page(&self, rows: &[R], q: &PageQuery) -> Page<T> {
        let mut data: Vec<T> = rows.iter().map(self.row).collect();
        let has_more = data.len() > q.limit as usize;
        data.truncate(q.limit as usize);
        Page { data, has_more }
    }
}

/// An SQL condition with a `?` where each bound value goes; numbered `$N` when assembled.
pub(crate) struct Cond {
    sql: &'static str,
    binds: Vec<Bind>,
}

impl Cond {
    pub fn new(sql: &'static str, binds: impl Into<Vec<Bind>>) -> Self {
        let binds = binds.into();
        debug_assert_eq!(sql.matches('?').count(), binds.len(), "{sql}");
        Cond { sql, binds }
    }
}

/// A query assembled at run time, its placeholders numbered in bind order. Only fixed
/// fragments go into `text`; every value is in `binds`.
#[derive(Default)]
pub(crate) struct Sql {
    pub text: String,
    pub binds: Vec<Bind>,
}

impl Sql {
    fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        self.text.push_str(&format!("${}", self.binds.len()));
        self
    }

    fn cond(&mut self, c: &Cond) -> &mut Self {
        let mut parts = c.sql.split('?');
        self.push(parts.next().unwrap_or_default());
        for (part, value) in parts.zip(&c.binds) {
            self.bind(value.clone()).push(part);
        }
        self
    }
}

/// The scope of a listing of one Session's rows, in one Project (child rows follow their
/// Session, so a foreign Project's Session has none).
pub(crate) fn of_session(project: &str, session_id: &str) -> Vec<Cond> {
    vec![Cond::new(
        "session_id IN (SELECT id FROM sessions WHERE id = ? AND project_id = ?)",
        [
            Bind::Text(session_id.to_owned()),
            Bind::Text(project.to_owned()),
        ],
    )]
}

/// The scope of a listing of one Project's top-level rows.
pub(crate) fn of_project(project: &str) -> Vec<Cond> {
    vec![Cond::new(
        "project_id = ?",
        [Bind::Text(project.to_owned())],
    )]
}

fn texts<const N: usize>(values: [String; N]) -> Vec<Bind> {
    values.into_iter().map(Bind::Text).collect()
}

/// A Session row's columns, and its agent (kept in `session_agents`, written once) as `agent`:
/// what [`crate::SessionRecord`] is read from, `sessions` not aliased. A macro, so that the
/// queries below are `concat!`ed constants.
macro_rules! session_columns {
    () => {
        "sessions.*, (SELECT agent FROM session_agents WHERE session_id = sessions.id) AS agent"
    };
}

pub(crate) const SESSION_COLUMNS: &str = session_columns!();

/// The condition of a read of a Session's child rows: their Session, `$1`, is one of the
/// Project's (`$n`). Child rows follow their Session, so this is how another Project's are absent.
macro_rules! session_of_project {
    ($n:literal) => {
        concat!(
            "session_id IN (SELECT id FROM sessions WHERE id = $1 AND project_id = $",
            $n,
            ")"
        )
    };
}

/// The one-row reads. Each engine binds the keys in the order written beside each query and reads
/// the row with [`crate::rows`].
pub(crate) mod one {
    /// A query on a child row of a Session: `$1` binds the Session, `$2` the row's key (in
    /// `column`) and `$3` the Project.
    macro_rules! in_session {
        ($table:literal, $column:literal) => {
            concat!(
                "SELECT * FROM ",
                $table,
                " WHERE ",
                $column,
                " = $2 AND ",
                session_of_project!("3")
            )
        };
    }

    /// `[id]`.
    pub const PROJECT: &str = "SELECT * FROM projects WHERE id = $1";
    /// `[digest]`: a key that is not revoked, of a Project that is not archived (an archived
    /// Project's keys open nothing, exactly as revoked ones).
    pub const ACTIVE_API_KEY: &str = "SELECT * FROM api_keys WHERE digest = $1 \
        AND revoked_at IS NULL AND project_id IN (SELECT id FROM projects WHERE archived_at IS NULL)";
    /// `[id, project]`.
    pub const AGENT: &str = "SELECT * FROM agents WHERE id = $1 AND project_id = $2";
    /// `[id, project]`, with the Session's agent ([`session_columns!`]).
    pub const SESSION: &str = concat!(
        "SELECT ",
        session_columns!(),
        " FROM sessions WHERE id = $1 AND project_id = $2"
    );
    /// `[key, project]`.
    pub const CREATE_KEY: &str =
        "SELECT * FROM session_create_keys WHERE key = $1 AND project_id = $2";
    /// `[id, project]`.
    pub const ENVIRONMENT: &str = "SELECT * FROM environments WHERE id = $1 AND project_id = $2";
    /// `[digest]`, of any Project: the digest names the Environment.
    pub const ENVIRONMENT_BY_ENROLLMENT: &str =
        "SELECT * FROM environments WHERE enrollment_digest = $1";
    /// `[digest]`, of any Project.
    pub const ENVIRONMENT_BY_CREDENTIAL: &str =
        "SELECT * FROM environments WHERE credential_digest = $1";
    /// `[id, project]`.
    pub const VAULT: &str = "SELECT * FROM vaults WHERE id = $1 AND project_id = $2";
    /// `[vault, id, project]`.
    pub const CREDENTIAL: &str =
        "SELECT * FROM vault_credentials WHERE vault_id = $1 AND id = $2 AND project_id = $3";
    /// `[session, turn, project]`.
    pub const TURN: &str = in_session!("turns", "id");
    /// `[session, call, project]`.
    pub const CALL: &str = in_session!("calls", "call_id");
    /// `[session, key, project]`.
    pub const IDEMPOTENCY: &str = in_session!("idempotency", "key");
    /// `[session, subagent, project]`.
    pub const SUBAGENT: &str = in_session!("subagents", "id");
    /// `[session, subagent, turn, project]`: a Subagent's Turn.
    pub const CHILD_TURN: &str = concat!(
        "SELECT * FROM subagent_turns WHERE subagent_id = $2 AND id = $3 AND ",
        session_of_project!("4")
    );
}

/// The fixed reads of many rows (listings with pages and filters are [`Listing`]s), keys as in
/// [`one`].
pub(crate) mod all {
    /// `[]`, in creation order.
    pub const PROJECTS: &str = "SELECT * FROM projects ORDER BY seq";
    /// `[]`.
    pub const API_KEYS: &str = "SELECT * FROM api_keys ORDER BY created_at, id";
    /// `[]`: the Sessions whose deletion is still to finish.
    pub const DELETIONS: &str = "SELECT * FROM session_deletions ORDER BY created_at, session_id";
    /// `[]`: the Sessions whose root Turn has not settled, in creation order.
    pub const UNSETTLED_SESSIONS: &str = concat!(
        "SELECT ",
        session_columns!(),
        " FROM sessions WHERE active_turn_id IS NOT NULL ORDER BY seq"
    );
    /// `[session, turn, project]`: a Turn's Items, in order.
    pub const TURN_ITEMS: &str = concat!(
        "SELECT * FROM items WHERE turn_id = $2 AND ",
        session_of_project!("3"),
        " ORDER BY seq"
    );
}

/// The statements of one atomic Session write, in the order their rows reference each other.
pub(crate) fn session_write(mut w: SessionWrite) -> Vec<Statement> {
    let mut statements = Vec::with_capacity(3 + w.turns.len() + w.items.len() + w.calls.len() + 2);
    let children = subagent_rows(&mut w);
    // The Environment first: a Session document may name it.
    if let Some(e) = &w.environment {
        statements.push(put_environment(e));
    }
    if let Some(s) = w.session {
        let agent = s.agent.map(|agent| {
            // After the Session's upsert, and only where that row is this Project's.
            Statement::new(
                "INSERT INTO session_agents (session_id, agent) SELECT $1, $2 \
                 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND project_id = $3) \
                 ON CONFLICT (session_id) DO UPDATE SET agent = excluded.agent",
                vec![
                    Bind::Text(s.id.clone()),
                    Bind::Text(agent),
                    Bind::Text(s.project_id.clone()),
                ],
            )
        });
        statements.push(
            Statement::new(
                "INSERT INTO sessions \
                 (id, created_at, agent_id, metadata, active_turn_id, doc, project_id) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id, \
                 metadata = excluded.metadata, active_turn_id = excluded.active_turn_id, \
                 doc = excluded.doc WHERE sessions.project_id = excluded.project_id",
                vec![
                    Bind::Text(s.id),
                    Bind::I64(s.created_at),
                    Bind::OptText(s.agent_id),
                    Bind::Text(s.metadata),
                    Bind::OptText(s.active_turn_id),
                    Bind::Text(s.doc),
                    Bind::Text(s.project_id),
                ],
            )
            // A Turn's start and end change `active_turn_id` (the row enters or leaves the
            // `sessions_unsettled` index) but not `agent_id`, whose index the upsert would
            // rewrite all the same.
            .update_first(&[
                "UPDATE sessions SET doc = $6 WHERE id = $1 AND project_id = $7 \
                 AND created_at = $2 AND agent_id IS NOT DISTINCT FROM $3 AND metadata = $4 \
                 AND active_turn_id IS NOT DISTINCT FROM $5",
                "UPDATE sessions SET metadata = $4, active_turn_id = $5, doc = $6 \
                 WHERE id = $1 AND project_id = $7 AND agent_id IS NOT DISTINCT FROM $3",
            ]),
        );
        statements.extend(agent);
    }
    // After the Session row: they reference it.
    statements.extend(children);
    // Turns and Items target their (session_id, id) key: an ID another Session owns still
    // hits the plain `id` key and fails the write (see the migration).
    statements.extend(w.turns.into_iter().map(|t| {
        Statement::new(
            "INSERT INTO turns (id, session_id, doc) VALUES ($1, $2, $3) \
             ON CONFLICT (session_id, id) DO UPDATE SET doc = excluded.doc",
            texts([t.id, t.session_id, t.doc]),
        )
        .update_first(&["UPDATE turns SET doc = $3 WHERE session_id = $2 AND id = $1"])
    }));
    statements.extend(w.items.into_iter().map(|i| {
        Statement::new(
            "INSERT INTO items (id, session_id, turn_id, doc) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (session_id, id) DO UPDATE SET turn_id = excluded.turn_id, \
             doc = excluded.doc",
            texts([i.id, i.session_id, i.turn_id, i.doc]),
        )
        .update_first(&[
            "UPDATE items SET doc = $4 WHERE session_id = $2 AND id = $1 AND turn_id = $3",
        ])
    }));
    statements.extend(w.calls.into_iter().map(|c| {
        Statement::new(
            "INSERT INTO calls (session_id, call_id, turn_id, doc) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (session_id, call_id) DO UPDATE SET turn_id = excluded.turn_id, \
             doc = excluded.doc",
            texts([c.session_id, c.call_id, c.turn_id, c.doc]),
        )
        .update_first(&[
            "UPDATE calls SET doc = $4 WHERE session_id = $1 AND call_id = $2 AND turn_id = $3",
        ])
    }));
    if let Some(k) = w.create_key {
        statements.push(Statement::new(
            "INSERT INTO session_create_keys \
             (key, session_id, fingerprint, created_at, project_id) VALUES ($1, $2, $3, $4, $5)",
            vec![
                Bind::Text(k.key),
                Bind::Text(k.session_id),
                Bind::Text(k.fingerprint),
                Bind::I64(k.created_at),
                Bind::Text(k.project_id),
            ],
        ));
    }
    if let Some(k) = w.idempotency {
        statements.push(Statement::new(
            "INSERT INTO idempotency (session_id, key, fingerprint, created_at, project_id) \
             VALUES ($1, $2, $3, $4, $5)",
            vec![
                Bind::Text(k.session_id),
                Bind::Text(k.key),
                Bind::Text(k.fingerprint),
                Bind::I64(k.created_at),
                Bind::Text(k.project_id),
            ],
        ));
    }
    statements
}

/// The upsert of an Environment row; `seq` and `created_at` stay those of the first insert.
/// An existing row keeps its digests: they change only through the conditional enrollment
/// writes (`exchange_enrollment`, `set_enrollment_digest`), so a document update that read
/// the row before an exchange can never undo it. A row of another Project is left alone.
pub(crate) fn put_environment(e: &EnvironmentRecord) -> Statement {
    Statement::new(
        "INSERT INTO environments \
         (id, created_at, kind, enrollment_digest, credential_digest, doc, project_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, doc = excluded.doc \
         WHERE environments.project_id = excluded.project_id",
        vec![
            Bind::Text(e.id.clone()),
            Bind::I64(e.created_at),
            Bind::Text(e.kind.clone()),
            Bind::OptText(e.enrollment_digest.clone()),
            Bind::OptText(e.credential_digest.clone()),
            Bind::Text(e.doc.clone()),
            Bind::Text(e.project_id.clone()),
        ],
    )
}

/// The upserts of a write's Subagent rows (they target the (session_id, id) key, as Turns do).
fn subagent_rows(w: &mut SessionWrite) -> Vec<Statement> {
    let mut out = Vec::new();
    out.extend(std::mem::take(&mut w.subagents).into_iter().map(|s| {
        Statement::new(
            "INSERT INTO subagents (id, session_id, doc) VALUES ($1, $2, $3) \
             ON CONFLICT (session_id, id) DO UPDATE SET doc = excluded.doc",
            texts([s.id, s.session_id, s.doc]),
        )
    }));
    out.extend(std::mem::take(&mut w.child_turns).into_iter().map(|t| {
        Statement::new(
            "INSERT INTO subagent_turns (id, session_id, subagent_id, doc) \
             VALUES ($1, $2, $3, $4) \
             ON CONFLICT (session_id, id) DO UPDATE SET doc = excluded.doc",
            texts([t.id, t.session_id, t.subagent_id, t.doc]),
        )
    }));
    out.extend(std::mem::take(&mut w.child_items).into_iter().map(|i| {
        Statement::new(
            "INSERT INTO subagent_items (id, session_id, subagent_id, turn_id, doc) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (session_id, id) DO UPDATE SET doc = excluded.doc",
            texts([i.id, i.session_id, i.subagent_id, i.turn_id, i.doc]),
        )
    }));
    out
}
