"""`kiosk replay FILE|-`: recompute a match record (docs/rules.md §9) and print one JSON object per
hand, or a score sheet. A bad record prints the lines before the problem, then the problem on
stderr in the chosen language (naming the hand and the field), and exits 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..i18n import explain, translator
from .words import about, say


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    parser = commands.add_parser("replay", **about("cli.replay"))
    parser.add_argument("file", help=say("cli.replay.file"))
    parser.add_argument("--format", choices=("json", "sheet"), default="json",
                        help=say("cli.replay.format"))
    add_lang(parser)
    parser.set_defaults(run=run)


def read_record(name: str) -> Any:
    """The parsed record in file `name` (- for stdin). Raises RecordError when it cannot be read
    or is not JSON."""
    from ..rules import RecordError

    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        from ..errors import file_reason

        raise RecordError("record", "", f"cannot read {name}: {exc}").explained(
            "replay.cannot_read", name=name, reason=file_reason(exc)) from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, a number too long, nesting
        error = RecordError("record", "", f"not JSON: {exc}")
        if isinstance(exc, json.JSONDecodeError):
            raise error.explained("replay.not_json_at", line=exc.lineno, column=exc.colno
                                  ) from None
        raise error.explained("replay.not_json") from None


def run(args: argparse.Namespace) -> int:
    from ..rules import RecordError, RulesError, replay
    from .main import EXIT_USAGE, load_rulesets

    try:
        rulesets = load_rulesets(args)
        record = read_record(args.file)
    except RulesError as exc:
        print(failed(exc, args.lang), file=sys.stderr)
        return EXIT_USAGE
    lines: list[dict[str, Any]] = []
    error: RecordError | None = None
    try:
        for line in replay(record, rulesets):
            if args.format == "json":
                print(json.dumps(line, ensure_ascii=False))
            lines.append(line)
    except RecordError as exc:
        error = exc
    record_ok = error is None or error.where != "record"  # a sheet needs a readable record
    if args.format == "sheet" and record_ok:
        from ..words.sheet import score_sheet

        ruleset = rulesets[record["ruleset"]]
        print(score_sheet(record, ruleset, lines, args.lang,
                          explain(error, args.lang) if error else None), end="")
    if error is not None:
        print(failed(error, args.lang), file=sys.stderr)
        return EXIT_USAGE
    return 0


def failed(error: Exception, lang: str) -> str:
    """`kiosk replay：…`, as every command says what stopped it."""
    return translator(lang)("terminal.failed", command="replay", message=explain(error, lang))
