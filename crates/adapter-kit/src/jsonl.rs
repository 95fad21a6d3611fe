//! JSON lines on a child's stdio, and our requests waiting for their answers.
//!
//! The harnesses speak one JSON object per line each way. A [`LineWriter`] writes whole lines
//! under one lock, so concurrent writers never interleave, and flushes each at once. A
//! [`JsonLines`] reader skips blank lines and warns about (and skips) a line that is not JSON. A
//! request we send waits for its answer in a [`Pending`] table under the request's id: the
//! reader hands the answer over, a wait that times out is forgotten, and when the harness's
//! output ends every waiter fails and later requests are refused at once instead of hanging.
//! What the lines mean (JSON-RPC, stream-json) is each adapter's.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::oneshot;

/// Writes JSON lines to a child's stdin.
pub struct LineWriter {
    stdin: tokio::sync::Mutex<ChildStdin>,
}

impl LineWriter {
    pub fn new(stdin: ChildStdin) -> Self {
        LineWriter {
            stdin: tokio::sync::Mutex::new(stdin),
        }
    }

    /// Writes `message` as one line. The error is the failure's text.
    pub async fn write(&self, message: &Value) -> Result<(), String> {
        let mut line = serde_json::to_vec(message).map_err(|e| e.to_string())?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        stdin.write_all(&line).await.map_err(|e| e.to_string())?;
        stdin.flush().await.map_err(|e| e.to_string())
    }
}

/// Reads JSON lines from a child's stdout.
pub struct JsonLines {
    lines: Lines<BufReader<ChildStdout>>,
    harness: &'static str,
}

impl JsonLines {
    /// Reads `harness`'s stdout (its name is in the warnings).
    pub fn new(stdout: ChildStdout, harness: &'static str) -> Self {
        JsonLines {
            lines: BufReader::new(stdout).lines(),
            harness,
        }
    }

    /// The next JSON message; `None` once the output ended.
    pub async fn next(&mut self) -> Option<Value> {
        while let Ok(Some(line)) = self.lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(&line) {
                Ok(message) => return Some(message),
                Err(error) => {
                    tracing::warn!(%error, "{} wrote a line that is not JSON", self.harness);
                }
            }
        }
        None
    }
}

type Waiter<E> = oneshot::Sender<Result<Value, E>>;
/// `None` once the harness's output ended.
type Waiters<K, E> = Option<HashMap<K, Waiter<E>>>;

/// Our requests waiting for answers, by request id `K`; an answer is a value or an `E`.
pub struct Pending<K, E> {
    waiters: Arc<Mutex<Waiters<K, E>>>,
}

impl<K, E> Clone for Pending<K, E> {
    fn clone(&self) -> Self {
        Pending {
            waiters: self.waiters.clone(),
        }
    }
}

impl<K, E> Default for Pending<K, E> {
    fn default() -> Self {
        Pending {
            waiters: Arc::new(Mutex::new(Some(HashMap::new()))),
        }
    }
}

/// How a wait for an answer ended.
pub enum Answer<E> {
    Answered(Result<Value, E>),
    /// The harness's output ended first.
    Closed,
    TimedOut,
}

impl<K: Eq + Hash, E> Pending<K, E> {
    /// Registers the request `key` before it is written; `None` once the output ended.
    pub fn register(&self, key: K) -> Option<oneshot::Receiver<Result<Value, E>>> {
        let mut waiters = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
        let (tx, rx) = oneshot::channel();
        waiters.as_mut()?.insert(key, tx);
        Some(rx)
    }

    /// Waits at most `timeout` for the answer to the request `key`.
    pub async fn wait(
        &self,
        key: &K,
        answer: oneshot::Receiver<Result<Value, E>>,
        timeout: Duration,
    ) -> Answer<E> {
        match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(outcome)) => Answer::Answered(outcome),
            Ok(Err(_)) => Answer::Closed,
            Err(_) => {
                self.take(key);
                Answer::TimedOut
            }
        }
    }

    /// The waiter of the request `key`, if it still waits.
    pub fn take<Q>(&self, key: &Q) -> Option<Waiter<E>>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
            .and_then(|waiters| waiters.remove(key))
    }

    /// The output ended: every waiter fails with `closed()`, and later requests are refused.
    pub fn close(&self, closed: impl Fn() -> E) {
        let waiters = self
            .waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        for (_, waiter) in waiters.into_iter().flatten() {
            let _ = waiter.send(Err(closed()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_reach_their_waiters_and_the_end_fails_the_rest() {
        let pending: Pending<String, &str> = Pending::default();
        let answered = pending.register("a".into()).unwrap();
        let waiting = pending.register("b".into()).unwrap();
        let forgotten = pending.register("c".into()).unwrap();
        let _ = pending.take("a").unwrap().send(Ok(Value::from(1)));
        assert!(matches!(
            pending.wait(&"a".into(), answered, Duration::from_secs(1)).await,
            Answer::Answered(Ok(v)) if v == 1
        ));
        assert!(matches!(
            pending
                .wait(&"c".into(), forgotten, Duration::from_millis(1))
                .await,
            Answer::TimedOut
        ));
        assert!(pending.take("c").is_none(), "a timed-out wait is forgotten");
        pending.close(|| "closed");
        assert!(matches!(
            pending
                .wait(&"b".into(), waiting, Duration::from_secs(1))
                .await,
            Answer::Answered(Err("closed"))
        ));
        assert!(pending.register("d".into()).is_none());
    }
}
