"""Anthropic Messages against the mock, parsed back by the official `anthropic` SDK."""

import urllib.request

import anthropic
import pytest

from .mock_support import WEATHER_TOOL_SCHEMA, count_tokens

TOOLS = [{"name": "mcp__lab__get_weather", "description": "Get weather", "input_schema": WEATHER_TOOL_SCHEMA}]


def test_tool_use_then_final_text(mock):
    client = mock.anthropic()
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.messages.create(model="claude-fake", max_tokens=1000, messages=messages, tools=TOOLS)
    assert first.stop_reason == "tool_use"
    tool_use = first.content[0]
    assert tool_use.type == "tool_use" and tool_use.name == "mcp__lab__get_weather"
    assert tool_use.input == {"city": ""}

    messages += [
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id,
                                       "content": [{"type": "text", "text": "foggy 12C"}]}]},
    ]
    second = client.messages.create(model="claude-fake", max_tokens=1000, messages=messages, tools=TOOLS)
    assert second.stop_reason == "end_turn"
    assert second.content[0].text == "FINAL: foggy 12C"
    assert second.usage.output_tokens == count_tokens("FINAL: foggy 12C")


def test_the_stream_helper_accumulates_text_and_tool_input(start_mock):
    text = "Let me look that up for you."
    mock = start_mock({"rules": [{"reply": {"text": text, "deltas": 6, "tool_calls": [
        {"name": "mcp__lab__get_weather", "arguments": {"city": "Paris"}}]}}]})
    with mock.anthropic().messages.stream(
            model="claude-fake", max_tokens=1000, tools=TOOLS,
            messages=[{"role": "user", "content": "Weather?"}]) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    assert len(pieces) == 6 and "".join(pieces) == text
    assert final.content[0].text == text
    assert final.content[1].input == {"city": "Paris"}
    assert final.stop_reason == "tool_use"
    assert final.usage.input_tokens == count_tokens("Weather?") + count_tokens("mcp__lab__get_weather") \
        + count_tokens("Get weather") + count_tokens("city")


def test_beta_messages_and_the_beta_query(start_mock):
    mock = start_mock({"rules": [{"reply": {"text": "ok"}}]})
    client = mock.anthropic()
    message = client.beta.messages.create(
        model="claude-fake", max_tokens=10, messages=[{"role": "user", "content": "hi"}],
        betas=["context-management-2025-06-27"])
    assert message.content[0].text == "ok"
    # Claude Code posts to /v1/messages?beta=true.
    message = client.messages.create(
        model="claude-fake", max_tokens=10, messages=[{"role": "user", "content": "hi"}],
        extra_query={"beta": "true"})
    assert message.content[0].text == "ok"
    first, second = mock.journal()
    assert first["headers"]["anthropic-beta"] == "context-management-2025-06-27"
    # anthropic 2.14 sends the key as a bearer token (Claude Code sends x-api-key).
    assert first["headers"]["authorization"] == "Bearer dummy"
    assert "anthropic-version" in first["headers"]
    assert (second["path"], second["query"]) == ("/v1/messages", "beta=true")


def test_count_tokens(mock):
    count = mock.anthropic().messages.count_tokens(
        model="claude-fake", system="Be brief.", messages=[{"role": "user", "content": "How are you?"}])
    assert count.input_tokens == count_tokens("Be brief.") + count_tokens("How are you?")


def test_json_schema_runs_get_a_structured_output_call(mock):
    schema = {"type": "object", "properties": {"answer": {"type": "string"}, "confidence": {"type": "number"}},
              "required": ["answer", "confidence"]}
    message = mock.anthropic().messages.create(
        model="claude-fake", max_tokens=1000, messages=[{"role": "user", "content": "answer"}],
        tools=[{"name": "StructuredOutput", "description": "Return the final response.", "input_schema": schema}])
    block = message.content[0]
    assert (block.type, block.name, block.input) == ("tool_use", "StructuredOutput", {"answer": "", "confidence": 0})


def test_scripted_errors_raise_the_sdk_error(start_mock):
    mock = start_mock({"rules": [{"reply": {"error": {"status": 529, "message": "Overloaded"}}}]})
    with pytest.raises(anthropic.APIStatusError) as raised:
        mock.anthropic().messages.create(model="claude-fake", max_tokens=10,
                                          messages=[{"role": "user", "content": "hi"}])
    assert raised.value.status_code == 529
    assert raised.value.body["error"] == {"type": "overloaded_error", "message": "Overloaded"}


def test_head_root_answers_200(mock):
    with urllib.request.urlopen(urllib.request.Request(mock.base_url + "/", method="HEAD")) as response:
        assert response.status == 200
