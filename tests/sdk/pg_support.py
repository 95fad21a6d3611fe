"""A throwaway PostgreSQL for the SDK suite, by the same recipe as the store crate's test
support: `initdb` in a temporary directory (as the `postgres` user when running as root, since
initdb refuses root), `postgres` on a free loopback port, one new database per test, and the
whole cluster stopped and removed afterwards. It never connects to a database it did not create.
Without the binaries a test fails when CI=true and is skipped loudly otherwise."""

import glob
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

import pytest


def pg_bin():
    """The directory holding initdb, postgres, pg_isready and psql, or None."""
    wanted = ("initdb", "postgres", "pg_isready", "psql")
    candidates = []
    if os.environ.get("SWITCHBOARD_PG_BIN"):
        candidates.append(os.environ["SWITCHBOARD_PG_BIN"])
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(os.path.dirname(os.path.realpath(on_path)))
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for d in candidates:
        if all(os.path.isfile(os.path.join(d, b)) for b in wanted):
            return pathlib.Path(d)
    return None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, bin_dir: pathlib.Path):
        self.bin = bin_dir
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="switchboard-pg-"))
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        subprocess.run(
            self._as_postgres("initdb")
            + ["-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
            check=True,
            capture_output=True,
        )
        for _ in range(5):
            self.port = _free_port()
            self.proc = subprocess.Popen(
                self._as_postgres("postgres")
                + ["-D", str(data), "-h", "127.0.0.1", "-p", str(self.port), "-k", str(self.dir)]
                + ["-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            if self._wait_ready():
                return
            self._stop_server()
        self.close()
        raise AssertionError("the test cluster did not start on any of five free ports")

    def _as_postgres(self, program):
        prefix = ["setpriv"]
        if self.as_root:
            prefix += ["--reuid=postgres", "--regid=postgres", "--init-groups"]
        # The server goes when this process dies, even without the fixture's teardown.
        return prefix + ["--pdeathsig", "QUIT", "--", str(self.bin / program)]

    def _wait_ready(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            ok = subprocess.run(
                [str(self.bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)], check=False
            )
            if ok.returncode == 0:
                return True
            time.sleep(0.05)
        return False

    def create_database(self, name):
        subprocess.run(
            [str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", "postgres"]
            + ["-v", "ON_ERROR_STOP=1", "-qc", f"CREATE DATABASE {name}"],
            check=True,
            capture_output=True,
        )
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def _stop_server(self):
        if self.proc.poll() is None:
            self.proc.send_signal(3)  # SIGQUIT: immediate shutdown, the data is thrown away
            self.proc.wait(timeout=30)

    def close(self):
        if getattr(self, "proc", None) is not None:
            self._stop_server()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def pg_url(request):
    """A new database on a throwaway cluster, as a postgres:// URL."""
    bin_dir = pg_bin()
    if bin_dir is None:
        message = "PostgreSQL binaries not found (set SWITCHBOARD_PG_BIN or run scripts/setup.sh)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        print(f"SKIPPED {request.node.name}: {message}")
        pytest.skip(message)
    cluster = Cluster(bin_dir)
    try:
        yield cluster.create_database("switchboard_test")
    finally:
        cluster.close()
