"""One hand's entries and the defenders' total T (docs/rules.md §1 and §7).

`score_hand` validates what the referee entered and works out T, the band it falls in, and what
every penalty does. It knows nothing of levels or dealers: the match fold (`match.py`,
`individual.py`) applies the score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from .errors import EntryError, Words, seat_words, seats_words, value_words, words
from .ruleset import FREE_EFFECTS, POINT_STEP, Outcome, Penalty, Ruleset
from .seats import SEATS

#: Two decks hold 200 card points; the kitty is 8 cards, at most 80 points.
MAX_CARD_POINTS: Final = 200
MAX_KITTY_POINTS: Final = 80
#: The most cards a penalty can count: a full hand of 25 plus the kitty of 8.
MAX_PENALTY_CARDS: Final = 33
MAX_REFEREE_LEVELS: Final = 12


def card_point_values() -> tuple[int, ...]:
    """Every total of card points the defenders can have taken: 0, 5, … 200."""
    return tuple(range(0, MAX_CARD_POINTS + 1, POINT_STEP))


def kitty_point_values(points: int | None) -> tuple[int, ...]:
    """The kitty points that can go with `points` card points (RULES §1: together at most the
    decks' 200): 0, 5, … up to 80, or fewer when the card points leave less."""
    top = min(MAX_KITTY_POINTS, MAX_CARD_POINTS - (points or 0))
    return tuple(range(0, top + 1, POINT_STEP))


@dataclass(frozen=True, slots=True)
class KittyEntry:
    """The kitty's card points and the shape of the defenders' play that won the last trick
    (None: not asked, where every shape multiplies the same)."""

    points: int
    shape: str | None = None


@dataclass(frozen=True, slots=True)
class PenaltyEntry:
    """A penalty as the referee enters it. `seat` is the seat at fault (in shuangsheng-2011, the
    player's letter). `cards`, `points`, `levels` and `choice` are given where the ruleset asks
    for them; `late` marks a wrong play found only after the next trick started. `incident`
    links the entries for one incident (a ruleset with one penalty per incident refuses a
    second); `confirmed` says the referee confirmed a cost the seed leaves to the referee."""

    code: str
    seat: str
    cards: int | None = None
    points: int | None = None
    levels: int | None = None
    choice: str | None = None
    late: bool = False
    incident: str | int | None = None
    confirmed: bool = False


@dataclass(frozen=True, slots=True)
class AppliedPenalty:
    """A penalty as it counted: `effect` is what it did this time (a penalty whose first
    occurrences are warnings shows ``warning``; a cost still awaiting the referee's confirmation
    ``unconfirmed``), `points` its signed change to T, `count` how many times this side has had
    it in the match. `not_counted` holds the signed points a fixed total (``fix-total``) made
    void: recorded, not counted (`points` is then 0)."""

    code: str
    seat: str
    side: str  # "dealer" or "defenders"
    effect: str
    points: int
    count: int
    choice: str | None = None
    cards: int | None = None
    levels: int | None = None
    incident: str | None = None
    confirmed: bool = False
    not_counted: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "seat": self.seat, "side": self.side,
                               "effect": self.effect, "points": self.points, "count": self.count}
        for key in ("choice", "cards", "levels", "incident", "not_counted"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.confirmed:
            out["confirmed"] = True
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
                         f"{POINT_STEP} from 0 to {MAX_CARD_POINTS}").explained(
            "rules.entry.points_missing" if points is None else "rules.entry.points_bad",
            value=value_words(points), step=POINT_STEP, max=MAX_CARD_POINTS)
    if kitty is None:
        return int(points)
    kp = kitty.points
    if not _is_int(kp) or kp % POINT_STEP or not 0 <= kp <= MAX_KITTY_POINTS:
        raise EntryError("kitty.points", f"{kp!r} is not a kitty count; give a multiple of "
                         f"{POINT_STEP} from 0 to {MAX_KITTY_POINTS} (8 cards)").explained(
            "rules.entry.kitty_points_bad", value=value_words(kp), step=POINT_STEP,
            max=MAX_KITTY_POINTS)
    if points + kp > MAX_CARD_POINTS:
        raise EntryError("kitty.points", f"{points} in tricks plus {kp} in the kitty is "
                         f"{points + kp}; two decks hold only {MAX_CARD_POINTS}").explained(
            "rules.entry.points_over", points=points, kitty=kp, sum=points + kp,
            max=MAX_CARD_POINTS)
    return int(points + kp * ruleset.kitty.multiplier(kitty.shape))


