"""What the kiosk's screens say to the referee entering and correcting a hand (xiamen-2015),
without a window: one penalty an incident, the result's notes, the match's last hand, the
correction's costs, a refusal's life, the PIN pads' titles. Each was found by a tester
driving the real window."""

from __future__ import annotations

import re

import pytest

from kiosk.i18n import LANGS
from kiosk.words.textfmt import width

pytestmark = pytest.mark.unit

#: Columns the one-line notice shows at 800×480 (784 px of 18.5 px type, as the app counts).
NOTICE_COLUMNS = 80


def at_penalties_with_an_overrun(table) -> None:
    """Hand 1 of xiamen played with an overrun by N, entered up to its penalties."""
    table.start()
    table.clock.advance(8.0)  # N over its 5 s: a warning, first in the list
    table.play_tricks(1)
    table.enter(85)
    table.tap("reopen")
    assert table.screen.name == "entry.penalties"


def test_one_penalty_per_incident_is_said_before_the_answer_and_adds_nothing(table):
    """xiamen art. 22 refuses a second penalty for one incident: the question says so first,
    and 「同一次犯规」 adds nothing (it used to record, and be refused with an internal id)."""
    at_penalties_with_an_overrun(table)
    table.penalize("exposed-card", "W")
    before = [row.text for row in table.screen.rows]
    table.tap("e_add", "e_pseat:W", "e_pkind:wrong-follow")
    screen = table.screen
    assert screen.name == "entry.penalty_incident"
    assert screen.lines == ("新记的：西 跟错牌。它与下面已记的哪一项是同一次犯规？",
                            "一错不二罚：同一次犯规只罚一项。")
    same = next(b for g in screen.grids for b in g.buttons if b.action != "e_pinc:new")
    assert same.label == "同一次犯规（西 暴露张）：不再加罚"
    table.tap(same.action)
    screen = table.screen
    # no refusal (the overrun's own notice may still be there: it keeps its 6 s)
    assert screen.name == "entry.penalties" and screen.notice.level != "error"
    assert [row.text for row in screen.rows] == before


def test_a_second_penalty_for_one_incident_is_refused_in_the_referees_terms(table):
    """The refusal names the penalties as the list shows them: no incident id, no count of
    entries, whole on the one-line notice."""
    at_penalties_with_an_overrun(table)
    table.penalize("exposed-card", "W")
    exposed = next(pid for pid, p in table.state.draft.penalties.items()
                   if p["code"] == "exposed-card")
    table.do(lambda s: s.add_penalty("wrong-follow", "W", incident=exposed))
    words = {}
    for lang in LANGS:
        table.ctl.ui.lang = lang
        words[lang] = table.screen.notice.text
        assert exposed not in words[lang] and not re.search(r"\d", words[lang]), words[lang]
        assert width(words[lang]) <= NOTICE_COLUMNS, words[lang]
    assert words["zh-Hans"] == "未加罚跟错牌：西 暴露张已罚过这次犯规（一错不二罚）"
    assert words["en"] == "Wrong follow not added: W Exposed card already covers this incident"


def test_the_result_wraps_its_notes_between_notes_only(table):
    """The notes of a hand go on one line, which the window breaks at a plain space only
    (Kivy's rule): each place it may break is between two whole notes."""
    at_penalties_with_an_overrun(table)
    table.penalize("exposed-card", "W")
    table.penalize("wrong-follow", "W")
    table.tap("e_finish")
    screen = table.screen
    notes = next(line for line in screen.lines if "跟错牌" in line)
    pieces = notes.split(" ")
    assert len(pieces) == 3
    assert [piece.split("\u00a0")[0] for piece in pieces] == ["北", "西", "西"]
    assert pieces[-1] == "西\u00a0跟错牌：罚10分（从旁家得分中扣除）"


def test_the_hand_that_wins_the_match_names_no_next_dealer(table):
    """A kitty of 80 at ×32 takes 东西 past A in one hand: its result says who won the match,
    in the place of the next dealer (no hand is dealt next)."""
    table.start()
    table.enter(85, (80, "tractor4"))
    lines = table.screen.lines
    assert lines[1:3] == ("旁家上台，升 13 级（南北打2，东西打A）", "东西赢得比赛")
    assert not any("下一副庄家" in line for line in lines)


def test_the_correction_lists_each_penalty_with_its_cost_as_the_entry_does(table):
    """An overrun reads 「北 超时 4.0 秒：警告」 in the live entry, and the same in the
    referee's correction of the hand (it used to lose its cost there)."""
    at_penalties_with_an_overrun(table)
    table.penalize("exposed-card", "W")
    live = [row.text for row in table.screen.rows]
    assert live == ["北 超时 4.0 秒：警告", "西 暴露张：罚10分（从旁家得分中扣除）"]
    table.tap("e_finish")
    table.press("N", "E")  # both sides confirm hand 1
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:85", "e_last:dealer")
    screen = table.screen
    assert screen.name == "correct.entry.penalties"
    assert [row.text for row in screen.rows] == live


