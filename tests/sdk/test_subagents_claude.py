"""Subagents on Claude Code (issue 15; execution-tools "Subagent function calls", core-contracts
§3.5): a multi-agent claude_code Session's root runs a child with claude's native `Agent` tool
(the child runs inside the call: background tasks are off on a multi-agent Session), the child
calls the public function `get_weather` (`mcp__functions__get_weather`), and the root answers
with the child's hand-back. The child's call is a required action of the root Turn; the SDK's
tool handler answers it under the child Turn ID its `item.added` names, a manual client under
the root Turn ID, and any other Turn ID gets the 400 of a call of another Turn. The Subagent
routes return what the streams showed, again after a Core restart.

The model is the mock (docs/mock-model.md): a child's requests are told from the root's by the
user text that opened them (`user_text_contains`), the child's task; claude appends its own
text after a tool result, so the root's answer waits on `tool_output_contains`."""

import json


from claude_support import HARNESS, MODEL, WEATHER as NATIVE_WEATHER
from conftest import WEATHER_FUNCTION, error_of
from session_support import post_events, session_raw, tool_result, wait_idle, wait_required_actions
from test_subagents import NOT_FOUND, OTHER_TURN, get, listed, routes_snapshot

WEATHER = "weather: sunny 21C"
ROOT_FINAL = "ROOT FINAL: the child found sunny 21C"
CHILD_TASK = "CHILD TASK: the weather in Paris"

SCENARIO = {
    "rules": [
        {
            "name": "root answers with the child's result",
            "when": {"user_text_contains": "ROOT TASK", "tool_output_contains": "FINAL: " + WEATHER},
            "reply": {"text": ROOT_FINAL},
        },
        {
            "name": "root runs the child",
            "when": {"user_text_contains": "ROOT TASK", "tool_output_present": False},
            "reply": {
                "tool_calls": [
                    {
                        "name": "Agent",
                        "arguments": {"description": "weather helper", "prompt": CHILD_TASK, "subagent_type": "general-purpose"},
                    }
                ]
            },
        },
        {
            "name": "child answers",
            "when": {"user_text_contains": "CHILD TASK", "tool_output_contains": WEATHER},
            "reply": {"text": "FINAL: " + WEATHER},
        },
        {
            "name": "child calls the function",
            "when": {"user_text_contains": "CHILD TASK", "tool_output_present": False},
            "reply": {"tool_calls": [{"name": NATIVE_WEATHER, "arguments": {"city": "Paris"}}]},
        },
    ],
    "otherwise": {"text": "Nothing scripted."},
}

AGENT = {"model": MODEL, "tools": [WEATHER_FUNCTION], "multi_agent": {"enabled": True}}


def create(client, **kwargs):
    return client.beta.agents.sessions.create(
        environment={"type": "none"}, agent=kwargs.pop("agent", AGENT), input="ROOT TASK: ask a helper", extra_body=HARNESS, **kwargs
    )


def assert_child_history(raw, sid, root_turn_id, call_id):
    """One closed Subagent (a finished `Agent` call takes no more input) with one completed
    Turn: its task, the function call, its output and the child's answer."""
    snap = routes_snapshot(raw, sid)
    (sub,) = snap["subagents"]
    assert sub["object"] == "agent.session.subagent" and sub["session_id"] == sid
    assert sub["status"] == "closed" and sub["closed_at"] is not None
    assert sub["name"] == "general-purpose"
    assert sub["instructions"][0]["text"] == CHILD_TASK
    assert snap[sub["id"]]["retrieve"] == (200, sub)
    (turn,) = snap[sub["id"]]["turns"]
    assert turn["subagent_id"] == sub["id"] and turn["status"] == "completed" and turn["id"] != root_turn_id
    assert snap[turn["id"]]["retrieve"] == (200, turn)
    items = snap[sub["id"]]["items"]
    assert items == snap[turn["id"]]["items"]
    assert [i["type"] for i in items] == ["message", "function_call", "function_call_output", "message"], items
    assert all(i["turn_id"] == turn["id"] for i in items)
    assert items[0]["content"][0]["text"] == CHILD_TASK
    assert items[1]["call_id"] == call_id and items[1]["name"] == "get_weather"
    assert items[2]["output"] == WEATHER
    assert items[3]["content"][0]["text"] == "FINAL: " + WEATHER
    return snap, sub, turn


def assert_root_history(client, sid, sub_id):
    """The root's Items: its message, the coordination call that created the child, its
    answer; no child Turn or Item among the Session's own."""
    sessions = client.beta.agents.sessions
    turns = sessions.turns.list(sid).data
    assert [t.subagent_id for t in turns] == [None]
    items = list(sessions.items.list(sid, order="asc"))
    types = [i.type for i in items]
    assert types == ["message", "create_subagent_call", "message"], types
    create_call = items[1]
    assert create_call.status == "completed" and create_call.content[0].text == CHILD_TASK
    assert items[-1].content[0].text == ROOT_FINAL
    return items


