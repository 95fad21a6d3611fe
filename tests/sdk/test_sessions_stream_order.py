"""The event sequences of a Turn (agents-api-wire.md §8.2) as the official SDK reads them: on the
creation stream, through the `sessions.stream` helper, and on the raw `events.stream`, plus the
SSE bytes themselves (§8.1). The function-call Turn on the creation stream and through
`sessions.stream` runs on both harnesses (the `harness` fixture: codex, claude_code), with what
reached the model; the rest on the default harness, codex."""

import json

import pytest
from openai.lib.beta.agents import AgentTurnResultError

from claude_support import offered_tool_names
from session_support import CODEX
from stream_support import (
    CREATED,
    ITEM_ADDED,
    ITEM_DONE,
    S_FAILED,
    S_IDLE,
    S_IN_PROGRESS,
    S_REQUIRES_ACTION,
    T_COMPLETED,
    T_CREATED,
    T_FAILED,
    T_IN_PROGRESS,
    as_dicts,
    assert_items_done_only_for_outputs,
    assert_plain_data_frames,
    assert_unique_event_ids,
    function_call_turn,
    item_events,
    message_text_events,
    new_turn_prefix,
    open_event_stream,
    parse_frames,
    read_frames_until,
    read_turn,
    text_turn,
    tool_result,
    types_of,
    user_message,
)

ANSWER = "It is sunny in Paris."
TEXT = "The quick brown fox jumps over the lazy dog."

def scenario(harness):
    """get_weather (under the name this harness's model sees) is called once per Turn; once its
    output ({"temp":21}) is back the model answers ANSWER in 3 deltas; without the tool, the model
    answers TEXT in 5 deltas."""
    return {
        "rules": [
            {
                "name": "call",
                "when": {"tool_offered": harness.weather, "tool_output_present": False},
                "reply": {"tool_calls": [{"name": harness.weather, "arguments": {"city": "Paris"}}]},
            },
            {
                "name": "answer",
                "when": {"last_kind": "tool_output", "last_text_contains": '"temp":21'},
                "reply": {"text": ANSWER, "deltas": 3},
            },
        ],
        "otherwise": {"text": TEXT, "deltas": 5},
    }


SCENARIO = scenario(CODEX)
HANDLERS = {"get_weather": lambda args: {"temp": 21}}
HANDLER_OUTPUT = '{"temp":21}'


def create_weather_session(engine, harness=CODEX):
    """A creation stream with a tool handler, collected: (events as dicts, final result)."""
    stream = harness.create(engine, stream=True, tool_handlers=HANDLERS).with_result_collection()
    events = as_dicts(stream)
    return events, stream.get_final_result()


def function_call_of(events):
    """The call ID of the (one) function call a Turn's events announce done."""
    (call_id,) = [e["item"]["call_id"] for e in events if e["type"] == ITEM_DONE and e["item"]["type"] == "function_call"]
    return call_id


def assert_turn_lifecycle(events, session_id):
    """turn.created shows the Turn queued, turn.in_progress running, Session snapshots follow."""
    created, in_progress = (next(e for e in events if e["type"] == t) for t in (T_CREATED, T_IN_PROGRESS))
    assert created["turn"]["status"] == "queued" and created["turn"]["session_id"] == session_id
    assert created["turn"]["id"] == created["turn_id"] and created["turn"]["subagent_id"] is None
    assert in_progress["turn"]["status"] == "in_progress" and in_progress["turn"]["started_at"] is not None
    for e in events:
        if e["type"] == S_IN_PROGRESS:
            assert e["session"]["status"] == "in_progress", e


