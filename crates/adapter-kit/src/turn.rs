//! One running Turn: a single driver task between the harness, the caller and the clock.
//!
//! The driver owns the process's inbound channel for the Turn's duration and is the only place
//! that mutates the Turn's state (calls, messages, usage), so the harness's messages, the
//! caller's commands (results, steers, cancel), receipt timers and the deadline are handled
//! strictly in arrival order, without locks. What a message or a command means and how the Turn
//! settles is the harness's, behind [`TurnDriver`]; the loop around it is the same everywhere:
//!
//! - A per-Turn deadline guards against a Turn that never ends (a provider that never answers):
//!   the driver is asked to stop the harness ([`TurnDriver::interrupt`]; the Turn then fails
//!   with [`deadline_failure`]), and if the harness does not settle within [`INTERRUPT_GRACE`]
//!   the Turn fails `request_timeout` and the process is discarded.
//! - A process that exits during the Turn fails it `harness_exited`, and is discarded.
//! - The Turn ends with exactly one terminal event, published last and only after the process
//!   was handed back to the executor ([`Release`]), so a caller who sees the Turn end can start
//!   the next one (or evict) at once.

use std::future::Future;
use std::time::Duration;

use switchboard_protocol::messages::Usage;
use switchboard_protocol::{AdapterError, AdapterEvent, FunctionResultContent, Receipt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::Instrument;

use crate::receipts::CallTable;

/// The default per-Turn deadline.
pub const DEFAULT_TURN_DEADLINE: Duration = Duration::from_secs(15 * 60);

/// How long the harness gets to settle an interrupt sent at the deadline before its process goes.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

/// Commands a Turn's control may queue before the caller waits for the driver.
const COMMAND_BUFFER: usize = 16;

/// Handed to the executor before the terminal event is published. `done` acknowledges the
/// hand-back.
pub struct Release<I> {
    pub exit: TurnExit<I>,
    pub done: oneshot::Sender<()>,
}

/// How the driver left the process.
pub enum TurnExit<I> {
    /// The Turn settled; the process can run the next one.
    Idle(mpsc::UnboundedReceiver<I>),
    /// The process died or stopped answering; it must be discarded.
    Discard,
}

/// What the executor hands a Turn's driver: the process's inbound channel, where the Turn's
/// events go, and where the process goes back.
pub struct TurnIo<I> {
    pub inbound: mpsc::UnboundedReceiver<I>,
    pub events: mpsc::Sender<AdapterEvent>,
    pub release: oneshot::Sender<Release<I>>,
}

/// The harness's side of a running Turn.
pub trait TurnDriver: Send + 'static {
    /// What the process's reader passes on.
    type Inbound: Send + 'static;
    /// What the Turn's control asks of the driver beyond a function result and a cancel
    /// ([`std::convert::Infallible`] when nothing).
    type Command: Send + 'static;
    /// What ends the Turn (e.g. the harness's completion message).
    type Ending: Send;
    /// How a function call's answer reaches the harness.
    type Route: Clone + Send;
    /// What the harness's record of an answer must be.
    type Expected: Send;

    /// The harness's name in failure messages (`codex`, `claude`).
    const HARNESS: &'static str;

    /// Handles one message, adding the events it yields to `out`; returns the ending once the
    /// message ends the Turn.
    fn handle(
        &mut self,
        message: Self::Inbound,
        out: &mut Vec<AdapterEvent>,
    ) -> impl Future<Output = Option<Self::Ending>> + Send;

    /// Writes a function result to the harness and settles `reply` with its receipt (at once,
    /// or when the harness's record of it arrives).
    fn submit(
        &mut self,
        call_id: String,
        result: FunctionResultContent,
        reply: oneshot::Sender<Receipt>,
    ) -> impl Future<Output = ()> + Send;

    fn command(&mut self, command: Self::Command) -> impl Future<Output = ()> + Send;

    /// The Turn's function calls.
    fn calls(&mut self) -> &mut CallTable<Self::Route, Self::Expected>;

    /// What the caller and the clock asked of the Turn, for [`TurnDriver::settle`] to read.
    fn stop_requests(&mut self) -> &mut StopRequests;

    /// Asks the harness to stop the Turn, without waiting (the loop must go on draining the
    /// harness's messages meanwhile).
    fn interrupt(&self);

    /// The Turn's closing events for `ending`; the last one is terminal.
    fn settle(&mut self, ending: Self::Ending) -> Vec<AdapterEvent>;

    /// The Turn failed or stopped: messages the harness finished close, none of them a final
    /// answer; a message still streaming stays open, and Core marks it `incomplete`.
    fn close_messages(&mut self, out: &mut Vec<AdapterEvent>);

    /// The Turn's usage so far.
    fn usage(&self) -> Option<Usage>;
}

