//! The in-process Runtime: Core and the Runtime in one process, joined by two channels.
//!
//! No handshake is needed (both ends are the same build), and frames are never encoded: Core
//! sends [`CoreToRuntime`] envelopes and receives [`RuntimeToCore`] envelopes exactly as a
//! remote Runtime's WebSocket would carry them, so Core has one code path for both.

use std::sync::Arc;

use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use crate::frame_loop::{OUTPUT_CAPACITY, RuntimeOptions, serve_frames};
use crate::registry::Registry;
use crate::sessions::Notice;

/// Depth of the Core → Runtime channel.
const INPUT_CAPACITY: usize = 64;

/// A running in-process Runtime. Dropping `to_runtime` (or [`LocalRuntime::shutdown`]) ends it
/// and every native process it holds.
pub struct LocalRuntime {
    /// Core's side: frames for the Runtime.
    pub to_runtime: mpsc::Sender<Envelope<CoreToRuntime>>,
    /// Core's side: frames from the Runtime, heartbeats included.
    pub from_runtime: mpsc::Receiver<Envelope<RuntimeToCore>>,
    notices: broadcast::Sender<Notice>,
    task: JoinHandle<()>,
}

impl LocalRuntime {
    /// Starts the frame loop on the current tokio runtime.
    pub fn start(registry: Arc<Registry>, options: RuntimeOptions) -> LocalRuntime {
        let (to_runtime, inbound) = mpsc::channel(INPUT_CAPACITY);
        let (out, from_runtime) = mpsc::channel(OUTPUT_CAPACITY);
        let (notices, _) = broadcast::channel(64);
        let task = tokio::spawn(serve_frames(
            registry,
            options,
            inbound,
            out,
            notices.clone(),
        ));
        LocalRuntime {
            to_runtime,
            from_runtime,
            notices,
            task,
        }
    }

    /// What the Runtime does on its own (idle evictions), from now on.
    pub fn notices(&self) -> broadcast::Receiver<Notice> {
        self.notices.subscribe()
    }

    /// Core's two channels, leaving the Runtime running in the background until `to_runtime`
    /// is dropped (a server that runs until its process exits).
    pub fn into_channels(
        self,
    ) -> (
        mpsc::Sender<Envelope<CoreToRuntime>>,
        mpsc::Receiver<Envelope<RuntimeToCore>>,
    ) {
        (self.to_runtime, self.from_runtime)
    }

    /// Closes Core's side and waits until every Session's native process has ended.
    pub async fn shutdown(self) {
        let LocalRuntime {
            to_runtime,
            from_runtime,
            task,
            ..
        } = self;
        drop(to_runtime);
        // Keep receiving so a frame in flight cannot hold the loop up on a full channel.
        let drain = async move {
            let mut from_runtime = from_runtime;
            while from_runtime.recv().await.is_some() {}
        };
        tokio::select! {
            _ = task => {}
            _ = drain => {}
        }
    }
}
