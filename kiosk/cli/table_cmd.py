"""`kiosk journal show|export` and `kiosk simulate`: a table's journal, and a simulated table."""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from collections.abc import Callable
from typing import Any

from ..errors import CommandError
from .words import about, say


class TableError(CommandError):
    """A table command cannot run (no journal, no such round)."""


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    journal = commands.add_parser("journal", **about("cli.journal"))
    sub = journal.add_subparsers(dest="journal_command", required=True, metavar="ACTION")
    for name, run in (("show", run_show), ("export", run_export)):
        parser = sub.add_parser(name, **about(f"cli.journal.{name}"))
        parser.add_argument("--data", required=True, metavar="DIR", help=say("cli.journal.data"))
        parser.add_argument("--table", required=True, type=int, metavar="N",
                            help=say("cli.table_number"))
        parser.add_argument("--round", metavar="R", help=say("cli.round"))
        if name == "show":
            add_lang(parser)
        parser.set_defaults(run=run)

    sim = commands.add_parser("simulate", **about("cli.simulate"))
    sim.add_argument("--data", required=True, metavar="DIR", help=say("cli.kiosk_data"))
    sim.add_argument("--table", required=True, type=int, metavar="N",
                     help=say("cli.table_number"))
    sim.add_argument("--ruleset", metavar="ID",
                     help=say("cli.simulate.ruleset"))
    sim.add_argument("--hands", type=int, default=1000, metavar="N",
                     help=say("cli.simulate.hands"))
    sim.add_argument("--seed", type=int, default=1, help=say("cli.simulate.seed"))
    sim.add_argument("--speed", type=float, default=1.0,
                     help=say("cli.simulate.speed"))
    sim.add_argument("--scorer", metavar="URL",
                     help=say("cli.simulate.scorer"))
    sim.add_argument("--pair", metavar="CODE", help=say("cli.pair_code"))
    add_lang(sim)
    sim.set_defaults(run=run_simulate)

    pair = commands.add_parser("pair", **about("cli.pair"))
    pair.add_argument("--data", required=True, metavar="DIR", help=say("cli.kiosk_data"))
    pair.add_argument("--table", required=True, type=int, metavar="N",
                      help=say("cli.table_number"))
    pair.add_argument("--scorer", default="auto", metavar="URL",
                      help=say("cli.pair.scorer"))
    pair.add_argument("code", help=say("cli.pair_code"))
    add_lang(pair)
    pair.set_defaults(run=run_pair)


def open_match(args: argparse.Namespace) -> Any:
    """The state and events of the match `args` name (--data, --table, --round). Raises
    TableError when there is no such journal or round."""
    from ..errors import SessionError
    from ..table.journal import Journal, table_path
    from ..table.state import MatchState
    from .main import load_rulesets

    path = table_path(args.data, args.table)
    if not path.exists():
        raise TableError(f"no journal for table {args.table} in {args.data}").explained(
            "terminal.journal.missing", table=args.table, data=args.data)
    journal = Journal.reader(path)  # (a card from a broken kiosk may be read-only)
    matches = journal.matches()
    match = args.round if args.round is not None else (matches[-1] if matches else None)
    if not matches:
        journal.close()
        raise TableError(f"table {args.table} has no match yet").explained(
            "terminal.journal.empty", table=args.table)
    if match not in matches:
        journal.close()
        raise TableError(f"table {args.table} has no round {match!r}").explained(
            "terminal.journal.no_round", table=args.table, round=match,
            rounds=" ".join(matches))
    state = MatchState(load_rulesets(args))
    events = list(journal.events(match))
    journal.close()
    try:
        for event in events:
            state.apply(event)
    except SessionError as exc:  # the match's ruleset is not here: which one, and what to do
        ruleset = events[0].data.get("ruleset") if events else None
        said = {"table.unknown_ruleset": "unknown_ruleset",
                "table.ruleset_changed": "ruleset_changed"}.get(exc.key or "")
        if said is None or not isinstance(ruleset, str):
            raise
        raise TableError(str(exc)).explained(f"terminal.journal.{said}", table=args.table,
                                             ruleset=ruleset) from None
    return state, events


def run_export(args: argparse.Namespace) -> int:
    state, _ = open_match(args)
    print(json.dumps(state.export(), ensure_ascii=False, indent=1))
    return 0


def run_show(args: argparse.Namespace) -> int:
    from ..i18n import explain, translator
    from ..rules import RecordError, replay
    from ..words.sheet import score_sheet
    from ..words.textfmt import pad, width

    state, events = open_match(args)
    said, t = EventWords(args.lang), translator(args.lang)
    head = [t("eventlog.col.seq"), t("eventlog.col.at"), t("eventlog.col.who"),
            t("eventlog.col.what")]
    rows = [[str(event.seq), datetime.datetime.fromtimestamp(event.wall).strftime("%H:%M:%S"),
             said.actor(event.actor), said.kind(event.kind, event.data)] for event in events]
    widths = [max(width(row[i]) for row in [head, *rows]) for i in range(len(head))]
    # The facts (JSON, as journaled) close each line, past the aligned columns of words.
    facts = [t("eventlog.col.data"), "-" * width(t("eventlog.col.data")),
             *(json.dumps(event.data, ensure_ascii=False) if event.data else ""
               for event in events)]
    rule = ["-" * w for w in widths]
    for cells, data in zip([head, rule, *rows], facts, strict=True):
        line = "  ".join(pad(c, w, right=i == 0) for i, (c, w) in enumerate(zip(cells, widths,
                                                                               strict=True)))
        print(f"{line}  {data}".rstrip())
    record = state.export()
    lines: list[dict[str, Any]] = []
    try:
        lines.extend(replay(record, state.rulesets))
    except RecordError as exc:  # pragma: no cover - the export of a fold always replays
        print(t("terminal.failed", command="journal", message=explain(exc, args.lang)),
              file=sys.stderr)
    assert state.ruleset is not None
    print()
    print(score_sheet(record, state.ruleset, lines, args.lang), end="")
    return 0


