"""The head referee's admin page: a login with the scorer's password, a session cookie, and
one form per operation, each carrying the session's CSRF token. Every form calls the same
`Director` method as `kiosk scorer admin …`."""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from .director import RULING_KINDS, AdminError, Director, password_matches
from .roster import RosterError
from .store import StoreError
from .sync import FailureLimit
from .worker import prepare_pairing

COOKIE = "kiosk_admin"
MAX_UPLOAD = 2_000_000  # bytes: a roster of a few thousand rows

STYLE = """body{font-family:"Noto Sans CJK SC",sans-serif;max-width:60em;margin:1em auto;
padding:0 1em}
form{margin:.4em 0;padding:.5em;border:1px solid #ccc;border-radius:4px}
.error{color:#b00;font-weight:bold}.note{color:#060}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em}input,select,button{font-size:1em}"""


def routes(director: Director) -> list[Route]:
    wrong_passwords = FailureLimit(20, 60.0)

    def session(request: Request) -> str | None:
        """The CSRF token of the request's live session, or None."""
        token = request.cookies.get(COOKIE)
        return director.session_csrf(token) if token else None

    async def login_page(request: Request) -> HTMLResponse:
        return _page("登录 Log in", _form("/admin/login", "", "登录 Log in",
                                          '<input type="password" name="password" '
                                          'autofocus required>'),
                     request.query_params.get("error", ""))

    async def login(request: Request) -> Response:
        now = director.clock()
        if wrong_passwords.blocked(now):
            return _page("登录 Log in", "", "稍候再试 Too many wrong passwords: wait a minute",
                         status=429)
        form = await request.form()
        stored = director.store.setting("password")
        if not await run_in_threadpool(password_matches, stored,
                                       str(form.get("password", ""))):
            wrong_passwords.failed(now)
            return _page("登录 Log in", _form("/admin/login", "", "登录 Log in",
                                              '<input type="password" name="password">'),
                         "密码不对 Wrong password", status=403)
        token, _ = director.open_session()
        reply = RedirectResponse("/admin", status_code=303)
        reply.set_cookie(COOKIE, token, httponly=True, samesite="strict",
                         max_age=12 * 3600, path="/admin")
        return reply

    async def home(request: Request) -> Response:
        csrf = session(request)
        if csrf is None:
            return RedirectResponse("/admin/login", status_code=303)
        return _page("裁判长 Head referee", dashboard(director, csrf),
                     request.query_params.get("error", ""),
                     request.query_params.get("note", ""))

    def operation(handler: Callable[[FormData], Awaitable[str] | str]
                  ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            csrf = session(request)
            if csrf is None:
                return RedirectResponse("/admin/login", status_code=303)
            if int(request.headers.get("content-length") or 0) > MAX_UPLOAD:
                return _back(error="the upload is too large")
            form = await request.form(max_part_size=MAX_UPLOAD)
            if form.get("csrf") != csrf:
                return HTMLResponse("bad or missing CSRF token", status_code=403)
            try:
                note = handler(form)
                if not isinstance(note, str):
                    note = await note
            except (AdminError, RosterError, StoreError, ValueError) as exc:
                return _back(error=str(exc))
            return _back(note=note)
        return endpoint

    def create_event(form: FormData) -> str:
        minutes = str(form.get("minutes", "")).strip()
        event = director.create_event(
            str(form.get("name", "")), str(form.get("ruleset", "")),
            int(str(form.get("rounds") or 0)) or None, float(minutes) if minutes else None)
        return f"event {event.name} created"

    async def import_teams(form: FormData) -> str:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise AdminError("choose a CSV file")
        return f"{director.import_teams(await upload.read())} teams imported"

    def tables(form: FormData) -> str:
        codes = director.add_tables(int(str(form.get("count", "0"))))
        return f"{len(codes)} pairing codes issued"

    def swap(form: FormData) -> str:
        table = int(str(form.get("table", "0")))
        return f"table {table}: old kiosk revoked; pair the new one with {director.swap(table)}"

    async def start_round(form: FormData) -> str:
        await prepare_pairing(director)  # in the worker: the loop goes on meanwhile
        return f"round {director.start_round(float(str(form.get('start_in') or 30)))} starts"

    def ruling(form: FormData) -> str:
        director.record_ruling(int(str(form.get("table", "0"))), str(form.get("kind", "")),
                               str(form.get("loser", "")), str(form.get("reason", "")),
                               net=int(str(form.get("net") or 0)))
        return "ruling recorded"

    def withdraw(form: FormData) -> str:
        director.withdraw(str(form.get("team", "")))
        return "withdrawal recorded"

    def mute(form: FormData) -> str:
        director.mute(form.get("on") == "1")
        return "the hall's buzzers are " + ("muted" if director.muted() else "on")

    def close(form: FormData) -> str:
        director.close_event()
        return "the event is closed"

    async def logout(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token and session(request):
            form = await request.form()
            if form.get("csrf") == session(request):
                director.close_session(token)
        reply = RedirectResponse("/admin/login", status_code=303)
        reply.delete_cookie(COOKIE, path="/admin")
        return reply

    ops: dict[str, Callable[[FormData], Any]] = {
        "event": create_event, "teams": import_teams, "tables": tables, "swap": swap,
        "round": start_round, "ruling": ruling, "withdraw": withdraw, "mute": mute,
        "close": close}
    return [Route("/admin", home), Route("/admin/login", login_page, methods=["GET"]),
            Route("/admin/login", login, methods=["POST"]),
            Route("/admin/logout", logout, methods=["POST"]),
            *[Route(f"/admin/{name}", operation(op), methods=["POST"])
              for name, op in ops.items()]]


def dashboard(director: Director, csrf: str) -> str:
    e = html.escape
    event = director.event()
    parts = []
    if event is None:
        options = "".join(f'<option value="{e(r)}">{e(r)}</option>' for r in director.rulesets)
        parts.append(_form("/admin/event", csrf, "创建赛事 Create the event",
                           '名称 Name <input name="name" required> 规则 Ruleset '
                           f'<select name="ruleset">{options}</select> 轮数 Rounds '
                           '<input name="rounds" size="3"> 每局分钟 Minutes '
                           '<input name="minutes" size="4">'))
    else:
        parts.append(f"<p><b>{e(event.name)}</b> · {e(event.ruleset)} "
                     f"(sha256 {e(event.ruleset_sha256[:12])}…) · {e(event.format)} · "
                     f"round {director.current_round()}/{event.rounds} · {e(event.status)}</p>")
        parts.append(_form("/admin/teams", csrf, "导入队伍 Import teams (CSV, UTF-8 or GBK)",
                           '<input type="file" name="file" accept=".csv,text/csv">',
                           multipart=True))
        parts.append(_form("/admin/tables", csrf, "设置桌数 Set the tables",
                           f'<input name="count" size="4" value="{director.table_count()}">'))
        parts.append(_form("/admin/round", csrf, "开始下一轮 Start the next round",
                           '开始于 in <input name="start_in" size="4" value="30"> s'))
        kinds = "".join(f"<option>{k}</option>" for k in RULING_KINDS)
        parts.append(_form("/admin/ruling", csrf, "记录裁决 Record a ruling",
                           'table <input name="table" size="3"> <select name="kind">'
                           f'{kinds}</select> loser <select name="loser"><option>NS</option>'
                           '<option>EW</option></select> net <input name="net" size="2" '
                           'value="0"> reason <input name="reason" required>'))
        teams = "".join(f'<option value="{e(t.id)}">{e(t.id)} {e(t.name)}</option>'
                        for t in director.teams())
        parts.append(_form("/admin/withdraw", csrf, "退赛 Withdraw a team",
                           f'<select name="team">{teams}</select>'))
        parts.append(_form("/admin/swap", csrf, "更换平板 Swap a table's kiosk",
                           'table <input name="table" size="3">'))
        muted = director.muted()
        parts.append(_form("/admin/mute", csrf, "恢复蜂鸣 Unmute" if muted else
                           "全场静音 Mute the hall's buzzers",
                           f'<input type="hidden" name="on" value="{"0" if muted else "1"}">'))
        parts.append(_form("/admin/close", csrf, "结束赛事 Close the event", ""))
        parts.append(codes_table(director))
        orphans = director.store.orphans()
        if orphans:  # events an import could not place: kept, for the head referee to see
            parts.append(f'<p class="error">{len(orphans)} imported events are kept aside: '
                         "their places in their tables' sequences were taken (see the "
                         "store's orphans table)</p>")
        problems = [(n, p) for n in range(1, director.table_count() + 1)
                    for p in director.problems(n)]
        parts += [f'<p class="error">table {n}: {e(p)}</p>' for n, p in problems]
        parts.append('<p><a href="/api/export/results.csv">results.csv</a> · '
                     '<a href="/api/export/results.json">results.json</a> · '
                     '<a href="/api/export/sheets.txt">score sheets</a> · '
                     '<a href="/">hall page</a></p>')
    parts.append(_form("/admin/logout", csrf, "退出 Log out", ""))
    return "\n".join(parts)


def codes_table(director: Director) -> str:
    paired = director.store.paired_tables()
    codes = director.store.open_codes()
    rows = "".join(
        f"<tr><td>{n}</td><td>{html.escape(paired.get(n, ''))}</td>"
        f"<td>{codes.get(n, '')}</td></tr>" for n in range(1, director.table_count() + 1))
    return ("<table><tr><th>table</th><th>kiosk</th><th>pairing code</th></tr>"
            f"{rows}</table>")


def _form(action: str, csrf: str, label: str, fields: str, multipart: bool = False) -> str:
    enctype = ' enctype="multipart/form-data"' if multipart else ""
    token = f'<input type="hidden" name="csrf" value="{html.escape(csrf)}">' if csrf else ""
    return (f'<form method="post" action="{action}"{enctype}>{token}{fields} '
            f'<button>{html.escape(label)}</button></form>')


def _page(title: str, body: str, error: str = "", note: str = "", status: int = 200
          ) -> HTMLResponse:
    e = html.escape
    flash = (f'<p class="error">{e(error)}</p>' if error else "") + \
        (f'<p class="note">{e(note)}</p>' if note else "")
    return HTMLResponse(f'<!doctype html><html><head><meta charset="utf-8">'
                        f'<meta name="viewport" content="width=device-width">'
                        f"<title>{e(title)}</title><style>{STYLE}</style></head>"
                        f"<body><h1>{e(title)}</h1>{flash}{body}</body></html>",
                        status_code=status)


def _back(error: str = "", note: str = "") -> RedirectResponse:
    query = urlencode({"error": error} if error else {"note": note})
    return RedirectResponse(f"/admin?{query}", status_code=303)
