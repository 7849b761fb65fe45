"""Logging in with the scorer's password (a session cookie for 12 hours) and out."""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ...director import access
from . import flash
from .console import COOKIE, director_of, page, session

MAX_LOGIN = 1_000  # bytes of the login form (a name and a password), or the logout's


def limiter() -> access.Limiter:
    """The login attempts' limit (app.state.logins): one hash at a time bounds the CPU."""
    return access.Limiter(per_source=10, ceiling=600)


def next_page(asked: str) -> str:
    """Where a login goes: the console page it was sent from (`?next=`), only ever a page of
    this console (never another site: no open redirect), else the overview."""
    target = flash.safe_back(asked) if asked else "/admin"
    path = target.split("?")[0].split("#")[0]
    return "/admin" if path in ("/admin/login", "/admin/logout", "/admin/confirm") \
        else target


async def login_page(request: Request) -> Response:
    """The login; `?expired=1`: a form was sent after the session ended, and was not done."""
    return page(request, "login", csrf="", event=director_of(request).event(), who="",
                next=next_page(request.query_params.get("next", "")),
                expired=request.query_params.get("expired") == "1")


async def login(request: Request) -> Response:
    director = director_of(request)
    now, source = director.clock(), request.client.host if request.client else "?"
    logins: access.Limiter = request.app.state.logins
    wait = logins.attempt(source, now)  # counted before anything is awaited
    if wait:
        return page(request, "login", 429, csrf="", event=director.event(), who="",
                    error="security.login-wait", error_params={"s": int(wait) + 1})
    form = await _small_form(request, ("password", "who", "next"))
    if form is None:
        return page(request, "login", 413, csrf="", event=director.event(), who="",
                    error="security.login-form")
    going = next_page(form["next"])
    if not await access.checked(director.store.setting("password"), form["password"]):
        return page(request, "login", 403, csrf="", event=director.event(), who=form["who"],
                    error="admin.login.wrong", next=going)
    logins.forgive(source)
    token, _ = director.open_session(form["who"])
    reply = RedirectResponse(going, status_code=303)
    # Secure: a browser never sends it over plain HTTP, even to this host (an address
    # typed as http:// would otherwise hand the session to whoever relays the Wi-Fi).
    reply.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=12 * 3600,
                     path="/admin", secure=request.url.scheme == "https")
    return reply


async def logout(request: Request) -> Response:
    token = request.cookies.get(COOKIE)
    found = session(request)
    if token and found:
        form = await _small_form(request, ("csrf",))
        if form is not None and form["csrf"] == found[0]:
            director_of(request).close_session(token)
    reply = RedirectResponse("/admin/login", status_code=303)
    reply.delete_cookie(COOKIE, path="/admin")
    return reply


async def _small_form(request: Request, names: tuple[str, ...]) -> dict[str, str] | None:
    """The fields `names` of a small urlencoded form (a multipart upload, a body that does not
    say its length or one over MAX_LOGIN bytes is never read), or None."""
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
    return {name: fields.get(name, [""])[0] for name in names}
