"""`agent.session.input.cancel` on both harnesses (the `harness` fixture: codex, and claude_code,
where the adapter sends claude's control protocol `interrupt`): a running Turn ends `cancelled`
and the Session goes idle, a pending function call stops being a required action and cannot be
answered any more, a cancel on an idle Session changes nothing, and the Session takes new input
afterwards (agents-api-wire.md §6, §11; core-contracts.md §3.2, §8)."""

import pytest
from openai import ConflictError
from openai.lib.beta.agents import AgentTurnResultError

from conftest import error_of
from stream_support import (
    CANCEL,
    CREATED,
    ITEM_DONE,
    PART_DONE,
    S_REQUIRES_ACTION,
    TEXT_DELTA,
    TEXT_DONE,
    as_dicts,
    assert_cancel_accepted,
    assert_ends_cancelled,
    assert_unique_event_ids,
    cancel_after,
    function_call_turn,
    new_turn_prefix,
    post_events,
    tool_result,
    types_of,
)

ANSWER = "It is sunny in Paris."
CANNOT_ACCEPT = "The Turn cannot accept this input in its current state."
HANDLERS = {"get_weather": lambda args: {"temp": 21}}


def weather_call(harness):
    """A model reply calling get_weather under the name this harness's model sees."""
    return {"tool_calls": [{"name": harness.weather, "arguments": {"city": "Paris"}}]}


def pending_scenario(harness):
    """get_weather is called once per Turn until its output is back, then the model answers.

    codex: by what the request holds. claude: by request number (request 1 is the cancelled
    Turn's call, request 2 the next Turn's), because after an interrupted call claude sends the
    next user text beside the call's interrupted tool_result, which the mock's
    tool_output_present counts as a tool output."""
    answer = {"name": "answer", "when": {"last_kind": "tool_output"}, "reply": {"text": ANSWER, "deltas": 2}}
    if harness.name == "claude_code":
        calls = [
            {"name": "call", "when": {"request": 1}, "reply": weather_call(harness)},
            {"name": "call again", "when": {"request": 2}, "reply": weather_call(harness)},
        ]
    else:
        calls = [
            {"name": "call", "when": {"tool_offered": harness.weather, "tool_output_present": False}, "reply": weather_call(harness)}
        ]
    return {"rules": calls + [answer]}


def idle_scenario(harness):
    """A first Turn that calls get_weather once and answers; later Turns answer (for claude by
    request number, as above; codex's later Turns carry the earlier output)."""
    if harness.name == "claude_code":
        return {"rules": [{"when": {"request": 1}, "reply": weather_call(harness)}], "otherwise": {"text": ANSWER, "deltas": 2}}
    return pending_scenario(harness)


# How a message cut off by a cancel may still be closed after it: codex closes it with item.done
# at most; claude may also finish its text and part first (a streamed text block is closed only
# by a message_delta with a stop_reason, and claude records interrupted blocks as messages).
MESSAGE_CLOSERS = {
    "codex": ([], [ITEM_DONE]),
    "claude_code": ([], [ITEM_DONE], [TEXT_DONE, PART_DONE, ITEM_DONE]),
}


def start_pending_call(engine, harness):
    """A creation stream whose model called get_weather; cancelled while the call is pending.
    Returns (session_id, the required action as a dict, events)."""
    stream = harness.create(engine, stream=True).with_result_collection()
    events, cancel_response, _ = cancel_after(stream, lambda e: e["type"] == S_REQUIRES_ACTION, engine)
    assert_cancel_accepted(cancel_response)
    # The helper sees a cancelled Turn, not a result.
    with pytest.raises(AgentTurnResultError) as caught:
        stream.get_final_result()
    assert caught.value.reason == "cancelled"
    session_id = events[0]["session"]["id"]
    (action,) = next(e for e in events if e["type"] == S_REQUIRES_ACTION)["session"]["required_actions"]
    return session_id, action, events


