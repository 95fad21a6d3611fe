//! Traces: spans of `tracing` carried into OpenTelemetry.
//!
//! - [`propagation`]: the W3C `traceparent` of a span, and a span adopting one as its parent
//!   (an incoming request's, or the `execution_start` frame's on the Runtime).
//! - [`pipeline`]: the tracer provider behind the `tracing` layer: OTLP/HTTP (JSON) export when
//!   an endpoint is configured, and each Turn's spans handed to a [`TurnSpanSink`] for
//!   `sessions.traces`.
//! - [`otlp_json`]: finished spans as OTLP JSON (`{"resourceSpans": […]}`).
//!
//! Span attributes use the spec's vocabulary: `session.id`, `turn.id`, `call.id`, `harness`.

pub mod otlp_json;
pub mod pipeline;
pub mod propagation;
mod turns;

pub use pipeline::{Telemetry, TelemetryError};
pub use propagation::{adopt, traceparent};
pub use turns::{TurnSpanSink, TurnSpans};

/// The span that stands for a whole Turn; every span under it belongs to that Turn.
pub const TURN_SPAN: &str = "turn";