/// Starts the driver task; returns where the Turn's control sends commands.
pub fn spawn<D: TurnDriver>(
    driver: D,
    io: TurnIo<D::Inbound>,
    deadline: Duration,
) -> TurnCommands<D::Command> {
    let (commands_tx, commands_rx) = mpsc::channel(COMMAND_BUFFER);
    // In the caller's span (the Runtime's Turn span): the native exchanges join the Turn's trace.
    tokio::spawn(run(driver, io, commands_rx, Instant::now() + deadline).in_current_span());
    TurnCommands(commands_tx)
}

async fn run<D: TurnDriver>(
    mut driver: D,
    io: TurnIo<D::Inbound>,
    mut commands: mpsc::Receiver<TurnCommand<D::Command>>,
    mut deadline: Instant,
) {
    let TurnIo {
        mut inbound,
        events,
        release,
    } = io;
    let (mut closing, exit) = loop {
        let receipt_deadline = driver.calls().next_deadline();
        tokio::select! {
            message = inbound.recv() => {
                let Some(message) = message else {
                    let message = format!("The {} process exited during the Turn.", D::HARNESS);
                    break (fail(&mut driver, "harness_exited", message), TurnExit::Discard);
                };
                let mut out = Vec::new();
                let ending = driver.handle(message, &mut out).await;
                emit_all(&events, out).await;
                if let Some(ending) = ending {
                    break (driver.settle(ending), TurnExit::Idle(inbound));
                }
            }
            Some(command) = commands.recv() => match command {
                TurnCommand::Submit { call_id, result, reply } => {
                    let span = tracing::info_span!("adapter.submit", call.id = %call_id);
                    driver.submit(call_id, result, reply).instrument(span).await
                }
                TurnCommand::CancelRequested => driver.stop_requests().cancel_requested = true,
                TurnCommand::Harness(command) => driver.command(command).await,
            },
            _ = sleep_until_opt(receipt_deadline) => driver.calls().expire(Instant::now()),
            _ = tokio::time::sleep_until(deadline) => {
                if driver.stop_requests().timed_out {
                    let message = format!(
                        "The Turn exceeded its deadline and {} did not stop.",
                        D::HARNESS
                    );
                    break (fail(&mut driver, "request_timeout", message), TurnExit::Discard);
                }
                driver.stop_requests().timed_out = true;
                driver.interrupt();
                deadline = Instant::now() + INTERRUPT_GRACE;
            }
        }
    };
    // Everything but the terminal event, then the hand-back, then the terminal event.
    let terminal = closing.pop();
    emit_all(&events, closing).await;
    let (done, acknowledged) = oneshot::channel();
    if release.send(Release { exit, done }).is_ok() {
        let _ = acknowledged.await;
    }
    if let Some(terminal) = terminal {
        emit_all(&events, vec![terminal]).await;
    }
}

/// Closing events for a Turn that ends without the harness settling it; the last is terminal.
fn fail<D: TurnDriver>(driver: &mut D, code: &str, message: String) -> Vec<AdapterEvent> {
    let mut out = driver.calls().finish_events();
    driver.close_messages(&mut out);
    out.push(AdapterEvent::Failed {
        code: code.into(),
        message,
        http_status: None,
        usage: driver.usage(),
    });
    out
}

