"""The errors the rules core raises.

A refusal a person will read carries a catalog key and its parameters (`Explained`): the
English text of the exception is for logs and developers, `kiosk.i18n.explain` gives the words
in the reader's language.
"""

from __future__ import annotations

from typing import Any


class Explained:
    """Mixin for an error a person reads: `key` names a message in `kiosk/i18n/<lang>/*.toml`
    and `params` fill its placeholders. `key` None means no catalog words yet (shown as the
    generic "unexpected" message, never as the English text)."""

    key: str | None = None
    params: dict[str, Any]

    def explained(self, key: str, **params: Any) -> Explained:
        """Attach the catalog key and parameters; returns self so ``raise E(...).explained(...)``
        reads in one line."""
        self.key, self.params = key, params
        return self


class RulesError(Explained, Exception):
    """Base of every error the rules core raises on bad input."""

    params: dict[str, Any] = {}  # noqa: RUF012 (replaced per instance by `explained`)


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
