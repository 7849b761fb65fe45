"""Teams and players from a CSV file, as the organiser's spreadsheet writes it.

Encoding: UTF-8 (with or without the BOM Excel adds) or GB18030, a superset of GBK, which
Chinese spreadsheets write. The first row names the columns, in English or Chinese:

- `name` (also `team`, `队名`, `队伍`, `队伍名称`, `参赛队`, `player`, `选手`, `姓名`): the
  team's (or player's) name; required;
- `id` (`no`, `编号`, `队号`, `代号`): a short id; default: the next free t01, t02 …;
- `unit` (`单位`, `单位名称`, `club`, `俱乐部`): the unit (club, company) the Swiss pairing keeps
  apart where it can;
- `player1` … `player4` (`队员1` … `队员4`, `选手1` …): the team's players; 1 and 2 sit N and S
  (or E and W).

Other columns (a remark, a phone number) are left out, and the import says which. Every
error names the file's own line number, blank lines counted.

A list pasted into the console (`parse_pasted`) is one team a line: its name, or its name
and unit (and up to four players), the cells apart by a tab (cells copied from Excel) or,
on a line without one, a comma (，too); a first line naming the columns is read as a
file's first row.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from ...errors import RosterError
from ...protocol.wire import clean_name


def _both(*names: str) -> tuple[str, ...]:
    """Each simplified name with its traditional spelling (the catalogs' two scripts)."""
    table = str.maketrans("队伍称参赛选编号单员会俱乐部码", "隊伍稱參賽選編號單員會俱樂部碼")
    return tuple(dict.fromkeys([*names, *(n.translate(table) for n in names)]))


ALIASES = {
    "name": _both("name", "team", "team name", "队名", "队伍", "队伍名称", "队名称", "参赛队",
                  "参赛队伍", "player", "选手", "姓名", "选手姓名"),
    "id": _both("id", "no", "no.", "编号", "队号", "代号", "队伍编号"),
    "unit": _both("unit", "club", "单位", "单位名称", "俱乐部", "所属单位"),
    **{f"player{i}": _both(f"player{i}", f"player {i}", f"队员{i}", f"选手{i}")
       for i in range(1, 5)},
}
MAX_NAME = 40  # characters: a name longer than this is a pasted paragraph, not a team


def _refuse(english: str, key: str, **params: object) -> RosterError:
    error = RosterError(english)
    error.explained(key, **params)
    return error


@dataclass(frozen=True)
class Entrant:
    id: str  # "" when the file gives none: the event assigns the next free one
    name: str
    unit: str
    players: tuple[str, ...]
    line: int = 0  # the file's line number, for messages


@dataclass(frozen=True)
class Roster:
    entrants: tuple[Entrant, ...]
    ignored: tuple[str, ...]  # column names the scorer does not use


# What a spreadsheet saves a CSV as: UTF-8 (with or without its mark), a mainland Excel's
# GBK/GB18030, a Taiwanese or Hong Kong Excel's Big5 (cp950, its Windows form).
ENCODINGS = ("utf-8-sig", "gb18030", "cp950")


def decode(data: bytes) -> list[str]:
    """The file's text in each encoding that decodes it, in the order of ENCODINGS (GB18030
    decodes almost any bytes, so a Big5 file decodes both ways: `parse` keeps the reading
    whose first row names the columns). Raises RosterError when none does."""
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):  # .xlsx (a zip), .xls
        raise _refuse("a spreadsheet's own file, not text", "roster.error.spreadsheet")
    texts = []
    for encoding in ENCODINGS:
        try:
            texts.append(data.decode(encoding))
        except UnicodeDecodeError:
            continue
        if encoding == "utf-8-sig":
            return texts  # valid UTF-8 is UTF-8
    if not texts:
        raise _refuse("the file is neither UTF-8, GBK/GB18030 nor Big5 text",
                      "roster.error.encoding")
    return texts


def clean(text: str) -> str:
    """A cell as a name: single spaces, no bidi controls or zero-width characters (a name
    reads as what it is), length-capped. The one place names from outside are cleaned."""
    return clean_name(text)


def parse(data: bytes) -> Roster:
    """The teams of a CSV file. Raises RosterError naming the line and the problem."""
    texts = decode(data)
    for text in texts[:-1]:  # a reading whose first row names no column is the wrong one
        try:
            return _parse(text)
        except RosterError as exc:
            if exc.key != "roster.error.no_name_column":
                raise
    try:
        return _parse(texts[-1])
    except RosterError as exc:
        if len(texts) > 1 and exc.key == "roster.error.no_name_column":  # not UTF-8 either
            raise _refuse(str(exc), "roster.error.no_name_column_encoding",
                          **exc.params) from None
        raise


