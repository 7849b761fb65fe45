"""Plain-text tables that line up with Chinese text (full-width characters take two columns)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


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
