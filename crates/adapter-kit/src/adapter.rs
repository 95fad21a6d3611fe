//! The [`Adapter`] every native harness shares: a pinned executable, a per-Turn deadline, and
//! what the harness itself adds behind [`NativeHarness`].
//!
//! Advertising (available only at the pin) and preparing (refuse a configuration the harness
//! cannot run, refuse a missing executable, then build the executor) are the same for every
//! harness; which harness it is, what it implements, what it refuses and how its executor starts
//! are the harness's.

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::{
    Adapter, AdapterError, Capabilities, HarnessAdvertisement, PrepareRequest, ProcessPlacement,
    SessionConfiguration, SessionExecutor,
};

use crate::binary::{self, PinnedBinary};
use crate::turn::DEFAULT_TURN_DEADLINE;

/// What one harness adds to [`NativeAdapter`].
#[async_trait]
pub trait NativeHarness: Send + Sync + 'static {
    /// The harness this adapter runs.
    const HARNESS: HarnessId;
    /// Its pin and how to find its executable.
    const PINNED: PinnedBinary;

    /// What this adapter implements, for the Runtime's advertisement.
    fn capabilities() -> Capabilities;

    /// Rejects what this adapter cannot run, before any process starts.
    fn validate(config: &SessionConfiguration) -> Result<(), AdapterError>;

    /// Starts the executor of a validated configuration on an executable that exists.
    async fn prepare(&self, launch: Launch) -> Result<Box<dyn SessionExecutor>, AdapterError>;
}

/// What preparing one Session's executor is given.
#[derive(Debug)]
pub struct Launch {
    pub binary: PathBuf,
    pub state_dir: PathBuf,
    pub configuration: SessionConfiguration,
    pub turn_deadline: Duration,
    /// Where every native process of the Session runs (`None`: `environment: none`). Kept by
    /// the executor, so a process started again after eviction runs in the same place.
    pub placement: Option<ProcessPlacement>,
}

/// The [`Adapter`] of the harness `H`.
#[derive(Debug, Clone)]
pub struct NativeAdapter<H> {
    binary: PathBuf,
    turn_deadline: Duration,
    harness: H,
}

impl<H: NativeHarness + Default> NativeAdapter<H> {
    /// The adapter on the executable at `binary`, with the harness's default settings.
    pub fn new(binary: PathBuf) -> Self {
        Self::with_harness(binary, H::default())
    }
}

impl<H: NativeHarness> NativeAdapter<H> {
    /// The adapter on the executable at `binary`, with the harness's settings `harness`.
    pub fn with_harness(binary: PathBuf, harness: H) -> Self {
        NativeAdapter {
            binary,
            turn_deadline: DEFAULT_TURN_DEADLINE,
            harness,
        }
    }

    /// Sets the per-Turn deadline (a Turn still running then is interrupted and fails).
    pub fn with_turn_deadline(mut self, deadline: Duration) -> Self {
        self.turn_deadline = deadline;
        self
    }

    /// What this adapter implements, for the Runtime's advertisement.
    pub fn capabilities() -> Capabilities {
        H::capabilities()
    }

    /// The executable every process of this adapter runs.
    pub fn binary(&self) -> &std::path::Path {
        &self.binary
    }

    /// The harness's own settings.
    pub fn native(&self) -> &H {
        &self.harness
    }

    /// The [`Launch`] of a Session's executor, after the checks every preparation makes (the
    /// configuration is one the harness can run, the executable exists).
    pub fn launch(&self, request: PrepareRequest) -> Result<Launch, AdapterError> {
        H::validate(&request.configuration)?;
        binary::require(&self.binary)?;
        Ok(Launch {
            binary: self.binary.clone(),
            state_dir: request.state_dir,
            configuration: request.configuration,
            turn_deadline: self.turn_deadline,
            placement: request.placement,
        })
    }
}

#[async_trait]
impl<H: NativeHarness> Adapter for NativeAdapter<H> {
    fn harness(&self) -> HarnessId {
        H::HARNESS
    }

    async fn advertise(&self) -> HarnessAdvertisement {
        H::PINNED
            .advertise(H::HARNESS, &self.binary, H::capabilities())
            .await
    }

    async fn prepare(
        &self,
        request: PrepareRequest,
    ) -> Result<Box<dyn SessionExecutor>, AdapterError> {
        let launch = self.launch(request)?;
        self.harness.prepare(launch).await
    }
}