def test_cancel_while_a_function_call_is_pending(start_engine, harness):
    engine = start_engine(pending_scenario(harness))
    session_id, action, events = start_pending_call(engine, harness)
    sessions = engine.client.beta.agents.sessions

    ra = types_of(events).index(S_REQUIRES_ACTION)
    assert types_of(events)[: ra + 1] == [CREATED] + function_call_turn(0)[:7]
    turn_id = assert_ends_cancelled(events[ra + 1 :], session_id)
    assert turn_id == action["turn_id"]
    assert_unique_event_ids(events)

    session = sessions.retrieve(session_id)
    assert session.status == "idle" and session.required_actions == []
    assert sessions.turns.retrieve(turn_id, session_id=session_id).status == "cancelled"
    # No result was applied: the history holds the question and the call, nothing after it.
    items = list(sessions.items.list(session_id, order="asc"))
    assert [i.type for i in items] == ["message", "function_call"]

    # A first result for the cancelled call is a conflict (core-contracts.md §3.2), and the SDK
    # must not retry it.
    status, headers, body = post_events(engine, session_id, tool_result(action, '{"temp":21}'))
    assert status == 409, body
    err = error_of(body)
    assert err == {"message": CANNOT_ACCEPT, "type": "conflict_error", "param": None, "code": "conflict_error"}
    assert headers["x-should-retry"] == "false"
    with pytest.raises(ConflictError) as conflict:
        sessions.events.create(session_id, events=[tool_result(action, '{"temp":22}')])
    assert conflict.value.body["message"] == CANNOT_ACCEPT
    # Rejections changed nothing.
    session = sessions.retrieve(session_id)
    assert session.status == "idle" and session.required_actions == []
    assert [i.type for i in sessions.items.list(session_id, order="asc")] == ["message", "function_call"]
    # The model never heard from the cancelled call; the harness made no further request.
    assert len(harness.model_calls(engine)) == 1
    assert action["call_id"] not in dict(harness.sent_results(engine))


def test_session_completes_a_new_turn_after_a_cancel(start_engine, harness):
    engine = start_engine(pending_scenario(harness))
    session_id, action, _ = start_pending_call(engine, harness)
    sessions = engine.client.beta.agents.sessions

    with sessions.stream(session_id, input="Try again please.", tool_handlers=HANDLERS) as stream:
        stream.with_result_collection()
        events = as_dicts(stream)
        result = stream.get_final_result()

    assert types_of(events) == function_call_turn(final_deltas=2)
    assert result.turn.status == "completed" and result.output_text == ANSWER
    assert result.turn_id != action["turn_id"]
    turns = sessions.turns.list(session_id, order="asc").data
    assert [(t.id, t.status) for t in turns] == [(action["turn_id"], "cancelled"), (result.turn_id, "completed")]
    # The new call is a different call; the cancelled one stays unanswerable.
    new_call = next(e["item"] for e in events if e["type"] == ITEM_DONE and e["item"]["type"] == "function_call")
    assert new_call["call_id"] != action["call_id"]
    status, _, body = post_events(engine, session_id, tool_result(action, '{"temp":21}'))
    assert status == 409 and error_of(body)["message"] == CANNOT_ACCEPT

    # The same conversation went on; the cancelled call's result is not the caller's.
    sent = harness.sent_wire_results(engine)
    assert sent[new_call["call_id"]] == harness.wire_result('{"temp":21}')
    cancelled = sent.get(action["call_id"])
    assert cancelled is None or '{"temp":2' not in str(cancelled)
    texts = harness.user_texts(harness.model_calls(engine)[-1])
    assert "What is the weather in Paris?" in texts and "Try again please." in texts


