"""`switchboard serve` prints its base URL and a key on first start only; `switchboard keys`
creates, lists and revokes keys that the server accepts or refuses at once."""

import os
import subprocess

import openai
import pytest
from openai import OpenAI

from conftest import switchboard_bin


def start(data_dir, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "SWITCHBOARD_API_KEY"}
    env.update(env_extra or {})
    p = subprocess.Popen(
        [switchboard_bin(), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE, text=True, env=env,
    )
    lines = [p.stdout.readline()]
    return p, lines


def keys(data_dir, *args):
    return subprocess.run([switchboard_bin(), "keys", "--data-dir", str(data_dir), *args],
                          capture_output=True, text=True, check=False)


def test_first_start_prints_a_key_and_later_starts_do_not(tmp_path):
    p, lines = start(tmp_path)
    try:
        assert lines[0].startswith("Switchboard is listening at http://127.0.0.1:")
        assert lines[0].strip().endswith("/v1")
        key_line = p.stdout.readline()
        assert key_line.startswith("Project API key (shown once): sk-sb-")
        key = key_line.split()[-1]
        base = lines[0].split()[-1]
        assert OpenAI(base_url=base, api_key=key, max_retries=0).beta.agents.list().data == []
    finally:
        p.terminate(); p.wait()
    p, lines = start(tmp_path)
    p.terminate()
    rest = p.stdout.read()
    p.wait()
    assert lines[0].startswith("Switchboard is listening at")
    assert "API key" not in rest
    # The key is stored as a digest only.
    for f in tmp_path.glob("switchboard.sqlite*"):
        assert key.encode() not in f.read_bytes()


def test_keys_create_list_revoke(tmp_path):
    created = keys(tmp_path, "create")
    assert created.returncode == 0, created.stderr
    key_id, secret = created.stdout.split()
    assert key_id.startswith("key_") and secret.startswith("sk-sb-")
    listed = keys(tmp_path, "list").stdout
    assert key_id in listed and secret not in listed and "active" in listed

    p, lines = start(tmp_path)
    try:
        c = OpenAI(base_url=lines[0].split()[-1], api_key=secret, max_retries=0)
        assert c.beta.agents.list().data == []
        assert keys(tmp_path, "revoke", key_id).returncode == 0
        with pytest.raises(openai.AuthenticationError):
            c.beta.agents.list()
    finally:
        p.terminate(); p.wait()
    assert keys(tmp_path, "revoke", key_id).returncode != 0
