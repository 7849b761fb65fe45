"""`kiosk scorer`: the hall's scorer (web server, mDNS), and `kiosk scorer admin …`, the head
referee's operations for scripts, on the same code path as the admin page."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

STORE_NAME = "scorer.sqlite"


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    scorer = commands.add_parser("scorer", help="run the hall's scorer, or an admin operation")
    scorer.add_argument("--data", metavar="DIR", help="the scorer's data directory")
    scorer.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (0.0.0.0: the whole LAN; default loopback)")
    scorer.add_argument("--port", type=int, default=8080)
    scorer.add_argument("--no-mdns", action="store_true",
                        help="do not announce the scorer on the LAN")
    scorer.set_defaults(run=run_serve)
    sub = scorer.add_subparsers(dest="scorer_command", metavar="admin")
    admin = sub.add_parser("admin", help="the head referee's operations")
    admin.add_argument("--data", metavar="DIR", help="the scorer's data directory")
    ops = admin.add_subparsers(dest="admin_command", required=True, metavar="ACTION")

    def op(name: str, text: str, run: Callable[[Any, argparse.Namespace], Any]
           ) -> argparse.ArgumentParser:
        parser = ops.add_parser(name, help=text)
        # --data before or after the action, as a script or a unit file spells it
        parser.add_argument("--data", metavar="DIR", default=argparse.SUPPRESS)
        parser.set_defaults(run=lambda args: run_admin(args, run))
        return parser

    p = op("event", "create the event", lambda d, a: d.create_event(
        a.name, a.ruleset, a.rounds, a.minutes, a.seed))
    p.add_argument("--name", required=True)
    p.add_argument("--ruleset", required=True, metavar="ID")
    p.add_argument("--rounds", type=int)
    p.add_argument("--minutes", type=float, help="match time (default: the ruleset's)")
    p.add_argument("--seed", type=int, help="the round-1 draw's seed (default: random)")
    p = op("teams", "import teams or players from a CSV file (UTF-8 or GBK)",
           lambda d, a: f"{d.import_teams(Path(a.file).read_bytes())} imported")
    p.add_argument("file")
    p = op("tables", "set the hall's tables and print a pairing code for each new one",
           lambda d, a: _lines(f"table {n}: {c}" for n, c in d.add_tables(a.count).items()))
    p.add_argument("count", type=int)
    op("codes", "print the pairing codes not used yet", lambda d, a: _lines(
        f"table {n}: {c}" for n, c in d.store.open_codes().items()))
    p = op("swap", "move a table to a new kiosk: revoke the old one, print a new code",
           lambda d, a: f"table {a.table}: pair the new kiosk with {d.swap(a.table)}")
    p.add_argument("--table", type=int, required=True)
    p = op("import", "add an old kiosk's unsent events from its journal file",
           lambda d, a: "{} new events, {} kept aside".format(
               *d.import_journal(a.table, a.journal)))
    p.add_argument("--table", type=int, required=True)
    p.add_argument("--journal", required=True, metavar="FILE")
    p = op("start-round", "pair the next round and start it hall-wide",
           lambda d, a: _round_text(d, d.start_round(a.start_in)))
    p.add_argument("--in", dest="start_in", type=float, default=30.0, metavar="SECONDS",
                   help="the match clocks start this long from now (default 30)")
    p = op("ruling", "record a forfeit, a disqualification or an adjusted result",
           lambda d, a: d.record_ruling(a.table, a.kind, a.loser, a.reason, a.round, a.net))
    p.add_argument("--table", type=int, required=True)
    p.add_argument("--kind", required=True, choices=("forfeit", "disqualification",
                                                     "adjusted"))
    p.add_argument("--loser", required=True, choices=("NS", "EW"))
    p.add_argument("--reason", required=True)
    p.add_argument("--net", type=int, default=0, help="adjusted: the levels it is lost by")
    p.add_argument("--round", type=int, help="default: the current round")
    p = op("withdraw", "a team plays no more rounds",
           lambda d, a: d.withdraw(a.team, a.after_round))
    p.add_argument("team", metavar="TEAM_ID")
    p.add_argument("--after-round", type=int, help="default: the current round")
    p = op("mute", "mute (on) or unmute (off) every table's buzzer",
           lambda d, a: d.mute(a.state == "on"))
    p.add_argument("state", choices=("on", "off"))
    op("close", "close the event", lambda d, a: d.close_event())
    p = op("password", "set the admin page's password (read from the terminal or stdin)",
           lambda d, a: d.set_password(_read_password()) or "password set")
    p = op("backup", "copy the store, consistently, while the scorer runs",
           lambda d, a: str(d.store.backup(Path(a.to) / datetime.datetime.now().strftime(
               "scorer-%Y%m%d-%H%M%S.sqlite"))))
    p.add_argument("--to", required=True, metavar="DIR")
    op("standings", "print the standings", lambda d, a: _lines(
        f"{s.group:<2} {s.rank:>3}{'=' if s.tied else ' '} {s.team:<6} {s.points:>3} "
        f"{s.net:>4} {s.opponents:>4}".strip() for s in d.standings()))
    p = op("export", "print the results", _export)
    p.add_argument("--format", choices=("csv", "json", "sheets"), default="csv")
    add_lang(p)


def _director(args: argparse.Namespace) -> Any:
    from ..scorer.director import Director
    from ..scorer.store import Store
    from .main import load_rulesets

    return Director(Store(Path(args.data) / STORE_NAME), load_rulesets(args))


def run_admin(args: argparse.Namespace, run: Callable[[Any, argparse.Namespace], Any]) -> int:
    from ..scorer.director import AdminError
    from ..scorer.roster import RosterError
    from .main import EXIT_USAGE

    if not args.data:
        print("kiosk scorer admin: give --data DIR", file=sys.stderr)
        return EXIT_USAGE
    director = _director(args)
    try:
        out = run(director, args)
    except (AdminError, RosterError, OSError) as exc:
        print(f"kiosk scorer admin {args.admin_command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        director.store.close()
    if isinstance(out, str) and out:
        print(out)
    return 0


def _lines(lines: Any) -> str:
    return "\n".join(lines)


def _round_text(director: Any, round_no: int) -> str:
    names = {t.id: t.name for t in director.teams()}
    return _lines([f"round {round_no}"] + [
        f"table {t}: {names[a]} (NS) v {names[b]} (EW)"
        for t, a, b in director.assignments(round_no)])


def _export(director: Any, args: argparse.Namespace) -> str:
    from ..scorer import exports

    if args.format == "json":
        return json.dumps(exports.results_json(director), ensure_ascii=False, indent=1)
    if args.format == "sheets":
        return exports.sheets(director, args.lang)
    return exports.results_csv(director).rstrip("\n")


def _read_password() -> str:
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("new password: ")
    return sys.stdin.readline().strip()


def run_serve(args: argparse.Namespace) -> int:
    from ..scorer.server import serve

    if not args.data:
        print("kiosk scorer: give --data DIR", file=sys.stderr)
        return 2
    director = _director(args)
    password = director.first_password()
    if password:
        print(f"admin password (shown once; change it with `kiosk scorer admin password`): "
              f"{password}", flush=True)
    return serve(director, args.host, args.port, mdns=not args.no_mdns)
