//! Function calls of a Turn and the application receipts of their results.
//!
//! A call is *pending* from the moment the harness asks for it until the caller's result answers
//! it. Writing that answer to the harness proves nothing on its own: the harness may have given
//! up on the call (an interrupted Turn), or recorded something other than what was sent. So an
//! answered call waits here, at most [`RECEIPT_WAIT`], for the harness's own record of the result
//! in the live Turn that made the call. The receipt is *confirmed* only when that record is
//! exactly the submission (each adapter decides what "exactly" means for its harness); a
//! different record, the wait running out, or the Turn ending first leaves it *unconfirmed*, and
//! nothing is ever resent (core-contracts §3.3).
//!
//! An unconfirmed wait is not the end of the call: the result stays a required action until
//! native application or the Turn's end (execution-tools "Required actions"), so a matching
//! record that arrives after the wait ran out is still reported, as a late application.
//!
//! A pending call is *abandoned* when the harness records a result for it without ours, drops
//! the request, or the Turn ends first; a result for it is then refused as `call_abandoned`. A
//! result for an unknown, answered or settled call is refused without touching anything.

use std::collections::HashMap;
use std::time::Duration;

use switchboard_protocol::adapter::CALL_ABANDONED;
use switchboard_protocol::{AdapterEvent, Receipt};
use tokio::sync::oneshot;
use tokio::time::Instant;

/// How long a result waits for its native record (core-contracts §3.3).
pub const RECEIPT_WAIT: Duration = Duration::from_secs(10);

/// The reasons of unconfirmed receipts, in the harness's own words.
#[derive(Debug, Clone, Copy)]
pub struct Wording {
    /// The harness recorded a different result.
    pub different: &'static str,
    /// [`RECEIPT_WAIT`] passed without a record.
    pub no_record: &'static str,
    /// The Turn ended before a record.
    pub turn_ended: &'static str,
}

/// What the Turn reports about a change in a call's state.
#[derive(Debug, PartialEq, Eq)]
pub enum CallChange {
    /// The result was observed applied.
    Applied { call_id: String },
    /// The result was observed applied after its receipt went out unconfirmed.
    LateApplied { call_id: String },
    /// The call stopped being answerable without a result.
    Abandoned { call_id: String },
}

impl CallChange {
    pub fn into_event(self) -> AdapterEvent {
        match self {
            CallChange::Applied { call_id } => AdapterEvent::FunctionResultApplied { call_id },
            CallChange::LateApplied { call_id } => {
                AdapterEvent::LateFunctionResultApplied { call_id }
            }
            CallChange::Abandoned { call_id } => AdapterEvent::CallAbandoned { call_id },
        }
    }
}

enum CallState<R, E> {
    /// Asked, not answered yet; `R` says where to send the answer.
    Pending(R),
    /// Answered; waiting for the harness's record, which must match `expected`.
    Answered {
        expected: E,
        waiter: oneshot::Sender<Receipt>,
        deadline: Instant,
    },
    /// Answered, and the receipt already went out unconfirmed ([`RECEIPT_WAIT`] ran out): a
    /// matching record still counts, as a late application.
    Late { expected: E },
    /// Abandoned by the harness before any result: a result is refused as `call_abandoned`.
    Abandoned,
    /// Settled (confirmed, or unconfirmed for good): no further result is accepted.
    Settled,
}

struct Call<R, E> {
    name: String,
    state: CallState<R, E>,
}

/// The function calls of one Turn, by call id. `R` routes an answer to the harness; `E` is what
/// the harness's record of the answer must be.
pub struct CallTable<R, E> {
    calls: HashMap<String, Call<R, E>>,
    /// Registration order, so abandonment is reported in the order calls were made.
    order: Vec<String>,
    wording: Wording,
}

impl<R: Clone, E> CallTable<R, E> {
    pub fn new(wording: Wording) -> Self {
        CallTable {
            calls: HashMap::new(),
            order: Vec::new(),
            wording,
        }
    }

