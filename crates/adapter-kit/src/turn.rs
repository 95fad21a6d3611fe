//! One running Turn: a single driver task between the harness, the caller and the clock.
//!
//! The driver owns the process's inbound channel for the Turn's duration and is the only place
//! that mutates the Turn's state (calls, messages, usage), so the harness's messages, the
//! caller's commands (results, steers, cancel), receipt timers and the deadline are handled
//! strictly in arrival order, without locks. What a message or a command means and how the Turn
//! settles is the harness's, behind [`TurnDriver`]; the loop around it is the same everywhere:
//!
//! - A per-Turn deadline guards against a Turn that never ends (a provider that never answers):
//!   the driver is asked to stop the harness ([`TurnDriver::on_deadline`]; the Turn then fails
//!   with [`deadline_failure`]), and if the harness does not settle within [`INTERRUPT_GRACE`]
//!   the Turn fails `request_timeout` and the process is discarded.
//! - A process that exits during the Turn fails it `harness_exited`, and is discarded.
//! - The Turn ends with exactly one terminal event, published last and only after the process
//!   was handed back to the executor ([`Release`]), so a caller who sees the Turn end can start
//!   the next one (or evict) at once.

use std::future::Future;
use std::time::Duration;

use switchboard_protocol::messages::Usage;
use switchboard_protocol::{AdapterEvent, Receipt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

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
    /// What the Turn's control asks of the driver.
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

    fn command(&mut self, command: Self::Command) -> impl Future<Output = ()> + Send;

    /// The Turn's function calls.
    fn calls(&mut self) -> &mut CallTable<Self::Route, Self::Expected>;

    /// The deadline passed: remember it and ask the harness to stop, without waiting (the loop
    /// must go on draining the harness's messages meanwhile).
    fn on_deadline(&mut self);

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
) -> mpsc::Sender<D::Command> {
    let (commands_tx, commands_rx) = mpsc::channel(COMMAND_BUFFER);
    tokio::spawn(run(driver, io, commands_rx, Instant::now() + deadline));
    commands_tx
}

async fn run<D: TurnDriver>(
    mut driver: D,
    io: TurnIo<D::Inbound>,
    mut commands: mpsc::Receiver<D::Command>,
    mut deadline: Instant,
) {
    let TurnIo {
        mut inbound,
        events,
        release,
    } = io;
    let mut timed_out = false;
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
            Some(command) = commands.recv() => driver.command(command).await,
            _ = sleep_until_opt(receipt_deadline) => driver.calls().expire(Instant::now()),
            _ = tokio::time::sleep_until(deadline) => {
                if timed_out {
                    let message = format!(
                        "The Turn exceeded its deadline and {} did not stop.",
                        D::HARNESS
                    );
                    break (fail(&mut driver, "request_timeout", message), TurnExit::Discard);
                }
                timed_out = true;
                driver.on_deadline();
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

/// The terminal event of a Turn that the harness ended unsuccessfully: [`deadline_failure`] when
/// the deadline interrupted it (even if the caller cancelled too), `Cancelled` when the caller
/// did, else `failed(usage)`.
pub fn stopped(
    timed_out: bool,
    cancel_requested: bool,
    usage: Option<Usage>,
    failed: impl FnOnce(Option<Usage>) -> AdapterEvent,
) -> AdapterEvent {
    if timed_out {
        deadline_failure(usage)
    } else if cancel_requested {
        AdapterEvent::Cancelled { usage }
    } else {
        failed(usage)
    }
}

/// Hands a function result to the Turn's driver as `command` and waits for its receipt. The
/// driver answers every command it takes (a delivered result's wait is settled when the Turn
/// ends), so a command it cannot take, or a dropped reply, means the Turn ended before the
/// result was written: the result is refused.
pub async fn submit<C>(
    commands: &mpsc::Sender<C>,
    command: impl FnOnce(oneshot::Sender<Receipt>) -> C,
) -> Receipt {
    let (reply, receipt) = oneshot::channel();
    if commands.send(command(reply)).await.is_err() {
        return Receipt::refused("turn_ended", "The Turn has ended.");
    }
    receipt
        .await
        .unwrap_or_else(|_| Receipt::refused("turn_ended", "The Turn has ended."))
}
