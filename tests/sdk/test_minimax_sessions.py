"""minimax_code Sessions through the official SDK, on both stand-ins for `mcode` (codex-acp or
claude-agent-acp started from the profile's own config.yaml, see minimax_support.py): the
function round trip with a tool handler and with manual `required_actions`, cancel while a call
is pending, steering with MiniMax Code's extension, and the 400 when no `mcode` is installed. Nothing here ran against MiniMax Code
itself."""

import json

import pytest
from openai import BadRequestError
from openai.lib.beta.agents import AgentTurnResultError

from minimax_support import MinimaxHarness, install_standin
from session_support import wait_for, wait_idle
from stream_support import S_REQUIRES_ACTION, assert_cancel_accepted, cancel_after, post_events, tool_result

HANDLERS = {"get_weather": lambda args: {"temp": 21}}
AGENTS = ["codex-acp", "claude-agent-acp"]


@pytest.fixture(params=AGENTS)
def minimax(start_engine, tmp_path, monkeypatch, request):
    """An engine whose Runtime finds the stand-in as `mcode`, and the harness profile."""
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(install_standin(tmp_path, request.param)))
    engine = start_engine()
    return engine, MinimaxHarness(engine.mock.base_url, request.param)


def final_text(engine, session_id):
    items = list(engine.client.beta.agents.sessions.items.list(session_id, order="asc"))
    return items, [i for i in items if i.type == "message" and i.role == "assistant"][-1].content[0].text


def unescaped(text):
    """codex hands the model the MCP content as JSON text (quotes escaped); Claude its text."""
    return text.replace('\\"', '"')


def test_tool_handler_round_trip_on_the_creation_stream(minimax):
    engine, harness = minimax
    result = harness.create(engine, stream=True, tool_handlers=HANDLERS).get_final_result()
    assert result.output_text.startswith("FINAL: ") and '"temp":21' in unescaped(result.output_text), result.output_text
    items, _ = final_text(engine, result.session_id)
    assert [i.type for i in items] == ["message", "function_call", "function_call_output", "message"]
    call = items[1]
    assert call.name == "get_weather"
    assert items[2].call_id == call.call_id
    # The profile's config.yaml carried the Session's provider: its key reached the model.
    calls = harness.model_calls(engine)
    assert calls
    for entry in calls:
        headers = entry["headers"]
        assert headers.get("authorization") == "Bearer mock-key" or headers.get("x-api-key") == "mock-key", headers


def test_manual_required_action_round_trip(minimax):
    engine, harness = minimax
    session_id, action = harness.create_pending(engine)
    assert action["name"] == "get_weather" and action["type"] == "function_call"
    status, _, body = post_events(engine, session_id, tool_result(action, "sunny, 21.0 C"))
    assert status == 202, body
    final = wait_idle(engine.raw, session_id)
    assert final["required_actions"] == [] and final["error"] is None
    items, text = final_text(engine, session_id)
    assert "sunny, 21.0 C" in text, text
    assert [i.type for i in items] == ["message", "function_call", "function_call_output", "message"]


def test_cancel_while_a_call_is_pending(minimax):
    engine, harness = minimax
    sessions = engine.client.beta.agents.sessions
    stream = harness.create(engine, stream=True).with_result_collection()
    events, cancel_response, _ = cancel_after(stream, lambda e: e["type"] == S_REQUIRES_ACTION, engine)
    assert_cancel_accepted(cancel_response)
    with pytest.raises(AgentTurnResultError) as caught:
        stream.get_final_result()
    assert caught.value.reason == "cancelled"
    session_id = events[0]["session"]["id"]
    session = sessions.retrieve(session_id)
    assert session.status == "idle" and session.required_actions == []
    # The Session goes on: the next message runs a whole Turn.
    with sessions.stream(session_id, input="And in Lyon?", tool_handlers=HANDLERS) as s:
        assert s.get_final_result().output_text.startswith("FINAL: ")


def test_refused_with_a_400_when_mcode_is_absent(start_engine, tmp_path, monkeypatch):
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(tmp_path / "no-mcode-here"))
    engine = start_engine()
    harness = MinimaxHarness(engine.mock.base_url)
    with pytest.raises(BadRequestError) as refused:
        harness.create(engine)
    message = refused.value.body["message"]
    assert message.startswith("No connected Runtime can run the minimax_code harness: "), message
    assert "SWITCHBOARD_MINIMAX_CODE_BIN" in message, message
    assert engine.client.beta.agents.sessions.list().data == []


@pytest.mark.parametrize("agent", AGENTS)
def test_a_message_during_a_turn_steers_with_the_profiles_extension(start_engine, tmp_path, monkeypatch, agent):
    # Neither stand-in agent has MiniMax Code's `mcode/session/steer`: the stand-in records it.
    record = tmp_path / "record"
    record.mkdir()
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(install_standin(tmp_path, agent, record=record)))
    engine = start_engine()
    harness = MinimaxHarness(engine.mock.base_url, agent)
    session_id, action = harness.create_pending(engine)
    status, _, body = post_events(engine, session_id, {"type": "agent.session.input.message", "input": "Answer faster."})
    assert status == 202, body
    steer = record / "steer.jsonl"
    sent = wait_for(lambda: steer.read_text() if steer.exists() else "", bool, what="the steer")
    [params] = [json.loads(line) for line in sent.splitlines()]
    assert params["prompt"] == [{"type": "text", "text": "Answer faster."}]
    # The steered message joined the running Turn, which goes on to its end.
    assert post_events(engine, session_id, tool_result(action, "sunny"))[0] == 202
    wait_idle(engine.raw, session_id)
    items, _ = final_text(engine, session_id)
    users = [i for i in items if i.type == "message" and i.role == "user"]
    assert [u.content[0].text for u in users][-1] == "Answer faster."
    assert {i.turn_id for i in items} == {action["turn_id"]}
