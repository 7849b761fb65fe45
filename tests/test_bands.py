"""Every band of docs/rules.md §2 and §6 at both edges, every kitty multiplier, the seeds'
own examples.

The expected values are written from docs/rules.md's tables, not derived from the ruleset
files."""

from __future__ import annotations

import pytest

from kiosk.rules import EntryError

from .helpers import at_levels, hand

pytestmark = pytest.mark.unit

HOLD, TAKE = "hold", "take-over"

XIAMEN = [
    (0, HOLD, 5), (5, HOLD, 4), (15, HOLD, 4), (20, HOLD, 3), (35, HOLD, 3), (40, HOLD, 2),
    (55, HOLD, 2), (60, HOLD, 1), (75, HOLD, 1), (80, TAKE, 0), (95, TAKE, 0), (100, TAKE, 1),
    (115, TAKE, 1), (120, TAKE, 2), (135, TAKE, 2), (140, TAKE, 3), (155, TAKE, 3),
    (160, TAKE, 4), (175, TAKE, 4), (180, TAKE, 5), (195, TAKE, 5), (200, TAKE, 6),
    (215, TAKE, 6), (220, TAKE, 7), (400, TAKE, 16),
]
STANDARD = [
    (0, HOLD, 5), (5, HOLD, 3), (15, HOLD, 3), (20, HOLD, 1), (75, HOLD, 1), (80, TAKE, 0),
    (115, TAKE, 0), (120, TAKE, 1), (155, TAKE, 1), (160, TAKE, 2), (175, TAKE, 2),
    (180, TAKE, 3), (185, TAKE, 3), (190, TAKE, 4), (195, TAKE, 4), (200, TAKE, 5),
    (400, TAKE, 5),
]
CHAODIPI = [
    (5, HOLD, 8), (10, HOLD, 7), (15, HOLD, 7), (20, HOLD, 6), (25, HOLD, 6), (30, HOLD, 5),
    (35, HOLD, 5), (40, HOLD, 4), (45, HOLD, 4), (50, HOLD, 3), (55, HOLD, 3), (60, HOLD, 2),
    (65, HOLD, 2), (70, HOLD, 1), (75, HOLD, 1), (80, TAKE, 0), (85, TAKE, 0), (90, TAKE, 1),
    (95, TAKE, 1), (100, TAKE, 2), (105, TAKE, 2), (110, TAKE, 3), (115, TAKE, 3),
    (120, TAKE, 4), (190, TAKE, 11), (200, TAKE, 12), (400, TAKE, 32),
]
SHUANGSHENG = [
    (0, 12, 0), (5, 10, 2), (10, 10, 2), (15, 8, 3), (35, 8, 3), (40, 6, 4), (75, 6, 4),
    (80, 4, 6), (115, 4, 6), (120, 3, 8), (155, 3, 8), (160, 2, 10), (195, 2, 10),
    (200, 0, 12), (255, 0, 12), (260, 0, 15), (500, 0, 15),
]


@pytest.mark.parametrize(("ruleset_id", "table"), [
    ("xiamen-2015", XIAMEN), ("standard-80fen", STANDARD), ("chaodipi-2011", CHAODIPI)])
def test_level_bands_at_both_edges(rulesets, ruleset_id, table):
    ruleset = rulesets[ruleset_id]
    for total, result, advance in table:
        band = ruleset.band_for(total)
        assert (total, band.result, band.advance_for(total)) == (total, result, advance)


def test_chaodipi_zero_and_negative_go_straight_to_final(rulesets):
    ruleset = rulesets["chaodipi-2011"]
    for total in (0, -5, -80):
        assert ruleset.band_for(total).hook == "straight-to-final"
    assert ruleset.band_for(5).hook is None


@pytest.mark.parametrize("ruleset_id", ["xiamen-2015", "standard-80fen"])
def test_totals_below_zero_count_as_zero(rulesets, ruleset_id):
    ruleset = rulesets[ruleset_id]
    band = ruleset.band_for(-30)
    assert band is ruleset.band_for(0)
    assert band.advance_for(0) == 5


