//! Finished spans as OTLP JSON, the shape an OTLP/HTTP receiver accepts (`application/json`).

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SpanData;

/// `{"resourceSpans": […]}` for `spans`, with hex trace and span IDs, as JSON text.
///
/// Written straight from the OTLP types: going through a `serde_json::Value` first built a tree
/// of every span's attributes only to print it again, twice the work for a Turn's ~30 spans.
pub fn otlp_json(spans: Vec<SpanData>, resource: &Resource) -> Result<String, serde_json::Error> {
    let resource_spans =
        group_spans_by_resource_and_scope(spans, &ResourceAttributesWithSchema::from(resource));
    serde_json::to_string(&ExportTraceServiceRequest { resource_spans })
}
