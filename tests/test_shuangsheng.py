"""docs/rules.md §6: shuangsheng-2011 deals, partners by card, big points, prize-final groups."""

from __future__ import annotations

import pytest

from kiosk.rules import (
    DealEntry,
    EntryError,
    IndividualRound,
    KittyEntry,
    MatchOver,
    PenaltyEntry,
    form_prize_finals,
)

pytestmark = pytest.mark.unit


@pytest.fixture
def round_(rulesets):
    return IndividualRound.start(rulesets["shuangsheng-2011"])


def test_schedule_of_levels_and_dealers(round_):
    levels, dealers = [], []
    for _ in range(16):
        round_, r = round_.play(DealEntry(points=40, partner_card="2"))
        levels.append(r.level)
        dealers.append(r.dealer)
    assert levels == ["2", "3", "4", "5", "5", "6", "7", "8", "9", "10", "10", "J", "Q", "K",
                      "K", "A"]
    assert "".join(dealers) == "ENWS" * 4
    with pytest.raises(MatchOver, match="16 deals"):
        round_.play(DealEntry(points=40, partner_card="2"))


@pytest.mark.parametrize(("ranks", "partner"), [
    ("A 4 7 10 K", "N"),   # right: the next to play after E, counter-clockwise
    ("2 5 8 J", "W"),      # opposite
    ("3 6 9 Q", "S"),      # left
])
def test_partner_by_card_for_dealer_e(round_, ranks, partner):
    for rank in ranks.split():
        assert round_.play(DealEntry(points=40, partner_card=rank))[1].partner == partner


def test_awards_follow_the_drawn_partner(round_):
    _, r = round_.play(DealEntry(points=100, kitty=KittyEntry(10, "single"), partner="S"))
    assert r.total == 120
    assert r.awards == {"E": 3, "N": 8, "W": 8, "S": 3}


@pytest.mark.parametrize(("entry", "field"), [
    (DealEntry(points=40), "partner"),
    (DealEntry(points=40, partner="E"), "partner"),          # the dealer himself
    (DealEntry(points=40, partner="X"), "partner"),
    (DealEntry(points=40, partner="W", partner_card="A"), "partner"),  # A names N
    (DealEntry(points=40, partner_card="joker"), "partner_card"),
    (DealEntry(points=40, partner_card="1"), "partner_card"),
    (DealEntry(points=255, partner="N"), "points"),
    (DealEntry(points=40, partner="N", dealer="W"), "dealer"),
])
def test_bad_deals_are_refused(round_, entry, field):
    with pytest.raises(EntryError) as err:
        round_.play(entry)
    assert err.value.field == field
    assert round_.deals == 0


def test_point_penalties_move_the_total(round_):
    _, r = round_.play(DealEntry(points=60, partner="N", penalties=(
        PenaltyEntry("hidden-card", "W", cards=2),)))  # W defends: 60 - 20
    assert (r.total, r.awards["E"], r.awards["W"]) == (40, 6, 4)


def test_card_count_after_bury_costs_big_points(round_):
    after = (PenaltyEntry("card-count", "W", choice="after-bury"),)
    _, r = round_.play(DealEntry(points=20, partner="N", penalties=after))
    # W (defender) erred: W and S -2 each; E and N keep their better table result (8).
    assert r.awards == {"E": 8, "N": 8, "W": -2, "S": -2}
    _, r = round_.play(DealEntry(points=180, partner="N", penalties=after))
    assert r.awards == {"E": 2, "N": 2, "W": -2, "S": -2}
    before = (PenaltyEntry("card-count", "W", choice="before-bury"),)
    _, r = round_.play(DealEntry(points=20, partner="N", penalties=before))
    assert r.awards == {"E": 8, "N": 8, "W": 3, "S": 3}


def test_team_only_penalties_do_not_exist_here(round_):
    with pytest.raises(EntryError) as err:
        round_.play(DealEntry(points=20, partner="N", penalties=(
            PenaltyEntry("kitty-wrong", "W"),)))
    assert err.value.field == "penalties[0].code"


def test_prize_finals_from_the_seeds_prelims():
    # The seed's three groups, each in its final order (ties already ordered by the referee).
    groups = [
        [("周文华", 84), ("彭晖", 80), ("李臻", 80), ("柯虎", 80)],
        [("罗幼明", 86), ("赵建中", 85), ("董璨", 80), ("梅享林", 77)],
        [("徐红波", 101), ("蒋时霖", 82), ("刘成", 78), ("李玲", 75)],
    ]
    finals = form_prize_finals(groups)
    assert [set(g) for g in finals.groups] == [
        {"徐红波", "罗幼明", "周文华", "赵建中"},
        {"蒋时霖", "彭晖", "董璨", "李臻"},
        {"刘成", "柯虎", "梅享林", "李玲"},
    ]
    assert finals.ties_at_cuts == ()


def test_prize_finals_for_other_sizes_and_ties():
    groups = [[("a1", 90), ("a2", 80), ("a3", 70), ("a4", 60)],
              [("b1", 95), ("b2", 80), ("b3", 70), ("b4", 50)],
              [("c1", 85), ("c2", 75), ("c3", 72), ("c4", 55)],
              [("d1", 99), ("d2", 60), ("d3", 58), ("d4", 40)]]
    finals = form_prize_finals(groups)
    assert finals.groups[0] == ("d1", "b1", "a1", "c1")
    assert finals.groups[-1] == ("a4", "c4", "b4", "d4")
    tied = form_prize_finals([[("x1", 90), ("x2", 80), ("x3", 70)],
                              [("y1", 90), ("y2", 80), ("y3", 70)],
                              [("z1", 90), ("z2", 80), ("z3", 70)],
                              [("w1", 90), ("w2", 80), ("w3", 70)]])
    assert tied.groups[1] == ("x2", "y2", "z2", "w2")
    cut = form_prize_finals([[("a1", 90), ("a2", 80), ("a3", 75), ("a4", 60)],
                             [("b1", 90), ("b2", 75), ("b3", 70), ("b4", 60)]])
    assert cut.groups == (("a1", "b1", "a2", "a3"), ("b2", "b3", "a4", "b4"))
    assert cut.ties_at_cuts == (("a3", "b2"),)  # equal totals across the cut: the referee decides
    # a third middle of that total is as much in the tie (it was said as a pair of two)
    three = form_prize_finals([[("a1", 90), ("a2", 80), ("a3", 75), ("a4", 60)],
                               [("b1", 90), ("b2", 75), ("b3", 75), ("b4", 60)]])
    assert three.groups == (("a1", "b1", "a2", "a3"), ("b2", "b3", "a4", "b4"))
    assert three.ties_at_cuts == (("a3", "b2", "b3"),)
    # a tie spanning two edges is one tie; a group's first of that total is not in it
    wide = form_prize_finals([[("a1", 70), ("a2", 70), ("a3", 70), ("a4", 10)],
                              [("b1", 80), ("b2", 70), ("b3", 70), ("b4", 10)],
                              [("c1", 80), ("c2", 70), ("c3", 70), ("c4", 10)]])
    assert wide.ties_at_cuts == (("a2", "a3", "b2", "b3", "c2", "c3"),)
    with pytest.raises(EntryError, match="do not divide"):
        form_prize_finals([[("p", 1), ("q", 2), ("r", 3)]])
