"""What the hall's screens show: one JSON snapshot of the event, built from the director.

The same snapshot serves `GET /api/hall`, the server-sent events of the hall page, and (its
parts) `GET /api/standings` and `GET /api/tables` for other software. A phone follows one
team: `team_views` cuts each team's part out of the snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...i18n import LANGS
from ...table.state import MatchState
from ..director import Director, fleet, search, views

LATE_AFTER = 300.0  # seconds past the round's match time before a table counts as late


def snapshot(director: Director, address: str) -> dict[str, Any]:
    return snapshot_and_keys(director, address)[0]


def snapshot_and_keys(director: Director, address: str
                      ) -> tuple[dict[str, Any], dict[int, Any]]:
    """The snapshot, and by table what identifies its row's content apart from the passing
    time (the match clock counting down, the last contact moving on): a row is sent again to
    the hall's screens only when that changes."""
    with director.reading():
        rows, anchors = _rows(director)
        out = _snapshot(director, address, rows)
    keys = {}
    for row, anchor in zip(out["tables"], anchors, strict=True):
        link = row["link"]
        keys[row["table"]] = (anchor, link["state"], link["behind"],
                              link["last_seen"] if link["state"] == "offline" else None,
                              *(v for k, v in row.items() if k not in ("time_left", "link")))
    return out, keys


def _snapshot(director: Director, address: str, rows: list[dict[str, Any]]
              ) -> dict[str, Any]:
    now = director.clock()
    event = director.event()
    round_no = director.current_round()
    out: dict[str, Any] = {"generated": now, "address": address, "event": None,
                           "round_clock": None, "muted": director.muted(), "standings": [],
                           "tables": rows, "pairings_round": None, "pairings": []}
    if event is None:
        return out
    ruleset = director.ruleset()
    out["event"] = {"name": event.name, "ruleset": event.ruleset,
                    "ruleset_name": {lang: ruleset.name(lang) for lang in LANGS},
                    "format": event.format, "wording": event.wording,
                    # the columns that break ties here (no column of every team's 0)
                    "net_levels": event.net_levels, "opponents": event.opponents,
                    "round": round_no or None, "rounds": event.rounds or None,
                    "status": event.status}
    out["standings"] = standings(director)
    out |= console_fields(director, out["tables"])
    return out


def twin_tells(director: Director) -> dict[str, str]:
    """By team id, what tells apart teams that share a name (two 海沧红狮): each one's unit
    where every twin has its own, else its id. A team whose name no other team has is not in
    it: the hall and the phones show its name alone."""
    by_name = defaultdict(list)
    for row in director.team_rows():
        by_name[row.name].append(row)
    tells: dict[str, str] = {}
    for twins in (rows for rows in by_name.values() if len(rows) > 1):
        units = [row.unit for row in twins]
        by_unit = all(units) and len(set(units)) == len(units)
        tells |= {row.id: row.unit if by_unit else row.id for row in twins}
    return tells


def tells_of(tells: dict[str, str], *ids: str | None) -> dict[str, str]:
    """The part of `tells` that names among `ids` need (usually none)."""
    return {i: tells[i] for i in ids if i in tells}


def standings(director: Director) -> list[dict[str, Any]]:
    names = {t.id: t.name for t in director.teams()}
    tells = twin_tells(director)
    marks = {r.id: (r.withdrawn_after, r.joined_round) for r in director.team_rows()}
    return [{"rank": s.rank, "team": s.team, "name": names[s.team],
             "tells": tells_of(tells, s.team), "points": s.points,
             "net": s.net, "opponents": s.opponents, "played": s.played, "tied": s.tied,
             "group": s.group, "prize": s.prize, "withdrawn_after": marks.get(s.team, (None, 1))[0],
             "joined_round": marks.get(s.team, (None, 1))[1]} for s in director.standings()]


def tables(director: Director) -> list[dict[str, Any]]:
    """Every table's live state in the current round, as the hall shows it (a ruling's
    result in place of the table's own, tables the round does not use marked so)."""
    with director.reading():
        rows = _rows(director)[0]
        console_fields(director, rows)
        return rows