PASTED = ("name", "unit", "player1", "player2", "player3", "player4")  # a line's cells


def parse_pasted(text: str) -> Roster:
    """The teams of a list pasted as text, one a line (see above). Raises RosterError naming
    the line (the box's own line numbers) and the problem."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # a line with a tab is cells copied from a spreadsheet (a comma may be in a name);
    # another's cells are apart by commas, 全角 or not
    return _parse("\n".join(line if "\t" in line else line.replace("，", "\t").replace(
        ",", "\t") for line in lines), "\t", pasted=True)


def _parse(text: str, delimiter: str = ",", pasted: bool = False) -> Roster:
    """A CSV's teams; `pasted`: a list whose first line may name no column (the cells are
    then PASTED), a quote being a character of a name like any other."""
    reader = csv.reader(io.StringIO(text), strict=True, delimiter=delimiter,
                        quoting=csv.QUOTE_NONE if pasted else csv.QUOTE_MINIMAL)
    rows: list[tuple[int, list[str]]] = []
    start = 1  # the line the row being read begins on (a quote left open reads to the end)
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise _refuse(f"line {start}: {exc}", "roster.error.csv", line=start) from None
    if not rows:
        raise _refuse("the file is empty", "roster.error.empty")
    header_line, header_row = rows[0]
    header = [cell.strip().lower() for cell in header_row]
    columns: dict[str, int] = {}
    for key, names in ALIASES.items():
        for i, heading in enumerate(header):
            if heading in names and key not in columns:
                columns[key] = i
    if pasted and "name" not in columns:  # a plain list: every line a team
        return _entrants(rows, {key: i for i, key in enumerate(PASTED)}, (), pasted=True)
    if "name" not in columns:
        raise _refuse(f"no name column in the first row {header_row}; use one of: "
                      f"{', '.join(ALIASES['name'])}", "roster.error.no_name_column",
                      line=header_line, names="、".join(ALIASES["name"][:8]))
    used = set(columns.values())
    ignored = tuple(header_row[i].strip() for i, heading in enumerate(header)
                    if i not in used and heading)
    return _entrants(rows[1:], columns, ignored, width=len(header))


def _entrants(rows: list[tuple[int, list[str]]], columns: dict[str, int],
              ignored: tuple[str, ...], width: int = 0, pasted: bool = False) -> Roster:
    """The teams of `rows` (line, cells), their cells at `columns`; `width`: the cells the
    first row names (a row with more is refused), else the cells a pasted line may have."""
    out: list[Entrant] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        if pasted and not width:
            if any(c.strip() for c in row[len(PASTED):]):
                raise _refuse(f"line {line}: {len(row)} cells on a pasted line",
                              "roster.error.pasted_cells", line=line, cells=len(row))
        else:
            extra = [c for c in row[width:] if c.strip()]
            if extra:
                raise _refuse(f"line {line}: {width + len(extra)} cells, but the first row "
                              f"names {width} columns", "roster.error.extra_cells",
                              line=line, cells=len(row), columns=width)

        def cell(key: str, row: list[str] = row) -> str:
            i = columns.get(key)
            return clean(row[i]) if i is not None and i < len(row) else ""

        name = cell("name")
        if not name:
            raise _refuse(f"line {line}: the name is empty", "roster.error.empty_name",
                          line=line)
        if len(name) > MAX_NAME:
            raise _refuse(f"line {line}: the name is longer than {MAX_NAME} characters",
                          "roster.error.long_name", line=line, most=MAX_NAME)
        entrant_id = cell("id")
        if entrant_id.casefold() in seen:  # (an id in a link ignores letter case: t01 = T01)
            raise _refuse(f"line {line}: id {entrant_id!r} is used twice (line "
                          f"{seen[entrant_id.casefold()]} too)", "roster.error.id_twice",
                          line=line, id=entrant_id, other=seen[entrant_id.casefold()])
        if entrant_id:
            seen[entrant_id.casefold()] = line
        players = tuple(p for p in (cell(f"player{i}") for i in range(1, 5)) if p)
        out.append(Entrant(entrant_id, name, cell("unit"), players, line))
    if not out:
        raise _refuse("the file is empty below its first row", "roster.error.no_rows")
    return Roster(tuple(out), ignored)