def test_the_sdk_tool_handler_answers_a_claude_subagent_call_under_the_child_turn(start_engine):
    engine = start_engine(SCENARIO)
    seen = []
    stream = create(
        engine.client,
        stream=True,
        tool_handlers={"get_weather": lambda args: WEATHER if args == {"city": "Paris"} else "wrong"},
    )
    result = stream.with_result_collection()
    for event in result:
        seen.append(event)
    final = result.get_final_result()
    assert final.output_text == ROOT_FINAL
    sid, root_turn = final.session_id, final.turn_id

    types = [e.type for e in seen]
    assert "agent.session.subagent.created" in types and "agent.session.subagent.closed" in types
    added = [e for e in seen if e.type == "agent.session.turn.item.added"]
    (call,) = [e for e in added if e.item.type == "function_call"]
    assert call.turn_id == call.item.turn_id and call.turn_id != root_turn
    assert {e.turn_id for e in added if e.item.type != "function_call"} == {root_turn}
    created = next(e for e in seen if e.type == "agent.session.subagent.created")
    requires = next(e for e in seen if e.type == "agent.session.requires_action")
    (action,) = requires.session.required_actions
    assert action.turn_id == root_turn and action.call_id == call.item.call_id

    _, sub, turn = assert_child_history(engine.raw, sid, root_turn, action.call_id)
    assert turn["id"] == call.turn_id and created.subagent.id == sub["id"]
    assert created.subagent.parent_agent_id == sub["parent_agent_id"]
    assert_root_history(engine.client, sid, sub["id"])


def test_a_manual_client_answers_a_claude_subagent_under_the_root_turn(start_engine):
    engine = start_engine(SCENARIO)
    client = engine.client
    sid = create(client).id
    (action,) = wait_required_actions(engine.raw, sid)["required_actions"]
    assert action["name"] == "get_weather"
    root_turn = action["turn_id"]
    assert [t["id"] for t in listed(engine.raw, f"/agents/sessions/{sid}/turns")] == [root_turn]

    unrelated = root_turn[:-4] + ("0000" if not root_turn.endswith("0000") else "1111")
    status, _, body = post_events(engine.raw, sid, [tool_result({**action, "turn_id": unrelated}, WEATHER)])
    assert status == 400 and error_of(body) == {
        "message": OTHER_TURN,
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_request_error",
    }
    assert session_raw(engine.raw, sid)["required_actions"] == [action]

    status, _, body = post_events(engine.raw, sid, [tool_result(action, WEATHER)])
    assert status == 202, body
    wait_idle(engine.raw, sid)
    snap, sub, turn = assert_child_history(engine.raw, sid, root_turn, action["call_id"])
    # An identical retry under the child Turn's ID is the same result.
    status, _, body = post_events(engine.raw, sid, [tool_result({**action, "turn_id": turn["id"]}, WEATHER)])
    assert status == 202, body
    items = assert_root_history(client, sid, sub["id"])
    assert items[1].agent_id == sub["parent_agent_id"]

    base = f"/agents/sessions/{sid}/subagents"
    for path in (f"{base}/subagent_01a2331d2f1a71fcb4c625b03e152523", f"{base}/{sub['id']}/turns/{root_turn}"):
        status, body = get(engine.raw, path)
        assert (status, error_of(body)) == (404, NOT_FOUND), path

    # After a Core restart the routes return the same.
    engine.restart()
    assert routes_snapshot(engine.raw, sid) == snap
    again = engine.client
    assert [i.id for i in again.beta.agents.sessions.items.list(sid, order="asc")] == [i.id for i in items]
    assert [s.id for s in again.beta.agents.sessions.subagents.list(sid).data] == [sub["id"]]


SCHEMA = {
    "type": "object",
    "properties": {"weather": {"type": "string"}},
    "required": ["weather"],
    "additionalProperties": False,
}
STRUCTURED = {"weather": "sunny 21C"}


