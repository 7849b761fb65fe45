"""Rulesets as immutable values, read from TOML files and validated on load.

A ruleset file is data a tournament organiser can write. Every key is checked; a bad file is
refused with a `RulesetError` naming the file, the key, the bad value and what is allowed.
The few behaviours that are not a table are named hooks (``straight-to-final``, the time-up rules,
the penalty effects), each documented where it is applied.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, NoReturn

from .errors import EntryError, RulesetError, Words, seat_words, seats_words, value_words, words
from .seats import LEVELS, PARTNER_OF, PLAY_ORDER, RANKS, SEATS

LANGS: Final = ("zh-Hans", "zh-Hant", "en")
#: Points always come in fives: every card point, kitty bonus and penalty is a multiple of 5.
POINT_STEP: Final = 5

#: What a penalty does. The rules core applies each in `kiosk.rules.hand`.
EFFECTS: Final = {
    "points": "fixed points: added to the defenders' total against the dealer side, "
    "subtracted against the defenders",
    "referee-points": "points the referee chooses within min..max, applied like fixed points",
    "warning": "a warning, recorded and counted",
    "record": "recorded for the referee, no cost",
    "dealer-steps-down": "the hand ends at once as a take-over +0",
    "fix-total": "the hand's total is fixed, by which side is at fault",
    "match-loss": "the side at fault loses the match",
    "referee-levels": "the side at fault goes down the levels the referee chooses",
    "take-over-plus-one": "found at the end: a take-over gains one more level, "
    "otherwise the dealer steps down",
    "big-points": "individual events: the erring side scores `erring` each, "
    "the other side at least `other_at_least` each",
}
_TEAM_ONLY_EFFECTS: Final = frozenset(
    {"dealer-steps-down", "match-loss", "referee-levels", "take-over-plus-one"}
)
_INDIVIDUAL_ONLY_EFFECTS: Final = frozenset({"big-points"})
#: Effects that cost nothing: a cost the referee must confirm is never one of these.
FREE_EFFECTS: Final = frozenset({"warning", "record", "free"})

#: Who can commit an offence (a penalty's `committed_by`), docs/rules.md §7.
COMMITTERS: Final = {
    "any": "any seat",
    "dealer-side": "the dealer and the dealer's partner",
    "defenders": "the two defenders",
    "dealer": "the dealer alone",
    "burier": "whoever buried the kitty last (the dealer, or the last frier)",
    "others": "any seat but the dealer (xiamen art. 10 「他人」)",
}
#: The words every ruleset names in its own vocabulary (`[terms]`).
REQUIRED_TERMS: Final = ("dealer", "dealer_side", "defenders")
OPTIONAL_TERMS: Final = ("dealer_side_also", "defenders_also")
#: Tie-breaks after a ruleset's own, as the scorer applies them (`result.further_tie_breaks`).
FURTHER_TIE_BREAKS: Final = ("opponents", "head-to-head")

_SHAPE = re.compile(r"(single|pair|pairs|tractor)([0-9]*)")
#: A player holds 25 cards, so a shape has at most 12 pairs.
MAX_PAIRS: Final = 12
GATHER_SECONDS: Final = 2.0  # the kiosk's gather grace where a ruleset sets none
MAX_GATHER_SECONDS: Final = 30


@dataclass(frozen=True, slots=True)
class Text:
    """One text in the three languages the product speaks."""

    zh_hans: str
    zh_hant: str
    en: str

    def __call__(self, lang: str) -> str:
        """The text in `lang` (one of `LANGS`). Raises KeyError for another language."""
        return {"zh-Hans": self.zh_hans, "zh-Hant": self.zh_hant, "en": self.en}[lang]


@dataclass(frozen=True, slots=True)
class Band:
    """Defenders' totals `low`..`high` (inclusive; `high` None = no upper end) and their result."""

    low: int
    high: int | None
    result: str  # "hold" or "take-over"
    advance: int
    every: int | None = None  # one more level per further `every` points (open band only)
    hook: str | None = None  # "straight-to-final": chaodipi's 0 sends the dealer side to A

    def advance_for(self, total: int) -> int:
        """The levels this band gives for `total`, which must lie in the band."""
        if self.every is None:
            return self.advance
        return self.advance + (total - self.low) // int(self.every)


@dataclass(frozen=True, slots=True)
class BigPointBand:
    """shuangsheng-2011: big points each player scores for a deal, by the defenders' total."""

    low: int
    high: int | None
    dealer_side: int
    defenders: int


