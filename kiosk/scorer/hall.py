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
    out["standings"] = standings(director)
    out |= console_fields(director, out["tables"])
    return out


def standings(director: Director) -> list[dict[str, Any]]:
    names = {t.id: t.name for t in director.teams()}
    marks = {r.id: (r.withdrawn_after, r.joined_round) for r in director.team_rows()}
    return [{"rank": s.rank, "team": s.team, "name": names[s.team], "points": s.points,
             "net": s.net, "opponents": s.opponents, "played": s.played, "tied": s.tied,
             "group": s.group, "withdrawn_after": marks.get(s.team, (None, 1))[0],
             "joined_round": marks.get(s.team, (None, 1))[1]} for s in director.standings()]


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


# -- what the head referee's console adds (issue 12) ------------------------------------------


def console_fields(director: Director, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The round clock (paused, extended, stopped, over), the pairing panel of a published
    round that has not started, the byes, the rulings on each table's result, and the tables
    this round does not use (shown as unused, never as offline). Changes `rows` in place."""
    event = director.event()
    round_no = director.current_round()
    out: dict[str, Any] = {"round_clock": director.round_clock(), "pairings_round": None,
                           "pairings": [], "byes": []}
    if event is None:
        return out
    names = director.team_names()
    upcoming = director.published_pairings() if event.status != "closed" else None
    if upcoming:
        out["pairings_round"] = upcoming[0]
        out["pairings"] = [{"table": n, "ns": " · ".join(names[x] for x in a),
                            "ew": " · ".join(names[x] for x in b)} for n, a, b in upcoming[1]]
    if round_no:
        points = director.bye_points()
        out["byes"] = [{"team": t, "name": names.get(t, t), "points": points}
                       for t in director.byes(round_no)]
    started = bool(round_no) and director.round_start(round_no) is not None
    rulings = {r.table: r for r in director.rulings() if r.round == round_no}
    results = director._round_results(round_no) if round_no else {}
    for row in rows:
        if row["round"] is None:  # no match at this table this round
            row["phase"], row["link"]["state"] = "unused", "unused"
            continue
        if not started:
            row["phase"] = "waiting"
        ruling = rulings.get(row["table"])
        result = results.get(row["table"])
        if ruling is not None and result is not None:
            side = "EW" if ruling.loser == "NS" else "NS"
            row["result"] = {"winner": side, "text": row[side.lower()], "ruling": ruling.kind}
            row["phase"] = "ruled"
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
