"""Helpers for the Session suites: deadline loops over observable state (never bare sleeps),
raw reads of Sessions, Turns and Items, and a Session left waiting on a function result.

Every wait polls a condition the API exposes (Session status, required actions) until a
deadline, so a test fails with the last observed state instead of hanging."""

import os
import signal
import time

from conftest import WEATHER_FUNCTION

TOOL_RESULT = "agent.session.input.tool_result"
MESSAGE = "agent.session.input.message"
CANCEL = "agent.session.input.cancel"

# Generous on a loaded 2-core machine; a passing wait returns as soon as its condition holds.
DEFAULT_TIMEOUT = 60.0


def wait_for(read, condition, timeout=DEFAULT_TIMEOUT, what="condition"):
    """Calls `read()` until `condition(value)` holds; returns that value."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = read()
        if condition(last):
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last observed: {last!r}")
        time.sleep(0.05)


def session_raw(raw, sid):
    status, _, body = raw.request("GET", f"/agents/sessions/{sid}")
    assert status == 200, (status, body)
    return body


def wait_required_actions(raw, sid, timeout=DEFAULT_TIMEOUT):
    """The Session once it lists at least one required action."""
    return wait_for(
        lambda: session_raw(raw, sid),
        lambda s: s["required_actions"],
        timeout,
        f"required_actions of {sid}",
    )


def wait_turn_ended(raw, sid, turn_id, timeout=DEFAULT_TIMEOUT):
    return wait_for(
        lambda: turn_raw(raw, sid, turn_id),
        lambda t: t["status"] in ("completed", "failed", "cancelled"),
        timeout,
        f"turn {turn_id} to end",
    )


def wait_idle(raw, sid, timeout=DEFAULT_TIMEOUT):
    """The Session once it is idle and its latest Turn has ended."""

    def read():
        s = session_raw(raw, sid)
        turns = turns_raw(raw, sid)
        return s, turns

    def done(v):
        s, turns = v
        return s["status"] == "idle" and all(t["status"] in ("completed", "cancelled", "failed") for t in turns)

    return wait_for(read, done, timeout, f"{sid} to be idle")[0]


def items_raw(raw, sid, turn_id=None):
    """Every Item of the Session (or of one Turn), oldest first."""
    path = f"/agents/sessions/{sid}/items" if turn_id is None else f"/agents/sessions/{sid}/turns/{turn_id}/items"
    out, after = [], None
    while True:
        q = "?order=asc&limit=100" + (f"&after={after}" if after else "")
        status, _, body = raw.request("GET", path + q)
        assert status == 200, (status, body)
        out += body["data"]
        if not body["has_more"]:
            return out
        after = body["last_id"]


def turns_raw(raw, sid):
    status, _, body = raw.request("GET", f"/agents/sessions/{sid}/turns?order=asc&limit=100")
    assert status == 200, (status, body)
    return body["data"]


def turn_raw(raw, sid, turn_id):
    status, _, body = raw.request("GET", f"/agents/sessions/{sid}/turns/{turn_id}")
    assert status == 200, (status, body)
    return body


def sessions_raw(raw, query=""):
    status, _, body = raw.request("GET", "/agents/sessions?limit=100" + query)
    assert status == 200, (status, body)
    return body["data"]


def post_events(raw, sid, events, key=None, body=None):
    """`POST …/events`; returns (status, headers, body)."""
    headers = {"Idempotency-Key": key} if key is not None else {}
    return raw.request(
        "POST", f"/agents/sessions/{sid}/events", body={"events": events} if body is None else body, headers=headers
    )


def tool_result(action, output="ok", success=True, **extra):
    event = {"type": TOOL_RESULT, "turn_id": action["turn_id"], "call_id": action["call_id"], "success": success}
    if output is not None:
        event["output"] = output
    event.update(extra)
    return event


def message(text):
    return {"type": MESSAGE, "input": text}


def create_pending(engine, tools=(WEATHER_FUNCTION,), text="What is the weather in Paris?", **kwargs):
    """A non-streamed Session (the default harness, codex) whose first Turn waits on the default
    scenario's function call. Returns (session id, the required action as JSON)."""
    return CODEX.create_pending(engine, tools=tools, text=text, **kwargs)


# ---------------------------------------------------------------------------------------------
# Harness profiles: what differs between a codex and a claude_code Session for tests that assert
# the same behaviour on both (the `harness` fixture in conftest.py yields one of these).


