"""OpenAI Chat Completions against the mock, parsed back by the official `openai` SDK."""

import json

from pydantic import BaseModel

from .mock_support import WEATHER_TOOL_SCHEMA, count_tokens

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_TOOL_SCHEMA}}]


def test_tool_calls_then_final_text(mock):
    client = mock.openai()
    messages = [{"role": "user", "content": "Weather in Oslo?"}]
    first = client.chat.completions.create(model="gpt-fake", messages=messages, tools=TOOLS)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": ""}

    messages += [choice.message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "-3C"}]
    second = client.chat.completions.create(model="gpt-fake", messages=messages, tools=TOOLS)
    assert second.choices[0].message.content == "FINAL: -3C"
    assert second.choices[0].finish_reason == "stop"
    assert second.usage.completion_tokens == count_tokens("FINAL: -3C")


def test_streamed_text_and_usage(start_mock):
    text = "Cold and clear tonight."
    mock = start_mock({"rules": [{"reply": {"text": text, "deltas": 4}}]})
    chunks = list(mock.openai().chat.completions.create(
        model="gpt-fake", messages=[{"role": "user", "content": "hi"}], stream=True,
        stream_options={"include_usage": True}))
    content = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(content) == 4 and "".join(content) == text
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.completion_tokens == count_tokens(text)
    assert chunks[-1].usage.prompt_tokens == count_tokens("hi")


def test_streamed_tool_calls_assemble(start_mock):
    mock = start_mock({"rules": [{"reply": {"tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_a"},
        {"name": "get_weather", "arguments": {"city": "Rome"}}]}}]})
    chunks = list(mock.openai().chat.completions.create(
        model="gpt-fake", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, stream=True))
    calls = {}
    for chunk in chunks:
        for delta in chunk.choices[0].delta.tool_calls or []:
            entry = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
            entry["id"] = delta.id or entry["id"]
            if delta.function.name:
                entry["name"] += delta.function.name
            entry["arguments"] += delta.function.arguments or ""
    assert calls == {
        0: {"id": "call_a", "name": "get_weather", "arguments": '{"city":"Oslo"}'},
        1: {"id": "call_1_1", "name": "get_weather", "arguments": '{"city":"Rome"}'},
    }
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


class Forecast(BaseModel):
    city: str
    high: int


def test_response_format_parses_into_the_model(mock):
    completion = mock.openai().chat.completions.parse(
        model="gpt-fake", messages=[{"role": "user", "content": "Forecast?"}], response_format=Forecast)
    assert completion.choices[0].message.parsed == Forecast(city="", high=0)
