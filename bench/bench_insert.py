"""Benchmark: a hand's batch kept by the scorer's writer while the event loop is busy, the
store's insert against `executemany` (the way before: the floor), in the same run.

    .venv/bin/python bench/bench_insert.py [--batches 100] [--runs 3]

`Store.apply` runs on the scorer's own `Writer` (its thread, its group commit) for batches of a
hand's 60 events, one after another, as the tables' batches reach it. Beside it, first nothing
and then a thread that keeps the interpreter busy in Python, as the server's event loop does
under load. sqlite3 lets go of the interpreter's lock while SQLite works on each statement, and
the writer's thread then waits for it to come back: up to the switch interval (5 ms) each time
a busy thread holds it. `executemany` steps once for every row; the store inserts a batch in a
few statements (`_insert_events`). Prints the median wall time and the writer thread's CPU time
a batch, for each way, idle and busy, and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest.mock import patch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kiosk.protocol.chain import event_hash  # noqa: E402
from kiosk.scorer.store import database  # noqa: E402
from kiosk.scorer.store.database import Row, Store, rows_of  # noqa: E402

EVENTS = 60  # a hand's batch


def executemany(conn: sqlite3.Connection, rows: list[Row]) -> int:
    """The way before: one statement run once for every row."""
    conn.executemany(f"INSERT INTO events ({database.ROW_COLUMNS}) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return int(conn.execute("SELECT last_insert_rowid()").fetchone()[0])


WAYS: dict[str, Callable[[sqlite3.Connection, list[Row]], int]] = {
    "executemany (the floor)": executemany,
    "the store's insert": database._insert_events,
}


def batches(count: int) -> Iterator[tuple[int, list[Row]]]:
    """`count` batches of EVENTS chained events, round the tables 1–50."""
    prev: dict[int, str] = {}
    for n in range(count):
        table, first = n % 50 + 1, n // 50 * EVENTS + 1
        events = []
        for seq in range(first, first + EVENTS):
            e = {"device": f"kiosk-{table}", "seq": seq, "match": "1", "kind": "press",
                 "data": {"seat": "N", "overrun_ids": []}, "mono": 1000.0 + seq,
                 "wall": 1.79e9 + seq, "actor": "seat:N", "prev": prev.get(table, "")}
            prev[table] = event_hash(e)
            events.append(e)
        yield table, rows_of(table, events)


@contextlib.contextmanager
def busy(on: bool) -> Iterator[None]:
    """A thread running Python all along (the event loop under load), when `on`."""
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))

    thread = threading.Thread(target=spin, daemon=True)
    if on:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        if on:
            thread.join()


def run(insert: Callable[..., int], loaded: bool, count: int) -> tuple[float, float]:
    """Median wall and writer-thread CPU seconds a batch."""
    walls: list[float] = []
    cpus: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-insert-", dir=ROOT / "bench") as tmp:
        store = Store(Path(tmp) / "scorer.sqlite")
        try:
            async def keep_all() -> None:
                for table, rows in batches(count):
                    def job(db: database.Database, table: int = table,
                            rows: list[Row] = rows) -> tuple[float, float]:
                        started = time.thread_time()
                        store.apply(db, table, rows, time.time())
                        return started, time.thread_time()

                    began = time.perf_counter()
                    started, ended = await store.writer().run(job)
                    walls.append(time.perf_counter() - began)
                    cpus.append(ended - started)

            # (the store's own `apply`, with this way's insert in it)
            with busy(loaded), patch.object(database, "_insert_events", insert):
                asyncio.run(keep_all())
        finally:
            store.close()
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    figures: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        for loaded in (False, True):
            for way, insert in WAYS.items():
                figures.setdefault((way, loaded), []).append(run(insert, loaded, args.batches))
    print(f"{args.batches} batches of {EVENTS} events kept by the writer, median of "
          f"{args.runs} runs; load average {os.getloadavg()[0]:.1f}")
    medians = {key: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
               for key, runs in figures.items()}
    for loaded in (False, True):
        print("  with a busy thread beside it:" if loaded else "  the interpreter idle:")
        for way in WAYS:
            wall, cpu = medians[(way, loaded)]
            print(f"    {way:24} {wall * 1e3:8.2f} ms a batch, its CPU {cpu * 1e6:5.0f} µs")
        (floor, floor_cpu), (ours, ours_cpu) = (medians[(way, loaded)] for way in WAYS)
        print(f"    ratio to the floor: wall {ours / floor:.2f}, CPU {ours_cpu / floor_cpu:.2f}")


if __name__ == "__main__":
    main()
