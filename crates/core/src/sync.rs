//! Core's in-memory maps behind `std` mutexes.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, ignoring poisoning: every critical section on these maps is a single insert,
/// remove or read, so a panic elsewhere cannot leave one half-changed, and refusing the lock
/// would only turn one panic into many.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
