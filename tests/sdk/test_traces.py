"""Traces: one function-call Turn on codex (mock model) through the official SDK, with a W3C
`traceparent` on the create request and `serve --otlp-endpoint` pointed at a small OTLP/HTTP
receiver in the test (an OpenTelemetry Collector is not installable here). The exported span tree
must hang under the caller's span; the response names Switchboard's request span; and
`sessions.traces.list` returns the Turn's stored spans."""

import json
import re
import secrets
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
import pytest
from openai import OpenAI

from conftest import API_KEY, WEATHER_FUNCTION, Raw, Server, switchboard_bin, wait_ready
from mock_model.mock_support import MockModel
from session_support import MESSAGE, TOOL_RESULT, wait_for, wait_idle, wait_required_actions
from test_projects import cli
from test_sessions_delete_forgets import assert_forgotten


class OtlpReceiver:
    """OTLP/HTTP with JSON bodies: every `POST /v1/traces` body is kept, in arrival order."""

    def __init__(self):
        self.bodies = []
        self.paths = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver._lock:
                    receiver.paths.append((self.path, self.headers.get("Content-Type")))
                    receiver.bodies.append(json.loads(body))
                out = b"{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def spans(self):
        with self._lock:
            bodies = list(self.bodies)
        return list(spans_of(bodies))

    def stop(self):
        self.httpd.shutdown()


def spans_of(bodies):
    """Every span in OTLP JSON bodies (`resourceSpans[].scopeSpans[].spans[]`)."""
    for body in bodies:
        for resource in body.get("resourceSpans", []):
            for scope in resource.get("scopeSpans", []):
                yield from scope.get("spans", [])


def attrs(span):
    """A span's attributes as a plain dict (OTLP JSON AnyValue unwrapped; int64 is a string)."""
    out = {}
    for kv in span.get("attributes", []):
        [(kind, value)] = kv["value"].items()
        out[kv["key"]] = int(value) if kind == "intValue" else value
    return out


def descendants(spans, root_id):
    """Spans under `root_id` (transitively), by span ID."""
    children = {}
    for s in spans:
        children.setdefault(s.get("parentSpanId", ""), []).append(s)
    out, todo = {}, [root_id]
    while todo:
        for child in children.get(todo.pop(), []):
            if child["spanId"] not in out:
                out[child["spanId"]] = child
                todo.append(child["spanId"])
    return out


def named(spans, name, **want):
    """The spans called `name` whose attributes include `want`."""
    return [s for s in spans if s["name"] == name and all(attrs(s).get(k) == v for k, v in want.items())]


@pytest.fixture
def receiver():
    r = OtlpReceiver()
    yield r
    r.stop()


def function_call_turn(client, raw):
    """One function-call Turn through the official SDK, its create request carrying a fresh
    `traceparent`; the tool result is posted with the SDK. Returns what the test checks against."""
    trace_id, parent_id = secrets.token_hex(16), secrets.token_hex(8)
    created = client.beta.agents.sessions.with_raw_response.create(
        environment={"type": "none"},
        agent={"model": "gpt-test", "tools": [WEATHER_FUNCTION]},
        input="What is the weather in Paris?",
        extra_headers={"traceparent": f"00-{trace_id}-{parent_id}-01"},
    )
    # The response names Switchboard's request span, in the caller's trace.
    returned = re.fullmatch(r"00-([0-9a-f]{32})-([0-9a-f]{16})-01", created.headers["traceparent"])
    assert returned, created.headers["traceparent"]
    assert returned.group(1) == trace_id
    request_id = returned.group(2)
    assert request_id != parent_id
    sid = created.parse().id

    action = wait_required_actions(raw, sid)["required_actions"][0]
    tid, call_id = action["turn_id"], action["call_id"]
    client.beta.agents.sessions.events.create(
        sid,
        events=[{"type": TOOL_RESULT, "turn_id": tid, "call_id": call_id, "success": True, "output": "sunny"}],
    )
    wait_idle(raw, sid)
    return trace_id, parent_id, request_id, sid, tid, call_id


