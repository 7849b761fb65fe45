"""What every tab of the console shares: the session (a cookie, and the CSRF token each form
carries), the page around a tab's content, and the two kinds of endpoint a tab is made of —
a page (`screen`) and a form's operation (`operation`).

An operation that cannot be simply undone, or that overrides a warning, first shows what it
will do and asks again (`NeedsConfirmation` → confirm.html); a refused one shows its page
again with the refusal and the form as it was typed.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlencode

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


def to_login() -> RedirectResponse:
    return RedirectResponse("/admin/login", status_code=303)


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
    reply = HTMLResponse(render(f"admin/{template}.html", lang, flash=shown,
                                path=request.url.path, **context), status_code=status)
    if request.query_params.get("lang") in LANGS:
        reply.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="strict", path="/")
    return reply


def screen(name: str, build: PageBuilder) -> Endpoint:
    """The endpoint of tab `name`, whose content `build` reads."""
    async def endpoint(request: Request) -> Response:
        found = session(request)
        if found is None:
            return to_login()
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
        if found is None:
            return to_login()
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
    """What the operation will do, and the same form again with `confirmed`."""
    fields: list[tuple[str, str]] = []
    chosen_here = {c.field for c in exc.choices}  # (each choice's button sends its own)
    for name, value in form.multi_items():
        if name in ("csrf", "confirmed") or name in chosen_here:
            continue
        if isinstance(value, UploadFile):  # the file comes back as its bytes
            await value.seek(0)  # (the handler read it)
            fields.append(("file_b64", base64.b64encode(await value.read()).decode()))
        else:
            fields.append((name, str(value)))
    return page(request, "confirm", csrf=csrf, who=who, event=director_of(request).event(),
                tab="", message=explain(exc, lang_of(request)), action=request.url.path,
                fields=fields, back=back, choices=exc.choices)