def test_cancel_on_an_idle_session_is_a_no_op(start_engine, harness):
    engine = start_engine(idle_scenario(harness))
    sessions = engine.client.beta.agents.sessions
    result = harness.create(engine, stream=True, tool_handlers=HANDLERS).get_final_result()
    session_id = result.session_id
    before = sessions.retrieve(session_id)
    assert before.status == "idle"

    assert_cancel_accepted(post_events(engine, session_id, CANCEL))
    assert sessions.events.create(session_id, events=[CANCEL]) is None

    after = sessions.retrieve(session_id)
    assert after.status == "idle" and after.required_actions == []
    assert [(t.id, t.status) for t in sessions.turns.list(session_id).data] == [(result.turn_id, "completed")]
    assert len(list(sessions.items.list(session_id))) == 4
    # Still usable: the next message runs a normal Turn.
    with sessions.stream(session_id, input="Again?", tool_handlers=HANDLERS) as s:
        assert s.get_final_result().output_text == ANSWER


def test_cancel_while_the_model_is_slow(start_engine, harness):
    # The first model request is answered only after a minute; later ones at once.
    engine = start_engine(
        {
            "rules": [{"when": {"request": 1}, "reply": {"delay_ms": 60000, "text": "Too late."}}],
            "otherwise": {"text": "Fresh answer.", "deltas": 2},
        }
    )
    stream = harness.create(engine, stream=True, agent={"model": harness.model}, input="Take your time.")

    def model_is_waiting(event):
        if event["type"] != "agent.session.turn.in_progress":
            return False
        harness.wait_for_model_calls(engine, 1)
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
    assert len(harness.model_calls(engine)) == 1

    with sessions.stream(session_id, input="Now quickly.") as s:
        result = s.get_final_result()
    assert result.output_text == "Fresh answer."
    assert [t.status for t in sessions.turns.list(session_id, order="asc").data] == ["cancelled", "completed"]
    assert sessions.retrieve(session_id).status == "idle"


def test_cancel_mid_message_marks_the_message_incomplete(start_engine, harness):
    # 20 deltas, 400 ms apart: the message is still streaming when the cancel arrives.
    engine = start_engine(
        {"rules": [{"when": {"request": 1}, "reply": {"text": "word " * 20, "deltas": 20, "interval_ms": 400}}]}
    )
    stream = harness.create(engine, stream=True, agent={"model": harness.model}, input="Talk slowly.")
    events, cancel_response, at = cancel_after(stream, lambda e: e["type"] == TEXT_DELTA, engine)
    assert_cancel_accepted(cancel_response)
    session_id = events[0]["session"]["id"]
    assert_unique_event_ids(events)
    # Deltas already on their way may still arrive, and the message may be closed with this
    # harness's closing events; then the Turn ends cancelled.
    allowed = MESSAGE_CLOSERS[harness.name]
    closer_types = {t for closers in allowed for t in closers}
    after = events[at + 1 :]
    closing = [e for e in after if e["type"] == TEXT_DELTA or e["type"] in closer_types]
    assert_ends_cancelled([e for e in after if e not in closing], session_id)
    closers = [e["type"] for e in closing if e["type"] != TEXT_DELTA]
    assert closers in allowed, closers

    sessions = engine.client.beta.agents.sessions
    items = list(sessions.items.list(session_id, order="asc"))
    assert [(i.type, i.role) for i in items] == [("message", "user"), ("message", "assistant")]
    partial = items[1]
    # Cancel marks unfinished Items incomplete (core-contracts.md §8).
    assert partial.status == "incomplete"
    streamed = "".join(e["delta"] for e in events if e["type"] == TEXT_DELTA)
    assert streamed and ("word " * 20).startswith(streamed) and streamed != "word " * 20
    assert "".join(c.text for c in partial.content) == streamed
    # If the stream closes the message, it closes it incomplete (never completed), with the
    # streamed text.
    for e in events:
        if e["type"] == ITEM_DONE:
            assert e["item"]["id"] == partial.id and e["item"]["status"] == "incomplete", e
        if e["type"] == TEXT_DONE:
            assert e["text"] == streamed, e
        if e["type"] == PART_DONE:
            assert e["part"]["text"] == streamed, e
