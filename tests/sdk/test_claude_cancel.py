"""`agent.session.input.cancel` on the real `claude` binary (the adapter sends claude's control
protocol `interrupt`): a Turn cancelled while the model is slow, or while a function call is
pending, ends `cancelled` and the Session goes idle; the cancelled call takes no result (409);
the same claude Session then runs a new Turn to completion (agents-api-wire.md §6, §11;
core-contracts.md §3.2, §8)."""

import pytest
from openai import ConflictError
from openai.lib.beta.agents import AgentTurnResultError

from claude_support import WEATHER, create, messages_calls, tool_result_blocks, wait_for_messages_calls
from conftest import error_of
from stream_support import (
    CANCEL,
    CREATED,
    ITEM_DONE,
    PART_DONE,
    S_IDLE,
    S_IN_PROGRESS,
    S_REQUIRES_ACTION,
    T_CANCELLED,
    TEXT_DELTA,
    TEXT_DONE,
    as_dicts,
    assert_unique_event_ids,
    function_call_turn,
    new_turn_prefix,
    post_events,
    tool_result,
    types_of,
)

ANSWER = "It is sunny in Paris."
CANNOT_ACCEPT = "The Turn cannot accept this input in its current state."
CALL = {"tool_calls": [{"name": WEATHER, "arguments": {"city": "Paris"}}]}


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
    """turn.cancelled then agent.session.idle, after at most a Session in_progress whose
    snapshot lists no required action."""
    kinds = types_of(tail)
    assert kinds in ([T_CANCELLED, S_IDLE], [S_IN_PROGRESS, T_CANCELLED, S_IDLE]), kinds
    if kinds[0] == S_IN_PROGRESS:
        assert tail[0]["session"]["required_actions"] == [], tail[0]
    cancelled = tail[-2]
    assert cancelled["session_id"] == session_id
    assert cancelled["turn"]["status"] == "cancelled" and cancelled["turn"]["error"] is None
    assert cancelled["turn"]["completed_at"] is not None
    idle = tail[-1]["session"]
    assert idle["status"] == "idle" and idle["required_actions"] == []
    return cancelled["turn_id"]


# ---------------------------------------------------------------------------------------------
# Cancel while a function call is pending.

# Request 1 (the first Turn) calls get_weather; it is cancelled while pending. The next Turn
# calls it again (request 2) and answers once the output is back. By request number, because
# after an interrupted call claude sends the next user text beside the call's interrupted
# tool_result, which the mock's tool_output_present counts as a tool output.
PENDING_SCENARIO = {
    "rules": [
        {"name": "call", "when": {"request": 1}, "reply": CALL},
        {"name": "call again", "when": {"request": 2}, "reply": CALL},
        {"name": "answer", "when": {"last_kind": "tool_output"}, "reply": {"text": ANSWER, "deltas": 2}},
    ],
}


def start_pending_call(engine):
    """A creation stream whose model called get_weather, cancelled while the call is pending.
    Returns (session_id, the required action as a dict, events)."""
    stream = create(engine, stream=True).with_result_collection()
    events, cancel_response, _ = cancel_after(stream, lambda e: e["type"] == S_REQUIRES_ACTION, engine)
    assert_cancel_accepted(cancel_response)
    with pytest.raises(AgentTurnResultError) as caught:
        stream.get_final_result()
    assert caught.value.reason == "cancelled"
    session_id = events[0]["session"]["id"]
    (action,) = next(e for e in events if e["type"] == S_REQUIRES_ACTION)["session"]["required_actions"]
    return session_id, action, events


