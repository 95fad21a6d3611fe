"""Function results on minimax_code Sessions, through the stand-in for `mcode` (an ACP agent started
from the profile's own config.yaml, minimax_support.py), every test on both stand-ins: the rows
of the conflict table (execution-tools "Results") and the abandonment of a call by the agent's own MCP tool timeout, as
MiniMax Code's MCP client times calls out: codex-acp (the stand-in declares
`functions` in codex's config with `tool_timeout_sec`) and claude-agent-acp (Claude Code's
`MCP_TOOL_TIMEOUT`, in milliseconds). Nothing here ran against MiniMax Code itself."""

import pytest

from minimax_support import MinimaxHarness, install_standin
from session_support import (
    history_snapshot,
    items_raw,
    post_events,
    session_raw,
    tool_result,
    turns_raw,
    wait_for,
    wait_idle,
)
from test_sessions_results import CANNOT_ACCEPT, assert_rejected, conflict, outputs

# The rows that read the same on every harness run here unchanged, on this module's `engine`
# and `harness` (a minimax_code Session on the stand-in); identical retry is written out below
# (codex-acp wraps the result it hands the model, so the final text is not `FINAL: sunny`).
from test_sessions_results import (  # noqa: F401  (collected here)
    test_call_of_another_turn_is_400_and_keeps_the_action,
    test_different_result_conflicts_while_running_and_after_end,
    test_first_result_after_cancel_conflicts,
    test_result_for_a_call_of_a_turn_failed_by_harness_loss_conflicts,
    test_result_for_missing_or_deleted_session_is_404,
    test_unknown_call_is_400_naming_the_call_and_keeps_the_action,
)


@pytest.fixture
def standin():
    """The stand-in's own options (a test parametrizes them)."""
    return {}


AGENTS = ["codex-acp", "claude-agent-acp"]


@pytest.fixture(params=AGENTS)
def agent(request):
    """The stand-in's agent: every row here runs on both."""
    return request.param


@pytest.fixture
def engine(start_engine, tmp_path, monkeypatch, standin, agent):
    launcher = install_standin(tmp_path, agent, **standin)
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(launcher))
    return start_engine()


@pytest.fixture
def harness(engine, agent):
    return MinimaxHarness(engine.mock.base_url, agent)


def final_text(engine, sid):
    return [i for i in items_raw(engine.raw, sid) if i["type"] == "message" and i["role"] == "assistant"][-1][
        "content"
    ][0]["text"]


def test_identical_retry_is_accepted_before_and_after_turn_end(engine, harness):
    sid, action = harness.create_pending(engine)
    result = tool_result(action, output="sunny")
    assert post_events(engine.raw, sid, [result])[0] == 202
    status, _, body = post_events(engine.raw, sid, [result])
    assert (status, body) == (202, None)
    wait_idle(engine.raw, sid)
    before = history_snapshot(engine.raw, sid)
    assert [o["output"] for o in outputs(before["items"])] == ["sunny"]
    assert final_text(engine, sid).startswith("FINAL: ")

    assert engine.client.beta.agents.sessions.events.create(sid, events=[result]) is None
    assert post_events(engine.raw, sid, [result])[:3:2] == (202, None)
    assert history_snapshot(engine.raw, sid) == before
    assert len(turns_raw(engine.raw, sid)) == 1
    assert harness.sent_outputs(engine) == ["sunny"]


# Abandonment by the agent's own MCP tool timeout (1 s).


@pytest.mark.parametrize("standin", [{"tool_timeout": 1}])
def test_the_agents_tool_timeout_abandons_the_pending_call(engine, harness):
    sid, action = harness.create_pending(engine)
    # The call leaves the required actions and the Turn goes on (the model gets the timeout).
    wait_for(lambda: session_raw(engine.raw, sid), lambda s: s["required_actions"] == [], what="the abandonment")
    wait_idle(engine.raw, sid)
    [turn] = turns_raw(engine.raw, sid)
    assert turn["status"] == "completed"
    assert "timed out" in final_text(engine, sid)
    before = history_snapshot(engine.raw, sid)
    assert outputs(before["items"]) == []
    # A first result for the abandoned call is refused like one after cancellation, every time.
    for _ in range(2):
        status, headers, body = post_events(engine.raw, sid, [tool_result(action, output="sunny")])
        assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    assert history_snapshot(engine.raw, sid) == before
    # No result of ours reached the model: only the agent's timeout text.
    [(call_id, text)] = harness.sent_results(engine)
    assert call_id == action["call_id"] and "timed out" in text and "sunny" not in text


@pytest.fixture
def hold(tmp_path):
    (tmp_path / "hold").mkdir()
    return tmp_path / "hold"


def test_a_result_admitted_after_the_timeout_is_abandoned_without_a_receipt(start_engine, tmp_path, monkeypatch, hold, agent):
    launcher = install_standin(tmp_path, agent, tool_timeout=1, hold=hold)
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(launcher))
    engine = start_engine()
    harness = MinimaxHarness(engine.mock.base_url, agent)
    sid, action = harness.create_pending(engine)
    # The agent has timed the call out; the stand-in holds its record of that, so the caller's
    # result is admitted first.
    wait_for(lambda: (hold / "held").exists(), bool, what="the agent's timeout")
    result = tool_result(action, output="sunny")
    assert post_events(engine.raw, sid, [result])[:3:2] == (202, None)
    (hold / "release").write_text("")
    # Abandoned: the action leaves, the Turn goes on to its end, and no output Item appears.
    wait_for(lambda: session_raw(engine.raw, sid), lambda s: s["required_actions"] == [], what="the abandonment")
    wait_idle(engine.raw, sid)
    [turn] = turns_raw(engine.raw, sid)
    assert turn["status"] == "completed"
    before = history_snapshot(engine.raw, sid)
    assert outputs(before["items"]) == []
    # The admitted result's identical retry is still accepted; a different one is refused like a
    # result after cancellation.
    assert post_events(engine.raw, sid, [result])[:3:2] == (202, None)
    status, headers, body = post_events(engine.raw, sid, [tool_result(action, output="rainy")])
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    assert history_snapshot(engine.raw, sid) == before
    [(_, text)] = harness.sent_results(engine)
    assert "timed out" in text and "sunny" not in text
