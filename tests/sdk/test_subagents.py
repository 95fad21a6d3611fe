"""Subagents on codex (issue 15; execution-tools "Subagent function calls", core-contracts §3.5):
a multi-agent Session's root spawns a child with codex's native `spawn_agent` (`fork_context`
so the child gets the Session's functions), the child calls the public function `get_weather`,
and the root waits for it with `wait_agent`. The child's call is a required action of the root
Turn; it is answered by the SDK's tool handler (under the child Turn ID its `item.added`
names), or by a manual client under the root Turn ID, and any other Turn ID gets the 400 of a
call of another Turn. The root's final answer is scripted to need the child's result (the rule
matches only once codex hands the root the child's `FINAL: <tool output>`). The Subagent routes
return what the streams showed, again after a Core restart.

The model is the mock (docs/mock-model.md); `$last_output.agent_id` is the id codex's
spawn_agent returned."""

import json


from conftest import WEATHER_FUNCTION, error_of
from session_support import post_events, session_raw, tool_result, wait_for, wait_idle, wait_required_actions

WEATHER = "weather: sunny 21C"
ROOT_FINAL = "ROOT FINAL: the child found sunny 21C"
OTHER_TURN = "The tool call belongs to a different Turn."
NOT_FOUND = {"message": "Resource not found.", "type": "not_found_error", "param": None, "code": "not_found_error"}

SCENARIO = {
    "rules": [
        {
            "name": "child calls the function",
            "when": {"last_text_contains": "CHILD TASK", "tool_output_present": False},
            "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
        },
        {
            "name": "root spawns the child",
            "when": {"last_text_contains": "ROOT TASK", "tool_output_present": False},
            "reply": {
                "tool_calls": [
                    {
                        "name": "multi_agent_v1__spawn_agent",
                        "arguments": {"message": "CHILD TASK: the weather in Paris", "fork_context": True},
                    }
                ]
            },
        },
        {
            # codex tells the root what the child answered (`<subagent_notification>`).
            "name": "root answers with the child's result",
            "when": {"last_kind": "user", "last_text_contains": "FINAL: " + WEATHER},
            "reply": {"text": ROOT_FINAL},
        },
        {
            "name": "root waits for the child",
            "when": {"last_kind": "tool_output", "last_text_contains": "nickname"},
            "reply": {
                "tool_calls": [
                    {
                        "name": "multi_agent_v1__wait_agent",
                        "arguments": {"targets": ["$last_output.agent_id"], "timeout_ms": 600000},
                    }
                ]
            },
        },
    ]
}

AGENT = {"model": "gpt-test", "tools": [WEATHER_FUNCTION], "multi_agent": {"enabled": True}}


def get(raw, path):
    status, _, body = raw.request("GET", path)
    return status, body


def listed(raw, path):
    status, body = get(raw, path + "?order=asc&limit=100")
    assert status == 200, body
    return body["data"]


def routes_snapshot(raw, sid):
    """Everything the Subagent routes show for a Session."""
    out = {"subagents": listed(raw, f"/agents/sessions/{sid}/subagents")}
    for sub in out["subagents"]:
        base = f"/agents/sessions/{sid}/subagents/{sub['id']}"
        out[sub["id"]] = {
            "retrieve": get(raw, base),
            "items": listed(raw, base + "/items"),
            "turns": listed(raw, base + "/turns"),
        }
        for turn in out[sub["id"]]["turns"]:
            out[turn["id"]] = {
                "retrieve": get(raw, f"{base}/turns/{turn['id']}"),
                "items": listed(raw, f"{base}/turns/{turn['id']}/items"),
            }
    return out


def assert_child_history(raw, sid, root_turn_id, call_id):
    """One closed-or-active Subagent with one completed Turn: the spawn message, the function
    call, its output and the child's answer."""
    snap = routes_snapshot(raw, sid)
    (sub,) = snap["subagents"]
    assert sub["object"] == "agent.session.subagent" and sub["session_id"] == sid
    assert sub["status"] in ("active", "closed")
    assert sub["instructions"][0]["text"] == "CHILD TASK: the weather in Paris"
    assert snap[sub["id"]]["retrieve"] == (200, sub)
    (turn,) = snap[sub["id"]]["turns"]
    assert turn["subagent_id"] == sub["id"] and turn["status"] == "completed" and turn["id"] != root_turn_id
    assert snap[turn["id"]]["retrieve"] == (200, turn)
    items = snap[sub["id"]]["items"]
    assert items == snap[turn["id"]]["items"]
    assert [i["type"] for i in items] == ["message", "function_call", "function_call_output", "message"]
    assert all(i["turn_id"] == turn["id"] for i in items)
    assert items[1]["call_id"] == call_id and items[1]["name"] == "get_weather"
    assert items[2]["output"] == WEATHER
    assert items[3]["content"][0]["text"] == "FINAL: " + WEATHER
    return snap, sub, turn


