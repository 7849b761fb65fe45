"""`kiosk demo`: the scorer and eight simulated tables playing a Swiss event on this machine."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    demo = commands.add_parser("demo", help="run a demo event: the scorer, its hall page and "
                                            "eight simulated tables")
    demo.add_argument("--data", default=".demo-data", metavar="DIR",
                      help="where the demo keeps its data (default .demo-data)")
    demo.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8080),
                      help="the hall page's port (default $PORT or 8080)")
    demo.add_argument("--speed", type=float, default=60.0,
                      help="how much faster than real time the tables play (default 60)")
    demo.add_argument("--fresh", action="store_true",
                      help="start a new event (default: continue the one in --data)")
    add_lang(demo)
    demo.set_defaults(run=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from ..demo import run_demo
    from .main import load_rulesets

    return run_demo(Path(args.data), args.port, args.speed, args.fresh, load_rulesets(args),
                    args.lang)
