"""Test helpers: a quick way to play hands, and running the real `kiosk` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kiosk.rules import HandEntry, KittyEntry, PenaltyEntry, Rulesets, TeamMatch

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def hand(points=None, kitty=None, penalties=(), **kw) -> HandEntry:
    """A HandEntry from plain values: kitty as (points, shape), penalties as dicts."""
    return HandEntry(
        points=points,
        kitty=KittyEntry(*kitty) if kitty else None,
        penalties=tuple(PenaltyEntry(**p) for p in penalties),
        **kw,
    )


def play(match: TeamMatch, *entries: HandEntry) -> tuple[TeamMatch, list]:
    results = []
    for entry in entries:
        match, result = match.play(entry)
        results.append(result)
    return match, results


def at_levels(rulesets: Rulesets, ruleset_id: str, ns: str, ew: str, dealer: str) -> TeamMatch:
    """A match positioned at the given levels with `dealer` to deal (as after a correction)."""
    ruleset = rulesets[ruleset_id]
    match = TeamMatch.start(ruleset, dealer)
    from dataclasses import replace

    return replace(match, levels=(ruleset.ladder.index(ns), ruleset.ladder.index(ew)))


def kiosk(*args: str, stdin: str | None = None, env: dict | None = None
          ) -> subprocess.CompletedProcess[str]:
    """Run the real `kiosk` command line in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "kiosk.cli.main", *args], input=stdin, capture_output=True,
        text=True, cwd=ROOT, env=env, timeout=60)


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]
