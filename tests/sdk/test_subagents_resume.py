"""A multi-agent Session's Subagents survive the eviction of its harness process (issue 15;
resume-and-acp §1, §4), on each harness: with `--max-live-harnesses 1`, a second Session's Turn
evicts the first Session's idle process; the Subagent routes still return what they did, and the
next Turn of the first Session runs on the resumed native session and leaves its Subagents as
they were. (The routes after a Core restart: test_subagents.py and test_subagents_claude.py.)

What native resume restores: the codex adapter resumes the root thread (`thread/resume`), whose
history holds the spawn, the wait and the child's notification; child threads are not reloaded
with it (the model's `resume_agent` could reload one).
Claude Code resumes the root transcript (`--resume`); a finished foreground child keeps its
transcript on disk but is not an agent the root can address again. The Subagents, their Turns
and Items are Core's records, so neither needs the harness to keep them."""

import json

import pytest

import test_subagents as codex_case
import test_subagents_claude as claude_case
from conftest import WEATHER_FUNCTION
from session_support import message, post_events, tool_result, wait_idle, wait_required_actions
from test_subagents import routes_snapshot

AGAIN = "AGAIN: nothing to delegate"

# Before the scenario's rules: the later Turn's input, and the other Session's.
AGAIN_RULE = {"name": "no delegation", "when": {"user_text_contains": "hello again"}, "reply": {"text": AGAIN}}

CASES = {
    "codex": (
        {"rules": [AGAIN_RULE, *codex_case.SCENARIO["rules"]]},
        codex_case.AGENT,
        {},
        codex_case.WEATHER,
    ),
    "claude_code": (
        {**claude_case.SCENARIO, "rules": [AGAIN_RULE, *claude_case.SCENARIO["rules"]]},
        claude_case.AGENT,
        claude_case.HARNESS,
        claude_case.WEATHER,
    ),
}


@pytest.mark.parametrize("harness", list(CASES))
def test_subagents_survive_an_eviction_and_the_next_turn_resumes(start_engine, harness, tmp_path):
    scenario, agent, extra, weather = CASES[harness]
    log_path = tmp_path / "serve.log"
    log = open(log_path, "w")
    engine = start_engine(
        scenario, extra_serve=("--max-live-harnesses", "1"), env={"SWITCHBOARD_LOG": "info,switchboard_runtime=debug"}, log=log
    )
    sessions = engine.client.beta.agents.sessions
    sid = sessions.create(environment={"type": "none"}, agent=agent, input="ROOT TASK: ask a helper", extra_body=extra).id
    (action,) = wait_required_actions(engine.raw, sid)["required_actions"]
    status, _, body = post_events(engine.raw, sid, [tool_result(action, weather)])
    assert status == 202, body
    wait_idle(engine.raw, sid)
    assert list(sessions.items.list(sid, order="asc"))[-1].content[0].text == codex_case.ROOT_FINAL
    snap = routes_snapshot(engine.raw, sid)
    assert len(snap["subagents"]) == 1

    # Another Session takes the only process slot: the first Session's idle process is evicted.
    other_agent = {"model": agent["model"], "tools": [WEATHER_FUNCTION]}
    other = sessions.create(environment={"type": "none"}, agent=other_agent, input="hello again", extra_body=extra).id
    done = wait_idle(engine.raw, other)
    assert done["required_actions"] == []
    evicted = [l for l in log_path.read_text().splitlines() if "evicted a session's harness process" in l]
    assert len(evicted) == 1 and sid in evicted[0], evicted
    assert routes_snapshot(engine.raw, sid) == snap

    # The next Turn resumes the native session; the Subagents stay as they were.
    status, _, body = post_events(engine.raw, sid, [message("hello again")])
    assert status == 202, body
    wait_idle(engine.raw, sid)
    turns = sessions.turns.list(sid, order="asc").data
    assert [t.status for t in turns] == ["completed", "completed"] and all(t.subagent_id is None for t in turns)
    items = list(sessions.items.list(sid, order="asc"))
    assert items[-1].content[0].text == AGAIN
    # The resumed root remembers its child's answer: the request that answered the new input
    # carries it.
    bodies = [json.dumps(e["body"]) for e in engine.journal() if e["path"].startswith(("/v1/responses", "/v1/messages"))]
    again = [b for b in bodies if "hello again" in b]
    assert again and "FINAL: " + weather in again[-1]
    assert routes_snapshot(engine.raw, sid) == snap
