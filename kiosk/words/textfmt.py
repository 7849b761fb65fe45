"""Plain text that lines up and wraps with Chinese text (full-width characters take two
columns): tables for terminals and the slip, lines cut at sensible points for the slip and the
kiosk's buttons."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from .names import name_words, ui_words


def width(text: str) -> int:
    """Columns `text` takes on a terminal or a thermal printer."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, columns: int, right: bool = False) -> str:
    """`text` padded with spaces to `columns` (to the left when `right`)."""
    fill = " " * max(0, columns - width(text))
    return fill + text if right else text + fill


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "  ") -> str:
    """A table with a header line and a rule; numbers are right-aligned."""
    cells = [[str(c) for c in row] for row in [headers, *rows]]
    widths = [max(width(row[i]) for row in cells) for i in range(len(headers))]
    numeric = [all(isinstance(row[i], int) for row in rows) and bool(rows)
               for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        parts = [pad(c, w, right=n) for c, w, n in zip(row, widths, numeric, strict=True)]
        return (indent + "  ".join(parts)).rstrip()

    rule = indent + "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


#: Characters a line must not start with (Chinese line-breaking rules), and units kept with
#: the number before them.
_NO_LINE_START = frozenset("）」』】》〉，。、；：！？…,.;:!?)]}%")
#: Characters a line must not end with: an equals sign stays with what it equals (「＝80分」).
_NO_LINE_END = frozenset("＝=×")
_UNITS = frozenset("分张張级級秒次倍副轮輪桌局名队隊")
_NUMERALS = frozenset("0123456789〇零一二三四五六七八九十百千两兩")  # 「八十分」 too
_WORD = r"[A-Za-z0-9+\-.'/_]+|."


@functools.cache
def _tokens() -> re.Pattern[str]:
    """A Latin word or a number, a word of a team's name or of the kiosk's sentences (代表队,
    思明, 结束: kept whole, the longest first), or one character."""
    words = sorted({*(word for word, _ in name_words()), *ui_words()}, key=len, reverse=True)
    return re.compile("|".join([*map(re.escape, words), _WORD]), re.S)


def wrap(text: str, cols: int) -> list[str]:
    """Split `text` into lines of at most `cols` columns (Chinese characters take two), never
    inside a number, a Latin word, a word of a team's name (`names`: 代表队, 有限公司) or of
    the kiosk's sentences (比赛, 结束), never before closing punctuation and never between a
    number and its unit (「80分」); a bracket that fits on a line is kept whole (「（计入旁家
    得分）」), and no line is left holding one character alone (「…八十分」/「赛」)."""
    units: list[str] = []
    for token in _tokens().findall(text):
        # 「东 」: one unit with the word after it; 「25 轮」: a number, its space and its unit
        if _lone_word(units) or (token in _UNITS and len(units) > 1 and units[-1] == " " and
                                 units[-2][-1:].isdigit()):
            units[-2:] = [units[-2] + units[-1]]
            glue = True
        else:
            glue = bool(units) and (token in _NO_LINE_START or (
                token in _UNITS and units[-1][-1:] in _NUMERALS) or units[-1] in _NO_LINE_END or
                (token in _NUMERALS and units[-1][-1:] in _NUMERALS and not token.isdigit()))
        if glue and width(units[-1] + token) <= cols:
            units[-1] += token
        else:
            units.append(token)
    units = _brackets_whole(units, cols)
    lines: list[list[str]] = [[]]
    for unit in units:
        if lines[-1] and width("".join(lines[-1]) + unit) > cols:
            lines.append([unit.lstrip()])
        else:
            lines[-1].append(unit)
        while width("".join(lines[-1])) > cols:  # a single unit wider than the line
            current = "".join(lines[-1])
            cut = _fit(current, cols)
            lines[-1:] = [[current[:cut]], [current[cut:]]]
    last = "".join(lines[-1]).strip().rstrip("".join(_NO_LINE_START))
    if len(lines) > 1 and len(last) == 1 and len(lines[-2]) > 2:  # a lone last character
        # (its closing punctuation does not keep it company: 「撤⏎销。」)
        lines[-1].insert(0, lines[-2].pop())
    out = ["".join(line).rstrip() for line in lines]
    return out if out[-1].strip() or len(out) == 1 else out[:-1]


def _lone_word(units: list[str]) -> bool:
    """The last units are a one-character word and its space at the start of the text or
    after a space or a 「；」 (a seat: 「东 」): it goes with the next word."""
    if len(units) < 2 or units[-1] != " " or len(units[-2]) != 1 or units[-2] == " ":
        return False
    return len(units) == 2 or units[-3][-1:] in " ；;："


def _brackets_whole(units: list[str], cols: int) -> list[str]:
    """Each （…） run of units as one unit, where it fits on a line whole; one too long stays
    in its units (a part of it held together left 「瞒）」 alone on the last line)."""
    out: list[str] = []
    run: list[str] | None = None  # the units of a run not closed yet: out[-1] is them
    for unit in units:
        if run is not None:
            if width("".join(run) + unit) <= cols:
                run.append(unit)
                out[-1] = "".join(run)
                if "）" in unit:
                    run = None
                continue
            out[-1:], run = run, None
        out.append(unit)
        if unit.startswith("（") and "）" not in unit:
            run = [unit]
    return out


def _fit(text: str, cols: int) -> int:
    """How many characters of `text` fit in `cols` columns (at least one)."""
    for i in range(len(text), 0, -1):
        if width(text[:i]) <= cols:
            return i
    return 1


def fit_lines(text: str, cols: int) -> str:
    """Each line of `text` in lines of at most `cols` columns, its indent kept; a hand's notes
    are packed whole (「北 跟错牌：…」 never broken between the seat and the offence)."""
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        indent = line[:len(line) - len(body)]
        items = re.split(r"(?<=；)|(?<=; )", body)
        out += [indent + part for part in pack(items, max(4, cols - len(indent)))]
    return "\n".join(out)


def pack(items: Sequence[str], cols: int) -> list[str]:
    """Lines of at most `cols` columns made of whole `items` (the notes of a hand: 「北 跟错牌：
    罚10分；」), an item wrapped only where it is wider than a line."""
    lines = [""]
    for item in items:
        if width(lines[-1] + item) <= cols:
            lines[-1] += item
        elif width(item.lstrip()) <= cols:
            lines.append(item.lstrip())
        else:  # wider than a line: wrapped from a line of its own, not from the last's end
            lines[-1:] = [*([lines[-1]] if lines[-1] else []), *wrap(item.lstrip(), cols)]
    return [line.rstrip() for line in lines]
