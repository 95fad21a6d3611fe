//! What the benches share: Core and its local Runtime started in this process as
//! `switchboard serve` starts them, an SSE reader, and the figures' arithmetic.

use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::serve::ListenerExt;
use futures::{Stream, StreamExt};
use serde_json::Value;
use switchboard_core::{AppState, CoreConfig, auth, router};
use switchboard_execution::{HarnessId, ModelProvider};
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions};
use switchboard_store::{SqliteStore, Store};

/// Core and its local Runtime in this process, built as `switchboard serve` builds them: the
/// SQLite store and data key under `data_dir`, `api_key` as the Project key, `providers` as
/// the deployment's model providers, the local Runtime with `options`, `TCP_NODELAY` on every
/// accepted connection. Its root (`http://HOST:PORT`) and the serving task.
#[allow(dead_code)] // `scale`'s; `session_turn` uses [`start_core_observed`].
pub async fn start_core(
    data_dir: &Path,
    api_key: &str,
    providers: impl IntoIterator<Item = ModelProvider>,
    options: RuntimeOptions,
) -> (String, tokio::task::JoinHandle<()>) {
    let (root, server, _) = start_core_observed(data_dir, api_key, providers, options).await;
    (root, server)
}

/// [`start_core`], with the local Runtime's notices (evictions, the warm pool's processes).
pub async fn start_core_observed(
    data_dir: &Path,
    api_key: &str,
    providers: impl IntoIterator<Item = ModelProvider>,
    options: RuntimeOptions,
) -> (
    String,
    tokio::task::JoinHandle<()>,
    tokio::sync::broadcast::Receiver<switchboard_runtime::Notice>,
) {
    let registry = Registry::standard(Locator::from_env(data_dir));
    start_core_on(data_dir, api_key, providers, options, registry).await
}

/// [`start_core_observed`] with the local Runtime on `registry` (shared Codex processes).
pub async fn start_core_on(
    data_dir: &Path,
    api_key: &str,
    providers: impl IntoIterator<Item = ModelProvider>,
    options: RuntimeOptions,
    registry: Registry,
) -> (
    String,
    tokio::task::JoinHandle<()>,
    tokio::sync::broadcast::Receiver<switchboard_runtime::Notice>,
) {
    std::fs::create_dir_all(data_dir).expect("creating Core's data dir");
    let store = SqliteStore::open(&data_dir.join("switchboard.sqlite"))
        .await
        .expect("opening the store");
    let secrets = switchboard_core::secrets::SecretBox::load_or_create(data_dir)
        .expect("creating the data key");
    auth::bootstrap(&store, Some(api_key), switchboard_core::unix_now())
        .await
        .expect("creating the API key");
    let store: Arc<dyn Store> = Arc::new(store);
    TRACE_STORES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(store.clone());
    let state = Arc::new(AppState::new(
        store,
        secrets,
        CoreConfig {
            data_dir: data_dir.to_owned(),
            default_harness: HarnessId::Codex,
            runtime_token: None,
            public_url: "http://127.0.0.1:9".into(),
            reservation_deadline: switchboard_core::state::RESERVATION_DEADLINE,
            preparation_timeout: switchboard_core::state::PREPARATION_TIMEOUT,
        },
        providers,
    ));
    let local = LocalRuntime::start(Arc::new(registry), options);
    let notices = local.notices();
    let (to_runtime, from_runtime) = local.into_channels();
    state
        .engine
        .attach("local".to_owned(), true, None, to_runtime, from_runtime);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binding Core");
    let addr = listener.local_addr().expect("Core's address");
    let server = tokio::spawn(async move {
        // As `switchboard serve` does: no Nagle delay on event streams.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router(state))
            .await
            .expect("serving Core")
    });
    (format!("http://{addr}"), server, notices)
}

/// The Cores' stores this process started ([`start_core_on`]), where serve's Turn traces go.
static TRACE_STORES: std::sync::Mutex<Vec<Arc<dyn Store>>> = std::sync::Mutex::new(Vec::new());

