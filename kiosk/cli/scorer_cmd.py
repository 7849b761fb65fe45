"""`kiosk scorer`: the hall's scorer (web server, mDNS), and `kiosk scorer admin …`, the head
referee's operations for scripts, on the same code path as the admin page.

Output and errors are in the chosen language (`--lang`, default 简体中文), with team names
next to their ids. An operation the admin page would ask to confirm needs `--yes` here; without
it the command prints the question and exits with status 3, having changed nothing.
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .words import about, say

STORE_NAME = "scorer.sqlite"
EXIT_CONFIRM = 3  # the operation needs --yes: nothing was done
Run = Callable[[Any, argparse.Namespace, Callable[..., str]], Any]


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    scorer = commands.add_parser("scorer", **about("cli.scorer"))
    scorer.add_argument("--data", metavar="DIR", help=say("cli.scorer.data"))
    scorer.add_argument("--host", default="127.0.0.1",
                        help=say("cli.scorer.host"))
    scorer.add_argument("--port", type=int, default=8080, help=say("cli.scorer.port"))
    scorer.add_argument("--no-mdns", action="store_true",
                        help=say("cli.scorer.no_mdns"))
    scorer.add_argument("--advertise", metavar="ADDR",
                        help=say("cli.scorer.advertise"))
    # Plain HTTP, only for the benchmark's TLS-off comparison: kiosks refuse it.
    scorer.add_argument("--no-tls", action="store_true", help=argparse.SUPPRESS)
    add_lang(scorer)
    scorer.set_defaults(run=run_serve)
    sub = scorer.add_subparsers(dest="scorer_command", metavar="admin")
    admin = sub.add_parser("admin", **about("cli.admin"))
    # (as for each action: `kiosk scorer --data DIR admin …` keeps the DIR given before)
    admin.add_argument("--data", metavar="DIR", default=argparse.SUPPRESS,
                       help=say("cli.scorer.data"))
    ops = admin.add_subparsers(dest="admin_command", required=True, metavar="ACTION")

    def op(name: str, run: Run, confirm: bool = False) -> argparse.ArgumentParser:
        parser = ops.add_parser(name, **about(f"cli.admin.{name.replace('-', '_')}"))
        # --data before or after the action, as a script or a unit file spells it
        parser.add_argument("--data", metavar="DIR", default=argparse.SUPPRESS,
                            help=say("cli.scorer.data"))
        if confirm:
            parser.add_argument("--yes", action="store_true",
                                help=say("cli.admin.yes"))
        add_lang(parser)
        parser.set_defaults(run=lambda args: run_admin(args, run))
        return parser

    p = op("event", lambda d, a, t: t(
        "admin.note.event_created", name=d.create_event(
            a.name, a.ruleset, a.rounds, a.minutes, a.seed, by=_who()).name))
    p.add_argument("--name", required=True, help=say("cli.admin.event.name"))
    p.add_argument("--ruleset", required=True, metavar="ID", help=say("cli.admin.event.ruleset"))
    p.add_argument("--rounds", type=int, metavar="N", help=say("cli.admin.event.rounds"))
    p.add_argument("--minutes", type=float, help=say("cli.admin.event.minutes"))
    p.add_argument("--seed", type=int, help=say("cli.admin.event.seed"))
    p = op("bye-points", lambda d, a, t: d.set_bye_points(a.points, a.yes, by=_who()) or t(
        "admin.note.bye_points", points=a.points), confirm=True)
    p.add_argument("points", type=int, help=say("cli.admin.bye_points.points"))
    p = op("teams", _import, confirm=True)
    p.add_argument("file", help=say("cli.admin.teams.file"))
    p.add_argument("--missed-points", type=int, default=0, metavar="N",
                   help=say("cli.admin.teams.missed_points"))
    op("list-teams", _list_teams)
    p = op("add-team", lambda d, a, t: t("admin.note.team_added", team=d.label(d.add_team(
        a.name, a.unit, tuple(a.player), a.id, a.yes, a.missed_points, by=_who()))),
        confirm=True)
    p.add_argument("name", help=say("cli.admin.add_team.name"))
    p.add_argument("--unit", default="", help=say("cli.admin.unit"))
    p.add_argument("--player", action="append", default=[],
                   help=say("cli.admin.add_team.player"))
    p.add_argument("--id", default="", help=say("cli.admin.add_team.id"))
    p.add_argument("--missed-points", type=int, default=0, metavar="N",
                   help=say("cli.admin.teams.missed_points"))
    p = op("edit-team", _edit_team, confirm=True)
    p.add_argument("team", metavar="TEAM", help=say("cli.admin.team"))
    p.add_argument("--name", help=say("cli.admin.edit_team.name"))
    p.add_argument("--unit", help=say("cli.admin.edit_team.unit"))
    p.add_argument("--player", action="append", help=say("cli.admin.edit_team.player"))
    p = op("delete-team", _deleted, confirm=True)
    p.add_argument("team", metavar="TEAM", help=say("cli.admin.team"))
    p = op("withdraw", _withdraw, confirm=True)
    p.add_argument("team", metavar="TEAM", help=say("cli.admin.team"))
    p.add_argument("--after-round", type=int, help=say("cli.admin.default_round"))
    p.add_argument("--now", action="store_true", help=say("cli.admin.withdraw.now"))
    p = op("reinstate", lambda d, a, t: d.reinstate(a.team, a.yes, by=_who()) or t(
        "admin.note.reinstated", team=d.label(d.team(a.team).id)), confirm=True)
    p.add_argument("team", metavar="TEAM", help=say("cli.admin.team"))
    p = op("tables", lambda d, a, t: _lines(
        t("admin.cli.code", table=n, code=c) for n, c in d.add_tables(a.count, by=_who()).items()))
    p.add_argument("count", type=int, help=say("cli.admin.tables.count"))
    op("codes", lambda d, a, t: _lines(
        t("admin.cli.code", table=n, code=c) for n, c in d.store.open_codes().items())
        or t("admin.cli.no_codes"))
    p = op("swap", lambda d, a, t: t(
        "admin.cli.swap", table=a.table, code=d.swap(a.table, a.yes, by=_who())), confirm=True)
    p.add_argument("--table", type=int, required=True, metavar="N", help=say("cli.table_number"))
    p = op("import", lambda d, a, t: t("admin.cli.journal", **dict(zip(
        ("events", "orphans"), d.import_journal(a.table, a.journal, by=_who()), strict=True))))
    p.add_argument("--table", type=int, required=True, metavar="N", help=say("cli.table_number"))
    p.add_argument("--journal", required=True, metavar="FILE",
                   help=say("cli.admin.import.journal"))
    op("draft", lambda d, a, t: _draft_text(d, t, d.make_draft(by=_who(), confirm=a.yes)),
       confirm=True)
    op("show-draft", lambda d, a, t: _draft_text(d, t, d._editable_draft()))
    p = op("swap-teams", lambda d, a, t: _draft_text(
        d, t, d.swap_teams(a.first, a.second, by=_who())))
    p.add_argument("first", metavar="TEAM", help=say("cli.admin.team"))
    p.add_argument("second", metavar="TEAM", help=say("cli.admin.team"))
    p = op("swap-tables", lambda d, a, t: _draft_text(
        d, t, d.swap_tables(a.first, a.second, by=_who())))
    p.add_argument("first", type=int, help=say("cli.table_number"))
    p.add_argument("second", type=int, help=say("cli.table_number"))
    p = op("swap-sides", lambda d, a, t: _draft_text(d, t, d.swap_sides(a.table, by=_who())))
    p.add_argument("table", type=int, help=say("cli.table_number"))
    op("discard", lambda d, a, t: d.discard_draft(by=_who(), confirm=a.yes) or t(
        "admin.note.discarded"), confirm=True)
    op("publish", lambda d, a, t: _round_text(d, t, d.publish(a.yes, by=_who())), confirm=True)
    op("undo", lambda d, a, t: t("admin.note.undone", round=d.undo_round(a.yes, by=_who())),
       confirm=True)
    p = op("start", lambda d, a, t: _round_text(d, t, d.start_clock(a.start_in, by=_who(),
                                                                    confirm=a.yes)),
           confirm=True)
    p.add_argument("--in", dest="start_in", type=float, default=30.0, metavar="SECONDS",
                   help=say("cli.admin.start_round.start_in"))
    p = op("start-round", lambda d, a, t: _round_text(d, t, d.start_round(a.start_in, by=_who())))
    p.add_argument("--in", dest="start_in", type=float, default=30.0, metavar="SECONDS",
                   help=say("cli.admin.start_round.start_in"))
    p = op("clock", _clock, confirm=True)
    p.add_argument("action", choices=("pause", "resume", "extend", "stop", "show"),
                   help=say("cli.admin.clock.action"))
    p.add_argument("minutes", type=float, nargs="?", help=say("cli.admin.clock.minutes"))
    p = op("ruling", _ruling, confirm=True)
    p.add_argument("--table", type=int, required=True, metavar="N", help=say("cli.table_number"))
    p.add_argument("--kind", required=True, choices=("forfeit", "disqualification",
                                                     "adjusted"), help=say("cli.admin.ruling.kind"))
    p.add_argument("--loser", required=True, choices=("NS", "EW"),
                   help=say("cli.admin.ruling.loser"))
    p.add_argument("--reason", required=True, help=say("cli.admin.reason"))
    p.add_argument("--net", type=int, default=0, help=say("cli.admin.ruling.net"))
    p.add_argument("--round", type=int, help=say("cli.admin.default_round"))
    op("rulings", _rulings)
    p = op("unrule", lambda d, a, t: d.remove_ruling(
        a.id, a.reason, a.yes, by=_who()) and t("admin.cli.unruled", id=a.id), confirm=True)
    p.add_argument("id", type=int, help=say("cli.admin.unrule.id"))
    p.add_argument("--reason", required=True, help=say("cli.admin.reason"))
    p = op("mute", lambda d, a, t: d.mute(a.state == "on", by=_who()) or t(
        "admin.note.muted" if a.state == "on" else "admin.note.unmuted"))
    p.add_argument("state", choices=("on", "off"), help=say("cli.admin.mute.state"))
    op("close", lambda d, a, t: d.close_event(a.yes, by=_who()) or t("admin.note.closed"),
       confirm=True)
    p = op("reopen", lambda d, a, t: d.reopen_event(a.reason, by=_who()) or t(
        "admin.note.reopened"))
    p.add_argument("--reason", required=True, help=say("cli.admin.reason"))
    op("password", _set_password)
    op("certificate", _certificate)
    p = op("backup", lambda d, a, t: t("admin.cli.backup", path=d.store.backup(
        Path(a.to) / datetime.datetime.now().strftime("scorer-%Y%m%d-%H%M%S.sqlite"))))
    p.add_argument("--to", required=True, metavar="DIR", help=say("cli.admin.backup.to"))
    op("standings", _standings)
    op("log", _log)
    p = op("export", _export)
    p.add_argument("--format", choices=("csv", "json", "sheets", "xlsx"), default="csv",
                   help=say("cli.admin.export.format"))
    p.add_argument("--out", metavar="FILE", help=say("cli.admin.export.out"))


def _who() -> str:
    """Who runs the command, for the audit log."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli:?"


