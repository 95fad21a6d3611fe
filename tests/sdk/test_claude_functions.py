"""Function calls on the real `claude` binary (claude_code Sessions) through the official SDK:
the tool-handler roundtrip on the creation stream and through `sessions.stream` on a later Turn,
the manual flow from a fresh client, the Items history, the canonical event order of the Turn,
and the exact text that reached the model as an Anthropic `tool_result` block
(execution-tools.md "Functions", harnesses.md §3; agents-api-wire.md §8.2)."""

import json

from openai import OpenAI

from claude_support import WEATHER, block_text, create, function_result_blocks, messages_calls
from conftest import API_KEY
from session_support import items_raw, wait_idle, wait_required_actions
from stream_support import (
    CREATED,
    ITEM_ADDED,
    ITEM_DONE,
    S_IN_PROGRESS,
    S_REQUIRES_ACTION,
    T_CREATED,
    T_IN_PROGRESS,
    as_dicts,
    assert_items_done_only_for_outputs,
    assert_unique_event_ids,
    function_call_turn,
    item_events,
    message_text_events,
    types_of,
)

ANSWER = "It is sunny in Paris."

# The model calls get_weather (an MCP tool of the adapter's `functions` server) once per Turn
# with {"city": "Paris"}; once a tool output is back it answers ANSWER in 3 deltas.
SCENARIO = {
    "rules": [
        {
            "name": "call",
            "when": {"protocol": "anthropic", "tool_offered": WEATHER, "tool_output_present": False},
            "reply": {"tool_calls": [{"name": WEATHER, "arguments": {"city": "Paris"}}]},
        },
        {"name": "answer", "when": {"protocol": "anthropic", "last_kind": "tool_output"}, "reply": {"text": ANSWER, "deltas": 3}},
    ],
    "otherwise": {"text": "Nothing scripted."},
}

HANDLERS = {"get_weather": lambda args: {"temp": 21}}
HANDLER_OUTPUT = '{"temp":21}'


def assert_function_call_turn(events, session_id):
    """The facts of one claude function-call Turn (events without agent.session.created)."""
    turn_id = events[0]["turn_id"]
    created = next(e for e in events if e["type"] == T_CREATED)
    in_progress = next(e for e in events if e["type"] == T_IN_PROGRESS)
    assert created["turn"]["status"] == "queued" and created["turn"]["session_id"] == session_id
    assert in_progress["turn"]["status"] == "in_progress" and in_progress["turn"]["started_at"] is not None
    for e in events:
        if e["type"] == S_IN_PROGRESS:
            assert e["session"]["status"] == "in_progress", e

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
    assert user["item"]["role"] == "user" and user["item"]["status"] == "completed"
    call = call_done["item"]
    # The public name, not claude's mcp__functions__ spelling; the model's arguments.
    assert call["name"] == "get_weather" and call["status"] == "completed"
    assert call["id"] == call_added["item"]["id"] and call["call_id"] == call_added["item"]["call_id"]
    assert json.loads(call["arguments"]) == {"city": "Paris"}

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
    assert output["item"]["output"] == HANDLER_OUTPUT and output["item"]["error"] is None

    msg = msg_done["item"]
    assert msg["id"] == msg_added["item"]["id"]
    assert msg["role"] == "assistant" and msg["status"] == "completed" and msg["phase"] == "final_answer"
    assert [(c["type"], c["text"]) for c in msg["content"]] == [("output_text", ANSWER)]
    deltas, done_text, part_text = message_text_events(events, msg["id"])
    assert "".join(d["delta"] for d in deltas) == done_text == part_text == ANSWER

    for e in events:
        if e["type"].startswith("agent.session.turn."):
            assert e["session_id"] == session_id and e["turn_id"] == turn_id, e
        else:
            assert "session_id" not in e and e["session"]["id"] == session_id, e
    assert events[-2]["turn"]["status"] == "completed"
    idle = events[-1]["session"]
    assert idle["status"] == "idle" and idle["required_actions"] == []
    return turn_id, call["call_id"]


