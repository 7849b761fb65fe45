"""A hand of many penalties on the screens both sides read before they sign (a referee's
review, 2026-12-06: thirty overruns ran 本副结果 and a correction's summary over their title):
the same offence at the same seat for the same cost is said once with its count, through the
real controller, presenter, runner and session."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from kiosk.i18n import translator
from kiosk.ui.presenter import HISTORY_COLUMNS, PENALTY_ROWS, history_rows
from kiosk.words.textfmt import fit_lines, width

pytestmark = pytest.mark.unit

SEAT = {"N": "北", "E": "东", "S": "南", "W": "西"}


def many_overruns(table) -> Counter[str]:
    """A hand with an overrun every move of eight tricks and one look-back, entered to its
    result: the overruns by seat."""
    table.start()
    table.play_tricks(8, move=7.0)  # every move over its 5 s
    table.play_out()
    table.tap("end_play", "ok", "e_points:85", "e_last:defenders", "e_kitty:20",
              "e_shape:pairs2")
    table.penalize("look-back", "E")
    table.tap("e_finish")
    return Counter(p["seat"] for p in table.state.draft.penalties.values()
                   if p["code"] == "time-overrun")


def counted(line: str) -> dict[str, int]:
    """「东 超时：警告 ×8」 → {"东": 8}; 「北 超时 2.0 秒：警告」 → {"北": 1}."""
    found = {}
    for note in re.split("[；;\n]", line.replace("\u00a0", " ")):
        said = re.fullmatch(r"\s*(\S) 超时(?: [\d.]+ 秒)?：警告(?: ×(\d+))?\s*", note)
        if said:
            found[said[1]] = int(said[2] or 1)
    return found


def test_the_result_counts_the_same_overrun_once_a_seat(table):
    overruns = many_overruns(table)
    screen = table.screen
    assert screen.name == "result" and sum(overruns.values()) > 20
    notes = [line for line in screen.lines if "超时" in line]
    assert len(notes) == 1  # one text, all the hand's penalties
    assert counted(notes[0]) == {SEAT[s]: n for s, n in overruns.items()}
    once = [SEAT[s] for s, n in overruns.items() if n == 1]  # one alone keeps its seconds
    assert all(re.search(f"{seat} 超时 [\\d.]+ 秒：警告", notes[0].replace("\u00a0", " "))
               for seat in once)
    assert "东 翻看上一轮的牌：罚10分" in notes[0].replace("\u00a0", " ")


def test_a_correction_counts_what_it_keeps_and_what_it_strikes_out(table):
    overruns = many_overruns(table)
    table.press(*"NESW")
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:85", "e_last:defenders", "e_kitty:20",
              "e_shape:pairs2")
    pages = set()
    for _ in range(3):  # three of east's overruns struck out, found page by page as shown
        while not (east := [row.button.action for row in table.screen.rows
                            if row.text.startswith("东 超时")]):
            pager = next(b.action for b in table.screen.nav if b.action.startswith("page:"))
            pages.add(pager)
            table.tap(pager)
        table.tap(east[0])
    # a page at a time: the list never runs over the screen
    assert pages and len(table.screen.rows) <= PENALTY_ROWS[False]
    table.tap("e_finish", "e_summary")
    screen = table.screen
    assert screen.name == "correct.summary"
    kept = [line for line in screen.lines if "超时" in line and not line.startswith("删除")]
    removed = [line for line in screen.lines if line.startswith("删除")]
    assert counted(kept[0]) == {**{SEAT[s]: n for s, n in overruns.items()},
                                "东": overruns["E"] - 3}
    assert removed == ["删除：东 超时：警告 ×3"]


def test_a_corrections_bar_keeps_the_live_entrys_slots(table):
    """返回, the pager, 下一步 where the live entry has them (a referee tapping 下一步 by habit
    turned the correction's page), and an empty slot where one is not offered."""
    many_overruns(table)
    table.tap("reopen")  # back to the live entry's penalties
    assert table.screen.name == "entry.penalties"
    live = [b.action.partition(":")[0] for b in table.screen.nav][:3]
    table.tap("e_finish")
    table.press(*"NESW")
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1")
    assert [b.action for b in table.screen.nav] == ["e_back", "", "", "", "", "e_quit"]
    table.tap("e_points:85", "e_last:defenders", "e_kitty:20", "e_shape:pairs2")
    assert table.screen.name == "correct.entry.penalties"
    assert [b.action.partition(":")[0] for b in table.screen.nav][:3] == live == \
        ["e_back", "page", "e_finish"]
    assert len(table.screen.nav) == 6  # the shared slots kept (but 放弃更正): the same places


def test_a_note_wider_than_a_line_starts_a_line_of_its_own(table):
    """The history broke 「…警告；东 翻看上一轮的牌：罚」⏎「10分（从旁家得分中扣除）」 in portrait
    (a referee's re-check, 2026-12-06): a note too wide for a line is wrapped from a line of
    its own, at its bracket, not from the end of the note before it."""
    many_overruns(table)
    table.press(*"NESW")
    rows = history_rows(table.runner.view, translator("zh-Hans"), "zh-Hans")
    lines = fit_lines(rows[1], HISTORY_COLUMNS[True]).split("\n")
    look_back = [i for i, line in enumerate(lines) if "翻看上一轮的牌" in line]
    assert len(look_back) == 1
    assert lines[look_back[0]].strip() == "东 翻看上一轮的牌：罚10分"
    assert lines[look_back[0] + 1].strip() == "（从旁家得分中扣除）"
    assert all(width(line) <= HISTORY_COLUMNS[True] for line in lines)
