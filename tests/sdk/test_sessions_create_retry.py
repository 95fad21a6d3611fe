"""Session create under an `Idempotency-Key` (core-contracts §2.3 step 2): the same key and body
return the same Session, also to ten concurrent requests; a different body or a deleted Session
is 409 `idempotency_conflict`; a key outside 1–128 bytes or only whitespace is 400. A retried
`stream: true` create streams that Session: `agent.session.created` with the Session as it is
now, then live events until its Turn ends (at once when none is running)."""

import json
import threading
import urllib.request

import openai
import pytest

from conftest import API_KEY, WEATHER_FUNCTION, error_of
from session_support import (
    sessions_raw,
    tool_result,
    post_events,
    turns_raw,
    wait_idle,
    wait_required_actions,
)

IDEMPOTENCY_CONFLICT = {
    "message": "This idempotency key was used with different input.",
    "type": "conflict_error",
    "param": None,
    "code": "idempotency_conflict",
}

ECHO = {"environment": {"type": "none"}, "agent": {"model": "gpt-test"}, "input": "Hello"}


def create_raw(engine, body, key):
    return engine.raw.request("POST", "/agents/sessions", body=body, headers={"Idempotency-Key": key})


def stream_create(engine, body, key):
    """A `stream: true` create with urllib: the open response (status and headers read)."""
    req = urllib.request.Request(
        engine.server.base_url + "/agents/sessions",
        data=json.dumps({**body, "stream": True}).encode(),
        method="POST",
        headers={
            "OpenAI-Beta": "agents=v1",
            "Authorization": f"Bearer {API_KEY}",
            "Content-Type": "application/json",
            "Idempotency-Key": key,
        },
    )
    return urllib.request.urlopen(req, timeout=60)


def next_event(response):
    """The next `data:` frame as JSON, or None when the stream ended."""
    data = []
    while True:
        line = response.readline()
        if not line:
            return None
        if line == b"\n":
            if data:
                return json.loads(b"".join(data))
            continue
        if line.startswith(b"data:"):
            data.append(line[5:].strip())


def all_events(response):
    events = []
    while (event := next_event(response)) is not None:
        events.append(event)
    return events


def test_same_key_and_body_return_the_same_session(engine):
    first = engine.client.beta.agents.sessions.create(**ECHO, extra_headers={"Idempotency-Key": "create-1"})
    wait_idle(engine.raw, first.id)
    again = engine.client.beta.agents.sessions.create(**ECHO, extra_headers={"Idempotency-Key": "create-1"})
    assert again.id == first.id
    assert again.status == "idle"
    # Member order does not make another request.
    status, _, body = create_raw(engine, {"input": "Hello", "agent": {"model": "gpt-test"}, "environment": {"type": "none"}}, "create-1")
    assert (status, body["id"]) == (201, first.id)
    assert [s["id"] for s in sessions_raw(engine.raw)] == [first.id]
    assert len(turns_raw(engine.raw, first.id)) == 1


def test_a_different_body_is_a_conflict_and_writes_nothing(engine):
    first = engine.client.beta.agents.sessions.create(**ECHO, extra_headers={"Idempotency-Key": "create-2"})
    for other in ({**ECHO, "input": "Bye"}, {**ECHO, "metadata": {"a": "b"}}, {**ECHO, "stream": False}):
        status, headers, body = create_raw(engine, other, "create-2")
        assert status == 409, body
        assert error_of(body) == IDEMPOTENCY_CONFLICT
        assert headers["x-should-retry"] == "false"
    with pytest.raises(openai.ConflictError) as e:
        engine.client.beta.agents.sessions.create(**{**ECHO, "input": "Bye"}, extra_headers={"Idempotency-Key": "create-2"})
    assert e.value.body == IDEMPOTENCY_CONFLICT
    # Body validation comes before the retry lookup.
    status, _, body = create_raw(engine, {**ECHO, "nope": 1}, "create-2")
    assert status == 400, body
    assert [s["id"] for s in sessions_raw(engine.raw)] == [first.id]