/// Installs the subscriber `switchboard serve` installs (its log lines on stderr, filtered by
/// `SWITCHBOARD_LOG`, and the trace pipeline: every span of Core, the Runtime and the adapters
/// becomes an OpenTelemetry span, and each Turn's are encoded and stored for
/// `sessions.traces`), unless `{var}=none`; then only [`log_from_env`]'s. Call it inside the
/// Tokio runtime, before any Core starts. Whether serve's was installed.
#[allow(dead_code)] // `session_turn`'s
pub fn serve_subscriber(var: &str) -> bool {
    if std::env::var(var).as_deref() == Ok("none") {
        log_from_env();
        return false;
    }
    let telemetry = switchboard_telemetry::Telemetry::new(None).expect("the trace pipeline");
    switchboard_telemetry::Telemetry::install(Some(&telemetry), "warn");
    telemetry.turns().attach(Arc::new(StoreTraces));
    // The pipeline lives as long as the process, as in `serve`.
    std::mem::forget(telemetry);
    true
}

/// `serve`'s trace sink for every Core of this process: a Turn's spans land in the store that
/// holds the Turn (the others have no such Turn and write nothing).
struct StoreTraces;

impl switchboard_telemetry::TurnSpanSink for StoreTraces {
    fn keep(
        &self,
        session_id: String,
        turn_id: String,
        otlp: String,
    ) -> futures::future::BoxFuture<'static, ()> {
        let stores = TRACE_STORES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Box::pin(async move {
            for store in stores {
                let _ = store.append_trace(&session_id, &turn_id, &otlp).await;
            }
        })
    }
}

/// Core's log on stderr, filtered by `SWITCHBOARD_LOG` as `switchboard serve`'s is; nothing
/// when it is unset (the figures stay readable).
pub fn log_from_env() {
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("SWITCHBOARD_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
}

/// A minimal SSE reader: `data:` frames as JSON, each with the time its last bytes arrived.
pub struct Sse {
    body: Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: Vec<u8>,
    arrived: Instant,
    wait: Duration,
}

impl Sse {
    /// Reads `response`'s events, waiting at most `wait` for each.
    pub fn new(response: reqwest::Response, wait: Duration) -> Sse {
        Sse {
            body: Box::pin(response.bytes_stream()),
            buffer: Vec::new(),
            arrived: Instant::now(),
            wait,
        }
    }

    pub async fn next(&mut self) -> (Value, Instant) {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let frame: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&frame);
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                let event: Value = serde_json::from_str(&data.join("\n"))
                    .unwrap_or_else(|e| panic!("an SSE frame is not JSON ({e}): {text}"));
                return (event, self.arrived);
            }
            let chunk = tokio::time::timeout(self.wait, self.body.next())
                .await
                .expect("timed out waiting for an SSE event")
                .expect("the event stream ended early")
                .expect("reading the event stream");
            self.arrived = Instant::now();
            self.buffer.extend_from_slice(&chunk);
        }
    }
}

/// A number from the environment, `default` when unset; anything else stops the bench.
pub fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Resamples drawn for [`interval`].
const RESAMPLES: usize = 2000;

/// The 95 % bootstrap interval of `stat` over two independent samples: `stat` of `a` and `b`
/// each resampled with replacement, [`RESAMPLES`] times (a fixed seed, so a run's figures are
/// reproducible from its samples). With 30 Turns a side, a p50 moves by a few percent between
/// runs of the same build; the interval says how far a single run's figure can be trusted.
#[allow(dead_code)] // `session_turn`'s
pub fn interval(
    a: &[Duration],
    b: &[Duration],
    stat: fn(&[Duration], &[Duration]) -> f64,
) -> (f64, f64) {
    bootstrap(
        |draw| {
            let ra = (0..a.len()).map(|_| a[draw(a.len())]).collect();
            let rb = (0..b.len()).map(|_| b[draw(b.len())]).collect();
            (ra, rb)
        },
        stat,
    )
}

