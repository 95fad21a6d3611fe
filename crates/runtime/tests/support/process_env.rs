//! Setting this process's environment from a test. It is sound only while no other test shares
//! the process: nextest runs every test in its own process, where `cargo test` would run a
//! binary's tests on threads of one. So a test that sets a variable checks its runner first.

/// Sets `name` to `value` for the rest of this process, after checking that this test has the
/// process to itself. Call it before the test starts any thread that reads the environment.
pub fn set(name: &str, value: impl AsRef<std::ffi::OsStr>) {
    assert_eq!(
        std::env::var("NEXTEST_EXECUTION_MODE").as_deref(),
        Ok("process-per-test"),
        "this test sets the process's environment: run it with `cargo nextest run`"
    );
    // SAFETY: this test is alone in its process (checked above) and calls this before starting
    // any thread that reads the environment.
    unsafe { std::env::set_var(name, value) };
}
