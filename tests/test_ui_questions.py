"""The referee's screens that say more since a referee's review (2026-12-06) — who deals after
a redeal, who is recorded as leader, the result a ruling confirms, a hand of many penalties —
in the real window under Xvfb, landscape and portrait: nothing drawn over the title or the
bottom bar, no word cut."""

from __future__ import annotations

import pytest

from kiosk.ui import wizard

from .helpers import tool, xvfb
from .kiosk_driver import Table
from .test_kiosk_correction_words import a_match_of_seven_hands
from .test_kiosk_many_penalties import counted, many_overruns
from .test_kiosk_match_loss import at_the_penalties
from .window import cut_words, play

pytestmark = pytest.mark.window

PIN = [("touch", "pin:0")] * 4 + [("touch", "pin_ok")]
SCRIPT = [
    ("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
    ("touch", "dealer:N"), ("wait", "ready"), ("touch", "redeal"), ("wait", "ready.redeal"),
    ("touch", "redeal:E"), ("wait", "confirm"), ("shot", "redeal"), ("touch", "cancel"),
    ("wait", "ready"), ("touch", "trump:♠"), ("touch", "start_bury"), ("wait", "clock.bury"),
    ("seat", "N"), ("wait", "clock.play"), ("seat", "N"), ("seat", "E"), ("touch", "referee"),
    ("wait", "referee.pin"), *PIN, ("wait", "referee"), ("touch", "r_leader"),
    ("wait", "referee.leader"), ("shot", "leader"), ("touch", "r_back"), ("wait", "referee"),
    ("touch", "close"), ("wait", "clock.play"), ("play_out", ""), ("wait", "clock.done"),
    ("touch", "end_play"), ("wait", "entry.points"), ("touch", "e_points:40"),
    ("wait", "entry.last_trick"), ("touch", "e_last:dealer"), ("wait", "entry.penalties"),
    ("touch", "e_finish"), ("wait", "result"), ("touch", "dispute:NS"), ("wait", "confirm"),
    ("touch", "ok"), ("wait", "disputed"), ("touch", "referee"), ("wait", "referee.pin"), *PIN,
    ("wait", "referee"), ("touch", "r_rule"), ("wait", "confirm"), ("shot", "rule")]


@pytest.fixture(scope="module")
def display():
    with xvfb("800x1280x24") as name:
        yield name


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_the_referees_questions_fit_the_window(tmp_path, display, size):
    _, screens = play(tmp_path, display, SCRIPT, size=size)
    asked = ("confirm", "referee.leader")
    assert screens["spill"] == []
    assert [cut for cut in screens["overflow"] if cut[0] in asked] == []
    assert [cut for cut in cut_words(screens) if cut[0] in asked] == []
    said = {name: "\n".join(texts) for name, texts in screens["texts"].items()}
    assert "重新抢庄" in said["confirm"] and "本副按以上结果确认" in said["confirm"]
    assert "现在记为北领出，这一轮已有 2 家出牌。" in said["referee.leader"]


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_a_hand_of_many_penalties_fits_its_result_and_correction(tmp_path, display, rulesets,
                                                                 size):
    table = Table(tmp_path / "data", rulesets)
    overruns = many_overruns(table)
    table.session.close()
    script = [("wait", "paused"), ("touch", "resume"), ("wait", "referee.pin"), *PIN,
              ("wait", "result"), ("shot", "result"), ("seat", "N"), ("seat", "E"),
              ("wait", "ready"), ("touch", "referee"), ("wait", "referee.pin"), *PIN,
              ("wait", "referee"), ("touch", "r_correct"), ("wait", "referee.correct_pick"),
              ("touch", "r_correct:1"), ("touch", "e_points:85"), ("touch", "e_last:defenders"),
              ("touch", "e_kitty:20"), ("touch", "e_shape:pairs2"),
              ("wait", "correct.entry.penalties"), ("shot", "plist"), ("touch", "e_finish"),
              ("wait", "correct.entry.trump"), ("touch", "e_summary"),
              ("wait", "correct.summary"), ("shot", "correction")]
    _, screens = play(tmp_path, display, script, size=size)
    read = ("result", "correct.summary")
    assert screens["spill"] == []
    assert [cut for cut in cut_words(screens) if cut[0] in read] == []
    for name in read:
        said = "\n".join(screens["texts"][name])
        assert counted(said) == {"北东南西"["NESW".index(s)]: n for s, n in overruns.items()}


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_a_correction_of_an_early_hand_fits_its_summary(tmp_path, display, rulesets, size):
    table = Table(tmp_path / "data", rulesets)
    a_match_of_seven_hands(table)
    table.session.close()
    script = [("wait", "over"), ("touch", "referee"), ("wait", "referee.pin"), *PIN,
              ("wait", "referee"), ("touch", "r_correct"), ("wait", "referee.correct_pick"),
              ("touch", "r_correct:1"), ("touch", "e_points:160"), ("touch", "e_last:dealer"),
              ("wait", "correct.entry.penalties"), ("touch", "e_finish"),
              ("wait", "correct.entry.trump"), ("touch", "e_summary"),
              ("wait", "correct.summary"), ("shot", "correction")]
    _, screens = play(tmp_path, display, script, size=size)
    assert screens["spill"] == []
    assert [cut for cut in cut_words(screens) if cut[0] == "correct.summary"] == []
    assert "第7副后：南北打A→打A，东西打2→打6" in screens["texts"]["correct.summary"]


def test_a_bounce_on_delete_in_a_correction_strikes_out_one_penalty(tmp_path, display,
                                                                    rulesets):
    """The referee's finger bounces on 删除 (two taps of the X pointer 90 ms apart): the row
    under it moves up where the first was, and was struck out too (a referee's review,
    2026-12-06). The moved row is new where it lands: the bounce is not taken."""
    tool("xdotool")
    table = Table(tmp_path / "data", rulesets)
    many_overruns(table)
    table.press(*"NESW")
    first = wizard.record_values(table.runner.view.records[0]).penalties[0][0]
    table.session.close()
    script = [("wait", "paused"), ("touch", "resume"), ("wait", "referee.pin"), *PIN,
              ("wait", "ready"), ("touch", "referee"), ("wait", "referee.pin"), *PIN,
              ("wait", "referee"), ("touch", "r_correct"), ("wait", "referee.correct_pick"),
              ("touch", "r_correct:1"), ("touch", "e_points:85"), ("touch", "e_last:defenders"),
              ("touch", "e_kitty:20"), ("touch", "e_shape:pairs2"),
              ("wait", "correct.entry.penalties"), ("double", f"e_del:{first}"),
              ("wait", "correct.entry.penalties"), ("touch", "e_finish"),
              ("wait", "correct.entry.trump"), ("touch", "e_summary"),
              ("wait", "correct.summary")]
    _, screens = play(tmp_path, display, script, pointer=True)
    removed = [line for line in screens["texts"]["correct.summary"] if "删除" in line]
    assert removed == ["删除：北 超时 2.0 秒：警告"], removed


def test_a_bounce_on_the_last_rows_delete_opens_nothing_under_it(tmp_path, display,
                                                                  rulesets):
    """The last penalty struck out, 「＋ 添加罚则」 moved up under the finger, and the finger's
    bounce opened 「哪个座位犯规？」 (a referee's review): a button that moved is new where it
    lands, the rows above it counted before the buttons below."""
    tool("xdotool")
    table = Table(tmp_path / "data", rulesets)
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("look-back", "WE")
    table.tap("e_finish")
    table.press("N", "E")
    last = wizard.record_values(table.runner.view.records[0]).penalties[-1][0]
    table.session.close()
    script = [("wait", "paused"), ("touch", "resume"), ("wait", "referee.pin"), *PIN,
              ("wait", "ready"), ("touch", "referee"), ("wait", "referee.pin"), *PIN,
              ("wait", "referee"), ("touch", "r_correct"), ("wait", "referee.correct_pick"),
              ("touch", "r_correct:1"), ("touch", "e_points:40"), ("touch", "e_last:dealer"),
              ("wait", "correct.entry.penalties"), ("double", f"e_del:{last}"),
              ("shot", "after")]
    _, screens = play(tmp_path, display, script, pointer=True)
    assert "correct.entry.penalty_seat" not in screens["texts"]


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_a_refused_penalty_is_said_whole(tmp_path, display, rulesets, size):
    """The notice band said 「“同伴不报错”只能与本方（东、西）在同一副牌的出错…」 in portrait:
    a notice too long for its line is said on two in a smaller size."""
    table = Table(tmp_path / "data", rulesets)
    at_the_penalties(table)
    table.session.close()
    script = [("wait", "paused"), ("touch", "resume"), ("wait", "referee.pin"), *PIN,
              ("wait", "entry.penalties"), ("touch", "e_add"), ("touch", "e_pseat:E"),
              ("touch", "e_pkind:partner-silent"), ("wait", "entry.penalty_kind"),
              ("shot", "refused")]
    _, screens = play(tmp_path, display, script, size=size)
    assert "请先记本方（东、西）本副出错牌的罚分，再记“同伴不报错”" in \
        screens["texts"]["entry.penalty_kind"]
    assert [cut for cut in cut_words(screens) if cut[0] == "entry.penalty_kind"] == []
    assert [cut for cut in screens["overflow"] if cut[0] == "entry.penalty_kind"] == []
