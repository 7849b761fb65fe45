"""The referee's correction says which hand is which and what it takes away (testers at a
referee's pace: the chooser showed bare 「第1副」「第2副」, and a penalty deleted in the correction
was not in its summary), through the real controller, presenter, runner and session."""

from __future__ import annotations

import pytest

from kiosk.ui.presenter import present

from .kiosk_driver import Table

pytestmark = pytest.mark.unit


def correct_two_hands(table):
    table.start()
    table.tap("end_play", "ok", "e_points:30", "e_last:defenders", "e_kitty:15",
              "e_shape:pair", "e_add", "e_pseat:E", "e_pkind:look-back", "e_finish")
    table.press("N", "E")
    table.tap("trump:♠", "start_bury")
    table.press(table.state.clock.seat)
    table.enter(85)
    table.press("N", "E")
    table.tap("referee")
    table.pin()
    table.tap("r_correct")


def test_a_correction_says_what_it_does_to_the_hand_being_played(table):
    """Hand 1 corrected while hand 2 was played: the summary said only 「第1副后：…」, and hand 2
    then read 打2 with its cards dealt at the old level, its dealer no longer the one the
    match gives (a referee at the real window)."""
    table.start()
    table.enter(40)  # N's side holds: 4:2, S deals hand 2 at 4
    table.press("N", "E")
    table.tap("trump:♠", "start_bury")
    table.press(table.state.clock.seat)
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:120", "e_last:dealer", "e_finish",
              "e_summary")
    assert table.screen.lines[1:] == (
        "第1副后：南北打4→打2，东西打2→打4", "正在打的第2副照已发的牌打完：仍由南坐庄，级数 4 → 2",
        "（按更正后的结果，这一副本应由东坐庄）")


def test_the_correction_chooser_names_each_hands_dealer_and_points(table):
    correct_two_hands(table)
    screen = table.screen
    assert screen.name == "referee.correct_pick"
    labels = [b.label for g in screen.grids for b in g.buttons]
    dealers = [h["dealer"] for h in table.session.export()["hands"]]
    seat = {"N": "北", "E": "东", "S": "南", "W": "西"}
    assert labels == [f"第1副\n{seat[dealers[0]]}庄 30分", f"第2副\n{seat[dealers[1]]}庄 85分"]


def test_a_penalty_deleted_in_a_correction_is_in_its_summary(table):
    correct_two_hands(table)
    table.tap("r_correct:1", "e_points:30", "e_last:defenders", "e_kitty:15", "e_shape:pair")
    assert len(table.screen.rows) == 1
    table.tap(table.screen.rows[0].button.action)  # its delete
    assert not table.screen.rows
    table.tap("e_finish", "e_summary")
    screen = table.screen
    assert screen.name == "correct.summary"
    assert "删除：东 翻看上一轮的牌：罚10分（从旁家得分中扣除）" in screen.lines, screen.lines


def a_match_of_seven_hands(table, started: bool = False) -> None:
    """A match the dealers' side holds hand after hand (40, 45 …) until north and south win
    at A after seven hands (`started`: its first hand entered already, 40 or fewer)."""
    if not started:
        table.start()
        table.play_out()
        table.enter(40)
    while table.state.end is None and table.state.phase != "over":
        table.press(*"NESW")
        if table.screen.name != "ready":
            break
        table.tap("trump:♠", "start_bury")
        table.press(table.state.clock.seat)
        table.play_out()
        table.enter(40 if len(table.state.played) % 2 else 45)
    table.press(*"NESW")


def test_a_correction_of_an_early_hand_says_its_levels_and_the_last_not_every_hand(table):
    a_match_of_seven_hands(table)
    assert table.screen.name == "over" and len(table.state.played) == 7
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:160", "e_last:dealer", "e_finish",
              "e_summary")
    lines = table.screen.lines
    assert lines[:4] == ("总分：40 → 160", "第1副后：南北打4→打2，东西打2→打6",
                         "第2–6副的级数随之改变", "第7副后：南北打A→打A，东西打2→打6"), lines
    assert lines[4] == "更正后比赛未分胜负：继续比赛，下一副由南发牌。"
    # were hand 4 to keep its levels (a dealer changed on the way), it is not counted
    preview = table.ctl.ui.correct_preview
    preview["changes"] = [c for c in preview["changes"] if c[0] != 4]
    assert "第2–6副中有4副的级数随之改变" in table.screen.lines


def test_a_saved_correction_says_so(table):
    """Saving a correction went back to the menu silently (a referee's review, 2026-12-06)."""
    correct_two_hands(table)
    table.tap("r_correct:1", "e_points:30", "e_last:defenders", "e_kitty:15", "e_shape:pair",
              "e_finish", "e_summary", "r_save_correction")
    assert table.screen.name == "referee"
    assert table.screen.notice.text == "第1副已更正"