async fn emit_all(events: &mpsc::Sender<AdapterEvent>, out: Vec<AdapterEvent>) {
    for event in out {
        // A caller that dropped the stream no longer listens; the Turn still runs to its end.
        let _ = events.send(event).await;
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The terminal event of a Turn the deadline interrupted and the harness then settled.
pub fn deadline_failure(usage: Option<Usage>) -> AdapterEvent {
    AdapterEvent::Failed {
        code: "request_timeout".into(),
        message: "The Turn exceeded its deadline.".into(),
        http_status: None,
        usage,
    }
}

/// What the caller and the clock asked of a running Turn. The driver keeps it, and reads it
/// when the harness settles the Turn.
#[derive(Debug, Default, Clone, Copy)]
pub struct StopRequests {
    /// The caller cancelled the Turn.
    pub cancel_requested: bool,
    /// The deadline passed and the harness was asked to stop.
    pub timed_out: bool,
}

impl StopRequests {
    /// Whether the Turn is being stopped, by the caller or the clock.
    pub fn stopping(&self) -> bool {
        self.cancel_requested || self.timed_out
    }

    /// The terminal event of a Turn that the harness ended unsuccessfully: [`deadline_failure`]
    /// when the deadline interrupted it (even if the caller cancelled too), `Cancelled` when the
    /// caller did, else `failed(usage)`.
    pub fn stopped(
        &self,
        usage: Option<Usage>,
        failed: impl FnOnce(Option<Usage>) -> AdapterEvent,
    ) -> AdapterEvent {
        if self.timed_out {
            deadline_failure(usage)
        } else if self.cancel_requested {
            AdapterEvent::Cancelled { usage }
        } else {
            failed(usage)
        }
    }
}

/// What a Turn's control asks of its driver. `C` is what the harness adds.
pub enum TurnCommand<C> {
    /// A function result to write, answered with its receipt.
    Submit {
        call_id: String,
        result: FunctionResultContent,
        reply: oneshot::Sender<Receipt>,
    },
    /// The caller is cancelling: sent before the harness is interrupted, so the interrupted
    /// ending is read as the caller's cancel.
    CancelRequested,
    /// The harness's own command.
    Harness(C),
}

/// Where a Turn's control sends its driver commands.
pub struct TurnCommands<C>(mpsc::Sender<TurnCommand<C>>);

impl<C: Send> TurnCommands<C> {
    /// Hands a function result to the Turn's driver and waits for its receipt. The driver
    /// answers every result it takes (a delivered result's wait is settled when the Turn ends),
    /// so a result it cannot take, or a dropped reply, means the Turn ended before the result
    /// was written: the result is refused.
    pub async fn submit_function_result(
        &self,
        call_id: &str,
        result: FunctionResultContent,
    ) -> Receipt {
        let (reply, receipt) = oneshot::channel();
        let command = TurnCommand::Submit {
            call_id: call_id.to_owned(),
            result,
            reply,
        };
        if self.0.send(command).await.is_err() {
            return Receipt::refused("turn_ended", "The Turn has ended.");
        }
        receipt
            .await
            .unwrap_or_else(|_| Receipt::refused("turn_ended", "The Turn has ended."))
    }

    /// Tells the driver that the caller is cancelling ([`TurnCommand::CancelRequested`]); fails
    /// with [`AdapterError::NoActiveTurn`] once the Turn has ended.
    pub async fn request_cancel(&self) -> Result<(), AdapterError> {
        self.send_command(TurnCommand::CancelRequested).await
    }

    /// Sends the harness's own command; fails with [`AdapterError::NoActiveTurn`] once the Turn
    /// has ended.
    pub async fn send(&self, command: C) -> Result<(), AdapterError> {
        self.send_command(TurnCommand::Harness(command)).await
    }

    async fn send_command(&self, command: TurnCommand<C>) -> Result<(), AdapterError> {
        self.0
            .send(command)
            .await
            .map_err(|_| AdapterError::NoActiveTurn)
    }
}
