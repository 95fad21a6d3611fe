"""Shared helpers for the Session streaming, cancel and execution-option tests: reading event
streams as plain dicts, the canonical event sequences of agents-api-wire.md §8.2, raw SSE frame
reading, and journal helpers for what the harness sent to the mock model."""

import json
import urllib.request

from conftest import API_KEY

# ---------------------------------------------------------------------------------------------
# Event type names (agents-api-wire.md §8).

CREATED = "agent.session.created"
S_IN_PROGRESS = "agent.session.in_progress"
S_REQUIRES_ACTION = "agent.session.requires_action"
S_IDLE = "agent.session.idle"
S_FAILED = "agent.session.failed"
T_CREATED = "agent.session.turn.created"
T_IN_PROGRESS = "agent.session.turn.in_progress"
T_COMPLETED = "agent.session.turn.completed"
T_FAILED = "agent.session.turn.failed"
T_CANCELLED = "agent.session.turn.cancelled"
ITEM_ADDED = "agent.session.turn.item.added"
ITEM_DONE = "agent.session.turn.item.done"
PART_ADDED = "agent.session.turn.content_part.added"
PART_DONE = "agent.session.turn.content_part.done"
TEXT_DELTA = "agent.session.turn.output_text.delta"
TEXT_DONE = "agent.session.turn.output_text.done"

TURN_END = (T_COMPLETED, T_FAILED, T_CANCELLED)


def new_turn_prefix():
    """turn.created → user item.added → session.in_progress → turn.in_progress (§8.2)."""
    return [T_CREATED, ITEM_ADDED, S_IN_PROGRESS, T_IN_PROGRESS]


def assistant_message(deltas: int):
    """item.added → content_part.added → n × output_text.delta → output_text.done →
    content_part.done → item.done (§8.2)."""
    return [ITEM_ADDED, PART_ADDED] + [TEXT_DELTA] * deltas + [TEXT_DONE, PART_DONE, ITEM_DONE]


def function_call_round_trip():
    """item.added(function_call) → item.done → requires_action → (result admitted)
    session.in_progress → (result applied) item.added(function_call_output)."""
    return [ITEM_ADDED, ITEM_DONE, S_REQUIRES_ACTION, S_IN_PROGRESS, ITEM_ADDED]


def function_call_turn(final_deltas: int):
    """A whole Turn in which the model calls one function, then answers in `final_deltas` deltas."""
    return new_turn_prefix() + function_call_round_trip() + assistant_message(final_deltas) + [T_COMPLETED, S_IDLE]


def text_turn(deltas: int):
    """A whole Turn in which the model only answers text."""
    return new_turn_prefix() + assistant_message(deltas) + [T_COMPLETED, S_IDLE]


# ---------------------------------------------------------------------------------------------
# Reading streams.


def as_dicts(events):
    """SDK event models as the JSON the server sent (unset fields stay absent)."""
    return [e.to_dict() for e in events]


def types_of(events):
    return [e["type"] for e in events]


def read_turn(stream, on_event=None):
    """Reads a live stream (SDK `events.stream`, or any iterable of SDK events) until the
    `agent.session.idle` that follows the end of the first Turn seen, and returns the events as
    dicts. `on_event(dict)` runs for each event before the next one is read."""
    events = []
    turn_id = None
    ended = False
    for event in stream:
        d = event.to_dict()
        events.append(d)
        if d["type"] == T_CREATED and turn_id is None:
            turn_id = d["turn_id"]
        if d["type"] in TURN_END and d.get("turn_id") == turn_id:
            ended = True
        if on_event is not None:
            on_event(d)
        if d["type"] == S_FAILED or (d["type"] == S_IDLE and ended):
            return events
    raise AssertionError(f"the stream ended before the Turn went idle: {types_of(events)}")


def assert_unique_event_ids(events):
    ids = [e["event_id"] for e in events]
    assert all(isinstance(i, str) and i for i in ids), ids
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, duplicates


def item_events(events, kind=None):
    """item.added / item.done events (optionally only one of them)."""
    kinds = (kind,) if kind else (ITEM_ADDED, ITEM_DONE)
    return [e for e in events if e["type"] in kinds]


def assert_items_done_only_for_outputs(events):
    """item.done carries only output items, each exactly once, after its item.added with the
    same id and output_index; input items (user message, function_call_output) only ever appear
    in item.added, with output_index null (§7, §8)."""
    added = item_events(events, ITEM_ADDED)
    done = item_events(events, ITEM_DONE)
    for e in added:
        item = e["item"]
        is_input = item["type"] == "function_call_output" or (item["type"] == "message" and item["role"] == "user")
        if is_input:
            assert e["output_index"] is None, e
        else:
            assert isinstance(e["output_index"], int), e
    outputs_added = [e for e in added if e["output_index"] is not None]
    assert sorted(e["item"]["id"] for e in done) == sorted(e["item"]["id"] for e in outputs_added), (added, done)
    position = {id(e): i for i, e in enumerate(events)}
    for d in done:
        assert isinstance(d["output_index"], int), d
        # The output Item types this server publishes (§7 lists which types item.done carries).
        assert d["item"]["type"] in ("message", "function_call", "web_search_call", "mcp_call"), d
        if d["item"]["type"] == "message":
            assert d["item"]["role"] == "assistant", d
        a = next(e for e in outputs_added if e["item"]["id"] == d["item"]["id"])
        assert a["output_index"] == d["output_index"], (a, d)
        assert position[id(a)] < position[id(d)], (a, d)