@dataclass(frozen=True, slots=True)
class Kitty:
    """Kitty multipliers by the shape of the play that won the last trick."""

    single: int
    pair: int
    pairs: int
    tractor2: int
    tractor_growth: str  # "double" or "add"
    tractor_step: int
    tractors: Text  # what the seed counts as a tractor (it decides tractor vs two pairs)

    @property
    def uniform(self) -> int | None:
        """The one multiplier every shape gives (standard-80fen: ×2), where the shape does not
        count; else None."""
        same = self.single == self.pair == self.pairs == self.tractor2
        flat = self.tractor_growth == "add" and self.tractor_step == 0
        return self.single if same and flat else None

    def multiplier(self, shape: str | None) -> int:
        """The multiplier for `shape`: ``single``, ``pair``, ``pairsN`` or ``tractorN`` (N >= 2);
        None (not asked) where every shape gives the same. Raises EntryError for any other
        shape, and for None where the shape counts."""
        if shape is None:
            if self.uniform is None:
                raise EntryError("kitty.shape", "missing; this ruleset multiplies the kitty "
                                 "by the shape that won the last trick").explained(
                    "rules.entry.shape_missing")
            return self.uniform
        match = _SHAPE.fullmatch(shape) if isinstance(shape, str) else None
        if match is None:
            raise EntryError("kitty.shape", f"{shape!r} is not a shape; give single, pair, "
                             "pairsN or tractorN (N pairs, 2 or more)").explained(
                "rules.entry.shape_unknown", shape=value_words(shape))
        kind, digits = match.groups()
        if kind in ("single", "pair"):
            if digits:
                raise EntryError("kitty.shape", f"{shape!r}: {kind} takes no number").explained(
                    "rules.entry.shape_no_number", shape=value_words(shape))
            return self.single if kind == "single" else self.pair
        if not digits or not 2 <= int(digits) <= MAX_PAIRS or digits.startswith("0"):
            raise EntryError("kitty.shape", f"{shape!r}: {kind} needs a number of pairs "
                             f"from 2 to {MAX_PAIRS}, e.g. {kind}2").explained(
                "rules.entry.shape_pairs", shape=value_words(shape), max=MAX_PAIRS,
                example=f"{kind}2")
        pairs = int(digits)
        if kind == "pairs":
            return self.pairs
        if self.tractor_growth == "double":
            return self.tractor2 << (pairs - 2)
        return self.tractor2 + self.tractor_step * (pairs - 2)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one penalty (or one of its choices) costs. `effect` is a key of `EFFECTS`."""

    effect: str
    points: int = 0
    per_card: bool = False
    min: int = 0
    max: int | None = None
    warnings_first: int = 0  # the first N for a side in a match are only warnings
    first_free: bool = False  # …or not even a warning: 「第一次不判罚」 (effect "free")
    if_defenders: int = 0  # fix-total
    if_dealer_side: int = 0  # fix-total
    erring: int = 0  # big-points
    other_at_least: int = 0  # big-points
    late_refused: bool = False  # found after the next trick started: not pursued
    # the seed has the referee called for this cost (chaodipi 三.4 「立即招请裁判」): it counts
    # only when the entry says the referee confirmed it
    referee_confirms: bool = False


@dataclass(frozen=True, slots=True)
class Choice:
    """A named alternative the referee may pick for a penalty."""

    name: Text
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Penalty:
    """One entry of a ruleset's penalty catalog."""

    code: str
    name: Text
    default: Outcome | None
    choices: Mapping[str, Choice] = field(default_factory=lambda: MappingProxyType({}))
    committed_by: tuple[str, ...] = ("any",)  # keys of COMMITTERS; several: any of them
    counts: Text | None = None  # per-card penalties: which cards count
    #: Only on top of one of these penalties at a seat of the same side in the same hand
    #: (chaodipi 六.1: the partner did not report the wrong card); empty: stands alone.
    only_with: tuple[str, ...] = ()

    @property
    def referee_confirms(self) -> bool:
        """Whether a cost of this penalty (or of one of its choices) counts only once the referee
        confirmed it (`Outcome.referee_confirms`)."""
        return any(o.referee_confirms for o in self.outcomes())

    def outcomes(self) -> tuple[Outcome, ...]:
        """The default outcome, if any, and each choice's."""
        found = [] if self.default is None else [self.default]
        return (*found, *(c.outcome for c in self.choices.values()))

    def outcome(self, choice: str | None, field_name: str = "choice") -> Outcome:
        """The outcome for the referee's `choice` (None: the default). Raises EntryError when the
        choice is unknown, or missing where the penalty has no default."""
        if choice is None:
            if self.default is None:
                raise EntryError(field_name, f"{self.code} needs a choice: "
                                 f"{', '.join(self.choices)}").explained(
                    "rules.entry.choice_missing", penalty=self.name,
                    choices=", ".join(self.choices))
            return self.default
        picked = self.choices.get(choice)
        if picked is None:
            allowed = ", ".join(self.choices) if self.choices else "none (omit the choice)"
            if self.choices:
                raise EntryError(field_name, f"{choice!r} is not a choice of {self.code}; "
                                 f"allowed: {allowed}").explained(
                    "rules.entry.choice_unknown", choice=value_words(choice), penalty=self.name,
                    choices=allowed)
            raise EntryError(field_name, f"{choice!r} is not a choice of {self.code}; "
                             f"allowed: {allowed}").explained(
                "rules.entry.choice_none", choice=value_words(choice), penalty=self.name)
        return picked.outcome


@dataclass(frozen=True, slots=True)
class DealerRules:
    first: str  # "grabbed" or "fixed"
    hold: str  # "partner", "same" or "fixed"
    take_over: str  # "next" or "fixed"
    direction: str  # "clockwise" or "counter-clockwise"
    direction_read: bool = False  # the seed is silent: the direction is the project's reading


