"""Admission stays atomic across replicas (issue 16): 200 `tool_result` posts for 20 pending
calls of one Turn (10 per call, identical and different outputs mixed), sent concurrently to
three replicas, store exactly one result per call; every post of the stored output is a 202
and every other a 409 with the exact conflict body. The replicas that do not hold the Session
forward to the one that does, so one lock admits them all."""

import concurrent.futures
import random

import pytest

from conftest import WEATHER_FUNCTION
from pg_support import pg_url  # noqa: F401  (the fixture)
from replicas_support import Replicas
from session_support import CODEX, items_raw, post_events, tool_result, turns_raw, wait_idle, wait_required_actions

CALLS = 20
CITIES = [f"City{n}" for n in range(CALLS)]
DIFFERENT_RESULT = {
    "message": "The tool call already has a different result.",
    "type": "conflict_error",
    "param": None,
    "code": "conflict_error",
}

SCENARIO = {
    "rules": [
        {
            "name": "twenty calls",
            "when": {"tool_offered": "get_weather", "tool_output_present": False},
            "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": c}} for c in CITIES]},
        }
    ],
    "otherwise": {"text": "Done."},
}


@pytest.fixture
def replicas(tmp_path, pg_url):  # noqa: F811
    r = Replicas(tmp_path, pg_url, local_runtime=(True, False, False), scenario=SCENARIO)
    try:
        yield r
    finally:
        r.stop()


def test_200_conflicting_results_across_three_replicas_store_one_per_call(replicas):
    r1 = replicas[0]
    session = r1.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": CODEX.model, "tools": [WEATHER_FUNCTION]}, input="Weather everywhere?"
    )
    sid = session.id
    pending = wait_required_actions(r1.raw, sid)
    actions = wait_required_actions_count(r1, sid)
    assert len(actions) == CALLS, pending

    rng = random.Random(16)
    posts = []
    for n, action in enumerate(actions):
        # Per call: 6 posts of one output, 4 of outputs of their own.
        outputs = [f"same-{n}"] * 6 + [f"different-{n}-{k}" for k in range(4)]
        posts += [(action, out) for out in outputs]
    rng.shuffle(posts)
    targets = [replicas[i % 3] for i in range(len(posts))]

    def send(job):
        (action, out), replica = job
        status, _, body = post_events(replica.raw, sid, [tool_result(action, output=out)])
        return action["call_id"], out, status, body

    with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
        answers = list(pool.map(send, zip(posts, targets)))
    assert len(answers) == 10 * CALLS

    wait_idle(r1.raw, sid)
    assert [t["status"] for t in turns_raw(replicas[2].raw, sid)] == ["completed"]
    stored = {}
    for item in items_raw(replicas[1].raw, sid):
        if item["type"] == "function_call_output":
            assert item["call_id"] not in stored, f"two results stored for {item['call_id']}"
            stored[item["call_id"]] = item["output"]
    assert sorted(stored) == sorted(a["call_id"] for a in actions)
    for call_id, out, status, body in answers:
        if out == stored[call_id]:
            assert status == 202, (call_id, out, status, body)
        else:
            assert (status, body) == (409, {"error": DIFFERENT_RESULT}), (call_id, out, status, body)
    # The model received each call's stored result once.
    sent = CODEX.sent_results(replicas)
    assert sorted(sent) == sorted(stored.items())


def wait_required_actions_count(replica, sid):
    from session_support import session_raw, wait_for

    got = wait_for(
        lambda: session_raw(replica.raw, sid),
        lambda s: len(s["required_actions"]) >= CALLS,
        what=f"{CALLS} required actions",
    )
    return got["required_actions"]
