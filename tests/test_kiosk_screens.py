"""The kiosk's screens without a window: what a referee taps (the controller), what each screen
then says (the presenter), through the real runner, session and journal on an injected clock.
Each test named after a finding of issue 11 checks that finding's behaviour."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kiosk.errors import SessionError
from kiosk.i18n import LANGS, catalog
from kiosk.ui.presenter import HISTORY_COLUMNS, NOTICE_SECONDS, present, seconds
from kiosk.words.textfmt import width

from .kiosk_driver import Table

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent


def ascii_words(texts: list[str], allowed: tuple[str, ...] = ()) -> set[str]:
    return {w for text in texts for w in re.findall(r"[A-Za-z]{3,}", text)
            if w not in allowed}


# -- 1. messages ----------------------------------------------------------------------------


def test_1_every_refusal_reads_in_the_readers_language(table):
    """Refusals come as catalog keys with parameters: no English, no None, no phase name."""
    table.start()
    table.press("W")  # not W's turn
    table.do(lambda s: s.finish_entries())  # not now: play
    table.do(lambda s: s.correct_hand(1, {"points": 5}, "x"))  # referee only
    table.tap("end_play", "ok")
    table.do(lambda s: s.enter_points(255))  # not a card-point count
    table.do(lambda s: s.enter_points(None))
    for lang in LANGS:
        table.ctl.ui.lang = lang
        table.do(lambda s: s.add_penalty("failed-throw", "E"))  # how many cards?
        text = table.screen.notice.text
        assert text and text != catalog(lang)["error.unexpected"], lang
        if lang != "en":
            assert not ascii_words([text]) and "None" not in text, text
    table.ctl.ui.lang = "zh-Hans"
    refusals = []
    for command in (lambda s: s.press("N"), lambda s: s.dispute("N"), lambda s: s.resume(),
                    lambda s: s.finish_entries(), lambda s: s.enter_points(7)):
        table.do(command)
        refusals.append(table.runner.notice.key)
        assert table.screen.notice.level == "error"
        assert not ascii_words([table.screen.notice.text])
    assert refusals[0] == "table.not_now.entry"


def test_1_every_refusal_key_of_the_session_is_in_every_catalog():
    source = "".join((ROOT / "kiosk" / "table" / name).read_text()
                     for name in ("state.py", "session.py"))
    keys = {f"table.{k}" for k in re.findall(r'refused\(\s*f?"([a-z_.]+)', source)
            if not k.endswith(".")}
    keys |= {f"table.not_now.{phase}" for phase in ("setup", "ready", "bury", "play", "entry",
                                                     "result", "disputed", "over")}
    keys |= {f"table.refused.{part}" for part in ("kitty", "penalties", "points", "dealer",
                                                   "partner", "end", "entry")}
    assert len(keys) > 40
    for lang in LANGS:
        assert keys - set(catalog(lang)) == set(), lang
    assert "SessionError(f" not in source.replace("SessionError(f\"{prefix}", "")


def test_1_a_notice_clears_on_the_next_success_and_after_a_few_seconds(table):
    table.start()
    table.press("E")  # N is to move
    assert table.screen.notice.text == "还没轮到这个座位：请看亮灯的座位"
    table.press("N")  # the next action that works
    assert table.screen.notice.text == ""
    table.press("W")
    table.clock.advance(NOTICE_SECONDS + 0.1)
    assert table.screen.notice.text == ""


def test_1_silent_events_are_confirmed_in_the_notice_area(table):
    table.start()
    table.clock.advance(8.2)  # xiamen: 5 s a play
    table.press("N")
    assert table.screen.notice.text == "北家超时 3.2 秒，已记警告"
    assert table.screen.notice.level == "info"
    table.clock.advance(0.7)
    table.press("E")  # the next seat, at once: the notice is still there to read
    assert table.screen.notice.text == "北家超时 3.2 秒，已记警告"
    table.clock.advance(NOTICE_SECONDS)
    assert table.screen.notice.text == ""


def test_1_a_bury_overrun_is_named_and_its_cost_said_whole(table):
    """A referee's review: chaodipi's bury overrun said 「北家超时 10.2 秒，已记录（前1次警告）」:
    neither that it was the bury nor what comes after the warning."""
    table.tap("setup:chaodipi-2011", "dealer:N", "trump:♣", "start_bury")
    table.clock.advance(70.2)  # 60 s to bury
    table.press("N")
    assert table.screen.notice.text == \
        "北家扣底超时 10.2 秒，已记录（本方前1次只警告，之后每次罚80分）"


# -- 2. one tap ends the match --------------------------------------------------------------


def test_2_time_up_and_forfeit_ask_first_and_say_who_loses(table):
    table.tap("setup:xiamen-2015", "dealer:N", "referee")
    table.pin()
    table.tap("r_time_up")
    screen = table.screen
    assert screen.name == "confirm" and table.state.time_up is None
    # the way to record it said (the banner said only 请裁判裁定, and the menu has no 裁定)
    assert screen.lines == ("还没有打完一副，规则无法判定胜负：请裁判裁定结果，在裁判菜单里用"
                            "“弃权或取消资格…”记下。",)
    table.tap("ok")
    assert table.screen.lines == (
        "规则无法判定胜负：请裁判在裁判菜单里用“弃权或取消资格…”记下结果",)
    table.tap("referee")
    table.pin()
    screen = table.screen
    menu = [b.action for b in screen.nav + tuple(b for g in screen.grids for b in g.buttons)]
    assert "r_forfeit" in menu and "r_start_clock" not in menu  # (time is up: no clock to start)
    table.tap("r_forfeit", "r_fkind:forfeit", "r_fteam:NS")
    assert table.screen.name == "referee.forfeit_reason"  # a forfeit needs a reason
    table.tap("r_freason:absent")
    screen = table.screen
    assert (screen.name, screen.title, screen.lines) == ("confirm", "南北弃权？", (
        "南北判负，比赛结束。", "原因：未到场"))  # (the reason chosen, said before it is final)
    assert table.state.phase == "ready"  # nothing happened yet
    table.tap("ok")
    assert table.state.phase == "over" and table.state.end["forfeit"] == "NS"


def test_2_a_forfeit_says_forfeit_once_on_the_screen_and_the_slip(table):
    """The over screen said 弃权 three times: 「东西弃权判负」「原因：弃权：未到场」
    「胜方：南北（弃权）」."""
    table.start()
    table.tap("referee")
    table.pin()
    table.tap("r_forfeit", "r_fkind:forfeit", "r_fteam:EW", "r_freason:absent", "ok")
    screen = table.screen
    assert screen.lines[:3] == ("东西弃权判负", "原因：未到场", "胜方：南北")
    assert "东西弃权，南北获胜\n原因：未到场\n" in table.slip()


def test_2_a_match_forfeited_before_its_clock_started_says_no_match_time(table):
    """It said 「比赛时间（未开始）90:00」 above a match that was over."""
    table.tap("setup:xiamen-2015", "dealer:N")
    assert "比赛时间（未开始） 90:00" in table.screen.status
    table.tap("referee")
    table.pin()
    table.tap("r_forfeit", "r_fkind:forfeit", "r_fteam:EW", "r_freason:absent", "ok")
    assert table.screen.name == "over" and "比赛时间" not in table.screen.status


def test_2_a_forfeit_during_an_entry_says_the_hand_does_not_count(table):
    table.start()
    table.tap("end_play", "ok", "e_points:85", "referee")
    table.pin()
    table.tap("r_forfeit", "r_fkind:disqualification", "r_fteam:EW", "r_freason:conduct")
    screen = table.screen
    assert screen.title == "取消东西的资格？"
    assert screen.lines == ("东西判负，比赛结束。", "原因：违反赛场纪律", "第1副还没确认，不计入。")


# -- 3. a correction loses data -------------------------------------------------------------


def test_3_a_correction_opens_the_whole_hand_and_keeps_kitty_and_penalties(table):
    table.start()
    table.tap("end_play", "ok", "e_points:30", "e_last:defenders", "e_kitty:15",
              "e_shape:pair", "e_add", "e_pseat:E", "e_pkind:look-back", "e_finish")
    table.press("N", "E")
    before = table.session.export()["hands"][0]
    assert before["kitty"] == {"points": 15, "shape": "pair"} and before["penalties"]
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1")
    screen = table.screen
    assert screen.name == "correct.entry.points"
    assert [b.label for g in screen.grids for b in g.buttons if b.style == "selected"] == ["30"]
    table.tap("e_points:10", "e_last:defenders")
    assert [b.label for b in table.screen.grids[0].buttons if b.style == "selected"] == ["15"]
    table.tap("e_kitty:15", "e_shape:pair")
    assert len(table.screen.rows) == 1  # the penalty is still there
    table.tap("e_finish", "e_summary")
    screen = table.screen
    assert screen.name == "correct.summary"
    # the next dealer changes, and what the penalty costs now (issue 31)
    assert screen.lines == ("总分：80 → 60", "第1副后：南北打2→打3，东西打2→打2",
                            "下一副庄家：东 → 南", "东 翻看上一轮的牌：罚10分（从旁家得分中扣除）")
    table.tap("r_save_correction")
    after = table.session.export()["hands"][0]
    assert {k: after[k] for k in ("points", "kitty")} == {"points": 10, "kitty": before["kitty"]}
    assert [p["code"] for p in after["penalties"]] == ["look-back"]
    (event,) = [e for e in table.session.journal.events() if e.kind == "correction"]
    assert event.data["reason"] == "裁判更正"  # in the referee's words


# -- 4. entry -------------------------------------------------------------------------------


def test_4_entry_is_one_decision_a_screen_with_the_chosen_key_highlighted(table):
    table.start()
    table.tap("end_play", "ok")
    screen = table.screen
    assert screen.name == "entry.points"
    assert [b.label for b in screen.grids[0].buttons] == [str(v) for v in range(0, 201, 5)]
    table.tap("e_points:85")
    assert table.screen.name == "entry.last_trick"
    table.tap("e_last:defenders", "e_kitty:15")
    assert table.screen.lines == ("得分：85",)  # (said on every step of the entry)
    shapes = {b.action: b.label for b in table.screen.grids[0].buttons}
    assert shapes["e_shape:tractor4"] == "四连对\n×32 = 480"  # tractor4 offered, with its bonus
    assert shapes["e_shape:tractor6"] == "六连对\n×128 = 1920"  # (a referee could not enter 5)
    assert shapes["e_shape:pair"] == "对子\n×4 = 60"
    assert table.state.draft.kitty is None  # a kitty without its shape is never recorded
    table.tap("e_shape:pair")
    assert table.state.draft.kitty == {"points": 15, "shape": "pair"}
    table.tap("e_back")  # back on every step, the chosen key highlighted
    selected = [b.action for b in table.screen.grids[0].buttons if b.style == "selected"]
    assert selected == ["e_shape:pair"]
    table.tap("e_back", "e_back", "e_back")
    selected = [b.action for b in table.screen.grids[0].buttons if b.style == "selected"]
    assert table.screen.name == "entry.points" and selected == ["e_points:85"]


def test_4_a_penalty_asks_seat_then_kind_then_what_the_ruleset_asks(table):
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_add", "e_pseat:W")
    assert table.screen.title == "西：哪一项？"
    table.tap("e_pkind:card-count")
    assert table.screen.name == "entry.penalty_option"
    table.tap("e_popt:0")
    assert table.screen.title == "多牌少牌：几张牌？"
    table.tap("e_pval:3")
    screen = table.screen
    assert screen.name == "entry.penalties"
    assert [r.text for r in screen.rows] == [
        "西 多牌少牌 单方多牌或少牌 3张：罚30分（从旁家得分中扣除）"]  # and what it costs
    table.tap(screen.rows[0].button.action)  # delete: a recorded penalty is the referee's
    table.pin()
    assert table.screen.rows == () and not table.state.draft.penalties


def test_4_a_half_entered_hand_survives_a_restart(table):
    table.start()
    table.tap("end_play", "ok", "e_points:85", "e_last:defenders", "e_kitty:15")
    table.restart()
    assert table.screen.name == "paused"  # the match clock was running: the referee resumes
    table.tap("resume")
    table.pin()
    screen = table.screen
    assert screen.name == "entry.kitty_shape" and screen.title == "最后一轮的牌型（底牌 15 分）"
    table.tap("e_shape:pair")
    assert table.state.draft.kitty == {"points": 15, "shape": "pair"}
    assert table.state.draft.points == 85


# -- 5. result ------------------------------------------------------------------------------


def test_5_the_result_shows_the_breakdown_and_the_table_may_go_back(table):
    table.start()
    table.tap("end_play", "ok", "e_points:85", "e_last:defenders", "e_kitty:15",
              "e_shape:pair", "e_add", "e_pseat:S", "e_pkind:look-back", "e_finish")
    lines = table.screen.lines
    assert lines[:2] == ("得分 85 + 底牌 15×4 + 罚分 10 = 155",
                         "南 翻看上一轮的牌：罚10分（计入旁家）")
    assert "旁家上台，升 3 级（南北打2，东西打5）" in lines and "下一副庄家：东" in lines
    table.press("N")  # NS confirm, then the table sees a typo
    table.tap("reopen")  # what it drops is said first (a referee's review: it went silently)
    screen = table.screen
    assert (screen.name, screen.title) == ("confirm", "返回修改？")
    assert screen.lines == ("南北已经确认了这个结果；返回修改会取消这次确认，"
                            "改完后双方都要重新按键确认。",)
    table.tap("cancel")
    assert table.state.phase == "result" and table.state.draft.confirmed
    table.tap("reopen", "ok")
    assert table.screen.name == "entry.points" or table.state.phase == "entry"
    assert not table.state.draft.confirmed
    table.tap("e_finish")
    result_bar = [b.action for b in table.screen.nav]
    table.tap("dispute:EW")
    assert table.screen.name == "confirm" and table.state.phase == "result"
    assert table.screen.lines == ("本副冻结，等待裁判裁定。", "比赛计时照常进行。")
    table.tap("ok")
    assert table.state.phase == "disputed"
    # one button for the referee: 请裁判 and 裁判 side by side both asked for the PIN (a
    # referee's review)
    assert [(b.action, b.label) for b in table.screen.nav if b.action == "referee"] == [
        ("referee", "请裁判")]
    # and in the slot of 裁判, 记录 and the language in theirs: a referee tapping 裁判 by habit
    # opened 记录, which had moved into its place (a referee at the real window)
    bar = [b.action for b in table.screen.nav]
    assert len(bar) == len(result_bar)
    assert [a for a in bar if a] == [a for a in result_bar if a.split(":")[0] in (
        "history", "referee", "language")]
    for action in ("history", "referee"):
        assert bar.index(action) == result_bar.index(action)
    table.tap("referee")
    table.pin()  # the menu's close button promises no match going on: the hand stays frozen
    assert [b.label for b in table.screen.nav] == ["关闭"]


def test_5_penalties_that_cancel_out_are_in_the_breakdown(table):
    """+10 and −10 showed no 罚分 at all, with both penalties listed under it (a referee's
    review, 2026-12-06): the total's parts are all said."""
    table.start()
    table.tap("end_play", "ok", "e_points:85", "e_last:defenders", "e_kitty:15",
              "e_shape:pair")
    table.penalize("look-back", "SE")  # south: 10 to the defenders; east: 10 off theirs
    table.tap("e_finish")
    assert table.screen.lines[0] == "得分 85 + 底牌 15×4 + 罚分 0 = 145"