def _rows(director: Director) -> tuple[list[dict[str, Any]], list[Any]]:
    """Every table's row, and its match clock as of the table's last event (see
    `_clock_anchor`)."""
    now, round_no = director.clock(), director.current_round()
    offsets = clock_offsets(director)
    names = {t.id: t.name for t in director.teams()}
    tells = twin_tells(director)
    links, returning = director.store.links(), director.store.returning
    paired = director.store.paired_tables()
    sides = {t: ([ns], [ew]) for t, ns, ew in director.assignments(round_no)}
    for table, seats in director.seats(round_no).items():  # individual: four players
        sides[table] = (list(seats.values()), [])
    assigned = {t: tuple(" · ".join(names.get(i, "") for i in ids) for ids in both)
                for t, both in sides.items()}
    event = director.event()
    start = director.round_start(round_no) if round_no else None
    minutes = event.match_minutes if event else None
    out, anchors = [], []
    for table in range(1, director.table_count() + 1):
        ns, ew = assigned.get(table, ("", ""))
        ns_ids, ew_ids = sides.get(table, ([], []))
        state = director.match_state(table, round_no) if table in assigned else None
        offset = offsets.get(table, 0.0)
        anchors.append(_clock_anchor(state, offset) if state is not None else None)
        row: dict[str, Any] = {
            "table": table, "round": round_no if table in assigned else None,
            "ns": ns, "ew": ew, "ns_ids": ns_ids, "ew_ids": ew_ids,
            "tells": tells_of(tells, *ns_ids, *ew_ids), "hand": None, "levels": None, "past": None,
            "dealer": None, "phase": "idle", "time_left": None, "clock_running": False,
            "link": _link(table in paired, links.get(table), now, returning.get(table, 0.0)),
            "late": False, "result": None,
            "error": "; ".join(director.problems(table)) or None}
        if state is not None:
            row.update(_live(state, now, offset))
        over = row["phase"] == "over"
        if over and state is not None and state.winner():
            winner = state.winner()
            row["result"] = {"winner": winner, "text": row["ns" if winner == "NS" else "ew"]}
            forfeited = state.forfeited()  # (its table's referee's: said as a ruling is)
            if forfeited:
                row["result"]["ruling"] = forfeited.get("kind", "forfeit")
        if table in assigned and not over and start is not None and minutes:
            row["late"] = now > start + minutes * 60 + LATE_AFTER
        out.append(row)
    return out, anchors


def clock_offsets(director: Director) -> dict[int, float]:
    """By table, the scorer's clock minus its kiosk's, as the kiosk last measured it from the
    scorer's signed answers and reported it (the console's 时钟偏差, director/fleet.py); a table
    whose kiosk has not reported one is not in it."""
    return {k.table: k.offset for k in fleet.kiosks(director) if k.offset is not None}


def _clock_anchor(state: MatchState, offset: float = 0.0) -> tuple[float, float, bool] | None:
    """The match clock as of the table's last event: the time left then, when (on the
    scorer's clock), and whether it runs (the time left now follows from these and the time)."""
    clock = state.match_clock
    if clock is None:
        return None
    last = state.last_event
    return (clock.limit - clock.elapsed_at(state.last_mono),
            round(last.wall + offset, 1) if last else 0.0,
            clock.running and not state.paused and state.phase != "over")


# -- what the head referee's console adds (issue 12) ------------------------------------------


