"""A private, throwaway PostgreSQL 16 + pgvector for tests and benchmarks.

The PyPI wheel ``pgserver`` ships PostgreSQL 16 binaries with pgvector 0.6
(Debian has no pgvector package here), so ``pip install`` is all a fresh
machine needs. :class:`LocalPostgres` runs ``initdb`` + ``pg_ctl`` from that
wheel on a free loopback port with ``trust`` auth, as an unprivileged user when
running as root (PostgreSQL refuses to run as root), and stops it on exit::

    with LocalPostgres(Path("/tmp/pg")) as pg:
        url = pg.create_database("t1")      # postgresql://postgres@127.0.0.1:PORT/t1

Never use it for real data: trust auth, fsync off, no backups.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
from pathlib import Path

from citeline.errors import ConfigError

# The unprivileged account the server runs as when we are root.
PG_USER = "citeline-pg"
# Seconds pg_ctl waits for the server to accept connections; a busy 2-core machine
# needs more than the default 60 s now and then.
START_TIMEOUT = 120


def pg_bin() -> Path:
    # found without importing it: importing pgserver has side effects (runtime dirs)
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "the test PostgreSQL needs the 'pgserver' package: pip install -e '.[postgres]'"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ensure_user() -> tuple[int, int]:
    try:
        pw = pwd.getpwnam(PG_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
            check=True, capture_output=True,
        )
        pw = pwd.getpwnam(PG_USER)
    return pw.pw_uid, pw.pw_gid


def _let_others_traverse(path: Path) -> None:
    """Add the search (x) bit for others to every parent folder of ``path`` that lacks it."""
    for parent in path.parents:
        if parent == Path("/"):
            break
        mode = parent.stat().st_mode
        if not mode & 0o001:
            os.chmod(parent, mode | 0o001)


class LocalPostgres:
    """One PostgreSQL cluster under ``base``; :meth:`start` / :meth:`stop` or ``with``."""

    def __init__(
        self, base: Path, port: int | None = None, settings: dict[str, str] | None = None,
        stop_mode: str = "fast",
    ):
        self.base = Path(base)
        self.data = self.base / "data"
        self.log = self.base / "postgres.log"
        self.port = port or free_port()
        self.settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.base),
            # A scratch cluster: durability is not the point, speed is.
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "100",
            **(settings or {}),
        }
        self.bin = pg_bin()
        # "immediate" skips the shutdown checkpoint: right for a cluster about to be deleted
        self.stop_mode = stop_mode
        self._ids: tuple[int, int] | None = None

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        kw: dict[str, object] = {}
        if self._ids is not None:
            kw = {"user": self._ids[0], "group": self._ids[1], "extra_groups": []}
        proc = subprocess.run(argv, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
        if proc.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{Path(argv[0]).name} failed ({proc.returncode}): {proc.stderr.strip()}\n{log}"
            )
        return proc

    def start(self) -> LocalPostgres:
        self.base.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            self._ids = _ensure_user()
            os.chown(self.base, *self._ids)
            # the unprivileged user must reach its data folder and the wheel's binaries
            # (a checkout under a 0700 folder, e.g. from mktemp -d, hides both)
            _let_others_traverse(self.base)
            _let_others_traverse(self.bin)
        if not (self.data / "PG_VERSION").exists():
            self._run(
                str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync",
            )
        opts = " ".join(f"-c {k}={v}" if v else f"-c {k}=''" for k, v in self.settings.items())
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
            "-t", str(START_TIMEOUT), "-o", f"-p {self.port} {opts}", "start",
        )
        return self

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", self.stop_mode, "-w", "stop")

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str, template: str = "template1") -> str:
        """CREATE DATABASE ``name`` (copied from ``template``); returns its URL."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(name), sql.Identifier(template)
                )
            )
        return self.url(name)
