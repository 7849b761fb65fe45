"""`kiosk hw check` (the pin map against the boot config) and `kiosk slip` (the score slip)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import CommandError
from .words import about, say


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    hw = commands.add_parser("hw", **about("cli.hw"))
    sub = hw.add_subparsers(dest="hw_command", required=True, metavar="ACTION")
    check = sub.add_parser("check", **about("cli.hw.check"))
    check.add_argument("--pinmap", metavar="FILE",
                       help=say("cli.hw.check.pinmap"))
    check.add_argument("--boot-config", metavar="FILE",
                       help=say("cli.hw.check.boot_config"))
    add_lang(check)
    check.set_defaults(run=run_check)

    selftest = sub.add_parser("selftest", **about("cli.hw.selftest"))
    selftest.add_argument("--pinmap", metavar="FILE", help=say("cli.table.pinmap"))
    selftest.add_argument("--printer", metavar="URL", help=say("cli.hw.selftest.printer"))
    selftest.add_argument("--printer-baud", type=int, metavar="N",
                          help=say("cli.hw.selftest.printer_baud"))
    selftest.add_argument("--press-timeout", type=float, default=20.0, metavar="S",
                          help=say("cli.hw.selftest.press_timeout"))
    selftest.add_argument("--no-window", action="store_true",
                          help=say("cli.hw.selftest.no_window"))
    add_lang(selftest)
    selftest.set_defaults(run=run_selftest)

    slip = commands.add_parser("slip", **about("cli.slip"))
    slip.add_argument("--data", required=True, metavar="DIR", help=say("cli.kiosk_data"))
    slip.add_argument("--table", required=True, type=int, metavar="N",
                      help=say("cli.table_number"))
    slip.add_argument("--round", metavar="R", help=say("cli.round"))
    slip.add_argument("--format", choices=("text", "escpos"), default="text",
                      help=say("cli.slip.format"))
    slip.add_argument("--width", type=int, choices=(58, 80), default=58,
                      help=say("cli.slip.width"))
    slip.add_argument("--out", metavar="FILE", help=say("cli.slip.out"))
    add_lang(slip)
    slip.set_defaults(run=run_slip)


class HardwareError(CommandError):
    """A hardware configuration is refused."""


def run_check(args: argparse.Namespace) -> int:
    """Each problem on its own line (stderr, exit 2), else one line saying the map fits."""
    from ..errors import file_reason
    from ..hw.pinmap import check, default_boot_config, load_pinmap, source_words
    from ..i18n import render
    from ..rules.errors import words

    pinmap = load_pinmap(args.pinmap)  # (a PinMapError is said by `kiosk.cli.main`)
    if args.boot_config:
        try:
            source, text = args.boot_config, Path(args.boot_config).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise HardwareError(f"{args.boot_config}: cannot read: {exc}").explained(
                "pinmap.boot_unreadable", path=args.boot_config, reason=file_reason(exc)
            ) from None
    else:
        source, text = default_boot_config()
    problems = check(pinmap, text, source)
    where = source_words(pinmap.source)
    for problem in problems:
        print(render("terminal.failed", {"command": "hw check", "message": words(
            "pinmap.in_file", source=where, problem=problem)}, args.lang), file=sys.stderr)
    if problems:
        return 2
    print(render("pinmap.fits", {"source": where, "parts": len(pinmap.pins),
                                 "pins": len(set(pinmap.pins.values())), "config": source},
                 args.lang))
    return 0


def run_slip(args: argparse.Namespace) -> int:
    from ..hw.slip import as_escpos, as_text, slip_lines
    from ..rules import replay
    from .table_cmd import open_match

    state, _ = open_match(args)
    record = state.export()
    lines = list(replay(record, state.rulesets))
    slip = slip_lines(record, state.ruleset, lines, args.width, args.lang, state.corrected(),
                      time.strftime("%Y-%m-%d %H:%M"), state.finishes,
                      state.dropped_at_time_up())
    data = as_escpos(slip) if args.format == "escpos" else as_text(slip, args.width).encode()
    if args.out:
        try:
            Path(args.out).write_bytes(data)
        except OSError as exc:
            from ..errors import file_reason

            raise HardwareError(str(exc)).explained(
                "terminal.file.problem", path=args.out, reason=file_reason(exc)) from None
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def run_selftest(args: argparse.Namespace) -> int:
    """Every step on its own line as it happens; the last line counts the failures. Exits 1
    when a part failed."""
    import os
    import shlex

    from ..errors import GpioError, PinMapError
    from ..hw import selftest
    from ..hw.panel import board_model, default_pin_factory
    from ..hw.pinmap import load_pinmap
    from ..i18n import explain, render, translator

    t = translator(args.lang)
    marks = {"ok": "✓", "fail": "✗", "skip": "–", "info": "·", "look": "?"}

    words = {"part": "fleet.part.{}", "other": "fleet.part.{}", "outcome": "fleet.printer.{}",
             "reason": "fleet.printer.{}", "what": "fleet.selftest.what.{}"}

    def report(step: selftest.Step) -> None:
        params = {k: t(words[k].format(v)) if k in words else v for k, v in step.params.items()}
        if params.get("factory") == "MockFactory":  # (a library's class name: say what it is)
            params["factory"] = t("pinmap.gpio.mock")
        print(f"{marks[step.outcome]} {t(step.key, **params)}", flush=True)

    extra = shlex.split(os.environ.get("KIOSK_EXTRA_ARGS", ""))
    printer = args.printer or _option(extra, "--printer")
    baud = args.printer_baud or int(_option(extra, "--printer-baud") or 9600)
    steps = list(selftest.run(selftest.system_steps(), report))
    try:
        pinmap = load_pinmap(args.pinmap)
        factory = default_pin_factory()
        from gpiozero.pins.mock import MockFactory

        if factory is None and os.environ.get("GPIOZERO_PIN_FACTORY") == "mock":
            factory = MockFactory()  # asked for by name: the test drives it itself
        mock = isinstance(factory, MockFactory)
        panel = selftest.PanelTest(pinmap, factory, mock, args.press_timeout)
        steps += selftest.run(panel.steps(), report)
    except (GpioError, PinMapError) as exc:
        # (the kiosk's own words for it end "run kiosk hw selftest": not said inside it)
        detail = render("fleet.selftest.gpio_cannot_open", exc.params, args.lang) \
            if exc.key == "fleet.gpio.cannot_open" else explain(exc, args.lang)
        steps += selftest.run(iter([selftest.Step("fleet.selftest.gpio_failed", "fail",
                                                  {"detail": detail})]), report)
    slip = selftest.test_slip(t("fleet.selftest.slip_title"), t("fleet.selftest.slip_line"))
    steps += selftest.run(iter([selftest.printer_step(printer, baud, slip)]), report)
    on_pi = "Raspberry Pi" in (board_model() or "")
    steps += selftest.run(selftest.display_steps(on_pi), report)
    if not args.no_window:
        steps += selftest.run(selftest.window_step(on_pi), report)
    failed = sum(step.outcome == "fail" for step in steps)
    looks = sum(step.outcome == "look" for step in steps)
    print(t("fleet.selftest.summary", failed=failed, look=looks), flush=True)
    return 1 if failed else 0


def _option(words: list[str], name: str) -> str | None:
    return words[words.index(name) + 1] if name in words[:-1] else None
