//! The application: the route table and the readiness probe.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::get;
use serde_json::{Value, json};
use switchboard_execution::HarnessId;
use switchboard_protocol::HarnessState;

use crate::edge;
use crate::routes;
use crate::state::AppState;

/// The full route table.
pub fn router(state: Arc<AppState>) -> Router {
    let v1 = Router::new()
        .merge(routes::agents::routes())
        .merge(routes::sessions::routes())
        .merge(routes::subagents::routes())
        .merge(routes::vaults::routes())
        .merge(routes::environments::routes())
        .fallback(edge::not_found)
        .method_not_allowed_fallback(|m: Method, u: Uri| async move {
            edge::method_not_allowed("/v1", &m, &u)
        })
        // Inside authentication: a Session another replica holds is answered there.
        .layer(from_fn_with_state(state.clone(), crate::forward::to_holder))
        .layer(from_fn_with_state(state.clone(), edge::beta_and_auth));
    Router::new()
        .nest("/v1", v1)
        .merge(crate::runtime_link::routes())
        .merge(crate::metrics::routes())
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .merge(crate::inspect::routes())
        .fallback(edge::not_found)
        .method_not_allowed_fallback(|m: Method, u: Uri| async move {
            edge::method_not_allowed("", &m, &u)
        })
        // The body gate applies its own per-route limits; axum's default would answer 413 in
        // the wrong shape.
        .layer(DefaultBodyLimit::disable())
        // Outermost but the request ID: every answer is counted, the edge's refusals too.
        .layer(from_fn(crate::metrics::track_http))
        .layer(from_fn(edge::request_id))
        .layer(from_fn(crate::trace_context::request_span))
        .with_state(state)
}

/// 200 once the store can be written (a probe, see [`crate::writable`]) and at least one harness is usable
/// on a Runtime that counts (the local one, or with none attached any remote one); 503 before.
/// Either way the body lists every declared harness with its pinned version and state
/// (`available`, `installing`, `missing`, `failed: <reason>`); a harness no Runtime advertises
/// is `missing`. A store that cannot be written adds `"store": {"writable": false, "reason": …}`.
async fn readyz(State(state): State<Arc<AppState>>) -> (StatusCode, Json<Value>) {
    let states = state.engine.links.harness_states();
    let by_name: HashMap<String, HarnessState> = states
        .into_iter()
        .filter_map(|(h, s)| Some((serde_json::to_value(h).ok()?.as_str()?.to_owned(), s)))
        .collect();
    let harnesses: Vec<Value> = HarnessId::ALL
        .iter()
        .map(|h| {
            let state = by_name.get(h.as_str()).unwrap_or(&HarnessState::Missing);
            json!({
                "harness": h.as_str(),
                "pinned_version": switchboard_harness::declaration(*h).native.version,
                "state": state.to_string(),
            })
        })
        .collect();
    let writable = state.writable.check(state.store.as_ref()).await;
    let ready = writable.is_ok() && by_name.values().any(|s| *s == HarnessState::Available);
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let mut body =
        json!({ "status": if ready { "ready" } else { "not_ready" }, "harnesses": harnesses });
    if let (Err(reason), Some(obj)) = (writable, body.as_object_mut()) {
        obj.insert(
            "store".into(),
            json!({ "writable": false, "reason": reason }),
        );
    }
    (status, Json(body))
}
