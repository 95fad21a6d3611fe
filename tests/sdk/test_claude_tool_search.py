"""Deferred function discovery on the real `claude` binary: with `tool_search` and a deferred
function, claude offers the eager function inline and withholds the deferred one until the model
loads it through claude's native ToolSearch; the model then calls it, and that call is an
ordinary required action answered through the API. The Session and SSE resources project
`tool_search` out, and no tool-search Item is invented (execution-tools.md "Tool search";
issue #5 "Deferred discovery")."""

import json

from claude_support import WEATHER, block_text, create, function_result_blocks, messages_calls, offered_tool_names
from conftest import WEATHER_FUNCTION
from session_support import items_raw, session_raw
from stream_support import CREATED, ITEM_ADDED, ITEM_DONE, S_REQUIRES_ACTION, as_dicts, assert_unique_event_ids, types_of

LOOKUP = {
    "type": "function",
    "name": "lookup_record",
    "description": "Look up a record by key.",
    "parameters": {
        "type": "object",
        "properties": {"key": {"type": "string"}},
        "required": ["key"],
        "additionalProperties": False,
    },
    "defer_loading": True,
}
LOOKUP_MCP = "mcp__functions__lookup_record"
TOOLS = [{"type": "tool_search"}, WEATHER_FUNCTION, LOOKUP]
ANSWER = "Record 7 is blue."

SCENARIO = {
    "rules": [
        {
            "name": "search",
            "when": {"request": 1},
            "reply": {"tool_calls": [{"name": "ToolSearch", "arguments": {"query": f"select:{LOOKUP_MCP}", "max_results": 5}}]},
        },
        {
            # ToolSearch's tool_reference result names the tool it loaded.
            "name": "call",
            "when": {"last_kind": "tool_output", "last_text_contains": LOOKUP_MCP, "tool_offered": LOOKUP_MCP},
            "reply": {"tool_calls": [{"name": LOOKUP_MCP, "arguments": {"key": "7"}}]},
        },
        {"name": "answer", "when": {"last_kind": "tool_output", "last_text_contains": "blue"}, "reply": {"text": ANSWER, "deltas": 2}},
    ],
    "otherwise": {"text": "Nothing scripted."},
}


def tool_by_name(entry, name):
    matches = [t for t in entry["body"].get("tools") or [] if t.get("name") == name]
    assert len(matches) <= 1, matches
    return matches[0] if matches else None


def assert_projected_tools(agent):
    """The Session resource's agent.tools: the functions, no tool_search entry."""
    tools = agent["tools"]
    assert [t["type"] for t in tools] == ["function", "function"], tools
    assert [t["name"] for t in tools] == ["get_weather", "lookup_record"]
    assert not [t for t in tools if t["type"] == "tool_search"]


