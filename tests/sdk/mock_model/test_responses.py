"""OpenAI Responses against the mock, parsed back by the official `openai` SDK."""

import json

import openai
import pytest
from pydantic import BaseModel

from .mock_support import WEATHER_TOOL_SCHEMA, count_tokens

TEXT = "The weather in Paris is sunny, 21 degrees."


def test_streamed_text_arrives_in_the_scripted_deltas(start_mock):
    mock = start_mock({"rules": [{"reply": {"text": TEXT, "deltas": 5}}]})
    events = list(mock.openai().responses.create(model="gpt-fake", input="Weather?", stream=True))
    kinds = [e.type for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert kinds.count("response.output_text.delta") == 5
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == TEXT
    completed = events[-1].response
    assert completed.output_text == TEXT
    assert completed.usage.output_tokens == count_tokens(TEXT)
    assert completed.usage.input_tokens == count_tokens("Weather?")
    assert completed.usage.total_tokens == count_tokens(TEXT) + count_tokens("Weather?")


def test_the_stream_helper_accumulates_the_final_response(start_mock):
    mock = start_mock({"rules": [{"reply": {"text": TEXT, "deltas": 7}}]})
    with mock.openai().responses.stream(model="gpt-fake", input="Weather?") as stream:
        deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == TEXT
    assert final.output_text == TEXT
    assert final.status == "completed"


def test_default_round_trip_calls_the_tool_then_reports_its_output(mock):
    client = mock.openai()
    tools = [{"type": "function", "name": "get_weather", "description": "Weather",
              "parameters": WEATHER_TOOL_SCHEMA, "strict": True}]
    first = client.responses.create(model="gpt-fake", input="Weather in Paris?", tools=tools)
    call = first.output[0]
    assert call.type == "function_call"
    assert call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": ""}

    second = client.responses.create(
        model="gpt-fake",
        tools=tools,
        input=[
            {"role": "user", "content": "Weather in Paris?"},
            {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
            {"type": "function_call_output", "call_id": call.call_id, "output": "sunny 21C"},
        ],
    )
    assert second.output_text == "FINAL: sunny 21C"

    journal = mock.journal()
    assert [e["request"] for e in journal] == [1, 2]
    sent = journal[1]["body"]["input"][-1]
    assert sent == {"type": "function_call_output", "call_id": call.call_id, "output": "sunny 21C"}
    assert journal[0]["headers"]["authorization"] == "Bearer dummy"


def test_namespaced_calls_carry_the_namespace(start_mock):
    mock = start_mock({"rules": [{"reply": {"tool_calls": [
        {"name": "mcp__lab__get_weather", "arguments": {"city": "Paris"}}]}}]})
    tools = [{"type": "namespace", "name": "mcp__lab", "description": "Tools in the mcp__lab namespace.",
              "tools": [{"type": "function", "name": "get_weather", "parameters": WEATHER_TOOL_SCHEMA}]}]
    events = list(mock.openai().responses.create(model="gpt-fake", input="q", tools=tools, stream=True))
    done = [e for e in events if e.type == "response.output_item.done"][0].item.to_dict()
    assert done["name"] == "get_weather"
    assert done["namespace"] == "mcp__lab"
    assert json.loads(done["arguments"]) == {"city": "Paris"}


class Answer(BaseModel):
    answer: str
    confidence: float
    tags: list[str]


def test_json_schema_answers_parse_into_the_model(mock):
    parsed = mock.openai().responses.parse(model="gpt-fake", input="Answer.", text_format=Answer)
    assert parsed.output_parsed == Answer(answer="", confidence=0, tags=[])
    fmt = mock.journal()[0]["body"]["text"]["format"]
    assert fmt["type"] == "json_schema"
    assert fmt["name"] == "Answer"


def test_scripted_structured_answers_parse_too(start_mock):
    value = {"answer": "42", "confidence": 0.9, "tags": ["x"]}
    mock = start_mock({"rules": [{"when": {"json_schema": True}, "reply": {"structured": value}}]})
    parsed = mock.openai().responses.parse(model="gpt-fake", input="Answer.", text_format=Answer)
    assert parsed.output_parsed == Answer(**value)


def test_scripted_errors_raise_the_sdk_error(start_mock):
    mock = start_mock({"rules": [{"reply": {"error": {"status": 429, "message": "slow down"}}}]})
    with pytest.raises(openai.RateLimitError) as raised:
        mock.openai().responses.create(model="gpt-fake", input="q", stream=True)
    assert raised.value.status_code == 429
    assert raised.value.body["message"] == "slow down"