@dataclass(frozen=True, slots=True)
class Redeal:
    """A defender with at most `max_hand_points` in hand may call a redeal (革命)."""

    max_hand_points: int
    dealer_after: str  # "same" or "grabbed"
    dealer_before_first_hand: str  # "same" or "grabbed": a redeal before any hand was played
    before_own_play: bool = False  # only before the caller has played a card (standard)
    decides_alone: bool = False  # the caller decides without consulting the partner (standard)


@dataclass(frozen=True, slots=True)
class Timing:
    play_seconds: float
    bury_seconds: float
    rebury_seconds: float | None
    match_minutes: float | None  # None: no match time
    time_up: str  # "none", "higher-level-now" or "finish-hand-then-leader"
    # the choice of the time-overrun penalty the kiosk records for a play or bury overrun
    overrun_play: str | None = None
    overrun_bury: str | None = None
    kiosk_default: bool = False  # the seed sets no move limits: these are the kiosk's default
    # seconds after a trick's fourth card before the next lead's time starts (the trick is
    # gathered); None: the seed says nothing, and the kiosk gives GATHER_SECONDS
    gather_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class MatchScoring:
    win_points: int
    loss_points: int
    tie_break: str  # "net-levels", "playoff", "head-referee" or "none"
    big_points: bool = True  # False: the seed gives no points, a match is only won or lost
    # what the scorer applies after `tie_break`: the project's reading where the seed stops
    further_tie_breaks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EventFormat:
    format: str  # "swiss", "single", "groups-knockout" or "individual-groups"
    text: Text
    rounds: int | None = None
    groups: int | None = None
    group_size: int | None = None


@dataclass(frozen=True, slots=True)
class Reading:
    """A reading the project chose where the seed is unclear (docs/rules.md's readings)."""

    topic: str
    text: Text


