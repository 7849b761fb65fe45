"""The 打印 tab: the printed pages of a round (ahead of the public's in the print queue), the
pairing codes (secret, so only here), and the console's own exports (results.xlsx,
audit.csv)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from ....errors import PrintError
from ...director import Director
from ...printing.pages import codes_html, page_of
from ...printing.templating import lang_of, words
from .. import outputs, refusals
from . import forms
from .console import director_of, here, session, to_login


def printing(director: Director, request: Request) -> dict[str, Any]:
    director.require_event()
    current = director.current_round()  # the published rounds are 1 … current
    chosen = min(max(forms.query_int(request, "round", current), 1), max(current, 1))
    return {"current": current, "round": chosen}


async def private_export(request: Request) -> Response:
    if session(request) is None:
        return to_login(here(request))
    reply = await outputs.private_export(director_of(request), request.path_params["name"],
                                         lang_of(request))
    return reply or refusals.page(request, 404, "export.error.kind")


async def console_print(request: Request) -> Response:
    """A printed page for the console (`outputs.printed`: its PDFs go first), or the pairing
    codes to hand out (`printing.codes_html`), which only the console prints."""
    if session(request) is None:
        return to_login(here(request))
    if request.path_params["kind"] != "codes":
        return await outputs.printed(request, director_of(request), private=True)
    director = director_of(request)
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
        return refusals.page(request, 404, exc.key or "print.error.kind", **exc.params)


async def console_job(request: Request) -> Response:
    """A PDF of the console's being made (`outputs.job_page`)."""
    if session(request) is None:
        return to_login(here(request))
    return outputs.job_page(request, private=True)


PAGES = {"print": printing}