def test_cancel_while_a_function_call_is_pending(start_engine):
    engine = start_engine(PENDING_SCENARIO)
    session_id, action, events = start_pending_call(engine)
    sessions = engine.client.beta.agents.sessions

    ra = types_of(events).index(S_REQUIRES_ACTION)
    assert types_of(events)[: ra + 1] == [CREATED] + function_call_turn(0)[:7]
    turn_id = assert_ends_cancelled(events[ra + 1 :], session_id)
    assert turn_id == action["turn_id"]
    assert_unique_event_ids(events)

    session = sessions.retrieve(session_id)
    assert session.status == "idle" and session.required_actions == []
    assert sessions.turns.retrieve(turn_id, session_id=session_id).status == "cancelled"
    items = list(sessions.items.list(session_id, order="asc"))
    assert [i.type for i in items] == ["message", "function_call"]

    # A first result for the cancelled call is a conflict, and the SDK does not retry it.
    status, headers, body = post_events(engine, session_id, tool_result(action, '{"temp":21}'))
    assert status == 409, body
    err = error_of(body)
    assert err == {"message": CANNOT_ACCEPT, "type": "conflict_error", "param": None, "code": "conflict_error"}
    assert headers["x-should-retry"] == "false"
    with pytest.raises(ConflictError) as conflict:
        sessions.events.create(session_id, events=[tool_result(action, '{"temp":22}')])
    assert conflict.value.body["message"] == CANNOT_ACCEPT
    session = sessions.retrieve(session_id)
    assert session.status == "idle" and session.required_actions == []
    assert [i.type for i in sessions.items.list(session_id, order="asc")] == ["message", "function_call"]
    # The model never heard from the cancelled call; claude made no further request.
    assert len(messages_calls(engine)) == 1
    assert action["call_id"] not in tool_result_blocks(engine)


