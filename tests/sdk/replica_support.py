"""Several `switchboard serve` replicas on one throwaway PostgreSQL database (issue 16), each
with its own data dir and listen port and the same `--data-key-file`, all on one mock model.
Replicas start one after another (the first creates the data key and runs the migrations).
A replica either runs its local Runtime or none (`--no-local-runtime`); `connect_runtime`
starts one `switchboard runtime --core URL --token T` attached to one replica.

Waits poll observable conditions (the API, `/readyz`, the replicas' own rows) until a deadline."""

import os
import pathlib
import subprocess

from openai import OpenAI

from conftest import API_KEY, Raw, Server, switchboard_bin, wait_ready
from mock_model.mock_support import MockModel
from pg_support import pg_bin
from session_support import wait_for

RUNTIME_TOKEN = "replicas-runtime-token"


def sql(url, query):
    """Runs one query with psql against the test database; rows as lists of strings."""
    out = subprocess.run(
        [str(pg_bin() / "psql"), url, "-v", "ON_ERROR_STOP=1", "-AtF", "\t", "-c", query],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line.split("\t") for line in out.splitlines() if line]


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
    def __init__(self, tmp: pathlib.Path, pg_url, local_runtime=(True, False, False), claim_ttl_ms=10_000, scenario=None):
        self.tmp = tmp
        self.url = pg_url
        (tmp / "mock").mkdir(exist_ok=True)
        self.mock = MockModel(tmp / "mock", scenario)
        self.key_file = tmp / "data.key"
        self.replicas = []
        self.runtimes = []
        self._logs = []
        for i, local in enumerate(local_runtime):
            directory = tmp / f"replica{i + 1}"
            directory.mkdir()
            extra = [
                "--model-provider-url", self.mock.base_url + "/v1",
                "--model-provider-key", "mock-key",
                "--database-url", pg_url,
                "--data-key-file", str(self.key_file),
                "--claim-ttl", str(claim_ttl_ms),
                "--runtime-token", RUNTIME_TOKEN,
            ]
            if not local:
                extra.append("--no-local-runtime")
            log_path = directory / "serve.log"
            log = open(log_path, "w")
            self._logs.append(log)
            server = Server(directory, *extra, log=log, env={"SWITCHBOARD_LOG": "info"})
            replica = Replica(server, log_path)
            if local:
                wait_ready(server.base_url)
            self.replicas.append(replica)

    def __getitem__(self, i):
        return self.replicas[i]

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
