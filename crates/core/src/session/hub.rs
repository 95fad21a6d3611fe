//! The SSE hub: live Session events, fanned out to every open stream.
//!
//! Events are serialized once, under the Session lock, in commit order, and broadcast to the
//! Session's subscribers. Nothing is kept for replay: a stream starts at the next event
//! (agents-api-wire §8.2, "live only"). A subscriber that falls more than [`BUFFER`] events
//! behind never slows the publisher or anyone else; it receives an `error` event with code
//! `stream_interrupted` and its stream ends (core-contracts §8).
//!
//! On PostgreSQL every event carries its Session's `seq`, and events reach the hub two ways:
//! the holder's own commits, and other replicas' commits read back from the event rows
//! (`session::feed`). Each channel remembers the last `seq` it published and skips anything not
//! greater, so a stream never sees an event twice or out of order, whichever way came first.
//! On SQLite (one process) events carry no `seq` and are all published as they come.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::sync::lock;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures::Stream;
use serde_json::{Value, json};
use switchboard_wire::ids::{IdKind, new_id};
use tokio::sync::broadcast;

use crate::json_text::push_object_led_by;

/// Events a subscriber may lag behind before it is cut off.
pub const BUFFER: usize = 256;
/// A comment line every this often keeps proxies and clients from timing the stream out.
pub const KEEPALIVE: Duration = Duration::from_secs(15);

/// One published event: its type (for stream end rules), its serialized JSON, and its
/// Session's `seq` where events are kept as rows (PostgreSQL).
#[derive(Debug, Clone)]
pub struct Published {
    pub kind: Arc<str>,
    pub json: Arc<str>,
    pub seq: Option<u64>,
}

impl Published {
    pub fn new(event: &Value) -> Published {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        Published::text(kind, crate::json_text::json_text(event))
    }

    /// An event already rendered as JSON text.
    pub fn text(kind: &str, json: String) -> Published {
        Published {
            kind: kind.into(),
            json: json.into(),
            seq: None,
        }
    }

    /// An event as stored in its row (`session_events`), with its `seq`.
    pub fn stored(kind: &str, json: &str, seq: u64) -> Published {
        Published {
            kind: kind.into(),
            json: json.into(),
            seq: Some(seq),
        }
    }

    /// The frame text for a reader: with a random `obfuscation` member unless the reader
    /// opted out (`include_obfuscation=false`). The padding varies frame lengths so that
    /// sizes on the wire do not reveal the text of short deltas. A `data:` line only: once a
    /// frame has an `id:` line, the SDK turns a comment-only block into an empty event and
    /// fails (agents-api-wire §8.1).
    fn frame(&self, obfuscate: bool) -> Bytes {
        // One buffer of the frame's final size: an event carries a whole Session object, its
        // agent's instructions and tools included, so copies and regrowth add up.
        let json = &*self.json;
        let mut frame = String::with_capacity(json.len() + FRAME_OVERHEAD);
        frame.push_str("data: ");
        let padded = obfuscate && {
            use rand::Rng;
            let mut rng = rand::rng();
            // On the stack: a frame is built per reader per event.
            let mut pad = [0u8; MAX_PAD];
            let pad = &mut pad[..rng.random_range(1..=MAX_PAD)];
            pad.iter_mut()
                .for_each(|b| *b = rng.sample(rand::distr::Alphanumeric));
            let pad = std::str::from_utf8(pad).unwrap_or_default();
            let member = ["\"obfuscation\":\"", pad, "\""];
            push_object_led_by(&mut frame, &member, json)
        };
        if !padded {
            frame.push_str(json);
        }
        frame.push_str("\n\n");
        Bytes::from(frame)
    }
}

/// The longest `obfuscation` padding.
const MAX_PAD: usize = 24;
/// What a frame adds to its event's JSON: `data: `, the padding member, the blank line.
const FRAME_OVERHEAD: usize = "data: ".len() + "{\"obfuscation\":\"\",".len() + MAX_PAD + 2;