# -- 6. pause -------------------------------------------------------------------------------



def test_5_the_result_line_speaks_the_rulesets_words(table):
    """Each ruleset's own words for the sides, as on its score sheet and slip: chaodipi's
    抓分方 take over, its 庄家方 hold; in English too."""
    table.start("chaodipi-2011")
    table.play_out()
    table.enter(85, (15, "pair"))
    assert any(line.startswith("抓分方上台，升 ") for line in table.screen.lines)
    table.ctl.ui.lang = "en"
    assert any(line.startswith("This hand: defenders take over, up ")
               for line in table.screen.lines)
    table.ctl.ui.lang = "zh-Hans"
    table.tap("reopen")
    table.tap("e_points:40", "e_last:dealer", "e_finish")
    assert any(line.startswith("庄家方守庄，升 ") for line in table.screen.lines), \
        table.screen.lines


def test_chaodipis_zero_says_straight_to_a(table):
    """A referee's review: the defenders' 0 (大光) read 「升 3 级」 at J, where the rules say the
    dealer side goes straight to A (三.2: 「直接升打"A"级」)."""
    table.start("chaodipi-2011")
    table.play_out()
    table.enter(0)
    lines = table.screen.lines
    assert lines[1] == "庄家方守庄，直升 A（南北打A，东西打2）", lines
    table.ctl.ui.lang = "en"
    assert table.screen.lines[1].startswith("This hand: dealer side holds, straight to A ("), \
        table.screen.lines
    table.ctl.ui.lang = "zh-Hans"
    table.tap("reopen")
    table.tap("e_points:5", "e_last:dealer", "e_finish")  # 5: the band's eight levels
    assert table.screen.lines[1].startswith("庄家方守庄，升 8 级（"), table.screen.lines