def _director(args: argparse.Namespace) -> Any:
    from ..errors import CommandError, JournalError, file_reason
    from ..rules.errors import words
    from ..scorer.director import Director
    from ..scorer.store.database import Store
    from .main import load_rulesets

    path = Path(args.data) / STORE_NAME
    try:
        store = Store(path)
    except OSError as exc:  # no such place, not allowed there, a file in the way
        raise CommandError(f"{args.data}: {exc}").explained(
            "terminal.scorer.no_store", path=args.data, reason=file_reason(exc)) from None
    except JournalError as exc:  # (the store is SQLite as a journal is; not a table's words)
        said = {"journal.damaged": "damaged", "journal.not-a-journal": "damaged",
                "journal.in-use": "in_use"}.get(exc.key or "")
        if said:
            raise CommandError(str(exc)).explained(f"terminal.scorer.store_{said}",
                                                   path=str(path)) from None
        reason = {"journal.read-only": "read_only", "journal.full": "full"}.get(exc.key or "",
                                                                                "other")
        raise CommandError(str(exc)).explained(
            "terminal.scorer.no_store", path=args.data,
            reason=words(f"terminal.file.{reason}")) from None
    director = Director(store, load_rulesets(args))
    from ..scorer.director.fleet import guard_round_start

    guard_round_start(director, args.data)  # no round while the hall's clocks disagree
    return director


