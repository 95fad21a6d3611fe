"""Keys across replicas (issue 16, design item 8): the keys epoch lives in PostgreSQL, and a key
revoked with `switchboard keys revoke --database-url …` on the Core host (from a data dir no
serve uses, so no `keys.epoch` file tells anyone) ends that key's open event stream on every
replica, and the next request with it is the 401 on each, at once: well within the key cache's
5 s life, although every replica had the key cached just before."""

import time

from conftest import error_of
from pg_support import pg_url  # noqa: F401  (the fixture)
from replicas_support import SCENARIO, Replicas, cli, create_idle
from stream_support import open_event_stream

UNAUTHORIZED = {
    "message": "A valid Agents API bearer key is required.",
    "type": "invalid_request_error",
    "param": None,
    "code": None,
}
# The key cache keeps a verified key 5 s; a revocation that waited for it would take that long.
AT_ONCE = 2.0


def test_a_revoked_key_ends_its_streams_on_every_replica_at_once(tmp_path, pg_url):  # noqa: F811
    replicas = Replicas(tmp_path, pg_url, scenario=SCENARIO)
    try:
        key_id, secret = cli(pg_url, tmp_path, "keys", "create").split()
        bearer = {"Authorization": f"Bearer {secret}"}
        sid = create_idle(replicas.raws[0], [])
        streams = []
        for raw, server in zip(replicas.raws, replicas.servers):
            # The key works on every replica, and each has it cached now.
            status, _, body = raw.request("GET", "/agents/sessions", auth=False, headers=bearer)
            assert status == 200, body
            streams.append(open_event_stream(server.base_url, sid, timeout=30, headers=bearer))

        assert cli(pg_url, tmp_path, "keys", "revoke", key_id).strip() == f"revoked {key_id}"
        revoked = time.monotonic()
        for n, stream in enumerate(streams, start=1):
            # Nothing happens on the Session: the stream carries at most keepalives, then ends.
            while stream.readline():
                pass
            ended = time.monotonic() - revoked
            print(f"replica {n}'s stream ended {ended:.3f} s after the revocation")
            assert ended < AT_ONCE, f"replica {n}'s stream ended {ended:.2f} s after the revocation"
            stream.close()
        for n, raw in enumerate(replicas.raws, start=1):
            status, headers, body = raw.request("GET", "/agents/sessions", auth=False, headers=bearer)
            assert status == 401, (n, body)
            assert headers["WWW-Authenticate"] == "Bearer"
            assert error_of(body) == UNAUTHORIZED
        assert time.monotonic() - revoked < AT_ONCE
        # The deployment's own key still opens every replica.
        for raw in replicas.raws:
            status, _, body = raw.request("GET", f"/agents/sessions/{sid}/turns")
            assert status == 200, body
    finally:
        replicas.stop()


def test_an_archived_project_ends_its_keys_streams_on_every_replica(tmp_path, pg_url):  # noqa: F811
    replicas = Replicas(tmp_path, pg_url, count=2, scenario=SCENARIO)
    try:
        project_id = cli(pg_url, tmp_path, "projects", "create", "--name", "team-b").split("\t")[0]
        _, secret = cli(pg_url, tmp_path, "keys", "create", "--project", project_id).split()
        bearer = {"Authorization": f"Bearer {secret}"}
        streams = []
        for raw, server in zip(replicas.raws, replicas.servers):
            status, _, body = raw.request(
                "POST",
                "/agents/sessions",
                {"agent": {"model": "gpt-test"}, "environment": {"type": "none"}, "input": "hello"},
                auth=False,
                headers=bearer,
            )
            assert status == 201, body
            streams.append(open_event_stream(server.base_url, body["id"], timeout=30, headers=bearer))
        assert cli(pg_url, tmp_path, "projects", "archive", project_id).strip() == f"archived {project_id}"
        archived = time.monotonic()
        for stream in streams:
            while stream.readline():
                pass
            stream.close()
        for raw in replicas.raws:
            status, _, body = raw.request("GET", "/agents/sessions", auth=False, headers=bearer)
            assert status == 401, body
            assert error_of(body) == UNAUTHORIZED
        assert time.monotonic() - archived < AT_ONCE
    finally:
        replicas.stop()
