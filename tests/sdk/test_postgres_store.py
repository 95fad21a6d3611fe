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


def admin(*args, data_dir):
    """A Core-host administration command, from a data directory of its own."""
    proc = subprocess.run(
        [switchboard_bin(), *args, "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_keys_and_projects_commands_manage_the_postgres_store(tmp_path, pg_url):  # noqa: F811
    """`projects` and `keys` with `--database-url` (or SWITCHBOARD_DATABASE_URL) act on the
    database `serve` runs on, not on a SQLite file of their data directory."""
    from openai import NotFoundError, OpenAI, AuthenticationError

    on_pg = ("--database-url", pg_url, "--data-key-file", str(tmp_path / "data.key"))
    (tmp_path / "core").mkdir()
    server = Server(tmp_path / "core", *on_pg)
    admin_dir = tmp_path / "admin"
    try:
        wait_ready(server.base_url)
        project = admin("projects", "create", "--name", "team b", "--database-url", pg_url, data_dir=admin_dir).split("\t")[0]
        assert project.startswith("proj_"), project
        key_id, secret = admin("keys", "create", "--project", project, "--database-url", pg_url, data_dir=admin_dir).split()
        listed = admin("keys", "list", "--database-url", pg_url, data_dir=admin_dir)
        assert key_id in listed and project in listed, listed
        assert not (admin_dir / "switchboard.sqlite").exists(), "nothing went to SQLite"

        first = OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)
        second = OpenAI(base_url=server.base_url, api_key=secret, max_retries=0)
        agent = second.beta.agents.create(model="gpt-5.4", name="b")
        assert [a.id for a in second.beta.agents.list().data] == [agent.id]
        try:
            first.beta.agents.retrieve(agent.id)
            raise AssertionError("another Project's Agent was visible")
        except NotFoundError:
            pass

        # Revoked through the environment variable: the running Core refuses the key once its
        # key cache forgets it (another host's revocation reaches it within the cache's life).
        env = dict(os.environ, SWITCHBOARD_DATABASE_URL=pg_url)
        proc = subprocess.run(
            [switchboard_bin(), "keys", "revoke", key_id, "--data-dir", str(admin_dir)],
            capture_output=True, text=True, timeout=60, env=env,
        )
        assert proc.returncode == 0, proc.stderr
        from session_support import wait_for

        def refused():
            try:
                second.beta.agents.list()
                return False
            except AuthenticationError:
                return True

        wait_for(refused, bool, 30, "the revoked key to be refused")
    finally:
        server.stop()
