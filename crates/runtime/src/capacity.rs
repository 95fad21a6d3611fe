//! How many live harness processes a Runtime keeps by default, how many it starts at once, and
//! how many threads run the async work of a process that hosts them.
//!
//! A resident `codex app-server` costs about 22 MB of private memory and a Claude Code process
//! more; a Turn's tools and model traffic add to it. The default budgets
//! [`BUDGET_PER_PROCESS`] per process out of the memory available when the Runtime starts
//! (`MemAvailable` in `/proc/meminfo`), kept between [`FLOOR`] and [`CEILING`]: a small machine
//! still runs a few Sessions at once, and a large one does not spawn thousands of processes
//! before anything else pushes back. When the memory cannot be read the floor applies.

/// Memory set aside for one live harness process.
pub const BUDGET_PER_PROCESS: u64 = 128 * 1024 * 1024;
/// The fewest live processes a default allows.
pub const FLOOR: usize = 4;
/// The most live processes a default allows.
pub const CEILING: usize = 1024;

/// Warm processes ([`crate::warm`]) by default on a machine that fits fewer than
/// [`WARM_TWO_FROM`] live processes, and on one that fits more.
pub const WARM_DEFAULT: [usize; 2] = [1, 2];
/// The live-process bound from which two warm processes are kept.
pub const WARM_TWO_FROM: usize = 16;

/// Harness processes started at once per core by default.
pub const LAUNCHES_PER_CORE: usize = 2;

/// The default `RuntimeOptions::max_concurrent_launches`: [`LAUNCHES_PER_CORE`] per core the
/// process may use, at least 2.
pub fn default_concurrent_launches() -> usize {
    cores().saturating_mul(LAUNCHES_PER_CORE).max(2)
}

/// The cores this process may use (1 when that cannot be read).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The default number of threads that run the async work (Core's requests and Sessions, the
/// Runtime, the adapters) of a process whose harness processes share its machine's `cores`:
/// half of them, at least one.
///
/// The harness processes are where a Turn's CPU goes (a `codex app-server` takes more than one
/// core of a two-core machine for a Turn), while a Turn costs Core a few milliseconds of it. On
/// tokio's default, one thread per core, the threads hand each other the Turn's tasks: on two
/// cores a prepared Codex Turn cost this process 82 context switches against 47 on one thread,
/// 0.7–1.2 ms more CPU, and the harness 0.7–3.1 ms more of its own, which it waited for
/// (`docs/benchmarks.md`, session 20). A process that runs no harness (`serve
/// --no-local-runtime`) keeps tokio's default.
pub fn worker_threads_beside_harnesses(cores: usize) -> usize {
    (cores / 2).max(1)
}

/// [`worker_threads_beside_harnesses`] for the cores this process may use.
pub fn default_worker_threads_beside_harnesses() -> usize {
    worker_threads_beside_harnesses(cores())
}

/// The default `--max-live-harnesses` for this machine.
pub fn default_max_live_harnesses() -> usize {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_available(&text));
    from_available(available)
}

/// The default `--warm-harnesses` for this machine under a `max_live` bound: one warm
/// process, two where memory fits [`WARM_TWO_FROM`] live ones, always leaving a slot for a
/// Session (none under a bound of 1).
pub fn default_warm_harnesses(max_live: usize) -> usize {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_available(&text));
    warm_for(from_available(available), max_live)
}

/// The warm default when memory fits `fits` live processes and the bound is `max_live`.
pub fn warm_for(fits: usize, max_live: usize) -> usize {
    let warm = WARM_DEFAULT[usize::from(fits >= WARM_TWO_FROM)];
    warm.min(max_live.saturating_sub(1))
}

/// The default for `available` bytes of memory (`None`: unknown).
pub fn from_available(available: Option<u64>) -> usize {
    let Some(bytes) = available else {
        return FLOOR;
    };
    let fits = usize::try_from(bytes / BUDGET_PER_PROCESS).unwrap_or(CEILING);
    fits.clamp(FLOOR, CEILING)
}

/// `MemAvailable` (falling back to `MemTotal`) in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let field = |name: &str| {
        meminfo.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            let kib: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
            kib.checked_mul(1024)
        })
    };
    field("MemAvailable").or_else(|| field("MemTotal"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_divides_available_memory_within_bounds() {
        let meminfo =
            "MemTotal:       24684000 kB\nMemFree:  1000 kB\nMemAvailable:   23615488 kB\n";
        let available = mem_available(meminfo);
        assert_eq!(available, Some(23_615_488 * 1024));
        assert_eq!(from_available(available), 180);
        assert_eq!(mem_available("MemTotal: 2048 kB\n"), Some(2048 * 1024));
        assert_eq!(from_available(Some(100 * 1024 * 1024)), FLOOR);
        assert_eq!(from_available(Some(u64::MAX)), CEILING);
        assert_eq!(from_available(None), FLOOR);
    }

    #[test]
    fn harness_hosts_run_on_half_their_cores() {
        assert_eq!(worker_threads_beside_harnesses(1), 1);
        assert_eq!(worker_threads_beside_harnesses(2), 1);
        assert_eq!(worker_threads_beside_harnesses(3), 1);
        assert_eq!(worker_threads_beside_harnesses(16), 8);
    }

    #[test]
    fn the_warm_default_is_small_and_leaves_a_slot() {
        assert_eq!(warm_for(180, 180), 2);
        assert_eq!(warm_for(FLOOR, FLOOR), 1);
        assert_eq!(warm_for(180, 2), 1);
        assert_eq!(warm_for(180, 1), 0);
    }
}
