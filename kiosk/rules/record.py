"""Match records (docs/rules.md §9): parse one, replay it through the fold, and yield the
printed lines.

A record is untrusted input: every structural problem and every refused entry becomes a
`RecordError` naming the hand (or deal) and the field. `replay` yields the lines of the hands
before the bad one first, so a caller can print them and then the error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from .errors import EntryError, RecordError, RulesError, Words, value_words, words
from .hand import KittyEntry, PenaltyEntry
from .match import HandEntry, TeamMatch
from .registry import Rulesets
from .ruleset import Ruleset

if TYPE_CHECKING:  # imported where an individual round is replayed: a team match needs none
    from .individual import DealEntry

#: Informational fields a record may carry for score sheets (event, teams, players…).
_INFO: Final = frozenset({"event", "round", "table", "teams", "players", "note", "group"})
_TEAM_KEYS: Final = frozenset({"ruleset", "ruleset_sha256", "first_dealer", "hands", "end"}) | _INFO
_INDIVIDUAL_KEYS: Final = frozenset({"ruleset", "ruleset_sha256", "deals"}) | _INFO
_HAND_KEYS: Final = frozenset(
    {"points", "kitty", "penalties", "redeal", "dealer", "as_played", "trump", "note",
     "buried_by", "called_by", "disputed_by"})
_DEAL_KEYS: Final = frozenset(
    {"points", "kitty", "penalties", "partner", "partner_card", "dealer", "trump", "note",
     "disputed_by"})
_KITTY_KEYS: Final = frozenset({"points", "shape"})
_PENALTY_KEYS: Final = frozenset(
    {"code", "seat", "cards", "points", "levels", "choice", "late", "note", "at", "entered_by",
     "over_seconds", "incident", "confirmed"})
_END_KEYS: Final = frozenset({"time_up", "forfeit", "reason", "called_by"})
_TIME_UP: Final = ("between-hands", "during-last-hand")
#: Who called time, where not the match clock running out: the table's referee, or the head
#: referee for the whole hall. Words only: replay decides the same either way.
_CALLED_BY: Final = ("referee", "head-referee")


def replay(record: Any, rulesets: Rulesets) -> Iterator[dict[str, Any]]:
    """Recompute a match record and yield one JSON-ready object per hand (or deal). Raises
    RecordError at the first problem, after yielding the lines of the hands before it."""
    if not isinstance(record, dict):
        raise RecordError("record", "", "a match record is a JSON object").explained(
            "rules.record.not_object")
    try:
        ruleset = rulesets.require(record.get("ruleset"))
    except RulesError as exc:
        error = RecordError("record", "ruleset", str(exc))
        if exc.problem_key is not None:
            error.explained(exc.problem_key, **exc.problem_params)
        raise error from None
    expected = record.get("ruleset_sha256")
    if expected is not None and expected != ruleset.sha256:
        raise RecordError("record", "ruleset_sha256", f"the record was scored with a "
                          f"{ruleset.id} file of sha256 {expected}, but this {ruleset.id} has "
                          f"sha256 {ruleset.sha256}").explained(
            "rules.record.sha256", ruleset=ruleset.name, expected=str(expected)[:64],
            actual=ruleset.sha256)
    _check_info(record)
    if ruleset.kind == "team":
        _check_keys(record, _TEAM_KEYS, "record", "")
        yield from _replay_team(record, ruleset)
    else:
        _check_keys(record, _INDIVIDUAL_KEYS, "record", "")
        yield from _replay_individual(record, ruleset)


def _replay_team(record: dict[str, Any], ruleset: Ruleset) -> Iterator[dict[str, Any]]:
    hands = _list(record.get("hands", []), "record", "hands")
    end = _parse_end(record.get("end"))
    first = record.get("first_dealer")
    first_hand_dealer = hands[0].get("dealer") if hands and isinstance(hands[0], dict) else None
    if first is not None and first_hand_dealer is not None and first != first_hand_dealer:
        raise RecordError("record", "first_dealer", f"'{first}' differs from hand 1's dealer "
                          f"'{first_hand_dealer}'; give one of them").explained(
            "rules.record.first_dealer_differs", first=value_words(first),
            dealer=value_words(first_hand_dealer))
    if hands and first is None and first_hand_dealer is None:
        raise RecordError("hand 1", "dealer", "give the first dealer as first_dealer or as "
                          "hand 1's dealer").explained("rules.record.first_dealer_missing")
    try:
        state = TeamMatch.start(ruleset, first)
    except EntryError as exc:
        raise RecordError.from_entry("record", exc) from None
    line: dict[str, Any] | None = None  # held back: an ending may amend it
    for number, raw in enumerate(hands, 1):
        try:
            entry = parse_hand(raw)
            if end.get("time_up") == "during-last-hand" and number == len(hands):
                state, decision = state.time_up(hand_in_progress=True)
                if decision.winner is not None:
                    raise EntryError("end.time_up", f"at time up the levels differed, so "
                                     f"{ruleset.id} ends at once ({decision.winner} wins) and "
                                     "the hand in play is not finished; record 'between-hands' "
                                     "without that hand").explained(
                        "rules.record.time_up_levels_differ", ruleset=ruleset.name,
                        team=_team_words(decision.winner))
            state, result = state.play(entry)
        except EntryError as exc:
            if line is not None:
                yield line
            raise RecordError.from_entry(f"hand {number}", exc) from None
        if line is not None:
            yield line
        line = result.to_json()
    try:
        if end.get("time_up") == "between-hands":
            state, _ = state.time_up(hand_in_progress=False)
        elif end.get("time_up") == "during-last-hand" and not hands:
            raise EntryError("end.time_up", "'during-last-hand' needs the hand that was in play"
                             ).explained("rules.record.during_needs_hand")
        elif "forfeit" in end:
            state = state.forfeit(end["forfeit"])
    except EntryError as exc:
        if line is not None:
            yield line
        raise RecordError.from_entry("end", exc, "end") from None
    outcome = state.result()
    if line is None:
        if outcome is None:
            return
        line = {"hand": None, "dealer": None, "level": None, "total": None, "result": "end",
                "advance": None, "levels": dict(zip(("NS", "EW"), state.shown_levels(),
                                                    strict=True)),
                "next_dealer": None, "winner": None}
    if outcome is not None:
        line.update(outcome.to_json())
        if "reason" in end:
            line["reason"] = end["reason"]
    yield line


def _replay_individual(record: dict[str, Any], ruleset: Ruleset) -> Iterator[dict[str, Any]]:
    from .individual import IndividualRound

    deals = _list(record.get("deals", []), "record", "deals")
    state = IndividualRound.start(ruleset)
    for number, raw in enumerate(deals, 1):
        try:
            state, result = state.play(parse_deal(raw))
        except EntryError as exc:
            raise RecordError.from_entry(f"deal {number}", exc) from None
        yield result.to_json()


# -- parsing -------------------------------------------------------------------------------


def parse_hand(raw: Any) -> HandEntry:
    """A hand of a record (a JSON object) as a HandEntry. Raises EntryError or RecordError."""
    _check_keys(raw, _HAND_KEYS, "", "")
    _check_disputed(raw, ("NS", "EW"))
    for flag in ("redeal", "as_played"):
        if not isinstance(raw.get(flag, False), bool):
            raise EntryError(flag, f"{raw[flag]!r}: give true or false").explained(
                "rules.entry.not_bool", value=value_words(raw[flag]))
    return HandEntry(
        points=raw.get("points"),
        kitty=_parse_kitty(raw.get("kitty")),
        penalties=_parse_penalties(raw.get("penalties", [])),
        redeal=raw.get("redeal", False),
        dealer=raw.get("dealer"),
        as_played=raw.get("as_played", False),
        buried_by=raw.get("buried_by"),
        called_by=raw.get("called_by"),
    )


def parse_deal(raw: Any) -> DealEntry:
    """A deal of an individual record as a DealEntry. Raises EntryError or RecordError."""
    from .individual import DealEntry

    _check_keys(raw, _DEAL_KEYS, "", "")
    _check_disputed(raw, ("dealer", "defenders"))
    return DealEntry(
        points=raw.get("points"),
        kitty=_parse_kitty(raw.get("kitty")),
        penalties=_parse_penalties(raw.get("penalties", [])),
        partner=raw.get("partner"),
        partner_card=raw.get("partner_card"),
        dealer=raw.get("dealer"),
    )


def _check_disputed(raw: Any, sides: tuple[str, ...]) -> None:
    """`disputed_by`, the side whose dispute the table's referee ruled on (words only: the
    hand scores as entered), must name a side."""
    if "disputed_by" in raw and raw["disputed_by"] not in sides:
        raise EntryError("disputed_by", f"{raw['disputed_by']!r}; allowed: {', '.join(sides)}"
                         ).explained("rules.record.one_of", value=value_words(raw["disputed_by"]),
                                     values=", ".join(sides))


def _parse_kitty(raw: Any) -> KittyEntry | None:
    if raw is None:
        return None
    _check_keys(raw, _KITTY_KEYS, "", "kitty.")
    if "points" not in raw:  # (its shape is the ruleset's to ask: `Kitty.multiplier`)
        raise EntryError("kitty.points", "missing; the kitty needs its points"
                         ).explained("rules.record.kitty_needs")
    return KittyEntry(raw["points"], raw.get("shape"))


def _parse_penalties(raw: Any) -> tuple[PenaltyEntry, ...]:
    if not isinstance(raw, list):
        raise EntryError("penalties", "give a list of penalties").explained(
            "rules.record.penalties_list")
    entries = []
    for i, item in enumerate(raw):
        where = f"penalties[{i}]."
        _check_keys(item, _PENALTY_KEYS, "", where)
        for key in ("code", "seat"):
            if key not in item:
                raise EntryError(f"{where}{key}", "missing; a penalty needs code and seat"
                                 ).explained("rules.record.penalty_needs")
        entries.append(PenaltyEntry(
            code=item["code"], seat=item["seat"], cards=item.get("cards"),
            points=item.get("points"), levels=item.get("levels"), choice=item.get("choice"),
            late=item.get("late", False), incident=item.get("incident"),
            confirmed=item.get("confirmed", False)))
    return tuple(entries)


def _parse_end(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        _check_keys(raw, _END_KEYS, "", "")
    except EntryError as exc:
        raise RecordError.from_entry("end", exc) from None
    if ("time_up" in raw) == ("forfeit" in raw):
        raise RecordError("end", "", "give either time_up or forfeit").explained(
            "rules.record.end_either")
    if "time_up" in raw and raw["time_up"] not in _TIME_UP:
        raise RecordError("end", "time_up", f"{raw['time_up']!r}; allowed: "
                          f"{', '.join(_TIME_UP)}").explained(
            "rules.record.one_of", value=value_words(raw["time_up"]), values=", ".join(_TIME_UP))
    if "called_by" in raw and ("time_up" not in raw or raw["called_by"] not in _CALLED_BY):
        raise RecordError("end", "called_by", f"{raw['called_by']!r}; allowed with time_up: "
                          f"{', '.join(_CALLED_BY)}").explained(
            "rules.record.one_of", value=value_words(raw["called_by"]),
            values=", ".join(_CALLED_BY))
    if "reason" in raw and not isinstance(raw["reason"], str):
        raise RecordError("end", "reason", "give the reason as text").explained(
            "rules.record.text")
    return dict(raw)


def _check_keys(raw: Any, allowed: frozenset[str], where: str, prefix: str) -> None:
    if not isinstance(raw, dict):
        what = prefix.rstrip(".") or "entry"
        if where:
            raise RecordError(where, prefix.rstrip("."), "must be a JSON object").explained(
                "rules.record.must_be_object")
        raise EntryError(what, "must be a JSON object").explained("rules.record.must_be_object")
    for key in raw:
        if key not in allowed:
            names = ", ".join(sorted(allowed))
            problem = f"unknown field; allowed: {names}"
            if where:
                raise RecordError(where, f"{prefix}{key}", problem).explained(
                    "rules.record.unknown_field", fields=names)
            raise EntryError(f"{prefix}{key}", problem).explained(
                "rules.record.unknown_field", fields=names)


def _check_info(record: dict[str, Any]) -> None:
    """The informational fields, shaped as a score sheet can print them."""
    for key in ("event", "round", "table", "note", "group"):
        value = record.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, str | int)):
            raise RecordError("record", key, "give text or a number").explained(
                "rules.record.text_or_number")
    for key, names in (("teams", ("NS", "EW")), ("players", ("N", "E", "S", "W"))):
        value = record.get(key)
        if value is not None and (not isinstance(value, dict) or not set(value) <= set(names)
                                  or not all(isinstance(v, str) for v in value.values())):
            raise RecordError("record", key, f"give names by {', '.join(names)}").explained(
                "rules.record.names_by", keys=", ".join(names))


def _list(value: Any, where: str, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(where, field, "give a list").explained("rules.record.list")
    return value



def _team_words(team: str) -> Words:
    return words(f"team.{team}")