def test_a_correction_is_left_from_any_step_in_one_tap_and_its_changes_said_first(table):
    """Leaving a correction from its summary took 7 taps of 返回, page by page (a referee's
    review). 放弃更正 stands in the same slot on every page: at once while nothing is changed,
    else after a question that says what is lost."""
    correct_two_hands(table)
    table.tap("r_correct:1", "e_points:30", "e_last:defenders", "e_kitty:15", "e_shape:pair",
              "e_finish", "e_summary")
    summary = table.screen
    assert summary.name == "correct.summary"  # the hand as it was: nothing changed
    # 放弃更正 where every page of the correction has it (保存更正 stood there: a referee
    # leaving by habit saved instead), 保存更正 where the entry's 下一步 is
    assert [b.action for b in summary.nav] == ["e_back", "", "r_save_correction", "", "",
                                               "e_quit"]
    table.tap("e_quit")
    assert (table.screen.name, table.ctl.ui.correct) == ("referee", None)
    table.tap("r_correct", "r_correct:1", "e_points:45", "e_last:dealer")
    screen = table.screen
    assert screen.nav[5].action == "e_quit" and screen.nav[5].label == "放弃更正"
    table.tap("e_quit")
    screen = table.screen
    assert (screen.name, screen.title) == ("confirm", "放弃更正第1副？")
    assert screen.lines == ("刚才的修改都不保存，第1副保持原来记录的结果。",)
    table.tap("cancel")
    assert table.ctl.ui.correct.points == 45  # still there to go on with
    table.tap("e_quit", "ok")
    assert table.screen.name == "referee"
    assert table.session.export()["hands"][0]["points"] == 30  # the record as it was


def test_the_end_screens_buttons_keep_their_places_whatever_the_slip_s_pages(tmp_path,
                                                                            rulesets):
    """新比赛, 记录 and 裁判 moved a slot when the slip took a second page (a referee's
    review, 2026-12-06): a one-page slip leaves the pager's slot empty."""
    long, short = Table(tmp_path / "long", rulesets), Table(tmp_path / "short", rulesets)
    a_match_of_seven_hands(long)
    short.start()  # one hand, then time called: a slip of one page
    short.play_out()
    short.enter(40)
    short.press(*"NESW")
    short.tap("referee")
    short.pin()
    short.tap("r_time_up", "ok", "time_up_ok")
    navs = [[b.action for b in present(t.runner.view, t.clock.now(), t.ctl.ui,
                                       portrait=False).nav] for t in (long, short)]
    assert navs[0][1] == "page:1" and navs[1][1] == ""  # two pages of slip, and one
    assert navs[0][:1] + navs[0][2:] == navs[1][:1] + navs[1][2:]
    for t in (long, short):
        t.session.close()


def test_the_slip_marks_the_corrected_hand_as_the_scorers_sheet_does(table):
    """The kiosk's slip, which both sides sign, did not say a hand was corrected after both
    had confirmed it; the scorer's printed sheet did."""
    correct_two_hands(table)
    table.tap("r_correct:1", "e_points:30", "e_last:defenders", "e_kitty:15", "e_shape:pair",
              "e_finish", "e_summary", "r_save_correction")
    table.tap("r_time_up", "ok", "time_up_ok")
    for lang, mark in (("zh-Hans", "裁判已更正"), ("en", "corrected by the referee")):
        lines = table.runner.slips[lang].splitlines()
        marked = [i for i, line in enumerate(lines) if mark in line]
        assert len(marked) == 1, table.runner.slips[lang]
        rows = [i for i, line in enumerate(lines) if line.split()[:1] in (["1"], ["2"])]
        assert rows[0] < marked[0] < rows[1]  # under hand 1, before hand 2


def test_a_correction_after_the_end_makes_the_slip_to_sign_again(table):
    """The slip was made once, when the match ended: a hand the referee corrected after that
    was signed as first entered, with no mark."""
    a_match_of_seven_hands(table)
    first = table.runner.slips["zh-Hans"]
    table.tap("referee")
    table.pin()  # (the menu opened after the end: the slip stands)
    assert table.runner.slips["zh-Hans"] == first
    table.tap("r_correct", "r_correct:7", "e_points:40", "e_last:dealer", "e_finish",
              "e_summary", "r_save_correction")
    assert table.state.phase == "over"  # north and south still win, at the same levels
    again = table.runner.slips["zh-Hans"]
    assert "裁判已更正" in again and "裁判已更正" not in first
    assert [line for line in again.splitlines() if line.split()[:2] == ["7", "北"]] != [
        line for line in first.splitlines() if line.split()[:2] == ["7", "北"]]


def test_a_slip_made_again_says_it_replaces_the_one_signed_before(tmp_path, rulesets):
    """A printed-record review (High): a correction after the match's end printed a second
    slip that looked like the first with other numbers, and its kept copy replaced the
    first's: a referee holding two signed slips could not tell which was the record. Each
    printed slip now says when it was printed; one made again says it is the record and that
    any before it is void, and the first is kept beside it. The corrected hand says its total
    as first confirmed and the referee's reason."""
    from kiosk.hw.printer import PrintQueue, SlipPrinter

    table = Table(tmp_path / "k", rulesets)
    slips = tmp_path / "slips"
    table.runner.printer = PrintQueue(SlipPrinter("/dev/null-printer", timeout=0.1), slips,
                                      table.runner.door)
    try:
        a_match_of_seven_hands(table)
        table.tap("referee")
        table.pin()
        table.tap("r_correct", "r_correct:7", "e_points:40", "e_last:dealer", "e_finish",
                  "e_summary", "r_save_correction")
    finally:
        table.runner.printer.close()
        table.session.close()
    kept = {path.name: path.read_bytes().decode("gb18030", errors="ignore")
            for path in slips.glob("*.bin")}
    assert sorted(kept) == ["table-1-round-1-2.bin", "table-1-round-1.bin"]
    first, again = kept["table-1-round-1.bin"], kept["table-1-round-1-2.bin"]
    assert "打印时间：20" in first and "打印时间：20" in again  # (the kiosk's wall clock)
    assert "更正后重印" not in first and "裁判已更正" not in first
    assert "更正后重印（第2版）：以本单为准\n此前打印的记分表作废\n" in again
    assert "  裁判已更正：45→40分\n  （裁判更正）\n" in again  # (the driver's reason)
    assert "更正后重印（第2版）" in table.runner.slips["zh-Hans"]
