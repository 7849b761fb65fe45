"""The errors the rules core raises, and the words they carry for people.

Every error here is a `RulesError`, a branch of the program's one hierarchy (`kiosk.errors`):
it carries a catalog key and its parameters, and `kiosk.i18n.explain` gives the words in the
reader's language. A parameter may itself be `Words` (a catalog key with parameters, such
as a seat or a field's name) or a ruleset `Text`; both are rendered in the reader's language.

Where an error sits is part of its words: an `EntryError` names the field of the hand
(``penalties[0].seat`` → "the seat of penalty 1"), a `RecordError` also names the hand or deal.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import RulesError, Words, words

__all__ = ["EntryError", "MatchOver", "RecordError", "RulesError", "RulesetError", "Words",
           "field_words", "seat_words", "seats_words", "value_words", "where_words", "words"]


def seat_words(seat: str) -> Words:
    """A seat (N, E, S, W) as the reader's language names it: 北, 东, 南, 西."""
    return words(f"seat.{seat}")


def value_words(value: Any) -> Words | str:
    """A value from a record or a ruleset file as a person reads it: in the file's own
    spelling (true, null, 12.5, never Python's True or None), a text in quotes, and a number
    written as text said to be text ("40" in a record is not the number 40)."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return words("rules.value.text", text=value[:40])
        return words("rules.value.number_text", text=value[:40])
    try:
        shown = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):  # (a record is JSON: only a float('inf') gets here)
        shown = str(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def seats_words(seats: tuple[str, ...]) -> Words:
    """One to four seats as a list in the reader's language (北、南)."""
    names = {f"s{i}": seat_words(seat) for i, seat in enumerate(seats, 1)}
    return words(f"rules.seats{len(seats)}", **names)


class RulesetError(RulesError):
    """A ruleset file is unreadable or invalid. The message names the file, the key's `path`
    in the file, the bad value and what is allowed."""

    def __init__(self, file: str, path: str, problem: str) -> None:
        self.file = file
        self.path = path
        self.problem = problem
        super().__init__(f"{file}: {path}: {problem}" if path else f"{file}: {problem}")

    def _located(self, problem: Words) -> tuple[str, dict[str, Any]]:
        if self.path:
            return "rules.file.at_key", {"file": self.file, "path": self.path,
                                         "problem": problem}
        return "rules.file.at_file", {"file": self.file, "problem": problem}


class EntryError(RulesError):
    """An entry for one hand (points, kitty, a penalty, the dealer…) is refused. `field` is the
    path of the offending field within the hand, e.g. ``penalties[0].cards``."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}" if field else problem)

    def _located(self, problem: Words) -> tuple[str, dict[str, Any]]:
        if self.field:
            return "rules.at_field", {"field": field_words(self.field), "problem": problem}
        return problem.key, dict(problem.params)


class MatchOver(EntryError):
    """Something was entered after the match already had a winner."""


class RecordError(RulesError):
    """A match record (docs/rules.md §9) is refused. `where` is ``hand 3``, ``deal 2``, ``end`` or
    ``record``; `field` names the field."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.where = where
        self.field = field
        self.problem = problem
        parts = [p for p in (where, field) if p]
        super().__init__(": ".join([*parts, problem]))

    def _located(self, problem: Words) -> tuple[str, dict[str, Any]]:
        where = where_words(self.where)
        if self.field:
            return "rules.at_where_field", {"where": where, "field": field_words(self.field),
                                            "problem": problem}
        return "rules.at_where", {"where": where, "problem": problem}

    @classmethod
    def from_entry(cls, where: str, error: EntryError, field_prefix: str = "") -> RecordError:
        """The record-level error for an entry refused in `where` (``hand 3``): same field and
        problem, and the same words."""
        field_path = error.field.removeprefix(field_prefix).lstrip(".") if field_prefix \
            else error.field
        out = cls(where, field_path, error.problem)
        if error.problem_key is not None:
            out.explained(error.problem_key, **error.problem_params)
        return out


# -- where an error sits, in words ------------------------------------------------------------

_INDEXED = re.compile(r"(\w+)\[(\d+)\](?:\.(.+))?")
_WHERE = re.compile(r"(hand|deal) (\d+)")
#: The fields of a record and a hand that have a name in the catalog (`rules.field.NAME`).
KNOWN_FIELDS = frozenset({
    "points", "kitty", "kitty.points", "kitty.shape", "penalties", "redeal", "dealer",
    "as_played", "buried_by", "called_by", "disputed_by", "partner", "partner_card",
    "first_dealer", "ruleset", "ruleset_sha256", "hands", "deals", "end", "time_up", "forfeit",
    "reason", "event", "round", "table", "teams", "players", "note", "group", "groups", "entry",
})
#: The fields of one penalty that have a name (`rules.field.penalty.NAME`).
PENALTY_FIELDS = frozenset({"code", "seat", "cards", "points", "levels", "choice", "late",
                            "incident", "confirmed"})


def field_words(path: str) -> Words:
    """A field path (``penalties[0].cards``, ``kitty.points``, an unknown ``pionts``) in words."""
    indexed = _INDEXED.fullmatch(path)
    if indexed and indexed.group(1) == "penalties":
        number = int(indexed.group(2)) + 1
        rest = indexed.group(3)
        if rest is None:
            return words("rules.field.penalty", n=number)
        part = (words(f"rules.field.penalty.{rest}") if rest in PENALTY_FIELDS
                else words("rules.field.named", name=rest))
        return words("rules.field.penalty_part", n=number, part=part)
    if path.startswith("end.") and path != "end.":
        return field_words(path.removeprefix("end."))
    if path in KNOWN_FIELDS:
        return words(f"rules.field.{path}")
    return words("rules.field.named", name=path)


def where_words(where: str) -> Words:
    """``hand 3``, ``deal 2``, ``end`` or ``record`` in words."""
    numbered = _WHERE.fullmatch(where)
    if numbered:
        return words(f"rules.where.{numbered.group(1)}", n=int(numbered.group(2)))
    if where in ("end", "record"):
        return words(f"rules.where.{where}")
    return words("rules.field.named", name=where)