def test_6_pause_is_one_long_press_and_the_move_starts_afresh_on_resume(table):
    table.start()
    table.clock.advance(3)  # N thinks for 3 s of 5
    table.tap("pause_table")  # the long press on the countdown: no PIN
    assert table.state.paused and table.screen.name == "paused"
    assert table.screen.big == "暂停"
    table.clock.advance(120)
    table.tap("resume")
    assert table.screen.name == "referee.pin"
    table.pin()
    assert not table.state.paused and table.screen.name == "clock.play"
    assert table.screen.clock == "5"  # a fresh move
    table.clock.advance(4.5)
    table.press("N")
    assert "time-overrun" not in [e.kind for e in table.session.journal.events()]


def test_6_the_clock_pauses_while_the_referee_overlay_is_open(table):
    table.start()
    table.clock.advance(2)
    table.tap("referee")
    assert table.state.paused and table.state.pause_reason == "referee-menu"
    table.clock.advance(30)  # the referee types, looks, decides
    assert table.session.move_time_left() == pytest.approx(3)
    table.tap("close")
    assert not table.state.paused
    assert table.session.move_time_left() == pytest.approx(5)


def test_6_an_overrun_before_a_pause_is_recorded_and_not_carried(table):
    table.start()
    table.clock.advance(7)  # 2 s over
    table.tap("pause_table")
    table.clock.advance(60)
    table.tap("resume")
    table.pin()
    table.clock.advance(1)
    table.press("N")
    overruns = [e.data for e in table.session.journal.events() if e.kind == "time-overrun"]
    assert [(o["seat"], round(o["over"], 1)) for o in overruns] == [("N", 2.0)]


