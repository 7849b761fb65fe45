"""Rulesets as immutable values, read from TOML files and validated on load.

A ruleset file is data a tournament organiser can write. Every key is checked; a bad file is
refused with a `RulesetError` naming the file, the key, the bad value and what is allowed.
The few behaviours that are not a table are named hooks (``straight-to-final``, the time-up rules,
the penalty effects), each documented where it is applied.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from .errors import EntryError, RulesetError
from .seats import LEVELS, PLAY_ORDER, RANKS, SEATS

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

_SHAPE = re.compile(r"(single|pair|pairs|tractor)([0-9]*)")
#: A player holds 25 cards, so a shape has at most 12 pairs.
MAX_PAIRS: Final = 12


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

    def multiplier(self, shape: str) -> int:
        """The multiplier for `shape`: ``single``, ``pair``, ``pairsN`` or ``tractorN`` (N >= 2).
        Raises EntryError for any other shape."""
        match = _SHAPE.fullmatch(shape) if isinstance(shape, str) else None
        if match is None:
            raise EntryError("kitty.shape", f"{shape!r} is not a shape; give single, pair, "
                             "pairsN or tractorN (N pairs, 2 or more)")
        kind, digits = match.groups()
        if kind in ("single", "pair"):
            if digits:
                raise EntryError("kitty.shape", f"{shape!r}: {kind} takes no number")
            return self.single if kind == "single" else self.pair
        if not digits or not 2 <= int(digits) <= MAX_PAIRS or digits.startswith("0"):
            raise EntryError("kitty.shape", f"{shape!r}: {kind} needs a number of pairs "
                             f"from 2 to {MAX_PAIRS}, e.g. {kind}2")
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
    if_defenders: int = 0  # fix-total
    if_dealer_side: int = 0  # fix-total
    erring: int = 0  # big-points
    other_at_least: int = 0  # big-points
    late_refused: bool = False  # found after the next trick started: not pursued


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

    def outcome(self, choice: str | None, field_name: str = "choice") -> Outcome:
        """The outcome for the referee's `choice` (None: the default). Raises EntryError when the
        choice is unknown, or missing where the penalty has no default."""
        if choice is None:
            if self.default is None:
                raise EntryError(field_name, f"{self.code} needs a choice: "
                                 f"{', '.join(self.choices)}")
            return self.default
        picked = self.choices.get(choice)
        if picked is None:
            allowed = ", ".join(self.choices) if self.choices else "none (omit the choice)"
            raise EntryError(field_name, f"{choice!r} is not a choice of {self.code}; "
                             f"allowed: {allowed}")
        return picked.outcome


@dataclass(frozen=True, slots=True)
class DealerRules:
    first: str  # "grabbed" or "fixed"
    hold: str  # "partner", "same" or "fixed"
    take_over: str  # "next" or "fixed"
    direction: str  # "clockwise" or "counter-clockwise"


@dataclass(frozen=True, slots=True)
class Redeal:
    """A defender with at most `max_hand_points` in hand may call a redeal (革命)."""

    max_hand_points: int
    dealer_after: str  # "same" or "grabbed"
    dealer_before_first_hand: str  # "same" or "grabbed": a redeal before any hand was played


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


@dataclass(frozen=True, slots=True)
class MatchScoring:
    win_points: int
    loss_points: int
    tie_break: str  # "net-levels", "playoff", "head-referee" or "none"


@dataclass(frozen=True, slots=True)
class EventFormat:
    format: str  # "swiss", "single", "groups-knockout" or "individual-groups"
    text: Text
    rounds: int | None = None
    groups: int | None = None
    group_size: int | None = None


@dataclass(frozen=True, slots=True)
class Reading:
    """A reading the project chose where the seed is unclear (RULES.md's **Reading:**)."""

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
    """One ruleset, exactly as its file says. `sha256` is the hash of the file's bytes."""

    id: str
    kind: str  # "team" or "individual"
    file: str
    sha256: str
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
    def final(self) -> str:
        """The final level: stepping out of it wins the match."""
        return self.ladder[-1]

    def band_for(self, total: int) -> Band:
        """The level-change band for the defenders' `total` (below 0 counts as 0)."""
        return self._lookup(total)  # type: ignore[no-any-return]

    def big_points_for(self, total: int) -> BigPointBand:
        """The big-point band for the defenders' `total` (below 0 counts as 0)."""
        return self._lookup(total)  # type: ignore[no-any-return]

    def seats_for(self, code: str, dealer: str, buried_by: str | None = None) -> tuple[str, ...]:
        """The seats that can commit penalty `code` in a hand dealt by `dealer` (`buried_by`: the
        seat that buried the kitty last, where frying lets another seat bury). Every seat, until
        the ruleset file ties the offence to one side (issue 13); the kiosk's penalty step offers
        only these seats and the session refuses any other."""
        if code not in self.penalties:
            raise EntryError("code", f"{code!r} is not a penalty of {self.id}")
        return SEATS

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
        raise RulesetError(file, "", f"not UTF-8 text (byte {exc.start})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(file, "", f"TOML syntax error: {exc}") from None
    top = _Table(raw, file, "")
    kind = top.choice("kind", ("team", "individual"))
    ruleset = _build(top, kind, file, hashlib.sha256(data).hexdigest())
    top.done()
    return ruleset


_ID = re.compile(r"[a-z0-9][a-z0-9-]{1,62}")


def _build(top: _Table, kind: str, file: str, sha256: str) -> Ruleset:
    ruleset_id = top.string("id")
    if not _ID.fullmatch(ruleset_id):
        top.fail("id", ruleset_id, "allowed: lower-case letters, digits and '-', 2 to 63 long")
    time_table = top.table("time")
    penalties = _penalties(top.table("penalties"), kind)
    timing = _timing(time_table)
    overrun = penalties.get("time-overrun")
    for key in ("overrun_play", "overrun_bury"):
        choice = getattr(timing, key)
        if choice is not None and (overrun is None or choice not in overrun.choices):
            allowed = ", ".join(overrun.choices) if overrun else "none: no time-overrun penalty"
            time_table.fail(key, choice, f"a choice of penalties.time-overrun; allowed: {allowed}")
    common: dict[str, Any] = {
        "id": ruleset_id,
        "kind": kind,
        "file": file,
        "sha256": sha256,
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


def _ladder(table: _Table) -> tuple[tuple[str, ...], frozenset[str]]:
    final = table.choice("final", LEVELS)
    ladder = LEVELS[: LEVELS.index(final) + 1]
    must_play = table.strings("must_play", default=[])
    for i, level in enumerate(must_play):
        if level not in ladder:
            table.fail(f"must_play[{i}]", level,
                       f"not on the ladder; allowed: {' '.join(ladder)}")
    table.done()
    return ladder, frozenset(must_play)


def _bands(top: _Table, key: str, make: Any) -> tuple[Any, ...]:
    tables = top.tables(key)
    if not tables:
        top.fail(key, [], "give at least one band, starting at 0")
    bands = []
    previous_high: int | None = None
    for i, table in enumerate(tables):
        low = table.integer("from", minimum=0, multiple=POINT_STEP)
        expected = 0 if i == 0 else (previous_high or 0) + POINT_STEP
        if low != expected:
            if i == 0:
                table.fail("from", low, "the first band must start at 0")
            gap = "a gap" if low > expected else "an overlap"
            table.fail("from", low, f"{gap}: after a band ending at {previous_high} the next "
                       f"must start at {expected}")
        last = i == len(tables) - 1
        high = table.integer("to", minimum=low, multiple=POINT_STEP, default=None)
        if last and high is not None:
            table.fail("to", high, "the last band has no upper end; remove 'to'")
        if not last and high is None:
            table.fail("to", None, "every band but the last needs an upper end")
        bands.append(make(table, low, high, last))
        table.done()
        previous_high = high
    return tuple(bands)


def _band(table: _Table, low: int, high: int | None, last: bool) -> Band:
    result = table.choice("result", ("hold", "take-over"))
    hook = table.choice("hook", ("straight-to-final",), default=None)
    if hook and result != "hold":
        table.fail("hook", hook, "straight-to-final only applies to a band where the dealer "
                   "side holds")
    every = table.integer("every", minimum=POINT_STEP, multiple=POINT_STEP, default=None)
    if every is not None and not last:
        table.fail("every", every, "only the last, open band may grow with 'every'")
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
        table.fail("tractor_step", None, "tractor_growth 'add' needs tractor_step")
    if growth == "double" and step is not None:
        table.fail("tractor_step", step, "only used with tractor_growth 'add'")
    kitty = Kitty(
        single=table.integer("single", minimum=1),
        pair=table.integer("pair", minimum=1),
        pairs=table.integer("pairs", minimum=1),
        tractor2=table.integer("tractor2", minimum=1),
        tractor_growth=growth,
        tractor_step=step or 0,
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
        )
    else:
        rules = DealerRules(
            first=table.choice("first", ("fixed",)),
            hold=table.choice("hold", ("fixed",)),
            take_over=table.choice("take_over", ("fixed",)),
            direction=table.choice("direction", tuple(PLAY_ORDER)),
        )
    table.done()
    return rules


def _redeal(table: _Table) -> Redeal:
    redeal = Redeal(
        max_hand_points=table.integer("max_hand_points", minimum=0, multiple=POINT_STEP),
        dealer_after=table.choice("dealer_after", ("same", "grabbed")),
        dealer_before_first_hand=table.choice("dealer_before_first_hand", ("same", "grabbed")),
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
    )
    table.done()
    return timing


def _result(table: _Table) -> MatchScoring:
    scoring = MatchScoring(
        win_points=table.integer("win_points", minimum=0),
        loss_points=table.integer("loss_points", minimum=0),
        tie_break=table.choice("tie_break", ("net-levels", "playoff", "head-referee", "none")),
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
            table.fail(code, code, "a penalty code is lower-case letters, digits and '-'")
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
            entry.fail("effect", None, f"give an effect or choices; effects: {', '.join(EFFECTS)}")
        entry.done()
        penalties[code] = Penalty(code, name, default, MappingProxyType(choices))
    table.done()
    return MappingProxyType(penalties)


def _outcome(table: _Table, forbidden: frozenset[str], required: bool) -> Outcome | None:
    effect = table.choice("effect", tuple(EFFECTS), default=None)
    if effect is None:
        if required:
            table.fail("effect", None, f"allowed: {', '.join(EFFECTS)}")
        return None
    if effect in forbidden:
        table.fail("effect", effect, "not available in this kind of ruleset")
    values: dict[str, Any] = {"effect": effect}
    if effect == "points":
        values["points"] = table.integer("points", minimum=POINT_STEP, multiple=POINT_STEP)
        values["per_card"] = table.choice("per", ("occurrence", "card"), "occurrence") == "card"
        values["warnings_first"] = table.integer("warnings_first", minimum=0, default=0)
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
    return Outcome(**values)


def _deals(table: _Table, cards: _Table) -> Deals:
    levels = table.strings("levels")
    for i, level in enumerate(levels):
        if level not in LEVELS:
            table.fail(f"levels[{i}]", level, f"allowed: {' '.join(LEVELS)}")
    if not levels:
        table.fail("levels", levels, "give the level of every deal of a round")
    order = table.strings("dealer_order")
    if sorted(order) != sorted(SEATS):
        table.fail("dealer_order", order, "each of N, E, S, W exactly once")
    table.done()
    partner_by_card: dict[str, str] = {}
    for where in ("right", "opposite", "left"):
        for i, rank in enumerate(cards.strings(where)):
            if rank not in RANKS or rank in partner_by_card:
                cards.fail(f"{where}[{i}]", rank,
                           f"each rank of {' '.join(RANKS)} exactly once over right, "
                           "opposite and left")
            partner_by_card[rank] = where
    missing = [rank for rank in RANKS if rank not in partner_by_card]
    if missing:
        cards.fail("", missing, "these ranks name no partner; each rank exactly once")
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

    def fail(self, name: str, value: Any, allowed: str) -> Any:
        shown = "missing" if value is None else f"{_show(value)} is refused"
        raise RulesetError(self.file, self.key(name), f"{shown}; {allowed}")

    def get(self, name: str, default: Any) -> Any:
        self.used.add(name)
        value = self.raw.get(name, default)
        if value is self._MISSING:
            self.fail(name, None, "this key is required")
        return value

    def names(self) -> list[str]:
        return list(self.raw)

    def done(self) -> None:
        unknown = [k for k in self.raw if k not in self.used]
        if unknown:
            raise RulesetError(self.file, self.key(unknown[0]),
                               f"unknown key; allowed here: {', '.join(sorted(self.used))}")

    def string(self, name: str, default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is not default and (not isinstance(value, str) or not value.strip()):
            self.fail(name, value, "allowed: a non-empty string")
        return value

    def strings(self, name: str, default: Any = _MISSING) -> list[str]:
        value = self.get(name, default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(name, value, "allowed: a list of strings")
        return list(value)

    def boolean(self, name: str) -> bool:
        value = self.get(name, self._MISSING)
        if not isinstance(value, bool):
            self.fail(name, value, "allowed: true or false")
        return bool(value)

    def choice(self, name: str, allowed: tuple[str, ...], default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is not default and value not in allowed:
            self.fail(name, value, f"allowed: {', '.join(allowed)}")
        return value

    def integer(self, name: str, minimum: int, multiple: int = 1, default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is default:
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(name, value, f"allowed: a whole number, {minimum} or more")
        if value < minimum:
            self.fail(name, value, f"allowed: {minimum} or more")
        if value % multiple:
            self.fail(name, value, f"allowed: a multiple of {multiple}")
        return value

    def seconds(self, name: str, default: Any = _MISSING) -> Any:
        value = self.get(name, default)
        if value is default:
            return value
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            self.fail(name, value, "allowed: a number of seconds (minutes for match_minutes), "
                      "0 or more")
        return value

    def table(self, name: str, required: bool = True) -> Any:
        value = self.get(name, self._MISSING if required else None)
        if value is None:
            return None
        if not isinstance(value, dict):
            self.fail(name, value, "allowed: a table")
        return _Table(value, self.file, self.key(name))

    def tables(self, name: str, default: Any = _MISSING) -> list[_Table]:
        value = self.get(name, default)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.fail(name, value, f"allowed: a list of tables ([[{name}]])")
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


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, str) else f"'{value}'"
