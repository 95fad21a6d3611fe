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
    def __init__(self, tmp: pathlib.Path, *extra: str):
        env = dict(os.environ, SWITCHBOARD_API_KEY=API_KEY)
        self.data_dir = tmp / "data"
        self.proc = subprocess.Popen(
            [switchboard_bin(), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(self.data_dir), *extra],
            stdout=subprocess.PIPE,
            stderr=None,
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