def test_shuangsheng_big_points_at_both_edges(rulesets):
    ruleset = rulesets["shuangsheng-2011"]
    for total, dealer_side, defenders in SHUANGSHENG:
        band = ruleset.big_points_for(total)
        assert (total, band.dealer_side, band.defenders) == (total, dealer_side, defenders)
    assert ruleset.big_points_for(-20).dealer_side == 12


MULTIPLIERS = {
    #                  single pair pairs2 pairs3 tractor2 tractor3 tractor4 tractor5
    "xiamen-2015":      (2, 4, 4, 4, 8, 16, 32, 64),
    "standard-80fen":   (2, 2, 2, 2, 2, 2, 2, 2),
    "chaodipi-2011":    (2, 4, 4, 4, 8, 12, 16, 20),
    "shuangsheng-2011": (2, 4, 4, 4, 8, 16, 32, 64),
}
SHAPES = ("single", "pair", "pairs2", "pairs3", "tractor2", "tractor3", "tractor4", "tractor5")


@pytest.mark.parametrize("ruleset_id", list(MULTIPLIERS))
def test_kitty_multipliers(rulesets, ruleset_id):
    kitty = rulesets[ruleset_id].kitty
    assert tuple(kitty.multiplier(shape) for shape in SHAPES) == MULTIPLIERS[ruleset_id]


@pytest.mark.parametrize("shape", ["triple", "tractor1", "tractor", "pairs", "pair2", "single1",
                                   "tractor13", "tractor02", "", "TRACTOR2", None, 3])
def test_bad_kitty_shapes_are_refused(rulesets, shape):
    with pytest.raises(EntryError) as err:
        rulesets["xiamen-2015"].kitty.multiplier(shape)
    assert err.value.field == "kitty.shape"


def test_kitty_bonus_counts_only_when_given(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    _, plain = match.play(hand(60))
    _, bonus = match.play(hand(60, kitty=(10, "tractor2")))
    assert (plain.total, bonus.total) == (60, 140)


# The seeds' own worked examples, through a real match.

def test_xiamen_seed_zero_points_is_dealer_plus_five(rulesets):
    _, result = at_levels(rulesets, "xiamen-2015", "3", "2", "N").play(hand(0))
    assert (result.result, result.advance, result.levels) == ("hold", 5, ("8", "2"))


def test_xiamen_seed_two_hundred_is_take_over_plus_six(rulesets):
    _, result = at_levels(rulesets, "xiamen-2015", "3", "2", "N").play(hand(200))
    assert (result.result, result.advance, result.levels) == ("take-over", 6, ("3", "8"))


def test_chaodipi_seed_85_is_take_over_with_no_level(rulesets):
    _, result = at_levels(rulesets, "chaodipi-2011", "5", "3", "N").play(hand(85))
    assert (result.result, result.advance, result.levels) == ("take-over", 0, ("5", "3"))


def test_chaodipi_seed_5_is_dealer_plus_eight(rulesets):
    _, result = at_levels(rulesets, "chaodipi-2011", "2", "3", "N").play(hand(5))
    assert (result.result, result.advance, result.levels) == ("hold", 8, ("10", "3"))


def test_standard_seed_190_is_take_over_plus_four(rulesets):
    _, result = at_levels(rulesets, "standard-80fen", "5", "3", "N").play(hand(190))
    assert (result.result, result.advance, result.levels) == ("take-over", 4, ("5", "7"))


@pytest.mark.parametrize(("points", "kitty", "field"), [
    (-5, None, "points"), (205, None, "points"), (42, None, "points"), (45.0, None, "points"),
    ("45", None, "points"), (True, None, "points"), (None, None, "points"),
    (100, (85, "single"), "kitty.points"), (150, (60, "single"), "kitty.points"),
    (100, (12, "single"), "kitty.points"), (100, (10, "fan"), "kitty.shape"),
])
def test_impossible_points_are_refused_and_change_nothing(rulesets, points, kitty, field):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    with pytest.raises(EntryError) as err:
        match.play(hand(points, kitty=kitty))
    assert err.value.field == field
    assert match.hands == 0 and match.levels == (0, 0)
