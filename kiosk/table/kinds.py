"""The words of the table's state machine, as types: the phases of a match, the kinds of event
its journal holds, the move clocks and the reasons for a pause.

Each is a StrEnum whose values are the strings the journal has always held, so a journal
written before these types existed folds unchanged, and the scorer reads the same events."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a match is. A hand runs READY → BURY → PLAY → ENTRY → RESULT; where the ruleset
    allows frying, each bury is followed by FRY (a seat fries: back to BURY on its clock; or
    nobody does: on to PLAY). A dispute freezes the result (DISPUTED) until the referee rules."""

    SETUP = "setup"
    READY = "ready"
    BURY = "bury"
    FRY = "fry"
    PLAY = "play"
    ENTRY = "entry"
    RESULT = "result"
    DISPUTED = "disputed"
    OVER = "over"


#: No match is under way: nothing runs, nothing can be entered.
IDLE = frozenset({Phase.SETUP, Phase.OVER})
#: The cards are in play: time up then finishes the hand where the rules say so. Once the last
#: trick is played (entry, result) the hand is over, and time up counts after it.
IN_HAND = frozenset({Phase.BURY, Phase.FRY, Phase.PLAY})
#: A move clock runs.
CLOCKED = frozenset({Phase.BURY, Phase.PLAY})
#: A finished hand is being entered or agreed: time up is decided after it.
AFTER_PLAY = frozenset({Phase.ENTRY, Phase.RESULT, Phase.DISPUTED})


class EventKind(StrEnum):
    """A fact the journal keeps (`Event.kind`)."""

    SETUP = "setup"
    DEALER = "dealer"
    PARTNER = "partner"
    TRUMP = "trump"
    REDEAL = "redeal"
    BURY_START = "bury-start"
    FRY = "fry"
    NO_FRY = "no-fry"
    PRESS = "press"
    TIME_OVERRUN = "time-overrun"
    LEADER = "leader"
    UNDO = "undo"
    PLAY_END = "play-end"
    POINTS = "points"
    ENTRY_STEP = "entry-step"
    PENALTY = "penalty"
    PENALTY_REMOVED = "penalty-removed"
    PENALTY_CONFIRMED = "penalty-confirmed"
    ENTRIES_DONE = "entries-done"
    ENTRIES_REOPEN = "entries-reopen"
    CONFIRM = "confirm"
    DISPUTE = "dispute"
    RULING = "ruling"
    CORRECTION = "correction"
    PAUSE = "pause"
    RESUME = "resume"
    MATCH_CLOCK_START = "match-clock-start"
    HALL_EXTEND = "hall-extend"
    TIME_UP = "time-up"
    MATCH_END = "match-end"
    ABANDON = "abandon"
    PIN_FAILED = "pin-failed"
    REFEREE_UNLOCKED = "referee-unlocked"


class ClockKind(StrEnum):
    """What a clock times: a seat's bury or move, or the whole match."""

    BURY = "bury"
    PLAY = "play"
    MATCH = "match"


class PauseReason(StrEnum):
    """Why the clocks stand still (`MatchState.pause_reason`)."""

    REFEREE = "referee"  # behind the PIN, in the referee's menu
    REFEREE_KEY = "referee key"  # the referee's own key on the table
    TABLE = "table"  # a long press on the countdown, by anyone at the table
    HALL = "hall"  # the head referee paused the whole hall; the hall resumes it
    RESTART = "restart"  # the kiosk came back after it stopped with clocks running
    HOLD = "referee-menu"  # a screen covers the clock (the referee's menu, a question)
