"""Structured output on the real `claude` binary: the Agent's `text.format` json_schema reaches
claude as `--json-schema` (claude offers it to the model as its `StructuredOutput` tool), and
the final answer is the text the model produced as that tool's input, byte for byte, in one
delta, never re-serialized; StructuredOutput is never a caller function. Schemas Claude's SDK
would read differently (numbers that change through binary64) or without an explicit object
root are refused at Session admission (execution-tools.md "Structured output";
crates/harness/src/admission/text.rs)."""

import json

import openai
import pytest

from claude_support import HARNESS, MODEL, WEATHER, create, create_raw, messages_calls
from conftest import WEATHER_FUNCTION, error_of
from session_support import sessions_raw
from stream_support import ITEM_DONE, TEXT_DELTA, as_dicts, types_of

# Keys out of alphabetical order, nesting, a non-integer, non-ASCII text and an escaped quote:
# anything but the model's own text would show.
ANSWER = {
    "city": "Paris",
    "temp": 21,
    "feels_like": 20.5,
    "notes": ["caf\u00e9 \u2600", 'a"b'],
    "z": {"b": None, "a": True},
}

SCHEMA = {
    "type": "object",
    "description": "A weather report.",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "temp": {"type": "integer", "maximum": 60.5},
        "feels_like": {"type": "number"},
        "notes": {"type": "array", "items": {"type": "string"}},
        "z": {"type": "object"},
    },
    "required": ["city", "temp"],
    "additionalProperties": False,
}

PROSE = "Here is the report."

# Each Turn opens with a get_weather call (requests 1 and 3). By request number: after a Turn
# that ended on StructuredOutput, claude sends the next user text in the same message as the
# StructuredOutput tool_result, so the mock's tool_output_present cannot tell the Turns apart.
CALL = {"tool_calls": [{"name": WEATHER, "arguments": {"city": "Paris"}}]}

SCENARIO = {
    "rules": [
        {"name": "call", "when": {"request": 1}, "reply": CALL},
        {"name": "call", "when": {"request": 3}, "reply": CALL},
        {
            "name": "structured",
            "when": {"json_schema": True},
            "reply": {"text": PROSE, "tool_calls": [{"name": "StructuredOutput", "arguments": ANSWER}]},
        },
    ],
    "otherwise": {"text": "No schema was asked for."},
}

HANDLERS = {"get_weather": lambda args: {"temp": 21}}
BINARY64_SCHEMA = "This runtime requires an object schema with lossless JSON numbers."


def json_schema_agent(schema=SCHEMA, tools=(WEATHER_FUNCTION,)):
    return {"model": MODEL, "tools": list(tools), "text": {"format": {"type": "json_schema", "schema": schema}}}


def structured_calls(calls):
    """(journal entry, the StructuredOutput arguments text the mock sent) per request of
    `calls` that answered with a StructuredOutput call."""
    out = []
    for entry in calls:
        for call in (entry.get("reply") or {}).get("tool_calls") or []:
            if call["name"] == "StructuredOutput":
                out.append((entry, call["arguments"]))
    return out


def assert_structured_turn(events, answer_text):
    """A Turn whose model called get_weather, then wrote prose and called StructuredOutput."""
    done = [e["item"] for e in events if e["type"] == ITEM_DONE]
    assert [(i["type"], i.get("phase")) for i in done] == [
        ("function_call", None),
        ("message", "commentary"),
        ("message", "final_answer"),
    ]
    call, prose, final = done
    # StructuredOutput is internal: the only function call is the caller's function.
    assert call["name"] == "get_weather"
    for e in events:
        if e["type"] == "agent.session.requires_action":
            assert [a["name"] for a in e["session"]["required_actions"]] == ["get_weather"]
    assert [c["text"] for c in prose["content"]] == [PROSE]
    assert final["role"] == "assistant" and final["status"] == "completed"
    assert [(c["type"], c["text"]) for c in final["content"]] == [("output_text", answer_text)]
    # The prose keeps its own message; the answer is one whole delta.
    assert prose["id"] != final["id"]
    deltas = [e["delta"] for e in events if e["type"] == TEXT_DELTA and e["item_id"] == final["id"]]
    assert deltas == [answer_text]
    assert events[-2]["type"] == "agent.session.turn.completed"


