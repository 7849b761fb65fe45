"""One hand's entries and the defenders' total T (RULES.md §1 and §7).

`score_hand` validates what the referee entered and works out T, the band it falls in, and what
every penalty does. It knows nothing of levels or dealers: the match fold (`match.py`,
`individual.py`) applies the score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .errors import EntryError
from .ruleset import POINT_STEP, Outcome, Ruleset
from .seats import SEATS

#: Two decks hold 200 card points; the kitty is 8 cards, at most 80 points.
MAX_CARD_POINTS: Final = 200
MAX_KITTY_POINTS: Final = 80
#: The most cards a penalty can count: a full hand of 25 plus the kitty of 8.
MAX_PENALTY_CARDS: Final = 33
MAX_REFEREE_LEVELS: Final = 12


@dataclass(frozen=True, slots=True)
class KittyEntry:
    """The kitty's card points and the shape of the defenders' play that won the last trick."""

    points: int
    shape: str


@dataclass(frozen=True, slots=True)
class PenaltyEntry:
    """A penalty as the referee enters it. `seat` is the seat at fault (in shuangsheng-2011, the
    player's letter). `cards`, `points`, `levels` and `choice` are given where the ruleset asks
    for them; `late` marks a wrong play found only after the next trick started."""

    code: str
    seat: str
    cards: int | None = None
    points: int | None = None
    levels: int | None = None
    choice: str | None = None
    late: bool = False


@dataclass(frozen=True, slots=True)
class AppliedPenalty:
    """A penalty as it counted: `effect` is what it did this time (a penalty whose first
    occurrences are warnings shows ``warning``), `points` its signed change to T, `count` how many
    times this side has had it in the match."""

    code: str
    seat: str
    side: str  # "dealer" or "defenders"
    effect: str
    points: int
    count: int
    choice: str | None = None
    cards: int | None = None
    levels: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "seat": self.seat, "side": self.side,
                               "effect": self.effect, "points": self.points, "count": self.count}
        for key in ("choice", "cards", "levels"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class HandScore:
    """What a hand's entries add up to, before the ladder.

    `total` is T (None when the hand ended at once and no points were entered); `result` is
    ``hold``, ``take-over`` or ``match-loss``; `advance` the levels the band gives; `straight` is
    chaodipi's T <= 0 hook."""

    total: int | None
    result: str
    advance: int
    straight: bool
    penalties: tuple[AppliedPenalty, ...]
    match_loser_seat: str | None = None
    level_losses: tuple[tuple[str, int], ...] = ()  # (seat at fault, levels down)
    big_points_seat: str | None = None  # individual: the side of this seat erred
    big_points: Outcome | None = None


def check_points(points: Any, kitty: KittyEntry | None, ruleset: Ruleset) -> int:
    """Validate card points and kitty; return the defenders' points from tricks plus the kitty
    bonus. Raises EntryError naming the field."""
    if not _is_int(points) or points % POINT_STEP or not 0 <= points <= MAX_CARD_POINTS:
        raise EntryError("points", f"{points!r} is not a card-point count; give a multiple of "
                         f"{POINT_STEP} from 0 to {MAX_CARD_POINTS}")
    if kitty is None:
        return int(points)
    kp = kitty.points
    if not _is_int(kp) or kp % POINT_STEP or not 0 <= kp <= MAX_KITTY_POINTS:
        raise EntryError("kitty.points", f"{kp!r} is not a kitty count; give a multiple of "
                         f"{POINT_STEP} from 0 to {MAX_KITTY_POINTS} (8 cards)")
    if points + kp > MAX_CARD_POINTS:
        raise EntryError("kitty.points", f"{points} in tricks plus {kp} in the kitty is "
                         f"{points + kp}; two decks hold only {MAX_CARD_POINTS}")
    return int(points + kp * ruleset.kitty.multiplier(kitty.shape))


def score_hand(
    ruleset: Ruleset,
    points: Any,
    kitty: KittyEntry | None,
    penalties: tuple[PenaltyEntry, ...],
    dealer_side: frozenset[str],
    counts: Mapping[tuple[str, str, str], int],
    side_key: Mapping[str, str],
) -> tuple[HandScore, dict[tuple[str, str, str], int] | None]:
    """Score one hand. `dealer_side` holds the seats of the dealer side; `side_key` maps a seat
    to the key its side's counters are kept under (the team, in team rulesets); `counts` are the
    counters of earlier penalties. Returns the score and the updated counters (None when
    unchanged). Raises EntryError naming the field."""
    applied: list[AppliedPenalty] = []
    penalty_points = 0
    steps_down = plus_one = False
    fixed: int | None = None
    loser: str | None = None
    level_losses: list[tuple[str, int]] = []
    big_seat: str | None = None
    big_outcome: Outcome | None = None
    new_counts: dict[tuple[str, str, str], int] | None = None

    for i, entry in enumerate(penalties):
        where = f"penalties[{i}]"
        outcome = _check_penalty(ruleset, entry, where)
        against_dealer = entry.seat in dealer_side
        key = (entry.code, entry.choice or "", side_key[entry.seat])
        if new_counts is None:
            new_counts = dict(counts)
        count = new_counts.get(key, 0) + 1
        new_counts[key] = count
        effect = "warning" if count <= outcome.warnings_first else outcome.effect
        amount = 0
        if effect == "points":
            amount = outcome.points * ((entry.cards or 1) if outcome.per_card else 1)
        elif effect == "referee-points":
            amount = entry.points or 0
        elif effect == "dealer-steps-down":
            steps_down = True
        elif effect == "take-over-plus-one":
            plus_one = True
        elif effect == "fix-total":
            value = outcome.if_dealer_side if against_dealer else outcome.if_defenders
            if fixed is not None and fixed != value:
                raise EntryError(f"{where}.code", f"fixes the total at {value}, but an earlier "
                                 f"penalty fixed it at {fixed}")
            fixed = value
        elif effect == "match-loss":
            loser = loser or entry.seat
        elif effect == "referee-levels":
            level_losses.append((entry.seat, entry.levels or 0))
        elif effect == "big-points" and big_seat is None:
            big_seat, big_outcome = entry.seat, outcome
        signed = amount if against_dealer else -amount
        penalty_points += signed
        applied.append(AppliedPenalty(
            entry.code, entry.seat, "dealer" if against_dealer else "defenders", effect, signed,
            count, entry.choice, entry.cards if outcome.per_card else None, entry.levels))

    ends_early = steps_down or loser is not None or fixed is not None
    total: int | None = None
    if points is not None or kitty is not None or not ends_early:
        total = check_points(points, kitty, ruleset) + penalty_points
    if fixed is not None:
        total = fixed
    result, advance, straight = "take-over", 0, False
    if loser is not None:
        result = "match-loss"
    elif ruleset.kind == "individual":
        result = "deal"
    elif not steps_down and total is not None:
        band = ruleset.band_for(total)
        result, advance = band.result, band.advance_for(max(total, 0))
        straight = band.hook == "straight-to-final"
        if plus_one:
            if result == "take-over":
                advance += 1
            else:
                result, advance, straight = "take-over", 0, False
    score = HandScore(total, result, advance, straight, tuple(applied), loser,
                      tuple(level_losses), big_seat, big_outcome)
    return score, new_counts


def _check_penalty(ruleset: Ruleset, entry: PenaltyEntry, where: str) -> Outcome:
    penalty = ruleset.penalties.get(entry.code) if isinstance(entry.code, str) else None
    if penalty is None:
        raise EntryError(f"{where}.code", f"{entry.code!r} is not a penalty of {ruleset.id}; "
                         f"allowed: {', '.join(ruleset.penalties)}")
    if entry.seat not in SEATS:
        raise EntryError(f"{where}.seat", f"{entry.seat!r} is not a seat; give N, E, S or W")
    if entry.choice is not None and not isinstance(entry.choice, str):
        raise EntryError(f"{where}.choice", f"{entry.choice!r} is not a choice name")
    outcome = penalty.outcome(entry.choice, f"{where}.choice")
    if outcome.per_card:
        cards = entry.cards
        if cards is not None and (not _is_int(cards) or not 1 <= cards <= MAX_PENALTY_CARDS):
            raise EntryError(f"{where}.cards", f"{cards!r} is not a card count; give 1 to "
                             f"{MAX_PENALTY_CARDS}")
    elif entry.cards is not None:
        raise EntryError(f"{where}.cards", f"{entry.code} costs the same however many cards; "
                         "give no card count")
    if outcome.effect == "referee-points":
        _check_amount(entry.points, outcome, f"{where}.points", POINT_STEP, "points")
    elif entry.points is not None:
        raise EntryError(f"{where}.points", f"{entry.code} has a fixed cost in {ruleset.id}; "
                         "give no points")
    if outcome.effect == "referee-levels":
        limit = outcome.max if outcome.max is not None else MAX_REFEREE_LEVELS
        _check_amount(entry.levels, Outcome("", min=outcome.min, max=limit), f"{where}.levels",
                      1, "levels")
    elif entry.levels is not None:
        raise EntryError(f"{where}.levels", f"{entry.code} costs no levels; give none")
    if not isinstance(entry.late, bool):
        raise EntryError(f"{where}.late", f"{entry.late!r}: give true or false")
    if entry.late and outcome.late_refused:
        raise EntryError(f"{where}.late", f"{ruleset.id} does not pursue a wrong play found "
                         "after the next trick started")
    return outcome


def _check_amount(value: Any, outcome: Outcome, field: str, step: int, unit: str) -> None:
    upper = f" to {outcome.max}" if outcome.max is not None else " or more"
    if (not _is_int(value) or value % step or value < outcome.min
            or (outcome.max is not None and value > outcome.max)):
        what = "missing" if value is None else f"{value!r} is refused"
        multiple = f", a multiple of {step}" if step > 1 else ""
        raise EntryError(field, f"{what}; the referee gives {outcome.min}{upper} {unit}"
                         f"{multiple}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