def score_hand(
    ruleset: Ruleset,
    points: Any,
    kitty: KittyEntry | None,
    penalties: tuple[PenaltyEntry, ...],
    dealer_side: frozenset[str],
    counts: Mapping[tuple[str, str, str], int],
    side_key: Mapping[str, str],
    dealer: str | None = None,
    buried_by: str | None = None,
) -> tuple[HandScore, dict[tuple[str, str, str], int] | None]:
    """Score one hand. `dealer_side` holds the seats of the dealer side; `side_key` maps a seat
    to the key its side's counters are kept under (the team, in team rulesets); `counts` are the
    counters of earlier penalties. Given the `dealer` (and `buried_by`, the seat that buried the
    kitty last), a penalty at a seat that cannot commit it is refused (`Ruleset.seats_for`).
    Returns the score and the updated counters (None when unchanged). Raises EntryError naming
    the field."""
    applied: list[AppliedPenalty] = []
    penalty_points = 0
    steps_down = plus_one = False
    fixed: int | None = None
    loser: str | None = None
    level_losses: list[tuple[str, int]] = []
    big_seat: str | None = None
    big_outcome: Outcome | None = None
    new_counts: dict[tuple[str, str, str], int] | None = None
    incidents: dict[str, int] = {}

    # Each entry's own fields first: a check across entries (`only_with`) reads the others.
    checked = [_check_penalty(ruleset, entry, f"penalties[{i}]")
               for i, entry in enumerate(penalties)]
    for i, (entry, (penalty, outcome)) in enumerate(zip(penalties, checked, strict=True)):
        where = f"penalties[{i}]"
        if dealer is not None:
            _check_seat(ruleset, penalty, entry.seat, where, dealer, dealer_side, buried_by)
        _check_only_with(penalty, entry, where, penalties, dealer_side)
        incident = _check_incident(ruleset, entry, where, incidents, i)
        against_dealer = entry.seat in dealer_side
        key = (entry.code, entry.choice or "", side_key[entry.seat])
        if new_counts is None:
            new_counts = dict(counts)
        count = new_counts.get(key, 0) + 1
        new_counts[key] = count
        effect = outcome.effect
        if count <= outcome.warnings_first:
            effect = "free" if outcome.first_free else "warning"
        if outcome.referee_confirms and effect not in FREE_EFFECTS and not entry.confirmed:
            effect = "unconfirmed"  # recorded; it costs once the referee confirms it
        amount = 0
        if effect == "points":
            amount = outcome.points * (int(entry.cards or 0) if outcome.per_card else 1)
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
                                 f"penalty fixed it at {fixed}").explained(
                    "rules.entry.fixed_twice", value=value, earlier=fixed)
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
            count, entry.choice, entry.cards if outcome.per_card else None, entry.levels,
            incident, entry.confirmed))

    if fixed is not None:  # a fixed total: the other penalties' points are recorded, not counted
        applied = [replace(p, points=0, not_counted=p.points) if p.points else p
                   for p in applied]
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


def _check_penalty(ruleset: Ruleset, entry: PenaltyEntry, where: str
                   ) -> tuple[Penalty, Outcome]:
    penalty = ruleset.penalties.get(entry.code) if isinstance(entry.code, str) else None
    if penalty is None:
        raise EntryError(f"{where}.code", f"{entry.code!r} is not a penalty of {ruleset.id}; "
                         f"allowed: {', '.join(ruleset.penalties)}").explained(
            "rules.entry.code_unknown", code=value_words(entry.code), ruleset=ruleset.name,
            codes=", ".join(ruleset.penalties))
    if entry.seat not in SEATS:
        raise EntryError(f"{where}.seat", f"{entry.seat!r} is not a seat; give N, E, S or W"
                         ).explained("rules.entry.not_a_seat", value=value_words(entry.seat))
    if entry.choice is not None and not isinstance(entry.choice, str):
        raise EntryError(f"{where}.choice", f"{entry.choice!r} is not a choice name").explained(
            "rules.entry.choice_not_text", value=value_words(entry.choice))
    outcome = penalty.outcome(entry.choice, f"{where}.choice")
    if outcome.per_card:
        cards = entry.cards
        if cards is None:
            raise EntryError(f"{where}.cards", f"{entry.code} costs per card; give how many "
                             "cards (1 or more)").explained(
                "rules.entry.cards_missing", penalty=penalty.name, max=MAX_PENALTY_CARDS)
        if not _is_int(cards) or not 1 <= cards <= MAX_PENALTY_CARDS:
            raise EntryError(f"{where}.cards", f"{cards!r} is not a card count; give 1 to "
                             f"{MAX_PENALTY_CARDS}").explained(
                "rules.entry.cards_bad", value=value_words(cards), max=MAX_PENALTY_CARDS)
    elif entry.cards is not None:
        raise EntryError(f"{where}.cards", f"{entry.code} costs the same however many cards; "
                         "give no card count").explained(
            "rules.entry.cards_unused", penalty=penalty.name)
    if outcome.effect == "referee-points":
        _check_amount(entry.points, outcome, f"{where}.points", POINT_STEP, "points")
    elif entry.points is not None:
        raise EntryError(f"{where}.points", f"{entry.code} has a fixed cost in {ruleset.id}; "
                         "give no points").explained(
            "rules.entry.points_unused", penalty=penalty.name)
    if outcome.effect == "referee-levels":
        limit = outcome.max if outcome.max is not None else MAX_REFEREE_LEVELS
        _check_amount(entry.levels, Outcome("", min=outcome.min, max=limit), f"{where}.levels",
                      1, "levels")
    elif entry.levels is not None:
        raise EntryError(f"{where}.levels", f"{entry.code} costs no levels; give none"
                         ).explained("rules.entry.levels_unused", penalty=penalty.name)
    for flag in ("late", "confirmed"):
        if not isinstance(getattr(entry, flag), bool):
            raise EntryError(f"{where}.{flag}", f"{getattr(entry, flag)!r}: give true or false"
                             ).explained("rules.entry.not_bool", value=value_words(getattr(entry,
                                                                                      flag)))
    if entry.late and outcome.late_refused:
        raise EntryError(f"{where}.late", f"{ruleset.id} does not pursue a wrong play found "
                         "after the next trick started").explained(
            "rules.entry.late_refused", ruleset=ruleset.name)
    return penalty, outcome


