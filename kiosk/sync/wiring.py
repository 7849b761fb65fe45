"""The kiosk app's link to the hall: the outbox's thread reaches the table's runner only
through the door, like the buttons do."""

from __future__ import annotations

from typing import Any

from ..hw.door import Door
from ..hw.runner import LinkUpdate, RoundStart
from ..table.clock import Clock
from ..table.session import TableSession
from ..table.state import MatchState
from .link import ScorerLink
from .outbox import LinkState, Outbox


def connect(outbox: Outbox, door: Door, clock: Clock) -> None:
    """Show the link's state on the table, set up each round the scorer assigns, start its
    match clock when the scorer starts the round for the whole hall, follow the hall's
    round clock (its pause and resume, its extensions and its stop) and end the match the
    head referee ruled lost."""

    def on_state(state: LinkState) -> None:
        door.put(LinkUpdate(state))

    def on_assignment(assignment: dict[str, Any], link: ScorerLink) -> None:
        def here(at: Any) -> float | None:
            """A moment on the scorer's clock on this machine's monotonic clock, through the
            measured offset."""
            return None if at is None else clock.now() + (float(at) - link.scorer_time())

        hall = assignment.get("hall_clock")
        due = here(assignment.get("start_at"))
        door.put(lambda session: set_up(session, assignment, due))
        if due is not None:
            paused = float((hall or {}).get("paused_seconds") or 0)
            door.put(RoundStart(assignment["event"], str(assignment["round"]), due, paused))
        if hall is not None:
            since = here(hall.get("paused_at" if hall.get("paused") else "resumed_at"))
            door.put(lambda session: follow_hall(session, assignment, hall, since))
        if assignment.get("ruling"):
            door.put(lambda session: follow_ruling(session, assignment, assignment["ruling"]))

    def on_withdrawn(withdrawn: list[dict[str, Any]]) -> None:
        door.put(lambda session: drop_withdrawn(session, withdrawn))

    outbox.on_state, outbox.on_assignment = on_state, on_assignment
    outbox.on_withdrawn = on_withdrawn


def follow_hall(session: TableSession, assignment: dict[str, Any],
                hall: dict[str, Any], since: float | None = None) -> None:
    """The hall's round clock as the scorer says it now, asserted at every poll (so a kiosk
    restarted meanwhile comes back to it): the session records only what changed. `since`:
    the moment of the hall's last pause or resume on the session's clock, when known."""
    match = session.find_match(assignment["event"], str(assignment["round"]))
    if match is None or session.match != match:
        return
    session.follow_hall_extension(float(hall.get("extra_seconds") or 0))
    if hall.get("stopped"):
        session.follow_hall_stop()
    session.follow_hall(bool(hall.get("paused")), since)


def follow_ruling(session: TableSession, assignment: dict[str, Any],
                  ruling: dict[str, Any]) -> None:
    """The head referee ruled this table's match lost by one side (asserted at every poll,
    so a kiosk away at the time ends it when it comes back)."""
    match = session.find_match(assignment["event"], str(assignment["round"]))
    if match is not None and session.match == match:
        session.follow_ruling(ruling["loser"], ruling["kind"], ruling["reason"])


def droppable(state: MatchState) -> bool:
    """A match under way with no hand played yet (nor time called): the table drops it when
    its round is taken back. (A hand in progress goes with it: the scorer refuses to take a
    round back once it sees play at a table, so only a hand it had not heard of yet can.)"""
    return state.phase not in ("setup", "over") and not state.played and state.time_up is None


def drop_withdrawn(session: TableSession, withdrawn: list[dict[str, Any]]) -> None:
    """The head referee took back a round this table set up: drop its match while no hand has
    been played (the table waits for an assignment again)."""
    state = session.state
    setup = state.setup
    if not droppable(state) or not setup.get("event"):
        return  # (a hand played meanwhile: the scorer refuses to take such a round back)
    for round_ in withdrawn:
        if (round_.get("event"), str(round_.get("round")), round_.get("start_at")) == (
                setup["event"], setup.get("round"), setup.get("start_at")):
            session.abandon_match()
            return


def set_up(session: TableSession, assignment: dict[str, Any], due: float | None = None
           ) -> None:
    """Set up the assigned round's match, once, when the table is free for it. A match played
    here before under the same name (a practice) keeps its name; this one gets another. A
    match set up for an earlier start of this round (taken back since, while this kiosk was
    away) is dropped first, if no hand was played in it. A practice in progress ends once the
    hall has started the round (`due`, this machine's monotonic time of the start)."""
    round_no, start = str(assignment["round"]), assignment.get("start_at")
    found = session.find_match(assignment["event"], round_no)
    state = session.state
    if found is None and due is not None and session.clock.now() >= due and \
            state.standalone and state.phase not in ("setup", "over"):
        session.end_practice(round_no)
        state = session.state
    if found is not None and found == session.match and droppable(state) and \
            state.setup.get("start_at") != start:
        session.abandon_match()
        found = None
    if session.state.phase not in ("setup", "over") or found:
        return
    session.setup_match(event=assignment["event"], round=round_no, teams=assignment["teams"],
                        players=assignment["players"], ruleset=assignment["ruleset"],
                        match_minutes=assignment.get("match_minutes"),
                        match=session.free_match_name(round_no), start_at=start)
