"""`kiosk table`: the touchscreen kiosk for one table."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import CommandError
from .words import about, say

EXIT_NO_GPIO = 3  # the unit's journal shows why; systemd starts it again (Restart=always)


class TableUIError(CommandError):
    """The kiosk cannot start (a bad size, no font)."""


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    table = commands.add_parser("table", **about("cli.table"))
    table.add_argument("--data", metavar="DIR", help=say("cli.table.data"))
    table.add_argument("--table", type=int, default=1, metavar="N",
                       help=say("cli.table_number"))
    table.add_argument("--size", metavar="WxH", help=say("cli.table.size"))
    table.add_argument("--pin", default=os.environ.get("KIOSK_PIN", "0000"),
                       help=say("cli.table.pin"))
    table.add_argument("--pinmap", metavar="FILE", help=say("cli.table.pinmap"))
    table.add_argument("--printer", metavar="URL", help=say("cli.table.printer"))
    table.add_argument("--printer-baud", type=int, default=9600, metavar="N",
                       help=say("cli.table.printer_baud"))
    table.add_argument("--scorer", metavar="URL",
                       help=say("cli.table.scorer"))
    table.add_argument("--pair", metavar="CODE", help=say("cli.table.pair"))
    table.add_argument("--screenshots", metavar="DIR",
                       help=say("cli.table.screenshots"))
    add_lang(table)
    table.set_defaults(run=run_table)


def run_table(args: argparse.Namespace) -> int:
    size = _size(args.size)
    if args.data is None and args.screenshots is None:
        raise TableUIError("give --data DIR (or --screenshots DIR)").explained(
            "terminal.table.no_data")
    from .. import ui  # sets Kivy's environment before Kivy itself is imported

    Config = ui.kivy_config()

    from ..hw.panel import board_model

    for key, value in window_config(size, board_model()).items():
        Config.set("graphics", key, value)
    ui.open_window()
    import tempfile

    from ..errors import FontError, GpioError, PinMapError
    from ..hw.door import Door
    from ..hw.panel import Panel, default_pin_factory
    from ..hw.pinmap import load_pinmap
    from ..hw.printer import PrintQueue, SlipPrinter
    from ..hw.runner import TableRunner
    from ..table.clock import ManualClock, SystemClock
    from ..table.session import SessionConfig, TableSession
    from ..ui.app import KioskApp
    from .main import load_rulesets

    data = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="kiosk-shots-"))
    try:
        pins = load_pinmap(args.pinmap)
    except PinMapError as exc:
        raise TableUIError(str(exc)).explained(exc.key or "", **exc.params) from None
    # the scripted match runs on the script's time (kiosk.ui.script.STEP), not the machine's
    clock: Any = ManualClock(wall=time.time()) if args.screenshots else SystemClock()
    door = Door()
    rulesets = load_rulesets(args)
    outbox = _outbox(args, data, rulesets)  # before the session: a replacement downloads
    session = TableSession.open(data, args.table, rulesets, clock, SessionConfig(pin=args.pin))
    try:
        if args.screenshots:
            from gpiozero.pins.mock import MockFactory

            factory: Any = MockFactory()
        else:
            factory = default_pin_factory()
        panel = Panel(pins, door, clock, pin_factory=factory)
    except GpioError as exc:  # loud, in the technician's words: never a kiosk without buttons
        from ..i18n import explain, translator

        session.close()
        print(translator(args.lang)("terminal.failed", command="table",
                                    message=explain(exc, args.lang)), file=sys.stderr)
        return EXIT_NO_GPIO
    printer = (PrintQueue(SlipPrinter(args.printer, args.printer_baud), data / "slips", door)
               if args.printer else None)
    runner = TableRunner(session, door, panel, printer=printer, lang=args.lang)
    app = KioskApp(runner, lang=args.lang)
    if args.screenshots:
        from ..ui.script import run_script

        run_script(app, factory, pins, Path(args.screenshots), clock=clock)
    runner.start()
    if outbox is not None:
        from ..sync.wiring import connect

        connect(outbox, door, clock)
        outbox.start(idle=0.5)
    try:
        app.run()
    except FontError as exc:
        raise TableUIError(str(exc)).explained("terminal.table.no_font") from None
    finally:
        if outbox is not None:
            outbox.stop()
        runner.stop()
        panel.close()
        if printer:
            printer.close()
        session.close()
    return 0


def _outbox(args: argparse.Namespace, data: Path, rulesets: Any) -> Any:
    """The table's outbox to the scorer, if it is to sync: --scorer/--pair, paired before, or
    a pairing code left by the card's first boot (kiosk.toml). That code is used as soon as
    the scorer answers: now, before the session (a replacement kiosk downloads), or else
    from the outbox's thread, tried again with its backoff while the table plays offline."""
    from ..errors import LinkError, NotPaired
    from ..i18n import explain, translator
    from ..sync.join import CODE_REFUSED, join, pair_later
    from ..sync.link import Credential, ScorerLink
    from ..sync.outbox import Outbox
    from ..table.journal import table_path

    code_file = data / "pair-code"
    pending = (code_file.read_text(encoding="utf-8").strip()
               if args.pair is None and code_file.exists() else None)
    if args.scorer is None and (args.pair or pending) is None and \
            Credential.load(data, args.table) is None:
        return None
    t = translator(args.lang)
    try:
        link = join(data, args.table, args.scorer, args.pair or pending, rulesets)
    except NotPaired as exc:  # the table still works, offline, until it is paired
        print(t("terminal.failed", command="table", message=t(
            "terminal.table.offline", reason=explain(exc, args.lang))), file=sys.stderr)
        return None
    except LinkError as exc:
        from .table_cmd import not_paired

        if pending is None:
            raise not_paired(exc, args.table) from None
        reason = explain(not_paired(exc, args.table), args.lang)
        print(t("terminal.failed", command="table", message=reason if exc.key in CODE_REFUSED
                else t("terminal.fleet.pair_later", reason=reason)), file=sys.stderr)
        tried = pair_later(data, args.table, args.scorer, pending, rulesets, first=exc)

        def pair() -> ScorerLink:
            paired = tried()
            code_file.unlink(missing_ok=True)
            return paired

        return Outbox(table_path(data, args.table), ScorerLink(args.scorer or "auto"),
                      pair=pair)
    if pending is not None:
        code_file.unlink(missing_ok=True)  # used once
    return Outbox(table_path(data, args.table), link)


#: The table's 7" display, and the window elsewhere (a laptop, a test).
DEFAULT_SIZE = (800, 480)


def window_config(size: tuple[int, int] | None, model: str | None) -> dict[str, str]:
    """Kivy's graphics settings, as `--help` promises: the size given; else full screen on a
    Raspberry Pi (`model`: the device tree's name), with or without a desktop session; else
    800×480 (Kivy's own default, 800×600, cuts the bars off an 800×480 screen)."""
    if size is None and model is not None and "Raspberry Pi" in model:
        return {"fullscreen": "auto"}
    width, height = size or DEFAULT_SIZE
    return {"fullscreen": "0", "width": str(width), "height": str(height)}


def _size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    width, _, height = text.partition("x")
    if not (width.isdigit() and height.isdigit()) or int(width) < 320 or int(height) < 320:
        raise TableUIError(f"--size {text!r}: give WIDTHxHEIGHT, e.g. 800x480").explained(
            "terminal.table.size", size=text)
    return int(width), int(height)
