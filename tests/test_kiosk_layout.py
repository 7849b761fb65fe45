"""Wording and small layout points of the kiosk's screens, through its real controller, runner
and session (audit of the kiosk, findings 14 and 15). The laid-out lines in the real window:
tests/test_ui_layout.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kiosk.i18n import translator
from kiosk.table.view import PenaltyOption
from kiosk.ui.presenter import NOTICE_SECONDS, present, slip_columns
from kiosk.ui.wizard import option_label

pytestmark = pytest.mark.unit


def test_the_pager_says_the_page_shown(table):
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("exposed-card", "NESW")
    pager = [b for b in table.screen.nav if b.action.startswith("page:")]
    assert [b.label for b in pager] == ["第2/2页 ◀"]  # the penalty just added's: the last
    table.tap(pager[0].action)
    assert [b.label for b in table.screen.nav if b.action.startswith("page:")] == \
        ["第1/2页 ▶"]


def test_the_last_trick_question_has_no_answer_chosen_before_a_tap(table):
    table.start()
    table.tap("end_play", "ok", "e_points:40")
    assert table.screen.name == "entry.last_trick"
    assert [b.style for b in table.screen.grids[0].buttons] == ["normal", "normal"]
    table.tap("e_last:dealer", "e_back")  # back to it: the answer given is shown
    assert "selected" in [b.style for b in table.screen.grids[0].buttons]


def test_a_red_trump_is_red_on_the_strip(table):
    table.tap("setup:xiamen-2015", "dealer:N", "trump:♥")
    assert [p.tone for p in table.screen.strip if p.value == "♥"] == ["red"]
    table.tap("trump:♠")
    assert [p.tone for p in table.screen.strip if p.value == "♠"] == [""]


def test_the_penalties_list_shows_what_each_costs(table):
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_add", "e_pseat:E",
              "e_pkind:look-back")
    assert [r.text for r in table.screen.rows] == ["东 翻看上一轮的牌：罚10分（从旁家得分中扣除）"]


def test_a_wrong_pin_notice_goes_when_the_pin_is_typed_again_or_after_its_time(table):
    table.tap("referee")
    table.pin("1111")
    assert table.screen.notice.text.startswith("密码错误")
    table.tap("pin:1")
    assert table.screen.notice.text == ""
    table.tap("pin_clear")
    table.pin("1111")
    assert table.screen.notice.text.startswith("密码错误")
    table.clock.advance(NOTICE_SECONDS + 0.5)
    assert table.screen.notice.text == ""


def test_the_history_heads_its_levels_with_the_team_names(table):
    table.tap("name:NS", "key_mode", "key:A", "key:1", "key_done")
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_finish")
    table.press("N", "E")
    table.tap("history")
    assert table.screen.lines[0].split()[-1] == "A1:东西"


def test_the_end_screens_slip_fills_its_columns_from_the_left_top(table):
    # a played hand with penalties makes the slip two pages long at 800×480
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("exposed-card", "NESW")
    table.tap("e_finish")
    table.press("N", "E")  # both sides confirm
    table.tap("referee")
    table.pin()
    table.tap("r_time_up", "ok")
    assert table.screen.name == "over"
    pages = []
    while not pages or table.screen.extra["slip_columns"] != pages[0]:
        pages.append(table.screen.extra["slip_columns"])
        table.tap(next(b.action for b in table.screen.nav if b.action.startswith("page:")))
    assert len(pages) == 2
    for columns in pages:
        assert len(columns) == 2  # side by side, on the last page as on the first
        assert all(not column.startswith("\n") for column in columns)  # no gap on top
        left, right = columns
        assert left or not right  # from the left
    assert "裁判签名" in "\n".join(pages[-1])


def test_an_individual_rounds_slip_and_its_signatures_fit_one_page(rulesets, tmp_path):
    """Two deals and five lines to sign took two pages at 800×480, the second holding only
    the signatures, spaced for a pen (a referee at the real window)."""
    from .kiosk_driver import Table

    table = Table(tmp_path, rulesets)
    table.tap("setup:shuangsheng-2011")
    for points in (40, 120):
        table.tap("card:7", "start_bury")
        table.press(table.state.clock.seat)
        table.play_out()
        table.enter(points)
        table.press(*"NESW")
    table.tap("referee")
    table.pin()
    table.tap("r_time_up", "ok", "time_up_ok")
    over = table.screen
    assert over.name == "over" and over.nav[1].action == ""  # no pager: one page
    _, right = over.extra["slip_columns"]
    assert right.split("\n")[-5:] == [f"{who}签名：" + "_" * 24 for who in "东北西南"] + [
        "裁判签名：" + "_" * 22]
    table.session.close()


@pytest.mark.parametrize("portrait", [False, True])
def test_a_hands_notes_are_in_the_column_of_its_row(table, portrait):
    """A slip page began with 「  北 暴露张：罚10分」 while its hand's row ended the page before (a
    referee's review): a hand's notes open no column, on any page, in either orientation."""
    table.start()
    for hand in range(9):
        if hand:
            table.tap("trump:♠", "start_bury")
            table.press(table.state.clock.seat)
        table.tap("end_play", "ok", "e_points:80", "e_last:dealer")
        table.penalize("exposed-card", "NESW"[:hand % 3 + 1])
        table.tap("e_finish")
        table.press("N", "E")
    table.tap("referee")
    table.pin()
    table.tap("r_time_up", "ok")
    pages: list[tuple[str, ...]] = []
    for page in range(20):  # (the last page is shown for any page past it)
        over = present(table.runner.view, table.clock.now(), replace(table.ctl.ui, page=page),
                       portrait)
        if pages and over.extra["slip_columns"] == pages[-1]:
            break
        pages.append(over.extra["slip_columns"])
    columns = [column for page in pages for column in page if column]
    assert len(columns) > 2
    every_line = [line for column in columns for line in column.split("\n")]
    assert sum("暴露" in line for line in every_line) == 18
    for column in columns[1:]:
        assert not column.startswith(("  ", "\n")), column


def test_the_hands_to_correct_fill_their_rows_evenly(table):
    """Seven hands go in rows of 4 and 3 (in rows of 6 the 7th stood alone beside five empty
    places); the keyboard keeps its columns, 1 … 0 on one row."""
    table.tap("name:NS", "key_mode")  # Latin letters: 36 keys in rows of ten
    (keys,) = table.screen.grids
    assert (sum(1 for b in keys.buttons if b.action), keys.columns(False)) == (36, 10)
    table.tap("key_done")
    table.start()
    for hand in range(7):
        if hand:
            table.tap("trump:♠", "start_bury")
            table.press(table.state.clock.seat)
        table.enter(80)  # the defenders take over, no level changes: the match goes on
        table.press("N", "E")
    table.tap("referee")
    table.pin()
    table.tap("r_correct")
    (hands,) = table.screen.grids
    assert len(hands.buttons) == 7
    assert (hands.columns(False), hands.columns(True)) == (4, 4)


def row_lengths(grid, portrait: bool = False) -> list[int]:
    """How many buttons each row of `grid` holds, as the window lays it out."""
    cols, n = grid.columns(portrait), len(grid.buttons)
    return [min(cols, n - start) for start in range(0, n, cols)]


def test_fourteen_offences_go_in_rows_of_5_5_4(table):
    """xiamen offers West 14 offences: in rows of at most 4 they went 4/4/4/2, two places
    empty at the bottom right and four rows of short buttons at 800×480. A grid may take one
    column more when its rows come out more even."""
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_add", "e_pseat:W")
    (offences,) = table.screen.grids
    assert len(offences.buttons) == 14
    assert row_lengths(offences) == [5, 5, 4]
    assert row_lengths(offences, portrait=True) == [2] * 7


def test_a_penalty_s_own_way_is_named_by_what_it_does_beside_its_other_ways(table):
    """超时：怎样处理？ offered 「超时」 and 「裁判罚分」, 裁判判罚 its own name again: the
    first way now says what it does (referees' reviews, 2026-12-06), in the words of the
    slip (庄家下庄); a choice keeps its own name; the points given are said once."""
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_add", "e_pseat:N")
    asked = {}
    for code in ("time-overrun", "kitty-wrong", "signalling", "ruling"):
        table.tap(f"e_pkind:{code}")
        asked[table.screen.title] = [b.label for g in table.screen.grids for b in g.buttons]
        table.tap("e_back")
    assert asked == {"超时：怎样处理？": ["警告", "裁判罚分"],
                     "底牌放错：怎样处理？": ["庄家下庄", "旁家坚持要打：调整底牌，罚庄家"],
                     "暗示、交谈：怎样处理？": ["警告", "罚分", "判负"],
                     "裁判判罚（第24条）：怎样处理？": ["罚分", "判负"]}
    table.tap("e_pkind:time-overrun", "e_popt:0")  # the warning, as before
    assert [r.text for r in table.screen.rows] == ["北 超时：警告"]
    table.tap("e_add", "e_pseat:N", "e_pkind:ruling", "e_popt:0", "e_pval:20")
    assert [r.text for r in table.screen.rows][1] == "北 裁判判罚（第24条）：罚20分（计入旁家）"


def test_a_penalty_that_fixes_the_total_says_the_total(table):
    """藏牌 said 「本副定分」 in the list of penalties and the history, and the referee had to
    work out which total (a referee's review, 2026-12-06): a defender's fixes it at 0."""
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("hidden-card", "E")
    said = "东 藏牌（提醒后仍隐瞒）：本副按0分计"
    assert [r.text for r in table.screen.rows] == [said]
    table.tap("e_finish")
    table.press(*"NESW")
    table.tap("history")
    assert table.screen.lines[1].split("\n")[1].strip() == said


def test_a_redeal_says_who_deals_again_before_it_is_called(table):
    """革命 said only 「本副作废，重新发牌」: whether the dealer is grabbed again (before the
    first hand, in xiamen) or keeps the deal (after it) is said before the referee agrees."""
    table.tap("setup:xiamen-2015", "dealer:N", "redeal", "redeal:E")
    assert table.screen.lines == ("本副作废，重新发牌，重新抢庄；裁判可以撤销。",)
    table.tap("ok", "dealer:E", "trump:♠", "start_bury")
    table.press(table.state.clock.seat)
    table.play_out()
    table.enter(40)
    table.press(*"NESW")
    dealer = table.state.draft.dealer
    name = {"N": "北", "E": "东", "S": "南", "W": "西"}[dealer]
    table.tap("redeal", f"redeal:{'N' if dealer in 'EW' else 'E'}")  # a defender calls it
    assert table.screen.lines == (f"本副作废，重新发牌，仍由{name}坐庄；裁判可以撤销。",)


def test_a_penalty_struck_out_behind_the_pin_leaves_the_list_on_its_page(table):
    """Deleting a penalty on page 4 of 4 went back to page 1 (a referee's review, 2026-12-06):
    the list stays on the page the referee was on."""
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("exposed-card", "NESWNESWNE")
    table.tap("page:1")
    assert [b.label for b in table.screen.nav if b.action.startswith("page:")] == ["第2/4页 ▶"]
    struck = next(r for r in table.screen.rows if r.button).button.action
    table.tap(struck)
    table.pin()
    assert table.screen.name == "entry.penalties"  # nine left: still page 2, now of 3
    assert [b.label for b in table.screen.nav if b.action.startswith("page:")] == ["第2/3页 ▶"]


def test_a_fixed_totals_own_way_keeps_its_name_on_its_button():
    """Its cost depends on the side at fault: a house ruleset's 藏牌 with another way offered
    beside it is named, never 「本副按{total}分计」."""
    t = translator("zh-Hans")
    assert option_label(PenaltyOption(None, lambda lang: "藏牌", effect="fix-total"), t,
                        "zh-Hans") == "藏牌"
    assert option_label(PenaltyOption(None, lambda lang: "超时", effect="warning"), t,
                        "zh-Hans") == "警告"


def test_the_history_pager_stays_where_it_was_tapped(table):
    """On the history's first page the pager sat where 「◀ 上一页」 sits on the others: tapping
    the same spot again went back to page 1, never on to page 3 (a referee's review)."""
    table.start()
    for _ in range(5):  # five hands: two pages
        table.play_out()
        table.enter(40)
        table.press(*"NESW")
        table.tap("trump:♠", "start_bury")
        table.press(table.state.clock.seat)
    table.tap("history")
    first = [b.action for b in table.screen.nav]
    table.tap(first[1])
    second = [b.action for b in table.screen.nav]
    assert first == ["", "page:1", "close"] and second == ["page:0", "page:0", "close"]


def test_the_lines_to_sign_stay_together_on_the_slip():
    """A standard-80fen slip's second page held 裁判签名 alone (a referee at the real window):
    the lines to sign go to a column together when they fit one."""
    signed = [line for who in ("北", "东", "南", "西", "裁判") for line in (
        f"{who}签名：" + "_" * 20, "")]
    slip = ["记分表", "-" * 32, "副 庄 级", "1  北 2", "-" * 32, "胜方：南北", "", *signed]
    lines = signed[::2]  # on the screen, without the room to sign between them
    assert slip_columns(slip, 10) == [slip[:7], lines]
    assert slip_columns(slip, 12) == [slip[:7] + lines]
    assert slip_columns(slip, 4)[-1] == lines[1:]  # (a block longer than a column flows on)
