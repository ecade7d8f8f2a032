"""Benchmark: the HTTP API under a bounded load from a second process on
loopback — 50 concurrent clients for 30 s of deterministic audits of a
10-claim response — next to the same audit called in-process.

The server is ``citeaudit serve`` (one uvicorn process); the load comes from
a separate Python process with 50 concurrent httpx clients. Both stop by
themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.conftest import GOLDEN

from citeaudit.api import audit as api_audit
from citeaudit.service.http import hash_key

LOAD = """
import asyncio, json, sys, time
import httpx
url, key, seconds, clients, body = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
payload = open(body, "rb").read()
lat, codes = [], {}
async def worker(stop):
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": "Bearer " + key,
                                 "content-type": "application/json"}, timeout=30) as c:
        while time.monotonic() < stop:
            t = time.perf_counter()
            r = await c.post("/v1/audit", content=payload)
            lat.append(time.perf_counter() - t)
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
async def main():
    stop = time.monotonic() + seconds
    start = time.perf_counter()
    await asyncio.gather(*(worker(stop) for _ in range(clients)))
    print(json.dumps({"latencies": lat, "codes": codes, "seconds": time.perf_counter() - start}))
asyncio.run(main())
"""


def _answer() -> dict[str, Any]:
    """Ten claims citing the seed's work, seven of them correct, three with the seed's mistakes."""
    claims = json.loads((GOLDEN / "seed000" / "claims.json").read_text("utf-8"))["claims"]
    good, bad = claims[0], claims[1]
    out = []
    for i in range(10):
        claim = json.loads(json.dumps(bad if i % 3 == 2 else good))
        claim["id"] = f"c{i}"
        out.append(claim)
    return {"claims": out}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(quick: bool = False) -> dict[str, Any]:
    seconds, clients = (5.0, 10) if quick else (30.0, 50)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(GOLDEN / "seed000", root / "seed")
        body = root / "answer.json"
        body.write_text(json.dumps(_answer(), ensure_ascii=False), "utf-8")
        key = "bench-key"
        (root / "keys.toml").write_text(
            f'[[key]]\nsha256 = "{hash_key(key)}"\ntenant = "bench"\nrole = "auditor"\n'
        )

        # In-process baseline: the same audit, called directly.
        in_process = []
        stop = time.monotonic() + min(seconds, 10.0)
        while time.monotonic() < stop:
            t = time.perf_counter()
            api_audit(
                json.loads(body.read_text("utf-8")),
                cache=root / "seed" / "cache",
                sources=root / "seed" / "sources",
            )
            in_process.append(time.perf_counter() - t)

        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "citeaudit", "serve", "--store", str(root / "s.db"), "--keys", str(root / "keys.toml"),
             "--cache", str(root / "seed" / "cache"), "--sources", str(root / "seed" / "sources"), "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy(),
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            load = subprocess.run(
                [sys.executable, "-c", LOAD, f"http://127.0.0.1:{port}", key, str(seconds), str(clients), str(body)],
                capture_output=True, text=True, check=True, timeout=seconds + 120,
            )  # fmt: skip
        finally:
            server.terminate()
            server.wait(timeout=20)
    result = json.loads(load.stdout)
    lat = sorted(result["latencies"])
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    inp = sorted(in_process)
    return {
        "clients": clients,
        "seconds": result["seconds"],
        "requests": len(lat),
        "status_codes": result["codes"],
        "service_rps": len(lat) / result["seconds"],
        "service_p50_ms": statistics.median(lat) * 1000,
        "service_p99_ms": p99 * 1000,
        "in_process_per_second": len(inp) / sum(inp),
        "in_process_p50_ms": statistics.median(inp) * 1000,
        "in_process_p99_ms": inp[min(len(inp) - 1, int(len(inp) * 0.99))] * 1000,
    }


def markdown(r: dict[str, Any]) -> str:
    overhead = r["in_process_per_second"] / r["service_rps"]
    return "\n".join(
        [
            f"{r['clients']} concurrent clients in a second process for {r['seconds']:.0f} s on loopback, each "
            "posting the same 10-claim answer (7 correct claims, 3 with the seed's mistakes) to `POST /v1/audit` "
            "of `citeaudit serve` (one uvicorn process; SQLite store; every report stored).",
            "",
            "| | audits/s | p50 (ms) | p99 (ms) |",
            "|---|---:|---:|---:|",
            f"| HTTP service | {r['service_rps']:.0f} | {r['service_p50_ms']:.1f} | {r['service_p99_ms']:.1f} |",
            f"| in-process `citeaudit.audit()` (one caller) | {r['in_process_per_second']:.0f} | "
            f"{r['in_process_p50_ms']:.2f} | {r['in_process_p99_ms']:.2f} |",
            "",
            f"Status codes: {r['status_codes']}; {r['requests']:,} requests. In-process throughput ÷ service "
            f"throughput = {overhead:.2f} (the service's overhead: HTTP, JSON, storing the report; the load "
            "generator shares the 2 CPUs with the server). The p50/p99 of the service include queueing behind "
            f"{r['clients']} concurrent clients.",
        ]
    )
