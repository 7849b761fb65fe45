"""The words a team's name is made of (kiosk/words/data/name_words.txt): the pinyin keyboard
offers them first, and the wrap of a printed line keeps each whole."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def name_words() -> tuple[tuple[str, str], ...]:
    """(word, its syllables run together), in the file's order."""
    text = resources.files(__package__).joinpath("data/name_words.txt").read_text(
        encoding="utf-8")
    rows = (line.split() for line in text.splitlines()
            if line.strip() and not line.startswith("#"))
    return tuple((word, "".join(syllables)) for word, *syllables in rows)