# -- 7. play --------------------------------------------------------------------------------


def test_7_the_trick_counter_and_end_of_play_with_its_trick_count(table):
    table.start()
    table.play_tricks(3)
    screen = table.screen
    assert screen.clock_caption == "第 4/25 轮"
    table.tap("end_play")
    assert table.screen.lines == (
        "现在是第 4 轮，共 25 轮。结束后开始录入本副；录入时按“返回出牌”可以接着出牌。",)
    table.tap("cancel")
    assert table.state.phase == "play"
    table.play_out()
    screen = table.screen
    assert screen.name == "clock.done" and screen.title == "25 轮已全部打完" and screen.clock == ""
    assert all(seat.state == "idle" for seat in screen.seats)  # nothing runs red
    table.clock.advance(60)
    assert table.session.tick() == []
    table.tap("end_play")  # after the last trick: no question
    assert table.state.phase == "entry"
    table.tap("e_back_to_play")  # the end of play can be taken back
    assert table.state.phase == "play" and table.state.clock.done


def test_7_gathering_the_trick_is_not_charged_to_the_next_leader(table):
    table.start()
    for seat in "NESW":
        table.press(seat)
    table.clock.advance(6.5)  # 2 s to gather, then 4.5 s of the 5 to lead
    assert table.screen.clock == "1"
    table.press("E")
    assert "time-overrun" not in [e.kind for e in table.session.journal.events()]


