"""What every tab of the console shares: the session (a cookie, and the CSRF token each form
carries), the page around a tab's content, and the two kinds of endpoint a tab is made of —
a page (`screen`) and a form's operation (`operation`).

An operation that cannot be simply undone, or that overrides a warning, first shows what it
will do and asks again (`NeedsConfirmation` → a page of its own, /admin/confirm?id=…, which
confirm.html shows); a refused one shows its page again with the refusal and the form as it
was typed. Without a live session (it expired, or the password changed) a page and a form
both go to the login, which comes back to where they were; a form says it was not done.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ....errors import AdminError, NeedsConfirmation, RosterError, StoreError
from ....i18n import LANGS, explain
from ...director import Director
from ...printing.templating import LANG_COOKIE, lang_of, render, words
from .. import refusals
from . import flash
from .forms import Said

COOKIE = "kiosk_admin"
MAX_UPLOAD = 2_000_000  # bytes: a roster of a few thousand rows

#: A tab's content: what its template shows, read from the director and the address.
PageBuilder = Callable[[Director, Request], dict[str, Any]]
#: A form's operation: (director, form, who) -> what to say (a catalog key, its parameters).
Handler = Callable[[Director, FormData, str], "Awaitable[Said] | Said"]
Endpoint = Callable[[Request], Awaitable[Response]]


def director_of(request: Request) -> Director:
    return request.app.state.director  # type: ignore[no-any-return]


def session(request: Request) -> tuple[str, str] | None:
    """(CSRF token, who) of the request's live session, or None."""
    token = request.cookies.get(COOKIE)
    return director_of(request).session(token) if token else None


def to_login(back: str = "", expired: bool = False) -> RedirectResponse:
    """To the login page, which comes back to `back` (a page of this console) after it;
    `expired`: a form was sent without a live session, and the login says it was not done."""
    fields = [("next", back)] if back and back != "/admin" else []
    if expired:
        fields.append(("expired", "1"))
    return RedirectResponse("/admin/login" + ("?" + urlencode(fields) if fields else ""),
                            status_code=303)


def here(request: Request) -> str:
    """The address of the page asked for, as a login comes back to it."""
    query = request.url.query
    return request.url.path + ("?" + query if query else "")


MAX_PEEK = 8_000  # bytes of a form read without a session, for the page it came from


async def came_from(request: Request, back: str) -> str:
    """The page a form sent without a live session came from: its `back` field (a small
    urlencoded form is read for it, never an upload), else the tab's page `back`."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    size = request.headers.get("content-length", "")
    if kind == "application/x-www-form-urlencoded" and size.isdigit() and \
            int(size) <= MAX_PEEK:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_PEEK:
                return back
        sent = parse_qs(body.decode("utf-8", "replace")).get("back", [""])[0]
        if sent:
            return flash.safe_back(sent)
    return back


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A console page (admin/<template>.html) in the head referee's language."""
    lang = lang_of(request)
    shown = context.pop("flash", None) or flash.shown(request, lang)
    context.setdefault("director", director_of(request))
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
    kept_query = [(k, v) for k, v in request.query_params.multi_items()
                  if k not in ("lang", "flash", "kind", "sig") and not k.startswith(("p_", "w_"))]

    def in_lang(code: str) -> str:
        """This page's address in another language: its own query kept (a confirmation's
        id, a filter), never a message's fields (nor what a forged link put in them)."""
        return "?" + urlencode([*kept_query, ("lang", code)])
    context["in_lang"] = in_lang
    reply = HTMLResponse(render(f"admin/{template}.html", lang, flash=shown,
                                path=request.url.path, **context), status_code=status)
    if request.query_params.get("lang") in LANGS:
        reply.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="strict", path="/")
    return reply


def screen(name: str, build: PageBuilder) -> Endpoint:
    """The endpoint of tab `name`, whose content `build` reads."""
    async def endpoint(request: Request) -> Response:
        found = session(request)
        if found is None:  # (a bookmarked page: the login comes back to it)
            return to_login(here(request))
        csrf, who = found
        director = director_of(request)
        try:
            context = build(director, request)
        except AdminError as exc:
            return flash.refusal("/admin", exc)
        return page(request, name, csrf=csrf, who=who, event=director.event(), tab=name,
                    **context)
    return endpoint


def operation(handler: Handler, back: str, pages: Mapping[str, PageBuilder]) -> Endpoint:
    """The endpoint of a form: checks the session and its CSRF token, runs `handler`, and
    goes back to the form's page (`back`, or the form's own `back` field) saying how it went;
    `pages` rebuild the page a refused form was on."""
    async def endpoint(request: Request) -> Response:
        found = session(request)
        if found is None:  # expired, or the password changed: the login says the form was
            # not done, and comes back to the page it was sent from to do it again
            return to_login(await came_from(request, back), expired=True)
        csrf, who = found
        size = request.headers.get("content-length", "")
        if not size.isdigit():  # (a browser says how long a form is; a chunked body is
            # read whole by the form parser, whatever its size)
            return refusals.page(request, 411, "web.http.411")
        if int(size) > MAX_UPLOAD:
            return flash.back(back, "error", "admin.error.upload_large")
        form = await request.form(max_part_size=MAX_UPLOAD)
        if form.get("csrf") != csrf:
            return HTMLResponse(words(lang_of(request))("admin.error.csrf"), status_code=403)
        target = flash.safe_back(str(form.get("back") or back))
        try:
            result = handler(director_of(request), form, who)
            if not isinstance(result, tuple):
                result = await result
        except NeedsConfirmation as exc:
            return await _confirm(request, form, csrf, who, exc, target)
        except (AdminError, RosterError, StoreError) as exc:
            return _refused(request, form, csrf, who, target, exc, pages)
        key, params = result
        asked = str(form.get("confirm_id") or "")
        if asked:  # the confirmation is answered: Back to it says so, and does nothing
            pending(request).answered(asked)
        return flash.back(target, "note", key, params)
    return endpoint


