"""Several `switchboard serve` replicas on one throwaway PostgreSQL (issue 16): each with its own
listen port and data dir, the same database and data key file, and the same mock model. Until
Session claims land, every change of a Session is made on the replica that created it; the
others only read streams."""

import json
import subprocess
import time

from conftest import API_KEY, Engine, Raw, Server, switchboard_bin, wait_ready
from pg_support import pg_bin
from session_support import wait_idle


class Replicas:
    def __init__(self, tmp, pg_url, count=3, scenario=None, extra=()):
        self.pg_url = pg_url
        self.key_file = tmp / "data.key"
        self.on_pg = ("--database-url", pg_url, "--data-key-file", str(self.key_file), *extra)
        (tmp / "r1").mkdir()
        # Replica 1 owns the mock model; the others point at it too.
        self.first = Engine(tmp / "r1", scenario, extra_serve=self.on_pg)
        self.servers = [self.first.server]
        for n in range(2, count + 1):
            (tmp / f"r{n}").mkdir()
            server = Server(
                tmp / f"r{n}",
                "--model-provider-url",
                self.first.mock.base_url + "/v1",
                "--model-provider-key",
                "mock-key",
                *self.on_pg,
            )
            self.servers.append(server)
            wait_ready(server.base_url)
        self.raws = [Raw(s.base_url) for s in self.servers]

    def stop(self):
        for s in self.servers[1:]:
            s.stop()
        self.first.stop()


def psql(pg_url, sql):
    """One statement on the test database; its rows as tab-separated lines."""
    done = subprocess.run(
        [str(pg_bin() / "psql"), pg_url, "-v", "ON_ERROR_STOP=1", "-AtF", "\t", "-c", sql],
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line]


def listen_backends(pg_url):
    """The pids of the replicas' LISTEN connections (their application name says which)."""
    return sorted(psql(pg_url, "SELECT pid FROM pg_stat_activity WHERE application_name = 'switchboard-listen'"))


def cli(pg_url, tmp, *args):
    """An administration command on the Core host against the database (`--database-url`), with
    a data dir of its own that no serve uses (so no `keys.epoch` file tells anyone)."""
    done = subprocess.run(
        [switchboard_bin(), *args, "--database-url", pg_url, "--data-dir", str(tmp / "admin")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# The mock's answers: "hello" opens a text-only Turn (a Session needs initial input), "weather"
# a Turn that calls get_weather once and answers ANSWER in 3 deltas once its output is back.
ANSWER = "It is sunny in Paris."
SCENARIO = {
    "rules": [
        {"name": "warm", "when": {"user_text_contains": "hello"}, "reply": {"text": "Hi.", "deltas": 2}},
        {
            "name": "call",
            "when": {"user_text_contains": "weather", "tool_output_present": False},
            "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
        },
        {
            "name": "answer",
            "when": {"last_kind": "tool_output", "last_text_contains": '"temp":21'},
            "reply": {"text": ANSWER, "deltas": 3},
        },
    ],
    "otherwise": {"text": "Nothing to add.", "deltas": 1},
}


def create_idle(raw, tools):
    """A codex Session on environment none whose first (text) Turn has ended: its ID."""
    status, _, body = raw.request(
        "POST",
        "/agents/sessions",
        {"agent": {"model": "gpt-test", "tools": list(tools)}, "environment": {"type": "none"}, "input": "hello"},
    )
    assert status == 201, body
    wait_idle(raw, body["id"])
    return body["id"]


def without_padding(frame):
    """A frame as compared across replicas: the random `obfuscation` member left out."""
    return {k: v for k, v in frame.items() if k != "obfuscation"}


def read_until(response, stop, frames):
    """Reads SSE frames of a live urllib response into `frames` until `stop(frame)` holds for
    the last one; a closed stream fails with what it got."""
    current = []
    while True:
        line = response.readline()
        assert line, f"the stream closed early after {[f['type'] for f in frames]}"
        if line == b"\n":
            data = [l for l in current if l.startswith(b"data:")]
            current = []
            if data:
                frame = json.loads(b"\n".join(l[5:].strip() for l in data))
                frames.append(frame)
                if stop(frame):
                    return frame
        else:
            current.append(line.rstrip(b"\n"))


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


__all__ = ["API_KEY", "Replicas", "psql", "listen_backends", "cli", "create_idle", "without_padding", "read_until", "wait_until"]