def spawned_nickname(engine):
    """The nickname codex's spawn_agent told the root model (the mock's journal)."""
    for entry in engine.journal():
        for item in entry["body"].get("input", []):
            if item.get("type") == "function_call_output" and "nickname" in str(item.get("output")):
                return json.loads(item["output"])["nickname"]
    raise AssertionError("no spawn_agent output in the journal")


def assert_root_history(client, sid, sub_id):
    """The root's Items: its message, the coordination calls naming the child, its answer; no
    child Turn or Item among the Session's own."""
    sessions = client.beta.agents.sessions
    turns = sessions.turns.list(sid).data
    assert [t.subagent_id for t in turns] == [None]
    items = list(sessions.items.list(sid, order="asc"))
    types = [i.type for i in items]
    assert types == ["message", "create_subagent_call", "wait_for_subagents_call", "message"], types
    assert items[2].recipient_agent_ids == [sub_id]
    assert items[-1].content[0].text == ROOT_FINAL
    return items


def test_the_sdk_tool_handler_answers_a_subagent_call_under_the_child_turn(start_engine):
    engine = start_engine(SCENARIO)
    sessions = engine.client.beta.agents.sessions
    seen = []
    stream = sessions.create(
        environment={"type": "none"},
        agent=AGENT,
        input="ROOT TASK: ask a helper",
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
    # The stream carries the Subagent's creation and the root's coordination Items; the child's
    # Turn and Items stay off it, but for the function call the handler answered.
    assert "agent.session.subagent.created" in types
    added = [e for e in seen if e.type == "agent.session.turn.item.added"]
    calls = [e for e in added if e.item.type == "function_call"]
    (call,) = calls
    assert call.turn_id == call.item.turn_id and call.turn_id != root_turn
    assert {e.turn_id for e in added if e.item.type != "function_call"} == {root_turn}
    assert not any(e.type.startswith("agent.session.turn.") and e.type.endswith("created") and e.turn_id != root_turn for e in seen)
    created = next(e for e in seen if e.type == "agent.session.subagent.created")
    requires = next(e for e in seen if e.type == "agent.session.requires_action")
    (action,) = requires.session.required_actions
    assert action.turn_id == root_turn and action.call_id == call.item.call_id

    _, sub, turn = assert_child_history(engine.raw, sid, root_turn, action.call_id)
    assert turn["id"] == call.turn_id and created.subagent.id == sub["id"]
    assert sub["name"] == spawned_nickname(engine)
    assert_root_history(engine.client, sid, sub["id"])


def test_a_manual_client_answers_under_the_root_turn_and_an_unrelated_turn_is_refused(start_engine, tmp_path):
    engine = start_engine(SCENARIO)
    client = engine.client
    session = client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT, input="ROOT TASK: ask a helper")
    sid = session.id
    got = wait_required_actions(engine.raw, sid)
    (action,) = got["required_actions"]
    assert action["name"] == "get_weather"
    root_turn = action["turn_id"]
    assert [t["id"] for t in listed(engine.raw, f"/agents/sessions/{sid}/turns")] == [root_turn]

    # The root Turn's other Turns: none but an unrelated ID of the right shape.
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
    # An identical retry under the child Turn's ID is the same result.
    snap, sub, turn = assert_child_history(engine.raw, sid, root_turn, action["call_id"])
    status, _, body = post_events(engine.raw, sid, [tool_result({**action, "turn_id": turn["id"]}, WEATHER)])
    assert status == 202, body
    items = assert_root_history(client, sid, sub["id"])

    # Unknown and foreign IDs are 404s on every Subagent route.
    other = client.beta.agents.sessions.create(environment={"type": "none"}, agent={"model": "gpt-test"}, input="hi")
    base = f"/agents/sessions/{sid}/subagents"
    for path in (
        f"{base}/subagent_01a2331d2f1a71fcb4c625b03e152523",
        f"{base}/subagent_01a2331d2f1a71fcb4c625b03e152523/items",
        f"{base}/{sub['id']}/turns/{root_turn}",
        f"{base}/{sub['id']}/turns/{root_turn}/items",
        f"/agents/sessions/{other.id}/subagents/{sub['id']}",
        f"/agents/sessions/{other.id}/subagents/{sub['id']}/turns/{turn['id']}",
        "/agents/sessions/sess_doesnotexist/subagents",
    ):
        status, body = get(engine.raw, path)
        assert (status, error_of(body)) == (404, NOT_FOUND), path
    assert listed(engine.raw, f"/agents/sessions/{other.id}/subagents") == []

    # A cursor page of one, then the rest.
    status, page = get(engine.raw, f"{base}/{sub['id']}/items?order=asc&limit=1")
    assert status == 200 and page["has_more"] is True and len(page["data"]) == 1
    status, rest = get(engine.raw, f"{base}/{sub['id']}/items?order=asc&limit=100&after={page['last_id']}")
    assert [i["id"] for i in page["data"] + rest["data"]] == [i["id"] for i in snap[sub["id"]]["items"]]

    # After a Core restart the routes return the same.
    engine.restart()
    assert routes_snapshot(engine.raw, sid) == snap
    again = engine.client
    assert [i.id for i in again.beta.agents.sessions.items.list(sid, order="asc")] == [i.id for i in items]
    subs = again.beta.agents.sessions.subagents.list(sid).data
    assert [s.id for s in subs] == [sub["id"]]
    assert again.beta.agents.sessions.subagents.retrieve(sub["id"], session_id=sid).instructions[0].text == sub["instructions"][0]["text"]
    child_turns = again.beta.agents.sessions.subagents.turns.list(sub["id"], session_id=sid).data
    assert [t.id for t in child_turns] == [turn["id"]] and child_turns[0].subagent_id == sub["id"]
    child_items = again.beta.agents.sessions.subagents.turns.items.list(turn["id"], session_id=sid, subagent_id=sub["id"], order="asc").data
    assert [i.type for i in child_items] == ["message", "function_call", "function_call_output", "message"]


