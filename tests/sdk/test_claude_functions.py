"""Function calls on the real `claude` binary (claude_code Sessions) through the official SDK:
the manual flow from a fresh client, the Items history, and the exact text that reached the
model as an Anthropic `tool_result` block (execution-tools.md "Functions", harnesses.md §3). The
tool-handler roundtrip on the creation stream and through `sessions.stream`, with the canonical
event order of the Turn (agents-api-wire.md §8.2), runs on both harnesses in
test_sessions_stream_order.py."""

from openai import OpenAI

from claude_support import CLAUDE, WEATHER, create
from conftest import API_KEY
from session_support import items_raw, wait_idle, wait_required_actions

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
    CLAUDE.assert_sent_result(engine, saved["call_id"], text)


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
    CLAUDE.assert_sent_result(engine, action["call_id"], "lookup failed\nno such city", is_error=True)