def assert_function_call_turn(events, session_id):
    """The facts of one function-call Turn (events without agent.session.created)."""
    turn_id = events[0]["turn_id"]
    assert_turn_lifecycle(events, session_id)
    items = item_events(events)
    assert [(e["type"], e["item"]["type"], e["output_index"]) for e in items] == [
        (ITEM_ADDED, "message", None),
        (ITEM_ADDED, "function_call", 0),
        (ITEM_DONE, "function_call", 0),
        (ITEM_ADDED, "function_call_output", None),
        (ITEM_ADDED, "message", 1),
        (ITEM_DONE, "message", 1),
    ]
    assert_items_done_only_for_outputs(events)

    user, call_added, call_done, output, msg_added, msg_done = items
    assert user["item"]["role"] == "user" and user["item"]["phase"] is None
    assert user["item"]["status"] == "completed"
    call = call_done["item"]
    assert call["name"] == "get_weather" and call["status"] == "completed"
    assert call["id"] == call_added["item"]["id"] and call["call_id"] == call_added["item"]["call_id"]
    arguments = call["arguments"]
    assert (json.loads(arguments) if isinstance(arguments, str) else arguments) == {"city": "Paris"}

    # The required action names exactly that call, and goes away when the Session is idle.
    (requires_action,) = [e for e in events if e["type"] == S_REQUIRES_ACTION]
    assert requires_action["session"]["status"] == "requires_action"
    (action,) = requires_action["session"]["required_actions"]
    assert {k: action[k] for k in ("type", "call_id", "name", "turn_id")} == {
        "type": "function_call",
        "call_id": call["call_id"],
        "name": "get_weather",
        "turn_id": turn_id,
    }
    assert json.loads(action["arguments"]) == {"city": "Paris"}

    assert output["item"]["call_id"] == call["call_id"]
    assert output["item"]["output"] == '{"temp":21}' and output["item"]["error"] is None

    # The final answer: assistant message, phase final_answer, its whole text.
    msg = msg_done["item"]
    assert msg_added["item"]["status"] == "in_progress" and msg_added["item"]["content"] == []
    assert msg["id"] == msg_added["item"]["id"]
    assert msg["role"] == "assistant" and msg["status"] == "completed" and msg["phase"] == "final_answer"
    assert [(c["type"], c["text"]) for c in msg["content"]] == [("output_text", ANSWER)]
    deltas, done_text, part_text = message_text_events(events, msg["id"])
    assert "".join(d["delta"] for d in deltas) == done_text == part_text == ANSWER
    assert {(d["output_index"], d["content_index"]) for d in deltas} == {(1, 0)}

    # Every Turn event names this Session and Turn; Session events carry a snapshot instead.
    for e in events:
        if e["type"].startswith("agent.session.turn."):
            assert e["session_id"] == session_id and e["turn_id"] == turn_id, e
        else:
            assert "session_id" not in e and e["session"]["id"] == session_id, e
    completed = events[-2]
    assert completed["turn"]["status"] == "completed" and "usage" in completed
    idle = events[-1]["session"]
    assert idle["status"] == "idle" and idle["required_actions"] == []
    return turn_id


def test_function_call_turn_on_the_creation_stream(start_engine, harness):
    engine = start_engine(scenario(harness))
    events, result = create_weather_session(engine, harness)

    # The canonical order of a function Turn (§8.2), the final answer in the model's 3 deltas.
    assert types_of(events) == [CREATED] + function_call_turn(final_deltas=3)
    assert_unique_event_ids(events)
    session_id = events[0]["session"]["id"]
    assert events[0]["session"]["status"] in ("queued", "in_progress", "idle")
    turn_id = assert_function_call_turn(events[1:], session_id)

    assert result.turn.status == "completed" and result.turn_id == turn_id
    assert result.session_id == session_id
    assert result.output_text == ANSWER
    assert [(m.phase, m.status) for m in result.messages] == [("final_answer", "completed")]

    # The model got the handler's output as the result of its own call.
    calls = harness.model_calls(engine)
    assert [c["matched"]["name"] for c in calls] == ["call", "answer"]
    assert harness.weather in offered_tool_names(calls[0])
    harness.assert_sent_result(engine, function_call_of(events), HANDLER_OUTPUT)


def test_second_turn_through_the_sessions_stream_helper(start_engine, harness):
    engine = start_engine(scenario(harness))
    first_events, first = create_weather_session(engine, harness)
    session_id = first.session_id

    with engine.client.beta.agents.sessions.stream(
        session_id, input="And tomorrow?", tool_handlers=HANDLERS
    ) as stream:
        stream.with_result_collection()
        events = as_dicts(stream)
        result = stream.get_final_result()

    # A Turn on an existing Session: no agent.session.created, output_index restarts at 0.
    assert types_of(events) == function_call_turn(final_deltas=3)
    turn_id = assert_function_call_turn(events, session_id)
    assert turn_id != first.turn_id
    assert_unique_event_ids(first_events + events)

    assert result.turn_id == turn_id and result.turn.status == "completed"
    assert result.output_text == ANSWER
    turns = engine.client.beta.agents.sessions.turns.list(session_id, order="asc").data
    assert [(t.id, t.status) for t in turns] == [(first.turn_id, "completed"), (turn_id, "completed")]
    # The same conversation went on: the second Turn's requests carry the first Turn's
    # exchange, and the new call's result reached the model under its own id.
    calls = harness.model_calls(engine)
    assert [c["matched"]["name"] for c in calls] == ["call", "answer", "call", "answer"]
    texts = harness.user_texts(calls[2])
    assert "What is the weather in Paris?" in texts and "And tomorrow?" in texts
    first_call, call_id = function_call_of(first_events), function_call_of(events)
    assert call_id != first_call
    for c in (first_call, call_id):
        harness.assert_sent_result(engine, c, HANDLER_OUTPUT)


def test_raw_events_stream_spans_turns(start_engine):
    engine = start_engine(SCENARIO)
    first_events, first = create_weather_session(engine)
    session_id = first.session_id
    sessions = engine.client.beta.agents.sessions

    def answer_calls(event):
        if event["type"] == S_REQUIRES_ACTION:
            (action,) = event["session"]["required_actions"]
            sessions.events.create(session_id, events=[tool_result(action, '{"temp":21}')])

    stream = sessions.events.stream(session_id)
    try:
        sessions.events.create(session_id, events=[user_message("And tomorrow?")])
        second = read_turn(stream, answer_calls)
        # The same connection carries the next Turn too.
        sessions.events.create(session_id, events=[user_message("And the day after?")])
        third = read_turn(stream, answer_calls)
    finally:
        stream.close()

    for events in (second, third):
        assert types_of(events) == function_call_turn(final_deltas=3)
        assert_function_call_turn(events, session_id)
    assert len({first.turn_id, second[0]["turn_id"], third[0]["turn_id"]}) == 3
    assert_unique_event_ids(first_events + second + third)
    session = sessions.retrieve(session_id)
    assert session.status == "idle" and session.required_actions == []


