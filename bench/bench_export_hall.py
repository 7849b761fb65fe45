"""Benchmark: the hall while people download the public exports during a round (issue 15).

    .venv/bin/python bench/bench_export_hall.py [--teams 1000] [--played 3] [--clients 8]
                                                [--seconds 20] [--path /api/export/sheets.txt]
                                                [--cache DIR]

A Swiss event of --teams teams with --played rounds played hand by hand (bench/big_event.py,
built once and kept in --cache), served by the real scorer (`kiosk scorer`, its own process,
plain HTTP on loopback). The next round is started and played: every 0.25 s a fifth of the
tables get their next five events, written into the store by another connection as the
kiosks' batches would land, so the store's version moves four times a second. A probe asks
for the hall page's snapshot (`/api/hall`) every 0.1 s:

  - while the round is played and nobody downloads anything (the floor);
  - while --clients clients download --path over and over (any public page; every public
    export is the whole event: at 1,000 teams, sheets.txt is 2.2 MB of 1,500 replayed sheets);

and prints both latencies (p50 / p99 / max), their ratio at p99, how many downloads were
served and refused (503: wait), and the events written meanwhile.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
import urllib.error
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import big_event  # noqa: E402
from bench_print_hall import get, p99, probe, summary  # noqa: E402

from kiosk.scorer.director import Director  # noqa: E402
from kiosk.scorer.store.database import Store  # noqa: E402

TICK = 0.25  # seconds between two landings of kiosks' events
SHARE = 5  # a fifth of the tables each time
EVENTS = 5  # events a table sends at a time


class Round:
    """The next round, started, and its tables' events written a few at a time in a thread."""

    def __init__(self, path: Path) -> None:
        rulesets = big_event.Rulesets.load([])
        self.director = Director(Store(path), rulesets)
        last = big_event.last_events(self.director)
        self.number = self.director.start_round(0)
        self.pending = big_event.round_rows(self.director, self.number,
                                            big_event.record_journals(3, rulesets), last,
                                            random.Random(3))
        self.written = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._play)

    def _play(self) -> None:
        tables, tick = list(self.pending), 0
        while not self.stop.is_set():
            rows = []
            for table in tables[tick % SHARE::SHARE]:
                rows += self.pending[table][:EVENTS]
                del self.pending[table][:EVENTS]
            tick += 1
            big_event.write_rows(self.director.store, rows)
            self.written += len(rows)
            self.stop.wait(TICK)

    def __enter__(self) -> Round:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.director.store.close()


def downloads(url: str, clients: int, stop: threading.Event
              ) -> tuple[list[int], list[threading.Thread]]:
    """`clients` threads asking for `url` one download after another until `stop`; the
    counts of [served, refused] fill in as they go."""
    counts = [0, 0]

    def client() -> None:
        while not stop.is_set():
            try:
                get(url, timeout=120)
                counts[0] += 1
            except urllib.error.HTTPError:  # 503: told to wait, as a person would
                counts[1] += 1
                stop.wait(1)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    return counts, threads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teams", type=int, default=1000)
    parser.add_argument("--played", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--path", default="/api/export/sheets.txt")
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    args = parser.parse_args()
    with big_event.served(args.cache, args.teams, args.played) as scorer:
        return measure(scorer.url, scorer.data / "scorer.sqlite", args)


def measure(url: str, store: Path, args: argparse.Namespace) -> int:
    with Round(store) as played:
        print(f"event: {args.teams} teams, round {played.number} being played "
              f"({len(played.pending)} tables, {EVENTS} events from every {SHARE}th table "
              f"each {TICK} s)")
        floor = probe(url, time.monotonic() + args.seconds / 2)
        print(f"/api/hall, nobody downloading (floor): {summary(floor)}")
        stop = threading.Event()
        counts, clients = downloads(url + args.path, args.clients, stop)
        time.sleep(1)
        busy = probe(url, time.monotonic() + args.seconds)
        stop.set()
        for client in clients:
            client.join()
        print(f"/api/hall, {args.clients} clients downloading {args.path}: {summary(busy)}")
        print(f"  p99 ratio to the floor {p99(busy) / p99(floor):.1f}; downloads served "
              f"{counts[0]}, told to wait {counts[1]}; events written {played.written:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
