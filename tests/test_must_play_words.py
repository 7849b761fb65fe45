"""A must-play level that stops an advance is said where the players read the result: a
standard-80fen team at 2 that takes over with 160 points moves no level (it must win 2 as the
dealer side first), and the screen said only 「不升级」, which a table counting the band's +2
would dispute. The rules core names the level (`stopped_at`, in `kiosk replay`'s lines too),
the result screen, the slip and the sheet say why."""

from __future__ import annotations

import json

import pytest

from kiosk.hw.slip import as_text, slip_lines
from kiosk.rules import replay

from .helpers import EXAMPLES, jsonl
from .helpers import cli as kiosk
from .kiosk_driver import Table

pytestmark = pytest.mark.unit


def test_replay_names_the_must_play_level_that_stopped_an_advance():
    done = kiosk("replay", str(EXAMPLES / "standard-80fen-example.json"))
    assert done.returncode == 0, done.stderr
    lines = jsonl(done.stdout)
    assert [(x["hand"], x["advance"], x["stopped_at"]) for x in lines if "stopped_at" in x] \
        == [(2, 3, "10"), (3, 0, "2"), (6, 0, "10")]
    assert lines[2]["total"] == 200  # 200 points, +5 by the band, and no level


def test_the_result_screen_says_why_a_take_over_moves_no_level(tmp_path, rulesets):
    table = Table(tmp_path, rulesets)
    table.start("standard-80fen")
    table.play_out()
    table.enter(160)
    assert table.screen.name == "result"
    said = table.texts()
    assert any("抢分方上台，不升级" in line for line in said), said
    assert "2 是必打级：升到此为止，须坐庄打过才能再升" in said


def test_the_slip_says_it_under_the_hand(rulesets):
    record = json.loads((EXAMPLES / "standard-80fen-example.json").read_text())
    ruleset = rulesets[record["ruleset"]]
    lines = list(replay(record, rulesets))
    slip = as_text(slip_lines(record, ruleset, lines, 80, "zh-Hans"), 80).splitlines()
    rows = [i for i, line in enumerate(slip) if line.split()[:1] in (["3"], ["4"])]
    under_three = slip[rows[0] + 1:rows[1]]
    assert any("2 是必打级：升到此为止" in line for line in under_three), slip
