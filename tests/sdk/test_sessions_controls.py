"""Execution controls on the Codex harness, observed in what codex sends to the model: the
`web_search` control becomes codex's native `web_search` mode and `tools.web_search` settings
(the Responses `web_search` tool), `programmatic_tool_calling` turns codex's native code_mode on
or off, and an Agent that sets neither keeps codex's native tools (execution-tools.md "Web
search and programmatic tool calling"; core-contracts.md §4.3)."""

from conftest import WEATHER_FUNCTION
from stream_support import model_requests, tool_named, tools_of_type

SCENARIO = {"rules": [], "otherwise": {"text": "Done.", "deltas": 2}}

# codex 0.171.0's own web_search tool when nothing configures it (native cached mode).
NATIVE_WEB_SEARCH = {"type": "web_search", "external_web_access": False}


def first_request_tools(engine, tools=None, agent_id=None):
    """Runs one Turn of a fresh Session whose inline Agent has `tools` (absent when None), or
    that uses the saved Agent `agent_id`, and returns the `tools` of the model request that Turn
    made."""
    since = len(model_requests(engine))
    agent = {} if agent_id else {"model": "gpt-test"}
    if tools is not None:
        agent["tools"] = tools
    extra = {"agent_id": agent_id} if agent_id else {}
    result = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent=agent, input="Hello.", stream=True, **extra
    ).get_final_result()
    assert result.output_text == "Done."
    (request,) = model_requests(engine)[since:]
    return request["body"]["tools"]


def without_type(tools, kind):
    return [t for t in tools if t.get("type") != kind]


def names(tools):
    return [(t.get("type"), t.get("name")) for t in tools]


def test_web_search_disabled_removes_only_the_search_tool(start_engine):
    engine = start_engine(SCENARIO)
    native = first_request_tools(engine)
    disabled = first_request_tools(engine, [{"type": "web_search", "mode": "disabled"}])

    assert tools_of_type(disabled, "web_search") == []
    # Unrelated native utility tools stay.
    assert disabled == without_type(native, "web_search")


def test_web_search_live_with_settings(start_engine):
    engine = start_engine(SCENARIO)
    native = first_request_tools(engine)
    live = first_request_tools(
        engine,
        [
            {
                "type": "web_search",
                "mode": "live",
                "context_size": "high",
                "allowed_domains": ["example.com"],
                "location": {"country": "FR"},
            }
        ],
    )
    assert tools_of_type(live, "web_search") == [
        {
            "type": "web_search",
            "external_web_access": True,
            "search_context_size": "high",
            "filters": {"allowed_domains": ["example.com"]},
            "user_location": {"type": "approximate", "country": "FR"},
        }
    ]
    assert without_type(live, "web_search") == without_type(native, "web_search")


def test_web_search_cached_and_full_location(start_engine):
    engine = start_engine(SCENARIO)
    cached = first_request_tools(engine, [{"type": "web_search", "mode": "cached"}])
    # The resolved context_size (medium) travels even though the caller omitted it.
    assert tools_of_type(cached, "web_search") == [
        {"type": "web_search", "external_web_access": False, "search_context_size": "medium"}
    ]
    located = first_request_tools(
        engine,
        [
            {
                "type": "web_search",
                "context_size": "low",
                "location": {"city": "Lyon", "country": "FR", "region": "ARA", "timezone": "Europe/Paris"},
            }
        ],
    )
    # Omitted mode resolves to live; no allowed_domains, so no filters.
    assert tools_of_type(located, "web_search") == [
        {
            "type": "web_search",
            "external_web_access": True,
            "search_context_size": "low",
            "user_location": {
                "type": "approximate",
                "city": "Lyon",
                "country": "FR",
                "region": "ARA",
                "timezone": "Europe/Paris",
            },
        }
    ]


def test_programmatic_tool_calling_switches_codex_code_mode(start_engine):
    engine = start_engine(SCENARIO)
    native = first_request_tools(engine)
    off = first_request_tools(engine, [{"type": "programmatic_tool_calling", "enabled": False}])
    on = first_request_tools(engine, [{"type": "programmatic_tool_calling", "enabled": True}])

    # code_mode on: codex offers its JavaScript `exec` tool (a grammar custom tool) and `wait`,
    # in front of the tools it offers anyway (their descriptions then show them as `exec` calls).
    exec_tool = tool_named(on, "exec")
    assert exec_tool is not None and exec_tool["type"] == "custom"
    assert exec_tool["format"]["type"] == "grammar"
    assert tool_named(on, "wait")["type"] == "function"
    assert names(on)[:2] == [("custom", "exec"), ("function", "wait")]
    assert names(on)[2:] == names(native)

    # code_mode off: neither tool; everything else as native.
    assert tool_named(off, "exec") is None and tool_named(off, "wait") is None
    assert off == native


def test_an_agent_without_controls_keeps_codex_native_tools(start_engine):
    engine = start_engine(SCENARIO)
    bare = first_request_tools(engine)
    with_function = first_request_tools(engine, [WEATHER_FUNCTION])

    # Nothing configured the search: codex's own default tool, without Core's settings (an
    # explicit mode would add search_context_size), and no code_mode tools.
    for tools in (bare, with_function):
        assert tools_of_type(tools, "web_search") == [NATIVE_WEB_SEARCH]
        assert tool_named(tools, "exec") is None and tool_named(tools, "wait") is None
    # The caller's function joins the native tools; nothing native goes away.
    weather = tool_named(with_function, "get_weather")
    assert weather["type"] == "function" and weather["parameters"] == WEATHER_FUNCTION["parameters"]
    assert [t for t in with_function if t.get("name") != "get_weather"] == bare


def test_controls_of_a_saved_agent_reach_codex(start_engine):
    engine = start_engine(SCENARIO)
    native = first_request_tools(engine)
    saved = engine.client.beta.agents.create(
        model="gpt-test",
        tools=[
            {"type": "web_search", "mode": "live", "allowed_domains": ["example.org"]},
            {"type": "programmatic_tool_calling", "enabled": True},
        ],
    )
    tools = first_request_tools(engine, agent_id=saved.id)
    # The saved defaults resolved (context_size medium) and went to codex like inline ones.
    assert tools_of_type(tools, "web_search") == [
        {
            "type": "web_search",
            "external_web_access": True,
            "search_context_size": "medium",
            "filters": {"allowed_domains": ["example.org"]},
        }
    ]
    assert names(tools)[:2] == [("custom", "exec"), ("function", "wait")]
    # A Session that replaces the saved tools runs with its own (here: none of the controls).
    replaced = first_request_tools(engine, tools=[{"type": "web_search", "mode": "disabled"}], agent_id=saved.id)
    assert tools_of_type(replaced, "web_search") == []
    assert names(replaced) == names(without_type(native, "web_search"))
