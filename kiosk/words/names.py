"""The words a team's name is made of (kiosk/words/data/name_words.txt): the pinyin keyboard
offers them first, and the wrap of a printed line keeps each whole; and the words of the
kiosk's own sentences (data/ui_words.txt), which the wrap keeps whole too."""

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


@functools.cache
def ui_words() -> tuple[str, ...]:
    """The words of the kiosk's and the slip's sentences a line never breaks inside."""
    text = resources.files(__package__).joinpath("data/ui_words.txt").read_text(
        encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines()
                 if line.strip() and not line.startswith("#"))
