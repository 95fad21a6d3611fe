"""Deleting a Session forgets it (issue 13, item 3): after a Turn whose messages carry a
distinctive marker, the delete ends the harness process and removes the Session's state
directory (harness home, transcripts, rollouts) and every stored row, with nothing of the
deleted content left in the SQLite files (db, -wal, -shm). Every file under the data directory
is scanned, binary-safe, for the marker and the Session ID: zero hits. The same holds for a
Session that has no process when it is deleted (the server restarted since its Turn)."""

import os
import pathlib
import uuid

from session_support import descendants, cmdline, session_processes, wait_for, wait_idle


def hits(data_dir: pathlib.Path, needles):
    """{file: [needles found]} over every regular file under `data_dir`, read as bytes."""
    found = {}
    for root, _, files in os.walk(data_dir):
        for name in files:
            path = pathlib.Path(root, name)
            try:
                data = path.read_bytes()
            except OSError:
                continue  # a file removed while the scan walks (a -shm, a socket)
            there = [n for n in needles if n.encode() in data]
            if there:
                found[str(path.relative_to(data_dir))] = there
    return found


def run_marked_turn(harness, engine):
    """A Session whose Turn carried a fresh marker; returns (session id, marker)."""
    marker = f"forget-me-{uuid.uuid4().hex}"
    session = harness.create(engine, tools=(), input=f"Please remember the word {marker}.")
    wait_idle(engine.raw, session.id)
    return session.id, marker


def assert_forgotten(data_dir, sid, marker):
    """Polls (bounded) until no file under the data directory holds the marker or the ID."""
    wait_for(lambda: hits(data_dir, [marker, sid]), lambda h: h == {}, what=f"{sid} forgotten")


def test_deleting_a_session_leaves_nothing_of_it_on_disk(harness, engine):
    sid, marker = run_marked_turn(harness, engine)
    data_dir = engine.server.data_dir
    before = hits(data_dir, [marker, sid])
    # The scan sees the transcript and the stored Items before the delete.
    assert any(f.startswith(f"sessions/{sid}/") for f in before), before
    assert any(f.startswith("switchboard.sqlite") and marker in n for f, n in before.items()), before
    # Its own process: warm processes waiting for the next Session run beside it.
    state_dir = data_dir / "sessions" / sid
    harness_pids = session_processes(engine.server, harness.process, state_dir)
    assert harness_pids, "the Session's harness process runs"

    deleted = engine.client.beta.agents.sessions.delete(sid)
    assert deleted.deleted is True

    assert not (data_dir / "sessions" / sid).exists()
    assert_forgotten(data_dir, sid, marker)
    # Its process ended with it.
    wait_for(
        lambda: [p for p in descendants(engine.server.proc.pid) if harness.process in cmdline(p)],
        lambda left: not set(left) & set(harness_pids),
        what="the harness process to end",
    )
    status, _, _ = engine.raw.request("GET", f"/agents/sessions/{sid}")
    assert status == 404


def test_deleting_a_session_without_a_process_still_removes_its_state(harness, engine):
    sid, marker = run_marked_turn(harness, engine)
    data_dir = engine.server.data_dir
    # The same data directory after a restart: the Runtime has no executor for the Session,
    # only its state directory.
    engine.restart(while_stopped=lambda: assert_state_dir(data_dir, sid))
    assert not session_processes(engine.server, harness.process, data_dir / "sessions" / sid)
    assert engine.client.beta.agents.sessions.delete(sid).deleted is True
    assert not (data_dir / "sessions" / sid).exists()
    assert_forgotten(data_dir, sid, marker)
    status, _, _ = engine.raw.request("GET", f"/agents/sessions/{sid}")
    assert status == 404


def assert_state_dir(data_dir, sid):
    assert (data_dir / "sessions" / sid).is_dir()
