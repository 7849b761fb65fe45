"""The kiosk app's link to the hall: the outbox's thread reaches the table's runner only
through the door, like the buttons do."""

from __future__ import annotations

from typing import Any

from ..hw.door import Door
from ..hw.runner import LinkUpdate, RoundStart
from ..table.clock import Clock
from ..table.session import TableSession
from .link import ScorerLink
from .outbox import LinkState, Outbox


def connect(outbox: Outbox, door: Door, clock: Clock) -> None:
    """Show the link's state on the table, set up each round the scorer assigns, start its
    match clock when the scorer starts the round for the whole hall, and pause and resume
    with the hall."""
    paused_by_hall: set[str] = set()  # matches this wiring paused (the referee's own stay)

    def on_state(state: LinkState) -> None:
        door.put(LinkUpdate(state))

    def on_assignment(assignment: dict[str, Any], link: ScorerLink) -> None:
        door.put(lambda session: set_up(session, assignment))
        if assignment.get("start_at") is not None:
            # Scorer time to this machine's monotonic clock, through the measured offset.
            due = clock.now() + (float(assignment["start_at"]) - link.scorer_time())
            door.put(RoundStart(assignment["event"], str(assignment["round"]), due))
        hall = assignment.get("hall_clock")
        if hall is not None:
            door.put(lambda session: follow_hall(session, assignment, bool(hall.get("paused")),
                                                 paused_by_hall))

    outbox.on_state, outbox.on_assignment = on_state, on_assignment


def follow_hall(session: TableSession, assignment: dict[str, Any], paused: bool,
                paused_by_hall: set[str]) -> None:
    """The head referee paused or resumed the whole hall: this table's clocks follow. Only a
    pause the hall made is resumed by the hall; a table paused by its own referee stays so.
    (Through the referee's pause key, the session's one pause without the PIN: the journal
    shows it as the key's.)"""
    match = session.find_match(assignment["event"], str(assignment["round"]))
    state = session.state
    if match is None or session.match != match or state.phase in ("setup", "over"):
        return
    if paused and not state.paused:
        session.pause_key()
        paused_by_hall.add(match)
    elif not paused and state.paused and match in paused_by_hall:
        session.pause_key()
        paused_by_hall.discard(match)


def set_up(session: TableSession, assignment: dict[str, Any]) -> None:
    """Set up the assigned round's match, once, when the table is free for it. A match played
    here before under the same name (a practice) keeps its name; this one gets another."""
    round_no = str(assignment["round"])
    if session.state.phase not in ("setup", "over") or \
            session.find_match(assignment["event"], round_no):
        return
    session.setup_match(event=assignment["event"], round=round_no, teams=assignment["teams"],
                        players=assignment["players"], ruleset=assignment["ruleset"],
                        match_minutes=assignment.get("match_minutes"),
                        match=session.free_match_name(round_no))