def message_text_events(events, item_id):
    """(deltas, output_text.done text, content_part.done text) of one assistant message."""
    deltas = [e for e in events if e["type"] == TEXT_DELTA and e["item_id"] == item_id]
    done = [e for e in events if e["type"] == TEXT_DONE and e["item_id"] == item_id]
    part_done = [e for e in events if e["type"] == PART_DONE and e["item_id"] == item_id]
    assert len(done) == 1 and len(part_done) == 1, (done, part_done)
    return deltas, done[0]["text"], part_done[0]["part"]["text"]


def cancel_after(events, predicate, engine):
    """Iterates a creation stream to its end; POSTs a cancel when `predicate(event)` first holds.
    Returns the events as dicts, the cancel response and the index of the event it followed."""
    seen = []
    cancel_response = None
    at = None
    for event in events:
        d = event.to_dict()
        seen.append(d)
        if cancel_response is None and predicate(d):
            cancel_response = post_events(engine, seen[0]["session"]["id"], CANCEL)
            at = len(seen) - 1
    assert cancel_response is not None, types_of(seen)
    return seen, cancel_response, at


def assert_cancel_accepted(response):
    status, _, body = response
    assert (status, body) == (202, None)


def assert_ends_cancelled(tail, session_id):
    """What follows a cancel of a running Turn: turn.cancelled then agent.session.idle, after at
    most a Session in_progress (a Session that asked for cancellation no longer requires
    action), whose snapshot lists no required action. Returns the cancelled Turn's ID."""
    kinds = types_of(tail)
    assert kinds in ([T_CANCELLED, S_IDLE], [S_IN_PROGRESS, T_CANCELLED, S_IDLE]), kinds
    if kinds[0] == S_IN_PROGRESS:
        assert tail[0]["session"]["required_actions"] == [], tail[0]
    cancelled = tail[-2]
    assert cancelled["session_id"] == session_id
    assert cancelled["turn"]["status"] == "cancelled" and cancelled["turn"]["error"] is None
    assert cancelled["turn"]["completed_at"] is not None
    assert "usage" in cancelled
    idle = tail[-1]["session"]
    assert idle["status"] == "idle" and idle["required_actions"] == []
    return cancelled["turn_id"]


# ---------------------------------------------------------------------------------------------
# Input events.


def user_message(text: str):
    return {"type": "agent.session.input.message", "input": [{"role": "user", "content": [{"type": "input_text", "text": text}]}]}


CANCEL = {"type": "agent.session.input.cancel"}


def tool_result(action, output: str, success: bool = True):
    """A tool_result event for a required action (SDK model or dict)."""
    get = action.get if isinstance(action, dict) else lambda k: getattr(action, k)
    return {
        "type": "agent.session.input.tool_result",
        "turn_id": get("turn_id"),
        "call_id": get("call_id"),
        "success": success,
        "output": output,
    }


def post_events(engine, session_id: str, *events):
    """POST …/events through the raw helper: (status, headers, body)."""
    return engine.raw.request("POST", f"/agents/sessions/{session_id}/events", {"events": list(events)})


# ---------------------------------------------------------------------------------------------
# Raw SSE.


def open_event_stream(base_url: str, session_id: str, timeout: float = 10.0, headers=None):
    """GET …/events with urllib. `urlopen` returns once the status line and headers arrived, so
    the timeout bounds how long the server may hold them back."""
    h = {"OpenAI-Beta": "agents=v1", "Authorization": f"Bearer {API_KEY}", "Accept": "text/event-stream"}
    h.update(headers or {})
    req = urllib.request.Request(f"{base_url}/agents/sessions/{session_id}/events", headers=h)
    return urllib.request.urlopen(req, timeout=timeout)


def parse_frames(raw: bytes):
    """Splits SSE bytes into frames, each a list of its lines. Comment-only blocks are kept."""
    text = raw.decode("utf-8")
    assert text.endswith("\n\n") or text == "", text[-200:]
    return [block.split("\n") for block in text.split("\n\n") if block]


def read_frames_until(response, stop, frames=None):
    """Reads a live urllib SSE response line by line; returns (raw bytes, frames as JSON dicts)
    once `stop(frame, frames_so_far)` is true for the frame that just ended. Given `frames`, the
    frames read are appended to it (a stream read in several steps)."""
    raw = b""
    current = []
    frames = [] if frames is None else frames
    while True:
        line = response.readline()
        assert line, f"the stream closed early after {types_of(frames)}"
        raw += line
        if line == b"\n":
            data = [l for l in current if l.startswith(b"data:")]
            current = []
            if data:
                frame = json.loads(b"\n".join(l[5:].strip() for l in data))
                frames.append(frame)
                if stop(frame, frames):
                    return raw, frames
        else:
            current.append(line.rstrip(b"\n"))


def assert_plain_data_frames(raw: bytes):
    """Every frame is `data: <json>` lines only: no `id:` line anywhere (agents-api-wire.md
    §8.1: an `id:` line makes the SDK choke on later keepalives), comments allowed."""
    for frame in parse_frames(raw):
        for line in frame:
            assert not line.startswith("id:"), frame
            assert line.startswith("data: ") or line.startswith(":") or line.startswith("event:"), frame
        data = [l for l in frame if l.startswith("data: ")]
        if not data:
            assert all(l.startswith(":") for l in frame), frame
            continue
        body = json.loads("\n".join(l[len("data: "):] for l in data))
        assert isinstance(body["type"], str) and isinstance(body["event_id"], str), body


# ---------------------------------------------------------------------------------------------
# The mock model's journal.


def model_requests(engine, since: int = 0):
    """Model requests (Responses) the harness sent, after the first `since` journal entries."""
    return [e for e in engine.journal()[since:] if e["path"] == "/v1/responses"]


def tool_named(tools, name):
    matches = [t for t in tools if t.get("name") == name]
    assert len(matches) <= 1, matches
    return matches[0] if matches else None


def tools_of_type(tools, kind):
    return [t for t in tools if t.get("type") == kind]
