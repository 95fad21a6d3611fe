"""A newcomer's first run, as the README tells it (issue 9).

The "Run a Session offline" blocks are read out of README.md and run as written by bash, in a
fresh working directory, with the default relative data dir and no harness but the one the block
installs (`switchboard harness install`, a real npm install). The only substitutions are free
ports for 7000/8080 and the built binary for `cargo run -q -p switchboard --`. The repository's
`.harnesses/` fallback and every binary override are turned off, so nothing hides a relative
path or a missing install.

The auto-install test starts `serve` the same way with no harness installed at all: it installs
the default harness itself, `/readyz` says `installing`, a Session is admitted with its Turn
queued, and the Turn completes once the install ends."""

import contextlib
import json
import os
import pathlib
import re
import shlex
import signal
import socket
import subprocess
import urllib.error
import urllib.request

import pytest
from openai import OpenAI

from conftest import ROOT, Raw, switchboard_bin
from mock_model.mock_support import MockModel
from session_support import turns_raw, wait_for, wait_idle

README = ROOT / "README.md"
FINAL = 'FINAL: {"temp":21}'
# A real npm install of a ~400 MB package plus a Turn, on a loaded 2-core machine.
INSTALL_TIMEOUT = 900.0
# Variables that would point the run at an install other than the block's own.
HIDDEN = (
    "SWITCHBOARD_CODEX_BIN",
    "SWITCHBOARD_CLAUDE_BIN",
    "SWITCHBOARD_DATA_DIR",
    "SWITCHBOARD_API_KEY",
    "SWITCHBOARD_MODEL_PROVIDER_URL",
    "SWITCHBOARD_MODEL_PROVIDER_KEY",
    "SWITCHBOARD_ANTHROPIC_PROVIDER_URL",
    "SWITCHBOARD_ANTHROPIC_PROVIDER_KEY",
)


def offline_blocks():
    """The ```sh blocks of the README's "Run a Session offline" section, in order."""
    text = README.read_text()
    section = text.split("## Run a Session offline", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def block_for(harness: str) -> str:
    [block] = [b for b in offline_blocks() if f"harness install {harness} " in b]
    return block


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def newcomer_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in HIDDEN}
    env["SWITCHBOARD_NO_REPO_HARNESSES"] = "1"
    # `python3` in the block is a Python with the official SDK, as the README asks.
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_as_written(block: str, cwd: pathlib.Path) -> str:
    """Runs the block with bash in `cwd`; returns its stdout. Everything it left running in the
    background is ended with its process group."""
    script = (
        block.replace("cargo run -q -p switchboard --", shlex.quote(switchboard_bin()))
        .replace("127.0.0.1:7000", f"127.0.0.1:{free_port()}")
        .replace("127.0.0.1:8080", f"127.0.0.1:{free_port()}")
    )
    out_path = cwd.parent / "stdout.txt"
    with open(out_path, "w") as out:
        # Output goes to a file, not a pipe: the background servers keep their stdout open.
        proc = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=cwd,
            env=newcomer_env(),
            stdout=out,
            stderr=None,
            start_new_session=True,
        )
        try:
            rc = proc.wait(timeout=INSTALL_TIMEOUT)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    output = out_path.read_text()
    assert rc == 0, output
    return output


@pytest.mark.parametrize(
    "harness, native",
    [
        ("codex", "harnesses/codex/node_modules/@openai/codex-linux-x64"),
        ("claude_code", "harnesses/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64"),
    ],
)
def test_the_readme_offline_block_runs_as_written(tmp_path, harness, native):
    cwd = tmp_path / "fresh"
    cwd.mkdir()
    output = run_as_written(block_for(harness), cwd)
    assert output.strip().splitlines()[-1] == FINAL, output
    # The default data dir is relative to where the commands ran, and the install is there.
    assert (cwd / ".switchboard" / "switchboard.sqlite").is_file()
    assert (cwd / ".switchboard" / native).is_dir()


def readyz(root: str):
    try:
        with urllib.request.urlopen(root + "/readyz") as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def codex_state(body) -> str:
    [codex] = [h for h in body["harnesses"] if h["harness"] == "codex"]
    assert codex["pinned_version"] == "0.171.0"
    return codex["state"]


