"""Session lifecycle with the official SDK: the AgentSession shape, retrieve and list (agent_id
and metadata filters, cursor pages), metadata updates, delete (409 while a Turn is active),
Turns and their Items, and `/readyz` (agents-api-wire §2, §3, §11)."""

import urllib.request

import openai
import pytest

from conftest import WEATHER_FUNCTION, error_of
from session_support import (
    CANCEL,
    create_pending,
    items_raw,
    message,
    post_events,
    session_raw,
    tool_result,
    turns_raw,
    wait_idle,
    wait_required_actions,
)

NOT_FOUND = {"message": "Resource not found.", "type": "not_found_error", "param": None, "code": "not_found_error"}

SESSION_KEYS = {
    "id", "object", "created_at", "last_active_at", "metadata", "vault_ids", "status",
    "required_actions", "agent", "environment", "error", "usage",
}
SESSION_AGENT_KEYS = {"id", "name", "instructions", "model", "multi_agent", "reasoning", "service_tier", "text", "tools"}
TURN_KEYS = {
    "id", "object", "session_id", "agent_id", "subagent_id", "created_at", "started_at",
    "completed_at", "status", "error", "usage",
}
WEATHER_SESSION_FORM = {**WEATHER_FUNCTION, "defer_loading": False, "async": None}


def echo_session(engine, text="Hello", **kwargs):
    """A Session without functions: the mock answers `ECHO: <text>` and the Turn completes."""
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input=text, **kwargs
    )
    wait_idle(engine.raw, session.id)
    return session.id


def assert_token_usage(usage):
    assert set(usage) == {"input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"}
    assert set(usage["input_tokens_details"]) == {"cached_tokens"}
    assert set(usage["output_tokens_details"]) == {"reasoning_tokens"}
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def usage_sum(usages):
    out = {
        "input_tokens": 0,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 0,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 0,
    }
    for u in usages:
        for k in ("input_tokens", "output_tokens", "total_tokens"):
            out[k] += u[k]
        out["input_tokens_details"]["cached_tokens"] += u["input_tokens_details"]["cached_tokens"]
        out["output_tokens_details"]["reasoning_tokens"] += u["output_tokens_details"]["reasoning_tokens"]
    return out


# ---------------------------------------------------------------------------------------------
# Shape.


def test_session_object_shape_and_usage(engine):
    status, _, created = engine.raw.request(
        "POST",
        "/agents/sessions",
        body={
            "environment": {"type": "none"},
            "agent": {"model": "gpt-test", "tools": [WEATHER_FUNCTION, {"type": "web_search", "mode": "disabled"}]},
            "input": "What is the weather in Paris?",
            "metadata": {"team": "a"},
        },
    )
    assert status == 201
    assert SESSION_KEYS <= set(created)
    assert created["object"] == "agent.session"
    assert created["metadata"] == {"team": "a"} and created["vault_ids"] == []
    assert created["environment"] == {"type": "none"}
    assert created["error"] is None and created["usage"] is None
    assert created["status"] in ("in_progress", "requires_action")
    agent = created["agent"]
    assert SESSION_AGENT_KEYS <= set(agent)
    assert agent["id"] is None and agent["name"] is None and agent["instructions"] is None
    assert agent["model"] == "gpt-test"
    assert agent["tools"] == [
        WEATHER_SESSION_FORM,
        {"type": "web_search", "mode": "disabled", "context_size": "medium", "allowed_domains": None, "location": None},
    ]
    assert agent["text"] == {"format": {"type": "text"}, "verbosity": "medium"}
    assert agent["reasoning"] == {"effort": None, "summary": None}
    assert agent["service_tier"] == "auto"
    assert agent["multi_agent"] == {"enabled": False, "max_concurrent_subagents": None}
    sid = created["id"]

    # While the Turn waits: required_actions in the Session form, usage unknown.
    waiting = wait_required_actions(engine.raw, sid)
    assert waiting["status"] == "requires_action" and waiting["usage"] is None
    [action] = waiting["required_actions"]
    assert set(action) == {"arguments", "call_id", "name", "turn_id", "type"}
    assert {k: waiting[k] for k in ("id", "created_at", "metadata", "agent", "environment")} == {
        k: created[k] for k in ("id", "created_at", "metadata", "agent", "environment")
    }
    sdk = engine.client.beta.agents.sessions.retrieve(sid)
    assert sdk.id == sid and sdk.status == "requires_action" and sdk.usage is None
    assert sdk.agent.tools[0].name == "get_weather" and sdk.agent.tools[1].type == "web_search"

    assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
    done = wait_idle(engine.raw, sid)
    assert done["required_actions"] == [] and done["error"] is None
    assert done["last_active_at"] >= created["last_active_at"]
    assert_token_usage(done["usage"])
    [turn] = turns_raw(engine.raw, sid)
    assert done["usage"] == turn["usage"]
    assert engine.client.beta.agents.sessions.retrieve(sid).usage.total_tokens == done["usage"]["total_tokens"]


