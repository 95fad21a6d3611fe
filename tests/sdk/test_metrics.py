"""Prometheus metrics (issue 17): `GET /metrics` on the real `switchboard serve`, scraped around
one function-call Turn on the real codex harness against the mock model, driven by the official
SDK. The counters must move by exactly what the Turn did; `/metrics` answers only the metrics
token (never a Project key), a separate `--metrics-listen` address, or nobody (404)."""

import json
import re
import urllib.error
import urllib.request

from conftest import API_KEY, Server, error_of
from session_support import CODEX, message, post_events, session_raw, tool_result, turns_raw, wait_for, wait_idle

TOKEN = "metrics-scrape-token"

SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$")
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)')


def parse(text):
    """The exposition text as {(name, frozenset of labels): value}; every line that is not a
    comment must be a well-formed sample."""
    samples = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a Prometheus sample line: {line!r}"
        name, body, value = m.groups()
        labels = {}
        pos = 0
        body = body or ""
        while pos < len(body):
            lm = LABEL.match(body, pos)
            assert lm, f"bad labels in {line!r}"
            labels[lm.group(1)] = re.sub(r"\\(.)", lambda e: {"n": "\n"}.get(e.group(1), e.group(1)), lm.group(2))
            pos = lm.end()
        key = (name, frozenset(labels.items()))
        assert key not in samples, f"duplicate series {line!r}"
        samples[key] = float(value)
    return samples


def get(url, token=None):
    """(status, headers, body text) of a GET."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def root(server):
    return server.base_url.rsplit("/v1", 1)[0]


def scrape(server):
    status, headers, body = get(root(server) + "/metrics", TOKEN)
    assert status == 200, (status, body)
    assert headers["content-type"].startswith("text/plain"), headers["content-type"]
    return parse(body)


def value(samples, name, **labels):
    """The value of the series with exactly these labels; 0 when it does not exist yet."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def series(samples, name):
    return {labels: v for (n, labels), v in samples.items() if n == name}


def test_counters_move_by_one_function_call_turn(start_engine):
    engine = start_engine(extra_serve=("--metrics-token", TOKEN))
    server = engine.server
    before = scrape(server)
    create_route = dict(route="/v1/agents/sessions", method="POST", status="201")
    events_route = dict(route="/v1/agents/sessions/{session_id}/events", method="POST", status="202")

    sid, action = CODEX.create_pending(engine)
    pending = scrape(server)
    assert value(pending, "switchboard_required_actions_pending") == value(before, "switchboard_required_actions_pending") + 1
    assert value(pending, "switchboard_sessions", status="requires_action") == value(
        before, "switchboard_sessions", status="requires_action"
    ) + 1
    assert value(pending, "switchboard_turns_started_total", harness="codex") == value(
        before, "switchboard_turns_started_total", harness="codex"
    ) + 1
    assert value(pending, "switchboard_turns_completed_total", harness="codex") == value(
        before, "switchboard_turns_completed_total", harness="codex"
    )
    assert value(pending, "switchboard_harness_processes", harness="codex") == 1

    # An open event stream is one subscriber while it lasts.
    stream = engine.client.beta.agents.sessions.events.stream(sid, timeout=60)
    with stream:
        wait_for(
            lambda: scrape(server),
            lambda m: value(m, "switchboard_sse_subscribers") == value(before, "switchboard_sse_subscribers") + 1,
            what="one SSE subscriber",
        )
        # The application posts the function's result through the official SDK.
        assert engine.client.beta.agents.sessions.events.create(sid, events=[tool_result(action, output="sunny")]) is None
        wait_idle(engine.raw, sid)
    after = wait_for(
        lambda: scrape(server),
        lambda m: value(m, "switchboard_sse_subscribers") == value(before, "switchboard_sse_subscribers"),
        what="the stream's subscriber to go",
    )

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert session_raw(engine.raw, sid)["status"] == "idle"
    assert moved("switchboard_turns_started_total", harness="codex") == 1
    assert moved("switchboard_turns_completed_total", harness="codex") == 1
    assert moved("switchboard_turns_failed_total", harness="codex") == 0
    assert moved("switchboard_turns_cancelled_total", harness="codex") == 0
    assert moved("switchboard_http_requests_total", **create_route) == 1
    assert moved("switchboard_http_request_duration_seconds_count", **create_route) == 1
    assert moved("switchboard_http_requests_total", **events_route) == 1
    assert moved("switchboard_turn_queue_wait_seconds_count", harness="codex") == 1
    assert moved("switchboard_tool_result_admission_seconds_count") == 1
    assert moved("switchboard_required_actions_pending") == 0
    assert moved("switchboard_sessions", status="idle") == 1
    assert moved("switchboard_sessions", status="requires_action") == 0
    assert moved("switchboard_sse_interrupted_total") == 0
    # The Session's codex process stays resident (idle, not evicted) after its Turn.
    assert value(after, "switchboard_harness_processes", harness="codex") == 1
    assert moved("switchboard_harness_evictions_total", harness="codex") == 0
    assert moved("switchboard_harness_resumes_total", harness="codex") == 0
    assert value(after, "switchboard_runtime_links", kind="local") == 1
    assert value(after, "switchboard_runtime_links", kind="deployment") == 0
    # The Turn's commits were written to the store, and timed.
    assert moved("switchboard_store_operation_duration_seconds_count", operation="write_session") >= 3
    # Histograms are histograms: cumulative buckets ending in +Inf equal to the count.
    buckets = {
        dict(labels)["le"]: v
        for labels, v in series(after, "switchboard_turn_queue_wait_seconds_bucket").items()
        if dict(labels).get("harness") == "codex"
    }
    assert buckets["+Inf"] == value(after, "switchboard_turn_queue_wait_seconds_count", harness="codex")
    # Routes are templates: no label carries a Session ID.
    for labels in series(after, "switchboard_http_requests_total"):
        assert sid not in dict(labels)["route"], labels


