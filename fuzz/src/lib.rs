//! What the targets share: the body gate as the HTTP edge runs it, and the checks every parser
//! result must pass whatever the input.

use serde_json::{Map, Value};
use switchboard_execution::ValidationError;
use switchboard_wire::BodyGate;

/// The body as a route sees it after the gate (Session create's 16 MiB limit; libFuzzer's
/// inputs are far smaller), or `None` when the gate refuses it.
pub fn gated(data: &[u8]) -> Option<Map<String, Value>> {
    BodyGate {
        limit: switchboard_wire::body::SESSION_CREATE_LIMIT,
    }
    .parse(Some("application/json"), data)
    .ok()
}

/// A parser's verdict must be a pure function of the body (retries and idempotency compare
/// re-parsed bodies), and a refusal must say what it refuses. (`param` may be empty: an
/// unknown member named `""` is reported at the path `""`.)
pub fn check_verdict<T: PartialEq + std::fmt::Debug>(
    first: &Result<T, ValidationError>,
    second: &Result<T, ValidationError>,
) {
    assert_eq!(first, second, "parsing the same body twice disagreed");
    if let Err(e) = first {
        assert!(!e.message.is_empty(), "an error without a message: {e:?}");
    }
}