def test_session_completes_a_new_turn_after_a_cancelled_call(start_engine):
    engine = start_engine(PENDING_SCENARIO)
    session_id, action, _ = start_pending_call(engine)
    sessions = engine.client.beta.agents.sessions

    with sessions.stream(
        session_id, input="Try again please.", tool_handlers={"get_weather": lambda args: {"temp": 21}}
    ) as stream:
        stream.with_result_collection()
        events = as_dicts(stream)
        result = stream.get_final_result()

    assert types_of(events) == function_call_turn(final_deltas=2)
    assert result.turn.status == "completed" and result.output_text == ANSWER
    assert result.turn_id != action["turn_id"]
    turns = sessions.turns.list(session_id, order="asc").data
    assert [(t.id, t.status) for t in turns] == [(action["turn_id"], "cancelled"), (result.turn_id, "completed")]
    new_call = next(e["item"] for e in events if e["type"] == ITEM_DONE and e["item"]["type"] == "function_call")
    assert new_call["call_id"] != action["call_id"]
    status, _, body = post_events(engine, session_id, tool_result(action, '{"temp":21}'))
    assert status == 409 and error_of(body)["message"] == CANNOT_ACCEPT

    # The same claude conversation went on; the cancelled call's result is not the caller's.
    blocks = tool_result_blocks(engine)
    assert blocks[new_call["call_id"]]["content"] == [{"type": "text", "text": '{"temp":21}'}]
    cancelled_block = blocks.get(action["call_id"])
    assert cancelled_block is None or '{"temp":2' not in str(cancelled_block)
    texts = [
        b.get("text")
        for m in messages_calls(engine)[-1]["body"]["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
    ]
    assert "What is the weather in Paris?" in texts and "Try again please." in texts


# ---------------------------------------------------------------------------------------------
# Cancel while the model is slow.


def test_cancel_while_the_model_is_slow(start_engine):
    # The first model request is answered only after a minute; later ones at once.
    engine = start_engine(
        {
            "rules": [{"when": {"request": 1}, "reply": {"delay_ms": 60000, "text": "Too late."}}],
            "otherwise": {"text": "Fresh answer.", "deltas": 2},
        }
    )
    stream = create(engine, stream=True, tools=(), input="Take your time.")

    def model_is_waiting(event):
        if event["type"] != "agent.session.turn.in_progress":
            return False
        wait_for_messages_calls(engine, 1)
        return True

    events, cancel_response, at = cancel_after(stream, model_is_waiting, engine)
    assert_cancel_accepted(cancel_response)
    session_id = events[0]["session"]["id"]
    assert types_of(events[: at + 1]) == [CREATED] + new_turn_prefix()
    turn_id = assert_ends_cancelled(events[at + 1 :], session_id)
    assert_unique_event_ids(events)

    sessions = engine.client.beta.agents.sessions
    assert sessions.turns.retrieve(turn_id, session_id=session_id).status == "cancelled"
    assert [i.type for i in sessions.items.list(session_id)] == ["message"]
    assert len(messages_calls(engine)) == 1

    with sessions.stream(session_id, input="Now quickly.") as s:
        result = s.get_final_result()
    assert result.output_text == "Fresh answer."
    assert [t.status for t in sessions.turns.list(session_id, order="asc").data] == ["cancelled", "completed"]
    assert sessions.retrieve(session_id).status == "idle"


def test_cancel_mid_message_marks_the_message_incomplete(start_engine):
    # 20 deltas, 400 ms apart: the message is still streaming when the cancel arrives.
    engine = start_engine(
        {"rules": [{"when": {"request": 1}, "reply": {"text": "word " * 20, "deltas": 20, "interval_ms": 400}}]}
    )
    stream = create(engine, stream=True, tools=(), input="Talk slowly.")
    events, cancel_response, at = cancel_after(stream, lambda e: e["type"] == TEXT_DELTA, engine)
    assert_cancel_accepted(cancel_response)
    session_id = events[0]["session"]["id"]
    assert_unique_event_ids(events)
    # Deltas already on their way may still arrive, and the message may be closed with its
    # canonical closing events (output_text.done, content_part.done, item.done); then the Turn
    # ends cancelled.
    after = events[at + 1 :]
    closing = [e for e in after if e["type"] in (TEXT_DELTA, TEXT_DONE, PART_DONE, ITEM_DONE)]
    assert_ends_cancelled([e for e in after if e not in closing], session_id)
    closers = [e["type"] for e in closing if e["type"] != TEXT_DELTA]
    assert closers in ([], [ITEM_DONE], [TEXT_DONE, PART_DONE, ITEM_DONE]), closers

    sessions = engine.client.beta.agents.sessions
    items = list(sessions.items.list(session_id, order="asc"))
    assert [(i.type, i.role) for i in items] == [("message", "user"), ("message", "assistant")]
    partial = items[1]
    assert partial.status == "incomplete"
    streamed = "".join(e["delta"] for e in events if e["type"] == TEXT_DELTA)
    assert streamed and ("word " * 20).startswith(streamed) and streamed != "word " * 20
    assert "".join(c.text for c in partial.content) == streamed
    # If the stream closes the message, it closes it incomplete, with the streamed text.
    for e in events:
        if e["type"] == ITEM_DONE:
            assert e["item"]["id"] == partial.id and e["item"]["status"] == "incomplete", e
        if e["type"] == TEXT_DONE:
            assert e["text"] == streamed, e
        if e["type"] == PART_DONE:
            assert e["part"]["text"] == streamed, e


def test_cancel_on_an_idle_session_is_a_no_op(start_engine):
    engine = start_engine(
        {"rules": [{"when": {"request": 1}, "reply": CALL}], "otherwise": {"text": ANSWER, "deltas": 2}}
    )
    sessions = engine.client.beta.agents.sessions
    result = create(engine, stream=True, tool_handlers={"get_weather": lambda args: {"temp": 21}}).get_final_result()
    session_id = result.session_id
    assert sessions.retrieve(session_id).status == "idle"

    assert_cancel_accepted(post_events(engine, session_id, CANCEL))
    assert sessions.events.create(session_id, events=[CANCEL]) is None

    after = sessions.retrieve(session_id)
    assert after.status == "idle" and after.required_actions == []
    assert [(t.id, t.status) for t in sessions.turns.list(session_id).data] == [(result.turn_id, "completed")]
    assert len(list(sessions.items.list(session_id))) == 4
    with sessions.stream(session_id, input="Again?") as s:
        assert s.get_final_result().output_text == ANSWER