def test_7_the_countdown_rounds_up(table):
    assert [seconds(x) for x in (5.0, 4.2, 0.5, 0.0, -0.3, -1.0, -1.2)] == \
        ["5", "5", "1", "0", "−1", "−1", "−2"]


# -- 8. match clock -------------------------------------------------------------------------


def test_8_a_table_set_up_by_hand_starts_its_match_clock_at_the_first_bury(table):
    table.tap("setup:xiamen-2015", "dealer:N")
    table.clock.advance(300)
    assert table.session.match_time_left() == pytest.approx(90 * 60)
    table.tap("trump:♠", "start_bury")
    table.clock.advance(60)
    assert table.session.match_time_left() == pytest.approx(89 * 60)


def test_8_time_up_shows_a_banner_saying_what_happens_now(table):
    table.start("chaodipi-2011")  # 60 minutes; finish the hand, then the leader wins
    table.clock.advance(3600)
    table.runner.step()
    screen = table.screen
    assert (screen.name, screen.title, screen.big, screen.lines) == (
        "time_up", "比赛时间已用完", "时间到", ("打完本副，比赛结束",))  # 时间到 once
    table.tap("time_up_ok")
    assert table.screen.name.startswith("clock")
    assert ("比赛时间", "时间到") in [(p.caption, p.value) for p in table.screen.strip]


# -- 9. at a glance -------------------------------------------------------------------------


def test_9_the_strip_shows_dealer_level_trump_levels_and_time_and_a_mute_flag(table):
    table.tap("setup:xiamen-2015", "dealer:E", "trump:♥", "start_bury")
    strip = [(p.caption, p.value) for p in table.screen.strip]
    assert strip == [("庄家", "东"), ("打", "2"), ("主", "♥"), ("南北 : 东西", "2 : 2"),
                     ("比赛时间", "90:00")]
    assert "muted" not in table.screen.flags
    table.do(lambda s: table.runner.toggle_mute())
    assert "muted" in table.screen.flags and table.screen.notice.text == "蜂鸣器已静音"


def test_9_the_trump_step_records_the_trump(table):
    table.tap("setup:standard-80fen", "dealer:S", "trump:NT")
    assert table.state.draft.trump == {"suit": "NT", "seat": "S"}
    assert [b.label for b in table.screen.grids[0].buttons if b.style == "selected"] == ["无主"]


def test_9_xiamen_offers_no_no_trump_key(table):
    table.tap("setup:xiamen-2015", "dealer:S")
    assert [b.action for b in table.screen.grids[0].buttons] == [
        "trump:♠", "trump:♥", "trump:♣", "trump:♦"]  # art. 2 「不打無主」


# -- 10. PIN pad ----------------------------------------------------------------------------


def test_10_the_pin_pad_says_wrong_pin_and_counts_the_lockout_down(table):
    table.tap("referee", "pin:1", "pin:2", "pin_back")
    assert table.screen.lines[-1] == "●"  # (what is typed: the last line)
    table.tap("pin_clear")
    assert table.screen.lines[-1] == "请输入密码"
    table.pin("1111")
    assert table.screen.notice.text == "密码错误，还可再试 2 次"
    table.pin("1111")
    table.pin("1111")
    assert table.screen.notice.text == "密码错误次数太多，已锁定：60 秒后再试"
    assert table.screen.lines[-1] == "已锁定：60 秒后再试"
    table.clock.advance(2.5)
    assert table.screen.lines[-1] == "已锁定：58 秒后再试"
    table.clock.advance(58)
    table.pin()
    assert table.screen.name == "referee"


# -- 11. setup and after --------------------------------------------------------------------


def test_11_rulesets_by_their_own_names_and_any_number_of_them(tmp_path, rulesets):
    house = tmp_path / "house"
    house.mkdir()
    source = (ROOT / "kiosk" / "rules" / "data" / "xiamen-2015.toml").read_text()
    for i in range(7):
        (house / f"house-{i}.toml").write_text(
            source.replace('id = "xiamen-2015"', f'id = "house-{i}"'), encoding="utf-8")
    from kiosk.rules import Rulesets

    t = Table(tmp_path / "data", Rulesets.load([house]))
    names = []
    while True:
        screen = t.screen
        names += [b.label for b in screen.grids[1].buttons]
        more = [b.action for b in screen.nav if b.action.startswith("page:") and
                b.action != f"page:{t.ctl.ui.page - 1}"]
        if not more:
            break
        t.tap(more[0])
    assert len(names) == 11 and "2015年厦门市粮食系统运动会八十分赛" in names
    assert not ascii_words(names)


