"""The head referee's console at /admin: a login with the scorer's password and a session
cookie; pages for the event, teams, rounds, results, rulings, tables, printing and the log;
one form per operation, each carrying the session's CSRF token and calling the same
`Director` method as `kiosk scorer admin …`.

Every word is a catalog key (kiosk/i18n/<lang>/admin.toml), in the language the head referee
picked (a cookie; 简体中文 by default). An operation that cannot be simply undone, or that
overrides a warning, first shows what it will do and asks again (`NeedsConfirmation`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ...errors import AdminError, NeedsConfirmation, PrintError, RosterError, StoreError
from ...i18n import LANGS, explain
from ..director import RULING_KINDS, Director, access, fleet, refuse, triage, views
from ..director.pairer import prepare_pairing
from ..printing.pages import codes_html, page_of
from ..printing.templating import LANG_COOKIE, lang_of, render, words
from . import outputs, refusals

COOKIE = "kiosk_admin"
MAX_UPLOAD = 2_000_000  # bytes: a roster of a few thousand rows
MAX_LOGIN = 1_000  # bytes of the login form (a name and a password)
Said = tuple[str, dict[str, Any]]  # a catalog key and its parameters
Handler = Callable[[FormData, str], "Awaitable[Said] | Said"]


def routes(director: Director) -> list[Route]:
    logins = access.Limiter(per_source=10, ceiling=600)  # one hash at a time bounds the CPU

    def session(request: Request) -> tuple[str, str] | None:
        """(CSRF token, who) of the request's live session, or None."""
        token = request.cookies.get(COOKIE)
        return director.session(token) if token else None

    def page(request: Request, template: str, status: int = 200, **context: Any
             ) -> HTMLResponse:
        lang = lang_of(request)
        flash = context.pop("flash", None) or _flash(request, lang)
        context.setdefault("director", director)
        context.setdefault("tab", "")
        context.setdefault("error_params", {})
        context.setdefault("kept", {})  # what a refused form had typed, by field name
        context.setdefault("kept_action", "")  # and that form's action

        def keep(action: str, name: str, default: Any = "") -> Any:
            """A field's value: as typed, in the refused form `action`; else `default`."""
            if context["kept_action"] == action and name in context["kept"]:
                return context["kept"][name]
            return default
        context["keep"] = keep
        reply = HTMLResponse(render(f"admin/{template}.html", lang, flash=flash,
                                    path=request.url.path, **context), status_code=status)
        if request.query_params.get("lang") in LANGS:
            reply.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="strict",
                             path="/")
        return reply

    async def login_page(request: Request) -> Response:
        return page(request, "login", csrf="", event=director.event(), who="")

    async def login(request: Request) -> Response:
        now, source = director.clock(), request.client.host if request.client else "?"
        wait = logins.attempt(source, now)  # counted before anything is awaited
        if wait:
            return page(request, "login", 429, csrf="", event=director.event(), who="",
                        error="security.login-wait", error_params={"s": int(wait) + 1})
        form = await _login_form(request)
        if form is None:
            return page(request, "login", 413, csrf="", event=director.event(), who="",
                        error="security.login-form")
        if not await access.checked(director.store.setting("password"), form["password"]):
            return page(request, "login", 403, csrf="", event=director.event(),
                        who=form["who"], error="admin.login.wrong")
        logins.forgive(source)
        token, _ = director.open_session(form["who"])
        reply = RedirectResponse("/admin", status_code=303)
        # Secure: a browser never sends it over plain HTTP, even to this host (an address
        # typed as http:// would otherwise hand the session to whoever relays the Wi-Fi).
        reply.set_cookie(COOKIE, token, httponly=True, samesite="strict",
                         max_age=12 * 3600, path="/admin", secure=request.url.scheme == "https")
        return reply

    def screen(name: str, build: Callable[[Request], dict[str, Any]]
               ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            found = session(request)
            if found is None:
                return RedirectResponse("/admin/login", status_code=303)
            csrf, who = found
            try:
                context = build(request)
            except AdminError as exc:
                return _back("/admin", "error", exc)
            return page(request, name, csrf=csrf, who=who, event=director.event(),
                        director=director, tab=name, **context)
        return endpoint

    def operation(handler: Handler, back: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            found = session(request)
            if found is None:
                return RedirectResponse("/admin/login", status_code=303)
            csrf, who = found
            if int(request.headers.get("content-length") or 0) > MAX_UPLOAD:
                return _back(back, "error", _Said("admin.error.upload_large"))
            form = await request.form(max_part_size=MAX_UPLOAD)
            if form.get("csrf") != csrf:
                return HTMLResponse(words(lang_of(request))("admin.error.csrf"),
                                    status_code=403)
            target = _safe_back(str(form.get("back") or back))
            try:
                result = handler(form, who)
                if not isinstance(result, tuple):
                    result = await result
            except NeedsConfirmation as exc:
                return await confirm_page(request, form, csrf, who, exc, target)
            except (AdminError, RosterError, StoreError) as exc:
                return refused(request, form, csrf, who, target, exc)
            key, params = result
            return _back(target, "note", _Said(key, **params))
        return endpoint

    def refused(request: Request, form: FormData, csrf: str, who: str, target: str,
                exc: Exception) -> Response:
        """The page the form was on, again, with the refusal and the form as it was typed
        (a redirect would lose what was typed; a file field cannot be given back)."""
        path, _, query = target.partition("#")[0].partition("?")
        if "lang" in request.query_params and "lang=" not in query:  # the page in the words
            query = "&".join(filter(None, [query, urlencode(  # of the refusal
                {"lang": request.query_params["lang"]})]))
        name = "overview" if path == "/admin" else path.removeprefix("/admin/")
        build = pages.get(name)
        if build is None:
            return _back(target, "error", exc)
        again = Request({**request.scope, "method": "GET", "path": path,
                         "raw_path": path.encode(), "query_string": query.encode()})
        kept = {k: v for k, v in form.multi_items() if isinstance(v, str) and k != "csrf"}
        try:
            context = build(again)
        except AdminError:
            return _back(target, "error", exc)
        say = words(lang_of(request))
        try:
            text = say(getattr(exc, "key", None) or "error.unexpected",
                       **(getattr(exc, "params", None) or {}))
        except (KeyError, IndexError, ValueError):
            text = say("error.unexpected")
        return page(again, name, 400, csrf=csrf, who=who, event=director.event(),
                    director=director, tab=name, flash=("error", text), kept=kept,
                    kept_action=request.url.path, **context)

    async def confirm_page(request: Request, form: FormData, csrf: str, who: str,
                           exc: NeedsConfirmation, back: str) -> Response:
        fields: list[tuple[str, str]] = []
        for name, value in form.multi_items():
            if name in ("csrf", "confirmed"):
                continue
            if isinstance(value, UploadFile):  # the file comes back as its bytes
                await value.seek(0)  # (the handler read it)
                fields.append(("file_b64", base64.b64encode(await value.read()).decode()))
            else:
                fields.append((name, str(value)))
        return page(request, "confirm", csrf=csrf, who=who, event=director.event(),
                    director=director, tab="", message=explain(exc, lang_of(request)),
                    action=request.url.path, fields=fields, back=back)

    async def private_export(request: Request) -> Response:
        if session(request) is None:
            return RedirectResponse("/admin/login", status_code=303)
        reply = await outputs.private_export(director, request.path_params["name"],
                                             lang_of(request))
        return reply or refusals.page(request, 404, "export.error.kind")

    async def codes_print(request: Request) -> Response:
        """The pairing codes to hand out (`printing.codes_html`): secret, so the console's."""
        if session(request) is None:
            return RedirectResponse("/admin/login", status_code=303)
        lang, ext = lang_of(request), request.path_params["ext"]
        event = director.event()
        name = f"{event.name if event else 'event'}-{words(lang)('print.file.codes')}.pdf"
        try:
            if ext == "pdf":  # laid out by the print queue, as the public PDFs are
                return await outputs.pdf_reply(
                    request, ("codes", lang), lambda: page_of(director, "codes", lang),
                    name, private=True)
            if ext == "html":
                return HTMLResponse(codes_html(director, lang))
            return refusals.page(request, 404, "print.error.kind")
        except PrintError as exc:
            return refusals.page(request, 404, exc.key, **exc.params)

    async def codes_job(request: Request) -> Response:
        """The pairing codes' PDF being made (`outputs.job_page`): the console's, as they are."""
        if session(request) is None:
            return RedirectResponse("/admin/login", status_code=303)
        return outputs.job_page(request, private=True)

    async def logout(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        found = session(request)
        if token and found:
            form = await request.form()
            if form.get("csrf") == found[0]:
                director.close_session(token)
        reply = RedirectResponse("/admin/login", status_code=303)
        reply.delete_cookie(COOKIE, path="/admin")
        return reply

    # -- pages ------------------------------------------------------------------------------

    def overview(request: Request) -> dict[str, Any]:
        event = director.event()
        if event is None:
            return {"rulesets": list(director.rulesets.values())}
        current = director.current_round()
        playing = bool(current) and director.round_start(current) is not None and \
            not director.round_over(current)
        return {"next_step": next_step(director), "bye_points": director.bye_points(),
                "attention": triage.attention(views.round_rows(director, current))
                if playing else [],
                "tables_told": director._tables_told(),
                "win_points": director.ruleset().result.win_points,
                "current": director.current_round(), "clock": director.round_clock(),
                "teams": len(director.team_rows()), "tables": director.table_count(),
                "rulesets": list(director.rulesets.values())}

    def teams(request: Request) -> dict[str, Any]:
        event = director._event()
        editing = request.query_params.get("edit", "")
        everyone = director.team_rows()
        query = request.query_params.get("q", "").strip()[:40]
        show = _shown(request, triage.TEAM_FILTERS)
        rows = [r for r in triage.chosen(everyone, triage.TEAM_FILTERS, show)
                if r.id == editing or triage.found(query, r.id, r.name, r.unit, *r.players)]
        return {"rows": rows, "editing": editing, "query": query, "show": show,
                "total": len(everyone),
                "counts": triage.counted(everyone, triage.TEAM_FILTERS),
                "paired": {r.id for r in rows if director._ever_paired(r.id)},
                "open_matches": {r.id: found for r in rows if not r.withdrawn and
                                 (found := director._open_match(
                                     r.id, director.current_round() - 1))},
                "late": event.status != "setup" and director.current_round() > 0,
                "entry_round": director.current_round() + 1,
                "win_points": director.ruleset().result.win_points,
                "duplicates": _duplicates(everyone)}

    def rounds(request: Request) -> dict[str, Any]:
        director._event()
        draft = director.current_draft()
        current = director.current_round()
        draft_tables = []
        if draft is not None:
            names, units = director.team_names(), {t.id: t.unit for t in director.teams()}
            warnings = director.draft_warnings(draft)
            for n, (ns, ew) in enumerate(draft.plan.pairs, 1):
                draft_tables.append({"table": n, "ns": ns, "ew": ew, "ns_name": names[ns],
                                     "ew_name": names[ew], "ns_unit": units.get(ns, ""),
                                     "ew_unit": units.get(ew, ""),
                                     "warnings": [w for w in warnings if w.table == n]})
            for n, group in enumerate(draft.plan.groups, 1):
                draft_tables.append({"table": n, "group": [names[p] for p in group],
                                     "warnings": []})
            general = [w for w in warnings if w.table == 0]
        else:
            general = []
        can_draft = None
        if draft is None:
            try:
                director._next_round()
                can_draft = ""
            except AdminError as exc:
                can_draft = explain(exc, lang_of(request))
        published = bool(current) and director.round_start(current) is None
        names = director.team_names()
        placed = [x for p in draft.plan.pairs for x in p] + list(draft.plan.byes) \
            if draft else []
        clock = director.round_clock()
        warned_only = request.query_params.get("show") == "warned"  # a hall's draft: the
        warned = [d for d in draft_tables if d["warnings"]]  # tables to look at, alone
        return {"draft": draft, "draft_teams": [(x, names[x]) for x in placed],
                "draft_tables": warned if warned_only else draft_tables,
                "draft_total": len(draft_tables), "warned": len(warned),
                "warned_only": warned_only, "general": general,
                "stale": draft is not None and director.draft_is_stale(draft),
                "can_draft": can_draft, "current": current, "published": published,
                "can_undo": bool(current) and not published and director.can_undo_round(),
                "rows": views.round_rows(director, current) if current else [],
                "byes": views.bye_rows(director, current) if current else [],
                "groups": director.seats(current) if current else {},
                "names": names, "clock": clock,
                "time_left": director.round_time_left(clock) if clock else None,
                "note": director.round_note(current) if current else "",
                "unfinished": len(director._unfinished(current))
                if current and director.round_start(current) is not None else 0}

    def results(request: Request) -> dict[str, Any]:
        director._event()
        current = director.current_round()
        round_no = _query_int(request, "round", current)
        round_no = min(max(round_no, 1), max(current, 1))
        rows = views.round_rows(director, round_no) if current else []
        show = _shown(request, triage.MATCH_FILTERS)
        table = _query_int(request, "table", 0)
        return {"round": round_no, "current": current, "show": show, "total": len(rows),
                "rows": triage.chosen(rows, triage.MATCH_FILTERS, show),
                "counts": triage.counted(rows, triage.MATCH_FILTERS),
                "attention": triage.ATTENTION,
                "byes": views.bye_rows(director, round_no) if current and not show else [],
                "kinds": RULING_KINDS, "table": table,
                "chosen": next((r for r in rows if r.table == table), None),
                "individual": director._event().format == "individual-groups",
                "seats": director.seats(round_no) if current else {},
                "names": director.team_names()}

    def standings(request: Request) -> dict[str, Any]:
        director._event()
        everyone = views.standing_rows(director)
        query = request.query_params.get("q", "").strip()[:40]
        return {"standings": [s for s in everyone
                              if triage.found(query, s.team, s.name, s.unit)],
                "query": query, "total": len(everyone)}

    def rulings(request: Request) -> dict[str, Any]:
        director._event()
        teams = {}
        for r in director.rulings(removed=True):
            ns, ew = director._teams_at(r.round, r.table)
            teams[r.id] = (director.label(ns), director.label(ew))
        return {"rulings": director.rulings(removed=True), "teams": teams}

    def tables(request: Request) -> dict[str, Any]:
        director._event()
        now = director.clock()
        count = director.table_count()
        known = (director.store.links(), director.store.paired_tables())
        links = {n: views.link_state(director, n, now, known) for n in range(1, count + 1)}
        problems = [(n, p) for n in range(1, count + 1) for p in director.unscored(n)]
        conflicts = director.store.conflicts()
        report = fleet.view(director, now)  # versions, health, clocks (fleet.py)
        troubled = {n for n, _ in problems} | {c["table"] for c in conflicts} | \
            {n for n, k in report["kiosks"].items() if k["bad"]}
        every = [{"table": n, "paired": n in known[1], "link": links[n],
                  "problem": n in troubled} for n in range(1, count + 1)]
        show = _shown(request, triage.TABLE_FILTERS)
        asked = _query_int(request, "table", 0)  # the finder: one table's row alone
        shown = [asked] if 1 <= asked <= count else \
            [t["table"] for t in triage.chosen(every, triage.TABLE_FILTERS, show)]
        return {"count": count, "paired": known[1], "codes": director.store.open_codes(now),
                "shown": shown, "asked": asked,
                "show": show, "counts": triage.counted(every, triage.TABLE_FILTERS),
                "pairings": director.store.pairings(),
                "code_states": director.store.code_states(now),
                "conflicts": conflicts, "links": links, "problems": problems,
                "orphans": len(director.store.orphans()), "muted": director.muted(),
                "in_use": director.tables_in_use(), "fleet": report}

    def printing(request: Request) -> dict[str, Any]:
        director._event()
        current = director.current_round()  # the published rounds are 1 … current
        chosen = min(max(_query_int(request, "round", current), 1), max(current, 1))
        return {"current": current, "round": chosen}

    def log(request: Request) -> dict[str, Any]:
        return {"entries": list(reversed(director.audit_log()))}

    def sheet(request: Request) -> dict[str, Any]:
        from ..printing.pages import sheet_context

        round_no = _query_int(request, "round", director.current_round())
        table = _query_int(request, "table", 0)
        return {"sheet": sheet_context(director, round_no, table, lang_of(request))}

    # -- operations -------------------------------------------------------------------------

    def create_event(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        rounds_given = _int(form, "rounds", "admin.label.rounds", default=0)
        minutes = _float(form, "minutes", "admin.label.minutes", default=None)
        seed = _int(form, "seed", "admin.label.seed", default=None)
        event = director.create_event(_text(form, "name"), _text(form, "ruleset"),
                                      rounds_given or None, minutes, seed, by=who)
        return "admin.note.event_created", {"name": event.name}

    def edit_event(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        """The fields the form sent (a locked one is not sent: it stays as it is)."""
        rounds = _int(form, "rounds", "admin.label.rounds", default=None)
        minutes = _float(form, "minutes", "admin.label.minutes", default=None)
        changed, unpaired = director.edit_event(
            _text(form, "name") if "name" in form else None,
            _text(form, "ruleset") if "ruleset" in form else None, rounds, minutes,
            confirm=_confirmed(form), by=who)
        if unpaired:
            return "admin.note.event_edited_codes", {"tables": "、".join(map(str, unpaired))}
        return ("admin.note.event_edited" if changed else "admin.note.event_unchanged"), {}

    def bye_points(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        points = _int(form, "points", "admin.label.bye_points")
        director.set_bye_points(points, _confirmed(form), by=who)
        return "admin.note.bye_points", {"points": points}

    async def import_teams(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        upload = form.get("file")
        if isinstance(upload, UploadFile) and upload.filename:
            data = await upload.read()
        elif form.get("file_b64"):
            try:
                data = base64.b64decode(str(form.get("file_b64")), validate=True)
            except binascii.Error:
                raise _Said("admin.error.choose_file") from None
        else:
            raise _Said("admin.error.choose_file")
        report = director.import_teams(data, confirm=_confirmed(form),
                                       missed_points=_int(form, "missed_points",
                                                          "admin.label.missed_points",
                                                          default=0), by=who)
        if report.joined_round > 1:
            return "admin.note.imported_late", {"n": len(report.added),
                                                "round": report.joined_round}
        if report.ignored:
            return "admin.note.imported_ignored", {"n": len(report.added),
                                                   "ignored": "、".join(report.ignored)}
        return "admin.note.imported", {"n": len(report.added)}

    def add_team(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        team = director.add_team(
            _text(form, "name"), _text(form, "unit"), _players(form),
            _text(form, "id"), confirm=_confirmed(form),
            missed_points=_int(form, "missed_points", "admin.label.missed_points", default=0),
            by=who)
        return "admin.note.team_added", {"team": director.label(team)}

    def edit_team(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        team = _text(form, "team")
        director.edit_team(team, _text(form, "name"), _text(form, "unit"), _players(form),
                           confirm=_confirmed(form), by=who)
        return "admin.note.team_edited", {"team": director.label(team)}

    def delete_team(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        team = director.team(_text(form, "team"))
        director.delete_team(team.id, confirm=_confirmed(form), by=who)
        return "admin.note.team_deleted", {"team": f"{team.name} ({team.id})"}

    def withdraw(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        team = _text(form, "team")
        after = _int(form, "after_round", "admin.label.after_round", default=None)
        if after is None and form.get("when") == "now":  # out of the match it has not played
            after = director.current_round() - 1
        director.withdraw(team, after, confirm=_confirmed(form), by=who)
        return "admin.note.withdrawn", {"team": director.label(director.team(team).id)}

    def reinstate(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        team = _text(form, "team")
        director.reinstate(team, confirm=_confirmed(form), by=who)
        return "admin.note.reinstated", {"team": director.label(director.team(team).id)}

    def tables_op(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        count = _int(form, "count", "admin.label.tables")
        before = director.store.open_codes()
        codes = director.add_tables(count, by=who)
        issued = sum(1 for table, code in codes.items() if before.get(table) != code)
        return "admin.note.tables", {"count": count, "codes": issued}

    def swap_kiosk(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        table = _int(form, "table", "admin.label.table")
        code = director.swap(table, confirm=_confirmed(form), by=who)
        return "admin.note.kiosk_swapped", {"table": table, "code": code}

    def new_code(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        table = _int(form, "table", "admin.label.table")
        return "admin.note.new_code", {"table": table, "code": director.new_code(table, by=who)}

    async def draft(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        await prepare_pairing(director)  # in the worker: the event loop goes on meanwhile
        made = director.make_draft(by=who, confirm=_confirmed(form))
        return "admin.note.drafted", {"round": made.round}

    def discard(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        director.discard_draft(by=who, confirm=_confirmed(form))
        return "admin.note.discarded", {}

    def swap_teams(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        a = _text(form, "first") or _required("admin.rounds.first_team")
        b = _text(form, "second") or _required("admin.rounds.second_team")
        director.swap_teams(a, b, by=who)
        return "admin.note.swapped_teams", {"first": director.label(director.team(a).id),
                                            "second": director.label(director.team(b).id)}

    def swap_tables(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        a = _int(form, "first", "admin.label.table")
        b = _int(form, "second", "admin.label.table")
        director.swap_tables(a, b, by=who)
        return "admin.note.swapped_tables", {"first": a, "second": b}

    def swap_sides(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        table = _int(form, "table", "admin.label.table")
        director.swap_sides(table, by=who)
        return "admin.note.swapped_sides", {"table": table}

    async def publish(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        await prepare_pairing(director)  # (publishing without a draft drafts it first)
        return "admin.note.published", {"round": director.publish(_confirmed(form), by=who)}

    def undo(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        return "admin.note.undone", {"round": director.undo_round(_confirmed(form), by=who)}

    def start(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        seconds = _float(form, "start_in", "admin.label.start_in", default=30.0)
        return "admin.note.started", {"round": director.start_clock(seconds, by=who),
                                      "seconds": round(seconds)}

    def clock(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        action = _text(form, "action")
        if action == "pause":
            director.pause_clock(by=who)
        elif action == "resume":
            director.resume_clock(by=who)
        elif action == "extend":
            minutes = _float(form, "minutes", "admin.label.extend_minutes")
            director.extend_clock(minutes, by=who)
            return "admin.note.clock_extend", {"minutes": _number(minutes)}
        elif action == "stop":
            director.stop_clock(_confirmed(form), by=who)
        else:
            raise _Said("admin.error.clock_action")
        return f"admin.note.clock_{action}", {}

    def ruling(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        kind = _text(form, "kind")
        net = _int(form, "net", "admin.label.net", default=0) if kind == "adjusted" else 0
        made = director.record_ruling(
            _int(form, "table", "admin.label.table"), kind, _text(form, "loser"),
            _text(form, "reason"), _int(form, "round", "admin.label.round"), net, by=who)
        return "admin.note.ruled", {"round": made.round, "table": made.table}

    def unrule(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        removed = director.remove_ruling(_int(form, "ruling", "admin.label.ruling"),
                                         _text(form, "reason"), _confirmed(form), by=who)
        return "admin.note.unruled", {"round": removed.round, "table": removed.table}

    def mute(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        director.mute(form.get("on") == "1", by=who)
        return ("admin.note.muted" if director.muted() else "admin.note.unmuted"), {}

    def close(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        director.close_event(_confirmed(form), by=who)
        return "admin.note.closed", {}

    def clock_ok(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        """The head referee checked the scorer's clock by hand (fleet.py)."""
        if director.scorer_clock is None:
            raise refuse("fleet.admin.clock_unknown")
        director.scorer_clock.confirm()
        return "fleet.admin.clock_confirmed", {}

    def reopen(form: FormData, who: str) -> tuple[str, dict[str, Any]]:
        director.reopen_event(_text(form, "reason"), by=who)
        return "admin.note.reopened", {}

    pages: dict[str, Callable[[Request], dict[str, Any]]] = {
        "overview": overview, "teams": teams, "rounds": rounds, "results": results,
        "standings": standings, "rulings": rulings, "tables": tables, "print": printing,
        "log": log, "sheet": sheet}
    ops: dict[str, tuple[Handler, str]] = {
        "event": (create_event, "/admin"), "edit-event": (edit_event, "/admin"),
        "bye-points": (bye_points, "/admin"),
        "import": (import_teams, "/admin/teams"), "add-team": (add_team, "/admin/teams"),
        "edit-team": (edit_team, "/admin/teams"), "delete-team": (delete_team, "/admin/teams"),
        "withdraw": (withdraw, "/admin/teams"), "reinstate": (reinstate, "/admin/teams"),
        "tables": (tables_op, "/admin/tables"), "swap-kiosk": (swap_kiosk, "/admin/tables"),
        "new-code": (new_code, "/admin/tables"),
        "mute": (mute, "/admin/tables"), "draft": (draft, "/admin/rounds"),
        "discard": (discard, "/admin/rounds"), "swap-teams": (swap_teams, "/admin/rounds"),
        "swap-tables": (swap_tables, "/admin/rounds"),
        "swap-sides": (swap_sides, "/admin/rounds"), "publish": (publish, "/admin/rounds"),
        "undo": (undo, "/admin/rounds"), "start": (start, "/admin/rounds"),
        "clock": (clock, "/admin/rounds"), "ruling": (ruling, "/admin/results"),
        "unrule": (unrule, "/admin/rulings"), "close": (close, "/admin"),
        "reopen": (reopen, "/admin"), "clock-ok": (clock_ok, "/admin/tables")}
    return [Route("/admin", screen("overview", overview)),
            *[Route(f"/admin/{name}", screen(name, build), methods=["GET"])
              for name, build in pages.items() if name != "overview"],
            Route("/admin/login", login_page, methods=["GET"]),
            Route("/admin/login", login, methods=["POST"]),
            Route("/admin/logout", logout, methods=["POST"]),
            Route("/admin/export/{name}", private_export, methods=["GET"]),
            Route("/admin/print/codes.{ext}", codes_print, methods=["GET"]),
            Route("/admin/print/jobs/{job}.pdf", codes_job, methods=["GET"]),
            Route("/admin/print/jobs/{job}", codes_job, methods=["GET"]),
            *[Route(f"/admin/{name}", operation(op, back), methods=["POST"])
              for name, (op, back) in ops.items()]]


def next_step(director: Director) -> tuple[str, dict[str, Any]]:
    """What the head referee does next, as a catalog key and its parameters."""
    event = director._event()
    if event.status == "closed":
        return "admin.next.closed", {}
    if not director.team_rows():
        return "admin.next.teams", {}
    if not director.table_count():
        return "admin.next.tables", {}
    current = director.current_round()
    if current and director.round_start(current) is None:
        return "admin.next.start", {"round": current}
    if current and not director.round_over(current):
        rows = views.round_rows(director, current)
        left = sum(1 for r in rows if r.result is None)
        needs = triage.attention_words(rows)
        if needs is None:
            return "admin.next.playing", {"round": current, "n": left}
        return "admin.next.playing_attention", {"round": current, "n": left, "needs": needs}
    if event.rounds and current >= event.rounds:
        return "admin.next.close", {}
    if director.current_draft() is not None:
        return "admin.next.publish", {"round": current + 1}
    return "admin.next.draft", {"round": current + 1}


class _Said(AdminError):
    """A refusal made here, from the form (an empty field, not a number)."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.explained(key, **params)


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _required(label: str) -> Any:
    raise _Said("admin.error.required", field=label)


def _players(form: FormData) -> tuple[str, ...]:
    return tuple(_text(form, f"player{i}") for i in range(1, 5))


def _confirmed(form: FormData) -> bool:
    return form.get("confirmed") == "1"


_MISSING: Any = object()


def _int(form: FormData, name: str, label: str, default: Any = _MISSING) -> Any:
    text = _text(form, name)
    if not text:
        if default is _MISSING:
            raise _Said("admin.error.required", field=label)
        return default
    try:
        return int(text)
    except ValueError:
        raise _Said("admin.error.whole_number", field=label, value=text[:20]) from None


def _float(form: FormData, name: str, label: str, default: Any = _MISSING) -> Any:
    text = _text(form, name)
    if not text:
        if default is _MISSING:
            raise _Said("admin.error.required", field=label)
        return default
    try:
        value = float(text)
    except ValueError:
        raise _Said("admin.error.number", field=label, value=text[:20]) from None
    if not math.isfinite(value):
        raise _Said("admin.error.number", field=label, value=text[:20])
    return value


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _query_int(request: Request, name: str, default: int) -> int:
    try:
        return int(request.query_params.get(name, default))
    except ValueError:
        return default


def _shown(request: Request, filters: dict[str, Any]) -> str:
    """The filter the address asks for (`?show=`), or "" (everything)."""
    show = request.query_params.get("show", "")
    return show if show in filters else ""


def _duplicates(rows: list[Any]) -> set[str]:
    seen: dict[str, int] = {}
    for r in rows:
        seen[r.name] = seen.get(r.name, 0) + 1
    return {name for name, n in seen.items() if n > 1}


def _safe_back(target: str) -> str:
    """Only a page of this console (never another site)."""
    path = target.split("?")[0]
    return target if path.startswith("/admin") and "//" not in target else "/admin"


# Signs the messages this console puts in its own redirects, so that a link made elsewhere
# cannot show its words in the console's notice box (a new key at each start: a message in an
# address from before a restart is simply not shown).
_FLASH_KEY = secrets.token_bytes(32)


def _flash_signature(fields: list[tuple[str, str]]) -> str:
    return hmac.new(_FLASH_KEY, urlencode(fields).encode(), hashlib.sha256).hexdigest()[:32]


def _back(target: str, kind: str, said: Any) -> RedirectResponse:
    """Back to a page with a message: its catalog key and parameters in the address, signed
    (only catalog sentences are ever shown, with their parameters as text)."""
    params = [(f"p_{k}", str(v)) for k, v in (getattr(said, "params", None) or {}).items()]
    fields = [("flash", getattr(said, "key", None) or "error.unexpected"), ("kind", kind),
              *params]
    query = urlencode([*fields, ("sig", _flash_signature(fields))])
    target, mark, anchor = target.partition("#")  # a row to land on (#t437) goes last
    separator = "&" if "?" in target else "?"
    return RedirectResponse(f"{target}{separator}{query}{mark}{anchor}", status_code=303)


def _flash(request: Request, lang: str) -> tuple[str, str] | None:
    """The message a redirect of this console carried: (kind, text), or None."""
    fields = [(k, v) for k, v in request.query_params.multi_items()
              if k in ("flash", "kind") or k.startswith("p_")]
    if not hmac.compare_digest(request.query_params.get("sig", ""), _flash_signature(fields)):
        return None
    key = request.query_params.get("flash", "")
    if not key.startswith(("admin.", "roster.", "error.")):
        return None
    params = {k[2:]: v for k, v in fields if k.startswith("p_")}
    try:
        text = words(lang)(key, **params)
    except (KeyError, IndexError, ValueError):
        return None
    kind = request.query_params.get("kind")
    return ("error" if kind == "error" else "note"), text


async def _login_form(request: Request) -> dict[str, str] | None:
    """The name and password of a login form: a small urlencoded form (a multipart upload or
    a body over MAX_LOGIN bytes is never read), or None."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    size = request.headers.get("content-length", "")
    if kind != "application/x-www-form-urlencoded" or not size.isdigit() or \
            int(size) > MAX_LOGIN:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_LOGIN:
            return None
    fields = parse_qs(body.decode("utf-8", "replace"))
    return {name: fields.get(name, [""])[0] for name in ("password", "who")}
