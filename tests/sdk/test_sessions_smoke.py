"""The headline flow: `sessions.create(stream=True, tool_handlers=…)` on the real codex harness
finishes with the model's final answer, and the Session's history shows the whole Turn."""

from conftest import WEATHER_FUNCTION


def test_stream_with_tool_handler_returns_the_final_answer(engine):
    stream = engine.client.beta.agents.sessions.create(
        environment={"type": "none"},
        agent={"model": "gpt-test", "tools": [WEATHER_FUNCTION]},
        input="What is the weather in Paris?",
        stream=True,
        tool_handlers={"get_weather": lambda args: {"temp": 21}},
    )
    result = stream.get_final_result()
    assert result.turn.status == "completed"
    # The mock's default answer quotes the function output it received.
    assert '{"temp":21}' in result.output_text

    session = engine.client.beta.agents.sessions.list(limit=1).data[0]
    assert session.status == "idle"
    assert session.required_actions == []
    items = list(engine.client.beta.agents.sessions.items.list(session.id, order="asc"))
    assert [i.type for i in items] == ["message", "function_call", "function_call_output", "message"]
    assert items[0].role == "user" and items[0].phase is None
    assert items[2].output == '{"temp":21}' and items[2].error is None
    assert items[3].phase == "final_answer" and items[3].status == "completed"
