"""Benchmark: replay of random hands through the rules core and through `kiosk replay`.

    .venv/bin/python bench/bench_rules.py [--hands 10000] [--repeat 5] [--seed 1]

Prints hands per second (median of the repeats) for:
  fold         TeamMatch.play over prepared HandEntry values (what the session and scorer call)
  replay       kiosk.rules.replay over JSON records (parsing and validation included)
  cli          `kiosk replay` of one long record in one process (start-up included, shown apart)
  cli/record   `kiosk replay` once per match record (a process per match)
and each as a ratio to the 30,000 hands/s the scorer needs to recompute a 200-table event.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kiosk.rules import HandEntry, KittyEntry, PenaltyEntry, Ruleset, Rulesets, TeamMatch, replay

TARGET = 30_000
TEAM_IDS = ("xiamen-2015", "standard-80fen", "chaodipi-2011")
SHAPES = ("single", "pair", "pairs2", "tractor2", "tractor3")


def random_hand(rng: random.Random, ruleset: Ruleset, penalty_codes: list[str], dealer: str,
                points: int) -> dict[str, Any]:
    hand: dict[str, Any] = {"points": points}
    if rng.random() < 0.3:
        hand["kitty"] = {"points": rng.randrange(0, min(80, 200 - points) // 5 + 1) * 5,
                         "shape": rng.choice(SHAPES)}
    if rng.random() < 0.1:
        code = rng.choice(penalty_codes)
        penalty = {"code": code, "seat": rng.choice(ruleset.seats_for(code, dealer))}
        default = ruleset.penalties[code].default
        if default is not None and default.per_card:
            penalty["cards"] = rng.randint(1, 3)
        hand["penalties"] = [penalty]
    return hand


def to_entry(hand: dict[str, Any]) -> HandEntry:
    kitty = hand.get("kitty")
    return HandEntry(
        points=hand["points"],
        kitty=KittyEntry(kitty["points"], kitty["shape"]) if kitty else None,
        penalties=tuple(PenaltyEntry(p["code"], p["seat"], cards=p.get("cards"))
                        for p in hand.get("penalties", ())))


def make_records(rulesets: Rulesets, total: int, rng: random.Random,
                 points: Callable[[], int]) -> list[dict[str, Any]]:
    """Whole matches, each played until a winner, until `total` hands are made."""
    records: list[dict[str, Any]] = []
    made = 0
    while made < total:
        ruleset = rulesets[rng.choice(TEAM_IDS)]
        codes = sorted(c for c, p in ruleset.penalties.items()
                       if p.default is not None and p.default.effect == "points")
        first = rng.choice("NESW")
        state = TeamMatch.start(ruleset, first)
        hands = []
        while state.winner is None and made < total:
            assert state.next_dealer is not None  # no redeals here: the dealer is known
            hand = random_hand(rng, ruleset, codes, state.next_dealer, points())
            state, _ = state.play(to_entry(hand))
            hands.append(hand)
            made += 1
        records.append({"ruleset": ruleset.id, "first_dealer": first, "hands": hands})
    return records


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report(name: str, hands: int, seconds: float) -> None:
    rate = hands / seconds
    print(f"  {name:<11} {rate:>12,.0f} hands/s   {rate / TARGET:6.2f}× the 30,000 target")


def kiosk_replay(path: Path) -> None:
    subprocess.run([sys.executable, "-m", "kiosk.cli.main", "replay", str(path)], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description="rules core replay benchmark")
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rulesets = Rulesets.load()
    rng = random.Random(args.seed)
    records = make_records(rulesets, args.hands, rng, lambda: rng.randrange(0, 41) * 5)
    hands = sum(len(r["hands"]) for r in records)
    print(f"{hands} random hands in {len(records)} whole matches "
          f"(seed {args.seed}; median of {args.repeat} runs)")

    prepared = [(rulesets[r["ruleset"]], r["first_dealer"], [to_entry(h) for h in r["hands"]])
                for r in records]

    def fold() -> None:
        for ruleset, first, entries in prepared:
            state = TeamMatch.start(ruleset, first)
            for entry in entries:
                state, _ = state.play(entry)

    def replay_all() -> None:
        for record in records:
            for _ in replay(record, rulesets):
                pass

    report("fold", hands, median_seconds(fold, args.repeat))
    report("replay", hands, median_seconds(replay_all, args.repeat))

    with tempfile.TemporaryDirectory() as tmp:
        # One long match of take-overs at +0 (80–95), so nobody wins before the end.
        long_hands = args.hands
        long = {"ruleset": "xiamen-2015", "first_dealer": "N",
                "hands": [{"points": rng.randrange(16, 20) * 5} for _ in range(long_hands)]}
        long_path = Path(tmp, "long.json")
        long_path.write_text(json.dumps(long))
        empty = Path(tmp, "empty.json")
        empty.write_text(json.dumps({"ruleset": "xiamen-2015", "hands": []}))
        startup = median_seconds(lambda: kiosk_replay(empty), args.repeat)
        whole = median_seconds(lambda: kiosk_replay(long_path), args.repeat)
        print(f"  cli start-up {startup * 1000:8.0f} ms (an empty record)")
        report("cli", long_hands, whole)
        report("cli-startup", long_hands, max(whole - startup, 1e-9))

        sample = records[:50]
        paths = []
        for i, record in enumerate(sample):
            path = Path(tmp, f"m{i}.json")
            path.write_text(json.dumps(record))
            paths.append(path)
        sample_hands = sum(len(r["hands"]) for r in sample)
        per_record = median_seconds(lambda: [kiosk_replay(p) for p in paths],
                                    max(1, args.repeat // 2))
        report("cli/record", sample_hands, per_record)


if __name__ == "__main__":
    main()
