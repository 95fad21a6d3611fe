"""`POST /v1/agents/sessions/{id}/events`: Idempotency-Key semantics, validation (atomic, writes
nothing), messages that open or join Turns, and cancel on an idle Session (agents-api-wire §6,
§11; core-contracts §3.1).

Sessions here offer no function, so the mock's built-in default answers `ECHO: <last user
text>` and every Turn completes on its own."""

import openai
import pytest
from openai import OpenAI

from conftest import API_KEY, error_of
from session_support import (
    CANCEL,
    MESSAGE,
    create_pending,
    history_snapshot,
    items_raw,
    message,
    post_events,
    session_raw,
    tool_result,
    turns_raw,
    wait_idle,
)

IDEMPOTENCY_CONFLICT = {
    "message": "This idempotency key was used with different input.",
    "type": "conflict_error",
    "param": None,
    "code": "idempotency_conflict",
}


def idle_session(engine, text="Hello"):
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input=text
    )
    wait_idle(engine.raw, session.id)
    return session.id


def user_texts(raw, sid, turn_id=None):
    return [
        part["text"]
        for item in items_raw(raw, sid, turn_id)
        if item["type"] == "message" and item["role"] == "user"
        for part in item["content"]
    ]


# ---------------------------------------------------------------------------------------------
# Idempotency-Key.


def test_same_key_and_batch_is_admitted_once(engine):
    sid = idle_session(engine)
    events = [message("Again")]
    assert engine.client.beta.agents.sessions.events.create(sid, events=events, idempotency_key="key-1") is None
    # The retry of a lost response: 202 again, no second admission.
    assert engine.client.beta.agents.sessions.events.create(sid, events=events, idempotency_key="key-1") is None
    status, _, body = post_events(engine.raw, sid, events, key="key-1")
    assert (status, body) == (202, None)
    wait_idle(engine.raw, sid)
    turns = turns_raw(engine.raw, sid)
    assert len(turns) == 2
    assert user_texts(engine.raw, sid) == ["Hello", "Again"]
    assert user_texts(engine.raw, sid, turns[1]["id"]) == ["Again"]

    # Still the same admission after its Turn ended.
    status, _, body = post_events(engine.raw, sid, events, key="key-1")
    assert (status, body) == (202, None)
    assert session_raw(engine.raw, sid)["status"] == "idle"
    assert len(turns_raw(engine.raw, sid)) == 2
    assert user_texts(engine.raw, sid) == ["Hello", "Again"]


def test_same_key_with_different_batch_is_409(engine):
    sid = idle_session(engine)
    assert post_events(engine.raw, sid, [message("Again")], key="key-2")[0] == 202
    wait_idle(engine.raw, sid)
    before = history_snapshot(engine.raw, sid)

    for other in [
        [message("Something else")],
        [message("Again"), {"type": CANCEL}],
        [{"type": CANCEL}],
        [{"type": MESSAGE, "input": [{"role": "user", "content": [{"type": "input_text", "text": "Again"}]}]}],
    ]:
        status, headers, body = post_events(engine.raw, sid, other, key="key-2")
        assert status == 409
        assert error_of(body) == IDEMPOTENCY_CONFLICT
        assert headers["x-should-retry"] == "false"
    # Validation comes before the retry lookup: an invalid batch is a 400 whatever its key.
    status, _, body = post_events(engine.raw, sid, [{"type": "agent.session.input.nope"}], key="key-2")
    assert status == 400 and error_of(body)["param"] == "events[0].type"
    # The SDK, told not to retry, sends it once and raises.
    retrying = OpenAI(base_url=engine.server.base_url, api_key=API_KEY, max_retries=2)
    with pytest.raises(openai.ConflictError) as e:
        retrying.beta.agents.sessions.events.create(sid, events=[message("Something else")], idempotency_key="key-2")
    assert e.value.body == IDEMPOTENCY_CONFLICT
    assert history_snapshot(engine.raw, sid) == before


def test_rejected_batch_does_not_claim_its_key(engine):
    sid = idle_session(engine)
    before = history_snapshot(engine.raw, sid)
    status, _, body = post_events(engine.raw, sid, [message("Again"), {"type": "agent.session.input.nope"}], key="key-3")
    assert status == 400
    assert history_snapshot(engine.raw, sid) == before
    # Nothing was written, so the key is still free for a good batch.
    assert post_events(engine.raw, sid, [message("Again")], key="key-3")[0] == 202
    wait_idle(engine.raw, sid)
    assert user_texts(engine.raw, sid) == ["Hello", "Again"]


def test_without_a_key_every_batch_is_new(engine):
    sid = idle_session(engine)
    assert post_events(engine.raw, sid, [message("Again")])[0] == 202
    assert post_events(engine.raw, sid, [message("Again")])[0] == 202
    wait_idle(engine.raw, sid)
    assert user_texts(engine.raw, sid) == ["Hello", "Again", "Again"]


