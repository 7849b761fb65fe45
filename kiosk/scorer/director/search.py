"""Finding a team as a person types it: any part of its id, name, unit or a player's name,
letter case ignored and 简/繁 alike (王建國 finds 王建国, 廈門 finds 厦门). Both the console's
search and the phones' (/team, whose page folds what is typed with `traditional_of`) compare
texts folded by `folded`: NFKC, lower case, each character in its simplified form (OpenCC's
character table, one character at a time so the page can do the same)."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable

#: The CJK blocks whose characters have traditional forms (Unified Ideographs, Extension A,
#: the compatibility ideographs).
_CJK = (range(0x3400, 0xA000), range(0xF900, 0xFB00))


@functools.cache
def _to_simplified() -> Callable[[str], str]:
    import opencc  # type: ignore[import-untyped]  # (its dictionaries load once, at first)

    return opencc.OpenCC("t2s").convert  # type: ignore[no-any-return]


def simplified(text: str) -> str:
    """`text` in simplified characters, converted as a whole with OpenCC's phrases (乾隆
    stays 乾隆, 廈門 becomes 厦门), for what reads a name rather than matches a character."""
    return _to_simplified()(text) or text


@functools.lru_cache(maxsize=65536)
def _simplified(char: str) -> str:
    if ord(char) < 0x2E80:  # (letters, digits, punctuation: as they are)
        return char
    return _to_simplified()(char) or char


def folded(text: str) -> str:
    """`text` as the searches compare it."""
    return "".join(map(_simplified, unicodedata.normalize("NFKC", text).lower()))


def found(query: str, *fields: str) -> bool:
    """Whether a team with these fields (id, name, unit, players …) is what `query` looks
    for: every word of it in one of the fields."""
    text = folded(" ".join(fields))
    return all(part in text for part in folded(query).split())


@functools.cache
def _traditional() -> dict[str, tuple[str, ...]]:
    """Each simplified character and the traditional ones that fold to it (发: 發 髮)."""
    out: dict[str, list[str]] = {}
    for block in _CJK:
        for code in block:
            char = chr(code)
            simple = _simplified(char)
            if simple != char:
                out.setdefault(simple, []).append(char)
    return {simple: tuple(chars) for simple, chars in out.items()}


def traditional_of(texts: Iterable[str]) -> dict[str, str]:
    """The characters a phone must fold for a search among `texts` (already `folded`): each
    traditional character whose simplified form is in them, mapped to it. A typed character
    not in the map cannot be in any of the texts in another script."""
    table = _traditional()
    present = {char for text in texts for char in text}
    return {old: new for new in sorted(present & table.keys()) for old in table[new]}


def warm() -> None:
    """Load the table now (0.3–0.7 s), not on a phone's first search (`app.lifespan`)."""
    _traditional()
