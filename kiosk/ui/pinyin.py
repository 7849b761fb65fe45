"""Chinese names typed in pinyin on the table's screen: the letters typed so far, and the words
and characters they may spell, most likely first.

The dictionaries are pypinyin's (a kept package, pinned in deploy/constraints.txt): its
character readings and its phrase list, read the other way round, pinyin to characters. The
characters are GB 2312's 6,763 (the national standard's set for everyday text, which the
kiosk's font draws): its 3,755 of level 1, the common ones, come before those of level 2, and
within a level a character ranks by how many of pypinyin's phrases use it; a character whose
usual reading is another comes after those it is the usual reading of. A phrase that spells
all the letters typed comes before the characters of the first syllable. No Kivy here.
A team's name is mostly places and a unit's words, which that phrase list mostly lacks (集美,
海沧, 福州, 代表队): the kiosk's own short list of them (`kiosk.words.names`) comes first among
the phrases of the same letters.

The index is built once, on a thread of its own, when a keyboard opens (`warm`): a few
seconds on a busy 2-core machine; a letter typed before then waits for it.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass
from importlib import resources

from pypinyin.contrib.tone_convert import to_normal

from ..words.names import name_words

#: The longest syllable (zhuang, shuang).
LONGEST = 6
SEPARATOR = "'"


@dataclass(frozen=True)
class Candidate:
    """Words or a character the letters may spell: `text`, and how many of the letters typed
    it takes (its syllables)."""

    text: str
    takes: int


def level(ch: str) -> int:
    """GB 2312's level of a character: 1 (common), 2, or 0 (not in GB 2312)."""
    try:
        code = ch.encode("gb2312")
    except UnicodeEncodeError:
        return 0
    return 1 if 0xB0 <= code[0] <= 0xD7 else 2 if 0xD8 <= code[0] <= 0xF7 else 0


class _Index:
    def __init__(self) -> None:
        data = resources.files("pypinyin")
        readings: dict[str, str] = json.loads(data.joinpath("pinyin_dict.json").read_text(
            encoding="utf-8"))
        phrases: dict[str, list[list[str]]] = json.loads(data.joinpath(
            "phrases_dict.json").read_text(encoding="utf-8"))
        use = Counter(ch for phrase in phrases for ch in phrase)
        chars: dict[str, dict[str, int]] = defaultdict(dict)  # syllable: {char: which reading}
        for code, said in readings.items():
            if level(chr(int(code))):
                for i, reading in enumerate(said.split(",")):
                    chars[to_normal(reading)].setdefault(chr(int(code)), i)
        self.syllables = frozenset(chars)
        # (a character's first reading is its usual one: 方 reads wang only in old texts)
        self.chars = {s: sorted(found, key=lambda c: (found[c] > 0, level(c), -use[c], c))
                      for s, found in chars.items()}
        words: dict[str, list[str]] = defaultdict(list)
        for phrase, spoken in phrases.items():
            if 2 <= len(phrase) <= 4 and all(level(c) for c in phrase):
                words["".join(to_normal(r[0]) for r in spoken)].append(phrase)
        self.words = {k: sorted(v, key=lambda p: (max(level(c) for c in p),
                                                  -sum(use[c] for c in p), p))
                      for k, v in words.items()}
        for word, said_as in reversed(name_words()):
            self.words.setdefault(said_as, []).insert(0, word)


_index: _Index | None = None
_ready = threading.Event()
_lock = threading.Lock()


def warm() -> None:
    """Build the index on a thread of its own, once (a keyboard is about to be used)."""
    with _lock:
        if _index is not None or getattr(warm, "started", False):
            return
        warm.started = True  # type: ignore[attr-defined]
    threading.Thread(target=_build, name="pinyin-index", daemon=True).start()


def _build() -> None:
    global _index
    _index = _Index()
    _ready.set()


def index() -> _Index:
    warm()
    _ready.wait()
    assert _index is not None
    return _index


def first_syllable(letters: str) -> str:
    """The longest syllable the letters begin with ("" if they begin with none)."""
    syllables = index().syllables
    for n in range(min(LONGEST, len(letters)), 0, -1):
        if letters[:n] in syllables:
            return letters[:n]
    return ""


def candidates(letters: str) -> tuple[Candidate, ...]:
    """What `letters` (lower-case pinyin without tones; ' between syllables where need be)
    may spell: phrases of all of them first, then the characters of the first syllable."""
    letters = letters.lower()
    if not letters:
        return ()
    ix = index()
    out = [Candidate(word, len(letters)) for word in
           ix.words.get(letters.replace(SEPARATOR, ""), ())]
    syllable = first_syllable(letters.lstrip(SEPARATOR))
    if syllable:
        takes = len(syllable) + len(letters) - len(letters.lstrip(SEPARATOR))
        if letters[takes:takes + 1] == SEPARATOR:
            takes += 1
        out += [Candidate(ch, takes) for ch in ix.chars[syllable]]
    else:  # the start of a syllable ("zh", "to"): the characters of every syllable it begins
        begun = sorted(s for s in ix.syllables if s.startswith(letters))
        ranked = sorted({ch: i for s in begun for i, ch in enumerate(ix.chars[s])}.items(),
                        key=lambda item: (item[1], item[0]))
        out += [Candidate(ch, len(letters)) for ch, _ in ranked]
    return tuple(out)