def test_session_usage_is_the_sum_of_ended_turns_and_null_while_one_runs(engine):
    sid, first = create_pending(engine)
    assert post_events(engine.raw, sid, [tool_result(first, output="sunny")])[0] == 202
    after_one = wait_idle(engine.raw, sid)
    [turn_one] = turns_raw(engine.raw, sid)
    assert_token_usage(turn_one["usage"])
    assert after_one["usage"] == turn_one["usage"]

    # The second Turn waits on its call: usage is unknown until it ends, never a partial sum.
    assert post_events(engine.raw, sid, [message("And in Rome?")])[0] == 202
    waiting = wait_required_actions(engine.raw, sid)
    assert waiting["usage"] is None
    assert engine.client.beta.agents.sessions.retrieve(sid).usage is None
    [second] = waiting["required_actions"]
    assert post_events(engine.raw, sid, [tool_result(second, output="warm")])[0] == 202
    done = wait_idle(engine.raw, sid)
    turns = turns_raw(engine.raw, sid)
    assert len(turns) == 2
    for t in turns:
        assert_token_usage(t["usage"])
    assert done["usage"] == usage_sum([t["usage"] for t in turns])


def test_turn_shape_and_turn_items(engine):
    sid = echo_session(engine, "First")
    assert post_events(engine.raw, sid, [message("Second")])[0] == 202
    wait_idle(engine.raw, sid)
    turns = turns_raw(engine.raw, sid)
    assert len(turns) == 2
    for t in turns:
        assert set(t) == TURN_KEYS
        assert t["object"] == "agent.session.turn" and t["session_id"] == sid
        assert t["agent_id"] is None and t["subagent_id"] is None
        assert t["status"] == "completed" and t["error"] is None
        assert t["created_at"] <= t["started_at"] <= t["completed_at"]
    # Each Turn lists only its own Items, through the SDK's ConversationCursorPage.
    for turn, text in zip(turns, ["First", "Second"]):
        items = list(engine.client.beta.agents.sessions.turns.items.list(turn["id"], session_id=sid, limit=1, order="asc"))
        assert [i.turn_id for i in items] == [turn["id"]] * 2
        assert [i.role for i in items] == ["user", "assistant"]
        assert items[0].content[0].text == text
        assert items[1].content[0].text == f"ECHO: {text}"
    # The Session's Items are both Turns' Items, oldest first.
    assert [i["turn_id"] for i in items_raw(engine.raw, sid)] == [turns[0]["id"]] * 2 + [turns[1]["id"]] * 2
    retrieved = engine.client.beta.agents.sessions.turns.retrieve(turns[1]["id"], session_id=sid)
    assert retrieved.model_dump(exclude_unset=True) == turns[1]
    # Items and Turns list newest first by default.
    status, _, body = engine.raw.request("GET", f"/agents/sessions/{sid}/items")
    assert [i["id"] for i in body["data"]] == [i["id"] for i in items_raw(engine.raw, sid)][::-1]
    assert [t.id for t in engine.client.beta.agents.sessions.turns.list(sid)] == [turns[1]["id"], turns[0]["id"]]


def test_turn_of_another_session_is_404(engine):
    a = echo_session(engine, "A")
    b = echo_session(engine, "B")
    [turn_a] = turns_raw(engine.raw, a)
    with pytest.raises(openai.NotFoundError) as e:
        engine.client.beta.agents.sessions.turns.retrieve(turn_a["id"], session_id=b)
    assert e.value.body == NOT_FOUND
    status, _, body = engine.raw.request("GET", f"/agents/sessions/{b}/turns/{turn_a['id']}/items")
    assert status == 404 and error_of(body) == NOT_FOUND
    status, _, body = engine.raw.request("GET", f"/agents/sessions/{b}/turns/turn_00000000000000000000000000000000")
    assert status == 404 and error_of(body) == NOT_FOUND
    status, _, body = engine.raw.request("GET", "/agents/sessions/sess_00000000000000000000000000000000/turns")
    assert status == 404 and error_of(body) == NOT_FOUND
    status, _, body = engine.raw.request("GET", "/agents/sessions/sess_00000000000000000000000000000000/items")
    assert status == 404 and error_of(body) == NOT_FOUND


