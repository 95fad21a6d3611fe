//! The journal: every request and its reply, in arrival order, in memory and as JSON lines.
//!
//! Tests assert on what a harness actually sent (tools offered, tool outputs, `text.format`,
//! headers), so each entry keeps the request verbatim: method, path, query, headers and the
//! parsed JSON body. An entry is written before the first byte of its reply leaves, so a client
//! that has seen a reply can always find its entry; no waiting is ever needed.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Map, Value, json};

/// In-memory entries, mirrored to an append-only JSON-lines file when one is configured.
#[derive(Debug)]
pub struct Journal {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    entries: Vec<Value>,
    /// When each entry was recorded, same index as `entries` (kept out of the JSON).
    recorded_at: Vec<Instant>,
    file: Option<File>,
}

impl Journal {
    /// A journal that appends to `path` (created if missing), or stays in memory.
    pub fn open(path: Option<&Path>) -> std::io::Result<Self> {
        let file = path
            .map(|p| OpenOptions::new().create(true).append(true).open(p))
            .transpose()?;
        Ok(Journal {
            inner: Mutex::new(Inner {
                entries: Vec::new(),
                recorded_at: Vec::new(),
                file,
            }),
        })
    }

    /// Appends `entry`, numbering it with `seq` (1-based arrival order).
    pub fn record(&self, entry: Map<String, Value>) {
        let now = Instant::now();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // `seq` first, for people reading the file.
        let mut numbered = Map::new();
        numbered.insert("seq".into(), json!(inner.entries.len() + 1));
        numbered.extend(entry);
        let entry = Value::Object(numbered);
        if let Some(file) = &mut inner.file {
            let mut line = entry.to_string();
            line.push('\n');
            // A full disk must not take the model down with it; say so and keep serving.
            if let Err(err) = file.write_all(line.as_bytes()) {
                eprintln!("mock-model: cannot write journal: {err}");
            }
        }
        inner.entries.push(entry);
        inner.recorded_at.push(now);
    }

    pub fn entries(&self) -> Vec<Value> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entries
            .clone()
    }

    /// The entries from index `from` on (none when `from` is past the end). A copy of a long
    /// journal of large request bodies costs milliseconds, under the lock every request takes.
    pub fn entries_from(&self, from: usize) -> Vec<Value> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.entries.get(from..).unwrap_or_default().to_vec()
    }

    /// When each entry was recorded, in the same order as [`Journal::entries`].
    pub fn recorded_at(&self) -> Vec<Instant> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .recorded_at
            .clone()
    }
}
