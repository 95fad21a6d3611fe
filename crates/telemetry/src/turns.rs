//! Each Turn's spans, gathered for `sessions.traces`.
//!
//! A span belongs to a Turn when it carries `session.id` and `turn.id`, or when its parent
//! does (spans start parent first, so the parent is known by then). Spans of a Turn are held
//! until its [`TURN_SPAN`](crate::TURN_SPAN) ends, then handed to the sink in one batch; a span
//! of that Turn ending later (the Runtime's side may finish after Core settled the Turn) is
//! handed over alone.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use opentelemetry::trace::{SpanId, TraceContextExt};
use opentelemetry::{Context, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanProcessor};

use crate::TURN_SPAN;

/// Where a Turn's finished spans go (the store, for `sessions.traces`).
pub trait TurnSpanSink: Send + Sync + 'static {
    /// Keeps `otlp`, the JSON text `{"resourceSpans": […]}`, as more spans of the Turn
    /// `turn_id`.
    fn keep(&self, session_id: String, turn_id: String, otlp: String) -> BoxFuture<'static, ()>;
}

/// Closed Turns remembered for their late spans.
const CLOSED_KEPT: usize = 4096;
/// Bounds on what waits for a Turn's end (a Turn recovered after a restart has no Turn span,
/// so its Runtime spans would otherwise wait forever): more Turns or spans are not gathered.
const HELD_TURNS: usize = 4096;
const HELD_SPANS_PER_TURN: usize = 10_000;
/// The trace keeper thread's nice value: the lowest priority there is.
const KEEPER_NICE: i32 = 19;

type TurnKey = Arc<(String, String)>;

#[derive(Default)]
struct State {
    /// Started spans of a Turn, by span ID.
    owners: HashMap<SpanId, TurnKey>,
    /// Ended spans waiting for their Turn's end.
    held: HashMap<TurnKey, Vec<SpanData>>,
    closed: HashSet<TurnKey>,
    closed_order: VecDeque<TurnKey>,
}

struct Batch {
    key: TurnKey,
    spans: Vec<SpanData>,
}

/// The span processor that gathers Turns' spans; [`TurnSpans::attach`] gives it its sink.
#[derive(Clone)]
pub struct TurnSpans {
    state: Arc<Mutex<State>>,
    out: Arc<Mutex<Option<std::sync::mpsc::Sender<Batch>>>>,
    resource: Arc<Mutex<Resource>>,
}

impl std::fmt::Debug for TurnSpans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TurnSpans")
    }
}

impl TurnSpans {
    pub(crate) fn new() -> TurnSpans {
        TurnSpans {
            state: Arc::default(),
            out: Arc::default(),
            resource: Arc::new(Mutex::new(Resource::builder_empty().build())),
        }
    }

    /// Starts handing Turns' spans to `sink` (its futures run on the current Tokio runtime);
    /// until then they are dropped.
    ///
    /// A Turn's spans are encoded, to the JSON text the sink stores, on a thread of their own
    /// at the lowest CPU priority (`trace-keeper`, nice 19), not on the runtime's workers: a
    /// trace is bookkeeping nobody waits for, and encoding it on the worker where the Turn ended
    /// would run it in front of that Turn's last events on the event streams, and at the harness
    /// processes' priority on a small machine. The encoded documents reach `sink` in order, from
    /// one task.
    pub fn attach(&self, sink: Arc<dyn TurnSpanSink>) {
        let (batches, inbox) = std::sync::mpsc::channel::<Batch>();
        let (encoded, mut outbox) = tokio::sync::mpsc::unbounded_channel();
        let resource = self
            .resource
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let spawned = std::thread::Builder::new()
            .name("trace-keeper".into())
            .spawn(move || {
                // This thread only (Linux's nice is per thread); failing leaves it at the default.
                let _ = rustix::process::setpriority_process(None, KEEPER_NICE);
                while let Ok(batch) = inbox.recv() {
                    match crate::otlp_json::otlp_json(batch.spans, &resource) {
                        Ok(otlp) => {
                            if encoded.send((batch.key, otlp)).is_err() {
                                return;
                            }
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "a Turn's spans could not be encoded")
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no thread to encode Turns' traces; none are kept");
            return;
        }
        tokio::spawn(async move {
            while let Some((key, otlp)) = outbox.recv().await {
                let (sid, tid) = (key.0.clone(), key.1.clone());
                sink.keep(sid, tid, otlp).await;
            }
        });
        *self.out.lock().unwrap_or_else(PoisonError::into_inner) = Some(batches);
    }

    fn send(&self, key: TurnKey, spans: Vec<SpanData>) {
        if let Some(out) = &*self.out.lock().unwrap_or_else(PoisonError::into_inner) {
            let _ = out.send(Batch { key, spans });
        }
    }
}

fn attribute<'a>(attributes: &'a [opentelemetry::KeyValue], key: &str) -> Option<&'a Value> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn own_key(attributes: &[opentelemetry::KeyValue]) -> Option<(String, String)> {
    let sid = attribute(attributes, "session.id")?.as_str().into_owned();
    let tid = attribute(attributes, "turn.id")?.as_str().into_owned();
    Some((sid, tid))
}

impl SpanProcessor for TurnSpans {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        // Without a sink (a remote Runtime's process) nothing is gathered.
        if self
            .out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
        {
            return;
        }
        let Some(data) = span.exported_data() else {
            return;
        };
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let key = match own_key(&data.attributes) {
            Some(key) => Some(Arc::new(key)),
            None if cx.has_active_span() => {
                let parent = cx.span().span_context().span_id();
                state.owners.get(&parent).cloned()
            }
            None => None,
        };
        if let Some(key) = key {
            state.owners.insert(data.span_context.span_id(), key);
        }
    }

    fn on_end(&self, span: SpanData) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(key) = state.owners.remove(&span.span_context.span_id()) else {
            return;
        };
        if state.closed.contains(&key) {
            drop(state);
            return self.send(key, vec![span]);
        }
        let ends_turn = span.name == TURN_SPAN;
        if !ends_turn && !state.held.contains_key(&key) && state.held.len() >= HELD_TURNS {
            return;
        }
        let mut held = state.held.remove(&key).unwrap_or_default();
        if held.len() < HELD_SPANS_PER_TURN || ends_turn {
            held.push(span);
        }
        if !ends_turn {
            state.held.insert(key, held);
            return;
        }
        state.closed.insert(key.clone());
        state.closed_order.push_back(key.clone());
        if state.closed_order.len() > CLOSED_KEPT
            && let Some(old) = state.closed_order.pop_front()
        {
            state.closed.remove(&old);
        }
        drop(state);
        self.send(key, held);
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }

    fn set_resource(&mut self, resource: &Resource) {
        *self.resource.lock().unwrap_or_else(PoisonError::into_inner) = resource.clone();
    }
}