/// A stream's subscription: the channel's receiver, and the `seq` it starts after (events at
/// or before it were committed before the stream began, so it skips them).
pub struct Subscription {
    rx: broadcast::Receiver<Published>,
    after: Option<u64>,
}

impl Subscription {
    /// A subscription that ends after the events given to the stream up front.
    pub fn closed() -> Subscription {
        Subscription {
            rx: broadcast::channel(1).1,
            after: None,
        }
    }
}

/// One Session's channel and the last `seq` published on it.
struct Channel {
    tx: broadcast::Sender<Published>,
    last: u64,
}

#[derive(Default)]
pub struct Hub {
    channels: Mutex<HashMap<String, Channel>>,
}

impl Hub {
    /// Subscribes to a Session's events from now on (events carry no `seq`: SQLite).
    pub fn subscribe(&self, session_id: &str) -> Subscription {
        self.subscribe_after(session_id, 0)
    }

    /// Subscribes to a Session's events after `seq` (its last committed one). A new channel
    /// starts there, so rows read back later begin after it.
    pub fn subscribe_after(&self, session_id: &str, seq: u64) -> Subscription {
        let mut channels = lock(&self.channels);
        let channel = channels
            .entry(session_id.to_owned())
            .or_insert_with(|| Channel {
                tx: broadcast::channel(BUFFER).0,
                last: seq,
            });
        Subscription {
            rx: channel.tx.subscribe(),
            after: (seq > 0).then_some(seq),
        }
    }

    /// Publishes one event. One whose `seq` is not greater than the last published on its
    /// Session's channel was published already (or began before every stream) and is skipped.
    pub fn publish(&self, session_id: &str, event: Published) {
        let mut channels = lock(&self.channels);
        let Some(channel) = channels.get_mut(session_id) else {
            return;
        };
        if let Some(seq) = event.seq {
            if seq <= channel.last {
                return;
            }
            channel.last = seq;
        }
        if channel.tx.send(event).is_err() {
            // Nobody listens: drop the channel so idle Sessions hold no memory.
            channels.remove(session_id);
        }
    }

    /// The last `seq` published to a Session's streams, while it has any.
    pub fn last(&self, session_id: &str) -> Option<u64> {
        let channels = lock(&self.channels);
        channels
            .get(session_id)
            .filter(|c| c.tx.receiver_count() > 0)
            .map(|c| c.last)
    }

    /// Every Session with open streams (to re-read after a lost notification connection).
    pub fn followed(&self) -> Vec<String> {
        let channels = lock(&self.channels);
        channels
            .iter()
            .filter(|(_, c)| c.tx.receiver_count() > 0)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Ends every stream (server shutdown).
    pub fn close_all(&self) {
        lock(&self.channels).clear();
    }

    /// Ends every stream of a deleted Session.
    pub fn close(&self, session_id: &str) {
        lock(&self.channels).remove(session_id);
    }
}

impl Subscription {
    /// The next event after the subscription's start.
    async fn next(&mut self) -> Result<Published, broadcast::error::RecvError> {
        loop {
            let event = self.rx.recv().await?;
            if self.wants(&event) {
                return Ok(event);
            }
        }
    }

    /// The next event already published, if any (without waiting).
    pub fn try_next(&mut self) -> Option<Published> {
        while let Ok(event) = self.rx.try_recv() {
            if self.wants(&event) {
                return Some(event);
            }
        }
        None
    }

    fn wants(&self, event: &Published) -> bool {
        !matches!((event.seq, self.after), (Some(seq), Some(after)) if seq <= after)
    }
}

/// When a stream ends on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// `GET …/events`: spans Turns; ends only when the Session is deleted or the reader lags.
    Never,
    /// `stream: true` on create: after the first `agent.session.idle` that follows a finished
    /// Turn, or after `agent.session.failed`.
    AfterTurn,
}

