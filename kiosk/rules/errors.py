"""The errors the rules core raises. Each message is meant for a person to read."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error the rules core raises on bad input."""


class RulesetError(RulesError):
    """A ruleset file is unreadable or invalid. The message names the file, the key, the bad value
    and what is allowed."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file = file
        self.key = key
        self.problem = problem
        super().__init__(f"{file}: {key}: {problem}" if key else f"{file}: {problem}")


class EntryError(RulesError):
    """An entry for one hand (points, kitty, a penalty, the dealer…) is refused. `field` is the
    path of the offending field within the hand, e.g. ``penalties[0].cards``."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}" if field else problem)


class MatchOver(EntryError):
    """Something was entered after the match already had a winner."""


class RecordError(RulesError):
    """A match record (RULES.md §9) is refused. `where` is ``hand 3``, ``deal 2``, ``end`` or
    ``record``; `field` names the field."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.where = where
        self.field = field
        self.problem = problem
        parts = [p for p in (where, field) if p]
        super().__init__(": ".join([*parts, problem]))
