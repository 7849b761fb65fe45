"""What a referee met at the table (issue 31, findings 5 and 6 and the small ones), through the
real controller, presenter, runner and session on an injected clock."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def overrun_penalty(table):
    return [p for p in table.state.draft.penalties.values() if p["code"] == "time-overrun"]


def test_5_the_penalty_just_added_is_shown_on_its_page(table):
    """800×480 lists 3 penalties a page: the 4th went to page 2 while the list showed page 1."""
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("exposed-card", "NESW")
    rows = [r.text for r in table.screen.rows]
    assert any(r.startswith("西") for r in rows), rows  # W's, the 4th, is in sight
    assert any("第2/2页" in b.label.replace(" ", "") for b in table.screen.nav)


def test_6_which_side_is_which_is_a_strong_caption_on_the_clock(table):
    table.start()
    levels = next(p for p in table.screen.strip if ":" in p.value)
    assert levels.caption == "南北 : 东西" and levels.strong


def test_the_halls_pause_banner_offers_no_resume_of_its_own(table):
    table.start()
    table.do(lambda s: s.follow_hall(True))
    screen = table.screen
    assert screen.name == "paused"
    assert "resume" not in screen.actions()  # it says the table resumes with the hall
    assert "referee" in screen.actions()  # the referee's menu can, behind the PIN


def test_a_kitty_of_0_points_asks_no_shape(table):
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:defenders", "e_kitty:0")
    assert table.screen.name == "entry.penalties"
    assert table.state.draft.kitty == {"points": 0, "shape": "single"}
    table.tap("e_back")
    assert table.screen.name == "entry.kitty_points"


def test_a_clock_overrun_is_never_offered_as_the_same_incident(table):
    table.start()
    table.clock.advance(8)
    table.press("N")  # 3 s over: charged by the clock
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    assert overrun_penalty(table)
    table.tap("e_add", "e_pseat:N", "e_pkind:look-back")
    assert table.screen.name == "entry.penalties"  # not 「同一次违规？」 with the overrun


def test_the_strip_does_not_say_paused_while_a_question_holds_the_clock(table):
    table.start()
    table.tap("end_play")
    screen = table.screen
    assert screen.name == "confirm" and table.state.paused  # the move clock is held
    assert "已暂停" not in screen.status


def test_english_screens_have_no_full_width_colons(table):
    table.ctl.ui.lang = "en"
    screen = table.screen
    labels = [b.label for g in screen.grids for b in g.buttons]
    assert "NS team: —" in labels
    assert not [x for x in labels if "：" in x]


def test_chinese_screens_keep_their_colons(table):
    labels = [b.label for g in table.screen.grids for b in g.buttons]
    assert "南北队名：—" in labels


def test_a_dispute_button_breaks_between_the_team_and_its_words(table):
    """「同安老年队有⏎异议」: the team's name on a line, 「有异议」 whole on the next."""
    from kiosk.words.textfmt import wrap

    table.tap("name:NS")
    for letters, word in (("tong", "同"), ("an", "安")):
        for letter in letters:
            table.tap(f"key:{letter.upper()}")
        table.tap(next(b.action for g in table.screen.grids for b in g.buttons
                       if b.label == word))
    table.tap("key_done")
    table.start()
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer", "e_finish")
    label = next(b.label for b in table.screen.nav if b.action == "dispute:NS")
    assert label.split("\n") == ["同安", "有异议"]
    for cols in range(6, 12):  # as a narrow button breaks it
        assert "有异议" in [line for part in label.split("\n") for line in wrap(part, cols)]


def menu_places(table) -> dict[str, tuple[int, int]]:
    """Where each entry of the referee's menu is at 800×480: (row, column)."""
    (grid,) = table.screen.grids
    cols = grid.columns(portrait=False)
    return {b.action: divmod(i, cols) for i, b in enumerate(grid.buttons) if b.action}


def test_the_referees_menu_keeps_each_entry_in_its_place(table):
    """A paused table's menu put 继续计时 first and moved everything after it (宣布时间到…, red,
    came where 撤销 had been); between hands it went two by two. Each entry now has its place,
    a gap where it is not offered: a pause adds 继续计时 and moves nothing."""
    table.start()
    table.play_tricks(1)
    table.tap("referee")
    table.pin()
    playing = menu_places(table)
    (grid,) = table.screen.grids
    assert grid.columns(portrait=True) == 3  # the same places in portrait (not 5 rows of 2)
    table.tap("close", "pause_table", "referee")
    table.pin()
    paused = menu_places(table)
    assert paused.pop("r_resume") == (0, 0)
    assert paused == playing
    table.tap("r_resume")
    table.enter(40)
    table.press("N", "E")  # the next hand, before its bury
    table.tap("referee")
    table.pin()
    between = menu_places(table)
    assert between["r_correct"] == (1, 1)
    assert {a: between[a] for a in ("r_time_up", "r_forfeit", "r_mute")} == \
        {a: playing[a] for a in ("r_time_up", "r_forfeit", "r_mute")}


def test_the_bury_is_the_way_on_only_once_the_trump_is_chosen(table):
    """A referee's review (Low): 开始扣底 stood green before a trump was chosen, and its tap
    only said 请先选主. It is the step's way on once it can be taken."""
    table.tap("setup:xiamen-2015", "dealer:N")
    bury = {b.action: b.style for b in table.screen.nav}["start_bury"]
    assert bury == "quiet"  # (grey, as the bar's other ways; a tap says why)
    table.tap("start_bury")  # still says why
    assert table.screen.notice.text == "请先选主，再开始扣底"
    table.tap("trump:♥")
    assert {b.action: b.style for b in table.screen.nav}["start_bury"] == "primary"


def test_a_long_press_on_the_box_of_the_seat_to_move_is_its_press(table):
    """A referee's review (Low): with a seat's button broken the table could not go on (the
    seat boxes took no touch). The box of a seat to move takes a long press as its press;
    the others take none."""
    table.tap("setup:xiamen-2015", "dealer:N", "trump:♠", "start_bury")
    actions = {s.seat: s.action for s in table.screen.seats}
    assert actions == {"N": "press:N", "E": "", "S": "", "W": ""}  # N buries
    table.tap("press:N")
    assert table.state.phase == "play"
    for seat in "NESW":  # the first trick, each in turn
        assert [s.action for s in table.screen.seats if s.action] == [f"press:{seat}"]
        table.clock.advance(1)
        table.tap(f"press:{seat}")
    table.clock.advance(3)  # the trick gathered: whoever leads next presses
    assert {s.seat: s.action for s in table.screen.seats} == {
        seat: f"press:{seat}" for seat in "NESW"}
    presses = [e.data["seat"] for e in table.session.journal.events() if e.kind == "press"]
    assert presses == ["N", "N", "E", "S", "W"]
    table.tap("pause_table")  # the banner covers the boxes while the clocks stand
    assert table.screen.name == "paused" and not table.screen.seats
