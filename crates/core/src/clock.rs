//! Wall-clock time as the public API counts it.

/// Seconds since the Unix epoch: the unit of every public `created_at`-style field.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
