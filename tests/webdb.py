"""Databases for the web tests: an SQLite file, and a real PostgreSQL cluster started
for the test run (Debian's ``postgresql``: initdb and pg_ctl from
/usr/lib/postgresql/*/bin, a throwaway cluster in a temporary directory, run as the
``postgres`` user when the tests run as root).  Without PostgreSQL the PostgreSQL cases
skip with a message saying how to install it."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

BACKENDS = ["sqlite", "postgresql"]


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A PostgreSQL cluster in a temporary directory on a free loopback port."""

    def __init__(self) -> None:
        bindir = _bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="rhineland-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root: the cluster runs as postgres
            if shutil.which("runuser") is None:
                raise RuntimeError("running as root without runuser: cannot start PostgreSQL")
            shutil.chown(self.dir, "postgres")
            os.chmod(self.dir, 0o700)
            self.prefix = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        out = subprocess.run([*self.prefix, *args], capture_output=True, text=True,
                             timeout=120, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {(out.stderr or out.stdout).strip()[-400:]}")

    def start(self) -> None:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "rhineland",
                  "--auth=trust", "-E", "UTF8", "--no-sync")
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", opts,
                  "-l", str(self.dir / "log"), "-w", "start")

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                      "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://rhineland@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster | str]:
    """The session's PostgreSQL cluster, or the reason there is none."""
    try:
        cluster = Cluster()
        cluster.start()
    except Exception as exc:  # no PostgreSQL here: its cases skip with the reason
        yield f"PostgreSQL not available ({exc}); the PostgreSQL cases skip"
        return
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh empty database: an SQLite file, or a new database in the cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.sqlite3'}"
    cluster = request.getfixturevalue("pg_cluster")
    if isinstance(cluster, str):
        pytest.skip(cluster)
    return cluster.new_database()