def test_11_names_are_typed_on_the_screen_keyboard(table):
    # (in Latin letters: the keyboard starts in pinyin on the Chinese screens)
    table.tap("name:NS", "key_mode", "key:T", "key_case", "key:I", "key:G", "key:E", "key:R",
              "key:S", "key_done")
    table.tap("name:W", "key_mode", "key:W", "key_case", "key:A", "key:N", "key:G", "key_back",
              "key:G", "key_done")
    table.tap("setup:standard-80fen")
    setup = table.state.setup
    assert (setup["teams"], setup["players"]) == ({"NS": "Tigers"}, {"W": "Wang"})


def test_11_after_a_match_the_referee_opens_the_next_one(table):
    table.tap("setup:xiamen-2015", "referee")
    table.pin()
    table.tap("r_forfeit", "r_fkind:forfeit", "r_fteam:EW", "r_freason:absent", "ok")
    table.restart()
    assert table.screen.name == "over"
    table.tap("new_match")
    assert table.screen.name == "referee.pin"  # behind the PIN
    table.pin()
    assert table.screen.name == "setup"
    table.tap("setup:standard-80fen")
    assert table.session.journal.matches() == ["1", "2"]
    assert table.state.phase == "ready"


def test_time_up_is_not_offered_where_the_match_has_no_time_and_no_rule_for_it(table):
    """standard-80fen has no match time and no time-up rule: 宣布时间到 said 「请裁判裁定结果」,
    then left nothing to rule with and the table dealing on (a referee at the real window)."""
    table.tap("setup:standard-80fen", "dealer:S", "referee")
    table.pin()
    actions = [b.action for b in table.screen.grids[0].buttons]
    assert "r_time_up" not in actions and "r_forfeit" in actions  # (xiamen offers it: above)


def test_a_team_name_ending_in_a_digit_does_not_run_into_its_level(table):
    """「厦门1 7 : 4 海沧」 read as 厦门17 (a referee at the real window): each level is said
    with its team's 打."""
    table.ctl.ui.names = {"NS": "厦门1", "EW": "海沧"}
    table.start()
    table.enter(40)
    assert "庄家方守庄，升 2 级（厦门1打4，海沧打2）" in table.screen.lines


def test_11_the_history_has_headings_seats_in_chinese_kitty_and_penalties(table):
    table.start()
    table.tap("end_play", "ok", "e_points:30", "e_last:defenders", "e_kitty:15",
              "e_shape:pair", "e_add", "e_pseat:E", "e_pkind:look-back", "e_finish")
    table.press("N", "E")
    table.tap("history")
    lines = table.screen.lines
    # the total under 得分, as the slip heads it (the history's 得分 was the points in tricks)
    assert lines[0].split() == ["副", "庄", "打", "抓分", "得分", "结果", "南北:东西"]
    assert lines[1].split("\n")[0].split() == ["1", "北", "2", "30", "80", "上台", "+0", "2:2"]
    assert lines[1].split("\n")[1].strip() == \
        "底牌 15×4；东 翻看上一轮的牌：罚10分（从旁家得分中扣除）"


def test_11_reprint_without_a_printer_says_so(table):
    table.tap("setup:xiamen-2015", "reprint")
    assert table.screen.notice.text == "本桌没有连接打印机：记分条显示在屏幕上"


# -- undo, the referee's -------------------------------------------------------------------


def test_the_referee_undoes_a_redeal_a_dealer_grab_and_a_leader(table):
    table.tap("setup:xiamen-2015", "dealer:N", "redeal", "redeal:E", "ok")
    assert table.state.draft.number == 2 and table.state.draft.dealer is None
    table.tap("undo")  # the redeal: the referee's, behind the PIN
    table.pin()
    assert table.state.draft.number == 1 and table.state.draft.dealer == "N"
    assert table.session.state.played == []
    assert table.screen.notice.text == "已撤销革命"  # (the button that said it is gone)
    table.tap("undo")  # the grab
    assert table.state.draft.dealer is None
    assert table.screen.notice.text == "已撤销抢庄"
    table.tap("dealer:S", "trump:♠", "start_bury")
    table.press("S", "S", "W", "N", "E")
    table.press("W")  # W pressed first, but N led
    table.tap("referee")
    table.pin()
    table.tap("r_leader", "r_leader:N")
    assert (table.state.clock.leader, table.state.clock.seat) == ("N", "E")
    table.tap("r_undo")
    assert table.state.clock.leader == "W"
    assert table.screen.notice.text == "已撤销领出更正"


def test_undo_says_what_it_takes_back_on_the_clock_and_in_the_referee_menu(table):
    """A bare 撤销 on the clock left the referee to guess which press it would take back."""
    table.start()  # xiamen, dealer N: the bury's clock
    table.press("N")  # the bury done: the lead's clock
    assert next(b.label for b in table.screen.nav if b.action == "undo") == "撤销北的按键"
    table.press("N", "E")
    assert next(b.label for b in table.screen.nav if b.action == "undo") == "撤销东的按键"
    table.tap("undo")
    assert table.state.clock.seat == "E"  # E's press taken back: E to move again
    assert (table.screen.notice.text, table.screen.notice.level) == ("已撤销东的按键", "info")
    assert next(b.label for b in table.screen.nav if b.action == "undo") == "撤销北的按键"
    table.tap("referee")
    table.pin()
    assert next(b.label for b in table.screen.grids[0].buttons if b.action == "r_undo") \
        == "撤销北的按键"


