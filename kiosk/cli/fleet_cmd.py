"""`kiosk fleet …`: what the units of a fleet of kiosks run (first boot, pairing once, pruning
the scorer's backups) and the technician's update bundles."""

from __future__ import annotations

import argparse
import pwd
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..rules import RulesError


class FleetError(RulesError):
    """A fleet command cannot do what it was asked (a refused kiosk.toml, a bad bundle)."""


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    fleet = commands.add_parser("fleet", help="first boot, updates and upkeep of the kiosks")
    sub = fleet.add_subparsers(dest="fleet_command", required=True, metavar="ACTION")

    first = sub.add_parser("firstboot", help="take this card's identity from kiosk.toml on the "
                           "boot partition (kiosk-firstboot.service, at every boot)")
    first.add_argument("--root", default="/", metavar="DIR",
                       help="the system's root (default /; a scratch root to try it)")
    first.add_argument("--user", default="kiosk", help="the kiosk's user (default kiosk)")
    first.set_defaults(run=run_firstboot)

    pair = sub.add_parser("pair-pending", help="pair with the pairing code first boot left, "
                          "if there is one (kiosk-table.service, before the kiosk starts)")
    pair.add_argument("--data", required=True, metavar="DIR")
    pair.add_argument("--table", required=True, type=int, metavar="N")
    pair.add_argument("--scorer", default="auto", metavar="URL")
    pair.set_defaults(run=run_pair_pending)

    prune = sub.add_parser("prune-backups", help="keep the newest backups and one an hour")
    prune.add_argument("--dir", required=True, metavar="DIR")
    prune.add_argument("--keep", type=int, default=24, metavar="N",
                       help="the newest N are kept, and the newest of every hour (default 24)")
    prune.set_defaults(run=run_prune)


def run_firstboot(args: argparse.Namespace) -> int:
    from ..fleet.identity import IdentityError, Paths, apply, consume

    paths = Paths(root=Path(args.root))
    try:
        owner = pwd.getpwnam(args.user)
        ids: tuple[int, int] | None = (owner.pw_uid, owner.pw_gid)
    except KeyError:
        ids = None  # a scratch root: files stay the caller's
    try:
        identity = consume(paths, ids)
    except IdentityError as exc:
        raise FleetError(str(exc)).explained(exc.key or "error.unexpected",
                                             **exc.params) from None
    if identity is not None:
        print(f"kiosk.toml: table {identity.table}, scorer {identity.scorer}: settings written "
              f"to {paths.settings_dir}/kiosk.env, kiosk.toml removed from the boot partition")
    for path in apply(paths):
        print(f"applied {path}")
    return 0


def run_pair_pending(args: argparse.Namespace) -> int:
    """Never fails the kiosk's start: without the scorer the kiosk runs offline, and the code
    stays for the next start."""
    code_file = Path(args.data) / "pair-code"
    if not code_file.exists():
        return 0
    code = code_file.read_text(encoding="utf-8").strip()
    from ..sync.join import join
    from ..sync.link import LinkError
    from .main import load_rulesets

    try:
        join(args.data, args.table, args.scorer, code, load_rulesets(args))
    except (LinkError, OSError) as exc:
        print(f"kiosk fleet pair-pending: not paired yet ({exc}); trying again at the next "
              "start", file=sys.stderr)
        return 0
    code_file.unlink()
    print(f"table {args.table} paired with the scorer")
    return 0


def run_prune(args: argparse.Namespace) -> int:
    from ..scorer.backups import prune

    if args.keep < 1:
        raise FleetError("--keep must be at least 1").explained("fleet.backups.keep")
    removed = prune(args.dir, args.keep)
    print(f"{len(removed)} old backups removed from {args.dir}")
    return 0
