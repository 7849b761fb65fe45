"""Every refusal a person can read, in one hierarchy (as gpiozero keeps its own in `exc.py`).

A refusal carries a catalog key and its parameters (`KioskError.explained`): the exception's
English text is for logs and developers, `kiosk.i18n.explain` gives the words in the reader's
language. The command line says any `KioskError` in one line; anything else is a bug and keeps
its traceback. Standard library only: the rules core builds on it.

    KioskError
    ├── RulesError          the rules core refuses a ruleset, an entry or a record
    ├── SessionError        an action the table's session does not allow in its state
    ├── JournalError        a table's journal that cannot be opened, read or written
    ├── ProtocolError       what crosses the wire between kiosk and scorer
    │   ├── WireError       a request or answer refused as it arrives
    │   └── LinkError       the kiosk cannot reach or is refused by the scorer
    │       └── NotPaired   this kiosk has no credential for its table
    ├── HardwareError       a pin map, the GPIO, the printer or the font
    │   ├── PinMapError, GpioError, PrinterError, FontError
    ├── FleetError          a card's identity or an update bundle
    │   ├── IdentityError, BundleError, UpdateRefused
    ├── ScorerError         the scorer refuses
    │   ├── AdminError      a head referee's operation (NeedsConfirmation, PairingPending,
    │   │                   RoundRefused)
    │   ├── AccessError, RosterError, StoreError, PrintError
    └── CommandError        a command line that cannot run as given
"""

from __future__ import annotations

import errno
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Self

_NO_PARAMS: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Words:
    """A message by catalog key and parameters, rendered later in the reader's language. Used
    as a parameter of another message (a seat, a field, a side) and as a message of its own."""

    key: str
    params: Mapping[str, Any] = field(default_factory=lambda: _NO_PARAMS)


def words(key: str, **params: Any) -> Words:
    """`Words(key, params)` written as a call."""
    return Words(key, MappingProxyType(params))


class KioskError(Exception):
    """A refusal a person reads: `key` names a message in `kiosk/i18n/<lang>/*.toml` and
    `params` fill its placeholders. `key` None means no catalog words yet (said as the generic
    "unexpected" message, never as the English text)."""

    key: str | None = None
    params: dict[str, Any] = {}  # noqa: RUF012 (replaced per instance by `explained`)

    def explained(self, key: str, **params: Any) -> Self:
        """Attach the catalog key and parameters; returns self so ``raise E(...).explained(...)``
        reads in one line."""
        self.key, self.params = key, params
        return self


class RulesError(KioskError):
    """Base of every error the rules core raises on bad input (its kinds: kiosk.rules.errors).
    `problem_key` and `problem_params` are the problem alone, without where it sits (the kiosk
    shows it beside the field); `key` and `params` are the whole message."""

    problem_key: str | None = None
    problem_params: Mapping[str, Any] = _NO_PARAMS

    def explained(self, key: str, **params: Any) -> Self:
        self.problem_key, self.problem_params = key, MappingProxyType(params)
        self.key, self.params = self._located(Words(key, self.problem_params))
        return self

    def _located(self, problem: Words) -> tuple[str, dict[str, Any]]:
        return problem.key, dict(problem.params)


class SessionError(KioskError):
    """An action the session cannot take in its state, or an entry it refuses."""


class JournalError(KioskError):
    """A journal that cannot be opened, read or written."""

    def __init__(self, text: str, key: str = "journal.unreadable", **params: Any) -> None:
        super().__init__(text)
        self.explained(key, **params)


class ProtocolError(KioskError):
    """What crosses the wire between a kiosk and the scorer."""


class WireError(ProtocolError, ValueError):
    """A request or an answer that breaks the wire's rules (its schema, signature or chain)."""

    def __init__(self, text: str, key: str, **params: Any) -> None:
        super().__init__(text)
        self.explained(key, **params)


