"""Teams and players from a CSV file, as the organiser's spreadsheet writes it.

Encoding: UTF-8 (with or without the BOM Excel adds) or GB18030, a superset of GBK, which
Chinese spreadsheets write. The first row names the columns, in English or Chinese:

| column | also | meaning |
|---|---|---|
| `name` | `team`, `队名`, `player`, `选手`, `姓名` | the team's (or player's) name; required |
| `id` | `no`, `编号` | a short id; default: the row number (t01, t02 …) |
| `unit` | `单位` | the unit (club, company) the Swiss pairing keeps apart where it can |
| `player1` … `player4` | `队员1` … `队员4` | the team's players; 1 and 2 sit N and S (or E and W) |
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from ..wire import clean_name

ALIASES = {
    "name": ("name", "team", "队名", "隊名", "player", "选手", "選手", "姓名"),
    "id": ("id", "no", "编号", "編號"),
    "unit": ("unit", "单位", "單位"),
    **{f"player{i}": (f"player{i}", f"队员{i}", f"隊員{i}") for i in range(1, 5)},
}


class RosterError(ValueError):
    """A CSV file the scorer cannot read; the message names the row and column."""


@dataclass(frozen=True)
class Entrant:
    id: str
    name: str
    unit: str
    players: tuple[str, ...]


def decode(data: bytes) -> str:
    """UTF-8 if it is valid UTF-8, else GB18030 (GBK)."""
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise RosterError("the file is neither UTF-8 nor GBK/GB18030 text")


def parse(data: bytes) -> list[Entrant]:
    rows = list(csv.reader(io.StringIO(decode(data))))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise RosterError("the file is empty")
    header = [cell.strip().lower() for cell in rows[0]]
    columns: dict[str, int] = {}
    for key, names in ALIASES.items():
        for i, cell in enumerate(header):
            if cell in names:
                columns[key] = i
    if "name" not in columns:
        raise RosterError(f"no name column in the first row {rows[0]}; "
                          f"use one of: {', '.join(ALIASES['name'])}")
    out: list[Entrant] = []
    seen: set[str] = set()
    for number, row in enumerate(rows[1:], 2):
        def cell(key: str, row: list[str] = row) -> str:
            i = columns.get(key)
            # (no bidi controls or zero-width characters: a name reads as what it is)
            return clean_name(row[i]) if i is not None and i < len(row) else ""

        name = cell("name")
        if not name:
            raise RosterError(f"row {number}: the name is empty")
        entrant_id = cell("id") or f"t{len(out) + 1:02d}"
        if entrant_id in seen:
            raise RosterError(f"row {number}: id {entrant_id!r} is used twice")
        seen.add(entrant_id)
        players = tuple(p for p in (cell(f"player{i}") for i in range(1, 5)) if p)
        out.append(Entrant(entrant_id, name, cell("unit"), players))
    if not out:
        raise RosterError("the file is empty below its first row")
    return out
