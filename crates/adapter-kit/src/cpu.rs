//! One CPU of its own for a harness process that works best on one.
//!
//! An adapter asks for it per process ([`Cpus::One`]). The process is then confined to a single
//! CPU from its first instruction (its affinity is set between fork and exec, so every thread it
//! starts inherits it), and a runtime it builds sizes itself to that CPU (tokio's default worker
//! count follows the affinity). Why codex asks: a `codex app-server` on one CPU spent 67–70 ms of
//! CPU per prepared Turn against 75–96 ms free to move between two, and left the other CPU to the
//! Runtime beside it (`docs/benchmarks.md`, sessions 25 and 26).
//!
//! The kernel no longer balances a confined process, so the Runtime spreads them itself: each
//! takes the allowed CPU (of the Runtime's own affinity) that holds the fewest live confined
//! processes, ties going round the CPUs in turn, and gives it back when the process ends
//! ([`CpuLease`], held by the [`HarnessChild`](crate::process::HarnessChild)). With fewer than
//! two allowed CPUs there is nothing to choose and nothing is set.
//!
//! Only a process that runs nothing but itself should ask: whatever it starts inherits the one
//! CPU, so a harness that runs the model's commands in a workspace, or one process that hosts
//! many Sessions, keeps every CPU.

use std::sync::{Mutex, PoisonError};

use rustix::thread::CpuSet;

/// Which CPUs a harness process may run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cpus {
    /// Every CPU the Runtime may use (the kernel balances it).
    Any,
    /// One of them, chosen by [`CpuLease::take`].
    One,
}

/// Live confined processes per CPU, indexed by CPU number, and where the next tie starts.
struct Load {
    processes: Vec<u32>,
    next: usize,
}

static LOAD: Mutex<Load> = Mutex::new(Load {
    processes: Vec::new(),
    next: 0,
});

fn load() -> std::sync::MutexGuard<'static, Load> {
    // The counts stay consistent under a panic elsewhere: every change is one statement.
    LOAD.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One confined process's CPU, counted until the lease is dropped.
#[derive(Debug)]
pub(crate) struct CpuLease {
    cpu: usize,
}

impl CpuLease {
    /// The least loaded of the CPUs the calling thread may run on, or `None` when it may run on
    /// fewer than two (or its affinity cannot be read).
    pub(crate) fn take() -> Option<CpuLease> {
        let allowed = rustix::thread::sched_getaffinity(None).ok()?;
        if allowed.count() < 2 {
            return None;
        }
        let mut load = load();
        let Load { processes, next } = &mut *load;
        let cpus = CpuSet::MAX_CPU;
        let start = *next % cpus;
        let cpu = (start..cpus)
            .chain(0..start)
            .filter(|&cpu| allowed.is_set(cpu))
            .min_by_key(|&cpu| processes.get(cpu).copied().unwrap_or(0))?;
        if processes.len() <= cpu {
            processes.resize(cpu + 1, 0);
        }
        processes[cpu] += 1;
        *next = cpu + 1;
        Some(CpuLease { cpu })
    }

    /// The affinity that confines a process to it.
    pub(crate) fn set(&self) -> CpuSet {
        let mut set = CpuSet::new();
        set.set(self.cpu);
        set
    }
}

impl Drop for CpuLease {
    fn drop(&mut self) {
        if let Some(count) = load().processes.get_mut(self.cpu) {
            *count = count.saturating_sub(1);
        }
    }
}
