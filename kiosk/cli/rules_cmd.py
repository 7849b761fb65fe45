"""`kiosk rules list` and `kiosk rules show ID`. A broken house ruleset or an unknown id is
said in the chosen language, and the command exits 2 (`kiosk.cli.main`, as for every command
that loads the rulesets)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .words import about, say


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    rules = commands.add_parser("rules", **about("cli.rules"))
    sub = rules.add_subparsers(dest="rules_command", required=True, metavar="ACTION")
    listing = sub.add_parser("list", **about("cli.rules.list"))
    add_lang(listing)
    listing.set_defaults(run=run_list)
    show = sub.add_parser("show", **about("cli.rules.show"))
    show.add_argument("id", help=say("cli.rules.show.id"))
    add_lang(show)
    show.set_defaults(run=run_show)


def run_list(args: argparse.Namespace) -> int:
    from ..words.ruleset import list_rulesets
    from .main import load_rulesets

    print(list_rulesets(load_rulesets(args), args.lang))
    return 0


def run_show(args: argparse.Namespace) -> int:
    from ..words.ruleset import show_ruleset
    from .main import load_rulesets

    print(show_ruleset(load_rulesets(args).require(args.id), args.lang), end="")
    return 0