def test_only_the_metrics_token_is_admitted(start_engine):
    engine = start_engine(extra_serve=("--metrics-token", TOKEN))
    url = root(engine.server) + "/metrics"
    for token in (None, "wrong-token", API_KEY, TOKEN + "x"):
        status, headers, body = get(url, token)
        assert status == 401, (token, status, body)
        assert headers["www-authenticate"] == "Bearer"
        assert error_of(json.loads(body))["message"] == "A valid metrics token is required."
    status, _, body = get(url, TOKEN)
    assert status == 200
    assert "# TYPE switchboard_http_requests_total counter" in body
    assert "# TYPE switchboard_http_request_duration_seconds histogram" in body
    # The Project key still works where it belongs, and the metrics token does not.
    assert engine.raw.request("GET", "/agents/sessions")[0] == 200
    assert (
        engine.raw.request("GET", "/agents/sessions", auth=False, headers={"Authorization": f"Bearer {TOKEN}"})[0]
        == 401
    )


def test_not_served_without_a_metrics_flag(server):
    for token in (None, TOKEN, API_KEY):
        status, _, body = get(root(server) + "/metrics", token)
        assert status == 404, (status, body)
        assert error_of(json.loads(body))["code"] == "not_found_error"


def test_separate_metrics_listener(tmp_path):
    s = Server(tmp_path, "--metrics-listen", "127.0.0.1:0")
    try:
        line = s.proc.stdout.readline()
        assert line.startswith("Metrics at http://"), line
        url = line.split()[-1].strip()
        status, _, body = get(url)
        assert status == 200, body
        samples = parse(body)
        assert ("switchboard_sessions", frozenset({("status", "idle")})) in samples
        # Not on the main listener, whatever the credential.
        for token in (None, API_KEY):
            assert get(root(s) + "/metrics", token)[0] == 404
        # The metrics listener serves nothing else.
        assert get(url.rsplit("/metrics", 1)[0] + "/v1/agents/sessions", API_KEY)[0] == 404
    finally:
        s.stop()



def test_evictions_and_resumes_by_harness(start_engine):
    """With one live process allowed, a second Session's Turn evicts the first's idle codex
    process, and the first's next Turn resumes it (evicting the second)."""
    engine = start_engine(extra_serve=("--metrics-token", TOKEN, "--max-live-harnesses", "1"))
    server = engine.server
    before = scrape(server)

    def moved(samples, name):
        return value(samples, name, harness="codex") - value(before, name, harness="codex")

    first = CODEX.create(engine, tools=(), input="hello")
    wait_idle(engine.raw, first.id)
    second = CODEX.create(engine, tools=(), input="hello again")
    wait_idle(engine.raw, second.id)
    m = wait_for(lambda: scrape(server), lambda m: moved(m, "switchboard_harness_evictions_total") == 1, what="one eviction")
    assert moved(m, "switchboard_harness_resumes_total") == 0
    assert value(m, "switchboard_harness_processes", harness="codex") == 1

    assert post_events(engine.raw, first.id, [message("and again")])[0] == 202
    wait_for(lambda: turns_raw(engine.raw, first.id), lambda t: len(t) == 2, what="the second Turn")
    wait_idle(engine.raw, first.id)
    m = wait_for(lambda: scrape(server), lambda m: moved(m, "switchboard_harness_evictions_total") == 2, what="two evictions")
    assert moved(m, "switchboard_harness_resumes_total") == 1
    assert moved(m, "switchboard_turns_started_total") == 3
    assert moved(m, "switchboard_turns_completed_total") == 3
    assert value(m, "switchboard_harness_processes", harness="codex") == 1
