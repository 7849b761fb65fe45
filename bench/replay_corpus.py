"""Replay a corpus of match records through `kiosk replay` and count what was checked.

1. Simulated tables: the real session, clocks and journal play whole matches of each ruleset
   with a bot referee (`kiosk.sim.table`); each exported record is replayed by the real
   `kiosk replay` command and every printed line must equal what the table showed.
2. Random records: hands with penalties at seats that can and cannot commit them, frying
   (`buried_by`), redeals with their caller, incidents and referee confirmations. Each is
   replayed by the rules core; a refusal must carry catalog words in every language with no
   placeholder left, and an accepted record must replay the same twice.
3. Every shipped example.

Prints the counts (records, hands, penalties, refusals by kind) for the issue's note. Usage:
`.venv/bin/python bench/replay_corpus.py [--simulated N] [--random N]`.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kiosk.i18n import LANGS, catalog, explain  # noqa: E402
from kiosk.rules import EntryError, RecordError, Ruleset, Rulesets, replay  # noqa: E402
from kiosk.rules.seats import SEATS  # noqa: E402
from kiosk.sim.table import simulate  # noqa: E402

SHAPES = ("single", "pair", "pairs2", "tractor2", "tractor3")
PLACEHOLDER = re.compile(r"\{[a-z_]\w*\}")
#: Counters that name a problem: any of them makes the run fail.
PROBLEMS = ("MISMATCHES", "FAILING", "WITHOUT WORDS", "NOT DETERMINISTIC")


def cli_replay(record: dict[str, Any]) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run([sys.executable, "-m", "kiosk.cli.main", "replay", "-"],
                          input=json.dumps(record, ensure_ascii=False), capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    lines = [json.loads(x) for x in done.stdout.splitlines() if x.strip()]
    return done.returncode, lines, done.stderr


def simulated(rulesets: Rulesets, per_ruleset: int, counts: collections.Counter[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        table = 0
        for ruleset_id in rulesets:
            for seed in range(per_ruleset):
                table += 1
                session = simulate(tmp, table, rulesets, ruleset_id, 400, seed,
                                   float("inf"), out=io.StringIO())
                shown = [p.result.to_json() for p in session.state.played]
                record = session.state.export()
                session.close()
                code, lines, stderr = cli_replay(record)
                counts["simulated records"] += 1
                counts["simulated hands"] += len(shown)
                counts["simulated penalties"] += sum(len(x.get("penalties", ()))
                                                     for x in shown)
                if code != 0 or [_strip_end(x) for x in lines] != [_strip_end(x) for x in
                                                                     shown]:
                    counts["simulated MISMATCHES"] += 1
                    print(f"mismatch: {ruleset_id} seed {seed}: {stderr.strip()}")


def _strip_end(line: dict[str, Any]) -> dict[str, Any]:
    """The table prints a hand's line when it is confirmed; replay adds the match's ending."""
    return {k: v for k, v in line.items()
            if k not in ("big_points", "net_levels", "by", "reason", "winner")}


def random_record(rng: random.Random, ruleset: Ruleset) -> dict[str, Any]:
    """A team record, played through the fold so that each hand knows its dealer; one hand in
    four carries a penalty, one in five of those at a seat chosen without looking."""
    from kiosk.rules import TeamMatch
    from kiosk.rules.record import parse_hand

    state = TeamMatch.start(ruleset, rng.choice(SEATS))
    record: dict[str, Any] = {"ruleset": ruleset.id, "first_dealer": state.next_dealer,
                              "hands": []}
    while state.winner is None and len(record["hands"]) < 80:
        dealer = state.next_dealer or rng.choice(SEATS)
        hand: dict[str, Any] = {} if state.next_dealer else {"dealer": dealer}
        if ruleset.redeal and rng.random() < 0.04:
            hand |= {"redeal": True, "called_by": rng.choice(SEATS)}
        else:
            points = rng.randrange(0, 41) * 5
            hand["points"] = points
            if rng.random() < 0.2:
                hand["kitty"] = {"points": rng.randrange(0, min(80, 200 - points) // 5 + 1) * 5,
                                 "shape": rng.choice(SHAPES)}
            if ruleset.frying and rng.random() < 0.3:
                hand["buried_by"] = rng.choice(SEATS)
            if rng.random() < 0.25:
                hand["penalties"] = [_penalty(rng, ruleset, dealer, hand.get("buried_by"))
                                     for _ in range(rng.randint(1, 2))]
        try:
            state, _ = state.play(parse_hand(hand))
        except (EntryError, RecordError):  # a refused hand ends the record, as replay will
            record["hands"].append(hand)
            break
        record["hands"].append(hand)
    return record


def _penalty(rng: random.Random, ruleset: Ruleset, dealer: str, buried_by: str | None
             ) -> dict[str, Any]:
    code = rng.choice(sorted(ruleset.penalties))
    penalty = ruleset.penalties[code]
    choices = ([None] if penalty.default else []) + list(penalty.choices)
    choice = rng.choice(choices)
    outcome = penalty.outcome(choice)
    seats = ruleset.seats_for(code, dealer, buried_by)
    entry: dict[str, Any] = {"code": code,
                             "seat": rng.choice(SEATS if rng.random() < 0.2 else seats)}
    if choice is not None:
        entry["choice"] = choice
    if outcome.per_card and rng.random() < 0.95:
        entry["cards"] = rng.randint(1, 4)
    if outcome.effect == "referee-points":
        top = outcome.max if outcome.max is not None else outcome.min + 60
        entry["points"] = rng.randrange(outcome.min // 5, top // 5 + 1) * 5
    if outcome.effect == "referee-levels":
        entry["levels"] = rng.randint(1, 2)
    if outcome.referee_confirms:
        entry["confirmed"] = rng.random() < 0.5
    if rng.random() < 0.2:
        entry["incident"] = rng.choice(("a", "b"))
    return entry


def randomised(rulesets: Rulesets, per_ruleset: int, counts: collections.Counter[str]) -> None:
    rng = random.Random(13)
    team = [r for r in rulesets.values() if r.kind == "team"]
    for ruleset in team:
        for _ in range(per_ruleset):
            record = random_record(rng, ruleset)
            counts["random records"] += 1
            counts["random hands"] += len(record["hands"])
            counts["random penalties"] += sum(len(h.get("penalties", ()))
                                              for h in record["hands"])
            try:
                first = list(replay(record, rulesets))
            except RecordError as error:
                counts[f"refused: {error.problem_key}"] += 1
                _check_words(error, counts)
                continue
            if first != list(replay(json.loads(json.dumps(record)), rulesets)):
                counts["random NOT DETERMINISTIC"] += 1


def _check_words(error: RecordError, counts: collections.Counter[str]) -> None:
    if error.key not in catalog("en"):
        counts["refusals WITHOUT WORDS"] += 1
        return
    for lang in LANGS:
        said = explain(error, lang)
        if said == catalog(lang)["error.unexpected"] or PLACEHOLDER.search(said):
            counts["refusals WITHOUT WORDS"] += 1


def examples(counts: collections.Counter[str]) -> None:
    for path in sorted((ROOT / "examples").glob("*.json")):
        expected_path = path.with_name(path.stem + ".expected.jsonl")
        code, lines, stderr = cli_replay(json.loads(path.read_text(encoding="utf-8")))
        expected = [json.loads(x) for x in expected_path.read_text().splitlines() if x]
        ok = code == 0 and len(lines) == len(expected) and all(
            {k: got.get(k) for k in want} == want for got, want in zip(lines, expected,
                                                                       strict=True))
        counts["examples"] += 1
        counts["example hands"] += len(lines)
        if not ok:
            counts["examples FAILING"] += 1
            print(f"example {path.name}: {stderr.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--simulated", type=int, default=50, help="matches per ruleset")
    parser.add_argument("--random", type=int, default=500, help="records per team ruleset")
    args = parser.parse_args()
    rulesets = Rulesets.load()
    counts: collections.Counter[str] = collections.Counter()
    start = time.perf_counter()
    examples(counts)
    simulated(rulesets, args.simulated, counts)
    randomised(rulesets, args.random, counts)
    for key in sorted(counts):
        print(f"  {key:<48} {counts[key]:>7}")
    print(f"  ({time.perf_counter() - start:.0f} s)")
    if any(bad in key for key in counts for bad in PROBLEMS):
        sys.exit(1)


if __name__ == "__main__":
    main()
