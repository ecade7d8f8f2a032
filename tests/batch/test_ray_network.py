"""The local Ray that ``citeaudit batch --engine ray`` starts opens no connection off this machine:
Ray's API server asked the cloud metadata addresses (169.254.169.254, and metadata.google.internal
through a DNS query) which cloud it ran on, with no Ray option to turn it off."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("ray", reason="the Ray engine needs the ray extra")

# A fresh process, Ray imported by the engine as by `citeaudit batch`. Before the engine shuts its
# Ray down: wait until the API server has logged that usage reporting is off (it asks the cloud,
# when it does, just before), and read the API server's plain-HTTP proxy from its environment
# (Linux's /proc).
_LOCAL_RAY = """
import json, time
from pathlib import Path
from citeaudit.batch.engines import ray_engine
from citeaudit.batch.wiring import WorkerSpec
from citeaudit.config import Config

seen = {}
imported = ray_engine._ray
def recording(*args, **kwargs):
    ray = imported(*args, **kwargs)
    shutdown = ray.shutdown
    def recorded(*args, **kwargs):
        node = ray._private.worker._global_node
        log = Path(node.get_logs_dir_path()) / "dashboard.log"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = log.read_text("utf-8", "replace") if log.exists() else ""
            if "Usage reporting is" in text:
                seen["asked"] = True
                break
            time.sleep(0.2)
        session = "--session-dir=" + node.get_session_dir_path()
        for proc in Path("/proc").iterdir():  # the API server of this Ray: its environment
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\\0")
                if any(a.endswith(b"dashboard/dashboard.py") for a in argv) and session.encode() in argv:
                    variables = dict(v.split(b"=", 1) for v in (proc / "environ").read_bytes().split(b"\\0") if b"=" in v)
                    seen["http_proxy"] = variables.get(b"http_proxy", b"").decode()
            except OSError:
                continue
        return shutdown(*args, **kwargs)
    ray.shutdown = recorded
    return ray
ray_engine._ray = recording
ray_engine.RayEngine(1).run(WorkerSpec(Config()), iter(()), lambda result: None)
print(json.dumps(seen))
"""


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads processes' environments in /proc")
@pytest.mark.timeout(170)
def test_a_local_ray_asks_no_cloud_metadata_address(tmp_path: Path) -> None:
    from citeaudit.batch.engines.ray_engine import NOWHERE

    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT / "src")}
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "grpc_proxy"):
        env.pop(name, None)
    command = [sys.executable, "-c", _LOCAL_RAY]
    strace = shutil.which("strace")
    trace = tmp_path / "connects"
    if strace is not None:  # every connect() of the process and its children
        command = [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *command]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=160)
    assert done.returncode == 0, done.stderr[-3000:]
    if strace is not None:
        lines = trace.read_text("utf-8", "replace").splitlines()
        inet = [line for line in lines if "connect(" in line and "sa_family=AF_INET" in line]
        assert inet  # the trace did record
        assert [line for line in inet if "127.0.0.1" not in line] == []  # 169.254.169.254, DNS: none
        assert any("htons(9)" in line for line in inet)  # the questions went to the loopback port
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"asked": True, "http_proxy": NOWHERE}
