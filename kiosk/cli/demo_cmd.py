"""`kiosk demo`: the scorer and eight simulated tables playing a Swiss event on this machine."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .words import about, say


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    demo = commands.add_parser("demo", **about("cli.demo"))
    demo.add_argument("--data", default=".demo-data", metavar="DIR",
                      help=say("cli.demo.data"))
    demo.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8080),
                      help=say("cli.demo.port"))
    demo.add_argument("--speed", type=float, default=60.0,
                      help=say("cli.demo.speed"))
    demo.add_argument("--fresh", action="store_true",
                      help=say("cli.demo.fresh"))
    add_lang(demo)
    demo.set_defaults(run=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from ..errors import CommandError, file_reason
    from ..sim.demo import run_demo
    from .main import load_rulesets
    from .table_cmd import check_speed

    check_speed(args.speed)

    try:  # (the demo keeps its scorer and its tables there)
        Path(args.data).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(str(exc)).explained("terminal.file.problem", path=args.data,
                                               reason=file_reason(exc)) from None

    return run_demo(Path(args.data), args.port, args.speed, args.fresh, load_rulesets(args),
                    args.lang)
