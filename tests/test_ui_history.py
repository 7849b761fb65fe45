"""The history's pages in the real window under Xvfb, landscape and portrait: a hand of many
notes took the room of four hands and was drawn over the title (a referee's review,
2026-12-06); now the pages hold the lines the window shows."""

from __future__ import annotations

import re

import pytest

from kiosk.i18n import translator
from kiosk.ui.presenter import (
    HISTORY_COLUMNS,
    HISTORY_LINES,
    HISTORY_ROWS,
    history_pages,
    history_rows,
)
from kiosk.words.textfmt import fit_lines

from .helpers import xvfb
from .kiosk_driver import Table
from .window import cut_words, play

pytestmark = pytest.mark.window


@pytest.fixture(scope="module")
def display():
    with xvfb("800x1280x24") as name:
        yield name


def four_hands(table: Table) -> None:
    """Four hands, the first with an overrun every move of five tricks, a kitty and a
    penalty; the table then waits for the fifth."""
    table.start()
    table.play_tricks(5, move=7.0)  # every move over its 5 s
    table.play_out()
    table.tap("end_play", "ok", "e_points:85", "e_last:defenders", "e_kitty:20",
              "e_shape:pairs2")
    table.penalize("look-back", "E")
    table.tap("e_finish")
    for _ in range(3):
        table.press(*"NESW")  # both sides agree
        table.tap("trump:♠", "start_bury")
        table.press(table.state.clock.seat)
        table.play_out()
        table.enter(40)
    table.press(*"NESW")


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_a_long_history_keeps_to_its_pages(tmp_path, display, rulesets, size):
    table = Table(tmp_path / "data", rulesets)
    four_hands(table)
    overruns = [p for p in table.state.played[0].record["penalties"]
                if p["code"] == "time-overrun"]
    portrait = size == "720x1280"
    rows = [fit_lines(row, HISTORY_COLUMNS[portrait])
            for row in history_rows(table.runner.view, translator("zh-Hans"), "zh-Hans")[1:]]
    pages = len(history_pages(rows, HISTORY_ROWS[portrait], HISTORY_LINES[portrait]))
    table.session.close()
    script = [("wait", "paused"), ("touch", "history"), ("wait", "history"), ("shot", "1")]
    for page in range(1, pages):
        script += [("touch", f"page:{page}"), ("wait", "history"), ("shot", str(page + 1))]
    _, screens = play(tmp_path, display, script, size=size)
    assert screens["spill"] == []  # nothing drawn over the title or the bottom bar
    shown = "".join("".join(screens["texts"]["history"]).split())  # (as read: lines joined)
    assert len(overruns) > 12 and shown.count("超时") == len(overruns)
    assert "东翻看上一轮的牌：罚10分（从旁家得分中扣除）" in shown and "底牌20×4" in shown
    hands = [line.split()[:2] for text in screens["texts"]["history"]
             for line in text.split("\n") if re.match(r"\d+ +[北东南西] ", line)]
    assert hands == [["1", "北"], ["2", "东"], ["3", "西"], ["4", "东"]]
    assert cut_words(screens) == []
