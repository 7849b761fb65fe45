"""Which tables need the head referee, at a glance even with 500 of them: a round's matches
and the hall's tables counted by what a person looks for (disputed, kiosk not ready, offline …)
with a filter for each, and a list of table numbers said short (第 1–3、5、7–20 桌等), never a
wall of 455 numbers. Words are catalog keys (console.toml); the console, the overview and the
command line say the same."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ...rules.errors import Words, words
from . import search

PLAYING = frozenset({"setup", "ready", "bury", "play", "entry", "result"})

# A round's match filters, in the order the results page shows them; the first four are the
# ones that need the head referee (they stand out and the overview names them).
MATCH_FILTERS: dict[str, Callable[[Any], bool]] = {
    "disputed": lambda r: r.state == "disputed",
    "problem": lambda r: bool(r.problems),
    "not-set-up": lambda r: r.state == "not-set-up",
    "offline": lambda r: r.link == "offline",
    "unfinished": lambda r: r.result is None,
    "playing": lambda r: r.state in PLAYING,
    "waiting": lambda r: r.state == "waiting",
    "over": lambda r: r.state == "over",
    "ruled": lambda r: r.state == "ruled",
}
ATTENTION = ("disputed", "problem", "not-set-up", "offline")

# The hall's tables: `table` is a dict with paired, link and problem (admin.py builds it).
TABLE_FILTERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "paired": lambda t: t["paired"],
    "unpaired": lambda t: not t["paired"],
    "offline": lambda t: t["link"] == "offline",
    "problem": lambda t: t["problem"],
}

# Teams: a TeamRow.
TEAM_FILTERS: dict[str, Callable[[Any], bool]] = {
    "playing": lambda r: not r.withdrawn,
    "withdrawn": lambda r: bool(r.withdrawn),
    "late": lambda r: r.joined_round > 1,
}


def counted(items: list[Any], filters: dict[str, Callable[[Any], bool]]) -> dict[str, int]:
    """How many of `items` each filter keeps."""
    return {name: sum(1 for i in items if keep(i)) for name, keep in filters.items()}


def chosen(items: list[Any], filters: dict[str, Callable[[Any], bool]], name: str) -> list[Any]:
    """The items filter `name` keeps; all of them for "" or a name that is not a filter."""
    keep = filters.get(name)
    return [i for i in items if keep(i)] if keep else items


def attention(rows: list[Any]) -> list[tuple[str, int]]:
    """The filters that need the head referee and how many matches each holds (none at 0)."""
    counts = counted(rows, MATCH_FILTERS)
    return [(name, counts[name]) for name in ATTENTION if counts[name]]


def number_list(numbers: Iterable[int], most: int = 10) -> Words:
    """Tables as runs of numbers (第 1–3、5、7–20 桌; two in a row are two: 第 1、2 桌), at
    most `most` runs, then 等 (and more): as words, since each language has its own list
    comma (第 1、2 桌, tables 1, 2). The one way the console and the commands list tables."""
    runs: list[str] = []
    ordered = sorted(set(numbers))
    start = 0
    for i, n in enumerate(ordered):
        if i + 1 == len(ordered) or ordered[i + 1] != n + 1:
            first = ordered[start]
            if n - first >= 2:
                runs.append(f"{first}–{n}")
            else:
                runs += [str(x) for x in range(first, n + 1)]
            start = i + 1
    listed = listing(runs[:most])
    key = "console.tables.more" if len(runs) > most else \
        "console.tables.one" if len(ordered) == 1 else "console.tables.all"  # (table 5)
    return words(key, list=listed)


def listing(items: list[Any], pair: str = "console.list.pair") -> Any:
    """Items (text or words) as one list in the reader's language: 甲、乙、丙 / a, b, c.
    `pair` joins two of them: console.list.pair (、 ,), console.list.clause (， ,) between
    clauses, console.list.then (； ;) between sentences."""
    listed: Any = items[-1] if items else ""
    for item in reversed(items[:-1]):  # 甲、(乙、(丙)): each language's comma
        listed = words(pair, first=item, rest=listed)
    return listed


def attention_words(rows: list[Any]) -> Any:
    """What needs the head referee in a round, said as a list (2 桌有争议、20 桌平板未就绪),
    or None when nothing does."""
    found = attention(rows)
    return listing([words(f"console.count.{name}", n=n) for name, n in found]) \
        if found else None


def found(query: str, *fields: str) -> bool:
    """Whether a team with these fields (id, name, unit, players …) is what `query` looks
    for: every word of it in one of the fields, letter case ignored, 简/繁 alike."""
    return search.found(query, *fields)