def test_the_result_and_the_correction_say_an_overrun_as_the_list_does(table):
    """「北 超时 4.0 秒：警告」 on the list, under the result and on the correction's summary:
    the result and the summary said 「北 超时：警告」, without the seconds over."""
    at_penalties_with_an_overrun(table)
    (listed,) = [row.text for row in table.screen.rows]
    assert listed == "北 超时 4.0 秒：警告"
    table.tap("e_finish")
    assert listed in table.screen.lines
    table.press("N", "E")  # both sides confirm hand 1
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:85", "e_last:dealer", "e_finish",
              "e_summary")
    screen = table.screen
    assert screen.name == "correct.summary" and listed in screen.lines

def test_a_refusal_goes_with_the_next_tap_that_works(table):
    """A seat pressed before the hand began is refused; 革命… then opens its screen, and the
    refusal goes with it (it stayed on, over the question it had nothing to do with)."""
    table.tap("setup:xiamen-2015", "dealer:N")
    table.press("E")
    assert table.screen.notice.text == "现在不能这样做：本副还没开始"
    table.tap("language", "language", "language")  # the same refusal, read in each language
    assert table.screen.notice.text == "现在不能这样做：本副还没开始"
    table.tap("redeal")
    screen = table.screen
    assert screen.name == "ready.redeal" and screen.notice.text == ""


def test_every_pin_pad_says_what_it_unlocks(table):
    """The referee's menu, 继续 on the pause banner and a penalty's delete each open a PIN pad
    titled with what it is for (the menu's and the resume's said only 裁判密码)."""
    titles = []
    table.tap("setup:xiamen-2015", "dealer:N", "referee")
    titles.append(table.screen.title)
    table.tap("close", "trump:♠", "start_bury", "pause_table", "resume")
    titles.append(table.screen.title)
    table.pin()
    table.press(table.state.clock.seat)  # the bury is done
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("exposed-card", "W")
    table.tap(next(row.button.action for row in table.screen.rows))
    titles.append(table.screen.title)
    assert titles == ["裁判密码：打开裁判菜单", "裁判密码：继续比赛", "裁判密码：删除罚则"]


def test_the_pin_pad_of_a_delete_names_the_penalty_it_removes(table):
    """Before the PIN is typed, the pad says which penalty goes (it said only 删除罚则, with
    four penalties on the list behind it)."""
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("exposed-card", "NW")
    west = next(row.button.action for row in table.screen.rows if row.text.startswith("西"))
    table.tap(west)
    screen = table.screen
    assert screen.title == "裁判密码：删除罚则"
    assert screen.lines == ("删除罚则：西 暴露张", "请输入密码")
    table.tap("language")
    assert table.screen.lines[0] == "刪除罰則：西 暴露張"


def won_in_one_hand(table) -> None:
    """A kitty of 80 at ×32 takes 东西 past A in hand 1: the result says they win."""
    table.start()
    table.enter(85, (80, "tractor4"))


def ask_to_rule(table) -> None:
    """NS dispute the hand; the referee opens the menu and asks to confirm it as entered."""
    table.tap("dispute:NS", "ok", "referee")
    table.pin()
    table.tap("r_rule")


def test_ruling_a_disputed_hand_that_wins_says_the_match_ends(table):
    """The ruling's question said 「比赛继续」 on the hand that ends the match; it names the
    result it confirms, which its question screen did not show (a referee's review)."""
    won_in_one_hand(table)
    ask_to_rule(table)
    assert table.screen.lines == ("旁家上台，升 13 级（南北打2，东西打A）\n"
                                  "本副按以上结果确认：东西赢得比赛，比赛结束。",)
    table.tap("ok")
    assert (table.state.phase, table.state.winner()) == ("over", "EW")


def test_a_ruled_dispute_stays_in_the_history_the_slip_and_the_record(table):
    """Once the referee ruled a disputed hand, nothing showed it had been disputed: not the
    history, not the slip both sides sign (a referee's review)."""
    table.start()
    table.enter(85)
    ask_to_rule(table)
    table.tap("ok")
    record = table.session.export()
    assert record["hands"][0]["disputed_by"] == "NS"
    table.tap("history")
    assert "南北有异议，裁判维持原结果" in table.screen.lines[1]
    table.tap("close")
    assert "南北有异议，裁判维持原结果" in table.slip()
    # a hand both sides confirmed says nothing of the kind
    table.tap("trump:♠", "start_bury")
    table.press(table.state.clock.seat)
    table.enter(40)
    table.press("N", "E")
    assert "disputed_by" not in table.session.export()["hands"][1]