def test_final_answer_is_the_structured_output_text_byte_for_byte(start_engine):
    engine = start_engine(SCENARIO)
    sessions = engine.client.beta.agents.sessions
    stream = create(engine, stream=True, agent=json_schema_agent(), tool_handlers=HANDLERS).with_result_collection()
    first_events = as_dicts(stream)
    first = stream.get_final_result()
    first_calls = messages_calls(engine)

    with sessions.stream(first.session_id, input="And again.", tool_handlers=HANDLERS) as second_stream:
        second_stream.with_result_collection()
        second_events = as_dicts(second_stream)
        second = second_stream.get_final_result()

    second_calls = messages_calls(engine)[len(first_calls) :]

    for events, result, calls in ((first_events, first, first_calls), (second_events, second, second_calls)):
        # What the model produced as the StructuredOutput input, in this Turn.
        [(entry, produced)] = structured_calls(calls)
        assert json.loads(produced) == ANSWER
        assert_structured_turn(events, produced)
        assert result.turn.status == "completed"
        assert result.output_text == produced
        # claude ended the Turn on the StructuredOutput call: no model request after it.
        assert calls[-1]["seq"] == entry["seq"]

    assert [c["matched"]["name"] for c in messages_calls(engine)] == ["call", "structured"] * 2
    # Every request of every Turn offered the schema as the StructuredOutput tool's input schema.
    for entry in messages_calls(engine):
        [tool] = [t for t in entry["body"]["tools"] if t["name"] == "StructuredOutput"]
        assert tool["input_schema"] == SCHEMA

    history = [i for i in sessions.items.list(first.session_id, order="asc") if i.type == "message" and i.role == "assistant"]
    produced_texts = [p for _, p in structured_calls(messages_calls(engine))]
    assert [(i.phase, [c.text for c in i.content]) for i in history] == [
        ("commentary", [PROSE]),
        ("final_answer", [produced_texts[0]]),
        ("commentary", [PROSE]),
        ("final_answer", [produced_texts[1]]),
    ]
    # No function_call Item for StructuredOutput.
    calls = [i for i in sessions.items.list(first.session_id, order="asc") if i.type == "function_call"]
    assert [c.name for c in calls] == ["get_weather", "get_weather"]
    # The Session keeps the Agents API form of the format.
    assert sessions.retrieve(first.session_id).to_dict()["agent"]["text"]["format"] == {"type": "json_schema", "schema": SCHEMA}


def test_a_turn_without_the_structured_call_fails(start_engine):
    # The model only ever writes prose, however often claude asks for the structured call.
    engine = start_engine({"rules": [], "otherwise": {"text": "plain prose"}})
    stream = create(engine, stream=True, agent=json_schema_agent(tools=())).with_result_collection()
    events = as_dicts(stream)
    assert events[-2]["type"] == "agent.session.turn.failed", types_of(events)
    assert events[-1]["type"] == "agent.session.failed"
    # Prose never becomes the answer.
    finals = [e["item"] for e in events if e["type"] == ITEM_DONE and e["item"].get("phase") == "final_answer"]
    assert finals == []
    items = list(engine.client.beta.agents.sessions.items.list(events[0]["session"]["id"], order="asc"))
    assert not [i for i in items if i.type == "message" and i.phase == "final_answer"]


def unsupported(message):
    return {
        "message": message,
        "type": "invalid_request_error",
        "param": "agent.text.format",
        "code": "unsupported_or_invalid_configuration",
    }


# Raw JSON text, so that numbers keep their exact digits.
REJECTED_SCHEMAS = {
    "no-root-type": '{"properties": {"a": {"type": "string"}}, "required": ["a"]}',
    "above-2^53": '{"type": "object", "properties": {"n": {"type": "integer", "maximum": 9007199254740993}}}',
    "overflows": '{"type": "object", "properties": {"n": {"type": "number", "maximum": 1e400}}}',
    "subnormal-rounds": '{"type": "object", "properties": {"n": {"type": "number", "minimum": 2.5e-324}}}',
    "in-enum": '{"type": "object", "properties": {"n": {"enum": [12345678901234567890]}}}',
}


@pytest.mark.parametrize("schema_text", list(REJECTED_SCHEMAS.values()), ids=list(REJECTED_SCHEMAS))
def test_schemas_claude_cannot_read_unchanged_are_refused_at_create(engine, schema_text):
    body = (
        '{"environment": {"type": "none"}, "input": "Hi", "x_agents_core": {"harness": "claude_code"}, '
        '"agent": {"model": "%s", "text": {"format": {"type": "json_schema", "schema": %s}}}}' % (MODEL, schema_text)
    )
    status, _, got = engine.raw.request("POST", "/agents/sessions", body=body)
    assert status == 400, got
    assert error_of(got) == unsupported(BINARY64_SCHEMA)
    assert sessions_raw(engine.raw) == []
    assert messages_calls(engine) == []


def test_saved_agent_keeps_the_schema_but_a_claude_session_refuses_it(engine):
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9007199254740993}}}
    saved = engine.client.beta.agents.create(model=MODEL, text={"format": {"type": "json_schema", "schema": schema}})
    # The saved Agent keeps the exact number.
    status, _, raw_agent = engine.raw.request("GET", f"/agents/{saved.id}")
    assert status == 200 and raw_agent["text"]["format"]["schema"]["properties"]["n"]["maximum"] == 9007199254740993
    status, _, body = create_raw(engine, {"environment": {"type": "none"}, "agent_id": saved.id, "input": "Hi"})
    assert status == 400, body
    assert error_of(body) == unsupported(BINARY64_SCHEMA)
    # The SDK sees the same refusal.
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.create(
            environment={"type": "none"}, agent_id=saved.id, input="Hi", extra_body=HARNESS
        )
    assert e.value.body == unsupported(BINARY64_SCHEMA)
    assert sessions_raw(engine.raw) == []