@pytest.mark.parametrize("key", ["k" * 129, "   ", "\t"], ids=["129-bytes", "spaces", "tab"])
def test_invalid_idempotency_key_is_400_and_writes_nothing(engine, key):
    sid = idle_session(engine)
    before = history_snapshot(engine.raw, sid)
    status, _, body = post_events(engine.raw, sid, [message("Again")], key=key)
    assert status == 400
    err = error_of(body)
    assert (err["type"], err["code"], err["param"]) == ("invalid_request_error", "invalid_request", None)
    assert "Idempotency-Key" in err["message"]
    assert history_snapshot(engine.raw, sid) == before


def test_longest_idempotency_key_is_accepted(engine):
    sid = idle_session(engine)
    key = "k" * 128
    assert post_events(engine.raw, sid, [message("Again")], key=key)[0] == 202
    assert post_events(engine.raw, sid, [message("Again")], key=key)[0] == 202
    wait_idle(engine.raw, sid)
    assert user_texts(engine.raw, sid) == ["Hello", "Again"]


# ---------------------------------------------------------------------------------------------
# Validation: 400, nothing written.

EVENT_TYPES = "'agent.session.input.message', 'agent.session.input.cancel', and 'agent.session.input.tool_result'"


@pytest.mark.parametrize(
    "body,expected",
    [
        ({}, {"message": "Missing required parameter: 'events'.", "param": "events", "code": "missing_required_parameter"}),
        ({"events": None},
         {"message": "Invalid type for 'events': expected an array, but got null instead.", "param": "events", "code": "invalid_type"}),
        ({"events": {"type": CANCEL}},
         {"message": "Invalid type for 'events': expected an array, but got an object instead.", "param": "events", "code": "invalid_type"}),
        ({"events": [message(f"m{i}") for i in range(65)]},
         {"message": "Invalid 'events': array too long. Expected an array with maximum length 64, but got an array with length 65 instead.",
          "param": "events", "code": "invalid_value"}),
        ({"events": [message("fine"), {"type": "agent.session.input.nope"}]},
         {"message": f"Invalid value: 'agent.session.input.nope'. Supported values are: {EVENT_TYPES}.",
          "param": "events[1].type", "code": "invalid_value"}),
        ({"events": [{"input": "no type"}]},
         {"message": "Missing required parameter: 'events[0].type'.", "param": "events[0].type", "code": "missing_required_parameter"}),
        ({"events": [{"type": MESSAGE}]},
         {"message": "Missing required parameter: 'events[0].input'.", "param": "events[0].input", "code": "missing_required_parameter"}),
        ({"events": [{"type": MESSAGE, "input": "hi", "role": "user"}]},
         {"message": "Unknown parameter: 'events[0].role'.", "param": "events[0].role", "code": "unknown_parameter"}),
        ({"events": [{"type": "agent.session.input.tool_result", "turn_id": "turn_1", "success": True}]},
         {"message": "Missing required parameter: 'events[0].call_id'.", "param": "events[0].call_id", "code": "missing_required_parameter"}),
    ],
    ids=["missing", "null", "object", "65-events", "unknown-type", "no-type", "no-input", "unknown-member", "no-call-id"],
)
def test_invalid_events_body_is_400_and_writes_nothing(engine, body, expected):
    sid = idle_session(engine)
    before = history_snapshot(engine.raw, sid)
    status, _, resp = post_events(engine.raw, sid, None, body=body)
    assert status == 400
    assert error_of(resp) == {"type": "invalid_request_error", **expected}
    assert history_snapshot(engine.raw, sid) == before
    assert len(engine.journal()) == 1  # the first Turn's only model request; nothing ran since


def test_validation_comes_before_the_session_lookup(engine):
    status, _, body = post_events(engine.raw, "sess_00000000000000000000000000000000", None, body={"events": None})
    assert status == 400 and error_of(body)["param"] == "events"
    status, _, body = post_events(engine.raw, "sess_00000000000000000000000000000000", [message("hi")])
    assert status == 404 and error_of(body)["code"] == "not_found_error"


def test_sixty_four_events_are_admitted_as_one_batch(engine):
    sid = idle_session(engine)
    assert post_events(engine.raw, sid, [message(f"m{i}") for i in range(64)])[0] == 202
    # All 64 messages are admitted together: one new Turn holds every one of them.
    turns = turns_raw(engine.raw, sid)
    assert len(turns) == 2
    assert user_texts(engine.raw, sid, turns[1]["id"]) == [f"m{i}" for i in range(64)]
    wait_idle(engine.raw, sid)
    assert len(turns_raw(engine.raw, sid)) == 2


def test_empty_batch_is_a_202_no_op_on_an_existing_session(engine):
    sid = idle_session(engine)
    before = history_snapshot(engine.raw, sid)
    status, _, body = post_events(engine.raw, sid, [])
    assert (status, body) == (202, None)
    assert engine.client.beta.agents.sessions.events.create(sid, events=[]) is None
    assert history_snapshot(engine.raw, sid) == before
    status, _, body = post_events(engine.raw, "sess_00000000000000000000000000000000", [])
    assert status == 404
    assert error_of(body)["code"] == "not_found_error"