def test_a_deleted_session_is_a_conflict(engine):
    first = engine.client.beta.agents.sessions.create(**ECHO, extra_headers={"Idempotency-Key": "create-3"})
    wait_idle(engine.raw, first.id)
    engine.client.beta.agents.sessions.delete(first.id)
    status, _, body = create_raw(engine, ECHO, "create-3")
    assert status == 409, body
    assert error_of(body) == IDEMPOTENCY_CONFLICT
    assert sessions_raw(engine.raw) == []


@pytest.mark.parametrize("key", ["k" * 129, "   ", "\t"], ids=["129-bytes", "spaces", "tab"])
def test_an_invalid_key_is_400_and_writes_nothing(engine, key):
    status, _, body = create_raw(engine, ECHO, key)
    assert status == 400, body
    assert error_of(body) == {
        "message": "The Idempotency-Key header must be 1 to 128 bytes and not only whitespace.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_request",
    }
    assert sessions_raw(engine.raw) == []


def test_the_longest_key_is_accepted(engine):
    status, _, body = create_raw(engine, ECHO, "k" * 128)
    assert status == 201, body
    wait_idle(engine.raw, body["id"])


def test_ten_concurrent_creates_with_one_key_make_one_session(engine):
    results = [None] * 10
    go = threading.Barrier(10)

    def create(i):
        go.wait()
        results[i] = create_raw(engine, ECHO, "create-race")

    threads = [threading.Thread(target=create, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [status for status, _, _ in results] == [201] * 10, results
    ids = {body["id"] for _, _, body in results}
    assert len(ids) == 1, ids
    (sid,) = ids
    assert [s["id"] for s in sessions_raw(engine.raw)] == [sid]
    wait_idle(engine.raw, sid)
    assert len(turns_raw(engine.raw, sid)) == 1


def test_a_retried_stream_after_the_turn_carries_only_the_current_session(engine):
    with stream_create(engine, ECHO, "create-stream-1") as first:
        assert first.status == 201
        events = all_events(first)
    assert events[0]["type"] == "agent.session.created"
    assert events[-1]["type"] == "agent.session.idle"
    sid = events[0]["session"]["id"]
    with stream_create(engine, ECHO, "create-stream-1") as again:
        assert again.status == 201
        replayed = all_events(again)
    assert [e["type"] for e in replayed] == ["agent.session.created"]
    assert replayed[0]["session"]["id"] == sid
    assert replayed[0]["session"]["status"] == "idle"
    assert len(turns_raw(engine.raw, sid)) == 1


def test_a_retried_stream_during_the_turn_follows_it_live(engine):
    body = {**ECHO, "agent": {"model": "gpt-test", "tools": [WEATHER_FUNCTION]}, "input": "Weather in Paris?"}
    status, _, created = create_raw(engine, body, "create-stream-2")
    assert status == 201, created
    sid = created["id"]
    action = wait_required_actions(engine.raw, sid)["required_actions"][0]
    # `stream: true` makes it another request.
    status, _, conflict = create_raw(engine, {**body, "stream": True}, "create-stream-2")
    assert status == 409 and error_of(conflict) == IDEMPOTENCY_CONFLICT

    with stream_create(engine, body, "create-stream-3") as first:
        opened = next_event(first)
        assert opened["type"] == "agent.session.created"
        sid = opened["session"]["id"]
        action = wait_required_actions(engine.raw, sid)["required_actions"][0]
        with stream_create(engine, body, "create-stream-3") as again:
            replayed = next_event(again)
            assert replayed["type"] == "agent.session.created"
            assert replayed["session"]["id"] == sid
            assert replayed["session"]["status"] == "requires_action"
            assert replayed["session"]["required_actions"] == [action]
            assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
            rest = all_events(again)
        all_events(first)
    types = [e["type"] for e in rest]
    assert "agent.session.turn.completed" in types, types
    assert types[-1] == "agent.session.idle"
    assert all(e.get("session_id", sid) == sid for e in rest)
    assert len(turns_raw(engine.raw, sid)) == 1
