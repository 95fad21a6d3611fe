"""Native web search on both harnesses (the `harness` fixture): the Turn records a public
`web_search_call` Item with its `search` action (agents-api-wire.md §7), publishes it as
item.added (in_progress) then item.done (completed) before the answer (§8), and the official SDK
parses it as `AgentWebSearchCallItem` on the stream and in `turns.items.list`
(execution-tools.md "Web search and programmatic tool calling": "Turns and Items gives their
web_search_call actions").

The mock model plays the provider's search (docs/mock-model.md, `web_searches`): for codex the
Responses answer carries a `web_search_call` output item; for claude_code the model calls
claude's `WebSearch` tool and the nested request claude makes with the `web_search` server tool
is answered with `server_tool_use` + `web_search_tool_result` blocks."""

from openai.types.beta.agent_web_search_call_item import AgentWebSearchCallItem

from stream_support import ITEM_ADDED, ITEM_DONE, as_dicts, assert_items_done_only_for_outputs, item_events

QUERY = "weather in Paris"
ANSWER = "It is sunny in Paris."
SEARCH = {"query": QUERY, "sources": [{"url": "https://weather.example/paris", "title": "Paris weather"}]}


def scenario(harness):
    if harness.name == "codex":
        # One Responses request: the provider searches, then answers.
        return {"rules": [{"name": "search", "when": {"protocol": "responses"},
                           "reply": {"web_searches": [SEARCH], "text": ANSWER}}]}
    return {
        "rules": [
            # claude's nested WebSearch request offers the provider's `web_search` server tool.
            {"name": "provider search", "when": {"tool_offered": "web_search"},
             "reply": {"web_searches": [SEARCH], "text": "Paris: sunny, 21C."}},
            {"name": "call WebSearch", "when": {"tool_offered": "WebSearch", "tool_output_present": False},
             "reply": {"tool_calls": [{"name": "WebSearch", "arguments": {"query": QUERY}}]}},
        ],
        "otherwise": {"text": ANSWER},
    }


def test_native_search_is_a_web_search_call_item(start_engine, harness):
    engine = start_engine(scenario(harness))
    tools = [{"type": "web_search", "mode": "live"}]
    stream = harness.create(engine, stream=True, tools=tools, input="Search the weather in Paris.")
    stream.with_result_collection()
    sdk_events = list(stream)
    events = as_dicts(sdk_events)
    result = stream.get_final_result()
    # The SDK parses the Item on the stream as its web search call type.
    parsed = [e.item for e in sdk_events if e.type in (ITEM_ADDED, ITEM_DONE) and e.item.type == "web_search_call"]
    assert len(parsed) == 2 and all(isinstance(i, AgentWebSearchCallItem) for i in parsed), parsed
    assert [i.status for i in parsed] == ["in_progress", "completed"]
    assert result.turn.status == "completed" and result.output_text == ANSWER

    items = [(e["type"], e["item"]["type"], e["output_index"]) for e in item_events(events)]
    assert items == [
        (ITEM_ADDED, "message", None),
        (ITEM_ADDED, "web_search_call", 0),
        (ITEM_DONE, "web_search_call", 0),
        (ITEM_ADDED, "message", 1),
        (ITEM_DONE, "message", 1),
    ], items
    assert_items_done_only_for_outputs(events)
    _, added, done, _, _ = item_events(events)
    action = {"type": "search", "query": QUERY, "queries": None}
    search_id = done["item"]["id"]
    assert added["item"] == {"id": search_id, "type": "web_search_call", "turn_id": result.turn_id,
                             "action": action, "status": "in_progress"}
    assert done["item"] == {**added["item"], "status": "completed"}

    # The SDK parses the Item, on the stream and from the Turn's stored Items.
    listed = engine.client.beta.agents.sessions.turns.items.list(result.turn_id, session_id=result.session_id, order="asc").data
    [stored] = [i for i in listed if i.type == "web_search_call"]
    assert isinstance(stored, AgentWebSearchCallItem)
    assert stored.id == search_id and stored.status == "completed" and stored.turn_id == result.turn_id
    assert stored.action.type == "search" and stored.action.query == QUERY
    assert [i.type for i in listed] == ["message", "web_search_call", "message"]

    if harness.name == "claude_code":
        # claude handed the search's findings back to the model before the answer.
        calls = harness.model_calls(engine)
        matched = [c["matched"]["name"] if isinstance(c["matched"], dict) else c["matched"] for c in calls]
        assert matched == ["call WebSearch", "provider search", "otherwise"]
        assert "weather.example/paris" in str(calls[-1]["body"]["messages"])