/// The `text/event-stream` response for a subscription. Headers go out at once: the SDK's
/// `sessions.stream()` waits for them before it posts input (agents-api-wire §8.1).
pub fn sse_response(
    status: StatusCode,
    session_id: String,
    first: Option<Published>,
    rx: Subscription,
    end: StreamEnd,
    obfuscate: bool,
) -> Response {
    let body = Body::from_stream(frames(session_id, first, rx, end, obfuscate));
    let mut resp = Response::new(body);
    *resp.status_mut() = status;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

/// Counts an open stream in the subscribers gauge for as long as it lives.
struct Subscribed;

impl Subscribed {
    fn new() -> Subscribed {
        metrics::gauge!(crate::metrics::SSE_SUBSCRIBERS).increment(1.0);
        Subscribed
    }
}

impl Drop for Subscribed {
    fn drop(&mut self) {
        metrics::gauge!(crate::metrics::SSE_SUBSCRIBERS).decrement(1.0);
    }
}

struct Reader {
    _subscribed: Subscribed,
    session_id: String,
    first: Option<Published>,
    rx: Subscription,
    end: StreamEnd,
    obfuscate: bool,
    turn_finished: bool,
    done: bool,
}

fn frames(
    session_id: String,
    first: Option<Published>,
    rx: Subscription,
    end: StreamEnd,
    obfuscate: bool,
) -> impl Stream<Item = Result<Bytes, Infallible>> {
    let reader = Reader {
        _subscribed: Subscribed::new(),
        session_id,
        first,
        rx,
        end,
        obfuscate,
        turn_finished: false,
        done: false,
    };
    futures::stream::unfold(reader, |mut r| async move {
        if r.done {
            return None;
        }
        if let Some(first) = r.first.take() {
            return Some((Ok(first.frame(r.obfuscate)), r));
        }
        let next = tokio::time::timeout(KEEPALIVE, r.rx.next()).await;
        let event = match next {
            // A comment line without a blank line: safe for the SDK's parser (§8.1).
            Err(_) => return Some((Ok(Bytes::from_static(b":\n")), r)),
            Ok(Ok(event)) => event,
            Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                r.done = true;
                metrics::counter!(crate::metrics::SSE_INTERRUPTED).increment(1);
                let error = json!({
                    "event_id": new_id(IdKind::Event),
                    "type": "error",
                    "session_id": r.session_id,
                    "error": {
                        "type": "server_error",
                        "code": "stream_interrupted",
                        "message": "The event stream fell too far behind and was closed. Resubscribe, then read the Session, its Turns and Items.",
                        "param": null,
                    },
                });
                return Some((Ok(Published::new(&error).frame(r.obfuscate)), r));
            }
        };
        if r.end == StreamEnd::AfterTurn {
            match &*event.kind {
                "agent.session.turn.completed"
                | "agent.session.turn.failed"
                | "agent.session.turn.cancelled" => r.turn_finished = true,
                "agent.session.idle" if r.turn_finished => r.done = true,
                "agent.session.failed" => r.done = true,
                _ => {}
            }
        }
        Some((Ok(event.frame(r.obfuscate)), r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON of a `data:` frame, checked to be one `data:` line and a blank line.
    fn data(frame: &Bytes) -> Value {
        let text = std::str::from_utf8(frame).unwrap();
        let json = text
            .strip_prefix("data: ")
            .unwrap()
            .strip_suffix("\n\n")
            .unwrap();
        assert!(!json.contains('\n'), "{text}");
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_frame_is_the_event_with_padding_unless_the_reader_opted_out() {
        let event = json!({"type": "agent.session.idle", "text": "é \"q\"\n", "n": 1.50});
        let published = Published::new(&event);
        let plain = published.frame(false);
        assert_eq!(
            &plain[..],
            format!("data: {}\n\n", published.json).as_bytes()
        );

        for event in [event, json!({})] {
            let padded = data(&Published::new(&event).frame(true));
            let Value::Object(mut members) = padded else {
                panic!("an object")
            };
            let pad = members.shift_remove("obfuscation").unwrap();
            let pad = pad.as_str().unwrap();
            assert!((1..=MAX_PAD).contains(&pad.len()), "{pad}");
            assert!(pad.chars().all(|c| c.is_ascii_alphanumeric()), "{pad}");
            assert_eq!(Value::Object(members), event);
        }
    }
}