    /// Records a call of the function `name`. Must run before the call is published, so that it
    /// is answerable the moment the caller sees it.
    pub fn register(&mut self, call_id: &str, name: &str, route: R) {
        self.order.push(call_id.to_owned());
        self.calls.insert(
            call_id.to_owned(),
            Call {
                name: name.to_owned(),
                state: CallState::Pending(route),
            },
        );
    }

    /// The route to answer and the function's name, or why the result cannot be delivered.
    pub fn begin_answer(&self, call_id: &str) -> Result<(R, String), Receipt> {
        let Some(call) = self.calls.get(call_id) else {
            return Err(Receipt::refused(
                "unknown_call",
                "No pending call with this id in the Turn.",
            ));
        };
        match &call.state {
            CallState::Pending(route) => Ok((route.clone(), call.name.clone())),
            CallState::Answered { .. } | CallState::Late { .. } => Err(Receipt::refused(
                "already_answered",
                "The call already has a result.",
            )),
            CallState::Abandoned => Err(Receipt::refused(
                CALL_ABANDONED,
                "The harness abandoned the call.",
            )),
            CallState::Settled => Err(Receipt::refused(
                "call_settled",
                "The call is no longer pending.",
            )),
        }
    }

    /// The answer was written; the receipt arrives on `waiter`.
    pub fn answered(&mut self, call_id: &str, expected: E, waiter: oneshot::Sender<Receipt>) {
        if let Some(call) = self.calls.get_mut(call_id) {
            call.state = CallState::Answered {
                expected,
                waiter,
                deadline: Instant::now() + RECEIPT_WAIT,
            };
        }
    }

    /// Writing the answer failed: the result was not delivered, and the call is settled.
    pub fn undelivered(&mut self, call_id: &str) {
        if let Some(call) = self.calls.get_mut(call_id) {
            call.state = CallState::Settled;
        }
    }

    /// The harness recorded a result for `call_id` in this Turn; `matches(name, expected)` says
    /// whether the record is exactly the answer. A pending call is abandoned (the result is not
    /// ours), an answered one confirmed or unconfirmed, a late one applied late or settled.
    pub fn observe(
        &mut self,
        call_id: &str,
        matches: impl FnOnce(&str, &E) -> bool,
    ) -> Option<CallChange> {
        let call = self.calls.get_mut(call_id)?;
        match std::mem::replace(&mut call.state, CallState::Settled) {
            CallState::Pending(_) => {
                call.state = CallState::Abandoned;
                Some(CallChange::Abandoned {
                    call_id: call_id.to_owned(),
                })
            }
            CallState::Late { expected } => {
                matches(&call.name, &expected).then(|| CallChange::LateApplied {
                    call_id: call_id.to_owned(),
                })
            }
            CallState::Answered {
                expected, waiter, ..
            } => {
                if matches(&call.name, &expected) {
                    let _ = waiter.send(Receipt::Confirmed);
                    Some(CallChange::Applied {
                        call_id: call_id.to_owned(),
                    })
                } else {
                    let _ = waiter.send(Receipt::Unconfirmed {
                        reason: self.wording.different.into(),
                    });
                    None
                }
            }
            state @ (CallState::Settled | CallState::Abandoned) => {
                call.state = state;
                None
            }
        }
    }

    /// The harness gave up on an answered call (its record is a failure that is not the
    /// answer: an MCP client timed the call out before the answer reached it). The call is
    /// abandoned, its receipt refused as `call_abandoned`; `None` when the call is not answered
    /// or `recorded(name, expected)` says the record is the answer after all.
    pub fn abandon_answered(
        &mut self,
        call_id: &str,
        recorded: impl FnOnce(&str, &E) -> bool,
    ) -> Option<CallChange> {
        let call = self.calls.get_mut(call_id)?;
        let (CallState::Answered { expected, .. } | CallState::Late { expected }) = &call.state
        else {
            return None;
        };
        if recorded(&call.name, expected) {
            return None;
        }
        if let CallState::Answered { waiter, .. } =
            std::mem::replace(&mut call.state, CallState::Abandoned)
        {
            let _ = waiter.send(Receipt::refused(
                CALL_ABANDONED,
                "The harness abandoned the call.",
            ));
        }
        Some(CallChange::Abandoned {
            call_id: call_id.to_owned(),
        })
    }