def test_model_loads_a_deferred_function_through_tool_search_and_calls_it(start_engine):
    engine = start_engine(SCENARIO)
    sessions = engine.client.beta.agents.sessions
    stream = create(engine, stream=True, tools=TOOLS, input="Find record 7.").with_result_collection()

    events = []
    for event in stream:
        d = event.to_dict()
        events.append(d)
        if d["type"] == S_REQUIRES_ACTION:
            # The deferred function's call is an ordinary required action.
            [action] = d["session"]["required_actions"]
            assert action["type"] == "function_call" and action["name"] == "lookup_record"
            assert json.loads(action["arguments"]) == {"key": "7"}
            sessions.events.create(
                d["session"]["id"],
                events=[
                    {
                        "type": "agent.session.input.tool_result",
                        "turn_id": action["turn_id"],
                        "call_id": action["call_id"],
                        "success": True,
                        "output": "record 7: blue",
                    }
                ],
            )
    result = stream.get_final_result()
    assert result.turn.status == "completed" and result.output_text == ANSWER
    assert_unique_event_ids(events)
    assert types_of(events)[0] == CREATED
    session_id = events[0]["session"]["id"]

    # No tool-search Item: the Turn's Items are the question, the deferred call, its result
    # and the answer.
    items = items_raw(engine.raw, session_id)
    assert [(i["type"], i.get("role"), i.get("name")) for i in items] == [
        ("message", "user", None),
        ("function_call", None, "lookup_record"),
        ("function_call_output", None, None),
        ("message", "assistant", None),
    ]
    for e in events:
        if e["type"] in (ITEM_ADDED, ITEM_DONE):
            assert e["item"]["type"] in ("message", "function_call", "function_call_output"), e
            assert e["item"].get("name") in (None, "lookup_record"), e
    call = items[1]
    assert call["arguments"] == '{"key":"7"}'
    assert (items[2]["call_id"], items[2]["output"], items[2]["error"]) == (call["call_id"], "record 7: blue", None)
    assert items[3]["phase"] == "final_answer" and items[3]["content"][0]["text"] == ANSWER

    # What claude offered: ToolSearch and the eager function inline; the deferred function only
    # after ToolSearch loaded it.
    calls = messages_calls(engine)
    assert [c["matched"]["name"] for c in calls] == ["search", "call", "answer"]
    first = calls[0]
    assert "ToolSearch" in offered_tool_names(first)
    assert tool_by_name(first, WEATHER)["input_schema"] == WEATHER_FUNCTION["parameters"]
    assert not tool_by_name(first, WEATHER).get("defer_loading")
    assert tool_by_name(first, LOOKUP_MCP) is None
    for later in calls[1:]:
        loaded = tool_by_name(later, LOOKUP_MCP)
        assert loaded is not None and loaded["input_schema"] == LOOKUP["parameters"]
        assert loaded["defer_loading"] is True
    # The ToolSearch call's result (a tool_reference to the deferred function) is native: the
    # model got it, the API shows nothing of it.
    [search_use] = [
        b
        for m in calls[1]["body"]["messages"]
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use" and b.get("name") == "ToolSearch"
    ]
    search_block = function_result_blocks(engine, [search_use["id"]])[search_use["id"]]
    assert {"type": "tool_reference", "tool_name": LOOKUP_MCP} in search_block["content"]
    assert search_use["id"] not in [i.get("call_id") for i in items]
    # The deferred function's result reached the model unchanged.
    assert block_text(function_result_blocks(engine, [call["call_id"]])[call["call_id"]]) == "record 7: blue"

    # The Session resource and its SSE snapshots project tool_search out.
    assert_projected_tools(session_raw(engine.raw, session_id)["agent"])
    assert_projected_tools(sessions.retrieve(session_id).to_dict()["agent"])
    for e in events:
        if "session" in e:
            assert_projected_tools(e["session"]["agent"])
    listed = [s for s in engine.raw.request("GET", "/agents/sessions?limit=10")[2]["data"] if s["id"] == session_id]
    assert_projected_tools(listed[0]["agent"])
    assert session_raw(engine.raw, session_id)["status"] == "idle"


def test_tool_search_keeps_working_on_the_next_turn(start_engine):
    # Turn 1 as above; turn 2 loads nothing new (the function stays loaded) and calls it again.
    scenario = {
        "rules": [
            SCENARIO["rules"][0],
            SCENARIO["rules"][1],
            {"name": "again", "when": {"request": 4}, "reply": {"tool_calls": [{"name": LOOKUP_MCP, "arguments": {"key": "8"}}]}},
            SCENARIO["rules"][2],
        ],
        "otherwise": {"text": "Nothing scripted."},
    }
    engine = start_engine(scenario)
    sessions = engine.client.beta.agents.sessions
    handlers = {"lookup_record": lambda args: f"record {args['key']}: blue"}
    first = create(engine, stream=True, tools=TOOLS, input="Find record 7.", tool_handlers=handlers).get_final_result()
    assert first.output_text == ANSWER
    with sessions.stream(first.session_id, input="And record 8?", tool_handlers=handlers) as stream:
        stream.with_result_collection()
        events = as_dicts(stream)
        second = stream.get_final_result()
    assert second.turn.status == "completed" and second.output_text == ANSWER
    calls = [e["item"] for e in events if e["type"] == ITEM_DONE and e["item"]["type"] == "function_call"]
    assert [(c["name"], c["arguments"]) for c in calls] == [("lookup_record", '{"key":"8"}')]
    items = items_raw(engine.raw, first.session_id)
    assert [i["type"] for i in items] == ["message", "function_call", "function_call_output", "message"] * 2
    assert [i["output"] for i in items if i["type"] == "function_call_output"] == ["record 7: blue", "record 8: blue"]
    # The second Turn's requests still offer the loaded function; ToolSearch ran once.
    calls = messages_calls(engine)
    assert [c["matched"]["name"] for c in calls] == ["search", "call", "answer", "again", "answer"]
    assert all(tool_by_name(c, LOOKUP_MCP) is not None for c in calls[1:])
    assert_projected_tools(sessions.retrieve(first.session_id).to_dict()["agent"])
