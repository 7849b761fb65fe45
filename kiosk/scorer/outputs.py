"""Routes for what leaves the scorer: printed pages (`/print/KIND.html|pdf`) and exports
(`/api/export/…`), read-only like the hall page, each with a download name that says what it
is (the event, the round, the kind). The exports that hold the audit log are the console's
(`/admin/export/…`, `private_export`)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..i18n import DEFAULT_LANG, LANGS
from . import exports, printing, refusals
from .director import Director
from .templating import words


def _lang(request: Request) -> str | None:
    """The page's language: 简体中文 unless `?lang=` names another; None for one the product
    does not speak (the caller answers 400, in 简体中文 and English)."""
    lang = request.query_params.get("lang", DEFAULT_LANG)
    return lang if lang in LANGS else None


def _unknown_lang() -> Response:
    said = " / ".join(words(lang)("export.error.lang", langs=", ".join(LANGS))
                      for lang in (DEFAULT_LANG, "en"))
    return PlainTextResponse(said, status_code=400)


def _number(request: Request, name: str) -> int | None:
    """A round or table asked for by number; None when not asked. Anything else is refused
    (printing the latest round instead would hand out the wrong sheets)."""
    value = request.query_params.get(name)
    if value is None:
        return None
    if not value.isascii() or not value.isdigit() or int(value) < 1:
        raise printing.PrintError(f"print.error.bad_{name}", value=value[:20])
    return int(value)


def routes(director: Director) -> list[Route]:
    async def printed(request: Request) -> Response:
        kind, ext = request.path_params["kind"], request.path_params["ext"]
        lang = _lang(request)
        if lang is None:
            return _unknown_lang()
        try:
            where = {"round_no": _number(request, "round"), "table": _number(request, "table"),
                     "team": request.query_params.get("team") or None}
            if ext == "pdf":  # a few hundred ms of layout: off the event loop
                body = await run_in_threadpool(printing.pdf, director, kind, lang, **where)
            elif ext == "html":
                body = printing.html(director, kind, lang, **where)
            else:
                raise printing.PrintError("print.error.kind")
        except printing.PrintError as exc:
            return refusals.page(request, 400 if ".bad_" in exc.key else 404, exc.key,
                                 **exc.params)
        name = printing.file_name(director, kind, lang, ext, where["round_no"])
        if ext == "pdf":
            return Response(body, media_type="application/pdf",
                            headers={"Content-Disposition": printing.disposition(name)})
        return HTMLResponse(body, headers={
            "Content-Disposition": printing.disposition(name, inline=True)})

    async def export(request: Request) -> Response:
        kind, lang = request.path_params["name"], _lang(request)
        if lang is None:
            return _unknown_lang()
        event = director.event()
        stem = event.name if event else "event"
        t = words(lang)
        if kind == "results.csv":
            return _download(exports.results_csv(director, lang).encode(), "text/csv",
                             f"{stem}-{t('export.file.results')}.csv")
        if kind == "results.json":
            return JSONResponse(exports.results_json(director))
        if kind == "sheets.txt":
            return PlainTextResponse(exports.sheets(director, lang), headers={
                "Content-Disposition": printing.disposition(
                    f"{stem}-{t('export.file.sheets')}.txt", inline=True)})
        return refusals.page(request, 404, "export.error.kind")

    return [Route("/print/{kind}.{ext}", printed), Route("/api/export/{name}", export)]


def private_export(director: Director, kind: str, lang: str) -> Response | None:
    """The exports that hold the audit log (who did what): for the head referee's session
    only, so served under /admin. None for an unknown kind."""
    event = director.event()
    stem = event.name if event else "event"
    t = words(lang)
    if kind == "audit.csv":
        return _download(exports.audit_csv(director, lang).encode(), "text/csv",
                         f"{stem}-{t('export.file.audit')}.csv")
    if kind == "results.xlsx":
        return _download(exports.workbook(director, lang), "application/vnd.openxmlformats-"
                         "officedocument.spreadsheetml.sheet",
                         f"{stem}-{t('export.file.results')}.xlsx")
    return None


def _download(body: bytes, media_type: str, name: str) -> Response:
    media = f"{media_type}; charset=utf-8" if media_type.startswith("text/") else media_type
    return Response(body, media_type=media,
                    headers={"Content-Disposition": printing.disposition(name)})