CANNOT_ACCEPT = "The Turn cannot accept this input in its current state."

# The root gives the child 10 s (codex's shortest wait), which times out while the child's call
# waits on a result nobody sends; then the root closes the child and answers.
CLOSING_SCENARIO = {
    "rules": [
        SCENARIO["rules"][0],
        SCENARIO["rules"][1],
        {
            "name": "root closes the child after the wait timed out",
            "when": {"last_kind": "tool_output", "last_text_contains": '"timed_out":true'},
            "reply": {"tool_calls": [{"name": "multi_agent_v1__close_agent", "arguments": {"target": "$last_output.agent_id"}}]},
        },
        {
            "name": "root waits for the child briefly",
            "when": {"last_kind": "tool_output", "last_text_contains": "nickname"},
            "reply": {
                "tool_calls": [
                    {"name": "multi_agent_v1__wait_agent", "arguments": {"targets": ["$last_output.agent_id"], "timeout_ms": 10000}}
                ]
            },
        },
        # codex tells the root the child is shut down (`<subagent_notification>`).
        {"name": "root answers", "when": {"last_text_contains": '"status":"shutdown"'}, "reply": {"text": "ROOT FINAL: closed"}},
    ]
}


def test_closing_the_child_abandons_its_pending_call(start_engine):
    engine = start_engine(CLOSING_SCENARIO)
    client = engine.client
    session = client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT, input="ROOT TASK: ask a helper")
    sid = session.id
    (action,) = wait_required_actions(engine.raw, sid)["required_actions"]

    # The close abandons the call: it leaves required_actions and the Turn goes on to its end.
    done = wait_idle(engine.raw, sid)
    assert done["required_actions"] == []
    (turn,) = client.beta.agents.sessions.turns.list(sid).data
    assert turn.id == action["turn_id"] and turn.status == "completed"
    items = list(client.beta.agents.sessions.items.list(sid, order="asc"))
    assert [i.type for i in items] == [
        "message",
        "create_subagent_call",
        "wait_for_subagents_call",
        "close_subagent_call",
        "message",
    ]
    assert items[-1].content[0].text == "ROOT FINAL: closed"
    (sub,) = client.beta.agents.sessions.subagents.list(sid).data
    assert sub.status == "closed" and sub.closed_at is not None
    assert items[3].recipient_agent_id == sub.id

    # A late result, under either Turn ID, is refused like one after cancellation.
    child_turn = client.beta.agents.sessions.subagents.turns.list(sub.id, session_id=sid).data[0]
    for turn_id in (action["turn_id"], child_turn.id):
        status, _, body = post_events(engine.raw, sid, [tool_result({**action, "turn_id": turn_id}, WEATHER)])
        assert status == 409 and error_of(body)["message"] == CANNOT_ACCEPT, body
    child_items = client.beta.agents.sessions.subagents.items.list(sub.id, session_id=sid, order="asc").data
    assert [i.type for i in child_items] == ["message", "function_call"]