def run_admin(args: argparse.Namespace, run: Run) -> int:
    from ..errors import (
        AccessError,
        AdminError,
        JournalError,
        NeedsConfirmation,
        RosterError,
        file_reason,
    )
    from ..i18n import catalog, explain, render
    from ..scorer.printing.templating import words
    from .main import EXIT_USAGE

    if not args.data:
        print(words(args.lang)("admin.cli.no_data"), file=sys.stderr)
        return EXIT_USAGE
    director = _director(args)
    t = words(args.lang, director.wording())  # (选手, not 队伍; 胜场, not 大分)

    def told(exc: Exception) -> str:  # a refusal in the event's words, as the console says it
        key = getattr(exc, "key", None)
        return t(key, **getattr(exc, "params", {})) if key in catalog(args.lang) \
            else explain(exc, args.lang)
    try:
        out = run(director, args, t)
    except NeedsConfirmation as exc:
        if exc.choices:  # each answer, and the flags that give it
            print("\n".join([told(exc), *(
                t("admin.cli.choice", choice=t(c.key, **c.params), flags=c.flags)
                for c in exc.choices)]), file=sys.stderr)
        else:
            print(t("admin.cli.confirm", question=told(exc)), file=sys.stderr)
        return EXIT_CONFIRM
    except (AdminError, RosterError, AccessError, JournalError) as exc:
        print(t("admin.cli.error", action=args.admin_command,
                message=told(_here(exc))), file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a file given (teams, --journal, --to, --out) is not usable
        print(t("admin.cli.error", action=args.admin_command, message=render(
            "terminal.file.problem", {"path": exc.filename or "", "reason": file_reason(exc)},
            args.lang)), file=sys.stderr)
        return EXIT_USAGE
    finally:
        director.store.close()
    if isinstance(out, str) and out:
        print(out)
    return 0


def _here(error: Any) -> Any:
    """A refusal that says where to go next (`admin.where.*`: a page of the console) pointed
    at this command line's command instead (`admin.where.cli.*`)."""
    from ..errors import Words

    params = getattr(error, "params", None) or {}
    for name, value in params.items():
        if isinstance(value, Words) and value.key.startswith("admin.where."):
            params[name] = Words("admin.where.cli." + value.key.removeprefix("admin.where."))
    return error


def _lines(lines: Any) -> str:
    return "\n".join(lines)


def _import(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    report = d.import_teams(Path(a.file).read_bytes(), a.yes, a.missed_points, by=_who())
    names = d.team_names()
    out = [t("admin.note.teams_updated" if report.added else "admin.note.teams_corrected",
             n=len(report.updated), added=len(report.added))] if report.updated else []
    if report.added or not report.updated:
        out.append(t("admin.cli.imported", n=len(report.added),
                     ids="、".join(t("admin.with_id", name=names[i], id=i) for i in report.added)))
    if report.joined_round > 1:
        out.append(t("admin.note.imported_late", n=len(report.added),
                     round=report.joined_round))
    elif report.ignored:
        out.append(t("admin.cli.ignored", columns="、".join(report.ignored)))
    return _lines(out)


def _team_status(t: Callable[..., str], row: Any, d: Any) -> str:
    if row.withdrawn:  # (the wording of the console, the printouts and the phones)
        how, round_no = d.withdrawal(row.id)
        return t(f"admin.withdrawal.{how}", round=round_no)
    if row.joined_round > 1:
        return t("admin.teams.late", round=row.joined_round, points=row.missed_points)
    return t("admin.teams.playing")


def _list_teams(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    from ..words.textfmt import table

    members = not d.require_event().individual  # (a player plays alone: no team members)
    heads = ("id", "name", "unit", *(("players",) if members else ()), "status")
    return table([t(f"admin.col.{h}") for h in heads],
                 [(r.id, r.name, r.unit, *(("、".join(r.players),) if members else ()),
                   _team_status(t, r, d)) for r in d.team_rows()], indent="")


def _edit_team(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    row = d.team(a.team)
    d.edit_team(row.id, a.name if a.name is not None else row.name,
                a.unit if a.unit is not None else row.unit,
                tuple(a.player) if a.player is not None else row.players, a.yes, by=_who())
    return t("admin.note.team_edited", team=d.label(row.id))


def _deleted(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    row = d.team(a.team)
    d.delete_team(row.id, a.yes, by=_who())
    return t("admin.note.team_deleted", team=t("admin.with_id", name=row.name, id=row.id))


def _withdraw(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    row = d.team(a.team)
    after = a.after_round
    if after is None and a.now:
        after = d.current_round() - 1
    d.withdraw(row.id, after, a.yes, by=_who())
    return t("admin.note.withdrawn", team=d.label(row.id))


def _named(d: Any, t: Callable[..., str]) -> Callable[[str], str]:
    """A team of a printed list with its id (what the swap commands are given)."""
    names = d.team_names()
    return lambda team: t("admin.with_id", name=names[team], id=team)


def _draft_text(d: Any, t: Callable[..., str], draft: Any) -> str:
    names, named = d.team_names(), _named(d, t)
    out = [t("admin.cli.draft_head", round=draft.round)]
    out += [t("admin.cli.match", table=n, ns=named(a), ew=named(b))
            for n, (a, b) in enumerate(draft.plan.pairs, 1)]
    out += [t("admin.cli.group", table=n, players=" · ".join(names[p] for p in g))
            for n, g in enumerate(draft.plan.groups, 1)]
    if draft.plan.bye_scores:
        out += [t("admin.cli.bye", team=named(b), points=d.bye_points())
                for b in draft.plan.byes]
    out += [t("admin.cli.warning", warning=t(w.key, **w.params))
            for w in d.draft_warnings(draft)]
    return _lines(out)


def _round_text(d: Any, t: Callable[..., str], round_no: int) -> str:
    names, named = d.team_names(), _named(d, t)
    out = [t("admin.cli.round", round=round_no)]
    out += [t("admin.cli.match", table=n, ns=named(a), ew=named(b))
            for n, a, b in d.assignments(round_no)]
    out += [t("admin.cli.group", table=n, players=" · ".join(
        f"{t('seat.' + seat)} {names[p]}" for seat, p in seats.items()))  # (东, not E)
        for n, seats in d.seats(round_no).items()]
    out += [t("admin.cli.bye", team=named(b), points=d.bye_points())
            for b in d.byes(round_no)]
    start = d.round_start(round_no)
    if start is None:
        out.append(t("admin.cli.waiting"))
    else:
        out.append(t("admin.cli.starts", time=datetime.datetime.fromtimestamp(
            start).strftime("%H:%M:%S")))
    return _lines(out)


def _clock(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    if a.action == "pause":
        d.pause_clock(by=_who())
    elif a.action == "resume":
        d.resume_clock(by=_who())
    elif a.action == "extend":
        if a.minutes is None:
            from ..rules.errors import words
            from ..scorer.director import refuse

            raise refuse("admin.error.required", field=words("admin.label.extend_minutes"))
        d.extend_clock(a.minutes, by=_who())
        return t("admin.note.clock_extend", minutes=f"{a.minutes:g}")
    elif a.action == "stop":
        d.stop_clock(a.yes, by=_who())
    else:
        clock = d.round_clock()
        if clock is None:
            return t("admin.error.no_round")
        return t("admin.cli.clock", round=clock["round"],
                 state=t(f"admin.clock.state.{clock['state']}"))
    return t(f"admin.note.clock_{a.action}")


def _ruling(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    ruling = d.record_ruling(a.table, a.kind, a.loser, a.reason, a.round, a.net, by=_who(),
                             confirm=a.yes)
    ns, ew = d.teams_at(ruling.round, ruling.table)
    return t("admin.cli.ruled", id=ruling.id, round=ruling.round, table=ruling.table,
             kind=t(f"admin.ruling.kind.{ruling.kind}"),
             team=d.label(ns if ruling.loser == "NS" else ew))


def _rulings(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    from ..scorer.printing.templating import when_text, who_text
    from ..words.textfmt import table

    rows = []
    for r in d.rulings(removed=True):
        ns, ew = d.teams_at(r.round, r.table)
        what = t(f"admin.ruling.kind.{r.kind}") + " · " + t(
            "admin.ruling.loses", side=t(f"admin.side.{r.loser}"))
        if r.removed_at:
            what += " " + t("admin.cli.removed", reason=r.removed_reason)
        match = t("admin.cli.versus", ns=d.label(ns), ew=d.label(ew))
        rows.append((r.id, r.round, r.table, match, what, r.reason, who_text(t, r.by),
                     when_text(r.at)))
    return table(["#", t("admin.col.round"), t("admin.col.table"), t("admin.col.name"),
                  t("admin.col.ruling"), t("admin.col.reason"), t("admin.col.by"),
                  t("admin.col.at")], rows, indent="") if rows else t("admin.rulings.none")


def _standings(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    from ..scorer.director import views
    from ..words.hand import signed
    from ..words.textfmt import table

    event = d.require_event()  # (the columns that break its ties, as on every page)
    rows = []
    for s in views.standing_rows(d):
        mark = ""
        if s.withdrawn_after is not None:
            mark = t("admin.teams.withdrawn_mark")
        elif s.joined_round > 1:
            mark = t("admin.teams.late_mark", round=s.joined_round)
        elif s.prize:
            mark = t("admin.standings.prize_group", n=s.prize)
        rank = f"{s.group}{s.rank}"  # (shared: 并列5, as the console says it)
        rows.append((t("admin.standings.rank_tied", rank=rank) if s.tied else rank,
                     t("admin.with_id", name=s.name, id=s.team), s.points,
                     *((signed(s.net),) if event.net_levels else ()),
                     *((s.opponents,) if event.opponents else ()), s.played, mark))
    heads = ("rank", "name", "points", *(("net",) if event.net_levels else ()),
             *(("opponents",) if event.opponents else ()), "played", "status")
    return table([t(f"admin.col.{h}") for h in heads], rows, indent="")


def _log(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    from ..scorer.printing.templating import when_text, who_text

    return _lines(t("admin.cli.log_line", at=when_text(e.at), who=who_text(t, e.who),
                    what=e.text(t)) for e in d.audit_log())


def _export(d: Any, a: argparse.Namespace, t: Callable[..., str]) -> str:
    from ..scorer.printing import exports

    if a.format == "xlsx":
        if not a.out:
            from ..scorer.director import refuse

            raise refuse("admin.error.required", field="--out")
        Path(a.out).write_bytes(exports.workbook(d, a.lang))
        return t("admin.cli.done")
    if a.format == "json":
        text = json.dumps(exports.results_json(d), ensure_ascii=False, indent=1)
    elif a.format == "sheets":
        text = exports.sheets(d, a.lang)
    else:
        text = exports.results_csv(d, a.lang)
    if a.out:
        Path(a.out).write_text(text, encoding="utf-8", newline="")
        return t("admin.cli.done")
    return text.removeprefix(exports.BOM).rstrip("\r\n")


def _read_password(t: Callable[..., str]) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(t("admin.cli.new_password"))
    return sys.stdin.readline().strip()


FIRST_PASSWORD = "admin-password.txt"


def _set_password(director: Any, args: argparse.Namespace, t: Callable[..., str]) -> str:
    director.set_password(_read_password(t))
    (Path(args.data) / FIRST_PASSWORD).unlink(missing_ok=True)
    return t("security.password-set")


def _certificate(director: Any, args: argparse.Namespace, t: Callable[..., str]) -> str:
    from ..scorer.net import tls

    identity = tls.identity(director.store)
    return _lines([f"sha256 {identity.fingerprint}", f"spki {identity.spki_pin}",
                   identity.certificate.strip()])


def run_serve(args: argparse.Namespace) -> int:
    import os

    from ..i18n import translator
    from ..scorer.server import CannotAnnounce, serve

    t = translator(args.lang)
    if not args.data:
        print(t("admin.cli.serve_no_data"), file=sys.stderr)
        return 2
    director = _director(args)
    password = director.first_password()
    if password:  # into a file only this user reads, never into the service's log
        path = Path(args.data) / FIRST_PASSWORD
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(password + "\n")
        print(t("security.first-password", path=path, data=Path(args.data).resolve()),
              flush=True)
    try:
        return serve(director, args.host, args.port, mdns=not args.no_mdns,
                     secure=not args.no_tls, advertise=args.advertise, lang=args.lang)
    except CannotAnnounce as exc:
        from ..errors import CommandError

        raise CommandError(str(exc)).explained("terminal.scorer.no_mdns",
                                               address=exc.address) from None
