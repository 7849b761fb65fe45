"""What the hall's screens show: one JSON snapshot of the event, built from the director.

The same snapshot serves `GET /api/hall`, the server-sent events of the hall page, and (its
parts) `GET /api/standings` and `GET /api/tables` for other software.
"""

from __future__ import annotations

from typing import Any

from ..i18n import LANGS
from ..table.state import MatchState
from .director import ONLINE_WITHIN, Director

LATE_AFTER = 300.0  # seconds past the round's match time before a table counts as late


def snapshot(director: Director, address: str) -> dict[str, Any]:
    now = director.clock()
    event = director.event()
    round_no = director.current_round()
    out: dict[str, Any] = {"generated": now, "address": address, "event": None,
                           "round_clock": None, "muted": director.muted(), "standings": [],
                           "tables": tables(director), "pairings_round": None, "pairings": []}
    if event is None:
        return out
    ruleset = director.ruleset()
    out["event"] = {"name": event.name, "ruleset": event.ruleset,
                    "ruleset_name": {lang: ruleset.name(lang) for lang in LANGS},
                    "format": event.format,
                    "round": round_no or None, "rounds": event.rounds or None,
                    "status": event.status}
    if round_no:
        out["round_clock"] = {"round": round_no, "started_at": director.round_start(round_no),
                              "minutes": event.match_minutes}
    out["standings"] = standings(director)
    upcoming = director.next_pairings() if event.status != "closed" else None
    if upcoming:
        names = {t.id: t.name for t in director.teams()}
        out["pairings_round"] = upcoming[0]
        out["pairings"] = [{"table": n, "ns": " · ".join(names[x] for x in a),
                            "ew": " · ".join(names[x] for x in b)} for n, a, b in upcoming[1]]
    return out


def standings(director: Director) -> list[dict[str, Any]]:
    names = {t.id: t.name for t in director.teams()}
    return [{"rank": s.rank, "team": s.team, "name": names[s.team], "points": s.points,
             "net": s.net, "opponents": s.opponents, "played": s.played, "tied": s.tied,
             "group": s.group} for s in director.standings()]


def tables(director: Director) -> list[dict[str, Any]]:
    """Every table's live state in the current round."""
    now, round_no = director.clock(), director.current_round()
    names = {t.id: t.name for t in director.teams()}
    links = director.store.links()
    paired = director.store.paired_tables()
    assigned = {t: (names.get(ns, ""), names.get(ew, ""))
                for t, ns, ew in director.assignments(round_no)}
    for table, seats in director.seats(round_no).items():  # individual: four players
        assigned[table] = (" · ".join(names[p] for p in seats.values()), "")
    event = director.event()
    start = director.round_start(round_no) if round_no else None
    minutes = event.match_minutes if event else None
    out = []
    for table in range(1, director.table_count() + 1):
        ns, ew = assigned.get(table, ("", ""))
        state = director.match_state(table, round_no) if table in assigned else None
        row: dict[str, Any] = {
            "table": table, "round": round_no if table in assigned else None,
            "ns": ns, "ew": ew, "hand": None, "levels": None,
            "dealer": None, "phase": "idle", "time_left": None, "clock_running": False,
            "link": _link(table in paired, links.get(table), now),
            "late": False, "result": None,
            "error": "; ".join(director.problems(table)) or None}
        if state is not None:
            row.update(_live(state, now))
        over = row["phase"] == "over"
        if over and state is not None and state.winner():
            winner = state.winner()
            row["result"] = {"winner": winner, "text": row["ns" if winner == "NS" else "ew"]}
        if table in assigned and not over and start is not None and minutes:
            row["late"] = now > start + minutes * 60 + LATE_AFTER
        out.append(row)
    return out


def _live(state: MatchState, now: float) -> dict[str, Any]:
    levels = state.levels()
    row: dict[str, Any] = {"phase": state.phase, "hand": len(state.played) + (
        0 if state.phase == "over" else 1),
        "levels": {"NS": levels[0], "EW": levels[1]} if levels else None,
        "dealer": state.draft.dealer if state.draft else None}
    clock = state.match_clock
    if clock is not None:
        last = state.last_event
        left = clock.limit - clock.elapsed_at(state.last_mono)
        running = clock.running and not state.paused and state.phase != "over"
        if running and last is not None:  # count on from the table's last event
            left -= max(0.0, now - last.wall)
        row["time_left"], row["clock_running"] = max(0.0, left), running
    return row


def _link(paired: bool, link: tuple[float, int] | None, now: float) -> dict[str, Any]:
    if link is None:
        return {"state": "never" if not paired else "offline", "behind": 0, "last_seen": None}
    seen, behind = link
    state = "offline" if now - seen > ONLINE_WITHIN else "behind" if behind else "ok"
    return {"state": state, "behind": behind, "last_seen": seen}
