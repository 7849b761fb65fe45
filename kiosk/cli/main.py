"""`kiosk`: one command with subcommands. Errors a person can fix print one line and exit 2."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..i18n import DEFAULT_LANG, LANGS

if TYPE_CHECKING:
    from ..rules import Rulesets

from . import demo_cmd, fleet_cmd, hw_cmd, replay_cmd, rules_cmd, scorer_cmd, table_cmd, ui_cmd

RULES_DIR_ENV = "KIOSK_RULES_DIR"
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kiosk", description="80分 tournament table kiosk and scorer")
    parser.add_argument(
        "--rules-dir", action="append", default=[], metavar="DIR",
        help=f"add the house rulesets (*.toml) in DIR; may be repeated; also read from "
             f"${RULES_DIR_ENV} (directories separated by '{os.pathsep}')")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    rules_cmd.add_parser(commands, add_lang)
    replay_cmd.add_parser(commands, add_lang)
    table_cmd.add_parsers(commands, add_lang)
    hw_cmd.add_parsers(commands, add_lang)
    ui_cmd.add_parsers(commands, add_lang)
    scorer_cmd.add_parsers(commands, add_lang)
    demo_cmd.add_parsers(commands, add_lang)
    fleet_cmd.add_parsers(commands, add_lang)
    return parser


def add_lang(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", choices=LANGS, default=DEFAULT_LANG,
                        help=f"language of the output (default {DEFAULT_LANG})")


def load_rulesets(args: argparse.Namespace) -> Rulesets:
    """Built-in rulesets plus the house rulesets of --rules-dir and $KIOSK_RULES_DIR."""
    from ..rules import Rulesets

    from_env = [d for d in os.environ.get(RULES_DIR_ENV, "").split(os.pathsep) if d]
    return Rulesets.load([*from_env, *args.rules_dir])


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:  # e.g. `kiosk replay … | head`
        sys.stderr.close()
        return 0
    except Exception as exc:
        if not isinstance(exc, _errors_a_person_can_fix()):
            raise  # a traceback is a bug
        print(f"kiosk {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _errors_a_person_can_fix() -> tuple[type[Exception], ...]:
    # Imported here, not at the top: `kiosk --help` needs no rules core, `kiosk replay` and
    # `kiosk rules` no SQLite.
    from ..rules import RulesError
    from ..table.journal import JournalError
    from ..table.state import SessionError
    from .errors import CommandError

    return RulesError, SessionError, JournalError, CommandError


if __name__ == "__main__":
    sys.exit(main())
