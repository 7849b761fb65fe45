"""The entry's pads offer only what the rules core accepts (audit of the kiosk, finding 4):
card points and kitty points together at most the decks' 200 (RULES §1), through the real
controller, runner, session and journal on an injected clock."""

from __future__ import annotations

import pytest

from kiosk.rules.hand import MAX_CARD_POINTS, MAX_KITTY_POINTS

pytestmark = pytest.mark.unit


def offered(table, prefix: str) -> list[int]:
    return [int(b.action.partition(":")[2]) for g in table.screen.grids for b in g.buttons
            if b.action.startswith(prefix)]


def to_the_kitty(table, points: int) -> None:
    table.start()
    table.play_out()
    table.tap("end_play", f"e_points:{points}", "e_last:defenders")
    assert table.screen.name == "entry.kitty_points"


@pytest.mark.parametrize(("points", "top"), [(150, 50), (120, 80), (200, 0), (0, 80)])
def test_the_kitty_pad_offers_only_what_fits_the_decks_total(table, points, top):
    to_the_kitty(table, points)
    assert offered(table, "e_kitty:") == list(range(0, top + 1, 5))


def test_every_value_offered_is_accepted_and_the_first_beyond_is_not(table):
    """The pad and the rules core agree: the largest kitty offered goes through to the result,
    and the one a 200-point total cannot hold is not on the pad."""
    to_the_kitty(table, 150)
    assert 55 not in offered(table, "e_kitty:") and MAX_CARD_POINTS - 150 == 50
    table.tap("e_kitty:50", "e_shape:single")
    assert table.screen.name == "entry.penalties" and table.screen.notice.text == ""
    assert table.state.draft.kitty == {"points": 50, "shape": "single"}


def test_raising_the_points_drops_a_kitty_that_no_longer_fits(table):
    to_the_kitty(table, 100)
    assert offered(table, "e_kitty:")[-1] == MAX_KITTY_POINTS
    table.tap("e_kitty:80", "e_back", "e_back", "e_back")  # back to the points: 180 after all
    assert table.screen.name == "entry.points"
    table.tap("e_points:180", "e_last:defenders")
    assert offered(table, "e_kitty:") == [0, 5, 10, 15, 20]
    assert [b.style for g in table.screen.grids for b in g.buttons].count("selected") == 0


def test_the_referee_s_levels_are_offered_as_far_as_the_rules_allow(table):
    """chaodipi's 裁判判罚 → 罚级 has no top in its file, and the rules core takes up to 12; the
    table offered 1 to 3, so a referee could not enter 罚4级 there (a maintainer's review)."""
    table.tap("setup:chaodipi-2011", "dealer:N", "trump:♣", "start_bury")
    table.press("N")
    table.tap("no_fry")
    table.play_out()
    table.tap("end_play")
    if table.screen.name == "confirm":
        table.tap("ok")
    table.tap("e_points:40", "e_last:dealer", "e_add", "e_pseat:E", "e_pkind:ruling",
              "e_popt:1")
    screen = table.screen
    assert screen.title == "裁判判罚：罚几级？"
    assert [b.label for g in screen.grids for b in g.buttons] == [str(n) for n in range(1, 13)]
    table.tap("e_pval:4")
    assert [p.get("levels") for p in table.state.draft.penalties.values()] == [4]


def test_a_kitty_every_shape_doubles_is_not_asked_its_shape(table):
    """standard-80fen doubles the kitty whatever won the last trick: the referee was asked the
    shape all the same, eight keys of ×2 (a referee's review), and the record kept one nobody
    needed. The shape is not asked there, and the record, the sum, the history and the slip
    say the kitty without one; xiamen-2015, whose shapes differ, still asks it."""
    table.start("standard-80fen", dealer="S")
    table.play_out()
    table.tap("end_play", "e_points:40", "e_last:defenders", "e_kitty:20")
    assert table.screen.name == "entry.penalties"
    table.tap("e_back")
    assert table.screen.name == "entry.kitty_points"  # (back past no shape step)
    table.tap("e_kitty:20", "e_finish")
    assert table.state.draft.kitty == {"points": 20}
    assert any("底牌 20×2" in line for line in table.screen.lines), table.screen.lines
    table.press("N", "E")
    record = table.session.export()
    assert record["hands"][0]["kitty"] == {"points": 20}
    table.tap("history")
    assert "底牌 20×2" in table.screen.lines[1]
    table.tap("close")
    assert "抠底：底牌20分×2＝40分" in table.slip()


def test_a_kitty_whose_shape_counts_is_asked_it(table):
    to_the_kitty(table, 40)
    table.tap("e_kitty:20")
    assert table.screen.name == "entry.kitty_shape"
