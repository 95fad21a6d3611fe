"""The issue's three-replica test (issue 16): three `serve` replicas on one PostgreSQL, none with
a local Runtime, one `switchboard runtime` attached to replica 1. A Session is created on
replica 1, streamed on replicas 2 and 3, and its function results are posted to replica 3
(forwarded to the holder). Then replica 2, a streaming replica that holds nothing, is killed
with SIGKILL mid-Turn: the Turn is continued by its owner, the stream on replica 3 has every
event once, the stored input is all there, and the result reached the model exactly once.
(SIGKILL of the holder itself: `test_replicas_death.py`.)"""

import signal

import pytest

from conftest import WEATHER_FUNCTION
from pg_support import pg_url  # noqa: F401  (the fixture)
from replicas_support import SCENARIO, Replicas, create_idle, read_until, without_padding
from session_support import CODEX, items_raw, message, post_events, tool_result, turns_raw, wait_idle
from stream_support import S_IDLE, S_REQUIRES_ACTION, T_COMPLETED, open_event_stream


@pytest.fixture
def replicas(tmp_path, pg_url):  # noqa: F811
    r = Replicas(tmp_path, pg_url, local_runtime=(False, False, False), scenario=SCENARIO)
    try:
        r.connect_runtime(0)
        r.wait_route(0)
        yield r
    finally:
        r.stop()


def until_idle_after_completed():
    completed = []

    def stop(frame):
        if frame["type"] == T_COMPLETED:
            completed.append(frame)
        return frame["type"] == S_IDLE and bool(completed)

    return stop


def assert_once_each(frames, where):
    ids = [f["event_id"] for f in frames]
    assert len(ids) == len(set(ids)), f"an event was duplicated on {where}"


def test_created_on_1_streamed_on_2_and_3_answered_on_3_and_a_killed_replica_loses_nothing(replicas):
    r1, r2, r3 = replicas.replicas
    sid = create_idle(r1.raw, [WEATHER_FUNCTION])
    assert replicas.holder(sid) in (None, replicas.id_of(0))

    # Turn 1: streamed on replicas 2 and 3, its result posted to replica 3.
    streams = [open_event_stream(r.base_url, sid, timeout=60) for r in (r2, r3)]
    frames = [[], []]
    status, _, body = post_events(r1.raw, sid, [message("What is the weather in Paris?")])
    assert status == 202, body
    seen = [read_until(s, lambda f: f["type"] == S_REQUIRES_ACTION, f) for s, f in zip(streams, frames)]
    action = seen[1]["session"]["required_actions"][0]
    assert seen[0]["session"]["required_actions"] == [action]
    status, _, body = post_events(r3.raw, sid, [tool_result(action, output='{"temp":21}')])
    assert (status, body) == (202, None)
    for s, f in zip(streams, frames):
        read_until(s, until_idle_after_completed(), f)
    wait_idle(r3.raw, sid)
    ours, theirs = ([without_padding(f) for f in fs] for fs in frames)
    assert_once_each(ours, "replica 2")
    assert ours == theirs, "replicas 2 and 3 streamed different events"

    # Turn 2: the call is pending when replica 2 (streaming, holding nothing) is killed.
    stream3 = streams[1]
    after_kill = []
    status, _, body = post_events(r3.raw, sid, [message("And the weather in Paris tomorrow?")])
    assert status == 202, body
    pending = read_until(stream3, lambda f: f["type"] == S_REQUIRES_ACTION, after_kill)
    second = pending["session"]["required_actions"][0]
    assert second["call_id"] != action["call_id"]
    items_before = items_raw(r3.raw, sid)
    r2.server.proc.send_signal(signal.SIGKILL)
    r2.server.proc.wait(timeout=10)
    streams[0].close()

    # The owner continues the Turn: the result posted to replica 3 is admitted once, a retry
    # is the identical 202, and the stream on replica 3 goes on to the Turn's end.
    result = tool_result(second, output='{"temp":22}')
    for _ in range(2):
        assert post_events(r3.raw, sid, [result])[::2] == (202, None)
    read_until(stream3, until_idle_after_completed(), after_kill)
    stream3.close()
    assert_once_each([*frames[1], *after_kill], "replica 3")

    # Nothing stored was lost, no Turn failed, and each result reached the model exactly once.
    after = {i["id"]: i for i in items_raw(r1.raw, sid)}
    for item in items_before:
        assert item["id"] in after, item
    assert [t["status"] for t in turns_raw(r1.raw, sid)] == ["completed", "completed", "completed"]
    assert CODEX.sent_outputs(replicas) == ['{"temp":21}', '{"temp":22}']
