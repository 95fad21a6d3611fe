"""Scenario features end to end through `switchboard mock-model --script`: rule conditions,
limits, errors, delays, dropped connections, and the journal file."""

import time

import openai
import pytest

RESPONSES_TOOL = {"type": "function", "name": "get_weather",
                  "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}


def text_of(response):
    return response.output_text


def test_rules_match_in_order_and_respect_times(start_mock):
    mock = start_mock({
        "rules": [
            {"name": "second request", "when": {"request": 2}, "reply": {"text": "two"}},
            {"when": {"last_text_contains": "Paris"}, "reply": {"text": "paris"}, "times": 1},
            {"when": {"tool_offered": "get_weather"}, "reply": {"text": "tool offered"}},
        ],
        "otherwise": {"text": "otherwise"},
    })
    client = mock.openai()
    asked = [
        client.responses.create(model="m", input="Paris?"),
        client.responses.create(model="m", input="Paris?"),
        client.responses.create(model="m", input="Paris?"),
        client.responses.create(model="m", input="Rome?", tools=[RESPONSES_TOOL]),
        client.responses.create(model="m", input="Rome?"),
    ]
    assert [text_of(r) for r in asked] == ["paris", "two", "otherwise", "tool offered", "otherwise"]
    matched = [e["matched"] for e in mock.journal()]
    assert matched[1] == {"rule": 0, "name": "second request"}
    assert matched[2] == "otherwise"


def test_a_dropped_connection_is_a_connection_error(start_mock):
    mock = start_mock({"rules": [{"reply": {"drop": True}, "times": 1}]})
    client = mock.openai()
    with pytest.raises(openai.APIConnectionError):
        client.responses.create(model="m", input="q")
    assert client.responses.create(model="m", input="q").output_text == "ECHO: q"


def test_a_stream_cut_after_events_breaks_the_sdk_stream(start_mock):
    mock = start_mock({"rules": [{"reply": {"text": "a b c d e f", "deltas": 6, "drop": {"after_events": 4}}}]})
    received = []
    with pytest.raises(Exception):
        for event in mock.openai().responses.create(model="m", input="q", stream=True):
            received.append(event.type)
    assert received == ["response.created", "response.output_item.added", "response.content_part.added",
                        "response.output_text.delta"]


def test_delay_holds_the_reply(start_mock):
    mock = start_mock({"rules": [{"reply": {"text": "late", "delay_ms": 400}}]})
    started = time.monotonic()
    response = mock.openai().chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    assert time.monotonic() - started >= 0.4
    assert response.choices[0].message.content == "late"


def test_the_journal_file_records_requests_and_replies(start_mock):
    mock = start_mock({"rules": [{"reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}}]})
    mock.openai().responses.create(
        model="gpt-fake", input="Weather?", tools=[RESPONSES_TOOL],
        text={"format": {"type": "json_schema", "name": "out", "strict": True,
                         "schema": {"type": "object", "properties": {}, "additionalProperties": False}}},
        extra_headers={"originator": "sdk-suite"})
    [entry] = mock.journal()
    assert entry["seq"] == 1 and entry["request"] == 1
    assert (entry["method"], entry["path"], entry["protocol"]) == ("POST", "/v1/responses", "responses")
    assert entry["headers"]["originator"] == "sdk-suite"
    assert entry["body"]["tools"] == [RESPONSES_TOOL]
    assert entry["body"]["text"]["format"]["name"] == "out"
    reply = entry["reply"]
    assert reply["status"] == 200 and reply["id"] == "resp_1"
    assert reply["tool_calls"] == [{"name": "get_weather", "namespace": None, "arguments": '{"city":"Oslo"}'}]