def create_weather_session(engine):
    stream = create(engine, stream=True, tool_handlers=HANDLERS).with_result_collection()
    events = as_dicts(stream)
    return events, stream.get_final_result()


def test_tool_handler_roundtrip_on_the_creation_stream(start_engine):
    engine = start_engine(SCENARIO)
    events, result = create_weather_session(engine)

    # The canonical order of a function Turn (§8.2), the final answer streamed in the model's
    # 3 deltas.
    assert types_of(events) == [CREATED] + function_call_turn(final_deltas=3)
    assert_unique_event_ids(events)
    session_id = events[0]["session"]["id"]
    assert events[0]["session"]["status"] in ("queued", "in_progress", "idle")
    turn_id, call_id = assert_function_call_turn(events[1:], session_id)

    assert result.turn.status == "completed" and result.turn_id == turn_id and result.session_id == session_id
    assert result.output_text == ANSWER
    assert [(m.phase, m.status) for m in result.messages] == [("final_answer", "completed")]

    # The model got the handler's output as the tool_result of its own tool-use id.
    calls = messages_calls(engine)
    assert [c["matched"]["name"] for c in calls] == ["call", "answer"]
    assert WEATHER in [t["name"] for t in calls[0]["body"]["tools"]]
    block = function_result_blocks(engine, [call_id])[call_id]
    assert block_text(block) == HANDLER_OUTPUT and not block.get("is_error")