# -- issue 13 on the kiosk: offences by the seats that can commit them, the referee's ----------
# -- confirmation, one penalty per incident, redeal callers, each ruleset's own words ----------


def test_13_a_penalty_step_offers_only_what_the_seat_can_commit(table):
    table.start()  # xiamen, dealer N
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_add", "e_pseat:W")
    kinds = [b.action for b in table.screen.grids[0].buttons]
    assert "e_pkind:kitty-peek" not in kinds and "e_pkind:kitty-recount" in kinds
    table.tap("e_back", "e_pseat:N")  # the dealer may peek at the kitty, not recount it
    kinds = [b.action for b in table.screen.grids[0].buttons]
    assert "e_pkind:kitty-peek" in kinds and "e_pkind:kitty-recount" not in kinds
    table.do(lambda s: s.add_penalty("kitty-peek", "W"))  # the session refuses it too
    assert table.runner.notice.key.startswith("rules.")
    assert "西" in table.screen.notice.text and not ascii_words([table.screen.notice.text])


def test_a_cost_the_referee_confirmed_is_not_undone_by_a_tap_at_the_table(table):
    """撤销扣底完毕 on the fry step took back S's bury press and with it the 80 points the
    referee had just confirmed for its overrun, with no PIN (a referee at the real window);
    striking out a penalty is the referee's."""
    table.tap("setup:chaodipi-2011", "dealer:N")
    for _ in range(2):  # N's side overruns its bury twice (N, then partner S)
        table.tap("trump:♠", "start_bury")
        table.clock.advance(61)
        table.press(table.state.clock.seat)
        if table.state.draft.number == 2:
            break
        table.tap("no_fry", "end_play", "ok", "e_points:40", "e_last:dealer", "e_finish")
        table.press("N", "E")
    assert table.screen.name == "fry" and table.runner.view.undo_referees is False
    table.tap("referee")
    table.pin()
    table.tap(next(b.action for b in table.screen.grids[0].buttons
                   if b.action.startswith("r_pconfirm")), "ok")
    if table.screen.name == "referee":
        table.tap("close")
    (penalty,) = table.state.draft.penalties.values()
    assert penalty["confirmed"] and table.runner.view.undo_referees
    table.tap("undo")  # a player's tap: the PIN is asked, nothing is taken back
    assert (table.screen.name, table.screen.title) == ("referee.pin", "裁判密码：撤销南的按键")
    assert list(table.state.draft.penalties.values()) == [penalty]
    with pytest.raises(SessionError):  # (the session refuses it from anywhere else too)
        table.session.undo()
    table.pin()  # the referee's: taken back, the cost with it
    assert table.state.draft.penalties == {} and table.state.clock.seat == "S"


def test_13_a_play_overrun_reads_once_where_its_choice_names_the_offence_and_cost(table):
    """chaodipi's overrun is entered by its choice (出牌超时：警告): the list said
    「北 超时 出牌超时：警告 5.0 秒：警告」, the offence and the warning twice."""
    table.tap("setup:chaodipi-2011", "dealer:N", "trump:♠", "start_bury")
    table.press("N")
    table.tap("no_fry")
    table.clock.advance(table.state.clock.limit + 5)  # N leads 5 s past the play clock
    table.press("N")
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    assert [r.text for r in table.screen.rows] == ["北 出牌超时 5.0 秒：警告"]
    # a referee's fine in its range: the range gives way to the points given (a referee's
    # review: 「北 出牌超时：罚10至80分：罚20分」)
    table.tap("e_add", "e_pseat:E", "e_pkind:time-overrun", "e_popt:1", "e_pval:20")
    if table.screen.name == "entry.penalty_incident":
        table.tap("e_pinc:new")
    assert [r.text for r in table.screen.rows][-1] == "东 出牌超时：罚20分（从抓分方得分中扣除）"


def test_13_a_second_bury_overrun_calls_the_referee_who_confirms_the_80(table):
    table.tap("setup:chaodipi-2011", "dealer:N")
    for _ in range(2):  # N's side overruns its bury twice (N, then partner S)
        table.tap("trump:♠", "start_bury")
        table.clock.advance(61)
        buzz = table.runner.lights._beep_until
        table.press(table.state.clock.seat)
        if table.state.draft.number == 2:
            break
        table.tap("no_fry", "end_play", "ok", "e_points:40", "e_last:dealer", "e_finish")
        table.press("N", "E")
    notice = table.screen.notice
    assert (notice.level, notice.text) == ("alert", "请裁判：南家超时，罚分需裁判确认")
    assert table.runner.lights._beep_until > buzz  # and the buzzer sounds
    table.clock.advance(60)
    assert table.screen.notice.text  # it stays until the referee acts
    table.tap("no_fry", "end_play", "ok", "e_points:40", "e_last:dealer")
    rows = [r.text for r in table.screen.rows]
    assert rows == ["南 扣底超时 1.0 秒（立即招请裁判）：待裁判确认"]
    table.tap("e_finish")
    assert table.screen.lines[0] == "得分 40"  # (a review: 「得分 40 = 40」 said it twice)
    table.tap("referee")
    table.pin()
    confirm = [b for b in table.screen.grids[0].buttons if b.action.startswith("r_pconfirm")]
    table.tap(confirm[0].action)
    assert table.screen.lines == ("南 超时：罚80分（计入抓分方）",)
    table.tap("ok", "close")
    table.tap("e_finish")
    assert table.screen.lines[0] == "得分 40 + 罚分 80 = 120"