def opening_user_text(entry):
    """The text of a Messages request's first user message (a child's is its task)."""
    content = next(m for m in entry["body"]["messages"] if m["role"] == "user")["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def test_structured_output_stays_on_the_claude_root(start_engine):
    rules = [dict(rule) for rule in SCENARIO["rules"]]
    rules[0] = {**rules[0], "reply": {"structured": STRUCTURED}}
    engine = start_engine({"rules": rules, "otherwise": SCENARIO["otherwise"]})
    agent = {**AGENT, "text": {"format": {"type": "json_schema", "schema": SCHEMA}}}
    sid = create(engine.client, agent=agent).id
    (action,) = wait_required_actions(engine.raw, sid)["required_actions"]
    status, _, body = post_events(engine.raw, sid, [tool_result(action, WEATHER)])
    assert status == 202, body
    wait_idle(engine.raw, sid)
    items = list(engine.client.beta.agents.sessions.items.list(sid, order="asc"))
    assert items[-1].content[0].text == '{"weather":"sunny 21C"}'

    # The root's requests offer claude's StructuredOutput tool (the schema); the child's
    # (its call, and its answer after the function output) do not.
    requests = [e for e in engine.journal() if e["path"].startswith("/v1/messages") and "messages" in (e["body"] or {})]
    child = [e for e in requests if opening_user_text(e).startswith("CHILD TASK")]
    root = [e for e in requests if opening_user_text(e).startswith("ROOT TASK")]
    assert len(child) == 2 and len(root) == 2, [e["matched"] for e in requests]
    offered = lambda e: [t["name"] for t in e["body"].get("tools", [])]
    assert all("StructuredOutput" in offered(e) for e in root)
    assert all("StructuredOutput" not in offered(e) for e in child), [offered(e) for e in child]


MCP_NATIVE = "mcp__lab__get_weather"
MCP_SCENARIO = {
    "rules": [
        {
            "name": "root answers with the child's result",
            "when": {"user_text_contains": "ROOT TASK", "tool_output_contains": "FINAL: MCP sunny"},
            "reply": {"text": ROOT_FINAL},
        },
        SCENARIO["rules"][1],
        {
            "name": "child answers",
            "when": {"user_text_contains": "CHILD TASK", "tool_output_contains": "sunny 21C"},
            "reply": {"text": "FINAL: MCP sunny"},
        },
        {
            "name": "child calls the MCP tool",
            "when": {"user_text_contains": "CHILD TASK", "tool_output_present": False},
            "reply": {"tool_calls": [{"name": MCP_NATIVE, "arguments": {"city": "Paris"}}]},
        },
    ],
    "otherwise": {"text": "Nothing scripted."},
}


def mcp_fixture(tmp_path):
    """`switchboard-mcp-fixture` over streamable HTTP (built beside the server binary)."""
    import pathlib
    import subprocess

    from conftest import switchboard_bin

    binary = pathlib.Path(switchboard_bin()).parent / "switchboard-mcp-fixture"
    record = tmp_path / "mcp-record.jsonl"
    proc = subprocess.Popen(
        [str(binary), "--http", "127.0.0.1:0", "--record", str(record)], stdout=subprocess.PIPE, text=True
    )
    line = proc.stdout.readline()
    assert line.startswith("listening "), line
    return proc, f"http://{line.split()[-1]}/mcp", record


def test_a_claude_subagents_http_mcp_call_is_an_mcp_call_item_of_the_child(start_engine, tmp_path):
    proc, url, record = mcp_fixture(tmp_path)
    try:
        engine = start_engine(MCP_SCENARIO)
        mcp = {"type": "mcp", "server_label": "lab", "transport": {"type": "http", "server_url": url}, "allowed_tools": ["get_weather"]}
        agent = {"model": MODEL, "tools": [mcp], "multi_agent": {"enabled": True}}
        sid = create(engine.client, agent=agent).id
        wait_idle(engine.raw, sid)
        items = list(engine.client.beta.agents.sessions.items.list(sid, order="asc"))
        assert [i.type for i in items] == ["message", "create_subagent_call", "message"], [i.type for i in items]
        assert items[-1].content[0].text == ROOT_FINAL

        (sub,) = listed(engine.raw, f"/agents/sessions/{sid}/subagents")
        child = listed(engine.raw, f"/agents/sessions/{sid}/subagents/{sub['id']}/items")
        assert [i["type"] for i in child] == ["message", "mcp_call", "message"], child
        call = child[1]
        assert (call["server_label"], call["name"], call["status"]) == ("lab", "get_weather", "completed")
        assert json.loads(call["arguments"]) == {"city": "Paris"}
        assert "get_weather in Paris: sunny 21C" in call["output"] and call["error"] is None
        assert child[2]["content"][0]["text"] == "FINAL: MCP sunny"
        # The server saw the child's one call.
        calls = [json.loads(l) for l in record.read_text().splitlines() if '"tool"' in l]
        assert [c["tool"] for c in calls] == ["get_weather"], calls
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_cancelling_the_root_turn_ends_a_claude_childs_pending_call_and_its_turn(start_engine):
    """Claude's root cannot close or interrupt a child whose `Agent` call it is blocked in;
    cancelling the root Turn interrupts both. The child's pending call is cancelled with the
    Turn (a late result is refused), its Turn ends cancelled and the Subagent is closed."""
    from session_support import CANCEL

    engine = start_engine(SCENARIO)
    sessions = engine.client.beta.agents.sessions
    sid = create(engine.client).id
    (action,) = wait_required_actions(engine.raw, sid)["required_actions"]
    status, _, body = post_events(engine.raw, sid, [{"type": CANCEL}])
    assert status == 202, body
    done = wait_idle(engine.raw, sid)
    assert done["required_actions"] == []
    (turn,) = sessions.turns.list(sid).data
    assert turn.id == action["turn_id"] and turn.status == "cancelled"
    status, _, body = post_events(engine.raw, sid, [tool_result(action, WEATHER)])
    assert status == 409 and error_of(body)["message"] == "The Turn cannot accept this input in its current state.", body

    (sub,) = sessions.subagents.list(sid).data
    (child_turn,) = sessions.subagents.turns.list(sub.id, session_id=sid).data
    assert child_turn.status == "cancelled"
    child_items = sessions.subagents.items.list(sub.id, session_id=sid, order="asc").data
    assert [i.type for i in child_items] == ["message", "function_call"]
    assert sub.status == "closed", sub