def test_a_function_call_turn_is_one_trace_under_the_callers_span(start_engine, receiver):
    engine = start_engine(extra_serve=("--otlp-endpoint", receiver.url))
    trace_id, parent_id, request_id, sid, tid, call_id = function_call_turn(engine.client, engine.raw)

    # Exported in batches: poll the receiver until the Turn's terminal span arrived.
    spans = wait_for(
        receiver.spans,
        lambda got: named(got, "turn.terminal", **{"turn.id": tid}) and named(got, "runtime.turn", **{"turn.id": tid}),
        what="the Turn's spans at the OTLP receiver",
    )
    assert all(path == "/v1/traces" and ctype == "application/json" for path, ctype in receiver.paths), receiver.paths
    ours = [s for s in spans if s["traceId"] == trace_id]

    # The request span is the sent span's child; everything of the Turn is below it.
    [request] = [s for s in ours if s["spanId"] == request_id]
    assert request["name"] == "http.request"
    assert request["parentSpanId"] == parent_id
    assert attrs(request)["http.request.method"] == "POST"
    assert attrs(request)["http.response.status_code"] == 201, request["attributes"]
    below = list(descendants(ours, request_id).values())
    assert {s["traceId"] for s in below} == {trace_id}

    ids = {"session.id": sid, "turn.id": tid}
    [admission] = named(below, "session.admission", **{"session.id": sid})
    assert admission["parentSpanId"] == request_id
    [turn] = named(below, "turn", harness="codex", **ids)
    assert turn["parentSpanId"] == admission["spanId"]
    assert attrs(turn)["turn.status"] == "completed"
    under_turn = descendants(below, turn["spanId"])

    def one(name, parent=None, **want):
        found = named(list(under_turn.values()), name, **want)
        assert found, (name, want, sorted({s["name"] for s in under_turn.values()}))
        if parent is not None:
            assert any(s["parentSpanId"] == parent["spanId"] for s in found), (name, parent["name"])
        return found[0]

    dispatch = one("turn.dispatch", turn, harness="codex", **ids)
    # Across the Core–Runtime hop (the in-process local Runtime), carried by execution_start.
    runtime = one("runtime.turn", dispatch, **ids)
    # Codex app-server JSON-RPC, each exchange a span of the Runtime's Turn.
    one("jsonrpc.request", runtime, **{"rpc.method": "turn/start"})
    one("codex.request", **{"rpc.method": "item/tool/call"})
    one("codex.notification", **{"rpc.method": "turn/completed"})
    # The call and its receipt, on both sides of the hop.
    call = one("function_call", turn, **{"call.id": call_id, "function.name": "get_weather"}, **ids)
    one("function_call.result", call, **{"call.id": call_id, "success": True})
    one("function_call.receipt", call, **{"call.id": call_id, "receipt.applied": True})
    one("runtime.function_result", runtime, **{"call.id": call_id, "receipt.applied": True})
    one("adapter.submit", **{"call.id": call_id})
    one("jsonrpc.respond")
    one("turn.terminal", turn, **{"turn.status": "completed"}, **ids)

    # sessions.traces: the Turn's stored spans, one trace object per root Turn.
    def stored():
        return list(engine.client.beta.agents.sessions.traces.list(sid))

    def complete(traces):
        names = {s["name"] for t in traces for s in spans_of([t.otlp])}
        return {"turn", "turn.terminal", "runtime.turn"} <= names

    [trace] = wait_for(stored, complete, what="the Turn's stored trace")
    assert trace.object == "agent.session.trace"
    assert (trace.id, trace.session_id) == (tid, sid)
    assert trace.created_at == engine.client.beta.agents.sessions.turns.retrieve(tid, session_id=sid).created_at
    kept = list(spans_of([trace.otlp]))
    assert {s["traceId"] for s in kept} == {trace_id}
    # Exactly the Turn's spans: its own and everything under it, not the request around it.
    assert {s["spanId"] for s in kept} == {turn["spanId"], *descendants(kept, turn["spanId"])}
    assert {s["spanId"] for s in kept} <= {turn["spanId"], *under_turn}
    names = {s["name"] for s in kept}
    assert {
        "turn.dispatch",
        "runtime.turn",
        "jsonrpc.request",
        "codex.request",
        "function_call",
        "function_call.result",
        "function_call.receipt",
        "runtime.function_result",
        "turn.terminal",
    } <= names, names
    [stored_turn] = named(kept, "turn", **ids)
    assert stored_turn["parentSpanId"] == admission["spanId"]

    # Deleting the Session deletes its traces with its other rows.
    engine.client.beta.agents.sessions.delete(sid)
    assert_forgotten(engine.server.data_dir, sid, call_id)


