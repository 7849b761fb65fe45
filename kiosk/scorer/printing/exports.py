"""The event's results for other software and for paper: CSV (UTF-8 with a BOM, so Excel on
a Chinese Windows reads it), an XLSX workbook (standings, every round, rulings, the audit
log), JSON, and text score sheets. Names sit next to ids; rulings show where the result shows,
in the chosen language.

Every cell goes through `cell()`: the one place where a value becomes spreadsheet text (the
security review adds its formula escaping there).
"""

from __future__ import annotations

import csv
import datetime
import io
import math
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...protocol.wire import csv_cell
from ...rules import Ruleset, Rulesets, replay
from ...words.sheet import score_sheet
from ..director import Director, views
from ..director.base import SWISS_FORMATS
from .templating import decided_text, said, who_text, words

BOM = "\ufeff"
RESULT_COLUMNS = ("round", "table", "ns_id", "ns", "ew_id", "ew", "winner_id", "winner",
                  "ns_points", "ew_points", "ns_net", "ew_net", "decided_by", "ruling_reason")
# an individual event's: a row a player a round, at a table of four with no sides
GROUP_RESULT_COLUMNS = ("round", "table", "seat", "team_id", "player", "points", "deals",
                        "status")
STANDING_COLUMNS = ("rank", "tied", "team_id", "team", "unit", "points", "net", "opponents",
                    "played", "status")  # ("group" first, in an event with groups)
# an individual event's: a player's, with no net levels or opponents' points (none are kept)
PLAYER_STANDING_COLUMNS = ("rank", "tied", "team_id", "player", "unit", "points", "played",
                           "status")
RULING_COLUMNS = ("round", "table", "ns", "ew", "ruling", "loser", "net", "reason", "by", "at",
                  "removed_by", "removed_at", "removal_reason")
AUDIT_COLUMNS = ("at", "by", "action")