SCHEMA = {
    "type": "object",
    "properties": {"weather": {"type": "string"}},
    "required": ["weather"],
    "additionalProperties": False,
}
STRUCTURED = '{"weather":"sunny 21C"}'


def last_user_text(entry):
    """The text of the last user message of a Responses request (the agent it is for: the
    child's is its spawn message)."""
    users = [i for i in entry["body"]["input"] if i.get("role") == "user"]
    return "".join(p.get("text", "") for p in users[-1]["content"]) if users else ""


def test_structured_output_stays_on_the_root(start_engine):
    rules = [dict(rule) for rule in SCENARIO["rules"]]
    rules[2] = {**rules[2], "reply": {"text": STRUCTURED}}
    engine = start_engine({"rules": rules})
    agent = {**AGENT, "text": {"format": {"type": "json_schema", "schema": SCHEMA}}}
    sessions = engine.client.beta.agents.sessions
    session = sessions.create(environment={"type": "none"}, agent=agent, input="ROOT TASK: ask a helper")
    (action,) = wait_required_actions(engine.raw, session.id)["required_actions"]
    status, _, body = post_events(engine.raw, session.id, [tool_result(action, WEATHER)])
    assert status == 202, body
    wait_idle(engine.raw, session.id)
    assert list(sessions.items.list(session.id, order="asc"))[-1].content[0].text == STRUCTURED

    # Every root request carries the schema; the child's (its call, and its answer after the
    # function output) carry none.
    requests = [e for e in engine.journal() if e["path"] == "/v1/responses"]
    child = [e for e in requests if last_user_text(e).startswith("CHILD TASK")]
    root = [e for e in requests if e not in child]
    assert len(child) == 2 and len(root) == 3, [e["matched"] for e in requests]
    assert all(e["body"]["text"]["format"]["schema"] == SCHEMA for e in root)
    assert all("format" not in (e["body"].get("text") or {}) for e in child)


# The child's first call is answered; its second stays pending until the root, whose 10 s wait
# timed out, closes the child.
SECOND_CALL_SCENARIO = {
    "rules": [
        {
            "name": "child calls the function again",
            "when": {"user_text_contains": "CHILD TASK", "tool_output_contains": WEATHER},
            "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]},
        },
        *CLOSING_SCENARIO["rules"],
    ]
}


def test_closing_the_child_abandons_its_pending_call_and_an_answered_one_still_takes_its_retry(start_engine):
    engine = start_engine(SECOND_CALL_SCENARIO)
    client = engine.client
    session = client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT, input="ROOT TASK: ask a helper")
    sid = session.id
    (first,) = wait_required_actions(engine.raw, sid)["required_actions"]
    assert json.loads(first["arguments"]) == {"city": "Paris"}
    status, _, body = post_events(engine.raw, sid, [tool_result(first, WEATHER)])
    assert status == 202, body
    # The second call is pending when the root closes the child.
    second = wait_for(
        lambda: session_raw(engine.raw, sid)["required_actions"],
        lambda actions: [a for a in actions if a["call_id"] != first["call_id"]],
        what="the child's second call",
    )
    (second,) = [a for a in second if a["call_id"] != first["call_id"]]
    assert json.loads(second["arguments"]) == {"city": "Rome"} and second["turn_id"] == first["turn_id"]

    done = wait_idle(engine.raw, sid)
    assert done["required_actions"] == []
    (turn,) = client.beta.agents.sessions.turns.list(sid).data
    assert turn.status == "completed"
    assert list(client.beta.agents.sessions.items.list(sid, order="asc"))[-1].content[0].text == "ROOT FINAL: closed"

    # The abandoned call refuses a late result; the answered one takes its identical retry
    # (under either Turn ID) and refuses a different result.
    (sub,) = client.beta.agents.sessions.subagents.list(sid).data
    assert sub.status == "closed"
    child_turn = client.beta.agents.sessions.subagents.turns.list(sub.id, session_id=sid).data[0].id
    status, _, body = post_events(engine.raw, sid, [tool_result(second, WEATHER)])
    assert status == 409 and error_of(body)["message"] == CANNOT_ACCEPT, body
    for turn_id in (first["turn_id"], child_turn):
        status, _, body = post_events(engine.raw, sid, [tool_result({**first, "turn_id": turn_id}, WEATHER)])
        assert status == 202, body
    status, _, body = post_events(engine.raw, sid, [tool_result(first, "weather: rain")])
    assert status == 409 and error_of(body)["message"] == "The tool call already has a different result.", body
    child_items = client.beta.agents.sessions.subagents.items.list(sub.id, session_id=sid, order="asc").data
    assert [i.type for i in child_items] == ["message", "function_call", "function_call_output", "function_call"]