@contextlib.contextmanager
def fresh_serve(tmp_path: pathlib.Path, env: dict):
    """`serve` as a newcomer starts it: a fresh working directory (the default relative data dir)
    and the mock model as the deployment's provider. Yields (cwd, base_url, root)."""
    cwd = tmp_path / "fresh"
    cwd.mkdir()
    (tmp_path / "mock").mkdir()
    mock = MockModel(tmp_path / "mock")
    proc = subprocess.Popen(
        [switchboard_bin(), "serve", "--listen", "127.0.0.1:0",
         "--model-provider-url", mock.base_url + "/v1", "--model-provider-key", "unused"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = proc.stdout.readline().split()[-1].strip()
        yield cwd, base_url, base_url.rsplit("/v1", 1)[0]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        mock.stop()


def test_serve_installs_a_missing_default_harness_and_runs_the_waiting_turn(tmp_path):
    env = dict(newcomer_env(), SWITCHBOARD_API_KEY="sk-sb-test-suite-key")
    with fresh_serve(tmp_path, env) as (cwd, base_url, root):
        status, body = wait_for(
            lambda: readyz(root),
            lambda r: codex_state(r[1]) != "missing",
            what="the local Runtime to advertise codex",
        )
        assert (status, codex_state(body)) == (503, "installing"), body
        assert body["status"] == "not_ready"

        client = OpenAI(base_url=base_url, api_key="sk-sb-test-suite-key", max_retries=0)
        session = client.beta.agents.sessions.create(
            environment={"type": "none"}, agent={"model": "gpt-test"}, input="hello"
        )
        raw = Raw(base_url)
        [turn] = turns_raw(raw, session.id)
        assert turn["status"] == "queued"
        # Still installing after the Turn was read queued: it waited for the install.
        assert codex_state(readyz(root)[1]) == "installing"

        wait_idle(raw, session.id, timeout=INSTALL_TIMEOUT)
        [turn] = turns_raw(raw, session.id)
        assert turn["status"] == "completed", turn
        status, body = readyz(root)
        assert (status, codex_state(body)) == (200, "available"), body
        assert (cwd / ".switchboard" / "harnesses" / "codex" / "package.json").is_file()


def test_a_failed_install_is_reported_on_readyz_and_refuses_sessions(tmp_path):
    # A registry nothing listens on, and an empty cache: npm itself fails, as it would offline.
    env = dict(
        newcomer_env(),
        SWITCHBOARD_API_KEY="sk-sb-test-suite-key",
        npm_config_registry=f"http://127.0.0.1:{free_port()}/",
        npm_config_cache=str(tmp_path / "npm-cache"),
        npm_config_fetch_retries="0",
    )
    with fresh_serve(tmp_path, env) as (cwd, base_url, root):
        status, body = wait_for(
            lambda: readyz(root),
            lambda r: codex_state(r[1]).startswith("failed: "),
            timeout=120,
            what="the codex install to fail",
        )
        assert status == 503 and body["status"] == "not_ready", body
        reason = codex_state(body)[len("failed: "):]
        # npm's own account of it, not its stack trace.
        assert reason.startswith(
            "npm install @openai/codex@0.171.0 failed (exit status: 1): FetchError: request to "
        ), reason
        assert reason.endswith("reason: connect ECONNREFUSED " + env["npm_config_registry"][7:-1]), reason

        raw = Raw(base_url)
        status, _, err = raw.request(
            "POST", "/agents/sessions",
            {"environment": {"type": "none"}, "agent": {"model": "gpt-test"}, "input": "hello"},
        )
        assert status == 400, err
        assert err == {"error": {
            "type": "invalid_request_error",
            "code": "unsupported_or_invalid_configuration",
            "param": None,
            "message": f"No connected Runtime can run the codex harness: {reason}. Retry the install on the Runtime (`switchboard harness install codex`) and try again.",
        }}
        status, _, listed = raw.request("GET", "/agents/sessions")
        assert status == 200 and listed["data"] == []