    /// The harness dropped the request routed by `route`: the call still pending under it is
    /// abandoned.
    pub fn abandon_pending(&mut self, route: impl Fn(&R) -> bool) -> Option<CallChange> {
        let (call_id, call) = self
            .calls
            .iter_mut()
            .find(|(_, call)| matches!(&call.state, CallState::Pending(r) if route(r)))?;
        call.state = CallState::Abandoned;
        Some(CallChange::Abandoned {
            call_id: call_id.clone(),
        })
    }

    /// The earliest receipt deadline, for the Turn's timer.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.calls
            .values()
            .filter_map(|call| match &call.state {
                CallState::Answered { deadline, .. } => Some(*deadline),
                _ => None,
            })
            .min()
    }

    /// Reports every wait whose deadline passed as unconfirmed; the call stays answered
    /// ([`CallState::Late`]) until its record or the Turn's end.
    pub fn expire(&mut self, now: Instant) {
        for call in self.calls.values_mut() {
            let due =
                matches!(&call.state, CallState::Answered { deadline, .. } if *deadline <= now);
            if !due {
                continue;
            }
            if let CallState::Answered {
                expected, waiter, ..
            } = std::mem::replace(&mut call.state, CallState::Settled)
            {
                let _ = waiter.send(Receipt::Unconfirmed {
                    reason: self.wording.no_record.into(),
                });
                call.state = CallState::Late { expected };
            }
        }
    }

    /// The Turn ended: waits become unconfirmed and unanswered calls are abandoned (returned in
    /// call order).
    pub fn finish(&mut self) -> Vec<String> {
        let mut abandoned = Vec::new();
        for call_id in &self.order {
            let Some(call) = self.calls.get_mut(call_id) else {
                continue;
            };
            match std::mem::replace(&mut call.state, CallState::Settled) {
                CallState::Pending(_) => {
                    call.state = CallState::Abandoned;
                    abandoned.push(call_id.clone());
                }
                CallState::Answered { waiter, .. } => {
                    let _ = waiter.send(Receipt::Unconfirmed {
                        reason: self.wording.turn_ended.into(),
                    });
                }
                CallState::Abandoned => call.state = CallState::Abandoned,
                CallState::Late { .. } | CallState::Settled => {}
            }
        }
        abandoned
    }

    /// [`CallTable::finish`] as the Turn's closing events.
    pub fn finish_events(&mut self) -> Vec<AdapterEvent> {
        self.finish()
            .into_iter()
            .map(|call_id| AdapterEvent::CallAbandoned { call_id })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDING: Wording = Wording {
        different: "different",
        no_record: "no record",
        turn_ended: "ended",
    };

    #[tokio::test]
    async fn confirms_only_a_matching_record() {
        let mut table = CallTable::new(WORDING);
        table.register("c1", "f", 0);
        assert_eq!(table.begin_answer("c1").unwrap(), (0, "f".to_owned()));
        let (tx, rx) = oneshot::channel();
        table.answered("c1", "ok", tx);
        assert!(table.begin_answer("c1").is_err());
        assert_eq!(
            table.observe("c1", |name, expected| name == "f" && *expected == "ok"),
            Some(CallChange::Applied {
                call_id: "c1".into()
            })
        );
        assert_eq!(rx.await.unwrap(), Receipt::Confirmed);
        assert_eq!(table.observe("c1", |_, _| true), None);
    }

    #[tokio::test]
    async fn a_different_record_is_unconfirmed() {
        let mut table = CallTable::new(WORDING);
        table.register("c1", "f", 0);
        let (tx, rx) = oneshot::channel();
        table.answered("c1", "ok", tx);
        assert_eq!(table.observe("c1", |_, _| false), None);
        assert_eq!(
            rx.await.unwrap(),
            Receipt::Unconfirmed {
                reason: "different".into()
            }
        );
    }

    #[tokio::test]
    async fn waits_expire_and_the_end_abandons_pending_calls_in_order() {
        let mut table = CallTable::new(WORDING);
        table.register("c2", "f", 2);
        table.register("c1", "f", 1);
        table.register("c3", "f", 3);
        let (tx, rx) = oneshot::channel();
        table.answered("c3", "ok", tx);
        let deadline = table.next_deadline().unwrap();
        table.expire(deadline - Duration::from_millis(1));
        table.expire(deadline);
        assert_eq!(
            rx.await.unwrap(),
            Receipt::Unconfirmed {
                reason: "no record".into()
            }
        );
        assert_eq!(table.next_deadline(), None);
        assert_eq!(table.finish(), vec!["c2".to_owned(), "c1".to_owned()]);
        assert!(matches!(
            table.begin_answer("c1"),
            Err(Receipt::Refused { code, .. }) if code == CALL_ABANDONED
        ));
        // The Turn ended: a record of the late result no longer counts.
        assert_eq!(table.observe("c3", |_, _| true), None);
    }

    #[tokio::test]
    async fn a_record_after_the_wait_ran_out_is_a_late_application() {
        let mut table = CallTable::new(WORDING);
        table.register("c1", "f", 1);
        table.register("c2", "f", 2);
        let (tx1, rx1) = oneshot::channel();
        table.answered("c1", "ok", tx1);
        let (tx2, _rx2) = oneshot::channel();
        table.answered("c2", "ok", tx2);
        table.expire(table.next_deadline().unwrap());
        assert!(matches!(rx1.await.unwrap(), Receipt::Unconfirmed { .. }));
        // Still answered: no second result is taken.
        assert!(matches!(
            table.begin_answer("c1"),
            Err(Receipt::Refused { code, .. }) if code == "already_answered"
        ));
        assert_eq!(
            table.observe("c1", |_, expected| *expected == "ok"),
            Some(CallChange::LateApplied {
                call_id: "c1".into()
            })
        );
        assert_eq!(table.observe("c1", |_, _| true), None);
        // A different late record settles the call without an application.
        assert_eq!(table.observe("c2", |_, _| false), None);
        assert_eq!(table.observe("c2", |_, _| true), None);
    }

    #[tokio::test]
    async fn a_failed_record_of_an_answered_call_abandons_it() {
        let mut table = CallTable::new(WORDING);
        table.register("c1", "f", 0);
        let (tx, rx) = oneshot::channel();
        table.answered("c1", "ok", tx);
        assert_eq!(table.abandon_answered("c1", |_, e| *e == "ok"), None);
        assert_eq!(
            table.abandon_answered("c1", |_, _| false),
            Some(CallChange::Abandoned {
                call_id: "c1".into()
            })
        );
        assert!(matches!(
            rx.await.unwrap(),
            Receipt::Refused { code, .. } if code == CALL_ABANDONED
        ));
        assert_eq!(table.observe("c1", |_, _| true), None);
        table.register("c2", "f", 0);
        assert_eq!(table.abandon_answered("c2", |_, _| false), None);
    }

    #[test]
    fn a_dropped_request_abandons_its_pending_call() {
        let mut table: CallTable<i32, ()> = CallTable::new(WORDING);
        table.register("c1", "f", 7);
        assert_eq!(
            table.abandon_pending(|r| *r == 7),
            Some(CallChange::Abandoned {
                call_id: "c1".into()
            })
        );
        assert_eq!(table.abandon_pending(|r| *r == 7), None);
        assert!(matches!(
            table.begin_answer("c1"),
            Err(Receipt::Refused { code, .. }) if code == CALL_ABANDONED
        ));
        assert!(matches!(
            table.begin_answer("nope"),
            Err(Receipt::Refused { code, .. }) if code == "unknown_call"
        ));
    }
}
