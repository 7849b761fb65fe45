"""Hypothesis strategies for match records: well-formed ones the fold accepts, and garbage."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kiosk.rules import Ruleset, Rulesets

TEAM_IDS = ("xiamen-2015", "standard-80fen", "chaodipi-2011")
SEATS = ("N", "E", "S", "W")
SHAPES = ("single", "pair", "pairs2", "pairs3", "tractor2", "tractor3", "tractor4")


def _penalty(draw: Any, ruleset: Ruleset, *, allow_levels: bool) -> dict[str, Any]:
    code = draw(st.sampled_from(sorted(ruleset.penalties)))
    penalty = ruleset.penalties[code]
    options = ([None] if penalty.default else []) + list(penalty.choices)
    choice = draw(st.sampled_from(options))
    outcome = penalty.outcome(choice)
    if outcome.effect == "referee-levels" and not allow_levels:
        return _plain(draw, ruleset)
    entry: dict[str, Any] = {"code": code, "seat": draw(st.sampled_from(SEATS))}
    if choice is not None:
        entry["choice"] = choice
    if outcome.per_card:
        entry["cards"] = draw(st.integers(1, 4))
    if outcome.effect == "referee-points":
        top = outcome.max if outcome.max is not None else outcome.min + 100
        entry["points"] = draw(st.integers(outcome.min // 5, top // 5)) * 5
    if outcome.effect == "referee-levels":
        entry["levels"] = draw(st.integers(1, 3))
    if outcome.referee_confirms:
        entry["confirmed"] = draw(st.booleans())
    return entry


def _plain(draw: Any, ruleset: Ruleset) -> dict[str, Any]:
    """A penalty with a fixed point cost (there is one in every team ruleset)."""
    codes = sorted(c for c, p in ruleset.penalties.items()
                   if p.default is not None and p.default.effect == "points")
    return {"code": draw(st.sampled_from(codes)), "seat": draw(st.sampled_from(SEATS))}


@st.composite
def team_hand(draw: Any, ruleset: Ruleset, allow_levels: bool = False) -> dict[str, Any]:
    """One hand of a team record (the dealer is left to the caller)."""
    if ruleset.redeal is not None and draw(st.integers(0, 15)) == 0:
        return {"redeal": True}
    points = draw(st.integers(0, 40)) * 5
    hand: dict[str, Any] = {"points": points}
    if draw(st.booleans()):
        kitty_points = draw(st.integers(0, min(80, 200 - points) // 5)) * 5
        hand["kitty"] = {"points": kitty_points, "shape": draw(st.sampled_from(SHAPES))}
    if draw(st.integers(0, 3)) == 0:
        hand["penalties"] = [_penalty(draw, ruleset, allow_levels=allow_levels)
                             for _ in range(draw(st.integers(1, 2)))]
    return hand


@st.composite
def team_record(draw: Any, rulesets: Rulesets, max_hands: int = 40,
                allow_levels: bool = False) -> dict[str, Any]:
    """A record of team hands as a table would produce them; the fold (not the strategy) decides
    where the match ends, so the record may run past a winner (callers cut it)."""
    ruleset = rulesets[draw(st.sampled_from(TEAM_IDS))]
    hands = draw(st.lists(team_hand(ruleset, allow_levels), min_size=1, max_size=max_hands))
    dealers = draw(st.lists(st.sampled_from(SEATS), min_size=len(hands), max_size=len(hands)))
    return {"ruleset": ruleset.id, "first_dealer": dealers[0], "hands": hands,
            "grab": dealers}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-300, 300) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
