"""The event's results for other software and for paper: CSV (UTF-8 with a BOM, so Excel on
a Chinese Windows reads it), an XLSX workbook (standings, every round, rulings, the audit
log), JSON, and text score sheets. Names sit next to ids; rulings show where the result shows,
in the chosen language.

Every cell goes through `cell()`: the one place where a value becomes spreadsheet text (the
security review adds its formula escaping there).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...protocol.wire import csv_cell
from ...rules import Ruleset, Rulesets, replay
from ...words.sheet import score_sheet
from ..director import Director, views
from .templating import who_text, words

BOM = "\ufeff"
RESULT_COLUMNS = ("round", "table", "ns_id", "ns", "ew_id", "ew", "winner_id", "winner",
                  "ns_points", "ew_points", "ns_net", "ew_net", "decided_by", "ruling_reason")
STANDING_COLUMNS = ("rank", "team_id", "team", "unit", "points", "net", "opponents", "played",
                    "status")
RULING_COLUMNS = ("round", "table", "ns", "ew", "ruling", "loser", "net", "reason", "by", "at",
                  "removed_by", "removed_at", "removal_reason")
AUDIT_COLUMNS = ("at", "by", "action")


def cell(value: Any) -> Any:
    """A value as a spreadsheet cell: numbers stay numbers, everything else is text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    return value if isinstance(value, int | float) else str(value)


# -- the tables every format shares ---------------------------------------------------------


def result_rows(director: Director, lang: str) -> list[list[Any]]:
    """One row a match (or bye, or a late entry's missed round)."""
    t = words(lang)
    out = []
    for round_no in range(1, director.current_round() + 1):
        for m in views.round_rows(director, round_no):
            r = m.result
            winner = r.winner if r else None
            out.append([round_no, m.table, m.ns, m.ns_name, m.ew, m.ew_name, winner or "",
                        director.team_names().get(winner, "") if winner else "",
                        r.points[m.ns] if r else "", r.points[m.ew] if r else "",
                        r.net[m.ns] if r else "", r.net[m.ew] if r else "",
                        t(f"print.decided.{m.decided_by}") if m.decided_by else
                        t("print.pending"), m.ruling.reason if m.ruling else ""])
        for b in views.bye_rows(director, round_no):
            out.append([round_no, "", b.team, b.name, "", "", b.team, b.name, b.points, "", 0,
                        "", t("print.decided.bye"), ""])
        seats = director.seats(round_no)
        totals = director.group_totals(round_no) if seats else None
        names = director.team_names()
        for index, (table, players) in enumerate(seats.items()):  # individual groups
            for letter, player in players.items():
                total = totals[index].get(player, "") if totals else ""
                out.append([round_no, table, player, f"{letter} {names.get(player, player)}",
                            "", "", "", "", total, "", "", "", t("print.decided.table"), ""])
    return out


def standing_rows(director: Director, lang: str) -> list[list[Any]]:
    t = words(lang)
    out = []
    for s in views.standing_rows(director):
        status = []
        if s.withdrawal is not None:  # (one wording: the console's, the phones')
            how, round_no = s.withdrawal
            status.append(t("print.withdrawn_during" if how == "during" else "print.withdrawn",
                            round=round_no))
        if s.joined_round > 1:
            status.append(t("print.late", round=s.joined_round))
        out.append([f"{s.group}{s.rank}{'=' if s.tied else ''}", s.team, s.name, s.unit,
                    s.points, s.net, s.opponents, s.played, "; ".join(status)])
    return out


def ruling_rows(director: Director, lang: str) -> list[list[Any]]:
    from .templating import when_text

    t = words(lang)
    out = []
    for r in director.rulings(removed=True):
        ns, ew = director.teams_at(r.round, r.table)
        out.append([r.round, r.table, director.label(ns), director.label(ew),
                    t(f"print.decided.{r.kind}"), t(f"print.side.{r.loser}"),
                    "" if r.given_net is None else r.given_net, r.reason,
                    who_text(t, r.by), when_text(r.at),
                    who_text(t, r.removed_by) if r.removed_at else "",
                    when_text(r.removed_at) if r.removed_at else "", r.removed_reason])
    return out


def audit_rows(director: Director, lang: str) -> list[list[Any]]:
    from .templating import when_text

    t = words(lang)
    return [[when_text(e.at), who_text(t, e.who), e.text(t)]
            for e in director.audit_log()]


def headers(columns: Sequence[str], lang: str) -> list[str]:
    t = words(lang)
    return [t(f"export.col.{c}") for c in columns]


# -- the formats ----------------------------------------------------------------------------