class EventWords:
    """Who did an event and what it was, as `kiosk journal show` names them in `lang`
    (`eventlog.*`): a kind or actor the catalog does not know (a newer kiosk's) as it is."""

    def __init__(self, lang: str) -> None:
        from ..i18n import catalog, translator

        self.t, self.known = translator(lang), catalog(lang)

    def kind(self, kind: str, data: dict[str, Any] | None = None) -> str:
        """The event's kind; by its phase where that names it otherwise (a bury's overrun is
        扣底超时, a move's 出牌超时)."""
        key = f"eventlog.kind.{kind}"
        phased = f"{key}.{(data or {}).get('phase')}"
        return self.t(phased) if phased in self.known else self.t(key) if key in self.known \
            else kind

    def actor(self, actor: str) -> str:
        who, _, seat = actor.partition(":")
        if who == "seat" and f"seat.{seat}" in self.known:
            return self.t("eventlog.actor.seat", seat=self.t(f"seat.{seat}"))
        key = f"eventlog.actor.{actor}"
        return self.t(key) if key in self.known else actor


def run_simulate(args: argparse.Namespace) -> int:
    from ..sim.table import simulate
    from .main import load_rulesets

    check_speed(args.speed)
    rulesets = load_rulesets(args)
    if args.scorer is None and args.pair is None:
        if args.ruleset is None:
            raise TableError("give --ruleset ID (or --scorer URL to play the scorer's round)"
                             ).explained("terminal.simulate.no_ruleset")
        rulesets.require(args.ruleset)
        session = simulate(args.data, args.table, rulesets, args.ruleset, args.hands,
                           args.seed, args.speed)
    else:
        from ..errors import LinkError
        from ..sim.hall import simulate_synced
        from ..sync.join import join_when_let

        try:
            link = join_when_let(args.data, args.table, args.scorer, args.pair, rulesets,
                                 waiting_words(args.table, args.lang))
        except LinkError as exc:
            raise not_paired(exc, args.table) from None
        try:
            session = simulate_synced(args.data, args.table, rulesets, link, args.hands,
                                      args.seed, args.speed)
        except LinkError as exc:
            raise TableError(str(exc)).explained(exc.key or "sync.unreachable",
                                                 **exc.params) from None
    session.close()
    return 0


def check_speed(speed: float) -> None:
    """How many times faster than real time: above 0 (0 would divide; inf waits not at all)."""
    if not speed > 0:  # (nan too)
        raise TableError(f"--speed {speed}: give a number above 0").explained(
            "terminal.simulate.speed", speed=f"{speed:g}")


def run_pair(args: argparse.Namespace) -> int:
    """Pair (a replacement kiosk also downloads the table's events), so that `kiosk table`
    started by its service syncs with the saved credential."""
    from ..errors import LinkError
    from ..i18n import translator
    from ..sync.join import join_when_let
    from ..sync.link import Credential
    from ..table.journal import Journal, table_path
    from .main import load_rulesets

    before = Credential.load(args.data, args.table)
    try:
        link = join_when_let(args.data, args.table, args.scorer, args.code,
                             load_rulesets(args), waiting_words(args.table, args.lang))
    except LinkError as exc:
        raise not_paired(exc, args.table) from None
    journal = Journal.reader(table_path(args.data, args.table))
    events = journal.last_seq
    journal.close()
    already = before is not None and link.credential == before  # the code was not needed
    print(translator(args.lang)("terminal.pair.already" if already else "terminal.pair.done",
                                table=args.table, url=link.url, events=events))
    return 0


def waiting_words(table: int, lang: str) -> Callable[[Any, float], None]:
    """Says (on stderr: a simulation's output is its hands) that the scorer turned the
    table's pairing away for now and when it is tried again."""
    from ..i18n import explain, translator

    def say(error: Any, seconds: float) -> None:
        print(translator(lang)("terminal.pair.waiting", table=table,
                               reason=explain(error, lang), s=math.ceil(seconds)),
              file=sys.stderr, flush=True)

    return say


def not_paired(error: Any, table: int) -> CommandError:
    """A failed pairing (a LinkError) as the technician reads it: the scorer's refusal as it
    gave it, or, when nothing answered, its address and what to check (not the socket's
    errno)."""
    if error.status is None and error.key == "sync.unreachable":
        return TableError(str(error)).explained("terminal.pair.unreachable", table=table,
                                                url=error.params.get("url", "?"))
    return TableError(str(error)).explained("terminal.pair.failed", table=table, reason=error)
