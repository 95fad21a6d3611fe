//! The tracer provider behind the `tracing` layer.
//!
//! Spans of Switchboard's own crates (targets `switchboard*`, level INFO and above) become
//! OpenTelemetry spans. They always reach [`TurnSpans`] (for `sessions.traces`); with an OTLP
//! endpoint they are also batched to it over OTLP/HTTP with JSON bodies. Without one no exporter
//! is built.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::registry::LookupSpan;

use crate::turns::TurnSpans;

#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("building the OTLP exporter for {endpoint}: {source}")]
    Exporter {
        endpoint: String,
        source: opentelemetry_otlp::ExporterBuildError,
    },
}

/// The installed tracing pipeline; [`Telemetry::shutdown`] flushes what is still batched.
pub struct Telemetry {
    provider: SdkTracerProvider,
    turns: TurnSpans,
}

impl Telemetry {
    /// `otlp_endpoint` is the collector's base URL (`http://host:4318`): spans are posted to
    /// `{otlp_endpoint}/v1/traces`, as OTLP/HTTP defines.
    pub fn new(otlp_endpoint: Option<&str>) -> Result<Telemetry, TelemetryError> {
        let turns = TurnSpans::new();
        let mut builder = SdkTracerProvider::builder()
            .with_resource(Resource::builder().with_service_name("switchboard").build())
            .with_span_processor(turns.clone());
        if let Some(endpoint) = otlp_endpoint {
            let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_protocol(Protocol::HttpJson)
                .with_endpoint(url)
                .build()
                .map_err(|source| TelemetryError::Exporter {
                    endpoint: endpoint.to_owned(),
                    source,
                })?;
            builder = builder.with_batch_exporter(exporter);
        }
        Ok(Telemetry {
            provider: builder.build(),
            turns,
        })
    }

    /// The `tracing` layer that turns Switchboard's spans into OpenTelemetry spans.
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("switchboard"))
            // The target names the module; file, line and thread add bulk to every stored span.
            .with_location(false)
            .with_threads(false)
            // Busy and idle times cost two clock reads on every poll of every instrumented
            // future, and nothing reads them; nothing reads the active OpenTelemetry context
            // either (propagation takes a span's own context, `propagation`), and activating it
            // on every enter was a context clone and a thread-local push per poll.
            .with_tracked_inactivity(false)
            .with_context_activation(false)
            .with_filter(Targets::new().with_target("switchboard", tracing::Level::INFO))
    }

    /// Where each Turn's spans are gathered for `sessions.traces`.
    pub fn turns(&self) -> &TurnSpans {
        &self.turns
    }

    /// Installs the process's global subscriber as `serve` runs it: log lines on stderr
    /// (filtered by `SWITCHBOARD_LOG`, default `default_log`) and, with a pipeline, its layer.
    /// Benches install the same one, so what they measure includes the per-request spans.
    pub fn install(telemetry: Option<&Telemetry>, default_log: &str) {
        use std::io::IsTerminal;
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        let log = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            // Colours only on a terminal: a log file or journal gets plain text.
            .with_ansi(std::io::stderr().is_terminal())
            .with_filter(
                tracing_subscriber::EnvFilter::try_from_env("SWITCHBOARD_LOG")
                    .unwrap_or_else(|_| default_log.into()),
            );
        tracing_subscriber::registry()
            .with(log)
            .with(telemetry.map(|t| t.layer()))
            .init();
    }

    /// Ends export: spans still batched are sent (blocking; call it outside the async runtime).
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!(error = %e, "flushing traces at shutdown");
        }
    }
}
