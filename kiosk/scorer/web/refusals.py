"""The page a person sees when the scorer cannot give what was asked: a wrong address (404),
a wrong method (405), any other HTTP error, an unexpected failure (500), a print refused. A
short page in the visitor's language (`templating.lang_of`), never the framework's English;
under /api/, for a program (not a browser), the same words as JSON."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ...i18n import catalog
from ..printing.templating import lang_of, render, words


def page(request: Request, status: int, key: str, /, **params: Any) -> Response:
    """A refusal saying catalog `key` with `params` (a `status` among them: web.http.other),
    with the HTTP `status`."""
    lang = lang_of(request)
    said = words(lang)(key, **params)
    if request.url.path.startswith("/api/") and \
            "text/html" not in request.headers.get("accept", ""):  # a program, not a browser
        return JSONResponse({"error": key, "key": key, "params": params, "message": said},
                            status_code=status)
    return HTMLResponse(render("refusal.html", lang, message=said,
                               admin=request.url.path.startswith("/admin")),
                        status_code=status)


def status_key(status: int) -> tuple[str, dict[str, Any]]:
    """The words for an HTTP status: its own, or the general ones naming the number."""
    key = f"web.http.{status}"
    return (key, {}) if key in catalog("en") else ("web.http.other", {"status": status})


async def http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    key, params = status_key(status)
    reply = page(request, status, key, **params)
    if isinstance(exc, HTTPException) and exc.headers:  # a 405's Allow, for instance
        reply.headers.update(exc.headers)
    return reply


async def failure(request: Request, exc: Exception) -> Response:
    """An exception nothing caught: the person reads that it was not done (the traceback
    goes to the log, as the server error middleware does after this answer)."""
    return page(request, 500, "web.http.500")


async def gone(request: Request, exc: Exception) -> Response:
    """The client went before its body was in (or the body's deadline cut it off, answered
    408 already): nobody to answer, and no failure of the scorer's."""
    return Response(status_code=400)  # (dropped: the connection is gone)


HANDLERS: dict[Any, Any] = {HTTPException: http_error, ClientDisconnect: gone,
                            Exception: failure}