# ---------------------------------------------------------------------------------------------
# Retrieve and list.


def test_list_filters_by_saved_agent(engine):
    agent = engine.client.beta.agents.create(model="gpt-test", name="weather", tools=[WEATHER_FUNCTION])
    saved = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent_id=agent.id, input="What is the weather in Paris?"
    )
    inline = echo_session(engine)
    assert saved.agent.id == agent.id and saved.agent.name == "weather"
    assert [t.model_dump(by_alias=True) for t in saved.agent.tools] == [WEATHER_SESSION_FORM]

    listed = engine.client.beta.agents.sessions.list(agent_id=agent.id)
    assert [s.id for s in listed.data] == [saved.id]
    assert listed.data[0].agent.id == agent.id
    assert {s.id for s in engine.client.beta.agents.sessions.list()} == {saved.id, inline}
    other = engine.client.beta.agents.create(model="gpt-test")
    assert engine.client.beta.agents.sessions.list(agent_id=other.id).data == []
    # The Turn records the saved Agent too.
    [turn] = turns_raw(engine.raw, saved.id)
    assert turn["agent_id"] == agent.id


def test_list_filters_by_metadata(engine):
    a = echo_session(engine, metadata={"team": "a", "env": "prod"})
    b = echo_session(engine, metadata={"team": "b", "env": "prod"})
    c = echo_session(engine)
    sessions = engine.client.beta.agents.sessions
    assert [s.id for s in sessions.list(metadata={"team": "a"})] == [a]
    assert [s.id for s in sessions.list(metadata={"env": "prod"}, order="asc")] == [a, b]
    assert [s.id for s in sessions.list(metadata={"env": "prod", "team": "b"})] == [b]
    assert list(sessions.list(metadata={"team": "c"})) == []
    assert [s.id for s in sessions.list(order="asc")] == [a, b, c]


def test_list_pages_with_after_limit_and_order(engine):
    ids = [echo_session(engine, f"s{i}") for i in range(5)]
    sessions = engine.client.beta.agents.sessions
    page = sessions.list(limit=2)
    assert [s.id for s in page.data] == ids[::-1][:2]
    assert page.has_more is True
    assert [s.id for s in sessions.list(limit=2)] == ids[::-1]  # the SDK follows after=<last id>
    assert [s.id for s in sessions.list(limit=3, order="asc")] == ids
    asc = sessions.list(limit=2, order="asc", after=ids[1])
    assert [s.id for s in asc.data] == ids[2:4] and asc.has_more is True
    last = sessions.list(limit=2, order="asc", after=ids[3])
    assert [s.id for s in last.data] == [ids[4]] and last.has_more is False
    status, _, body = engine.raw.request("GET", f"/agents/sessions?limit=2&order=desc&after={ids[2]}")
    assert status == 200
    assert [s["id"] for s in body["data"]] == [ids[1], ids[0]]
    assert (body["object"], body["has_more"], body["first_id"], body["last_id"]) == ("list", False, ids[1], ids[0])


def test_update_metadata_and_clear_with_null(engine):
    sid = echo_session(engine, metadata={"team": "a"})
    before = session_raw(engine.raw, sid)
    updated = engine.client.beta.agents.sessions.update(sid, metadata={"team": "b", "tier": "gold"})
    assert updated.metadata == {"team": "b", "tier": "gold"}
    assert engine.client.beta.agents.sessions.retrieve(sid).metadata == {"team": "b", "tier": "gold"}
    assert [s.id for s in engine.client.beta.agents.sessions.list(metadata={"tier": "gold"})] == [sid]
    # Omitted metadata: unchanged.
    assert engine.client.beta.agents.sessions.update(sid).metadata == {"team": "b", "tier": "gold"}
    # An invalid update changes nothing.
    status, _, body = engine.raw.request("POST", f"/agents/sessions/{sid}", body={"metadata": {"team": 1}})
    assert status == 400 and error_of(body)["type"] == "invalid_request_error"
    assert session_raw(engine.raw, sid)["metadata"] == {"team": "b", "tier": "gold"}
    cleared = engine.client.beta.agents.sessions.update(sid, metadata=None)
    assert cleared.metadata == {}
    after = session_raw(engine.raw, sid)
    assert after["metadata"] == {}
    assert {k: after[k] for k in ("agent", "status", "usage", "created_at")} == {
        k: before[k] for k in ("agent", "status", "usage", "created_at")
    }
    assert engine.client.beta.agents.sessions.list(metadata={"team": "b"}).data == []