class Harness:
    """The default harness, codex: Sessions carry no `x_agents_core` (codex is the default), the
    model speaks the Responses API, and a function keeps its public name on the wire."""

    name = "codex"
    model = "gpt-test"
    # The name the model sees for the public function get_weather.
    weather = "get_weather"
    # Part of the command line of the harness processes a server starts.
    process = "codex"
    # A call ID of the harness's shape that no model ever issued.
    unknown_call_id = "call_does_not_exist"
    extra_body = {}

    def __repr__(self):
        return self.name

    def wait_native_state(self, engine, sid):
        """Waits until the harness has written its own record of the Session's pending call,
        which a resume after the process is lost reads back. By default there is nothing to
        wait for (the codex and claude_code rows that kill the process pass without a wait); a
        harness that writes it after the call has reached Switchboard waits here."""

    def create(self, engine, stream=False, tools=(WEATHER_FUNCTION,), input="What is the weather in Paris?", agent=None, **kwargs):
        """`sessions.create` of a Session of this harness on environment none."""
        agent = dict(agent or {"model": self.model, "tools": list(tools)})
        extra = {**(kwargs.pop("extra_body", None) or {}), **self.extra_body}
        if extra:
            kwargs["extra_body"] = extra
        if stream:
            kwargs["stream"] = True
        return engine.client.beta.agents.sessions.create(environment={"type": "none"}, agent=agent, input=input, **kwargs)

    def create_raw(self, engine, body):
        """POST /agents/sessions with a raw JSON body (the harness selection added)."""
        return engine.raw.request("POST", "/agents/sessions", body={**body, **self.extra_body})

    def create_pending(self, engine, tools=(WEATHER_FUNCTION,), text="What is the weather in Paris?", **kwargs):
        """A non-streamed Session whose first Turn waits on one function call.
        Returns (session id, the required action as JSON)."""
        session = self.create(engine, tools=tools, input=text, **kwargs)
        got = wait_required_actions(engine.raw, session.id)
        assert len(got["required_actions"]) == 1, got
        return session.id, got["required_actions"][0]

    # The mock's journal, as this harness's model protocol shows it.

    def model_calls(self, engine, since=0):
        """Journal entries of the model requests (Responses) the harness sent."""
        return [e for e in engine.journal()[since:] if e["path"] == "/v1/responses"]

    def wait_for_model_calls(self, engine, count, timeout=DEFAULT_TIMEOUT):
        """Polls the journal until `count` model requests arrived (entries are written before the
        reply starts, so a delayed reply is already there)."""
        return wait_for(lambda: self.model_calls(engine), lambda c: len(c) >= count, timeout, f"{count} model requests")

    def sent_results(self, engine):
        """What the model received for each function result, (call_id, content) in first-seen
        order: codex sends the function_call_output item's `output` as given (each distinct item
        once, so a changed result for the same call would show twice)."""
        found = []
        for entry in engine.journal():
            for item in (entry.get("body") or {}).get("input", []):
                if isinstance(item, dict) and item.get("type") == "function_call_output" and item not in found:
                    found.append(item)
        return [(i["call_id"], i["output"]) for i in found]

    def sent_outputs(self, engine):
        """The content of every result the model received, in order."""
        return [content for _, content in self.sent_results(engine)]

    def sent_wire_results(self, engine):
        """{call_id: the result exactly as the model's protocol carried it} (first seen)."""
        found = {}
        for call_id, output in self.sent_results(engine):
            found.setdefault(call_id, output)
        return found

    def wire_result(self, text):
        """A successful text result as `sent_wire_results` shows it."""
        return text

    def assert_sent_result(self, engine, call_id, text, is_error=False):
        """The model received `text` as the result of `call_id` (a function_call_output carries
        no error flag, so codex sends a failed result's text the same way)."""
        assert self.sent_wire_results(engine)[call_id] == text

    def user_texts(self, entry):
        """The user texts of one model request."""
        texts = []
        for item in entry["body"].get("input") or []:
            if isinstance(item, dict) and item.get("role") == "user":
                content = item.get("content")
                if isinstance(content, str):
                    texts.append(content)
                else:
                    texts += [p.get("text") for p in content or [] if isinstance(p, dict)]
        return texts


CODEX = Harness()


def harness_profile(name):
    """The profile of a harness by its `x_agents_core.harness` name."""
    if name == "codex":
        return CODEX
    from claude_support import CLAUDE  # claude_support imports this module

    assert name == CLAUDE.name, name
    return CLAUDE


def history_snapshot(raw, sid):
    """What a rejected request must leave untouched."""
    s = session_raw(raw, sid)
    return {
        "status": s["status"],
        "required_actions": s["required_actions"],
        "items": items_raw(raw, sid),
        "turns": [(t["id"], t["status"]) for t in turns_raw(raw, sid)],
    }


def descendants(pid):
    """Process IDs below `pid` (Linux /proc), deepest last."""
    found, queue = [], [pid]
    while queue:
        p = queue.pop(0)
        for task in _tasks(p):
            try:
                with open(f"/proc/{p}/task/{task}/children") as f:
                    kids = [int(c) for c in f.read().split()]
            except OSError:
                kids = []
            for k in kids:
                if k not in found:
                    found.append(k)
                    queue.append(k)
    return found


def _tasks(pid):
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def session_processes(server, process, state_dir):
    """The `process` harness processes below `server` that belong to the Session whose state
    directory is `state_dir`: those whose environment (`HOME`, `CODEX_HOME`,
    `CLAUDE_CONFIG_DIR`) points into it. Resolved on both sides, because a Session bound to a
    warm process has a state directory that links to the warm process's own, and the warm
    processes not yet bound to anyone run beside it."""
    root = os.path.realpath(state_dir)
    mine = []
    for pid in descendants(server.proc.pid):
        if process not in cmdline(pid):
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        for entry in env:
            name, _, value = entry.decode(errors="replace").partition("=")
            if name in ("HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR") and value:
                path = os.path.realpath(os.path.join(cwd, value))
                if path == root or path.startswith(root + os.sep):
                    mine.append(pid)
                    break
    return mine


def kill_harness_processes(server, process="codex"):
    """Kills the harness processes (`codex` or `claude`) this test's own server started (its
    descendants only), with everything they started: a harness that is several processes (the
    `mcode` stand-in relays to an ACP agent, claude-agent-acp runs Claude Code) is lost as a whole,
    as a single native process would be."""
    pids = [p for p in descendants(server.proc.pid) if process in cmdline(p)]
    assert pids, f"the server runs no {process} process"
    pids += [d for p in pids for d in descendants(p) if d not in pids]
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids
