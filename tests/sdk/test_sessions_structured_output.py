"""Structured output on the Codex harness: the Agent's `text.format` json_schema reaches the model
as Codex's strict Responses `text.format` on every model request of every root Turn, and the
model's text is published unchanged as the final answer (execution-tools.md "Structured output";
core-contracts.md §4.1; agents-api-wire.md §4)."""

import pydantic

from conftest import WEATHER_FUNCTION
from stream_support import ITEM_DONE, as_dicts, model_requests

# Odd spacing, a newline and a trailing zero: any re-serialization would show.
ANSWER_TEXT = '{ "city" : "Paris",\n  "temp":21, "feels_like": 20.50 }'

SCHEMA = {
    "type": "object",
    "description": "A weather report.",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "temp": {"type": "integer"},
        "feels_like": {"type": "number"},
    },
    "required": ["city", "temp", "feels_like"],
    "additionalProperties": False,
}

SCENARIO = {
    "rules": [
        {
            "name": "call",
            "when": {"tool_offered": "get_weather", "tool_output_present": False},
            "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
        },
        {"name": "structured", "when": {"json_schema": True}, "reply": {"text": ANSWER_TEXT, "deltas": 3}},
    ],
    "otherwise": {"text": "No schema was asked for."},
}

HANDLERS = {"get_weather": lambda args: {"temp": 21}}


def codex_text_format(schema):
    """How codex 0.171.0 passes an output schema to a Responses provider."""
    return {"format": {"type": "json_schema", "name": "codex_output_schema", "strict": True, "schema": schema}}


def final_messages(events):
    return [e["item"] for e in events if e["type"] == ITEM_DONE and e["item"]["type"] == "message"]


def test_schema_reaches_the_model_on_every_turn_and_the_text_is_unchanged(start_engine):
    engine = start_engine(SCENARIO)
    sessions = engine.client.beta.agents.sessions
    stream = sessions.create(
        environment={"type": "none"},
        agent={
            "model": "gpt-test",
            "tools": [WEATHER_FUNCTION],
            "text": {"format": {"type": "json_schema", "schema": SCHEMA}},
        },
        input="Weather report for Paris, as JSON.",
        stream=True,
        tool_handlers=HANDLERS,
    ).with_result_collection()
    first_events = as_dicts(stream)
    first = stream.get_final_result()
    session_id = first.session_id
    first_requests = model_requests(engine)

    with sessions.stream(session_id, input="And again.", tool_handlers=HANDLERS) as second_stream:
        second_stream.with_result_collection()
        second_events = as_dicts(second_stream)
        second = second_stream.get_final_result()
    second_requests = model_requests(engine)[len(first_requests) :]

    # Each Turn: a request that got the function call, one that got the answer; every request
    # carries the schema unchanged as a strict Responses text.format.
    for requests in (first_requests, second_requests):
        assert [r["matched"]["name"] for r in requests] == ["call", "structured"]
        for r in requests:
            assert r["body"]["text"] == codex_text_format(SCHEMA), r["body"].get("text")

    # The final answer is the model's text, byte for byte.
    for events, result in ((first_events, first), (second_events, second)):
        (message,) = final_messages(events)
        assert message["phase"] == "final_answer" and message["status"] == "completed"
        assert [(c["type"], c["text"]) for c in message["content"]] == [("output_text", ANSWER_TEXT)]
        assert result.output_text == ANSWER_TEXT
    history = [i for i in sessions.items.list(session_id, order="asc") if i.type == "message" and i.role == "assistant"]
    assert [(i.phase, [c.text for c in i.content]) for i in history] == [("final_answer", [ANSWER_TEXT])] * 2

    # The Session snapshot keeps the Agents API form (no name, no strict).
    fmt = sessions.retrieve(session_id).to_dict()["agent"]["text"]["format"]
    assert fmt == {"type": "json_schema", "schema": SCHEMA}


def test_without_a_format_codex_asks_for_no_schema(start_engine):
    engine = start_engine(SCENARIO)
    result = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input="Just talk.", stream=True
    ).get_final_result()
    assert result.output_text == "No schema was asked for."
    (request,) = model_requests(engine)
    assert request["matched"] == "otherwise"
    assert "format" not in (request["body"].get("text") or {})


class Report(pydantic.BaseModel):
    city: str
    temp: int
    feels_like: float


def test_sdk_output_type_helper(start_engine):
    engine = start_engine(SCENARIO)
    sessions = engine.client.beta.agents.sessions
    result = sessions.create(
        environment={"type": "none"},
        agent={"model": "gpt-test"},
        input="Weather report for Paris, as JSON.",
        stream=True,
        output_type=Report,
    ).get_final_result()
    assert result.output_text == ANSWER_TEXT
    assert result.output_parsed == Report(city="Paris", temp=21, feels_like=20.5)

    # The SDK wrote its strict schema into agent.text.format; codex passed exactly that on.
    saved = sessions.retrieve(result.session_id).to_dict()["agent"]["text"]["format"]
    assert saved["type"] == "json_schema" and saved["schema"]["additionalProperties"] is False
    (request,) = model_requests(engine)
    assert request["body"]["text"] == codex_text_format(saved["schema"])

    # A later Turn still runs under the frozen schema and parses with the helper.
    with sessions.stream(result.session_id, input="Once more.", output_type=Report) as stream:
        again = stream.get_final_result()
    assert again.output_parsed == Report(city="Paris", temp=21, feels_like=20.5)
    assert model_requests(engine)[-1]["body"]["text"] == codex_text_format(saved["schema"])


def test_saved_schema_is_inherited_and_frozen_against_agent_updates(start_engine):
    engine = start_engine(SCENARIO)
    sessions = engine.client.beta.agents.sessions
    saved = engine.client.beta.agents.create(
        model="gpt-test", text={"format": {"type": "json_schema", "schema": SCHEMA}}
    )
    result = sessions.create(
        environment={"type": "none"}, agent_id=saved.id, input="Weather report, as JSON.", stream=True
    ).get_final_result()
    assert result.output_text == ANSWER_TEXT
    (request,) = model_requests(engine)
    assert request["body"]["text"] == codex_text_format(SCHEMA)

    # The Session froze the schema: changing the saved Agent later does not touch it.
    engine.client.beta.agents.update(saved.id, text={"format": {"type": "text"}})
    with sessions.stream(result.session_id, input="Again.") as stream:
        assert stream.get_final_result().output_text == ANSWER_TEXT
    assert model_requests(engine)[-1]["body"]["text"] == codex_text_format(SCHEMA)
