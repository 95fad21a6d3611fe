//! What every handler shares: the store, the key cache, the secret box, the deployment's
//! settings and the Session engine.

use std::path::PathBuf;
use std::sync::Arc;

use switchboard_execution::HarnessId;
use switchboard_store::Store;

use crate::auth::KeyCache;
use crate::secrets::SecretBox;
use crate::session::Engine;

/// Deployment settings that Core needs at run time.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    pub data_dir: PathBuf,
    /// The harness a Session runs on when neither the Session nor its Agent selects one.
    pub default_harness: HarnessId,
    /// The bearer token remote Runtimes must present; `None` refuses every remote Runtime.
    pub runtime_token: Option<String>,
    /// The URL Runtimes dial to reach this Core (the enrollment command names it);
    /// `http://<listen address>` when served.
    pub public_url: String,
    /// How long input on an Environment Session waits for its Environment (5 minutes).
    pub reservation_deadline: std::time::Duration,
    /// How long a Runtime may take to prepare a Session, a wait for a process slot aside
    /// ([`PREPARATION_TIMEOUT`]; shorter only in tests).
    pub preparation_timeout: std::time::Duration,
}

pub use crate::session::engine::PREPARATION_TIMEOUT;

/// core-contracts §6.8: input on an Environment Session waits at most 5 minutes.
pub const RESERVATION_DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);

/// What every handler shares.
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub keys: KeyCache,
    /// The one `keys.epoch` watcher that ends revoked keys' streams.
    pub revocations: crate::revocation::Watcher,
    pub secrets: SecretBox,
    pub config: CoreConfig,
    pub engine: Arc<Engine>,
    /// The readiness probe's store write check.
    pub writable: crate::writable::Writability,
    /// How `/metrics` is served; `None`: it is not (`serve` without a metrics flag).
    pub metrics: Option<crate::metrics::Exposition>,
}

impl AppState {
    /// State with a fresh Session engine over `store`. `default_providers` are the deployment's
    /// model providers, at most one per protocol.
    pub fn new(
        store: Arc<dyn Store>,
        secrets: SecretBox,
        config: CoreConfig,
        default_providers: impl IntoIterator<Item = switchboard_execution::ModelProvider>,
    ) -> AppState {
        AppState {
            engine: Engine::new(
                store.clone(),
                secrets.clone(),
                default_providers.into_iter().collect(),
                crate::session::engine::EngineSettings {
                    public_url: config.public_url.clone(),
                    reservation_deadline: config.reservation_deadline,
                    preparation_timeout: config.preparation_timeout,
                },
            ),
            keys: KeyCache::new(&config.data_dir),
            revocations: crate::revocation::Watcher::new(crate::auth::epoch_path(&config.data_dir)),
            writable: crate::writable::Writability::new(&config.data_dir),
            metrics: None,
            store,
            secrets,
            config,
        }
    }
}
