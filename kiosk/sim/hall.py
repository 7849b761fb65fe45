"""A simulated table in the hall: the bots play the round the scorer assigns, and the outbox
sends every event through the real sync path while they play."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..errors import LinkError
from ..rules import Rulesets
from ..rules.errors import Words
from ..sync.link import ScorerLink
from ..sync.outbox import Outbox
from ..sync.wiring import follow_hall, follow_ruling
from ..table.journal import table_path
from ..table.session import TableSession
from .table import simulate


def simulate_synced(data_dir: str | Path, table: int, rulesets: Rulesets, link: ScorerLink,
                    hands: int, seed: int, speed: float, out: TextIO = sys.stdout,
                    flush_timeout: float = 60.0,
                    after_hand: Callable[[TableSession], None] | None = None) -> TableSession:
    """Send what the scorer lacks, play (or resume) the assigned round, and send it all.
    Raises LinkError when the scorer has no match for the table or cannot be reached."""
    outbox = Outbox(table_path(data_dir, table), link)
    if not outbox.flush(flush_timeout):
        raise LinkError(f"cannot sync with the scorer: {outbox.state.error}", None,
                        "terminal.simulate.not_synced", {"reason": _why(outbox)})
    assignment = link.assignment().get("assignment")
    if assignment is None:
        raise LinkError(f"the scorer has no match for table {table} yet (start a round)", None,
                        "terminal.simulate.no_match", {"table": table})
    latest = {"assignment": assignment}  # the outbox's thread keeps it up to date

    def hand_done(session: TableSession) -> None:
        outbox.poke()
        if after_hand:
            after_hand(session)

    def follow(session: TableSession) -> None:  # the hall's clock, the head referee's ruling
        now: dict[str, Any] = latest["assignment"]
        if now.get("hall_clock") is not None:
            follow_hall(session, now, now["hall_clock"])
        if now.get("ruling"):
            follow_ruling(session, now, now["ruling"])

    outbox.on_assignment = lambda now, _link: latest.update(assignment=now)
    outbox.start(idle=0.5)
    try:
        session = simulate(data_dir, table, rulesets, assignment["ruleset"], hands, seed, speed,
                           out, after_hand=hand_done, assignment=assignment, follow=follow)
    finally:
        outbox.stop()
    if not outbox.flush(flush_timeout):
        session.close()
        raise LinkError(f"played, but {outbox.state.behind} events are not at the scorer yet: "
                        f"{outbox.state.error}", None, "terminal.simulate.not_sent",
                        {"n": outbox.state.behind, "reason": _why(outbox)})
    return session


def _why(outbox: Outbox) -> Words:
    """Why the outbox could not send, as catalog words (the scorer's reason, or no answer)."""
    state = outbox.state
    return Words(state.error_key or "sync.unreachable", state.error_params)
