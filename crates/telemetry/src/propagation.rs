//! W3C Trace Context (`traceparent`, `tracestate`) in and out of `tracing` spans.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The `traceparent` naming `span`, or `None` when it is not traced (no tracer is installed, or
/// it was not sampled in).
pub fn traceparent(span: &tracing::Span) -> Option<String> {
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&span.context(), &mut carrier);
    carrier.remove("traceparent")
}

/// Makes the remote span named by `traceparent` the parent of `span`, which must not have
/// started yet (call it right after creating the span). A malformed value is ignored: the span
/// then starts a trace of its own.
pub fn adopt(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
    let mut carrier = HashMap::from([("traceparent".to_owned(), traceparent.to_owned())]);
    if let Some(state) = tracestate {
        carrier.insert("tracestate".to_owned(), state.to_owned());
    }
    let parent = TraceContextPropagator::new().extract(&carrier);
    if parent.span().span_context().is_valid() {
        // Fails only without the OpenTelemetry layer, where there is nothing to parent.
        let _ = span.set_parent(parent);
    }
}
