//! The application: shared state, configuration and the route table.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::get;
use switchboard_execution::HarnessId;
use switchboard_store::Store;

use crate::edge;
use crate::routes;
use crate::secrets::SecretBox;

/// Deployment settings that Core needs at run time.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    pub data_dir: PathBuf,
    /// The harness a Session runs on when neither the Session nor its Agent selects one.
    pub default_harness: HarnessId,
}

/// What every handler shares.
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub keys: crate::auth::KeyCache,
    pub secrets: SecretBox,
    pub config: CoreConfig,
}

/// The full route table.
pub fn router(state: Arc<AppState>) -> Router {
    let v1 = Router::new()
        .merge(routes::agents::routes())
        .fallback(edge::not_found)
        .layer(from_fn_with_state(state.clone(), edge::beta_and_auth));
    Router::new()
        .nest("/v1", v1)
        .route("/healthz", get(|| async { "ok" }))
        .fallback(edge::not_found)
        // The body gate applies its own per-route limits; axum's default would answer 413 in
        // the wrong shape.
        .layer(DefaultBodyLimit::disable())
        .layer(from_fn(edge::request_id))
        .with_state(state)
}