/// As [`interval`], for samples taken in pairs (`a[i]` and `b[i]` from the same iteration,
/// back to back): iterations are resampled, each with both of its samples, so what drifts
/// across a run (the host's load) stays paired as it was measured.
#[allow(dead_code)] // `session_turn`'s
pub fn paired_interval(
    a: &[Duration],
    b: &[Duration],
    stat: fn(&[Duration], &[Duration]) -> f64,
) -> (f64, f64) {
    let n = a.len().min(b.len());
    bootstrap(
        |draw| {
            (0..n)
                .map(|_| {
                    let i = draw(n);
                    (a[i], b[i])
                })
                .unzip()
        },
        stat,
    )
}

/// The 2.5th and 97.5th percentiles of `stat` over [`RESAMPLES`] resamples made by `resample`,
/// which draws indices below its argument with the given function.
fn bootstrap(
    mut resample: impl FnMut(&mut dyn FnMut(usize) -> usize) -> (Vec<Duration>, Vec<Duration>),
    stat: fn(&[Duration], &[Duration]) -> f64,
) -> (f64, f64) {
    // splitmix64: enough for drawing indices, and no dependency.
    let mut seed: u64 = 0x5eed_5eed_5eed_5eed;
    let mut draw = move |n: usize| {
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    let mut stats = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        let (mut ra, mut rb) = resample(&mut draw);
        ra.sort_unstable();
        rb.sort_unstable();
        stats.push(stat(&ra, &rb));
    }
    stats.sort_by(f64::total_cmp);
    (
        stats[RESAMPLES * 25 / 1000],
        stats[RESAMPLES * 975 / 1000 - 1],
    )
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// CPU time used so far: this process's own (every thread: Core, the Runtime, the adapters, the
/// mock model and the bench's client) and its live child processes' (the harness processes,
/// with the helper processes they have reaped, such as codex's `git` runs).
#[derive(Debug, Clone, Copy, Default)]
#[allow(dead_code)] // `session_turn`'s
pub struct Cpu {
    pub own: Duration,
    /// The live child processes' CPU (the harness processes) by their thread kinds
    /// ([`HARNESS_THREAD_KINDS`]); [`Cpu::children`] is its sum.
    pub harness_threads: [Duration; HARNESS_THREAD_KINDS.len()],
    /// This process's CPU and context switches by thread kind ([`THREAD_KINDS`]).
    pub threads: [ThreadUse; THREAD_KINDS.len()],
}

/// This process's threads by what runs on them, named by their `comm` prefix: tokio's workers
/// (Core, the Runtime, the adapters, the mock model and the bench's client all run there), the
/// SQLite store's writer and checkpointer, sqlx's SQLite worker (every read), the thread that
/// encodes and stores Turns' traces, and the rest (the bench's main thread, which reads `/proc`
/// for these figures, and tokio's blocking pool).
#[allow(dead_code)] // `session_turn`'s
pub const THREAD_KINDS: [&str; 6] = [
    "tokio-rt-worker",
    "sqlite-writer",
    "sqlite-checkpoi",
    "sqlx-sqlite-wor",
    "trace-keeper",
    "other",
];

/// The harness processes' threads by `comm` prefix, as `codex` names them: its tokio workers,
/// its own SQLite state database's sqlx worker and its main thread; then the helpers it has run
/// and reaped (`git`, `bash`, …; their parent's `cutime` + `cstime`, so in 10 ms ticks), and the
/// rest.
#[allow(dead_code)] // `session_turn`'s
pub const HARNESS_THREAD_KINDS: [&str; 5] = [
    "tokio-rt-worker",
    "sqlx-sqlite-wor",
    "codex-main",
    "reaped helpers",
    "other",
];

/// One thread kind's run time and context switches (voluntary and not).
#[derive(Debug, Clone, Copy, Default)]
#[allow(dead_code)] // `session_turn`'s
pub struct ThreadUse {
    pub cpu: Duration,
    pub switches: u64,
}

/// A thread's run time so far, from its `/proc/…/task/TID` directory (`schedstat`'s first
/// field, in ns; zero where it cannot be read).
fn run_time(task: &Path) -> Duration {
    let ns = std::fs::read_to_string(task.join("schedstat"))
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or(0);
    Duration::from_nanos(ns)
}

/// The kind of the thread at `task` (its `/proc/…/task/TID` directory): the index of the first
/// of `named` its `comm` begins with, or `other` when none does.
fn kind_of(task: &std::path::Path, named: &[&str], other: usize) -> usize {
    let comm = std::fs::read_to_string(task.join("comm")).unwrap_or_default();
    named
        .iter()
        .position(|k| comm.trim_end().starts_with(k))
        .unwrap_or(other)
}

/// This process's threads' use so far, by [`THREAD_KINDS`] (a thread that has ended is gone
/// from the count, so only a window in which the same threads live is meaningful).
fn thread_use() -> [ThreadUse; THREAD_KINDS.len()] {
    let mut kinds = [ThreadUse::default(); THREAD_KINDS.len()];
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return kinds;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let kind = kind_of(
            &path,
            &THREAD_KINDS[..THREAD_KINDS.len() - 1],
            THREAD_KINDS.len() - 1,
        );
        let switches: u64 = std::fs::read_to_string(path.join("status"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("ctxt_switches:"))
            .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .sum();
        kinds[kind].cpu += run_time(&path);
        kinds[kind].switches += switches;
    }
    kinds
}

#[allow(dead_code)] // `session_turn`'s
impl Cpu {
    pub fn now() -> Cpu {
        let own = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
        let own = Duration::new(own.tv_sec as u64, own.tv_nsec as u32);
        Cpu {
            own,
            harness_threads: children_cpu(std::process::id()),
            threads: thread_use(),
        }
    }

    /// The harness processes' CPU, all thread kinds together.
    pub fn children(&self) -> Duration {
        self.harness_threads.iter().sum()
    }

    /// What was used between `earlier` and `self`.
    pub fn since(self, earlier: Cpu) -> Cpu {
        let mut threads = self.threads;
        for (now, then) in threads.iter_mut().zip(earlier.threads) {
            now.cpu = now.cpu.saturating_sub(then.cpu);
            now.switches = now.switches.saturating_sub(then.switches);
        }
        let mut harness_threads = self.harness_threads;
        for (now, then) in harness_threads.iter_mut().zip(earlier.harness_threads) {
            *now = now.saturating_sub(then);
        }
        Cpu {
            own: self.own.saturating_sub(earlier.own),
            harness_threads,
            threads,
        }
    }
}

/// The CPU time of `parent`'s live children by [`HARNESS_THREAD_KINDS`]: each one's threads'
/// run time (`schedstat`, in ns) and its reaped children's (`stat`'s `cutime` + `cstime`, in
/// USER_HZ = 100 ticks a second).
fn children_cpu(parent: u32) -> [Duration; HARNESS_THREAD_KINDS.len()] {
    let mut total = [Duration::ZERO; HARNESS_THREAD_KINDS.len()];
    let reaped = HARNESS_THREAD_KINDS.len() - 2;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return total;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The fields after the command name, which is in parentheses and may hold spaces:
        // state, ppid, …; utime, stime, cutime, cstime are fields 14–17 of the whole line.
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) != Some(parent) {
            continue;
        }
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        total[reaped] += Duration::from_millis(10 * (ticks(13) + ticks(14)));
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let path = task.path();
            let kind = kind_of(
                &path,
                &HARNESS_THREAD_KINDS[..reaped],
                HARNESS_THREAD_KINDS.len() - 1,
            );
            total[kind] += run_time(&path);
        }
    }
    total
}