class LinkError(ProtocolError):
    """The kiosk cannot reach the scorer, or the scorer refuses it."""

    def __init__(self, message: str, status: int | None = None, key: str = "sync.unreachable",
                 params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status (None: no answer at all)
        self.explained(key, **(params or {}))


class NotPaired(LinkError):
    """This kiosk holds no credential for its table: it must pair first."""


class HardwareError(KioskError):
    """The table's hardware: its pin map, the GPIO, the slip printer, the screen's font."""


class PinMapError(HardwareError):
    """A pin map file that cannot be read or whose pins collide."""


class GpioError(HardwareError):
    """The GPIO pins cannot be opened (no chip, pins in use, no permission)."""


class PrinterError(HardwareError):
    """The slip printer cannot be opened or written."""

    def __init__(self, reason: str, detail: str) -> None:
        # "not_answering", "no_paper", "lost"; opening it: "no_device", "no_permission",
        # "bad_setting"
        self.reason = reason
        super().__init__(f"{reason}: {detail}")


class FontError(HardwareError):
    """No font on this machine can draw the screens' characters."""


class WindowError(HardwareError):
    """The kiosk's window cannot open: no display, or its driver not loaded."""


class FleetError(KioskError):
    """A card's identity from its kiosk.toml, or an update bundle."""


class IdentityError(FleetError):
    """A kiosk.toml that cannot give this card its identity: `problems` (setting, problem)
    where its settings are wrong, empty where the file itself cannot be read."""

    problems: tuple[tuple[str, str], ...] = ()


class BundleError(FleetError):
    """An update bundle that is refused: unsigned, badly signed, damaged or malformed."""


class UpdateRefused(FleetError):
    """A good bundle that must not be installed or served here (an older version, another
    Python, no room), refused before anything was changed."""


class ScorerError(KioskError):
    """The scorer refuses."""


class AdminError(ScorerError, ValueError):
    """A head referee's operation refused, in words."""


@dataclass(frozen=True)
class Choice:
    """One answer to a question that has more than yes and no: the form field and value it
    sends, its words (a catalog key and parameters), and the command line's flags for it."""

    field: str
    value: str
    key: str
    params: Mapping[str, Any]
    flags: str


class NeedsConfirmation(AdminError):
    """An operation that would lose or change something asks to be confirmed first; with
    `choices`, the person picks one of them (the console shows a button for each)."""

    choices: tuple[Choice, ...] = ()


class PairingPending(AdminError):
    """The next round's pairing is still being computed."""


class RoundRefused(AdminError):
    """A round that cannot start yet (a kiosk's clock is off, the hall's time is unknown)."""


class AccessError(ScorerError, ValueError):
    """An admin password or a pairing code refused."""

    def __init__(self, text: str, key: str, **params: Any) -> None:
        super().__init__(text)
        self.explained(key, **params)


class RosterError(ScorerError, ValueError):
    """A team list that cannot be imported."""


class StoreError(ScorerError):
    """The scorer's store refuses a write (a conflict, a table unknown)."""


class PrintError(ScorerError, ValueError):
    """A printed page that cannot be made as asked."""

    key: str

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key, self.params = key, params


class CommandError(KioskError):
    """Input a person can fix at the command line (a missing file, a wrong option): one line,
    exit 2."""


def file_reason(error: BaseException) -> Words:
    """Why a file cannot be read or written, as catalog words (`terminal.file.*`), never the
    system's English (``[Errno 2] No such file or directory``)."""
    reasons = {errno.ENOENT: "missing", errno.EACCES: "denied", errno.EPERM: "denied",
               errno.EISDIR: "directory", errno.ENOTDIR: "not_directory", errno.EIO: "damaged",
               errno.ENOSPC: "full", errno.EROFS: "read_only", errno.EEXIST: "exists"}
    if isinstance(error, UnicodeDecodeError):
        return words("terminal.file.not_utf8")
    number = getattr(error, "errno", None)
    reason = reasons.get(number, "other") if isinstance(number, int) else "other"
    return words(f"terminal.file.{reason}")
