"""Benchmark: Swiss pairing of a national final, and the scorer's reads while it pairs.

    .venv/bin/python bench/bench_pairing.py [--quick] [--cache DIR]

1. Pairing (in-process, `tournament.swiss_pairing`): a 9-round event of 400 and of 800 teams
   (40 units of random size; random results), each round paired as the scorer does: the sparse
   graph proved optimal, else the complete graph. The floor is rustworkx's matching of the
   same field on the complete graph alone (what the sparse graph saves); the aims are 1 s a
   round at 400 teams and 5 s at 800.
2. /api/standings while a round is being paired: the real scorer (`kiosk scorer`) on the
   store of a 400-team event after 9 of 10 rounds (bench/big_event.py); the next round's
   preview is paired in the scorer's worker process whenever the results change. The bench
   changes a result (a ruling on a round-9 match, put and taken away) every 2 s for the run,
   while a client asks /api/standings one request after another; the floor is the same run
   without the changes (nothing to pair). p50/p99 of each, the ratio, and the worker's CPU.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import bench_scorer
import big_event
import httpx
import numpy as np
from bench_scorer import Scorer, cpu_seconds, load, ms, percentile

from kiosk.scorer.director import CHECKPOINT_NAME
from kiosk.scorer.tournament import swiss as pairing
from kiosk.scorer.tournament.core import Result, Team, standings, swiss_pairing

ROOT = Path(__file__).resolve().parent.parent


def event(n: int, rounds: int, seed: int = 1) -> Iterator[tuple[float, float, bool, int]]:
    """Each round's seconds to pair it, seconds on the complete graph alone, whether the
    sparse graph was proved optimal, and its rematches."""
    rng = random.Random(seed)
    teams = [Team(f"t{i:04d}", unit=f"u{min(int(rng.expovariate(1 / 12)), 39):02d}")
             for i in range(n)]
    results: list[Result] = []
    for round_no in range(1, rounds + 1):
        started = time.perf_counter()
        found = swiss_pairing(teams, results, round_no, seed)
        took = time.perf_counter() - started
        order = [s.team for s in standings(teams, results)]
        if round_no == 1:
            random.Random(seed).shuffle(order)
        played = {frozenset((r.a, r.b)) for r in results if r.b is not None}
        unit = {t.id: t.unit for t in teams}
        started = time.perf_counter()
        matrix = pairing.costs(order, played, unit)
        allowed = matrix < pairing.Tiers(n).rematch
        np.fill_diagonal(allowed, False)
        pairing._solve(matrix, allowed)
        complete = time.perf_counter() - started
        proved = pairing.cheapest(order, played, unit).proved_sparse
        yield took, complete, proved, found.rematches
        for a, b in found.pairs:
            winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
            net = rng.randint(0, 12)
            results.append(Result(round_no, a, b, winner, {winner: 3, loser: 0},
                                  {winner: net, loser: -net}))


def pairing_times(sizes: list[int], rounds: int) -> None:
    for n in sizes:
        runs = list(event(n, rounds))
        ours = [r[0] for r in runs[1:]]  # round 1 is a draw, not a matching by standings
        complete = [r[1] for r in runs[1:]]
        aim = 1.0 if n <= 400 else 5.0
        print(f"Swiss pairing, {n} teams, rounds 2–{rounds}: median {ms(statistics.median(ours))}"
              f", max {ms(max(ours))} a round (aim ≤ {aim:g} s: {max(ours) / aim:.2f} of it); "
              f"complete graph alone {ms(statistics.median(complete))} (floor; ratio "
              f"{statistics.median(ours) / statistics.median(complete):.2f}); sparse graph "
              f"proved optimal in {sum(r[2] for r in runs[1:])} of {len(runs) - 1} rounds; "
              f"rematches {sum(r[3] for r in runs)}")


def standings_while_pairing(source: Path, seconds: float, base: Path) -> None:
    figures: dict[str, tuple[list[float], float]] = {}
    for name, change in (("floor (nothing to pair)", False), ("pairing", True)):
        data = base / name.split()[0]
        shutil.copytree(source, data)
        (data / CHECKPOINT_NAME).unlink(missing_ok=True)
        scorer = Scorer(data)
        scorer.start(timeout=300)
        try:
            with httpx.Client(timeout=60) as client:  # the first preview, then steady state
                client.get(scorer.url + "/api/hall").raise_for_status()
            time.sleep(3.0)
            assert scorer.process is not None
            worker_cpu = sum(cpu_seconds(p) for p in children(scorer.process.pid))
            stop = threading.Event()
            toggler = threading.Thread(target=toggle_ruling, args=(data, stop), daemon=True)
            if change:
                toggler.start()
            latencies = []
            with httpx.Client(timeout=60) as client:
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline:
                    started = time.perf_counter()
                    client.get(scorer.url + "/api/standings").raise_for_status()
                    latencies.append(time.perf_counter() - started)
            stop.set()
            worker_cpu = sum(cpu_seconds(p) for p in children(scorer.process.pid)) - worker_cpu
            figures[name] = (latencies, worker_cpu)
        finally:
            scorer.stop()
    floor = percentile(figures["floor (nothing to pair)"][0], .99)
    for name, (latencies, cpu) in figures.items():
        print(f"  /api/standings, {name}: {len(latencies)} requests, p50 "
              f"{ms(percentile(latencies, .5))}, p99 {ms(percentile(latencies, .99))} "
              f"(aim < 100 ms); the pairing worker's CPU {cpu:.1f} s")
    ours = percentile(figures["pairing"][0], .99)
    print(f"  p99 ratio to the floor {ours / floor:.2f}; {load()}")


def children(pid: int) -> list[int]:
    """The processes started by `pid` (the scorer's pairing worker)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def toggle_ruling(data: Path, stop: threading.Event) -> None:
    """Every 2 s a result changes: a ruling on a round-9 match (one side, then none, then the
    other side) as the head referee's command would make it, from another connection."""
    conn = sqlite3.connect(str(data / "scorer.sqlite"), isolation_level=None, timeout=30)
    table = conn.execute("SELECT min(table_number) FROM assignments WHERE round = "
                         "(SELECT max(number) FROM rounds)").fetchone()[0]
    round_no = conn.execute("SELECT max(number) FROM rounds").fetchone()[0]
    turn = 0
    while not stop.wait(2.0):  # NS loses, then no ruling, then EW loses …: each a new result
        conn.execute("DELETE FROM rulings WHERE reason = 'bench'")
        if turn % 2 == 0:
            conn.execute("INSERT INTO rulings (round, table_number, kind, loser, data, reason, "
                         "at) VALUES (?, ?, 'forfeit', ?, '{\"net\": 0}', 'bench', ?)",
                         [round_no, table, "NS" if turn % 4 == 0 else "EW", time.time()])
        turn += 1
    conn.execute("DELETE FROM rulings WHERE reason = 'bench'")
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description="Swiss pairing at national-final scale")
    parser.add_argument("--quick", action="store_true", help="100 and 200 teams, 4 rounds")
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    bench_scorer.TLS = False  # plain HTTP, as the floor (bench_scorer measures TLS' cost)
    print(f"{os.cpu_count()} CPUs; {load()}")
    if args.quick:
        pairing_times([100, 200], 4)
    else:
        pairing_times([400, 800], 9)
    teams, played = (40, 3) if args.quick else (400, 9)
    source = big_event.cached(args.cache, teams, played + 1, played)
    print(f"/api/standings while the scorer pairs round {played + 1} of {teams} teams "
          f"({args.seconds:g} s each):")
    with tempfile.TemporaryDirectory(dir=args.cache) as tmp:
        standings_while_pairing(source, args.seconds, Path(tmp))


if __name__ == "__main__":
    main()
