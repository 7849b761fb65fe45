"""`kiosk hw check` (the pin map against the boot config) and `kiosk slip` (the score slip)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import CommandError


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    hw = commands.add_parser("hw", help="check the kiosk's hardware configuration")
    sub = hw.add_subparsers(dest="hw_command", required=True, metavar="ACTION")
    check = sub.add_parser("check", help="check a pin map against a boot config")
    check.add_argument("--pinmap", metavar="FILE",
                       help="the pin map (default: $KIOSK_PINMAP, else the one shipped)")
    check.add_argument("--boot-config", metavar="FILE",
                       help="config.txt (default: /boot/firmware/config.txt on a Pi, else "
                            "firmware_config/config.txt as shipped)")
    check.set_defaults(run=run_check)

    slip = commands.add_parser("slip", help="produce a match's score slip")
    slip.add_argument("--data", required=True, metavar="DIR")
    slip.add_argument("--table", required=True, type=int, metavar="N")
    slip.add_argument("--round", metavar="R", help="the match (default: the latest)")
    slip.add_argument("--format", choices=("text", "escpos"), default="text")
    slip.add_argument("--width", type=int, choices=(58, 80), default=58,
                      help="paper width in mm (default 58)")
    slip.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    add_lang(slip)
    slip.set_defaults(run=run_slip)


class HardwareError(CommandError):
    """A hardware configuration is refused."""


def run_check(args: argparse.Namespace) -> int:
    from ..hw.pinmap import PinMapError, check, default_boot_config, load_pinmap

    try:
        pinmap = load_pinmap(args.pinmap)
    except PinMapError as exc:
        raise HardwareError(str(exc)) from None
    if args.boot_config:
        try:
            source, text = args.boot_config, Path(args.boot_config).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise HardwareError(f"{args.boot_config}: cannot read: {exc}") from None
    else:
        source, text = default_boot_config()
    try:
        problems = check(pinmap, text, source)
    except PinMapError as exc:
        raise HardwareError(f"{source}: {exc}") from None
    for problem in problems:
        print(f"kiosk hw check: {pinmap.source}: {problem}", file=sys.stderr)
    if problems:
        return 2
    print(f"{pinmap.source}: {len(pinmap.pins)} parts on {len(set(pinmap.pins.values()))} "
          f"pins, none claimed by {source}")
    return 0


def run_slip(args: argparse.Namespace) -> int:
    from ..hw.slip import as_escpos, as_text, slip_lines
    from ..rules import replay
    from .table_cmd import open_match

    state, _ = open_match(args)
    record = state.export()
    lines = list(replay(record, state.rulesets))
    slip = slip_lines(record, state.ruleset, lines, args.width, args.lang)
    data = as_escpos(slip) if args.format == "escpos" else as_text(slip, args.width).encode()
    if args.out:
        Path(args.out).write_bytes(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
