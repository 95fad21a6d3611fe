"""Events across replicas (issue 16, design item 7): three `serve` replicas on one PostgreSQL, a
Session on replica 1 running a streamed function-call Turn on real codex (mock model), and
`GET …/events` streams opened on all three before the Turn. Every stream sees exactly the same
events in the same order, each once, through the Turn's terminal event, also when the replicas'
LISTEN connections are cut mid-Turn; deleting the Session ends its streams everywhere. The
event rows exist only on PostgreSQL: a SQLite serve keeps none."""

import sqlite3

from conftest import WEATHER_FUNCTION
from pg_support import pg_url  # noqa: F401  (the fixture)
from replicas_support import SCENARIO, Replicas, create_idle, listen_backends, psql, read_until, wait_until, without_padding
from session_support import message, post_events, tool_result, wait_idle
from stream_support import S_IDLE, S_REQUIRES_ACTION, T_COMPLETED, open_event_stream


def is_requires_action(frame):
    return frame["type"] == S_REQUIRES_ACTION


def run_turn_on_three(replicas, between=None):
    """Opens a stream on each replica, runs one function-call Turn on replica 1 (a message, then
    the function's result once every stream saw the call), and returns each stream's frames up
    to the Session's idle after the Turn completed. `between()` runs after the call was seen
    everywhere and before its result is posted."""
    r1 = replicas.raws[0]
    sid = create_idle(r1, [WEATHER_FUNCTION])
    streams = [open_event_stream(s.base_url, sid, timeout=60) for s in replicas.servers]
    frames = [[] for _ in streams]
    status, _, body = post_events(r1, sid, [message("What is the weather in Paris?")])
    assert status == 202, body
    seen = [read_until(s, is_requires_action, f) for s, f in zip(streams, frames)]
    action = seen[0]["session"]["required_actions"][0]
    if between is not None:
        between()
    status, _, body = post_events(r1, sid, [tool_result(action, output='{"temp":21}')])
    assert status == 202, body
    completed = [False] * len(streams)

    def after_turn(i):
        def stop(frame):
            if frame["type"] == T_COMPLETED:
                completed[i] = True
            return frame["type"] == S_IDLE and completed[i]

        return stop

    for i, (s, f) in enumerate(zip(streams, frames)):
        read_until(s, after_turn(i), f)
        s.close()
    wait_idle(r1, sid)
    return sid, frames


def assert_same_everywhere(frames):
    ours = [without_padding(f) for f in frames[0]]
    ids = [f["event_id"] for f in ours]
    assert len(ids) == len(set(ids)), "an event was duplicated on replica 1"
    assert T_COMPLETED in [f["type"] for f in ours]
    for n, theirs in enumerate(frames[1:], start=2):
        theirs = [without_padding(f) for f in theirs]
        assert [f["type"] for f in theirs] == [f["type"] for f in ours], f"replica {n}'s event types differ"
        assert theirs == ours, f"replica {n}'s events differ from replica 1's"


def test_streams_on_three_replicas_see_the_same_events(tmp_path, pg_url):  # noqa: F811
    replicas = Replicas(tmp_path, pg_url, scenario=SCENARIO)
    try:
        sid, frames = run_turn_on_three(replicas)
        assert_same_everywhere(frames)
        # The rows the other replicas read are the Session's, in seq order, one per event.
        rows = psql(pg_url, f"SELECT seq, type FROM session_events WHERE session_id = '{sid}' ORDER BY seq")
        seqs = [int(r.split("\t")[0]) for r in rows]
        assert seqs == list(range(1, len(seqs) + 1)), seqs
        kinds = [r.split("\t")[1] for r in rows]
        streamed = [f["type"] for f in frames[0]]
        assert kinds[-len(streamed):] == streamed, (kinds, streamed)

        # Deleting the Session on replica 1 ends its streams on every replica, and its rows go.
        streams = [open_event_stream(s.base_url, sid, timeout=30) for s in replicas.servers]
        status, _, body = replicas.raws[0].request("DELETE", f"/agents/sessions/{sid}")
        assert status == 200, body
        for n, stream in enumerate(streams, start=1):
            while line := stream.readline():
                assert not line.startswith(b"data:"), (n, line)
            stream.close()
        assert psql(pg_url, f"SELECT count(*) FROM session_events WHERE session_id = '{sid}'") == ["0"]
    finally:
        replicas.stop()


def test_a_cut_listen_connection_loses_no_event(tmp_path, pg_url):  # noqa: F811
    replicas = Replicas(tmp_path, pg_url, scenario=SCENARIO)
    try:
        before = wait_until(lambda: len(listen_backends(pg_url)) == 3 and listen_backends(pg_url), 30, "3 LISTEN connections")

        def cut():
            killed = psql(pg_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                  "WHERE application_name = 'switchboard-listen'")
            assert killed == ["t", "t", "t"], killed

        _, frames = run_turn_on_three(replicas, between=cut)
        assert_same_everywhere(frames)
        # Each replica listens again, on a new connection.
        after = wait_until(lambda: len(listen_backends(pg_url)) == 3 and listen_backends(pg_url), 30, "3 new LISTEN connections")
        assert not set(after) & set(before), (before, after)
    finally:
        replicas.stop()


def test_event_rows_are_swept_after_their_retention(tmp_path, pg_url):  # noqa: F811
    replicas = Replicas(tmp_path, pg_url, count=1, scenario=SCENARIO, extra=("--event-retention", "1"))
    try:
        engine = replicas.first
        sid = create_idle(engine.raw, [WEATHER_FUNCTION])
        status, _, body = post_events(engine.raw, sid, [message("What is the weather in Paris?")])
        assert status == 202, body

        def rows():
            return psql(pg_url, f"SELECT count(*) FROM session_events WHERE session_id = '{sid}'")[0]

        wait_until(lambda: rows() != "0", 60, "event rows")
        # Nothing is added while the call waits for its result: the sweeper empties the table.
        wait_until(lambda: rows() == "0", 30, "the sweeper to delete rows past their retention")
    finally:
        replicas.stop()


def test_a_sqlite_serve_keeps_no_event_rows(start_engine):
    engine = start_engine(SCENARIO)
    sid = create_idle(engine.raw, [WEATHER_FUNCTION])
    stream = open_event_stream(engine.server.base_url, sid, timeout=60)
    frames = []
    status, _, body = post_events(engine.raw, sid, [message("What is the weather in Paris?")])
    assert status == 202, body
    action = read_until(stream, is_requires_action, frames)["session"]["required_actions"][0]
    status, _, body = post_events(engine.raw, sid, [tool_result(action, output='{"temp":21}')])
    assert status == 202, body
    read_until(stream, lambda f: f["type"] == S_IDLE and T_COMPLETED in [g["type"] for g in frames], frames)
    stream.close()
    db = sqlite3.connect(engine.server.data_dir / "switchboard.sqlite")
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        assert "session_events" not in tables, tables
        doc = db.execute("SELECT doc FROM sessions WHERE id = ?", (sid,)).fetchone()[0]
        assert '"seq"' not in doc, "a SQLite Session document carries no event seq"
    finally:
        db.close()