@dataclass(frozen=True, slots=True)
class Deals:
    """shuangsheng-2011: the fixed deals of a round and the partner draw."""

    levels: tuple[str, ...]
    dealer_order: tuple[str, ...]
    partner_by_card: Mapping[str, str]  # rank -> "right", "opposite" or "left"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One ruleset, exactly as its file says: `source` is the file's bytes, `sha256` their
    hash."""

    id: str
    kind: str  # "team" or "individual"
    file: str
    source: bytes = field(repr=False)
    seed: str
    name: Text
    summary: Text
    kitty: Kitty
    dealer: DealerRules
    time: Timing
    result: MatchScoring
    event: EventFormat
    penalties: Mapping[str, Penalty]
    readings: tuple[Reading, ...]
    terms: Mapping[str, Text]  # the seed's own words: dealer, dealer_side, defenders, …
    one_penalty_per_incident: bool = False  # xiamen art. 22 「一错不二罚」
    plays_no_trump: bool = True  # xiamen art. 2 「不打無主」: False
    # team rulesets
    ladder: tuple[str, ...] = ()  # the levels from 2 to the final level
    must_play: frozenset[str] = frozenset()
    bands: tuple[Band, ...] = ()
    redeal: Redeal | None = None
    frying: bool = False
    # individual rulesets
    deals: Deals | None = None
    big_points: tuple[BigPointBand, ...] = ()
    # bands indexed by total // POINT_STEP, for totals below the last band
    _band_index: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @property
    def sha256(self) -> str:
        """The hash of the file's bytes, which names this version of the ruleset in records,
        sessions and the scorer."""
        return _sha256(self.source)

    @property
    def version(self) -> str:
        """The version as people read it (规则版本 on the slip, the sheet and the console):
        the hash's first 8 characters, the same on every page."""
        return self.sha256[:8]

    @property
    def most_net_levels(self) -> int:
        """The most net levels a won match can give (docs/rules.md §8: the levels strictly between
        the winner's and the loser's, so from the final level down to the first)."""
        return max(0, len(self.ladder) - 2)

    @property
    def final(self) -> str:
        """The final level: stepping out of it wins the match."""
        return self.ladder[-1]

    def band_for(self, total: int) -> Band:
        """The level-change band for the defenders' `total` (below 0 counts as 0)."""
        return self._lookup(total)  # type: ignore[no-any-return]

    def big_points_for(self, total: int) -> BigPointBand:
        """The big-point band for the defenders' `total` (below 0 counts as 0)."""
        return self._lookup(total)  # type: ignore[no-any-return]

    def reading(self, topic: str) -> Text | None:
        """The text of the project's reading on `topic` (docs/rules.md's readings), if any."""
        return next((r.text for r in self.readings if r.topic == topic), None)

    def dealer_side(self, dealer: str, partner: str | None = None) -> tuple[str, ...]:
        """The seats of the dealer side (`partner`: the drawn partner in individual rulesets),
        in seat order N, E, S, W."""
        mate = partner if partner is not None else PARTNER_OF[dealer]
        return tuple(s for s in SEATS if s in (dealer, mate))

    def seats_for(self, code: str, dealer: str, buried_by: str | None = None,
                  partner: str | None = None) -> tuple[str, ...]:
        """The seats that can commit penalty `code` in a hand dealt by `dealer` (docs/rules.md
        §7), in seat order N, E, S, W. `buried_by` is the seat that buried the kitty last,
        where frying lets another seat bury (None: the dealer); `partner` the drawn partner in
        individual rulesets. The kiosk's penalty step offers only these seats and the
        rules core refuses any other. Raises EntryError for an unknown code or seat."""
        penalty = self._penalty(code)
        for name, seat in (("dealer", dealer), ("buried_by", buried_by), ("partner", partner)):
            if seat is not None and seat not in SEATS:
                raise EntryError(name, f"{seat!r} is not a seat; give N, E, S or W").explained(
                    "rules.entry.not_a_seat", value=value_words(seat))
        side = self.dealer_side(dealer, partner)
        allowed: set[str] = set()
        for who in penalty.committed_by:
            if who == "any":
                allowed.update(SEATS)
            elif who == "dealer-side":
                allowed.update(side)
            elif who == "defenders":
                allowed.update(s for s in SEATS if s not in side)
            elif who == "dealer":
                allowed.add(dealer)
            elif who == "others":
                allowed.update(s for s in SEATS if s != dealer)
            else:  # burier
                allowed.add(buried_by or dealer)
        return tuple(s for s in SEATS if s in allowed)

    def committer_words(self, code: str, dealer: str, buried_by: str | None = None,
                        partner: str | None = None) -> Words:
        """Who can commit `code`, in this ruleset's words, with the seats: 「庄家方（北、南）」.
        Raises EntryError as `seats_for`."""
        seats = self.seats_for(code, dealer, buried_by, partner)
        parts = [self._who_words(who, dealer, buried_by)
                 for who in self._penalty(code).committed_by]
        who = parts[0] if len(parts) == 1 else words("rules.who.either", a=parts[0],
                                                      b=parts[1])
        return words("rules.who.with_seats", who=who, seats=seats_words(seats))

    def _who_words(self, who: str, dealer: str, buried_by: str | None) -> Words:
        if who in ("dealer-side", "defenders", "dealer"):
            return words("rules.who.term", term=self.terms[who.replace("-", "_")])
        if who == "burier":
            return words("rules.who.burier", seat=seat_words(buried_by or dealer))
        if who == "others":
            return words("rules.who.others", dealer=self.terms["dealer"])
        return words("rules.who.any")

    def redeal_callers(self, dealer: str) -> tuple[str, ...]:
        """The seats that may call a redeal (革命) in a hand dealt by `dealer`: the defenders,
        where the ruleset has a redeal (none otherwise). Each must meet `redeal_condition`."""
        if self.redeal is None or self.kind != "team":
            return ()
        side = self.dealer_side(dealer)
        return tuple(s for s in SEATS if s not in side)

    def redeal_condition(self) -> Words | None:
        """When a defender may call a redeal, in words the kiosk can show before the referee
        records it: 「旁家手中分数不超过15分者可革命…」. None where there is no redeal."""
        redeal = self.redeal
        if redeal is None:
            return None
        key = "rules.redeal.condition"
        if redeal.before_own_play:
            key += "_before_play"
        if redeal.decides_alone:
            key += "_alone"
        return words(key, defenders=self.terms["defenders"], points=redeal.max_hand_points)

    def _penalty(self, code: str) -> Penalty:
        penalty = self.penalties.get(code) if isinstance(code, str) else None
        if penalty is None:
            raise EntryError("code", f"{code!r} is not a penalty of {self.id}").explained(
                "rules.entry.code_unknown", code=value_words(code), ruleset=self.name,
                codes=", ".join(self.penalties))
        return penalty

    def _lookup(self, total: int) -> Any:
        index = self._band_index
        step = max(total, 0) // POINT_STEP
        return index[step] if step < len(index) else index[-1]


# --------------------------------------------------------------------------------------------
# Loading