# ---------------------------------------------------------------------------------------------
# Delete.


def test_delete_idle_session_then_everything_is_404(engine):
    sid = echo_session(engine)
    keep = echo_session(engine, "Other")
    stream = engine.client.beta.agents.sessions.events.stream(sid, timeout=60)
    status, _, body = engine.raw.request("DELETE", f"/agents/sessions/{sid}")
    assert status == 200
    assert body == {"id": sid, "object": "agent.session.deleted", "deleted": True}
    # Deleting the Session ends its live streams.
    assert list(stream) == []

    with pytest.raises(openai.NotFoundError) as e:
        engine.client.beta.agents.sessions.retrieve(sid)
    assert e.value.body == NOT_FOUND
    with pytest.raises(openai.NotFoundError):
        engine.client.beta.agents.sessions.delete(sid)
    with pytest.raises(openai.NotFoundError):
        engine.client.beta.agents.sessions.update(sid, metadata={"a": "b"})
    for method, path in [
        ("GET", f"/agents/sessions/{sid}/items"),
        ("GET", f"/agents/sessions/{sid}/turns"),
        ("GET", f"/agents/sessions/{sid}/events"),
    ]:
        status, _, body = engine.raw.request(method, path)
        assert status == 404 and error_of(body) == NOT_FOUND, path
    status, _, body = post_events(engine.raw, sid, [message("Hello?")])
    assert status == 404 and error_of(body) == NOT_FOUND
    assert [s.id for s in engine.client.beta.agents.sessions.list()] == [keep]


def test_sdk_delete_returns_the_deleted_object(engine):
    sid = echo_session(engine)
    deleted = engine.client.beta.agents.sessions.delete(sid)
    assert (deleted.id, deleted.object, deleted.deleted) == (sid, "agent.session.deleted", True)


def test_delete_while_a_turn_is_active_is_409(engine):
    sid, action = create_pending(engine)
    status, headers, body = engine.raw.request("DELETE", f"/agents/sessions/{sid}")
    assert status == 409
    assert headers["x-should-retry"] == "false"
    assert error_of(body) == {
        "message": "The Session has an active Turn. Cancel it and wait for the Session to be idle before deleting it.",
        "type": "conflict_error",
        "param": None,
        "code": "conflict_error",
    }
    with pytest.raises(openai.ConflictError):
        engine.client.beta.agents.sessions.delete(sid)
    # Nothing changed: the Turn still waits on its call.
    session = session_raw(engine.raw, sid)
    assert session["status"] == "requires_action" and session["required_actions"] == [action]
    # Metadata can change while the Turn waits; the Turn is not disturbed.
    updated = engine.client.beta.agents.sessions.update(sid, metadata={"state": "waiting"})
    assert updated.metadata == {"state": "waiting"} and updated.status == "requires_action"
    assert [a.call_id for a in updated.required_actions] == [action["call_id"]]

    assert post_events(engine.raw, sid, [{"type": CANCEL}])[0] == 202
    wait_idle(engine.raw, sid)
    assert [t["status"] for t in turns_raw(engine.raw, sid)] == ["cancelled"]
    assert engine.client.beta.agents.sessions.delete(sid).deleted is True


def test_delete_while_a_message_turn_is_queued_or_running_is_409(start_engine):
    # The model answers late, so the Turn is still running when the delete arrives.
    engine = start_engine(scenario={"rules": [{"reply": {"text": "late", "delay_ms": 1500}}]})
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input="Hello"
    )
    with pytest.raises(openai.ConflictError) as e:
        engine.client.beta.agents.sessions.delete(session.id)
    assert e.value.body["type"] == "conflict_error"
    wait_idle(engine.raw, session.id)
    assert engine.client.beta.agents.sessions.delete(session.id).deleted is True


# ---------------------------------------------------------------------------------------------
# Readiness.


def test_readyz_is_200_once_the_runtime_advertised(engine):
    root = engine.server.base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(root + "/readyz") as r:
        assert r.status == 200
