#!/usr/bin/env python3
"""How many instructions does `switchboard serve` execute per prepared function-call Turn?

Usage: turn_instructions.py SWITCHBOARD_BIN CODEX_BIN [TURNS]   (TURNS defaults to 40)
       AGENT_INSTRUCTIONS_KB=N gives the Agent N KiB of instructions (default: none), to see what
       an Agent's size costs per Turn.

A wall-clock or CPU-time figure per Turn moves by 10-25 % between runs on a shared 2-vCPU
machine; an instruction count under callgrind moves by about 0.1 %, so two builds can be compared
in minutes (docs/benchmarks.md, session 16). Starts the mock model and `serve` (under
`valgrind --tool=callgrind`, children not traced: codex runs natively) in a temporary data
directory, runs one Session's first Turn and three prepared Turns to warm up, zeroes the counters,
runs TURNS prepared Turns (`POST …/events` with a message, read on `GET …/events`, the function
call answered with a `tool_result`), dumps, and prints the instructions per Turn with the top
functions by self cost. User space only: the kernel's share (syscalls, wake-ups) is not counted.
Needs valgrind (`callgrind_control`) on PATH; the profile is left in the temporary directory.
"""
import collections
import contextlib
import glob
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

KEY = "sk-sb-probe"
HEADERS = {"Authorization": f"Bearer {KEY}", "OpenAI-Beta": "agents=v1", "Content-Type": "application/json"}
WEATHER = {"type": "function", "name": "get_weather", "description": "Weather for a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, path, body):
    c = http.client.HTTPConnection("127.0.0.1", port)
    c.request("POST", path, json.dumps(body), HEADERS)
    r = c.getresponse()
    data = r.read()
    assert r.status < 300, (path, r.status, data)


def events(port, path, body=None):
    """The `data:` events of an SSE response (a streaming create, or a Session's event stream)."""
    c = http.client.HTTPConnection("127.0.0.1", port)
    c.request("POST" if body else "GET", path, json.dumps(body) if body else None, HEADERS)
    r = c.getresponse()
    assert r.status in (200, 201), (path, r.status)
    while True:
        line = r.readline()
        if not line:
            return
        if line.startswith(b"data:"):
            yield json.loads(line[5:])


def turn(port, stream, session_id, n):
    """Reads a Turn to its end, answering its function call; returns the Session's ID."""
    ended = False
    for event in stream:
        session_id = session_id or event.get("session_id") or (event.get("session") or {}).get("id")
        kind = event.get("type")
        if kind == "agent.session.requires_action":
            action = event["session"]["required_actions"][0]
            post(port, f"/v1/agents/sessions/{session_id}/events", {"events": [{
                "type": "agent.session.input.tool_result", "turn_id": action["turn_id"],
                "call_id": action["call_id"], "success": True, "output": f"out{n}"}]})
        elif kind == "agent.session.turn.completed":
            ended = True
        elif kind == "agent.session.idle" and ended:
            return session_id
        elif kind == "agent.session.failed":
            sys.exit(f"the Turn failed: {event}")
    sys.exit("the event stream ended before the Turn did")


def prepared_turns(port, session_id, count):
    for n in range(count):
        stream = events(port, f"/v1/agents/sessions/{session_id}/events")
        post(port, f"/v1/agents/sessions/{session_id}/events",
             {"events": [{"type": "agent.session.input.message", "input": "And in Lyon?"}]})
        turn(port, stream, session_id, n + 1)


def agent():
    """The Session's Agent: one function, and `AGENT_INSTRUCTIONS_KB` KiB of instructions."""
    kib = int(os.environ.get("AGENT_INSTRUCTIONS_KB", "0"))
    body = {"model": "gpt-test", "tools": [WEATHER]}
    if kib:
        body["instructions"] = ("Answer briefly and cite the tool. " * 32 * kib)[: kib * 1024]
    return body


def wait_ready(port, deadline=300):
    end = time.time() + deadline
    while time.time() < end:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/readyz")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit("serve never became ready")


def arguments(default_turns, prefix, doc):
    """SWITCHBOARD_BIN, CODEX_BIN and TURNS from the command line (`doc` when they are missing),
    and a new work directory named after `prefix`."""
    if len(sys.argv) < 3:
        sys.exit(doc)
    switchboard, codex = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    turns = int(sys.argv[3]) if len(sys.argv) > 3 else default_turns
    return switchboard, codex, turns, tempfile.mkdtemp(prefix=prefix)


@contextlib.contextmanager
def served(switchboard, work, env, wrapper=(), flags=()):
    """The mock model and `serve` (behind `wrapper`, a command prefix; with `flags` added, and
    `env` added to its environment, such as the harness binary's variable) in `work`, no warm
    pool; yields (serve, port) once it is ready and stops both processes afterwards."""
    mock_port, port = free_port(), free_port()
    mock = subprocess.Popen([switchboard, "mock-model", "--listen", f"127.0.0.1:{mock_port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    serve = subprocess.Popen(
        [*wrapper, switchboard, "serve",
         "--data-dir", f"{work}/data", "--listen", f"127.0.0.1:{port}",
         "--model-provider-url", f"http://127.0.0.1:{mock_port}/v1", "--model-provider-key", "unused",
         "--anthropic-provider-url", f"http://127.0.0.1:{mock_port}",
         "--anthropic-provider-key", "unused",
         "--warm-harnesses", "0", "--no-install", *flags],
        env=dict(os.environ, SWITCHBOARD_API_KEY=KEY, **env),
        stdout=subprocess.DEVNULL, stderr=open(f"{work}/serve.log", "w"))
    try:
        wait_ready(port)
        yield serve, port
    finally:
        serve.terminate()
        mock.terminate()
        serve.wait()
        mock.wait()


def first_turn(port, agent_body):
    """A new Session on `agent_body` with no workspace, run to the end of its first Turn; its ID."""
    stream = events(port, "/v1/agents/sessions", {
        "environment": {"type": "none"}, "agent": agent_body,
        "input": "Weather in Paris?", "stream": True})
    return turn(port, stream, None, 0)


@contextlib.contextmanager
def scenario(switchboard, codex, work, wrapper=()):
    """[`served`] on codex, with a Session made and warmed up by its first Turn and three
    prepared Turns; yields (serve, port, session ID)."""
    with served(switchboard, work, {"SWITCHBOARD_CODEX_BIN": codex}, wrapper) as (serve, port):
        session_id = first_turn(port, agent())
        prepared_turns(port, session_id, 3)
        yield serve, port, session_id


def self_costs(profile):
    """Self instruction counts by function name from a callgrind profile (calls excluded)."""
    names, costs, current, in_call = {}, collections.Counter(), None, False
    for line in open(profile):
        line = line.rstrip("\n")
        m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(2):
                names[m.group(1)] = m.group(2)
            if line.startswith("fn="):
                current = names.get(m.group(1), m.group(1))
            continue
        if line.startswith("calls="):
            in_call = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            parts = line.split()
            if len(parts) >= 2 and not in_call:
                costs[current] += int(parts[1])
            in_call = False
    return costs


def main():
    switchboard, codex, turns, work = arguments(40, "turn-instructions-", __doc__)
    callgrind = ("valgrind", "--tool=callgrind", "--trace-children=no",
                 f"--callgrind-out-file={work}/callgrind.out.%p")
    with scenario(switchboard, codex, work, callgrind) as (serve, port, session_id):
        subprocess.run(["callgrind_control", "-z", str(serve.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        prepared_turns(port, session_id, turns)
        subprocess.run(["callgrind_control", "-d", str(serve.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        profile = f"{work}/callgrind.out.{serve.pid}.1"
        for _ in range(100):
            if os.path.exists(profile):
                break
            time.sleep(0.1)
    costs = self_costs(profile)
    total = sum(costs.values())
    print(f"serve: {total / turns:,.0f} instructions per prepared Turn ({turns} Turns; profile {profile})")
    for name, cost in costs.most_common(15):
        print(f"{cost / turns:12,.0f} {100 * cost / total:5.1f}%  {name[:110]}")

if __name__ == "__main__":
    main()