def test_traces_are_stored_without_an_otlp_endpoint_and_page_in_turn_order(engine):
    """No `--otlp-endpoint`: nothing is exported, and `sessions.traces` still lists one trace per
    root Turn, newest first by default, in pages; another Project's key sees no such Session."""
    sessions = engine.client.beta.agents.sessions
    session = sessions.create(environment={"type": "none"}, agent={"model": "gpt-test"}, input="first")
    wait_idle(engine.raw, session.id)
    sessions.events.create(session.id, events=[{"type": MESSAGE, "input": "second"}])
    wait_idle(engine.raw, session.id)
    turns = [t.id for t in sessions.turns.list(session.id, order="asc")]
    assert len(turns) == 2

    def ended(trace):
        return any(s["name"] == "turn.terminal" for s in spans_of([trace.otlp]))

    traces = wait_for(
        lambda: list(sessions.traces.list(session.id)),
        lambda got: len(got) == 2 and all(ended(t) for t in got),
        what="both Turns' traces",
    )
    assert [t.id for t in traces] == turns[::-1]
    for trace in traces:
        [turn] = [s for s in spans_of([trace.otlp]) if s["name"] == "turn"]
        assert attrs(turn)["turn.id"] == trace.id
        assert attrs(turn)["session.id"] == session.id
        # Under its request's admission span, which is not the Turn's and so not stored.
        assert turn["parentSpanId"] not in {s["spanId"] for s in spans_of([trace.otlp])}
        # The second Turn, on the prepared Session, is started by the request that opens it;
        # its trace has the first's shape: the dispatch under the Turn, the Runtime's below.
        [dispatch] = named(list(spans_of([trace.otlp])), "turn.dispatch")
        assert dispatch["parentSpanId"] == turn["spanId"]
        [runtime] = named(list(spans_of([trace.otlp])), "runtime.turn")
        assert runtime["parentSpanId"] == dispatch["spanId"]

    first = sessions.traces.list(session.id, limit=1, order="asc")
    assert [t.id for t in first.data] == turns[:1] and first.has_more
    rest = sessions.traces.list(session.id, limit=1, order="asc", after=first.data[0].id)
    assert [t.id for t in rest.data] == turns[1:] and not rest.has_more

    project_id, _ = cli(engine.server, "projects", "create", "--name", "other").split("\t")
    _, secret = cli(engine.server, "keys", "create", "--project", project_id).split()
    other = OpenAI(base_url=engine.server.base_url, api_key=secret, max_retries=0)
    with pytest.raises(openai.NotFoundError):
        other.beta.agents.sessions.traces.list(session.id)


def test_a_claude_code_turn_stores_its_stream_json_exchanges(engine):
    """Claude Code: the SDK's tool handler answers the call; the stored trace holds the
    stream-json `tools/call` and the call's result and receipt on both sides of the hop."""
    from claude_support import CLAUDE

    stream = CLAUDE.create(engine, stream=True, tool_handlers={"get_weather": lambda args: {"temp": 21}})
    final = stream.get_final_result()
    sid = final.session_id
    wait_idle(engine.raw, sid)

    def names(traces):
        return {s["name"] for t in traces for s in spans_of([t.otlp])}

    want = {"turn", "turn.terminal", "runtime.turn", "claude.call", "claude.message", "function_call",
            "function_call.result", "function_call.receipt", "runtime.function_result", "adapter.submit"}
    [trace] = wait_for(
        lambda: list(engine.client.beta.agents.sessions.traces.list(sid)),
        lambda got: want <= names(got),
        what="the Claude Code Turn's stored trace",
    )
    kept = list(spans_of([trace.otlp]))
    [turn] = named(kept, "turn", harness="claude_code", **{"session.id": sid, "turn.id": trace.id})
    assert {s["spanId"] for s in kept} == {turn["spanId"], *descendants(kept, turn["spanId"])}
    [call] = named(kept, "claude.call", **{"rpc.method": "tools/call"})
    [fc] = named(kept, "function_call")
    assert named(kept, "function_call.receipt", **{"call.id": attrs(fc)["call.id"], "receipt.applied": True})
    assert call["traceId"] == turn["traceId"]


def test_a_remote_runtime_exports_its_side_under_cores_dispatch(tmp_path, receiver):
    """`serve --no-local-runtime` and `switchboard runtime`, both with `--otlp-endpoint`: the
    Runtime's spans, exported by its own process, hang under Core's `turn.dispatch` through
    `execution_start`'s `traceparent` over the WebSocket link."""
    token = "traces-runtime-token"
    (tmp_path / "mock").mkdir()
    mock = MockModel(tmp_path / "mock")
    otlp = ("--otlp-endpoint", receiver.url)
    server = Server(tmp_path, "--no-local-runtime", "--runtime-token", token,
                    "--model-provider-url", mock.base_url + "/v1", "--model-provider-key", "k", *otlp)
    runtime = subprocess.Popen(
        [switchboard_bin(), "runtime", "--core", server.base_url.rsplit("/v1", 1)[0], "--token", token,
         "--data-dir", str(tmp_path / "runtime"), *otlp],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(server.base_url, timeout=120)
        client = OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)
        trace_id, _, _, sid, tid, call_id = function_call_turn(client, Raw(server.base_url))
        spans = wait_for(
            receiver.spans,
            lambda got: named(got, "turn.terminal", **{"turn.id": tid})
            and named(got, "runtime.function_result", **{"call.id": call_id}),
            what="both processes' spans at the OTLP receiver",
        )
        ours = [s for s in spans if s["traceId"] == trace_id]
        [dispatch] = named(ours, "turn.dispatch", **{"turn.id": tid})
        runtime_turns = named(ours, "runtime.turn", **{"session.id": sid, "turn.id": tid})
        assert [s["parentSpanId"] for s in runtime_turns] == [dispatch["spanId"]]
        remote = descendants(ours, runtime_turns[0]["spanId"]).values()
        assert named(list(remote), "jsonrpc.request", **{"rpc.method": "turn/start"})
        assert named(list(remote), "codex.request", **{"rpc.method": "item/tool/call"})
        assert named(list(remote), "runtime.function_result", **{"call.id": call_id, "receipt.applied": True})
    finally:
        runtime.terminate()
        runtime.wait(timeout=10)
        server.stop()
        mock.stop()


def test_spans_still_batched_are_exported_at_shutdown(start_engine, receiver):
    """With a batch delay far beyond the test (`OTEL_BSP_SCHEDULE_DELAY`), only the flush at
    shutdown can deliver the Turn's spans: they are at the receiver once `serve` has exited."""
    engine = start_engine(extra_serve=("--otlp-endpoint", receiver.url), env={"OTEL_BSP_SCHEDULE_DELAY": "600000"})
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input="hello"
    )
    wait_idle(engine.raw, session.id)
    [turn] = engine.client.beta.agents.sessions.turns.list(session.id)
    assert not named(receiver.spans(), "turn.terminal", **{"turn.id": turn.id})
    engine.server.stop()
    assert engine.server.proc.returncode == 0
    assert named(receiver.spans(), "turn.terminal", **{"turn.id": turn.id})
    assert named(receiver.spans(), "turn", **{"turn.id": turn.id, "session.id": session.id})


def test_a_minimax_code_turn_stores_its_acp_exchanges(start_engine, tmp_path, monkeypatch):
    """MiniMax Code over ACP (the `mcode` stand-in on codex-acp): the stored trace holds the
    `session/prompt` request, the functions server's call and the call's receipt."""
    from minimax_support import MinimaxHarness, install_standin

    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(install_standin(tmp_path, "codex-acp")))
    engine = start_engine()
    harness = MinimaxHarness(engine.mock.base_url, "codex-acp")
    sid, action = harness.create_pending(engine)
    engine.client.beta.agents.sessions.events.create(
        sid,
        events=[{"type": TOOL_RESULT, "turn_id": action["turn_id"], "call_id": action["call_id"],
                 "success": True, "output": "sunny"}],
    )
    wait_idle(engine.raw, sid)

    want = {"turn", "turn.terminal", "runtime.turn", "acp.function_call", "acp.prompt_done",
            "function_call.receipt", "runtime.function_result"}
    [trace] = wait_for(
        lambda: list(engine.client.beta.agents.sessions.traces.list(sid)),
        lambda got: want <= {s["name"] for t in got for s in spans_of([t.otlp])},
        what="the MiniMax Code Turn's stored trace",
    )
    kept = list(spans_of([trace.otlp]))
    [turn] = named(kept, "turn", harness="minimax_code", **{"session.id": sid, "turn.id": trace.id})
    assert {s["spanId"] for s in kept} == {turn["spanId"], *descendants(kept, turn["spanId"])}
    assert named(kept, "jsonrpc.request", **{"rpc.method": "session/prompt"})
    assert named(kept, "function_call.receipt", **{"call.id": action["call_id"], "receipt.applied": True})
