"""Fixtures for the SDK suite: a real `switchboard serve` on an ephemeral port, the official
`openai` SDK pointed at it, and a raw HTTP helper for what the SDK cannot send (bad bodies,
missing headers)."""

import json
import os
import pathlib
import subprocess
import urllib.error
import urllib.request

import pytest
from openai import OpenAI

ROOT = pathlib.Path(__file__).resolve().parents[2]
API_KEY = "sk-sb-test-suite-key"


def switchboard_bin() -> str:
    return os.environ.get("SWITCHBOARD_BIN", str(ROOT / "target" / "debug" / "switchboard"))


class Server:
    def __init__(self, tmp: pathlib.Path, *extra: str, env=None, log=None):
        """`env`: added to the environment; `log`: a file that receives serve's stderr (its log)."""
        env = dict(os.environ, SWITCHBOARD_API_KEY=API_KEY, **(env or {}))
        self.data_dir = tmp / "data"
        self.proc = subprocess.Popen(
            [switchboard_bin(), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(self.data_dir), *extra],
            stdout=subprocess.PIPE,
            stderr=log,
            env=env,
            text=True,
        )
        line = self.proc.stdout.readline()
        assert "http://" in line, f"unexpected first line from serve: {line!r}"
        self.base_url = line.split()[-1].strip()
        self.first_line = line

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    yield s
    s.stop()


@pytest.fixture
def client(server):
    return OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)


class Raw:
    """Raw HTTP against the server: returns (status, headers, parsed JSON or bytes)."""

    def __init__(self, base_url: str):
        self.base_url = base_url

    def request(self, method, path, body=None, headers=None, beta=True, auth=True, content_type="application/json"):
        h = {}
        if beta:
            h["OpenAI-Beta"] = "agents=v1"
        if auth:
            h["Authorization"] = f"Bearer {API_KEY}"
        if body is not None and content_type:
            h["Content-Type"] = content_type
        h.update(headers or {})
        data = body
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
        elif isinstance(body, str):
            data = body.encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req) as r:
                return r.status, r.headers, _decode(r.read())
        except urllib.error.HTTPError as e:
            return e.code, e.headers, _decode(e.read())


def _decode(raw: bytes):
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw


@pytest.fixture
def raw(server):
    return Raw(server.base_url)


def error_of(body):
    """The error member of an envelope, asserting the envelope's exact key set."""
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"message", "type", "param", "code"}, body
    return body["error"]


# ---------------------------------------------------------------------------------------------
# Sessions: Core with its local Runtime (the real pinned codex) against the mock model.

import time  # noqa: E402

from mock_model.mock_support import MockModel  # noqa: E402


def wait_ready(base_url: str, timeout: float = 30.0):
    """Polls `/readyz` (a condition, not a sleep) until the local Runtime has advertised."""
    root = base_url.rsplit("/v1", 1)[0]
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(root + "/readyz") as r:
                if r.status == 200:
                    return
        except urllib.error.HTTPError as e:
            if e.code != 503:
                raise
        if time.monotonic() > deadline:
            raise AssertionError("the local Runtime never advertised its harnesses")
        time.sleep(0.05)


class Engine:
    """A mock model plus a server whose deployment model providers (Responses and Anthropic) are
    that mock."""

    def __init__(self, tmp: pathlib.Path, scenario=None, extra_serve=(), env=None, log=None):
        (tmp / "mock").mkdir(exist_ok=True)
        self.mock = MockModel(tmp / "mock", scenario)
        self._serve = (tmp, extra_serve, env, log)
        self._start_server()

    def _start_server(self):
        tmp, extra_serve, env, log = self._serve
        self.server = Server(
            tmp,
            "--model-provider-url",
            self.mock.base_url + "/v1",
            "--model-provider-key",
            "mock-key",
            # The same mock serves the Anthropic Messages API (Claude Code Sessions).
            "--anthropic-provider-url",
            self.mock.base_url,
            "--anthropic-provider-key",
            "mock-key",
            *extra_serve,
            env=env,
            log=log,
        )
        wait_ready(self.server.base_url)
        self.client = OpenAI(base_url=self.server.base_url, api_key=API_KEY, max_retries=0)
        self.raw = Raw(self.server.base_url)

    def restart(self, while_stopped=None):
        """Stops serve and starts it again on the same data dir, flags and mock (a Core
        restart); `server`, `client` and `raw` then talk to the new process. `while_stopped`,
        if given, is called between the two (to look at the data dir of a stopped Core)."""
        self.server.stop()
        if while_stopped is not None:
            while_stopped()
        self._start_server()

    def journal(self):
        return self.mock.journal()

    def stop(self):
        self.server.stop()
        self.mock.stop()


@pytest.fixture
def start_engine(tmp_path):
    """Starts an Engine with an optional mock scenario (see docs/mock-model.md)."""
    started = []

    def start(scenario=None, extra_serve=(), env=None, log=None):
        directory = tmp_path / f"engine{len(started)}"
        directory.mkdir()
        engine = Engine(directory, scenario, extra_serve, env, log)
        started.append(engine)
        return engine

    yield start
    for engine in started:
        engine.stop()


@pytest.fixture
def engine(start_engine):
    """An Engine with the mock's built-in default (first offered function called once, then text)."""
    return start_engine()


WEATHER_FUNCTION = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


@pytest.fixture(params=["codex", "claude_code"])
def harness(request):
    """The harness profile a test runs its Sessions on (session_support.Harness): codex, the
    default, or claude_code, selected per Session with `x_agents_core.harness`."""
    from session_support import harness_profile

    return harness_profile(request.param)
