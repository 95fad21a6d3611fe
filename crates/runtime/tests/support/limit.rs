//! A Runtime bounded to a few live harness processes, and a count of the processes it really
//! holds: this test process's live children (each harness process is one).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use switchboard_protocol::configuration::HarnessId;
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions};

/// A Runtime running `harness` from `binary` with at most `max_live` harness processes.
pub fn runtime_limited(
    harness: HarnessId,
    binary: PathBuf,
    state: &Path,
    max_live: usize,
) -> LocalRuntime {
    let locator = Locator::new(state).with_explicit(harness, binary);
    let options = RuntimeOptions {
        idle_timeout: Duration::from_secs(300),
        heartbeat_interval: Duration::from_secs(30),
        max_live_harnesses: max_live,
        ..RuntimeOptions::for_data_dir(state)
    };
    LocalRuntime::start(Arc::new(Registry::standard(locator)), options)
}

/// This process's children that have not exited (zombies excluded), from `/proc`.
pub fn live_children() -> usize {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            // `pid (comm) state ppid …`; comm may hold spaces, so split after its `)`.
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next();
            let ppid = fields.next();
            ppid == Some(me.as_str()) && state != Some("Z") && state != Some("X")
        })
        .count()
}

/// Watches [`live_children`] on a thread and keeps the most seen at once.
pub struct ChildPeak {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ChildPeak {
    pub fn start() -> ChildPeak {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicUsize::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                p.fetch_max(live_children(), Ordering::SeqCst);
                // A sampling period, not a synchronisation: the peak is read at the end.
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        ChildPeak {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    /// The most live children seen so far.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst).max(live_children())
    }
}

impl Drop for ChildPeak {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
