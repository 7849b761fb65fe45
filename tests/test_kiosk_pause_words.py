"""The pause screen says 暂停 once, and names only the clocks that were running (testers: a
title and a big banner both said 暂停, and in the entry it said 出牌计时…已停止 though no move
clock runs then), through the real controller, presenter, runner and session."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def said(screen) -> list[str]:
    return [screen.title, screen.big, *screen.lines, *(p.value for p in screen.strip)]


def test_the_pause_says_paused_once_and_both_clocks_in_play(table):
    table.start()
    table.tap("pause_table")
    screen = table.screen
    assert screen.name == "paused"
    assert [x for x in said(screen) if x in ("暂停", "已暂停")] == ["暂停"]
    assert "出牌计时和比赛时间都已停止；继续后本步重新计时。" in screen.lines


def test_the_pause_in_the_entry_names_the_match_time_only(table):
    table.start()
    table.tap("end_play", "ok")
    assert table.screen.name == "entry.points"
    table.do(lambda s: s.pause_table())
    table.runner.step()
    screen = table.screen
    assert screen.name == "paused"
    assert not [x for x in said(screen) if "出牌计时" in x], said(screen)
    assert "比赛时间已停止。" in screen.lines


def test_the_pause_says_where_the_hand_is_as_the_clock_screen_it_covers_did(table):
    """After a restart the banner said only 「本机重新启动后暂停」 and what stopped: not the
    hand, the trick or whose turn it was (a referee's review)."""
    table.start()
    table.play_tricks(2)
    table.press("N")  # north leads the third trick
    assert table.screen.title == "东 出牌"
    table.restart()  # (the power goes: the kiosk starts again, paused)
    screen = table.screen
    assert (screen.name, screen.title) == ("paused", "本机重新启动后暂停")
    assert screen.lines[0] == "第1副 · 第 3/25 轮 · 东 出牌"