def test_the_referee_may_change_a_disputed_hand_before_both_sides_confirm_it(table):
    """A dispute could only be ruled as shown: upholding it meant confirming a result the
    referee held wrong, then correcting it."""
    table.start()
    table.enter(85)
    table.tap("dispute:NS", "ok", "referee")
    assert table.screen.name == "referee.pin"  # the referee's alone
    table.pin()
    menu = [b.label for g in table.screen.grids for b in g.buttons]
    assert "裁定：先修改本副（再由双方确认）" in menu
    table.tap("r_change")
    assert table.state.phase == "entry" and table.state.draft.disputed_by is None
    table.tap("e_back", "e_back")
    assert table.screen.name == "entry.points"
    table.tap("e_points:60", "e_last:dealer", "e_finish")
    assert table.state.phase == "result"
    table.press("N", "E")  # both sides agree to the changed hand
    assert table.session.export()["hands"][0]["points"] == 60


def test_correcting_the_hand_that_won_says_the_match_goes_on_and_it_does(table):
    won_in_one_hand(table)
    table.press("N", "E")
    assert table.state.phase == "over"
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:85", "e_last:dealer", "e_finish",
              "e_summary")
    screen = table.screen
    assert screen.name == "correct.summary"
    assert "更正后比赛未分胜负：继续比赛，下一副由东发牌。" in screen.lines, screen.lines
    table.tap("r_save_correction", "close")
    assert table.screen.name.startswith("ready"), table.screen.name
    assert (table.state.phase, table.state.draft.dealer) == ("ready", "E")


def test_the_history_and_the_slip_say_an_overrun_with_its_seconds_as_the_result_does(table,
                                                                                     rulesets):
    from kiosk.rules import replay
    from kiosk.words.hand import notes

    at_penalties_with_an_overrun(table)
    table.tap("e_finish")
    table.press("N", "E")
    table.tap("history")
    assert any("北 超时 4.0 秒：警告" in line for line in table.screen.lines), table.screen.lines
    record = table.session.export()
    ruleset = rulesets["xiamen-2015"]
    first = next(iter(replay(record, rulesets)))
    assert any("超时 4.0 秒" in note for note in notes(record, first, ruleset, "zh-Hans"))


def test_ruling_a_disputed_hand_names_the_result_and_the_next_dealer(table):
    table.start()
    table.enter(40)
    ask_to_rule(table)
    assert table.screen.lines == ("庄家方守庄，升 2 级（南北打4，东西打2）\n下一副庄家：南\n"
                                  "本副按以上结果确认，比赛继续。",)
    table.tap("ok")
    assert table.state.phase == "ready" and table.state.draft.dealer == "S"


def test_the_leader_correction_shows_who_is_recorded_and_what_changing_it_does(table):
    """更正领出者 showed four seats and nothing else: not who is recorded as leader now, nor
    that the turn is counted again from the one chosen (a referee's review, 2026-12-06)."""
    table.start()
    table.play_tricks(2)
    table.press(table.state.clock.leader or table.state.draft.dealer)  # the third trick's lead
    led = table.state.clock.leader
    table.tap("referee")
    table.pin()
    table.tap("r_leader")
    screen = table.screen
    names = {"N": "北", "E": "东", "S": "南", "W": "西"}
    assert screen.lines == (f"现在记为{names[led]}领出，这一轮已有 1 家出牌。",
                            "更正后从所选的领出者起，重新数到该出牌的座位。")
    assert [b.label for g in screen.grids for b in g.buttons if b.style == "selected"] == \
        [names[led]]
    other = next(s for s in "NESW" if s != led)
    table.tap(f"r_leader:{other}")
    assert (table.state.clock.leader, table.state.clock.plays) == (other, 1)


def test_a_dispute_says_the_match_clock_runs_on_before_and_while_it_waits(table):
    """「本副冻结」 read as if the match's time stopped too; it runs on while the referee
    comes (a referee's review), and now both the question and the frozen hand say so."""
    table.start()
    table.play_out()
    table.enter(40)
    table.tap("dispute:NS")
    assert table.screen.lines == ("本副冻结，等待裁判裁定。", "比赛计时照常进行。")
    table.tap("ok")
    assert table.screen.name == "disputed"
    assert table.screen.lines[-2:] == ("南北有异议：等待裁判裁定", "比赛计时照常进行。")
    assert table.state.match_clock.running
