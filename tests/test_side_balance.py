"""Issue 32: the side balance the README promises — after the pairing, no team more than one
round on one side than on the other where a pairing allows it — kept over a whole event, and
said in the draft when a head referee's swap breaks it."""

from __future__ import annotations

import random

import pytest

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store

pytestmark = pytest.mark.unit

RULESETS = Rulesets.load([])
UNITS = ("福州", "厦门", "泉州", "漳州", "莆田")


def event(tmp_path, teams: int) -> Director:
    d = Director(Store(tmp_path / "s.sqlite"), RULESETS)
    d.create_event("福建杯", "xiamen-2015", rounds=5, seed=20)
    rows = "\n".join(f"第{i}队,{UNITS[i % len(UNITS)]}" for i in range(1, teams + 1))
    d.import_teams(f"队名,单位\n{rows}\n".encode())
    d.add_tables(teams // 2)
    return d


def play(d: Director, rng: random.Random) -> None:
    """The published round started and every match decided (a ruling: no kiosks needed)."""
    round_no = d.start_round(0)
    for table, _, _ in d.assignments(round_no):
        d.record_ruling(table, "forfeit", rng.choice(("NS", "EW")), "测试", round_no)


@pytest.mark.parametrize(("teams", "seed"), [(20, 1), (20, 2), (20, 3), (16, 4), (24, 5)])
def test_no_team_sits_one_side_twice_more_than_the_other_over_five_rounds(tmp_path, teams,
                                                                          seed):
    """福州榕城队 sat EW four times and NS once in five rounds of a 20-team event."""
    d = event(tmp_path, teams)
    rng = random.Random(seed)
    for round_no in range(1, 6):
        draft = d.make_draft()
        assert not [w for w in d.draft_warnings(draft) if w.key == "admin.warn.sides"]
        d.publish(by="陈")
        play(d, rng)
        lopsided = {team: dict(sat) for team, sat in d.sides_so_far().items()
                    if abs(sat["NS"] - sat["EW"]) > 1}
        assert lopsided == {}, (round_no, lopsided)


def test_a_swap_that_breaks_the_balance_is_warned_and_publishing_asks(tmp_path):
    d = event(tmp_path, 8)
    rng = random.Random(7)
    d.publish(by="陈")
    play(d, rng)
    draft = d.make_draft()
    assert d.draft_warnings(draft) == []
    d.swap_sides(1)  # the team that sat NS sits NS again
    warned = [w for w in d.draft_warnings(d.current_draft()) if w.key == "admin.warn.sides"]
    assert len(warned) == 2 and warned[0].table == 1
    assert {w.params["ns"] - w.params["ew"] for w in warned} == {2, -2}
    with pytest.raises(Exception) as asked:
        d.publish(by="陈")
    assert asked.value.key == "admin.confirm.publish_warned"
    assert d.publish(confirm=True, by="陈") == 2
