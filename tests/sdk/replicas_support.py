"""Several `switchboard serve` replicas on one throwaway PostgreSQL database (issue 16), each
with its own data dir and listen port and the same `--data-key-file`, all on one mock model.
Replicas start one after another (the first creates the data key and runs the migrations).
A replica either runs its local Runtime or none (`--no-local-runtime`); `connect_runtime`
starts one `switchboard runtime --core URL --token T` attached to one replica. Beside them:
psql on the test database, the administration commands on the Core host, SSE reading.

Waits poll observable conditions (the API, `/readyz`, the replicas' own rows) until a deadline."""

import os
import pathlib
import subprocess
import time

from openai import OpenAI

from conftest import API_KEY, Raw, Server, switchboard_bin, wait_ready
from mock_model.mock_support import MockModel
from pg_support import pg_bin
from session_support import wait_for, wait_idle
from stream_support import read_frames_until

RUNTIME_TOKEN = "replicas-runtime-token"


def psql(pg_url, query):
    """One statement on the test database; its rows as tab-separated lines."""
    done = subprocess.run(
        [str(pg_bin() / "psql"), pg_url, "-v", "ON_ERROR_STOP=1", "-AtF", "\t", "-c", query],
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line]


def sql(pg_url, query):
    """One statement on the test database; its rows as lists of strings."""
    return [line.split("\t") for line in psql(pg_url, query)]


class Replica:
    def __init__(self, server, log_path):
        self.server = server
        self.base_url = server.base_url
        self.root = server.base_url.rsplit("/v1", 1)[0]
        self.raw = Raw(server.base_url)
        self.client = OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)
        self.log_path = log_path

    def log(self):
        return pathlib.Path(self.log_path).read_text(errors="replace")


class Replicas:
    """`local_runtime`: one flag per replica (default: `count` replicas, each with its local
    Runtime); `extra`: more `serve` flags for every replica."""

    def __init__(self, tmp: pathlib.Path, pg_url, count=3, local_runtime=None, claim_ttl_ms=10_000, scenario=None, extra=()):
        if local_runtime is None:
            local_runtime = (True,) * count
        self.tmp = tmp
        self.url = pg_url
        (tmp / "mock").mkdir(exist_ok=True)
        self.mock = MockModel(tmp / "mock", scenario)
        self.key_file = tmp / "data.key"
        self.replicas = []
        self.runtimes = []
        self._logs = []
        # A replica that does not come up stops the ones before it (nothing outlives the test).
        try:
            for i, local in enumerate(local_runtime):
                directory = tmp / f"replica{i + 1}"
                directory.mkdir()
                flags = [
                    "--model-provider-url", self.mock.base_url + "/v1",
                    "--model-provider-key", "mock-key",
                    "--database-url", pg_url,
                    "--data-key-file", str(self.key_file),
                    "--claim-ttl", str(claim_ttl_ms),
                    "--runtime-token", RUNTIME_TOKEN,
                    *extra,
                ]
                if not local:
                    flags.append("--no-local-runtime")
                log_path = directory / "serve.log"
                log = open(log_path, "w")
                self._logs.append(log)
                server = Server(directory, *flags, log=log, env={"SWITCHBOARD_LOG": "info"})
                self.replicas.append(Replica(server, log_path))
                if local:
                    wait_ready(server.base_url)
        except BaseException:
            self.stop()
            raise

    def __getitem__(self, i):
        return self.replicas[i]

    @property
    def servers(self):
        return [r.server for r in self.replicas]

    @property
    def raws(self):
        return [r.raw for r in self.replicas]

    @property
    def first(self):
        return self.replicas[0]

    def connect_runtime(self, i):
        """A deployment Runtime attached to replica `i` only; returns once it advertised there."""
        directory = self.tmp / f"runtime{len(self.runtimes) + 1}"
        directory.mkdir()
        log = open(directory / "runtime.log", "w")
        self._logs.append(log)
        proc = subprocess.Popen(
            [switchboard_bin(), "runtime", "--core", self[i].root, "--token", RUNTIME_TOKEN, "--data-dir", str(directory)],
            stdout=log,
            stderr=log,
            env=dict(os.environ),
        )
        self.runtimes.append(proc)
        wait_ready(self[i].base_url, timeout=120)
        return proc

    def journal(self):
        return self.mock.journal()

    def ids(self):
        """Replica ID by base URL root, from the replicas' rows."""
        return {address: rid for rid, address in sql(self.url, "SELECT id, address FROM replicas")}

    def id_of(self, i):
        return wait_for(lambda: self.ids().get(self[i].root), bool, 30, f"replica {i + 1}'s row")

    def wait_route(self, i, route="deployment/codex"):
        """Until replica `i`'s row says its Runtimes serve `route` (other replicas hand Turns
        to it from then on)."""
        rid = self.id_of(i)
        wait_for(
            lambda: sql(self.url, f"SELECT routes FROM replicas WHERE id = '{rid}'"),
            lambda rows: rows and f'"{route}"' in rows[0][0],
            60,
            f"replica {i + 1} to advertise {route}",
        )

    def holder(self, sid):
        rows = sql(self.url, f"SELECT replica_id FROM session_claims WHERE session_id = '{sid}'")
        return rows[0][0] if rows else None

    def stop(self):
        for proc in self.runtimes:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        for r in self.replicas:
            if r.server.proc.poll() is None:
                r.server.stop()
        self.mock.stop()
        for log in self._logs:
            log.close()


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
    the last one, and returns that frame; a closed stream fails with what it got."""
    read_frames_until(response, lambda frame, _: stop(frame), frames)
    return frames[-1]


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
