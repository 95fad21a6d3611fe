"""Execution controls on the real `claude` binary, observed in what claude sent the mock model:
on environment none, `web_search` live offers only claude's provider-side `WebSearch` (WebFetch
stays off), disabled or omitted offers neither, and no other built-in tool is ever offered;
`programmatic_tool_calling` is `false` only; web_search settings beyond context_size medium are
refused (execution-tools.md "Web search and programmatic tool calling", Claude Code row;
crates/harness/src/declarations/claude_code.rs)."""

import openai
import pytest

from claude_support import HARNESS, MODEL, WEATHER, create, create_raw, messages_calls
from conftest import WEATHER_FUNCTION, error_of
from session_support import sessions_raw

SCENARIO = {"rules": [], "otherwise": {"text": "Done.", "deltas": 2}}

# claude's built-in tools that environment none must never offer.
BUILT_IN = {"Bash", "Read", "Write", "Edit", "Glob", "Grep", "Task", "Agent", "TodoWrite", "WebFetch", "NotebookEdit"}


def first_request_tools(engine, tools=None):
    """Runs one Turn of a fresh claude Session whose inline Agent has `tools` (absent when None)
    and returns the `tools` of the one Messages request that Turn made."""
    since = len(engine.journal())
    agent = {"model": MODEL}
    if tools is not None:
        agent["tools"] = tools
    result = create(engine, stream=True, agent=agent, input="Hello.").get_final_result()
    assert result.turn.status == "completed" and result.output_text == "Done."
    [request] = messages_calls(engine, since)
    return request["body"].get("tools") or []


def names(tools):
    return [t.get("name") for t in tools]


def test_web_search_live_offers_only_websearch_and_disabled_offers_nothing(start_engine):
    engine = start_engine(SCENARIO)
    omitted = first_request_tools(engine)
    live = first_request_tools(engine, [{"type": "web_search", "mode": "live"}])
    disabled = first_request_tools(engine, [{"type": "web_search", "mode": "disabled"}])
    # The omitted mode resolves to live, with the resolved context_size medium.
    defaulted = first_request_tools(engine, [{"type": "web_search"}])
    medium = first_request_tools(engine, [{"type": "web_search", "mode": "live", "context_size": "medium"}])

    assert names(live) == ["WebSearch"]
    assert names(defaulted) == names(medium) == ["WebSearch"]
    # live is claude's own WebSearch tool, a client tool the model calls by name.
    [web_search] = live
    assert web_search["name"] == "WebSearch" and "input_schema" in web_search
    assert "query" in web_search["input_schema"]["properties"]
    # disabled removes it (and WebFetch); omitted keeps claude's none profile: no built-ins.
    assert names(disabled) == []
    assert names(omitted) == []
    for tools in (live, disabled, omitted, defaulted, medium):
        assert not BUILT_IN & set(names(tools)), names(tools)


def test_web_search_beside_functions(start_engine):
    engine = start_engine(SCENARIO)
    live = first_request_tools(engine, [WEATHER_FUNCTION, {"type": "web_search", "mode": "live"}])
    disabled = first_request_tools(engine, [{"type": "web_search", "mode": "disabled"}, WEATHER_FUNCTION])
    functions_only = first_request_tools(engine, [WEATHER_FUNCTION])
    assert sorted(names(live)) == sorted(["WebSearch", WEATHER])
    assert names(disabled) == names(functions_only) == [WEATHER]


def test_programmatic_tool_calling_false_is_admitted_and_changes_nothing(start_engine):
    engine = start_engine(SCENARIO)
    bare = first_request_tools(engine)
    off = first_request_tools(engine, [{"type": "programmatic_tool_calling", "enabled": False}])
    off_with_function = first_request_tools(engine, [{"type": "programmatic_tool_calling", "enabled": False}, WEATHER_FUNCTION])
    assert names(off) == names(bare) == []
    assert names(off_with_function) == [WEATHER]
    # The Session keeps the control as given.
    session = engine.client.beta.agents.sessions.list(limit=1).data[0].to_dict()
    assert {"type": "programmatic_tool_calling", "enabled": False} in session["agent"]["tools"]


def unsupported(param, message):
    return {"message": message, "type": "invalid_request_error", "param": param, "code": "unsupported_or_invalid_configuration"}


@pytest.mark.parametrize(
    "tools,param,message",
    [
        (
            [{"type": "programmatic_tool_calling", "enabled": True}],
            "agent.tools[0].enabled",
            "The harness does not support programmatic_tool_calling enabled=true.",
        ),
        (
            [WEATHER_FUNCTION, {"type": "programmatic_tool_calling", "enabled": True}],
            "agent.tools[1].enabled",
            "The harness does not support programmatic_tool_calling enabled=true.",
        ),
        (
            [{"type": "web_search", "mode": "cached"}],
            "agent.tools[0].mode",
            "The harness does not support web_search mode 'cached'.",
        ),
        (
            [{"type": "web_search", "mode": "live", "context_size": "high"}],
            "agent.tools[0].context_size",
            "The harness supports web_search context_size 'medium' only.",
        ),
        (
            [{"type": "web_search", "mode": "disabled", "context_size": "low"}],
            "agent.tools[0].context_size",
            "The harness supports web_search context_size 'medium' only.",
        ),
        (
            [{"type": "web_search", "mode": "live", "allowed_domains": ["example.com"]}],
            "agent.tools[0].allowed_domains",
            "The harness does not support web_search allowed_domains.",
        ),
        (
            [{"type": "web_search", "mode": "live", "location": {"country": "FR"}}],
            "agent.tools[0].location",
            "The harness does not support web_search location.",
        ),
    ],
    ids=["ptc-true", "ptc-true-second", "ws-cached", "ws-high", "ws-disabled-low", "ws-domains", "ws-location"],
)
def test_unsupported_controls_are_refused_at_create(engine, tools, param, message):
    status, _, body = create_raw(
        engine, {"environment": {"type": "none"}, "agent": {"model": MODEL, "tools": tools}, "input": "Hello."}
    )
    assert status == 400, body
    assert error_of(body) == unsupported(param, message)
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.create(
            environment={"type": "none"}, agent={"model": MODEL, "tools": tools}, input="Hello.", extra_body=HARNESS
        )
    assert e.value.body == unsupported(param, message)
    # Nothing was created and claude never ran.
    assert sessions_raw(engine.raw) == []
    assert messages_calls(engine) == []


def test_saved_agent_with_programmatic_calling_on_needs_replaced_tools(start_engine):
    engine = start_engine(SCENARIO)
    saved = engine.client.beta.agents.create(model=MODEL, tools=[{"type": "programmatic_tool_calling", "enabled": True}])
    status, _, body = create_raw(engine, {"environment": {"type": "none"}, "agent_id": saved.id, "input": "Hello."})
    assert status == 400, body
    assert error_of(body) == unsupported(
        "agent.tools[0].enabled", "The harness does not support programmatic_tool_calling enabled=true."
    )
    # A Session that replaces the saved tools runs with its own.
    since = len(engine.journal())
    result = engine.client.beta.agents.sessions.create(
        environment={"type": "none"},
        agent_id=saved.id,
        agent={"tools": [{"type": "web_search", "mode": "live"}]},
        input="Hello.",
        stream=True,
        extra_body=HARNESS,
    ).get_final_result()
    assert result.output_text == "Done."
    [request] = messages_calls(engine, since)
    assert names(request["body"]["tools"]) == ["WebSearch"]
