"""What the hall's screens show: one JSON snapshot of the event, built from the director.

The same snapshot serves `GET /api/hall`, the server-sent events of the hall page, and (its
parts) `GET /api/standings` and `GET /api/tables` for other software. A phone follows one
team: `team_views` cuts each team's part out of the snapshot.
"""

from __future__ import annotations

from typing import Any

from ..i18n import LANGS
from ..table.state import MatchState
from .director import ONLINE_WITHIN, Director

LATE_AFTER = 300.0  # seconds past the round's match time before a table counts as late


def snapshot(director: Director, address: str) -> dict[str, Any]:
    with director.reading():
        return _snapshot(director, address)


def _snapshot(director: Director, address: str) -> dict[str, Any]:
    now = director.clock()
    event = director.event()
    round_no = director.current_round()
    out: dict[str, Any] = {"generated": now, "address": address, "event": None,
                           "round_clock": None, "muted": director.muted(), "standings": [],
                           "tables": [row for row, _ in table_rows(director)],
                           "pairings_round": None, "pairings": []}
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
                            "ew": " · ".join(names[x] for x in b),
                            "ns_ids": list(a), "ew_ids": list(b)} for n, a, b in upcoming[1]]
    return out


def standings(director: Director) -> list[dict[str, Any]]:
    names = {t.id: t.name for t in director.teams()}
    return [{"rank": s.rank, "team": s.team, "name": names[s.team], "points": s.points,
             "net": s.net, "opponents": s.opponents, "played": s.played, "tied": s.tied,
             "group": s.group} for s in director.standings()]


def tables(director: Director) -> list[dict[str, Any]]:
    """Every table's live state in the current round."""
    with director.reading():
        return [row for row, _ in table_rows(director)]


def table_rows(director: Director) -> list[tuple[dict[str, Any], Any]]:
    """Every table's row, with what identifies its content apart from the passing time (the
    match clock counting down, the last contact moving on): a row is sent again to the hall's
    screens only when that changes."""
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
        anchor = None
        row: dict[str, Any] = {
            "table": table, "round": round_no if table in assigned else None,
            "ns": ns, "ew": ew, "hand": None, "levels": None,
            "dealer": None, "phase": "idle", "time_left": None, "clock_running": False,
            "link": _link(table in paired, links.get(table), now),
            "late": False, "result": None,
            "error": "; ".join(director.problems(table)) or None}
        if state is not None:
            row.update(_live(state, now))
            anchor = _clock_anchor(state)
        over = row["phase"] == "over"
        if over and state is not None and state.winner():
            winner = state.winner()
            row["result"] = {"winner": winner, "text": row["ns" if winner == "NS" else "ew"]}
        if table in assigned and not over and start is not None and minutes:
            row["late"] = now > start + minutes * 60 + LATE_AFTER
        link = row["link"]
        out.append((row, (anchor, link["state"], link["behind"],
                          link["last_seen"] if link["state"] == "offline" else None,
                          *(v for k, v in row.items() if k not in ("time_left", "link")))))
    return out


def _clock_anchor(state: MatchState) -> tuple[float, float, bool] | None:
    """The match clock as of the table's last event: the time left then, when, and whether it
    runs (the time left now follows from these and the time)."""
    clock = state.match_clock
    if clock is None:
        return None
    last = state.last_event
    return (clock.limit - clock.elapsed_at(state.last_mono), last.wall if last else 0.0,
            clock.running and not state.paused and state.phase != "over")


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


def team_views(snap: dict[str, Any], director: Director) -> dict[str, dict[str, Any]]:
    """What a player's phone shows, by team id (a player's, in an individual event): the
    team's standing, its table now, its next pairing and its matches so far. Built from a
    snapshot of the hall and the director's results, with the same version of both."""
    event = snap["event"]
    head = {"event": event, "round_clock": snap["round_clock"], "muted": snap["muted"],
            "pairings_round": snap["pairings_round"]}
    rows = {row["table"]: row for row in snap["tables"]}
    standing = {row["team"]: row for row in snap["standings"]}
    teams = director.teams()
    names = {t.id: t.name for t in teams}
    round_no = director.current_round()
    now: dict[str, tuple[int, str]] = {}  # team -> (table, side) this round
    past: dict[tuple[str, int], tuple[int, str]] = {}  # (team, round) -> (table, side)
    for r in range(1, round_no + 1):
        for table, ns, ew in director.assignments(r):
            for team, side in ((ns, "NS"), (ew, "EW")):
                past[(team, r)] = (table, side)
        for table, seats in director.seats(r).items():
            for letter, player in seats.items():
                past[(player, r)] = (table, letter)
    for (team, r), place in past.items():
        if r == round_no:
            now[team] = place
    upcoming: dict[str, dict[str, Any]] = {}
    for pairing in snap["pairings"]:
        for side, mine, theirs in (("NS", "ns_ids", "ew"), ("EW", "ew_ids", "ns")):
            for team in pairing.get(mine, []):
                upcoming[team] = {"round": snap["pairings_round"], "table": pairing["table"],
                                  "side": side, "opponent": pairing[theirs]}
    history: dict[str, list[dict[str, Any]]] = {t.id: [] for t in teams}
    for result in director.results():
        for team, other in ((result.a, result.b), (result.b, result.a)):
            if team is None or team not in history:
                continue
            table, side = past.get((team, result.round), (None, None))
            history[team].append({
                "round": result.round, "table": table, "side": side,
                "opponent": names.get(other, "") if other else None,
                "won": result.winner == team if result.winner else None,
                "points": result.points.get(team, 0), "net": result.net.get(team, 0)})
    out = {}
    for team in teams:
        table, side = now.get(team.id, (None, None))
        out[team.id] = {**head, "team": {"id": team.id, "name": team.name, "unit": team.unit},
                        "standing": standing.get(team.id), "side": side,
                        "table": rows.get(table) if table is not None else None,
                        "next": upcoming.get(team.id),
                        "history": sorted(history[team.id], key=lambda h: h["round"])}
    return out


def team_list(director: Director) -> dict[str, Any]:
    """The event's name and every team's id, name and unit, for the phones' search."""
    event = director.event()
    return {"event": event.name if event else None,
            "teams": [{"id": t.id, "name": t.name, "unit": t.unit} for t in director.teams()]}