def test_13_a_second_penalty_at_a_seat_asks_if_it_is_the_same_incident(table):
    table.start()  # xiamen: one penalty per incident (art. 22 一错不二罚)
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_add", "e_pseat:E",
              "e_pkind:exposed-card", "e_add", "e_pseat:E", "e_pkind:wrong-follow")
    screen = table.screen
    assert screen.name == "entry.penalty_incident"
    # the title short enough for portrait (it was cut: 「东这一项与本副已…」), the offence named
    assert screen.title == "东：同一次犯规吗？"
    assert screen.lines[0] == "新记的：东 跟错牌。它与下面已记的哪一项是同一次犯规？"
    first = table.state.draft.penalties
    (pid,) = first
    table.tap(f"e_pinc:{pid}")  # the same incident: xiamen adds no second penalty
    assert len(table.state.draft.penalties) == 1
    assert table.screen.name == "entry.penalties"
    table.tap("e_add", "e_pseat:E", "e_pkind:wrong-follow", "e_pinc:new")
    assert len(table.state.draft.penalties) == 2


def test_13_a_redeal_is_offered_to_the_defenders_with_its_condition(table):
    table.tap("setup:xiamen-2015", "dealer:N", "redeal")
    screen = table.screen
    assert [b.action for b in screen.grids[0].buttons if b.action] == ["redeal:W", "redeal:E"]
    assert screen.lines and "15" in screen.lines[0]
    table.tap("redeal:E", "ok")
    assert table.session.export()["hands"][0] == {"redeal": True, "dealer": "N",
                                                  "called_by": "E"}


def test_13_each_ruleset_in_its_own_words(table):
    table.start("chaodipi-2011")
    table.tap("end_play", "ok")
    assert table.screen.title == "抓分方得分（不含底牌）"
    table.tap("e_points:40")
    labels = [b.label for b in table.screen.grids[0].buttons]
    assert labels == ["抓分方（东西）", "庄家方（南北）"]


def test_4_many_penalties_are_shown_a_page_at_a_time(table):
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("exposed-card", "NESW")
    screen = table.screen  # the page of the penalty just added (issue 31, finding 5)
    assert len(screen.rows) == 1 and "page:0" in screen.actions()
    table.tap("page:0")
    assert len(table.screen.rows) == 3
    table.tap("e_finish")
    assert len(table.screen.lines) < 8  # the penalties fold into one line of the result


def test_the_hall_pauses_and_resumes_a_table_and_the_banner_says_so(table):
    table.start()
    table.do(lambda s: s.follow_hall(True))
    screen = table.screen
    assert screen.name == "paused" and screen.title == "全场暂停"
    table.do(lambda s: s.follow_hall(False))
    assert not table.state.paused
    table.tap("pause_table")  # a table's own pause is not the hall's to resume
    table.do(lambda s: s.follow_hall(False))
    assert table.state.paused


def test_the_hall_banners_say_who_acted(table):
    table.start("chaodipi-2011")
    table.do(lambda s: s.follow_hall(True))
    assert table.screen.lines[-1] == "裁判长在记分台恢复全场后，本桌自动继续"
    table.do(lambda s: s.follow_hall(False))
    table.do(lambda s: s.follow_hall_extension(300))
    assert table.runner.notice.key == "table.hall_extended"
    table.do(lambda s: s.follow_hall_stop())
    screen = table.screen
    assert (screen.name, screen.title, screen.lines) == (
        "time_up", "裁判长宣布全场时间到", ("打完本副，比赛结束",))


def test_the_historys_heading_names_the_sides_where_the_teams_do_not_fit(table):
    """A referee's review: in portrait 「福州榕树:海沧红狮」 broke as 「福州榕树:海沧」⏎「红狮」 in
    the history's heading. Where the teams' names do not fit it names the sides (南北:东西), as
    the clock's strip does; where they fit they stay."""
    table.ctl.ui.names = {"NS": "福州榕树", "EW": "海沧红狮"}
    table.start()
    table.play_out()
    table.enter(40)
    table.press("N", "E")
    table.tap("history")
    portrait = present(table.runner.view, table.clock.now(), table.ctl.ui, portrait=True)
    assert portrait.lines[0].split()[-1] == "南北:东西"
    assert width(portrait.lines[0]) <= HISTORY_COLUMNS[True]
    landscape = present(table.runner.view, table.clock.now(), table.ctl.ui, portrait=False)
    assert landscape.lines[0].split()[-1] == "福州榕树:海沧红狮"