def console_fields(director: Director, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The round clock (paused, extended, stopped, over), the pairing panel of a published
    round that has not started, the byes, the rulings on each table's result, and the tables
    this round does not use (shown as unused, never as offline), and a finished table whose
    kiosk has gone off with nothing left to send (shown as such, not as an alarm). Changes
    `rows` in place."""
    event = director.event()
    round_no = director.current_round()
    out: dict[str, Any] = {"round_clock": director.round_clock(), "pairings_round": None,
                           "pairings": [], "byes": []}
    if event is None:
        return out
    names = director.team_names()
    tells = twin_tells(director)
    upcoming = director.published_pairings() if event.status != "closed" else None
    if upcoming:
        out["pairings_round"] = upcoming[0]
        out["pairings"] = [{"table": n, "ns": " · ".join(names[x] for x in a),
                            "ew": " · ".join(names[x] for x in b),
                            "ns_ids": list(a), "ew_ids": list(b),
                            "tells": tells_of(tells, *a, *b)} for n, a, b in upcoming[1]]
    if round_no:
        points = director.bye_points()
        out["byes"] = [{"team": t, "name": names.get(t, t), "tells": tells_of(tells, t),
                        "points": points} for t in director.byes(round_no)]
    start = director.round_start(round_no) if round_no else None
    started = start is not None and start <= director.clock()  # (in the lead-in: waiting)
    rulings = {r.table: r for r in director.rulings() if r.round == round_no}
    results = director.round_results(round_no) if round_no else {}
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
            # decided by the head referee: the match is over whatever its kiosk last said, so
            # no dealer, no clock counting on (the levels stay: the result's, as ruled)
            row.update(phase="ruled", dealer=None, time_left=None, clock_running=False)
        link = row["link"]
        if link["state"] in ("offline", "returning") and not link["behind"] and (
                row.get("result") or row["phase"] in ("over", "ruled")):
            link["state"] = "done"  # its match is over and all in: a kiosk off is no alarm
    return out


def _live(state: MatchState, now: float, offset: float = 0.0) -> dict[str, Any]:
    """A table's match as the hall shows it at scorer time `now`. Its clock counts on from the
    table's last event, stamped by the kiosk's own clock: `offset` (the scorer's clock minus
    the kiosk's) puts that moment on the scorer's, so a kiosk whose clock is a day behind or
    two hours ahead still shows the time its match has left."""
    levels = state.levels()
    row: dict[str, Any] = {"phase": state.phase, "hand": len(state.played) + (
        0 if state.phase == "over" else 1),
        "levels": {"NS": levels[0], "EW": levels[1]} if levels else None,
        "past": state.past_final(),  # (the side whose level reads 「过10」)
        "dealer": state.draft.dealer if state.draft else None}
    clock = state.match_clock
    if clock is not None:
        last = state.last_event
        left = clock.limit - clock.elapsed_at(state.last_mono)
        running = clock.running and not state.paused and state.phase != "over"
        if running and last is not None:  # count on from the table's last event
            left -= max(0.0, now - (last.wall + offset))
        row["time_left"], row["clock_running"] = max(0.0, left), running
    return row


def _link(paired: bool, link: tuple[float, int] | None, now: float, back_by: float
          ) -> dict[str, Any]:
    """A table's link (`views.link_state`, but for a match over: see `_rows`): its kiosk
    `back_by` this scorer time if it was online when the scorer restarted (0: it was not)."""
    if link is None:
        return {"state": "never" if not paired else "offline", "behind": 0, "last_seen": None}
    seen, behind = link
    return {"state": views.heard_state(seen, behind, now, back_by), "behind": behind,
            "last_seen": seen}


# -- the phones' view of one team ----------------------------------------------------------------


def team_views(snap: dict[str, Any], director: Director) -> dict[str, dict[str, Any]]:
    """What a player's phone shows, by team id (a player's, in an individual event): the
    team's standing, its table now (or its bye), its next pairing and its matches so far.
    Built from a snapshot of the hall and the director's results."""
    with director.reading():
        return _team_views(snap, director)


def _team_views(snap: dict[str, Any], director: Director) -> dict[str, dict[str, Any]]:
    head = {"event": snap["event"], "round_clock": snap["round_clock"], "muted": snap["muted"],
            "pairings_round": snap["pairings_round"],
            # before any match is played every team would be 并列1: no places yet (the hall's —)
            "ranked": any(row["played"] for row in snap["standings"])}
    rows = {row["table"]: row for row in snap["tables"]}
    standing = {row["team"]: row for row in snap["standings"]}
    teams = director.teams()
    names = {t.id: t.name for t in teams}
    tells = twin_tells(director)
    round_no = director.current_round()
    places: dict[tuple[str, int], tuple[int, str]] = {}  # (team, round) -> (table, side)
    for r in range(1, round_no + 1):
        for table, ns, ew in director.assignments(r):
            for team_id, side in ((ns, "NS"), (ew, "EW")):
                places[(team_id, r)] = (table, side)
        for table, seats in director.seats(r).items():
            for letter, player in seats.items():
                places[(player, r)] = (table, letter)
    upcoming: dict[str, dict[str, Any]] = {}
    for pairing in snap["pairings"]:
        for side, mine, theirs in (("NS", "ns_ids", "ew"), ("EW", "ew_ids", "ns")):
            for team_id in pairing.get(mine, []):
                upcoming[team_id] = {"round": snap["pairings_round"], "table": pairing["table"],
                                     "side": side, "opponent": pairing[theirs],
                                     "opponent_ids": pairing[f"{theirs}_ids"],
                                     "tells": pairing["tells"]}
    byes = {bye["team"]: {"round": round_no, "points": bye["points"]}
            for bye in snap.get("byes", [])}  # the current round's, with their points
    ruled = {(r.round, r.table): r.kind for r in director.rulings()}
    for r in range(1, round_no + 1):  # and what a table's own referee decided so
        ruled.update({(r, table): kind for table, kind in director.forfeits(r).items()})
    history: dict[str, list[dict[str, Any]]] = {t.id: [] for t in teams}
    for result in director.results():
        for member, other in ((result.a, result.b), (result.b, result.a)):
            if member is None or member not in history:
                continue
            sat_at, sat_as = places.get((member, result.round), (None, None))
            history[member].append({
                "round": result.round, "table": sat_at, "side": sat_as,
                "opponent": names.get(other, "") if other else None,
                "opponent_ids": [other] if other else [], "tells": tells_of(tells, other),
                "won": result.winner == member if result.winner else None,
                # a late entry's round before it joined: no opponent, no winner (缺赛)
                "missed": other is None and result.winner is None,
                "points": result.points.get(member, 0), "net": result.net.get(member, 0),
                "ruling": ruled.get((result.round, sat_at)) if other and sat_at else None})
    for r in range(1, round_no + 1):  # an individual event's: each finished table's totals
        for table, group in views.groups_now(director, r).items():
            for seat, player in group.seats.items() if group.over else ():
                if player in history:
                    history[player].append({"round": r, "table": table, "seat": seat,
                                            "points": group.totals.get(seat, 0),
                                            "deals": group.deals})
    withdrawn = {r.id: r.withdrawn_after for r in director.team_rows()}
    out = {}
    for team in teams:
        now = places.get((team.id, round_no))
        out[team.id] = {**head, "team": {"id": team.id, "name": team.name, "unit": team.unit,
                                         "withdrawn_after": withdrawn.get(team.id),
                                         # how it left, in the console's and printouts' words
                                         "withdrawal": director.withdrawal(team.id)
                                         if withdrawn.get(team.id) is not None else None},
                        "standing": standing.get(team.id), "side": now[1] if now else None,
                        "table": rows.get(now[0]) if now else None,
                        "next": upcoming.get(team.id), "bye": byes.get(team.id),
                        "history": sorted(history[team.id], key=lambda h: h["round"])}
    return out


def team_list(director: Director) -> dict[str, Any]:
    """The event's name and format, and every team's id, name, unit and players, for the
    phones' search: each team's `find` (its words as the search compares them,
    `search.folded`) and `fold`, the traditional characters the page folds in what is typed,
    so 王建國 finds 王建国; and `tell`, its id where the unit shown beside it does not tell it
    from a twin."""
    event = director.event()
    tells = twin_tells(director)
    teams = [{"id": r.id, "name": r.name, "unit": r.unit, "players": list(r.players),
              "find": search.folded(" ".join((r.id, r.name, r.unit, *r.players))),
              "tell": tells[r.id] if tells.get(r.id, r.unit) != r.unit else None}
             for r in director.team_rows()]
    return {"event": event.name if event else None, "teams": teams,
            "wording": event.wording if event else "",
            "fold": search.traditional_of(str(t["find"]) for t in teams)}