def _csv(rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([csv_cell(cell(v)) for v in row])  # never run as formulas
    return BOM + out.getvalue()


def results_csv(director: Director, lang: str = "zh-Hans") -> str:
    """Every match's result, UTF-8 with a BOM (Excel on a Chinese Windows reads it)."""
    return results_csv_of(director, lang)()


def results_csv_of(director: Director, lang: str) -> Callable[[], str]:
    """`results_csv` read from the director now (on the event loop), and the function that
    writes it, which may run in another thread."""
    with director.reading():
        rows = [headers(RESULT_COLUMNS, lang), *result_rows(director, lang)]
    return lambda: _csv(rows)


def audit_csv(director: Director, lang: str = "zh-Hans") -> str:
    return _csv([headers(AUDIT_COLUMNS, lang), *audit_rows(director, lang)])


def workbook(director: Director, lang: str = "zh-Hans") -> bytes:
    """An XLSX workbook: standings, every round's results, rulings, the audit log."""
    return write_workbook(workbook_sheets(director, lang), lang)


Sheets = list[tuple[str, Sequence[str], list[list[Any]]]]  # each one's name, columns, rows


def workbook_sheets(director: Director, lang: str) -> Sheets:
    """The workbook's rows, read from the director (on the event loop)."""
    with director.reading():
        return [("standings", STANDING_COLUMNS, standing_rows(director, lang)),
                ("results", RESULT_COLUMNS, result_rows(director, lang)),
                ("rulings", RULING_COLUMNS, ruling_rows(director, lang)),
                ("audit", AUDIT_COLUMNS, audit_rows(director, lang))]


def write_workbook(sheets: Sheets, lang: str) -> bytes:
    """The XLSX file of `workbook_sheets` (no director: this may run in another thread)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    t = words(lang)
    book = Workbook()
    first = True
    for name, columns, rows in sheets:
        sheet = book.active if first else book.create_sheet()
        first = False
        assert sheet is not None
        sheet.title = t(f"export.sheet.{name}")
        sheet.append(headers(columns, lang))
        for c in sheet[1]:
            c.font = Font(bold=True)
        for row in rows:
            sheet.append([cell(v) for v in row])
            for c in sheet[sheet.max_row]:
                if isinstance(c.value, str):
                    c.data_type = "s"  # text, never a formula
        sheet.freeze_panes = "A2"
        for column in sheet.columns:
            width = max((len(str(c.value or "")) for c in column), default=4)
            sheet.column_dimensions[column[0].column_letter].width = min(40, width * 1.6 + 2)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def results_json(director: Director) -> dict[str, Any]:
    """Every match (and bye) with its result, the rulings and the standings, by id and
    name (for other software: English keys)."""
    event = director.event()
    names = director.team_names()
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
        for m in views.round_rows(director, round_no):
            r = m.result
            matches.append({
                "round": round_no, "table": m.table, "ns": m.ns, "ew": m.ew,
                "ns_name": m.ns_name, "ew_name": m.ew_name,
                "winner": r.winner if r else None, "points": r.points if r else None,
                "net": r.net if r else None, "decided_by": m.decided_by or None,
                "ruling_reason": m.ruling.reason if m.ruling else None})
        matches += [{"round": round_no, "table": None, "ns": b.team, "ew": None,
                     "ns_name": b.name, "ew_name": None, "winner": b.team,
                     "points": {b.team: b.points}, "net": {b.team: 0}, "decided_by": "bye",
                     "ruling_reason": None} for b in views.bye_rows(director, round_no)]
    standings = [{"rank": s.rank, "team": s.team, "name": s.name, "points": s.points,
                  "net": s.net, "opponents": s.opponents, "played": s.played, "tied": s.tied,
                  "group": s.group, "withdrawn_after": s.withdrawn_after,
                  "joined_round": s.joined_round} for s in views.standing_rows(director)]
    return {"event": event.name if event else None,
            "ruleset": event.ruleset if event else None,
            "ruleset_sha256": event.ruleset_sha256 if event else None,
            "matches": matches, "rulings": [r.as_dict() for r in director.rulings()],
            "standings": standings}


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
        tables = [t for t, _, _ in director.assignments(round_no)] + list(
            director.seats(round_no))
        for table in sorted(tables):
            state = director.match_state(table, round_no)
            if state is not None and state.ruleset is not None:
                out.append((round_no, table, state.export()))
    return out


def sheets(director: Director, lang: str) -> str:
    """Every match's text score sheet, each followed by its ruling in the same language, as
    the printed sheet says it; a table ruled without a record of play has its ruling alone."""
    return sheets_of(director, lang, SheetTexts())()


def sheets_of(director: Director, lang: str, texts: SheetTexts) -> Callable[[], str]:
    """`sheets` read from the director now (on the event loop), and the function that
    replays and writes them (no director: it may run in another thread), keeping each
    match's text in `texts`."""
    t = words(lang)
    with director.reading():
        rulings = {(r.round, r.table): r for r in director.rulings()}
        records = [(round_no, table, record, director.rulesets.require(record["ruleset"]))
                   for round_no, table, record in table_records(director)]
    rulesets = director.rulesets

    def write() -> str:
        sheets = {(round_no, table): texts.text(round_no, table, record, ruleset, rulesets,
                                                lang)
                  for round_no, table, record, ruleset in records}
        parts = []
        for round_no, table in sorted(sheets.keys() | rulings.keys()):
            text = t("export.sheet_head", round=round_no, table=table) + "\n" + \
                sheets.get((round_no, table), t("print.sheet.no_hands") + "\n")
            ruling = rulings.get((round_no, table))
            if ruling:
                text += t("print.sheet.ruling", kind=t(f"print.decided.{ruling.kind}"),
                          side=t(f"print.side.{ruling.loser}"), reason=ruling.reason)
                if ruling.kind == "adjusted":
                    text += " " + t("print.sheet.ruling_net", net=ruling.net)
                text += "\n"
            parts.append(text)
        return "\n".join(parts)
    return write


class SheetTexts:
    """Each match's text score sheet once written, kept with the record it was written from:
    while a match's record is the same, its sheet is not replayed again (replaying and
    writing 1,500 sheets takes the scorer about 1.5 s; a download during a round changes a
    few of them). Used by one thread at a time."""

    def __init__(self) -> None:
        self._kept: dict[tuple[int, int, str], tuple[dict[str, Any], str, str]] = {}

    def text(self, round_no: int, table: int, record: dict[str, Any], ruleset: Ruleset,
             rulesets: Rulesets, lang: str) -> str:
        key = (round_no, table, lang)
        kept = self._kept.get(key)
        if kept is not None and kept[1] == ruleset.sha256 and kept[0] == record:
            return kept[2]
        text = score_sheet(record, ruleset, list(replay(record, rulesets)), lang, None)
        self._kept[key] = (record, ruleset.sha256, text)
        return text