# ---------------------------------------------------------------------------------------------
# Messages and cancel.


def test_message_to_an_idle_session_starts_a_new_turn(engine):
    sid = idle_session(engine)
    [first] = turns_raw(engine.raw, sid)
    # The live stream replays nothing of the first Turn: it starts with what comes next.
    stream = engine.client.beta.agents.sessions.events.stream(sid, timeout=60)
    engine.client.beta.agents.sessions.events.create(
        sid,
        events=[{"type": MESSAGE, "input": [{"role": "user", "content": [{"type": "input_text", "text": "Second question"}]}]}],
    )
    seen = []
    for event in stream:
        seen.append(event)
        if event.type == "agent.session.idle":
            break
    stream.close()
    assert seen[0].type == "agent.session.turn.created"
    assert {getattr(e, "turn_id", None) for e in seen} - {None} == {seen[0].turn_id}
    assert seen[0].turn_id != first["id"]
    turns = turns_raw(engine.raw, sid)
    assert [t["id"] for t in turns][:1] == [first["id"]] and len(turns) == 2
    new = turns[1]
    assert new["id"] == seen[0].turn_id
    assert new["session_id"] == sid and new["subagent_id"] is None
    session = wait_idle(engine.raw, sid)
    assert session["required_actions"] == [] and session["error"] is None
    turn = engine.client.beta.agents.sessions.turns.retrieve(new["id"], session_id=sid)
    assert turn.status == "completed"
    items = items_raw(engine.raw, sid, new["id"])
    assert [(i["type"], i["role"]) for i in items] == [("message", "user"), ("message", "assistant")]
    assert items[0]["content"] == [{"type": "input_text", "text": "Second question"}]
    assert items[1]["content"][0]["text"] == "ECHO: Second question"
    assert [t.id for t in engine.client.beta.agents.sessions.turns.list(sid, order="asc")] == [first["id"], new["id"]]


def test_each_message_is_its_own_user_item_in_one_turn(engine):
    sid = idle_session(engine)
    two = [
        {"role": "user", "content": [{"type": "input_text", "text": "part A"}]},
        {"role": "user", "content": [{"type": "input_text", "text": "part B"}]},
    ]
    assert post_events(engine.raw, sid, [{"type": MESSAGE, "input": two}])[0] == 202
    turns = turns_raw(engine.raw, sid)
    assert len(turns) == 2
    users = [i for i in items_raw(engine.raw, sid, turns[1]["id"]) if i["type"] == "message" and i["role"] == "user"]
    assert [u["content"][0]["text"] for u in users] == ["part A", "part B"]
    assert len({u["id"] for u in users}) == 2
    wait_idle(engine.raw, sid)
    assert len(turns_raw(engine.raw, sid)) == 2


def test_message_while_a_turn_waits_joins_that_turn(engine):
    sid, action = create_pending(engine)
    assert post_events(engine.raw, sid, [message("Also: should I take an umbrella?")])[0] == 202
    # No parallel Turn: the message is a user Item of the running Turn.
    [turn] = turns_raw(engine.raw, sid)
    assert turn["id"] == action["turn_id"]
    assert user_texts(engine.raw, sid, turn["id"]) == ["What is the weather in Paris?", "Also: should I take an umbrella?"]
    assert session_raw(engine.raw, sid)["required_actions"] == [action]
    assert post_events(engine.raw, sid, [{"type": CANCEL}])[0] == 202
    wait_idle(engine.raw, sid)
    assert len(turns_raw(engine.raw, sid)) == 1


def test_cancel_on_an_idle_session_is_a_202_no_op(engine):
    sid = idle_session(engine)
    before = history_snapshot(engine.raw, sid)
    assert engine.client.beta.agents.sessions.events.create(sid, events=[{"type": CANCEL}]) is None
    status, _, body = post_events(engine.raw, sid, [{"type": CANCEL}, {"type": CANCEL}])
    assert (status, body) == (202, None)
    assert history_snapshot(engine.raw, sid) == before
    assert before["status"] == "idle"
    assert [t[1] for t in before["turns"]] == ["completed"]


def test_cancel_then_message_in_one_batch_is_applied_in_order(engine):
    sid, action = create_pending(engine)
    assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
    wait_idle(engine.raw, sid)
    # Idle: the cancel does nothing, the message opens the next Turn.
    assert post_events(engine.raw, sid, [{"type": CANCEL}, message("Thanks")])[0] == 202
    turns = turns_raw(engine.raw, sid)
    assert len(turns) == 2 and turns[1]["status"] != "cancelled"
    assert user_texts(engine.raw, sid, turns[1]["id"]) == ["Thanks"]
