"""`kiosk`: one command with subcommands. Errors a person can fix print one line and exit 2."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..i18n import LANGS
from .words import HelpFormatter, argparse_words, cli_lang, say

if TYPE_CHECKING:
    from ..rules import Rulesets

# The module that adds each command, in the order `kiosk --help` lists them. A run builds only
# the parser of the command it was given (every one for --help or a mistake): a start pays for
# one command's arguments and imports, not for all of them.
COMMANDS = {"rules": "rules_cmd", "replay": "replay_cmd", "journal": "table_cmd",
            "simulate": "table_cmd", "pair": "table_cmd", "hw": "hw_cmd", "slip": "hw_cmd",
            "table": "ui_cmd", "scorer": "scorer_cmd", "demo": "demo_cmd", "fleet": "fleet_cmd"}
RULES_DIR_ENV = "KIOSK_RULES_DIR"
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # as a shell reports a command ended by Ctrl-C (128 + SIGINT)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of `command`'s module (with its sibling commands), or of every command."""
    parser = argparse.ArgumentParser(prog="kiosk", description=say("cli.kiosk"),
                                     formatter_class=HelpFormatter)
    parser.add_argument("--rules-dir", action="append", default=[], metavar="DIR",
                        help=say("cli.rules_dir", env=RULES_DIR_ENV, sep=os.pathsep))
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = [COMMANDS[command]] if command in COMMANDS else dict.fromkeys(COMMANDS.values())
    for module in modules:
        importlib.import_module(f".{module}", __package__).add_parsers(commands, add_lang)
    return parser


def command_of(argv: Sequence[str]) -> str | None:
    """The command word of `argv`, past the options that come before it."""
    words = iter(argv)
    for word in words:
        if word == "--rules-dir":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def add_lang(parser: argparse.ArgumentParser) -> None:
    """--lang: the language of the command's output and errors; $KIOSK_LANG (which also
    chooses --help's) by default, else 简体中文."""
    parser.add_argument("--lang", choices=LANGS, default=cli_lang(),
                        help=say("cli.lang", default=cli_lang()))


def load_rulesets(args: argparse.Namespace) -> Rulesets:
    """Built-in rulesets plus the house rulesets of --rules-dir and $KIOSK_RULES_DIR."""
    from ..rules import Rulesets

    from_env = [d for d in os.environ.get(RULES_DIR_ENV, "").split(os.pathsep) if d]
    return Rulesets.load([*from_env, *args.rules_dir])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in `argv`; None: the `kiosk` program's own arguments, and the process
    ends when the command is done."""
    as_program = argv is None
    argv = sys.argv[1:] if argv is None else argv
    with argparse_words():  # --help and a mistake in the command line, in the CLI language
        args = build_parser(command_of(argv)).parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:  # e.g. `kiosk replay … | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback (journals keep what was done)
        from ..i18n import translator

        t = translator(getattr(args, "lang", None) or cli_lang())
        print(t("terminal.failed", command=args.command, message=t("terminal.interrupted")),
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if not isinstance(exc, _errors_a_person_can_fix()):
            raise  # a traceback is a bug
        print(_said(exc, args), file=sys.stderr)
        return EXIT_USAGE
    finally:
        if as_program:
            # The process ends next: the interpreter's last garbage collections need not
            # sweep every imported module's objects (a tenth of a short command's time, ~6 ms
            # of `kiosk replay`). Nothing is lost: the memory goes back with the process, and
            # what a command writes it closes itself (the journal survives even a power cut).
            gc.freeze()


def _said(error: Exception, args: argparse.Namespace) -> str:
    """`error` as the person who ran the command reads it: its catalog words in the command's
    --lang (else the CLI's language), as `kiosk rules` says a broken ruleset. (An error with
    no catalog key gets the catalog's generic words, never its developer text.)"""
    from ..i18n import explain, translator

    lang = getattr(args, "lang", None) or cli_lang()
    return translator(lang)("terminal.failed", command=args.command,
                            message=explain(error, lang))


def _errors_a_person_can_fix() -> type[Exception]:
    # Imported here, not at the top: `kiosk --help` needs nothing else (kiosk.errors is small).
    from ..errors import KioskError

    return KioskError


if __name__ == "__main__":
    sys.exit(main())
