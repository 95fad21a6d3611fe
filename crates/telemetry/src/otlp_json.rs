//! Finished spans as OTLP JSON, the shape an OTLP/HTTP receiver accepts (`application/json`).

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SpanData;
use serde_json::Value;

/// `{"resourceSpans": […]}` for `spans`, with hex trace and span IDs.
pub fn otlp_json(spans: Vec<SpanData>, resource: &Resource) -> Result<Value, serde_json::Error> {
    let resource_spans =
        group_spans_by_resource_and_scope(spans, &ResourceAttributesWithSchema::from(resource));
    serde_json::to_value(ExportTraceServiceRequest { resource_spans })
}
