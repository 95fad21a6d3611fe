"""A replica that dies loses its claims when they expire (issue 16): SIGKILL the replica that
holds a Session mid-Turn (a function call pending), and once its claim runs out (a short
`--claim-ttl`) another replica claims the Session and fails the Turn without replay, exactly as
a single-node restart does; no stored input is lost, a result for the dead Turn's call is the
409 a finished Turn gives, and the Session's next input runs a new Turn on a surviving replica."""

import signal

import pytest

from pg_support import pg_url  # noqa: F401  (the fixture)
from replicas_support import Replicas
from session_support import (
    CODEX,
    items_raw,
    message,
    post_events,
    session_raw,
    tool_result,
    turn_raw,
    turns_raw,
    wait_for,
    wait_idle,
    wait_required_actions,
)
from test_sessions_results import CANNOT_ACCEPT, conflict

FAILED = "The execution could not complete."


@pytest.fixture
def replicas(tmp_path, pg_url):  # noqa: F811
    # Replicas 1 and 2 run a local Runtime each, replica 3 none; claims live 1.5 s.
    r = Replicas(tmp_path, pg_url, local_runtime=(True, True, False), claim_ttl_ms=1500)
    try:
        yield r
    finally:
        r.stop()


def test_a_killed_holder_s_turn_fails_without_replay_and_the_session_goes_on(replicas):
    r1, r2, r3 = replicas.replicas
    sid, action = CODEX.create_pending(r1)
    dead_id = replicas.id_of(0)
    assert replicas.holder(sid) == dead_id
    items_before = items_raw(r2.raw, sid)
    assert any(i["type"] == "message" and i.get("role") == "user" for i in items_before), items_before
    requests_before = len(CODEX.model_calls(replicas))

    r1.server.proc.send_signal(signal.SIGKILL)
    r1.server.proc.wait(timeout=10)

    # The stored Turn is read on any replica (from the store); it fails once a survivor's
    # sweep claims the expired Session.
    turn = wait_for(
        lambda: turn_raw(r2.raw, sid, action["turn_id"]),
        lambda t: t["status"] != "in_progress" and t["status"] != "requires_action",
        60,
        "the dead replica's Turn to settle",
    )
    assert turn["status"] == "failed", turn
    assert turn["error"] == {"code": "internal_error", "message": FAILED}
    holder = replicas.holder(sid)
    assert holder is not None and holder != dead_id
    session = session_raw(r3.raw, sid)
    assert session["status"] == "failed", session
    assert session["error"] == FAILED
    assert session["required_actions"] == []

    # Nothing replayed: the model saw no further request for that Turn.
    assert len(CODEX.model_calls(replicas)) == requests_before
    # No stored input lost: every Item stored before the death is there, unchanged but for
    # what the settling Turn marks.
    after = {i["id"]: i for i in items_raw(r3.raw, sid)}
    for item in items_before:
        assert item["id"] in after, item
        if item["type"] == "message":
            assert after[item["id"]] == item

    # A result for the dead Turn's call: the Turn is over.
    for replica in (r2, r3):
        status, _, body = post_events(replica.raw, sid, [tool_result(action, output="late")])
        assert (status, body) == (409, {"error": conflict(CANNOT_ACCEPT)})

    # New input (through the replica without a Runtime) runs a new Turn on replica 2.
    status, _, body = post_events(r3.raw, sid, [message("Try again?")])
    assert status == 202, body
    pending = wait_required_actions(r3.raw, sid)
    assert replicas.holder(sid) == replicas.id_of(1)
    second = pending["required_actions"][0]
    status, _, body = post_events(r3.raw, sid, [tool_result(second, output='{"temp_c": 19}')])
    assert status == 202, body
    wait_idle(r2.raw, sid)
    assert [t["status"] for t in turns_raw(r3.raw, sid)] == ["failed", "completed"]
    assert CODEX.sent_outputs(replicas) == ['{"temp_c": 19}']
