"""The head referee's operations and what the scorer computes from the tables' events.

The admin page and `kiosk scorer admin …` both call these methods, on the same store, so the
hall page sees every change whichever way it was made. Results are never stored: every match
is recomputed from its table's events by the tables' own fold (the rules core), plus the
rulings recorded here. Every change the head referee makes is written to the audit log in the
same transaction, with who made it (`by`).

One facade, one module per concern:

- `access.py` — the admin password and sessions; the hall's tables, kiosk codes, the mute;
- `teams.py` — the event and its teams (import, add, edit, delete, late entry, withdrawal);
- `rounds.py` — the private draft, swaps, publication, undo, the start and the round clock;
- `results.py` — results, rulings, standings, closing and reopening the event.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ...errors import AdminError, NeedsConfirmation
from ...rules import Rulesets
from ..store.database import Store
from ..tournament.core import Pairing, Result, Team, swiss_pairing
from .access import Access, HallTables, password_matches
from .base import EventInfo, refuse
from .folds import Folds
from .results import CHECKPOINT_NAME, RULING_KINDS, WARM_FOR, ResultsAndRulings, Ruling
from .rounds import Draft, RoundsAndPairings
from .teams import EventAndTeams, ImportReport, TeamRow

ONLINE_WITHIN = 15.0  # seconds since a table's last request for its link to count as up

__all__ = ["CHECKPOINT_NAME", "ONLINE_WITHIN", "RULING_KINDS", "AdminError", "Director", "Draft",
           "EventInfo", "ImportReport", "NeedsConfirmation", "Ruling", "TeamRow",
           "password_matches", "refuse"]


#: Pairs a Swiss round: (teams, results, round, seed, sides' lean) -> Pairing. The server's
#: pairs in a worker process (`pairer.BackgroundPairer`); the console waits for it off the
#: event loop.
Pairer = Callable[[list[Team], list[Result], int, int, dict[str, int]], Pairing]


class Director(Access, HallTables, EventAndTeams, RoundsAndPairings, ResultsAndRulings):
    def __init__(self, store: Store, rulesets: Rulesets,
                 clock: Callable[[], float] = time.time, pairer: Pairer = swiss_pairing
                 ) -> None:
        super().__init__(store, rulesets, clock)
        self.pairer = pairer
        self.folds = Folds(rulesets)
        self.folded_elsewhere = False
        self._fold_asked = -WARM_FOR
        self._folded_at = None
        self._resumed = False
        self._results = {}
        self._standings = None
