"""Three Core replicas on one PostgreSQL are one service (issue 16): a Session created on one is
read, sent input and sent a `tool_result` through the others, which forward to the replica that
holds it (same status and body, the exact 404 and 409 bodies included); another Project's
Session is the same 404 on every replica; a Runtime connected to replica 1 only runs a Turn
admitted on replica 2 (the Session is handed over), its call answered through replica 3; and
one Idempotency-Key used on two replicas at once creates one Session."""

import subprocess
import threading

import pytest

from conftest import switchboard_bin
from pg_support import pg_url  # noqa: F401  (the fixture)
from replicas_support import Replicas
from session_support import (
    CODEX,
    message,
    post_events,
    sessions_raw,
    tool_result,
    turns_raw,
    wait_for,
    wait_idle,
    wait_required_actions,
)

MISSING = "sess_" + "0" * 32


@pytest.fixture
def replicas(tmp_path, pg_url):  # noqa: F811
    # No replica runs a local Runtime: the one Runtime is attached to replica 1.
    r = Replicas(tmp_path, pg_url, local_runtime=(False, False, False))
    try:
        r.connect_runtime(0)
        r.wait_route(0)
        yield r
    finally:
        r.stop()


def admin(*args):
    proc = subprocess.run([switchboard_bin(), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def same_everywhere(replicas, method, path, body=None, headers=None):
    """The request on each replica; asserts one status and one body; returns them."""
    answers = [r.raw.request(method, path, body=body, headers=headers) for r in replicas.replicas]
    first = answers[0]
    for i, (status, _, got) in enumerate(answers[1:], start=2):
        assert (status, got) == (first[0], first[2]), f"replica {i} answered {status} {got!r}, replica 1 {first[0]} {first[2]!r}"
    return first[0], first[2]


def test_a_session_is_one_session_on_every_replica(replicas, tmp_path):
    r1, r2, r3 = replicas.replicas
    # Created on replica 1, which holds it while its Turn runs (on replica 1's Runtime).
    sid, action = CODEX.create_pending(r1)
    assert replicas.holder(sid) == replicas.id_of(0)

    # Read through every replica: forwarded to the holder, the same object.
    status, session = same_everywhere(replicas, "GET", f"/agents/sessions/{sid}")
    assert status == 200 and session["status"] == "requires_action", session
    assert replicas.holder(sid) == replicas.id_of(0), "a forwarded read claims nothing"

    # Another Project's key: that Session is the 404 of a missing one, on every replica, for a
    # read and for a tool_result alike.
    project = admin("projects", "create", "--name", "other", "--database-url", replicas.url, "--data-dir", str(tmp_path / "admin")).split("\t")[0]
    _, secret = admin("keys", "create", "--project", project, "--database-url", replicas.url, "--data-dir", str(tmp_path / "admin")).split()
    other = {"Authorization": f"Bearer {secret}"}
    missing_status, missing = same_everywhere(replicas, "GET", f"/agents/sessions/{MISSING}")
    assert missing_status == 404, missing
    assert same_everywhere(replicas, "GET", f"/agents/sessions/{sid}", headers=other) == (404, missing)
    status, body = same_everywhere(
        replicas, "POST", f"/agents/sessions/{sid}/events", body={"events": [tool_result(action, output="x")]}, headers=other
    )
    assert (status, body) == (404, missing)

    # The result goes in through replica 2; the Turn completes on replica 1's Runtime.
    status, _, body = post_events(r2.raw, sid, [tool_result(action, output='{"temp_c": 21}')])
    assert status == 202, body
    idle = wait_idle(r3.raw, sid)
    assert [t["status"] for t in turns_raw(r3.raw, sid)] == ["completed"]
    assert same_everywhere(replicas, "GET", f"/agents/sessions/{sid}") == (200, idle)
    # A different result for the answered call: the same 409 body from every replica.
    status, conflict = same_everywhere(
        replicas, "POST", f"/agents/sessions/{sid}/events", body={"events": [tool_result(action, output="other")]}
    )
    assert status == 409, conflict
    assert conflict["error"]["type"] == "conflict_error", conflict

    # Input admitted through replica 2, which has no Runtime (handed over, or forwarded when
    # replica 1 has not released the idle Session yet); the Turn runs on replica 1's Runtime,
    # and its function call is answered through replica 3.
    status, _, body = post_events(r2.raw, sid, [message("And in Lyon?")])
    assert status == 202, body
    pending = wait_required_actions(r3.raw, sid)
    assert replicas.holder(sid) == replicas.id_of(0), "the Turn runs where the Runtime is"
    second = pending["required_actions"][0]
    assert second["turn_id"] != action["turn_id"]
    status, _, body = post_events(r3.raw, sid, [tool_result(second, output='{"temp_c": 18}')])
    assert status == 202, body
    wait_idle(r2.raw, sid)
    assert [t["status"] for t in turns_raw(r1.raw, sid)] == ["completed", "completed"]
    # Both results reached the model once each, in order.
    assert CODEX.sent_outputs(replicas) == ['{"temp_c": 21}', '{"temp_c": 18}']


def test_a_turn_admitted_on_a_replica_without_a_runtime_runs_on_another(replicas):
    r1, r2, r3 = replicas.replicas
    # Created on replica 2 (no Runtime of its own): admitted, handed over to replica 1.
    sid, action = CODEX.create_pending(r2)
    assert replicas.holder(sid) == replicas.id_of(0)
    assert "handed a Session over" in r2.log()
    assert "handed a Session over" not in r3.log()
    status, _, body = post_events(r3.raw, sid, [tool_result(action, output='{"temp_c": 21}')])
    assert status == 202, body
    wait_idle(r2.raw, sid)
    assert [t["status"] for t in turns_raw(r3.raw, sid)] == ["completed"]


def test_one_idempotency_key_on_two_replicas_creates_one_session(replicas):
    r1, r2, r3 = replicas.replicas
    body = {
        "agent": {"model": CODEX.model, "tools": []},
        "environment": {"type": "none"},
        "input": "Say hello.",
        "metadata": {"case": "idempotency"},
    }
    headers = {"Idempotency-Key": "one-key-two-replicas"}
    answers = [None, None]

    def create(i, replica):
        answers[i] = replica.raw.request("POST", "/agents/sessions", body=body, headers=headers)

    threads = [threading.Thread(target=create, args=(i, r)) for i, r in enumerate((r2, r3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    (s2, _, b2), (s3, _, b3) = answers
    assert (s2, s3) == (201, 201), (b2, b3)
    assert b2["id"] == b3["id"]
    listed = [s for s in sessions_raw(r1.raw) if s["metadata"].get("case") == "idempotency"]
    assert [s["id"] for s in listed] == [b2["id"]]
    # The key used again on the third replica: the same Session.
    status, _, b1 = r1.raw.request("POST", "/agents/sessions", body=body, headers=headers)
    assert (status, b1["id"]) == (201, b2["id"])
    wait_idle(r1.raw, b2["id"])
    assert [t["status"] for t in turns_raw(r1.raw, b2["id"])] == ["completed"]
