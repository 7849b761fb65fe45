"""Benchmark: the scorer's one writer on a slow disk, with the WAL copied into the database by
a thread of its own (as the scorer runs) against the commits doing it (SQLite's own
autocheckpoint, the writer before: the floor), in the same run.

    .venv/bin/python bench/bench_writer.py [--fsync-ms 100] [--rate 200] [--duration 20]

Batches of a hand's 60 events (rows shaped as the store's) are handed to the writer at a
steady rate, as the tables' batches reach it, from one event loop; each batch's wait for its
durable answer is timed. An SD card or a cheap SSD takes ~100 ms to flush its cache:
`--fsync-ms` makes every fsync of this process wait that much more (bench/slow_fsync.c with
LD_PRELOAD, as in bench_scorer.py). The two ways run in turn, `--runs` times each; the figures
are medians of the runs, the load average beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kiosk.scorer.store.writer import Writer
from kiosk.sqlite import Database

HERE = Path(__file__).resolve().parent
EVENTS = 60  # a hand's batch
SCHEMA = ("CREATE TABLE IF NOT EXISTS events (table_number INTEGER, seq INTEGER, device TEXT, "
          "event TEXT, at REAL, prev TEXT, hash TEXT, PRIMARY KEY (table_number, seq))")


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def offer(writer: Writer, rate: float, duration: float) -> list[float]:
    """Hand batches to the writer at `rate` a second for `duration` s; each one's wait."""
    waits: list[float] = []
    seqs = [0] * 1000

    async def one(table: int) -> None:
        first = seqs[table]
        seqs[table] += EVENTS
        rows = [(table, first + i, "bench", '{"kind":"play","seat":"N","at":1.0}' * 4,
                 time.time(), os.urandom(32).hex(), os.urandom(32).hex())
                for i in range(EVENTS)]

        def job(db: Database) -> None:  # (its cursor ends on the writer's thread)
            db.conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

        started = time.perf_counter()
        await writer.run(job)
        waits.append(time.perf_counter() - started)

    tasks, begun = [], time.perf_counter()
    for n in range(int(rate * duration)):
        await asyncio.sleep(max(0.0, begun + n / rate - time.perf_counter()))
        tasks.append(asyncio.create_task(one(random.randrange(1000))))
    await asyncio.gather(*tasks)
    return waits


def run(way: str, rate: float, duration: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-writer-", dir=HERE) as tmp:
        path = Path(tmp) / "store.db"
        with contextlib.closing(sqlite3.connect(path)) as made:
            made.execute(SCHEMA)
        writer = Writer(path, checkpoint_every=None if way == "floor" else 1.0)
        waits = asyncio.run(offer(writer, rate, duration))
        writer.close()
        return {"p50": statistics.median(waits) * 1000, "p99": percentile(waits, 0.99) * 1000,
                "max": max(waits) * 1000, "per_commit": writer.jobs / writer.commits}


def child(args: argparse.Namespace) -> None:
    ways = {"floor": "the commits copy the WAL (SQLite's autocheckpoint; the floor)",
            "ours": "a thread of its own copies the WAL (the scorer's writer)"}
    results: dict[str, list[dict[str, float]]] = {way: [] for way in ways}
    for _ in range(args.runs):
        for way in ways:
            results[way].append(run(way, args.rate, args.duration))
    print(f"{args.rate:g} batches/s of {EVENTS} events for {args.duration:g} s, an fsync "
          f"slowed by {args.fsync_ms:g} ms; median of {args.runs} runs each; {load()}")
    medians = {}
    for way, said in ways.items():
        medians[way] = {k: statistics.median(r[k] for r in results[way]) for k in results[way][0]}
        m = medians[way]
        print(f"  {said}:\n    a batch's wait p50 {m['p50']:.0f} ms, p99 {m['p99']:.0f} ms, "
              f"max {m['max']:.0f} ms; {m['per_commit']:.1f} batches a commit")
    print(f"  p99 ratio {medians['ours']['p99'] / medians['floor']['p99']:.2f} of the floor's")


def main() -> None:
    parser = argparse.ArgumentParser(description="the scorer's writer on a slow disk")
    parser.add_argument("--fsync-ms", type=float, default=100.0)
    parser.add_argument("--rate", type=float, default=200.0, help="batches a second")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    with tempfile.TemporaryDirectory(prefix="bench-writer-") as build:
        library = Path(build) / "slow_fsync.so"
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(library),
                        str(HERE / "slow_fsync.c"), "-ldl"], check=True)
        env = {**os.environ, "LD_PRELOAD": str(library), "SLOW_FSYNC_MS": str(args.fsync_ms)}
        subprocess.run([sys.executable, __file__, "--child", *sys.argv[1:]], env=env,
                       check=True)


if __name__ == "__main__":
    main()