def _refused(request: Request, form: FormData, csrf: str, who: str, target: str,
             exc: Exception, pages: Mapping[str, PageBuilder]) -> Response:
    """The page the form was on, again, with the refusal and the form as it was typed
    (a redirect would lose what was typed; a file field cannot be given back)."""
    path, _, query = target.partition("#")[0].partition("?")
    if "lang" in request.query_params and "lang=" not in query:  # the page in the words
        query = "&".join(filter(None, [query, urlencode(  # of the refusal
            {"lang": request.query_params["lang"]})]))
    name = "overview" if path == "/admin" else path.removeprefix("/admin/")
    build = pages.get(name)
    if build is None:
        return flash.refusal(target, exc)
    again = Request({**request.scope, "method": "GET", "path": path,
                     "raw_path": path.encode(), "query_string": query.encode()})
    kept = {k: v for k, v in form.multi_items() if isinstance(v, str) and k != "csrf"}
    director = director_of(request)
    try:
        context = build(director, again)
    except AdminError:
        return flash.refusal(target, exc)
    say = words(lang_of(request))
    try:
        text = say(getattr(exc, "key", None) or "error.unexpected",
                   **(getattr(exc, "params", None) or {}))
    except (KeyError, IndexError, ValueError):
        text = say("error.unexpected")
    return page(again, name, 400, csrf=csrf, who=who, event=director.event(), tab=name,
                flash=("error", text), kept=kept, kept_action=request.url.path, **context)


async def _confirm(request: Request, form: FormData, csrf: str, who: str,
                   exc: NeedsConfirmation, back: str) -> Response:
    """What the operation will do, on a page of its own (POST → 303 → GET): the same form
    again with `confirmed`, kept here under a random id until it is answered."""
    fields: list[tuple[str, str]] = []
    chosen_here = {c.field for c in exc.choices}  # (each choice's button sends its own)
    for name, value in form.multi_items():
        if name in ("csrf", "confirmed", "confirm_id") or name in chosen_here:
            continue
        if isinstance(value, UploadFile):  # the file comes back as its bytes
            await value.seek(0)  # (the handler read it)
            fields.append(("file_b64", base64.b64encode(await value.read()).decode()))
        else:
            fields.append((name, str(value)))
    asked = pending(request).add(Asked(exc, request.url.path, tuple(fields), back))
    query = [("id", asked)]
    if request.query_params.get("lang") in LANGS:  # (the question in the words asked for)
        query.append(("lang", request.query_params["lang"]))
    return RedirectResponse(f"/admin/confirm?{urlencode(query)}", status_code=303)


@dataclass
class Asked:
    """A confirmation the console asked for: the question, the form to send again (its
    action and fields) and the page it came from; `answered` once its action was done."""

    question: NeedsConfirmation
    action: str
    fields: tuple[tuple[str, str], ...]
    back: str
    at: float = 0.0
    answered: bool = False

    def size(self) -> int:
        return sum(len(name) + len(value) for name, value in self.fields)


class Pending:
    """The confirmations asked for, by a random id (app.state.confirmations): the question is
    a page the browser can go back to. The newest are kept, within a count and a size (a
    team file sent back is up to 2.7 MB of base64), for a day at most."""

    MOST, BYTES, KEEP = 64, 16_000_000, 86_400.0

    def __init__(self) -> None:
        self.asked: OrderedDict[str, Asked] = OrderedDict()

    def add(self, asked: Asked) -> str:
        asked.at = time.monotonic()
        key = secrets.token_urlsafe(16)
        self.asked[key] = asked
        while len(self.asked) > self.MOST or (
                len(self.asked) > 1 and sum(a.size() for a in self.asked.values()) > self.BYTES):
            self.asked.popitem(last=False)
        return key

    def get(self, key: str) -> Asked | None:
        asked = self.asked.get(key)
        if asked is not None and time.monotonic() - asked.at > self.KEEP:
            del self.asked[key]
            return None
        return asked

    def answered(self, key: str) -> None:
        asked = self.asked.get(key)
        if asked is not None:
            asked.answered = True
            asked.fields = ()  # (what it would send again is no longer needed)


def pending(request: Request) -> Pending:
    state = request.app.state
    if getattr(state, "confirmations", None) is None:  # (an app made without it)
        state.confirmations = Pending()
    return state.confirmations  # type: ignore[no-any-return]


async def confirm_page(request: Request) -> Response:
    """GET /admin/confirm?id=…: the question, and the form that answers it. One already
    answered (Back from the page after it) goes back to where it came from, saying it was
    done: nothing is done twice. One unknown (the scorer restarted) says to do it again."""
    found = session(request)
    if found is None:
        return to_login(here(request))
    csrf, who = found
    asked = pending(request).get(request.query_params.get("id", ""))
    if asked is None:
        return flash.back("/admin", "error", "admin.error.confirm_gone")
    if asked.answered:
        return flash.back(asked.back, "note", "admin.note.confirm_done")
    exc = asked.question
    return page(request, "confirm", csrf=csrf, who=who, event=director_of(request).event(),
                tab="", message=explain(exc, lang_of(request)), action=asked.action,
                fields=asked.fields, back=asked.back, choices=exc.choices,
                confirm_id=request.query_params.get("id", ""))