def cell(value: Any) -> Any:
    """A value as a spreadsheet cell: numbers stay numbers, everything else is text (a time as
    the console writes it, 2026-05-01 14:03:07)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return value if isinstance(value, int | float) else str(value)


def _time(at: float | None) -> datetime.datetime | None:
    """A moment as the scorer's local time: a date-time cell in the workbook (sorts and
    filters as one), text in a CSV (`cell`)."""
    return None if at is None else datetime.datetime.fromtimestamp(at).replace(microsecond=0)


# -- the tables every format shares ---------------------------------------------------------


def result_rows(director: Director, lang: str) -> list[list[Any]]:
    """One row a match (or bye, or a late entry's missed round)."""
    t = words(lang)
    out = []
    missed = _missed(director)
    for round_no in range(1, director.current_round() + 1):
        for m in views.round_rows(director, round_no):
            r = m.result
            winner = r.winner if r else None
            out.append([round_no, m.table, m.ns, m.ns_name, m.ew, m.ew_name, winner or "",
                        director.team_names().get(winner, "") if winner else "",
                        r.points[m.ns] if r else "", r.points[m.ew] if r else "",
                        r.net[m.ns] if r else "", r.net[m.ew] if r else "",
                        decided_text(t, m.decided_by) if m.decided_by else
                        t("print.pending"), m.reason])
        for b in views.bye_rows(director, round_no):
            out.append([round_no, "", b.team, b.name, "", "", b.team, b.name, b.points, "", 0,
                        "", decided_text(t, "bye"), ""])
        for team, points in missed.get(round_no, ()):  # counted in the standings, as a bye is
            name = director.team_names().get(team, team)
            out.append([round_no, "", team, name, "", "", "", "", points, "", 0, "",
                        t("print.missed"), ""])
    return out


def result_table(director: Director, lang: str) -> tuple[tuple[str, ...], list[list[Any]]]:
    """Every round's results, as columns and rows: a team event's matches, or an individual
    event's players, each at a table, a seat, with the big points so far."""
    if not any(director.seats(n) for n in range(1, director.current_round() + 1)):
        return _shown(director, RESULT_COLUMNS, result_rows(director, lang))
    t, names = words(lang), director.team_names()
    rows = [[round_no, table, t(f"seat.{seat}"), player, names.get(player, player),
             group.totals.get(seat, ""), group.deals,
             t("print.finished" if group.over else "print.pending")]
            for round_no in range(1, director.current_round() + 1)
            for table, group in views.groups_now(director, round_no).items()
            for seat, player in group.seats.items()]
    return GROUP_RESULT_COLUMNS, rows


def _missed(director: Director) -> dict[int, list[tuple[str, int]]]:
    """The rounds a late entry missed, by round: (team, big points), where they count in the
    standings (a Swiss event's), as the scorecards show them."""
    event = director.event()
    out: dict[int, list[tuple[str, int]]] = {}
    if event is not None and event.format in SWISS_FORMATS:
        for round_no, team, points in director.missed_rounds():
            out.setdefault(round_no, []).append((team, points))
    return out


def standing_table(director: Director, lang: str) -> tuple[tuple[str, ...], list[list[Any]]]:
    """The standings' columns and rows: the rank a number (a workbook sorts it as one), a tie
    said in a column of its own, and the group (A, B …) in one of its own where there are
    groups, so that 名次 sorts within a group."""
    rows = standing_rows(director, lang)
    columns: tuple[str, ...] = ("group", *STANDING_COLUMNS)
    if director.individual():
        columns = ("group", *PLAYER_STANDING_COLUMNS)
        rows = [[*row[:7], *row[9:]] for row in rows]  # (net levels, opponents' points: 0)
    else:
        columns, rows = _shown(director, columns, rows)
    if any(group for group, *_ in rows):
        return columns, rows
    return columns[1:], [row[1:] for row in rows]


def _shown(director: Director, columns: tuple[str, ...], rows: list[list[Any]]
           ) -> tuple[tuple[str, ...], list[list[Any]]]:
    """`columns` and `rows` without the columns that break no tie in this event (every one
    0): its net levels, its opponents' points."""
    event = director.event()
    if event is None:  # (no event yet: the columns of every event, no rows)
        return columns, rows
    hidden = set() if event.net_levels else {"net", "ns_net", "ew_net"}
    if not event.opponents:
        hidden.add("opponents")
    kept = [i for i, c in enumerate(columns) if c not in hidden]
    return tuple(columns[i] for i in kept), [[row[i] for i in kept] for row in rows]


def standing_rows(director: Director, lang: str) -> list[list[Any]]:
    """Each team's standing: its group ("" without groups), then `STANDING_COLUMNS`."""
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
        if s.byes:
            rounds = t("print.rounds_sep").join(map(str, s.byes))
            status.append(t("print.bye_rounds", rounds=rounds))
        group = t("admin.standings.prize_group", n=s.prize) if s.prize else s.group
        out.append([group, s.rank, t("export.tied") if s.tied else "", s.team, s.name,
                    s.unit, s.points, s.net, s.opponents, s.played, "; ".join(status)])
    return out


def ruling_rows(director: Director, lang: str) -> list[list[Any]]:
    t = words(lang)
    out = []
    for r in director.rulings(removed=True):
        ns, ew = director.teams_at(r.round, r.table)
        out.append([r.round, r.table, said(t, director.label(ns)), said(t, director.label(ew)),
                    decided_text(t, r.kind), t(f"print.side.{r.loser}"),
                    "" if r.given_net is None else r.given_net, r.reason,
                    who_text(t, r.by), _time(r.at),
                    who_text(t, r.removed_by) if r.removed_at else "",
                    _time(r.removed_at) if r.removed_at else "", r.removed_reason])
    return out


def audit_rows(director: Director, lang: str) -> list[list[Any]]:
    t = words(lang, director.wording())
    return [[_time(e.at), who_text(t, e.who), e.text(t)]
            for e in director.audit_log()]


def headers(columns: Sequence[str], lang: str, wording: str = "") -> list[str]:
    t = words(lang, wording)
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
        columns, results = result_table(director, lang)
        rows = [headers(columns, lang, director.wording()), *results]
    return lambda: _csv(rows)


def audit_csv(director: Director, lang: str = "zh-Hans") -> str:
    return _csv([headers(AUDIT_COLUMNS, lang), *audit_rows(director, lang)])


def workbook(director: Director, lang: str = "zh-Hans") -> bytes:
    """An XLSX workbook: standings, every round's results, rulings, the audit log."""
    return write_workbook(workbook_sheets(director, lang), lang)


# each one's name, columns, their headers and rows
Sheets = list[tuple[str, Sequence[str], list[str], list[list[Any]]]]


def workbook_sheets(director: Director, lang: str) -> Sheets:
    """The workbook's rows, read from the director (on the event loop)."""
    with director.reading():
        rulings = [] if director.individual() else [  # (an individual event has none)
            ("rulings", *_shown(director, RULING_COLUMNS, ruling_rows(director, lang)))]
        tables = [("standings", *standing_table(director, lang)),
                  ("results", *result_table(director, lang)), *rulings,
                  ("audit", AUDIT_COLUMNS, audit_rows(director, lang))]
        wording = director.wording()
        return [(name, columns, headers(columns, lang, wording), rows)
                for name, columns, rows in tables]


def write_workbook(sheets: Sheets, lang: str) -> bytes:
    """The XLSX file of `workbook_sheets` (no director: this may run in another thread).
    Numbers and times are cells of their kind (they sort and filter as such), the rest text;
    each sheet prints on A4 across, as wide as one page, its header row on every page."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    t = words(lang)
    book = Workbook()
    first = True
    for name, columns, heads, rows in sheets:
        sheet = book.active if first else book.create_sheet()
        first = False
        assert sheet is not None
        sheet.title = t(f"export.sheet.{name}")
        sheet.append(heads)
        for c in sheet[1]:
            c.font = Font(bold=True)
        signed = [key in SIGNED for key in columns]
        for row in rows:
            sheet.append([v if isinstance(v, datetime.datetime) else cell(v) for v in row])
            for c, plus in zip(sheet[sheet.max_row], signed, strict=False):
                if isinstance(c.value, str):
                    c.data_type = "s"  # text, never a formula
                elif isinstance(c.value, datetime.datetime):
                    c.number_format = "yyyy-mm-dd hh:mm:ss"
                elif plus:  # (net levels read +3 as on every printed page, and stay numbers)
                    c.number_format = "+0;-0;0"
        sheet.freeze_panes = "A2"
        for key, column in zip(columns, sheet.columns, strict=True):
            _fit(sheet, key, column)
        _heights(sheet)
        _print_setup(sheet)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


#: The columns of net levels: a number with its sign (+3), as the printed pages say it.
SIGNED = frozenset({"net", "ns_net", "ew_net"})


#: How wide a column may grow before its text wraps: names 20 (ten Chinese characters);
#: sentences (a reason, a status) 40; the log's lines, a sheet of three columns, 90.
_CAPS = {"ruling_reason": 40, "reason": 40, "removal_reason": 40, "status": 40, "action": 90}


def _shown_width(value: Any) -> int:
    """How wide a cell's text is, in Excel's units: a Chinese character takes two."""
    text = cell(value) if isinstance(value, datetime.datetime) else str(
        "" if value is None else value)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _fit(sheet: Any, key: str, column: Sequence[Any]) -> None:
    """A column as wide as its longest cell, up to a limit past which its text wraps (a
    35-character team name must not make 14 columns too wide to read on one printed page);
    its header may take two lines."""
    from openpyxl.styles import Alignment

    head, *cells = column
    cap = _CAPS.get(key, 20)
    width = max([(_shown_width(head.value) + 1) // 2 + 1, 5,  # (the header's half)
                 *(_shown_width(c.value) + 2 for c in cells)])
    sheet.column_dimensions[head.column_letter].width = min(cap, width)
    head.alignment = Alignment(wrap_text=True, vertical="top")
    for c in cells:
        c.alignment = Alignment(wrap_text=width > cap, vertical="top")


def _heights(sheet: Any) -> None:
    """Each row with wrapped text as tall as its lines (LibreOffice, unlike Excel, does not
    measure them when it opens the file)."""
    widths = {letter: d.width for letter, d in sheet.column_dimensions.items()}
    for row in sheet.iter_rows():
        lines = max((math.ceil(_shown_width(c.value) / max(1, widths[c.column_letter] - 1))
                     for c in row if c.alignment.wrap_text and c.value is not None),
                    default=1)
        if lines > 1:
            sheet.row_dimensions[row[0].row].height = 15 * lines


def _print_setup(sheet: Any) -> None:
    """Printed from Excel: A4 landscape, all columns on one page's width (as many pages down as
    it takes), the header row again on each page, grid lines, the sheet and page at the foot."""
    sheet.page_setup.paperSize = sheet.PAPERSIZE_A4
    sheet.page_setup.orientation = "landscape"
    sheet.page_setup.fitToWidth = 1
    sheet.page_setup.fitToHeight = 0
    sheet.sheet_properties.pageSetUpPr.fitToPage = True
    sheet.print_title_rows = "1:1"
    sheet.print_options.gridLines = True
    sheet.oddFooter.center.text = "&A · &P / &N"


def results_json(director: Director) -> dict[str, Any]:
    """Every match (and bye) with its result, the rulings and the standings, by id and
    name (for other software: English keys)."""
    event = director.event()
    names = director.team_names()
    matches: list[dict[str, Any]] = []
    missed = _missed(director)
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
                "ruling_reason": m.reason or None})
        matches += [{"round": round_no, "table": None, "ns": b.team, "ew": None,
                     "ns_name": b.name, "ew_name": None, "winner": b.team,
                     "points": {b.team: b.points}, "net": {b.team: 0}, "decided_by": "bye",
                     "ruling_reason": None} for b in views.bye_rows(director, round_no)]
        matches += [{"round": round_no, "table": None, "ns": team, "ew": None,
                     "ns_name": names.get(team, team), "ew_name": None, "winner": None,
                     "points": {team: points}, "net": {team: 0}, "decided_by": "late",
                     "ruling_reason": None} for team, points in missed.get(round_no, ())]
    standings = [{"rank": s.rank, "team": s.team, "name": s.name, "points": s.points,
                  "net": s.net, "opponents": s.opponents, "played": s.played, "tied": s.tied,
                  "group": s.group, "prize": s.prize, "withdrawn_after": s.withdrawn_after,
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


def _named_now(director: Director, round_no: int, table: int,
               record: dict[str, Any]) -> dict[str, Any]:
    """A match's record with its teams and players named as the roster is now (a team
    renamed after its match kept its old name on the text sheet alone)."""
    teams, players = director.names_at(round_no, table)
    return {**record, "teams": teams, "players": players}


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
        net_levels = director.require_event().net_levels
        records = [(round_no, table, _named_now(director, round_no, table, record),
                    director.rulesets.require(record["ruleset"]))
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
                text += t("print.sheet.ruling", kind=decided_text(t, ruling.kind),
                          side=t(f"print.side.{ruling.loser}"), reason=ruling.reason)
                if ruling.kind == "adjusted" and net_levels:
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
