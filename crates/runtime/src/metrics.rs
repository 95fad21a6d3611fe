//! The Runtime's own figures, recorded through the `metrics` facade (the process that runs the
//! Runtime decides whether anything collects them: `serve` exports them on `/metrics`).

/// Sessions whose native harness process is resident, by harness.
pub const HARNESS_PROCESSES: &str = "switchboard_harness_processes";
/// Idle Sessions' processes ended to free a slot or after their idle timeout, by harness.
pub const HARNESS_EVICTIONS: &str = "switchboard_harness_evictions_total";
/// Turns that relaunched an evicted Session's process (the native resume), by harness.
pub const HARNESS_RESUMES: &str = "switchboard_harness_resumes_total";

/// The `# HELP` lines of the Runtime's series.
pub fn describe() {
    metrics::describe_gauge!(
        HARNESS_PROCESSES,
        "Sessions whose native harness process is resident, by harness."
    );
    metrics::describe_counter!(
        HARNESS_EVICTIONS,
        "Idle Sessions' harness processes ended (LRU or idle timeout), by harness."
    );
    metrics::describe_counter!(
        HARNESS_RESUMES,
        "Turns that relaunched an evicted Session's harness process, by harness."
    );
}
