"""A throwaway PostgreSQL cluster on loopback for the store tests.

Started from the PostgreSQL binaries the Makefile installs (Debian's
``postgresql`` package); as root, the server runs as the ``postgres`` user,
since PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PostgresCluster", "postgres_bin"]


def postgres_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresCluster:
    def __init__(self) -> None:
        bindir = postgres_bin()
        if bindir is None:
            raise RuntimeError(
                "PostgreSQL is not installed; `make test` installs Debian's postgresql package"
            )
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="citeaudit-pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]

    def _run(self, *argv: str) -> None:
        subprocess.run([*self.prefix, *argv], check=True, capture_output=True, timeout=120)

    def start(self) -> str:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "citeaudit", "--auth=trust",
                  "-E", "UTF8", "--no-locale")  # fmt: skip
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
                  str(self.root / "log"), "-w", "start")  # fmt: skip
        return f"postgresql://citeaudit@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