def test_text_deltas_concatenate_to_the_done_text(start_engine):
    engine = start_engine(SCENARIO)
    stream = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input="Say something.", stream=True
    ).with_result_collection()
    events = as_dicts(stream)
    result = stream.get_final_result()

    assert types_of(events) == [CREATED] + text_turn(deltas=5)
    assert_unique_event_ids(events)
    assert_turn_lifecycle(events, events[0]["session"]["id"])
    assert_items_done_only_for_outputs(events)
    (done,) = [e for e in events if e["type"] == ITEM_DONE]
    message = done["item"]
    assert done["output_index"] == 0
    assert message["phase"] == "final_answer" and message["status"] == "completed"
    deltas, done_text, part_text = message_text_events(events, message["id"])
    assert len(deltas) == 5 and all(d["delta"] for d in deltas)
    assert "".join(d["delta"] for d in deltas) == done_text == part_text == TEXT
    assert [c["text"] for c in message["content"]] == [TEXT]
    assert result.output_text == TEXT


def test_creation_stream_bytes_are_plain_data_frames(start_engine):
    engine = start_engine(SCENARIO)
    status, headers, body = engine.raw.request(
        "POST",
        "/agents/sessions",
        {"environment": {"type": "none"}, "agent": {"model": "gpt-test"}, "input": "Say something.", "stream": True},
    )
    assert status == 201, body
    assert headers["Content-Type"].split(";")[0].strip() == "text/event-stream"
    assert isinstance(body, bytes)
    assert_plain_data_frames(body)
    frames = [json.loads(line[len("data: "):]) for frame in parse_frames(body) for line in frame if line.startswith("data: ")]
    # The stream closed by itself right after the idle that follows the Turn.
    assert types_of(frames) == [CREATED] + text_turn(deltas=5)
    assert_unique_event_ids(frames)


def test_events_get_sends_headers_before_any_event(start_engine):
    engine = start_engine(SCENARIO)
    stream = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input="Say something.", stream=True
    )
    earlier = as_dicts(stream)
    session_id = earlier[0]["session"]["id"]

    # The Session is idle, so no event can be pending: urlopen returns only if the server
    # flushes the status line and headers at once (agents-api-wire.md §8.1). Last-Event-ID is
    # ignored: the stream is live only and replays nothing.
    response = open_event_stream(
        engine.server.base_url, session_id, timeout=10, headers={"Last-Event-ID": earlier[0]["event_id"]}
    )
    try:
        assert response.status == 200
        assert response.headers["Content-Type"].split(";")[0].strip() == "text/event-stream"
        engine.client.beta.agents.sessions.events.create(session_id, events=[user_message("Say it again.")])

        def stop(frame, frames):
            return frame["type"] == S_IDLE and T_COMPLETED in types_of(frames)

        raw, frames = read_frames_until(response, stop)
    finally:
        response.close()
    assert_plain_data_frames(raw)
    # Live only: nothing from the first Turn or the creation, just the new Turn.
    assert types_of(frames) == text_turn(deltas=5)
    assert_unique_event_ids(earlier + frames)


def test_failed_turn_ends_the_creation_stream_with_session_failed(start_engine):
    # The provider refuses the first request (a 400 is not retried); later requests answer.
    engine = start_engine({"rules": [{"when": {"request": 1}, "reply": {"error": {"status": 400, "message": "nope"}}}]})
    sessions = engine.client.beta.agents.sessions
    stream = sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input="Say something.", stream=True
    ).with_result_collection()
    events = as_dicts(stream)

    # turn.failed then agent.session.failed, and the stream closed by itself (§8.2).
    assert types_of(events) == [CREATED] + new_turn_prefix() + [T_FAILED, S_FAILED]
    assert_unique_event_ids(events)
    failed_turn = events[-2]["turn"]
    assert failed_turn["status"] == "failed"
    assert failed_turn["error"] == {"code": "internal_error", "message": "The execution could not complete."}
    snapshot = events[-1]["session"]
    assert snapshot["status"] == "failed" and snapshot["required_actions"] == []
    assert snapshot["error"] == "The execution could not complete."
    with pytest.raises(AgentTurnResultError) as caught:
        stream.get_final_result()
    assert caught.value.reason == "failed"

    # The Session stays usable: a new message runs a new Turn to completion.
    session_id = snapshot["id"]
    live = sessions.events.stream(session_id)
    try:
        sessions.events.create(session_id, events=[user_message("Try again.")])
        again = read_turn(live)
    finally:
        live.close()
    assert types_of(again) == text_turn(deltas=1)
    assert sessions.retrieve(session_id).status == "idle"
