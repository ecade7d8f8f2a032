"""Rate limits shared by the processes of one cache: the limiter state on real
files and locks, then parallel ``citeaudit fetch`` processes against the replay
registry with Crossref's limits enforced."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.http import HostLimits
from citeaudit.resolve.interface import ResolutionStatus
from citeaudit.resolve.ratelimit import MAX_AHEAD, SharedLimits
from tests.registry_server import RegistryServer
from tests.resolve.conftest import environment_of


class Wall:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def test_two_processes_take_turns_in_one_schedule(tmp_path: Path) -> None:
    """Two limiters on one directory (as two processes would be) share the start times."""
    wall = Wall()
    a, b = (
        SharedLimits(tmp_path, wall).route("crossref-single"),
        SharedLimits(tmp_path, wall).route("crossref-single"),
    )
    assert [a.reserve(4.0), b.reserve(4.0), a.reserve(4.0), b.reserve(4.0)] == [0.0, 0.25, 0.5, 0.75]
    wall.t += 2.0  # idle for a while: no debt is carried
    assert b.reserve(4.0) == 0.0
    assert (
        tmp_path / ".gitignore"
    ).read_text() == "# citeaudit's rate-limit state for this cache: not part of it\n*\n"


def test_a_process_that_wakes_late_waits_again(tmp_path: Path) -> None:
    """Reserved for t+0.25 but woken at t+0.4, right after the next one started: it waits."""
    wall = Wall()
    a, b = SharedLimits(tmp_path, wall).route("r"), SharedLimits(tmp_path, wall).route("r")
    assert (a.reserve(4.0), a.start_now(4.0)) == (0.0, 0.0)
    assert b.reserve(4.0) == 0.25
    wall.t += 0.4
    assert a.reserve(4.0) == pytest.approx(0.1)  # a's second slot, at t+0.5: a is late too
    wall.t += 0.1
    assert a.start_now(4.0) == 0.0  # a starts at t+0.5
    assert b.start_now(4.0) == pytest.approx(0.25)  # b woke late: not right after a
    wall.t += 0.25
    assert b.start_now(4.0) == 0.0


def test_a_429_rests_the_route_for_every_process(tmp_path: Path) -> None:
    wall = Wall()
    a, b = SharedLimits(tmp_path, wall).route("r"), SharedLimits(tmp_path, wall).route("r")
    a.rest(3.0)
    assert b.reserve(10.0) == 3.0
    assert a.reserve(10.0) == pytest.approx(3.1)


def test_a_stale_or_broken_state_is_not_waited_for(tmp_path: Path) -> None:
    wall = Wall()
    route = SharedLimits(tmp_path, wall).route("r")
    (tmp_path / "r.json").write_text(json.dumps({"next": wall.t + MAX_AHEAD + 3600}))  # a clock set back
    assert route.reserve(1.0) == 0.0
    (tmp_path / "r.json").write_text('{"next": 10')  # cut short by a crash
    assert route.reserve(1.0) == 0.0


def test_slots_bound_the_requests_in_flight_across_processes(tmp_path: Path) -> None:
    a, b = SharedLimits(tmp_path).route("r"), SharedLimits(tmp_path).route("r")
    first, second = a.try_slot(2), b.try_slot(2)
    assert first is not None
    assert second is not None
    assert a.try_slot(2) is None
    b.release(second)
    third = a.try_slot(2)
    assert third is not None
    a.release(first)
    a.release(third)


def test_a_killed_process_holds_no_slot(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from citeaudit.resolve.ratelimit import SharedLimits; "
         "assert SharedLimits(Path(sys.argv[1])).route('r').try_slot(1) is not None; "
         "print('held', flush=True); time.sleep(60)", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    route = SharedLimits(tmp_path).route("r")
    assert route.try_slot(1) is None
    holder.send_signal(signal.SIGKILL)
    holder.wait(30)
    slot = route.try_slot(1)
    assert slot is not None
    route.release(slot)


def test_host_limits_pace_through_the_shared_schedule(tmp_path: Path) -> None:
    """In-process limiters of two clients on one cache: each waits for the other's turns."""

    class Clock:
        def __init__(self, wall: Wall) -> None:
            self.wall, self.slept = wall, []  # type: ignore[var-annotated]

        def now(self) -> float:
            return self.wall.t

        async def sleep(self, seconds: float) -> None:
            self.slept.append(round(seconds, 6))
            self.wall.t += seconds

    wall = Wall()
    clock = Clock(wall)
    limits = [
        HostLimits(2.0, 1, clock, SharedLimits(tmp_path, wall).route("r")),
        HostLimits(2.0, 1, clock, SharedLimits(tmp_path, wall).route("r")),
    ]

    async def go() -> None:
        for limiter in limits * 2:
            slot = await limiter.acquire()
            await limiter.release(slot)

    asyncio.run(go())
    assert clock.slept == [0.5, 0.5, 0.5]  # one schedule: each start half a second after the last