def test_second_turn_through_the_sessions_stream_helper(start_engine):
    engine = start_engine(SCENARIO)
    first_events, first = create_weather_session(engine)
    session_id = first.session_id

    with engine.client.beta.agents.sessions.stream(session_id, input="And tomorrow?", tool_handlers=HANDLERS) as stream:
        stream.with_result_collection()
        events = as_dicts(stream)
        result = stream.get_final_result()

    # A Turn on an existing Session: no agent.session.created, output_index restarts at 0.
    assert types_of(events) == function_call_turn(final_deltas=3)
    turn_id, call_id = assert_function_call_turn(events, session_id)
    assert turn_id != first.turn_id
    assert_unique_event_ids(first_events + events)
    assert result.turn_id == turn_id and result.turn.status == "completed"
    assert result.output_text == ANSWER

    turns = engine.client.beta.agents.sessions.turns.list(session_id, order="asc").data
    assert [(t.id, t.status) for t in turns] == [(first.turn_id, "completed"), (turn_id, "completed")]
    # The same claude conversation went on: the second Turn's requests carry the first Turn's
    # exchange, and the new call's result reached the model under its own id.
    calls = messages_calls(engine)
    assert [c["matched"]["name"] for c in calls] == ["call", "answer", "call", "answer"]
    texts = [
        b.get("text")
        for m in calls[2]["body"]["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
    ]
    assert "What is the weather in Paris?" in texts and "And tomorrow?" in texts
    first_call = next(e["item"]["call_id"] for e in first_events if e["type"] == ITEM_DONE and e["item"]["type"] == "function_call")
    assert call_id != first_call
    blocks = function_result_blocks(engine, [first_call, call_id])
    assert [block_text(blocks[c]) for c in (first_call, call_id)] == [HANDLER_OUTPUT, HANDLER_OUTPUT]


def test_manual_result_from_a_fresh_client(start_engine):
    engine = start_engine(SCENARIO)
    first = engine.client
    session = create(engine)
    assert session.status in ("queued", "in_progress", "requires_action")

    # Follow the live stream; the read after subscribing covers an action published before it.
    with first.beta.agents.sessions.events.stream(session.id, timeout=60) as stream:
        current = first.beta.agents.sessions.retrieve(session.id)
        if not current.required_actions:
            for event in stream:
                if event.type == "agent.session.requires_action":
                    current = event.session
                    break
    assert current.status == "requires_action"
    [action] = current.required_actions
    assert action.type == "function_call" and action.name == "get_weather"
    saved = {"turn_id": action.turn_id, "call_id": action.call_id}
    first.close()

    # A fresh client (the application restarted) reads the pending call and answers it.
    second = OpenAI(base_url=engine.server.base_url, api_key=API_KEY, max_retries=0)
    recovered = second.beta.agents.sessions.retrieve(session.id)
    assert recovered.status == "requires_action"
    assert [a.model_dump() for a in recovered.required_actions] == [
        {
            "arguments": '{"city":"Paris"}',
            "call_id": saved["call_id"],
            "name": "get_weather",
            "turn_id": saved["turn_id"],
            "type": "function_call",
        }
    ]
    text = 'sunny, 21.0 C {"raw": 1.000}\n'
    got = second.beta.agents.sessions.events.create(
        session.id,
        events=[
            {
                "type": "agent.session.input.tool_result",
                "turn_id": saved["turn_id"],
                "call_id": saved["call_id"],
                "success": True,
                "output": text,
            }
        ],
    )
    assert got is None  # 202, empty body
    final = wait_idle(engine.raw, session.id)
    assert final["required_actions"] == [] and final["error"] is None
    turn = second.beta.agents.sessions.turns.retrieve(saved["turn_id"], session_id=session.id)
    assert turn.status == "completed"

    items = [i.model_dump() for i in second.beta.agents.sessions.items.list(session.id, order="asc")]
    assert [i["type"] for i in items] == ["message", "function_call", "function_call_output", "message"]
    assert items[0]["role"] == "user" and items[0]["content"][0]["text"] == "What is the weather in Paris?"
    assert items[1]["call_id"] == saved["call_id"] and items[1]["arguments"] == '{"city":"Paris"}'
    assert {k: items[2][k] for k in ("call_id", "output", "error", "turn_id", "status")} == {
        "call_id": saved["call_id"],
        "output": text,
        "error": None,
        "turn_id": saved["turn_id"],
        "status": "completed",
    }
    assert items[3]["role"] == "assistant" and items[3]["phase"] == "final_answer" and items[3]["status"] == "completed"
    assert items[3]["content"][0]["text"] == ANSWER
    # Exactly the saved text reached the model, as a successful tool_result.
    block = function_result_blocks(engine, [saved["call_id"]])[saved["call_id"]]
    assert block_text(block) == text and not block.get("is_error")


def test_failed_result_history_and_what_the_model_received(start_engine):
    engine = start_engine(SCENARIO)
    session = create(engine)
    [action] = wait_required_actions(engine.raw, session.id)["required_actions"]
    status, _, body = engine.raw.request(
        "POST",
        f"/agents/sessions/{session.id}/events",
        body={
            "events": [
                {
                    "type": "agent.session.input.tool_result",
                    "turn_id": action["turn_id"],
                    "call_id": action["call_id"],
                    "success": False,
                    "output": "lookup failed",
                    "error": "no such city",
                }
            ]
        },
    )
    assert (status, body) == (202, None)
    wait_idle(engine.raw, session.id)

    items = items_raw(engine.raw, session.id)
    assert [(i["type"], i.get("role")) for i in items] == [
        ("message", "user"),
        ("function_call", None),
        ("function_call_output", None),
        ("message", "assistant"),
    ]
    user, call, output, answer = items
    assert [c["text"] for c in user["content"]] == ["What is the weather in Paris?"]
    assert (call["name"], call["call_id"], call["status"]) == ("get_weather", action["call_id"], "completed")
    assert set(output) == {"id", "type", "turn_id", "call_id", "output", "error", "status"}
    assert (output["call_id"], output["output"], output["error"]) == (action["call_id"], "lookup failed", "no such city")
    assert (answer["phase"], answer["status"], [c["text"] for c in answer["content"]]) == (
        "final_answer",
        "completed",
        [ANSWER],
    )
    # The model received one error tool_result: the output, then the error, on its own line.
    block = function_result_blocks(engine, [action["call_id"]])[action["call_id"]]
    assert block.get("is_error") is True
    assert block_text(block) == "lookup failed\nno such city"
