"""The event's results for other software and for paper: CSV, JSON and score sheets in the
style of the seeds' forms (one per match, as the table recorded it, plus the rulings)."""

from __future__ import annotations

import csv
import io
from typing import Any

from ..rules import replay
from ..sheet import score_sheet
from ..wire import csv_cell
from .director import Director

COLUMNS = ("round", "table", "ns", "ew", "winner", "ns_points", "ew_points", "ns_net",
           "ew_net", "decided_by")


def results_json(director: Director) -> dict[str, Any]:
    """Every match (and bye) with its result, the rulings and the standings."""
    event = director.event()
    names = {t.id: t.name for t in director.teams()}
    rulings = {(r["round"], r["table"]): r for r in director.rulings()}
    matches: list[dict[str, Any]] = []
    for round_no in range(1, director.current_round() + 1):
        seats = director.seats(round_no)
        if seats:  # an individual event: each group's totals
            totals = director.group_totals(round_no)
            for i, (table, players) in enumerate(seats.items()):
                matches.append({"round": round_no, "table": table,
                                "players": {s: names[p] for s, p in players.items()},
                                "totals": {names[p]: t for p, t in totals[i].items()}
                                if totals else None})
            continue
        results = {(r.a, r.b): r for r in director.results() if r.round == round_no}
        for table, ns, ew in director.assignments(round_no):
            result = results.get((ns, ew))
            ruling = rulings.get((round_no, table))
            matches.append({
                "round": round_no, "table": table, "ns": ns, "ew": ew,
                "ns_name": names[ns], "ew_name": names[ew],
                "winner": result.winner if result else None,
                "points": result.points if result else None,
                "net": result.net if result else None,
                "decided_by": (ruling["kind"] if ruling else "table") if result else None})
        matches += [{"round": round_no, "table": None, "ns": r.a, "ew": None,
                     "ns_name": names[r.a], "ew_name": None, "winner": r.a,
                     "points": r.points, "net": r.net, "decided_by": "bye"}
                    for r in director.results() if r.round == round_no and r.b is None]
    standings = [{"rank": s.rank, "team": s.team, "name": names[s.team], "points": s.points,
                  "net": s.net, "opponents": s.opponents, "played": s.played, "tied": s.tied,
                  "group": s.group} for s in director.standings()]
    return {"event": event.name if event else None,
            "ruleset": event.ruleset if event else None,
            "ruleset_sha256": event.ruleset_sha256 if event else None,
            "matches": matches, "rulings": director.rulings(), "standings": standings}


def results_csv(director: Director) -> str:
    out = io.StringIO()
    writer = _Cells(csv.writer(out))
    writer.writerow(COLUMNS)
    for m in results_json(director)["matches"]:
        if "totals" in m:  # an individual group: one row a player
            for name, total in (m["totals"] or {}).items():
                writer.writerow([m["round"], m["table"], name, "", "", total, "", "", "",
                                 "table"])
            continue
        points, net = m["points"] or {}, m["net"] or {}
        writer.writerow([m["round"], m["table"] or "", m["ns_name"], m["ew_name"] or "",
                         m["winner"] or "", points.get(m["ns"], ""), points.get(m["ew"], ""),
                         net.get(m["ns"], ""), net.get(m["ew"], ""), m["decided_by"] or ""])
    return out.getvalue()


class _Cells:
    """A CSV writer whose cells a spreadsheet never runs as formulas (`wire.csv_cell`)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def writerow(self, cells: list[Any]) -> None:
        self.writer.writerow([csv_cell(c) for c in cells])


def table_records(director: Director) -> list[tuple[int, int, dict[str, Any]]]:
    """(round, table, §9 record) of every match a table has started, from its events."""
    out = []
    for round_no in range(1, director.current_round() + 1):
        for table, _, _ in director.assignments(round_no):
            state = director.match_state(table, round_no)
            if state is not None and state.ruleset is not None:
                out.append((round_no, table, state.export()))
    return out


def sheets(director: Director, lang: str) -> str:
    parts = []
    for round_no, table, record in table_records(director):
        ruleset = director.rulesets.require(record["ruleset"])
        lines = list(replay(record, director.rulesets))
        parts.append(f"== round {round_no} · table {table} ==\n"
                     + score_sheet(record, ruleset, lines, lang, None))
    rulings = director.rulings()
    if rulings:
        parts.append("== rulings ==\n" + "\n".join(
            f"round {r['round']} table {r['table']}: {r['kind']} against {r['loser']}"
            f" — {r['reason']}" for r in rulings) + "\n")
    return "\n".join(parts)
