"""`serve --database-url postgres://…` keeps the store in PostgreSQL (issue 16): a function Turn
on codex runs through the official SDK, a restart on the same database (even from another data
directory) keeps the Session, and a start with another data key refuses."""

import os
import subprocess

from conftest import API_KEY, Engine, Raw, Server, switchboard_bin, wait_ready
from pg_support import pg_url  # noqa: F401  (the fixture)
from session_support import create_pending, items_raw, post_events, session_raw, tool_result, wait_idle, turns_raw


def test_a_function_turn_runs_on_postgres_and_survives_a_restart(tmp_path, pg_url):  # noqa: F811
    key_file = tmp_path / "data.key"
    on_pg = ("--database-url", pg_url, "--data-key-file", str(key_file))
    (tmp_path / "first").mkdir()
    engine = Engine(tmp_path / "first", extra_serve=on_pg)
    try:
        sid, action = create_pending(engine)
        status, _, body = post_events(engine.raw, sid, [tool_result(action, output='{"temp_c": 21}')])
        assert status == 202, body
        session = wait_idle(engine.raw, sid)
        items = items_raw(engine.raw, sid)
        turns = turns_raw(engine.raw, sid)
        assert [t["status"] for t in turns] == ["completed"]
        assert any(i["type"] == "function_call_output" for i in items), items
        assert key_file.exists(), "the data key file was created"
        assert not (engine.server.data_dir / "switchboard.sqlite").exists(), "nothing went to SQLite"
    finally:
        engine.server.stop()

    # Another data directory, the same database and key: the Session is all there.
    (tmp_path / "second").mkdir()
    restarted = Server(
        tmp_path / "second",
        "--model-provider-url",
        engine.mock.base_url + "/v1",
        "--model-provider-key",
        "mock-key",
        *on_pg,
    )
    try:
        wait_ready(restarted.base_url)
        raw = Raw(restarted.base_url)
        assert session_raw(raw, sid) == session
        assert items_raw(raw, sid) == items
        assert turns_raw(raw, sid) == turns
    finally:
        restarted.stop()
        engine.mock.stop()

    # Another key on the same database refuses to start, before it listens.
    other = tmp_path / "other.key"
    proc = subprocess.run(
        [switchboard_bin(), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(tmp_path / "third")]
        + ["--database-url", pg_url, "--data-key-file", str(other)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, SWITCHBOARD_API_KEY=API_KEY),
    )
    assert proc.returncode != 0
    assert "listening" not in proc.stdout
    assert "the data key is not the one this database's secrets were sealed with" in proc.stderr, proc.stderr