# -- parallel processes against the replay registry ---------------------------------------------


def _fetch_in_parallel(server: RegistryServer, tmp_path: Path, dois: list[str], processes: int) -> list[str]:
    claims = tmp_path / "claims.json"
    items = [{"id": f"c{i}", "text": "t", "citations": [{"doi": d}]} for i, d in enumerate(dois)]
    claims.write_text(json.dumps({"claims": items}), "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")} | environment_of(server)
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "citeaudit",
                "fetch",
                str(claims),
                "--cache",
                str(tmp_path / "cache"),
                "--mailto",
                "tests@example.org",
            ],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    outputs = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        outputs.append(f"{run.returncode} {out.strip()} {err.strip()}".strip())
    return outputs


@pytest.mark.timeout(360)  # the fetches are bounded at 300 s
@pytest.mark.parametrize("route", ["batch", "single"])
def test_parallel_fetches_on_one_cache_keep_the_limits_together(
    replay: RegistryServer, tmp_path: Path, route: str
) -> None:
    """Four processes on one cache: Crossref's announced limits (10/s and 3 at a time on single
    lookups, 3/s and 1 at a time on the batch route) hold for all of them together."""
    works = sorted(replay.data.works)
    if route == "batch":
        existing = works[:160]  # four batch requests of 40 per process
    else:
        existing = works[:12]
        replay.fault("crossref-list", *["503"] * 20)  # every process's batch request fails: single lookups
    unregistered = "10.7554/elife.01567x"
    outputs = _fetch_in_parallel(replay, tmp_path, [*existing, unregistered], processes=4)
    cache = tmp_path / "cache"
    throttled = replay.count(status=429)
    entries = {d: DoiCache(cache).get(d) for d in existing}
    assert {d: e.status if e else None for d, e in entries.items()} == dict.fromkeys(
        existing, ResolutionStatus.FOUND
    )
    # Apart together they would draw 429s by the dozen (26 of 47 requests on the batch route, 32 of
    # 107 on the single one, measured before the limits were shared). Together, none on a quiet
    # machine; on a loaded one a request can reach the server late, bunched with the next, and
    # draw one 429, after which every process rests: never a storm.
    assert throttled <= 3, (throttled, len(replay.log))
    if route == "batch":
        summary = (
            f"dois={len(existing) + 1} found={len(existing)} not_found=1 could_not_check=0 cache={cache}"
        )
        assert outputs == [f"0 {summary}"] * 4
        assert DoiCache(cache).get(unregistered).status is ResolutionStatus.NOT_FOUND  # type: ignore[union-attr]
    else:  # the 404 came after the batch route's failure: could not check, not cached
        summary = (
            f"dois={len(existing) + 1} found={len(existing)} not_found=0 could_not_check=1 cache={cache}"
        )
        assert outputs == [f"3 {summary}"] * 4
        assert DoiCache(cache).get(unregistered) is None
