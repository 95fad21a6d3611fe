//! `serve`'s Prometheus recorder: installed only when `/metrics` is served (`--metrics-token`
//! or `--metrics-listen`); every crate records through the `metrics` facade, and without a
//! recorder those records cost nothing.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use metrics_exporter_prometheus::PrometheusBuilder;
use switchboard_core::AppState;
use switchboard_core::metrics::Exposition;

/// Histogram buckets in seconds: from a store read (a millisecond) to a Turn queued for
/// minutes.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    120.0, 300.0,
];

/// How often the recorder's histogram buffers are drained between scrapes.
const UPKEEP: Duration = Duration::from_secs(5);

/// Installs the process's recorder and describes every series; the exposition `serve` hands
/// Core (`token`: the main listener's bearer, if any).
pub fn install(token: Option<String>) -> anyhow::Result<Exposition> {
    let handle = PrometheusBuilder::new()
        .set_buckets(BUCKETS)
        .context("setting the histogram buckets")?
        .install_recorder()
        .context("installing the metrics recorder")?;
    switchboard_core::metrics::describe();
    switchboard_runtime::metrics::describe();
    let upkeep = handle.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(UPKEEP);
        loop {
            tick.tick().await;
            upkeep.run_upkeep();
        }
    });
    Ok(Exposition {
        render: Arc::new(move || handle.render()),
        token,
    })
}

/// Serves `/metrics` alone on `addr` (`--metrics-listen`), returning the address bound.
pub async fn listen(addr: SocketAddr, state: Arc<AppState>) -> anyhow::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding the metrics listener {addr}"))?;
    let bound = listener.local_addr()?;
    let app = switchboard_core::metrics::listener(state);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "the metrics listener stopped");
        }
    });
    Ok(bound)
}
