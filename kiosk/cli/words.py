"""The `kiosk` command's own words: its --help and argparse's messages (usage, headings, a
wrong or missing argument), in 简体中文 unless $KIOSK_LANG names another of the catalogs'
languages. $KIOSK_LANG is also the default of a command's --lang (its output and its errors),
so one setting chooses both; a --lang given wins for the command's output.

The words are the `cli.*` keys of `kiosk/i18n/<lang>/cli.toml`. This module reads that one file,
once, when the first parser is built: `kiosk --help` reads no other catalog and imports no rules
core."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import sys
from collections.abc import Iterator
from typing import Any

from ..i18n import DEFAULT_LANG, LANGS

LANG_ENV = "KIOSK_LANG"

# argparse's fixed strings (Python 3.11's msgids, looked up through argparse's `_`) that a
# person meets, and their catalog keys. Others (a programming mistake in a parser) stay as they
# are.
ARGPARSE_KEYS = {
    "usage: ": "cli.argparse.usage",
    "positional arguments": "cli.argparse.positionals",
    "options": "cli.argparse.options",
    "show this help message and exit": "cli.argparse.help",
    "%(prog)s: error: %(message)s\n": "cli.argparse.error",
    "argument %(argument_name)s: %(message)s": "cli.argparse.argument",
    "invalid choice: %(value)r (choose from %(choices)s)": "cli.argparse.invalid_choice",
    "invalid %(type)s value: %(value)r": "cli.argparse.invalid_value",
    "the following arguments are required: %s": "cli.argparse.required",
    "unrecognized arguments: %s": "cli.argparse.unrecognized",
    "expected one argument": "cli.argparse.expected_one",
    "expected at most one argument": "cli.argparse.expected_at_most_one",
    "expected at least one argument": "cli.argparse.expected_at_least_one",
    "ambiguous option: %(option)s could match %(matches)s": "cli.argparse.ambiguous",
    "not allowed with argument %s": "cli.argparse.not_allowed_with",
    "ignored explicit argument %r": "cli.argparse.ignored_explicit",
}


def cli_lang() -> str:
    """The language of the command's own words: $KIOSK_LANG if the catalogs speak it."""
    lang = os.environ.get(LANG_ENV, "")
    return lang if lang in LANGS else DEFAULT_LANG


@functools.cache
def _words(lang: str) -> dict[str, str]:
    import tomllib  # (a few milliseconds; the rules core stays unimported)

    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "i18n", lang, "cli.toml")
    with open(path, "rb") as file:
        return tomllib.load(file)


def say(key: str, **values: object) -> str:
    """The words `key` in the CLI language, with `values` filled in."""
    text = _words(cli_lang())[key]
    return text.format(**values) if values else text


def about(key: str) -> dict[str, Any]:
    """A subcommand's line in its parent's list and the heading of its own --help (the keywords
    of `add_parser`)."""
    return {"help": say(key), "description": say(key), "formatter_class": HelpFormatter}


class HelpFormatter(argparse.HelpFormatter):
    """argparse's layout, with help wrapped by its width on a terminal, where a Chinese
    character takes two columns: between Chinese characters or at spaces, never inside a
    path, an option or a word (argparse's own wrapping counts characters and breaks at
    hyphens, which cuts `/dev/kiosk-printer` in two)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        # argparse would ask shutil for the width, and importing shutil (with its compression
        # modules) costs every command ~2 ms: a parser makes a formatter for each argument it
        # adds, help printed or not.
        if width is None:
            width = terminal_columns() - 2  # argparse's margin
        super().__init__(prog, indent_increment, max_help_position, width)
        self._headings: list[str] = []

    def start_section(self, heading: str | None) -> None:
        super().start_section(heading)
        if heading:
            self._headings.append(heading)

    def format_help(self) -> str:
        # argparse ends each heading with an ASCII colon; Chinese puts its own full-width one.
        text = super().format_help()
        for heading in self._headings:
            said = say("cli.heading", heading=heading)
            text = re.sub(rf"^(\s*){re.escape(heading)}:$", rf"\g<1>{_literal(said)}", text,
                          flags=re.MULTILINE)
        return text

    def _split_lines(self, text: str, width: int) -> list[str]:
        return _wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in _wrap(text, width - len(indent)))


def _literal(text: str) -> str:
    """`text` as a regular expression's replacement that means just itself."""
    return text.replace("\\", "\\\\")


def terminal_columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it: $COLUMNS, else standard
    output's terminal, else 80."""
    with contextlib.suppress(KeyError, ValueError):
        if (columns := int(os.environ["COLUMNS"])) > 0:
            return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no standard output, or not a terminal
        return 80


# One wide character, a run of other visible characters, or spaces. A pattern, not compiled
# here: its Unicode ranges take milliseconds to compile, and only a printed help needs them.
_PIECES = (r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|[^\s\u2e80-\u9fff"
           r"\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+|\s+")
_NO_LINE_STARTS_WITH = set("，。、；：！？）」』”’》")


def _wrap(text: str, width: int) -> list[str]:
    import unicodedata  # (only when help is printed)

    def columns(piece: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in piece)

    lines: list[str] = []
    line, used = "", 0
    for piece in re.findall(_PIECES, " ".join(text.split())):
        size = columns(piece)
        if piece.isspace():
            if line:
                line, used = line + " ", used + 1
        elif used + size <= width or not line.strip() or piece in _NO_LINE_STARTS_WITH:
            line, used = line + piece, used + size
        else:
            lines.append(line.rstrip())
            line, used = piece, size
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _argparse_text(message: str) -> str:
    key = ARGPARSE_KEYS.get(message)
    return say(key) if key else message


@contextlib.contextmanager
def argparse_words() -> Iterator[None]:
    """argparse speaks the CLI language while the block runs (it looks its words up through
    its module's gettext `_` when it builds a parser, prints help or reports a mistake)."""
    # (`_` is argparse's own, not part of its typed interface)
    before = argparse._  # type: ignore[attr-defined]
    argparse._ = _argparse_text  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._ = before  # type: ignore[attr-defined]
