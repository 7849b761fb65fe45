"""chaodipi's fry step through the kiosk's controller, runner and session (no window): what the
referee taps after a bury, and where the frier's trump shows (audit of the kiosk, findings 5
and 6). The real window: tests/test_ui_fry.py."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def fried_hand(table) -> None:
    """chaodipi, N deals with ♣ and buries; E fries with ♥ and re-buries; nobody fries again;
    two tricks are played and the hand is entered and confirmed."""
    table.tap("setup:chaodipi-2011", "dealer:N", "trump:♣", "start_bury")
    table.press("N")
    assert table.screen.name == "fry"
    table.tap("fry:E")
    assert table.screen.name == "fry.trump"
    table.tap("fry_trump:♥")
    assert (table.screen.name, table.state.clock.seat) == ("clock.bury", "E")
    table.press("E")
    table.tap("no_fry")
    table.play_tricks(2)
    table.enter(40)
    table.press("N", "E")


def test_the_fry_step_offers_the_seats_that_may_fry_and_nobody(table):
    table.tap("setup:chaodipi-2011", "dealer:N", "trump:♣", "start_bury")
    table.press("N")
    screen = table.screen
    assert screen.title == "北 扣底完毕：谁炒底？"
    assert [b.action for b in screen.grids[0].buttons if b.action] == ["fry:W", "fry:E",
                                                                       "fry:S"]
    assert "no_fry" in screen.actions() and not screen.seats  # no countdown runs
    table.press("N")  # the dealer presses before the table decided
    assert table.screen.notice.text == "请先决定炒底：在屏幕上选谁炒底，或点「无人炒底」"
    table.tap("fry:E", "fry_back")  # changed their mind: nothing recorded
    assert table.screen.name == "fry" and table.state.draft.buriers == ["N"]
    table.tap("no_fry")
    assert (table.screen.name, table.screen.title) == ("clock.play", "北 出牌")
    assert not [a for a in table.screen.actions() if a.startswith("fry")]


def test_the_frier_trump_shows_on_the_strip_the_history_and_the_slip(table):
    fried_hand(table)
    table.tap("history")
    assert "东炒底，主红桃" in table.screen.lines[1]
    table.tap("close")
    assert table.session.export()["hands"][0]["trump"] == {"suit": "♥", "seat": "E"}
    slip = table.slip()
    assert "东炒底，主红桃" in slip
    # a printed-record review: ♥ went to the printer as four bytes of GB18030, which a
    # thermal printer's GB2312 font does not have; every character of the slip is in GB2312
    slip.encode("gb2312")


def test_the_strip_shows_the_frier_trump_while_it_reburies(table):
    table.tap("setup:chaodipi-2011", "dealer:N", "trump:♣", "start_bury")
    table.press("N")
    table.tap("fry:W", "fry_trump:NT")
    strip = {p.caption: p.value for p in table.screen.strip}
    assert strip["主"] == "无主" and table.screen.title == "西 扣底"


def test_no_bury_without_a_trump(table):
    table.tap("setup:xiamen-2015", "dealer:N", "start_bury")
    assert table.state.phase == "ready"
    assert table.screen.notice.text == "请先选主，再开始扣底"
    table.tap("trump:♦", "start_bury")
    assert table.state.phase == "bury"


def test_a_correction_of_a_fried_hand_keeps_who_fried_and_buried(table):
    """A referee corrected a fried hand's points: the record then said the dealer had set the
    trump and nobody had buried after him, and the frier's kitty penalty would have been the
    dealer's (a referee at the real window, chaodipi)."""
    fried_hand(table)
    played = table.session.export()["hands"][0]
    assert (played["trump"], played["buried_by"]) == ({"suit": "♥", "seat": "E"}, "E")
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:45", "e_last:dealer", "e_finish",
              "e_summary", "r_save_correction")
    corrected = table.session.export()["hands"][0]
    assert corrected["points"] == 45
    assert (corrected["trump"], corrected["buried_by"]) == ({"suit": "♥", "seat": "E"}, "E")
    table.tap("close")
    table.tap("history")
    assert "东炒底，主红桃" in table.screen.lines[1]



def test_the_referees_menu_stops_the_match_clock_at_the_fry_step_too(table):
    """At the fry step no move clock runs, and the referee's menu left the match clock
    running while the table waited on the referee (a referee's review); in the bury and the
    play it stops both."""
    table.tap("setup:chaodipi-2011", "dealer:N", "trump:♣", "start_bury")
    table.press("N")
    assert table.screen.name == "fry"
    match = table.state.match_clock
    assert match is not None and match.running
    table.tap("referee")
    table.pin()
    assert table.state.paused and not match.running
    used = match.elapsed
    table.clock.advance(120)  # the referee at the table
    table.tap("close")
    assert not table.state.paused and match.running
    table.clock.advance(1)
    assert table.clock.now() - match.started == pytest.approx(used + 1)


def test_a_latin_name_stands_apart_from_the_chinese_after_it():
    """A printed-record review (Low): 「东 Li Wei炒底」."""
    from kiosk.words.hand import fry_words

    fried = {"buried_by": "E", "dealer": "N", "trump": {"suit": "♥"}}
    assert fry_words(fried, "zh-Hans", {"E": "Li Wei"}) == "东 Li Wei 炒底，主红桃"
    assert fry_words(fried, "zh-Hans", {"E": "王五"}) == "东 王五炒底，主红桃"
    assert fry_words(fried, "en", {"E": "Li Wei"}) == "E Li Wei fried the kitty, trump hearts"
