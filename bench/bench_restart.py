"""Benchmark: the scorer restarted late in a national final.

    .venv/bin/python bench/bench_restart.py [--teams 400] [--played 9] [--cache DIR]

The store of a 400-team Swiss event after 9 rounds (bench/big_event.py: real recorded table
journals, ~1.1 M events; built once and kept in --cache). The real scorer (`kiosk scorer`,
its own process) is started on a copy of it, and the time from launching it to the first
answer of GET /api/hall (the hall page's first paint: every match folded, the standings) is
measured:

  floor   the same scorer on a store with only the event in it
  cold    no checkpoint (the first start, or a store restored from a backup): every event
          folded from the first
  warm    after a clean stop (the checkpoint written as it stopped)
  killed  after a SIGKILL, with a minute of the hall's play (the next round started and
          60 events a table) posted since the last checkpoint

Prints each (median of --repeat), and warm and killed as ratios to the floor and to the aim
of 3 s. Then, in this process, the heap of a scorer serving that event (every match folded,
the hall's frame built) and what the garbage collector holds the event loop for at that size
(kiosk/scorer/net/heap.py): its sweep every 10 minutes, against a full collection as the
interpreter runs one every few seconds under load when nothing is frozen (median of 5). And
the event loop's longest wait while the folds' checkpoint of every match is taken and written:
as the server takes it every minute (a table at a time, written in a thread), against the
whole taken at once on the loop, as the server did before and still does as it stops.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_scorer
import big_event
import httpx
from bench_scorer import Scorer, kiosk, load

from kiosk.rules import Rulesets
from kiosk.scorer.director import CHECKPOINT_NAME, Director
from kiosk.scorer.hall.feed import HallFeed
from kiosk.scorer.net import heap
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import checkpoint, save_checkpoint

ROOT = Path(__file__).resolve().parent.parent


def first_answer(data: Path) -> tuple[float, Scorer]:
    """Seconds from launching the scorer to its first 200 for GET /api/hall."""
    scorer = Scorer(data)
    scorer.start(timeout=300)
    with httpx.Client(timeout=60) as client:
        client.get(scorer.url + "/api/hall").raise_for_status()
    return time.monotonic() - scorer.launched, scorer


def main() -> None:
    parser = argparse.ArgumentParser(description="the scorer's restart late in an event")
    parser.add_argument("--teams", type=int, default=400)
    parser.add_argument("--played", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--quick", action="store_true", help="40 teams, 3 rounds, once")
    args = parser.parse_args()
    bench_scorer.TLS = False  # plain HTTP, as the floor (bench_scorer measures TLS' cost)
    teams, played = (40, 3) if args.quick else (args.teams, args.played)
    repeat = 1 if args.quick else args.repeat
    source = big_event.cached(args.cache, teams, played + 1, played)
    events = big_event.count_events(source / "scorer.sqlite")
    print(f"{teams} teams, {played} rounds played, {events:,} events; {load()}")
    times: dict[str, list[float]] = {"floor": [], "cold": [], "warm": [], "killed": []}
    with tempfile.TemporaryDirectory(dir=args.cache) as tmp:
        base = Path(tmp)
        for i in range(repeat):
            empty = base / f"empty{i}"
            kiosk("scorer", "admin", "--data", str(empty), "event", "--name", "Bench",
                  "--ruleset", "xiamen-2015")
            took, scorer = first_answer(empty)
            scorer.stop()
            times["floor"].append(took)

            data = base / f"event{i}"
            shutil.copytree(source, data)
            (data / CHECKPOINT_NAME).unlink(missing_ok=True)
            took, scorer = first_answer(data)
            times["cold"].append(took)
            scorer.stop()  # a clean stop writes the checkpoint
            took, scorer = first_answer(data)
            times["warm"].append(took)
            assert scorer.process is not None
            scorer.process.kill()  # a power cut …
            scorer.process.wait()
            big_event.play_on(data / "scorer.sqlite", 60)  # … a minute after the checkpoint
            took, scorer = first_answer(data)
            times["killed"].append(took)
            scorer.stop()
            shutil.rmtree(data)
    floor = statistics.median(times["floor"])
    for name, values in times.items():
        median = statistics.median(values)
        ratio = "" if name == "floor" else f"; {median / floor:.1f}× the floor"
        aim = f"; {median / 3.0:.2f} of the 3 s aim" if name in ("warm", "killed") else ""
        print(f"  {name:<7} first answer of /api/hall {median:6.2f} s{ratio}{aim} "
              f"({', '.join(f'{v:.2f}' for v in values)})")
    collector_pauses(source, args.cache)


def collector_pauses(source: Path, cache: Path) -> None:
    """The garbage collector's pauses with the event's folds and hall frame in this heap."""
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        data = Path(tmp) / "event"
        shutil.copytree(source, data)
        director = Director(Store(data / "scorer.sqlite"), Rulesets.load([]))
        director.fold(0)  # every event (the cache keeps no checkpoint)
        HallFeed(director, "http://127.0.0.1/").current()
        checkpoint_stalls(director)
        heap.settle()
        tracked = len(gc.get_objects()) + gc.get_freeze_count()

        def pause(collect: Callable[[], Any]) -> float:
            times = []
            for _ in range(5):
                started = time.perf_counter()
                collect()
                times.append(time.perf_counter() - started)
            return statistics.median(times) * 1000

        sweep = pause(heap.sweep)
        heap.thaw()
        whole = pause(gc.collect)
        director.store.close()
    print(f"  garbage collector, {tracked:,} objects: the scorer's sweep (every "
          f"{heap.SWEEP_EVERY / 60:g} min) holds the loop {sweep:.0f} ms; a full collection "
          f"with nothing frozen {whole:.0f} ms")


def checkpoint_stalls(director: Director) -> None:
    """The loop's longest wait (a task asking to wake every millisecond) while a checkpoint
    of every match is taken and written (the first after a cold start: the largest)."""

    async def stall(take: Callable[[], Any]) -> tuple[float, float]:
        director.folds.saved.clear()  # (every match again)
        director.checkpoint_path.unlink(missing_ok=True)
        lags: list[float] = []

        async def probe() -> None:
            while True:
                asked = time.perf_counter()
                await asyncio.sleep(0.001)
                lags.append(time.perf_counter() - asked - 0.001)

        task = asyncio.create_task(probe())
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        result = take()
        if asyncio.iscoroutine(result):
            await result
        took = time.perf_counter() - started
        await asyncio.sleep(0.05)
        task.cancel()
        return max(lags) * 1000, took

    matches = sum(len(f.matches) for f in director.folds.tables.values())
    whole, whole_took = asyncio.run(stall(lambda: save_checkpoint(director)))
    steps, steps_took = asyncio.run(stall(lambda: checkpoint(director)))
    print(f"  checkpoint of {matches:,} matches, {len(director.folds.tables)} tables: the loop "
          f"waited at most {steps:.0f} ms as the server takes it (a table at a time, written "
          f"in a thread; {steps_took:.2f} s in all), against {whole:.0f} ms taken at once "
          f"({whole_took:.2f} s)")


if __name__ == "__main__":
    main()