def parse_ruleset(data: bytes, file: str) -> Ruleset:
    """Read and validate one ruleset file's bytes. `file` names it in errors.
    Raises RulesetError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesetError(file, "", f"not UTF-8 text (byte {exc.start})").explained(
            "rules.file.not_utf8", byte=exc.start) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        error = RulesetError(file, "", f"TOML syntax error: {exc}")
        at = _TOML_AT.search(str(exc))
        if at:
            raise error.explained("rules.file.toml_syntax_at", line=int(at.group(1)),
                                  column=int(at.group(2))) from None
        raise error.explained("rules.file.toml_syntax") from None
    top = _Table(raw, file, "")
    kind = top.choice("kind", ("team", "individual"))
    ruleset = _build(top, kind, file, data)
    top.done()
    return ruleset


@functools.cache
def _sha256(source: bytes) -> str:
    # Hashed when first asked for: importing hashlib (OpenSSL) costs a replay ~4 ms, and a
    # record that names no ruleset_sha256 needs no hash.
    import hashlib

    return hashlib.sha256(source).hexdigest()


_ID = re.compile(r"[a-z0-9][a-z0-9-]{1,62}")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _build(top: _Table, kind: str, file: str, source: bytes) -> Ruleset:
    ruleset_id = top.string("id")
    if not _ID.fullmatch(ruleset_id):
        top.fail("id", ruleset_id, "id_pattern",
                 "allowed: lower-case letters, digits and '-', 2 to 63 long")
    time_table: _Table = top.table("time")
    penalties = _penalties(top.table("penalties"), kind)
    timing = _timing(time_table)
    overrun = penalties.get("time-overrun")
    for key in ("overrun_play", "overrun_bury"):
        choice = getattr(timing, key)
        if choice is not None and (overrun is None or choice not in overrun.choices):
            if overrun is None:
                time_table.fail(key, choice, "overrun_none", "a choice of "
                                "penalties.time-overrun; allowed: none: no time-overrun penalty")
            allowed = ", ".join(overrun.choices)
            time_table.fail(key, choice, "overrun_choice",
                            f"a choice of penalties.time-overrun; allowed: {allowed}",
                            values=allowed)
    common: dict[str, Any] = {
        "id": ruleset_id,
        "kind": kind,
        "file": file,
        "source": source,
        "seed": top.string("seed", default=""),
        "name": top.text("name"),
        "summary": top.text("summary"),
        "kitty": _kitty(top.table("kitty")),
        "dealer": _dealer(top.table("dealer"), kind),
        "time": timing,
        "result": _result(top.table("result")),
        "event": _event(top.table("event")),
        "penalties": penalties,
        "readings": tuple(
            Reading(r.string("topic"), r.text_here()) for r in top.tables("readings", default=[])
        ),
        "terms": _terms(top.table("terms")),
        "one_penalty_per_incident": top.boolean("one_penalty_per_incident", default=False),
        "plays_no_trump": top.boolean("plays_no_trump", default=True),
    }
    if kind == "team":
        ladder, must_play = _ladder(top.table("ladder"))
        bands = _bands(top, "bands", _band)
        redeal_table = top.table("redeal", required=False)
        frying_table = top.table("frying", required=False)
        frying = frying_table.boolean("allowed") if frying_table else False
        if frying_table:
            frying_table.done()
        return Ruleset(
            **common,
            ladder=ladder,
            must_play=must_play,
            bands=bands,
            redeal=_redeal(redeal_table) if redeal_table else None,
            frying=frying,
            _band_index=_index(bands),
        )
    big_points = _bands(top, "big_points", _big_point_band)
    return Ruleset(
        **common,
        deals=_deals(top.table("deals"), top.table("partner_by_card")),
        big_points=big_points,
        _band_index=_index(big_points),
    )


def _index(bands: tuple[Any, ...]) -> tuple[Any, ...]:
    last = bands[-1].low // POINT_STEP
    index: list[Any] = []
    for band in bands:
        index.extend([band] * ((band.high - band.low) // POINT_STEP + 1 if band.high else 1))
    assert len(index) == last + 1
    return tuple(index)


def _terms(table: _Table) -> Mapping[str, Text]:
    terms = {name: table.text(name) for name in REQUIRED_TERMS}
    for name in OPTIONAL_TERMS:
        if table.table(name, required=False) is not None:
            terms[name] = table.text(name)
    table.done()
    return MappingProxyType(terms)


def _ladder(table: _Table) -> tuple[tuple[str, ...], frozenset[str]]:
    final = table.choice("final", LEVELS)
    ladder = LEVELS[: LEVELS.index(final) + 1]
    must_play = table.strings("must_play", default=[])
    for i, level in enumerate(must_play):
        if level not in ladder:
            table.fail(f"must_play[{i}]", level, "not_on_ladder",
                       f"not on the ladder; allowed: {' '.join(ladder)}", levels=" ".join(ladder))
    table.done()
    return ladder, frozenset(must_play)


def _bands(top: _Table, key: str, make: Any) -> tuple[Any, ...]:
    tables = top.tables(key)
    if not tables:
        top.fail(key, [], "no_bands", "give at least one band, starting at 0")
    bands = []
    previous_high: int | None = None
    for i, table in enumerate(tables):
        low = table.integer("from", minimum=0, multiple=POINT_STEP)
        expected = 0 if i == 0 else (previous_high or 0) + POINT_STEP
        if low != expected:
            if i == 0:
                table.fail("from", low, "first_band_at_0", "the first band must start at 0")
            gap = "a gap" if low > expected else "an overlap"
            table.fail("from", low, "band_gap" if low > expected else "band_overlap",
                       f"{gap}: after a band ending at {previous_high} the next must start at "
                       f"{expected}", high=previous_high, expected=expected)
        last = i == len(tables) - 1
        high = table.integer("to", minimum=low, multiple=POINT_STEP, default=None)
        if last and high is not None:
            table.fail("to", high, "last_band_open",
                       "the last band has no upper end; remove 'to'")
        if not last and high is None:
            table.fail("to", None, "band_needs_to", "every band but the last needs an upper end")
        bands.append(make(table, low, high, last))
        table.done()
        previous_high = high
    return tuple(bands)


def _band(table: _Table, low: int, high: int | None, last: bool) -> Band:
    result = table.choice("result", ("hold", "take-over"))
    hook = table.choice("hook", ("straight-to-final",), default=None)
    if hook and result != "hold":
        table.fail("hook", hook, "hook_hold_only", "straight-to-final only applies to a band "
                   "where the dealer side holds")
    every = table.integer("every", minimum=POINT_STEP, multiple=POINT_STEP, default=None)
    if every is not None and not last:
        table.fail("every", every, "every_last_only",
                   "only the last, open band may grow with 'every'")
    return Band(low, high, result, table.integer("advance", minimum=0), every, hook)


def _big_point_band(table: _Table, low: int, high: int | None, last: bool) -> BigPointBand:
    return BigPointBand(
        low, high, table.integer("dealer_side", minimum=-99), table.integer("defenders",
                                                                            minimum=-99)
    )


def _kitty(table: _Table) -> Kitty:
    growth = table.choice("tractor_growth", ("double", "add"))
    step = table.integer("tractor_step", minimum=0, default=None)
    if growth == "add" and step is None:
        table.fail("tractor_step", None, "step_needed", "tractor_growth 'add' needs tractor_step")
    if growth == "double" and step is not None:
        table.fail("tractor_step", step, "step_unused", "only used with tractor_growth 'add'")
    kitty = Kitty(
        single=table.integer("single", minimum=1),
        pair=table.integer("pair", minimum=1),
        pairs=table.integer("pairs", minimum=1),
        tractor2=table.integer("tractor2", minimum=1),
        tractor_growth=growth,
        tractor_step=step or 0,
        tractors=table.text("tractors"),
    )
    table.done()
    return kitty


def _dealer(table: _Table, kind: str) -> DealerRules:
    if kind == "team":
        rules = DealerRules(
            first=table.choice("first", ("grabbed",)),
            hold=table.choice("hold", ("partner", "same")),
            take_over=table.choice("take_over", ("next",)),
            direction=table.choice("direction", tuple(PLAY_ORDER)),
            direction_read=table.boolean("direction_read", default=False),
        )
    else:
        rules = DealerRules(
            first=table.choice("first", ("fixed",)),
            hold=table.choice("hold", ("fixed",)),
            take_over=table.choice("take_over", ("fixed",)),
            direction=table.choice("direction", tuple(PLAY_ORDER)),
            direction_read=table.boolean("direction_read", default=False),
        )
    table.done()
    return rules


def _redeal(table: _Table) -> Redeal:
    redeal = Redeal(
        max_hand_points=table.integer("max_hand_points", minimum=0, multiple=POINT_STEP),
        dealer_after=table.choice("dealer_after", ("same", "grabbed")),
        dealer_before_first_hand=table.choice("dealer_before_first_hand", ("same", "grabbed")),
        before_own_play=table.boolean("before_own_play", default=False),
        decides_alone=table.boolean("decides_alone", default=False),
    )
    table.done()
    return redeal


def _timing(table: _Table) -> Timing:
    rebury = table.seconds("rebury_seconds", default=None)
    minutes = table.seconds("match_minutes", default=0)
    timing = Timing(
        play_seconds=table.seconds("play_seconds"),
        bury_seconds=table.seconds("bury_seconds"),
        rebury_seconds=rebury,
        match_minutes=minutes or None,
        time_up=table.choice("time_up", ("none", "higher-level-now", "finish-hand-then-leader")),
        overrun_play=table.string("overrun_play", default=None),
        overrun_bury=table.string("overrun_bury", default=None),
        kiosk_default=table.boolean("kiosk_default", default=False),
        gather_seconds=table.seconds("gather_seconds", default=None),
    )
    if timing.gather_seconds is not None and timing.gather_seconds > MAX_GATHER_SECONDS:
        table.fail("gather_seconds", timing.gather_seconds, "gather_seconds",
                   f"allowed: 0 to {MAX_GATHER_SECONDS} seconds", n=MAX_GATHER_SECONDS)
    table.done()
    return timing


def _result(table: _Table) -> MatchScoring:
    further = table.strings("further_tie_breaks", default=[])
    for i, name in enumerate(further):
        if name not in FURTHER_TIE_BREAKS or further.index(name) != i:
            table.fail(f"further_tie_breaks[{i}]", name, "one_of_once",
                       f"each of {', '.join(FURTHER_TIE_BREAKS)} at most once",
                       values=", ".join(FURTHER_TIE_BREAKS))
    scoring = MatchScoring(
        win_points=table.integer("win_points", minimum=0),
        loss_points=table.integer("loss_points", minimum=0),
        tie_break=table.choice("tie_break", ("net-levels", "playoff", "head-referee", "none")),
        further_tie_breaks=tuple(further),
        big_points=table.boolean("big_points", default=True),
    )
    table.done()
    return scoring


def _event(table: _Table) -> EventFormat:
    event = EventFormat(
        format=table.choice("format", ("swiss", "single", "groups-knockout",
                                       "individual-groups")),
        text=table.text("text"),
        rounds=table.integer("rounds", minimum=1, default=None),
        groups=table.integer("groups", minimum=1, default=None),
        group_size=table.integer("group_size", minimum=2, default=None),
    )
    table.done()
    return event


def _penalties(table: _Table, kind: str) -> Mapping[str, Penalty]:
    forbidden = _INDIVIDUAL_ONLY_EFFECTS if kind == "team" else _TEAM_ONLY_EFFECTS
    penalties = {}
    for code in table.names():
        if not _ID.fullmatch(code):
            table.fail(code, code, "code_pattern",
                       "a penalty code is lower-case letters, digits and '-'")
        entry = table.table(code)
        name = entry.text_here()
        default = _outcome(entry, forbidden, required=False)
        choices = {}
        choice_table = entry.table("choices", required=False)
        if choice_table:
            for choice in choice_table.names():
                sub = choice_table.table(choice)
                outcome = _outcome(sub, forbidden, required=True)
                assert outcome is not None
                choices[choice] = Choice(sub.text_here(), outcome)
                sub.done()
            choice_table.done()
        if default is None and not choices:
            entry.fail("effect", None, "effect_needed",
                       f"give an effect or choices; effects: {', '.join(EFFECTS)}",
                       values=", ".join(EFFECTS))
        committed_by = _committers(entry)
        per_card = any(o.per_card for o in [*([default] if default else []),
                                             *(c.outcome for c in choices.values())])
        counts = entry.text("counts") if entry.table("counts", required=False) else None
        if counts is not None and not per_card:
            entry.fail("counts", "counts", "counts_per_card",
                       "only a penalty that costs per card says which cards count")
        only_with = tuple(entry.strings("only_with", default=[]))
        entry.done()
        penalties[code] = Penalty(code, name, default, MappingProxyType(choices), committed_by,
                                  counts, only_with)
    for code, penalty in penalties.items():  # (codes of this catalog, known only now)
        for i, other in enumerate(penalty.only_with):
            if other not in penalties or other == code:
                table.table(code).fail(f"only_with[{i}]", other, "penalty_codes",
                                       "another penalty code of this ruleset",
                                       values=", ".join(penalties))
    table.done()
    return MappingProxyType(penalties)


def _committers(entry: _Table) -> tuple[str, ...]:
    raw = entry.get("committed_by", "any")
    values = [raw] if isinstance(raw, str) else raw
    allowed = ", ".join(COMMITTERS)
    if (not isinstance(values, list) or not values
            or not all(isinstance(v, str) and v in COMMITTERS for v in values)
            or len(set(values)) != len(values) or ("any" in values and len(values) > 1)):
        entry.fail("committed_by", raw, "committers",
                   f"allowed: one of {allowed}, or a list of them", values=allowed)
    return tuple(values)


def _outcome(table: _Table, forbidden: frozenset[str], required: bool) -> Outcome | None:
    effect = table.choice("effect", tuple(EFFECTS), default=None)
    if effect is None:
        if required:
            table.fail("effect", None, "one_of", f"allowed: {', '.join(EFFECTS)}",
                       values=", ".join(EFFECTS))
        return None
    if effect in forbidden:
        table.fail("effect", effect, "effect_kind", "not available in this kind of ruleset")
    values: dict[str, Any] = {"effect": effect}
    if effect == "points":
        values["points"] = table.integer("points", minimum=POINT_STEP, multiple=POINT_STEP)
        values["per_card"] = table.choice("per", ("occurrence", "card"), "occurrence") == "card"
        values["warnings_first"] = table.integer("warnings_first", minimum=0, default=0)
        values["first_free"] = table.boolean("first_free", default=False)
        if values["first_free"] and not values["warnings_first"]:
            table.fail("first_free", True, "first_free",
                       "only with warnings_first: the first N are free instead of warnings")
        late = table.choice("late", ("refused",), default=None)
        values["late_refused"] = late == "refused"
    elif effect in ("referee-points", "referee-levels"):
        step = POINT_STEP if effect == "referee-points" else 1
        values["min"] = table.integer("min", minimum=step, multiple=step)
        values["max"] = table.integer("max", minimum=values["min"], multiple=step, default=None)
    elif effect == "fix-total":
        values["if_defenders"] = table.integer("if_defenders", minimum=0, multiple=POINT_STEP)
        values["if_dealer_side"] = table.integer("if_dealer_side", minimum=0,
                                                 multiple=POINT_STEP)
    elif effect == "big-points":
        values["erring"] = table.integer("erring", minimum=-99)
        values["other_at_least"] = table.integer("other_at_least", minimum=0)
    confirms = table.boolean("referee_confirms", default=False)
    if confirms and effect in FREE_EFFECTS:
        table.fail("referee_confirms", confirms, "confirm_free",
                   "a warning or a record costs nothing for the referee to confirm")
    values["referee_confirms"] = confirms
    return Outcome(**values)


def _deals(table: _Table, cards: _Table) -> Deals:
    levels = table.strings("levels")
    for i, level in enumerate(levels):
        if level not in LEVELS:
            table.fail(f"levels[{i}]", level, "one_of", f"allowed: {' '.join(LEVELS)}",
                       values=" ".join(LEVELS))
    if not levels:
        table.fail("levels", levels, "deals_needed", "give the level of every deal of a round")
    order = table.strings("dealer_order")
    if sorted(order) != sorted(SEATS):
        table.fail("dealer_order", order, "dealer_order", "each of N, E, S, W exactly once")
    table.done()
    partner_by_card: dict[str, str] = {}
    for where in ("right", "opposite", "left"):
        for i, rank in enumerate(cards.strings(where)):
            if rank not in RANKS or rank in partner_by_card:
                cards.fail(f"{where}[{i}]", rank, "rank_once",
                           f"each rank of {' '.join(RANKS)} exactly once over right, "
                           "opposite and left", ranks=" ".join(RANKS))
            partner_by_card[rank] = where
    missing = [rank for rank in RANKS if rank not in partner_by_card]
    if missing:
        cards.fail("", missing, "ranks_missing",
                   "these ranks name no partner; each rank exactly once")
    cards.done()
    return Deals(tuple(levels), tuple(order), MappingProxyType(partner_by_card))


class _Table:
    """A TOML table being read: remembers which keys were used, so that `done` can refuse the
    rest as unknown, and names the full key path in every error."""

    _MISSING: Final = object()

    def __init__(self, raw: Mapping[str, Any], file: str, path: str) -> None:
        self.raw = raw
        self.file = file
        self.path = path
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path and name else self.path or name

    def fail(self, name: str, value: Any, allowed_key: str, allowed: str,
             **params: Any) -> NoReturn:
        """Refuse `value` at key `name`: `allowed` says in English what is allowed, and
        `rules.file.<allowed_key>` with `params` says it in the reader's language."""
        spelled = f"“{value}”" if isinstance(value, str) else value_words(value)
        shown = "missing" if value is None else f"{spelled} is refused"
        refused = (words("rules.file.missing") if value is None
                   else words("rules.file.refused", value=value_words(value)))
        raise RulesetError(self.file, self.key(name), f"{shown}; {allowed}").explained(
            "rules.file.problem", shown=refused, allowed=words(f"rules.file.{allowed_key}",
                                                               **params))

    def get(self, name: str, default: Any) -> Any:
        self.used.add(name)
        value = self.raw.get(name, default)
        if value is self._MISSING:
            self.fail(name, None, "required", "this key is required")
        return value

    def names(self) -> list[str]:
        return list(self.raw)

    def done(self) -> None:
        unknown = [k for k in self.raw if k not in self.used]
        if unknown:
            allowed = ", ".join(sorted(self.used))
            raise RulesetError(self.file, self.key(unknown[0]),
                               f"unknown key; allowed here: {allowed}").explained(
                "rules.file.unknown_key", keys=allowed)

    def string(self, name: str, default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is not default and (not isinstance(value, str) or not value.strip()):
            self.fail(name, value, "text", "allowed: a non-empty string")
        return value

    def strings(self, name: str, default: Any = _MISSING) -> list[str]:
        value = self.get(name, default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(name, value, "strings", "allowed: a list of strings")
        return list(value)

    def boolean(self, name: str, default: Any = _MISSING) -> bool:
        value = self.get(name, default)
        if not isinstance(value, bool):
            self.fail(name, value, "boolean", "allowed: true or false")
        return bool(value)

    def choice(self, name: str, allowed: tuple[str, ...], default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is not default and value not in allowed:
            self.fail(name, value, "one_of", f"allowed: {', '.join(allowed)}",
                      values=", ".join(allowed))
        return value

    def integer(self, name: str, minimum: int, multiple: int = 1, default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is default:
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(name, value, "whole_number", f"allowed: a whole number, {minimum} or more",
                      min=minimum)
        if value < minimum:
            self.fail(name, value, "at_least", f"allowed: {minimum} or more", min=minimum)
        if value % multiple:
            self.fail(name, value, "multiple_of", f"allowed: a multiple of {multiple}",
                      n=multiple)
        return value

    def seconds(self, name: str, default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is default:
            return value
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            self.fail(name, value, "seconds", "allowed: a number of seconds (minutes for "
                      "match_minutes), 0 or more")
        return value

    def table(self, name: str, required: bool = True) -> Any:
        value = self.get(name, self._MISSING if required else None)
        if value is None:
            return None
        if not isinstance(value, dict):
            self.fail(name, value, "table", "allowed: a table")
        return _Table(value, self.file, self.key(name))

    def tables(self, name: str, default: Any = _MISSING) -> list[_Table]:
        value = self.get(name, default)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.fail(name, value, "tables", f"allowed: a list of tables ([[{name}]])",
                      table=name)
        return [_Table(v, self.file, f"{self.key(name)}[{i}]") for i, v in enumerate(value)]

    def text(self, name: str) -> Text:
        sub: _Table = self.table(name)
        text = sub.text_here()
        sub.done()
        return text

    def text_here(self) -> Text:
        """This table's texts in the three languages (keys zh-Hans, zh-Hant, en)."""
        zh_hans, zh_hant, en = (self.string(lang) for lang in LANGS)
        return Text(zh_hans, zh_hant, en)