def _check_seat(ruleset: Ruleset, penalty: Penalty, seat: str, where: str, dealer: str,
                dealer_side: frozenset[str], buried_by: str | None) -> None:
    """Refuse a penalty at a seat that cannot commit it (docs/rules.md §7)."""
    partner = next((s for s in dealer_side if s != dealer), None)
    allowed = ruleset.seats_for(penalty.code, dealer, buried_by, partner)
    if seat not in allowed:
        raise EntryError(f"{where}.seat", f"{penalty.code} at {seat}: only {', '.join(allowed)} "
                         "can commit it").explained(
            "rules.entry.seat_cannot_commit", seat=seat_words(seat), penalty=penalty.name,
            who=ruleset.committer_words(penalty.code, dealer, buried_by, partner))


def _check_only_with(penalty: Penalty, entry: PenaltyEntry, where: str,
                     penalties: tuple[PenaltyEntry, ...], dealer_side: frozenset[str]) -> None:
    """Refuse a penalty that goes only with another of its side in the same hand (chaodipi
    六.1 「若出牌方的同伴不报告出错牌…罚出牌方八十分」: no wrong card, nothing unreported)."""
    if not penalty.only_with:
        return
    side = dealer_side if entry.seat in dealer_side else frozenset(SEATS) - dealer_side
    if not any(p.code in penalty.only_with and p.seat in side for p in penalties):
        seats = tuple(s for s in SEATS if s in side)
        raise EntryError(f"{where}.code", f"{entry.code} goes only with one of "
                         f"{', '.join(penalty.only_with)} at {' or '.join(seats)} in the same "
                         "hand").explained("rules.entry.only_with", penalty=penalty.name,
                                           seats=seats_words(seats))


def _check_incident(ruleset: Ruleset, entry: PenaltyEntry, where: str,
                    seen: dict[str, int], index: int) -> str | None:
    """The entry's incident id as text; a second penalty for one incident is refused where the
    ruleset gives one penalty per incident (xiamen art. 22 「一错不二罚」)."""
    incident = entry.incident
    if incident is None:
        return None
    if isinstance(incident, bool) or not isinstance(incident, str | int) or (
            isinstance(incident, str) and not incident.strip()):
        raise EntryError(f"{where}.incident", f"{incident!r} is not an incident id; give text "
                         "or a number").explained("rules.entry.incident_bad",
                                                  value=value_words(incident))
    name = str(incident)
    if name in seen and ruleset.one_penalty_per_incident:
        raise EntryError(f"{where}.incident", f"incident {name} already has penalty "
                         f"{seen[name] + 1}; {ruleset.id} gives one penalty per incident"
                         ).explained("rules.entry.incident_twice", incident=name,
                                     other=seen[name] + 1, ruleset=ruleset.name)
    seen.setdefault(name, index)
    return name


def _check_amount(value: Any, outcome: Outcome, field: str, step: int, unit: str) -> None:
    upper = f" to {outcome.max}" if outcome.max is not None else " or more"
    if (not _is_int(value) or value % step or value < outcome.min
            or (outcome.max is not None and value > outcome.max)):
        what = "missing" if value is None else f"{value!r} is refused"
        multiple = f", a multiple of {step}" if step > 1 else ""
        key = f"rules.entry.{unit}_range" + ("" if outcome.max is not None else "_open")
        raise EntryError(field, f"{what}; the referee gives {outcome.min}{upper} {unit}"
                         f"{multiple}").explained(
            key, shown=_shown(value), min=outcome.min, max=outcome.max, step=step)


def _shown(value: Any) -> Words:
    return (words("rules.file.missing") if value is None
            else words("rules.file.refused", value=value_words(value)))



def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
