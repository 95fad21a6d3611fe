//! One CPU of its own for a harness process that works best on one.
//!
//! An adapter asks for it per process ([`Cpus::One`]). The process is then confined to a single
//! CPU from its first instruction: it is started from a thread confined to that CPU for the
//! moment of the spawn ([`CpuLease::confining`]), and a new process inherits its parent
//! thread's affinity, so every thread it starts has it too, and a runtime it builds sizes itself
//! to that CPU (tokio's default worker count follows the affinity). Why codex asks: a
//! `codex app-server` on one CPU spent 7–30 % less CPU per prepared Turn than one free to move
//! between two (`docs/benchmarks.md`, sessions 25 and 26).
//!
//! The kernel no longer balances a confined process, so the adapter kit spreads them itself:
//! each takes the allowed CPU (of the spawning thread's affinity, the Runtime's) that holds the
//! fewest confined processes, ties going round the CPUs in turn ([`choose`]). A process holds
//! its CPU as long as its [`HarnessChild`](crate::process::HarnessChild) is held: until it is
//! ended, or dropped once the process is found gone. With fewer than two allowed CPUs there is
//! nothing to choose and nothing is set.
//!
//! Whatever a confined process starts shares its CPU, so only an adapter whose process starts
//! little of its own should ask: a harness that runs the model's commands in a workspace, or one
//! process that hosts many Sessions' Turns at once, keeps every CPU.

use std::sync::{Mutex, MutexGuard, PoisonError};

use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

/// Which CPUs a harness process may run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cpus {
    /// Every CPU the Runtime may use (the kernel balances it).
    Any,
    /// One of them, chosen by [`choose`].
    One,
}

/// Confined processes per CPU, indexed by CPU number, and where the next tie starts.
struct Load {
    processes: Vec<u32>,
    next: usize,
}

static LOAD: Mutex<Load> = Mutex::new(Load {
    processes: Vec::new(),
    next: 0,
});

fn load() -> MutexGuard<'static, Load> {
    // Every change under the lock is a single step, so a poisoned lock holds consistent counts.
    LOAD.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The CPU among `allowed` with the fewest confined processes (`processes[cpu]`, none when
/// past its end), the first such from `next` on, round to the start; `None` when `allowed` is
/// empty.
fn choose(allowed: &CpuSet, processes: &[u32], next: usize) -> Option<usize> {
    let start = next % CpuSet::MAX_CPU;
    (start..CpuSet::MAX_CPU)
        .chain(0..start)
        .filter(|&cpu| allowed.is_set(cpu))
        .min_by_key(|&cpu| processes.get(cpu).copied().unwrap_or(0))
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
        let allowed = sched_getaffinity(None).ok()?;
        if allowed.count() < 2 {
            return None;
        }
        let mut load = load();
        let cpu = choose(&allowed, &load.processes, load.next)?;
        if load.processes.len() <= cpu {
            load.processes.resize(cpu + 1, 0);
        }
        load.processes[cpu] += 1;
        load.next = cpu + 1;
        Some(CpuLease { cpu })
    }

    /// Runs `spawn` on the calling thread confined to this lease's CPU, so that the process it
    /// starts inherits that affinity, then gives the thread its own back. (Setting it in the
    /// child before `exec` instead would make the standard library fork the whole Runtime
    /// rather than use `posix_spawn`.) If the thread cannot be confined, the process runs
    /// anywhere, which is only slower.
    pub(crate) fn confining<T>(&self, spawn: impl FnOnce() -> T) -> T {
        let Ok(own) = sched_getaffinity(None) else {
            return spawn();
        };
        let mut one = CpuSet::new();
        one.set(self.cpu);
        let confined = sched_setaffinity(None, &one).is_ok();
        let spawned = spawn();
        if confined {
            let _ = sched_setaffinity(None, &own);
        }
        spawned
    }
}

impl Drop for CpuLease {
    fn drop(&mut self) {
        if let Some(count) = load().processes.get_mut(self.cpu) {
            *count = count.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(cpus: &[usize]) -> CpuSet {
        let mut set = CpuSet::new();
        for &cpu in cpus {
            set.set(cpu);
        }
        set
    }

    #[test]
    fn the_least_loaded_allowed_cpu_is_chosen() {
        let allowed = set(&[0, 1, 2]);
        assert_eq!(choose(&allowed, &[2, 1, 2], 0), Some(1));
        // A CPU past the counts holds none.
        assert_eq!(choose(&allowed, &[1, 1], 0), Some(2));
        // One not allowed is never chosen, however idle.
        assert_eq!(choose(&set(&[1, 3]), &[0, 5, 0, 6], 0), Some(1));
        assert_eq!(choose(&CpuSet::new(), &[], 0), None);
    }

    #[test]
    fn ties_go_round_the_cpus_from_next() {
        let allowed = set(&[0, 2, 5]);
        assert_eq!(choose(&allowed, &[], 0), Some(0));
        assert_eq!(choose(&allowed, &[], 1), Some(2));
        assert_eq!(choose(&allowed, &[], 3), Some(5));
        // Past the last allowed CPU, round to the first; past the set's end too.
        assert_eq!(choose(&allowed, &[], 6), Some(0));
        assert_eq!(choose(&allowed, &[], CpuSet::MAX_CPU + 2), Some(2));
    }

    #[test]
    fn the_spawning_thread_is_confined_for_the_spawn_then_gets_its_own_back() {
        let own = sched_getaffinity(None).unwrap();
        let Some(cpu) = (0..CpuSet::MAX_CPU).rev().find(|&c| own.is_set(c)) else {
            return;
        };
        let lease = CpuLease { cpu };
        let inside = lease.confining(|| sched_getaffinity(None).unwrap());
        assert_eq!(inside.count(), 1);
        assert!(inside.is_set(cpu));
        let after = sched_getaffinity(None).unwrap();
        assert_eq!(after.count(), own.count());
        std::mem::forget(lease); // built by hand: it counted nothing
    }
}
