//! Each Turn's spans into the store, where `sessions.traces` reads them.

use std::sync::Arc;

use futures::future::BoxFuture;
use switchboard_store::Store;
use switchboard_telemetry::TurnSpanSink;

pub struct StoreTraces(pub Arc<dyn Store>);

impl TurnSpanSink for StoreTraces {
    fn keep(&self, session_id: String, turn_id: String, otlp: String) -> BoxFuture<'static, ()> {
        let store = self.0.clone();
        Box::pin(async move {
            if let Err(e) = store.append_trace(&session_id, &turn_id, &otlp).await {
                tracing::warn!(session = %session_id, turn = %turn_id, error = %e, "a Turn's spans were not stored");
            }
        })
    }
}
