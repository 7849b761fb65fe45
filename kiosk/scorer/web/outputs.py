"""Routes for what leaves the scorer: printed pages (`/print/KIND.html|pdf`) and exports
(`/api/export/…`), read-only like the hall page, each with a download name that says what it
is (the event, the round, the kind). The exports that hold the audit log are the console's
(`/admin/export/…`, `private_export`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Hashable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from ...i18n import DEFAULT_LANG, LANGS
from ..director import Director
from ..printing import exports
from ..printing import pages as printing
from ..printing.page_gate import PageGate
from ..printing.pdf_queue import Job, PdfQueue, QueueFull
from ..printing.templating import lang_of, render, words
from . import refusals

EXPORTS = ("results.csv", "results.json", "sheets.txt")  # the public ones


def _written(director: Director, kind: str, lang: str, texts: exports.SheetTexts
             ) -> Callable[[], bytes]:
    """The export `kind` read from the director now (on the event loop), and the function
    that writes its bytes, which may run in another thread."""
    if kind == "results.csv":
        write = exports.results_csv_of(director, lang)
    elif kind == "sheets.txt":
        write = exports.sheets_of(director, lang, texts)
    else:
        with director.reading():
            value = exports.results_json(director)

        def write() -> str:  # (as a JSONResponse writes it)
            return json.dumps(value, ensure_ascii=False, allow_nan=False,
                              separators=(",", ":"))
    return lambda: write().encode()


FIRST_WAIT = 2.0  # seconds a browser waits for its PDF before it is shown the progress page
REFRESH = 3  # seconds between two looks of the progress page


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
    if not value.isascii() or not value.isdigit() or len(value) > 6 or int(value) < 1:
        raise printing.PrintError(f"print.error.bad_{name}", value=value[:20])
    return int(value)


async def printed(request: Request, director: Director, private: bool = False) -> Response:
    """`…/print/KIND.html|pdf`: a printed page as HTML, or as a PDF laid out by the print
    queue. `private`: the head referee's console asks (`/admin/print/…`): never refused for
    the public's pages, and its PDF laid out before theirs."""
    kind, ext = request.path_params["kind"], request.path_params["ext"]
    lang = _lang(request)
    if lang is None:
        return _unknown_lang()
    try:
        if kind not in printing.KINDS:
            raise printing.PrintError("print.error.kind")
        reads = printing.READS[kind]  # (a bad number is refused, read or not)
        round_no, table = _number(request, "round"), _number(request, "table")
        round_no = round_no if "round_no" in reads else None
        table = table if "table" in reads else None
        team = (request.query_params.get("team") or None) if "team" in reads else None
        document = (kind, lang, round_no, table, team)
        name = printing.file_name(director, kind, lang, ext, round_no)
        if ext == "pdf":
            return await pdf_reply(
                request, ("print", *document), lambda: printing.page_of(
                    director, kind, lang, round_no=round_no, table=table, team=team),
                name, private=private,
                stamp=(director.version(), int(director.clock() // 60)))
        if ext != "html":
            raise printing.PrintError("print.error.kind")
        body = await gate_of(request).make(("html", *document), lambda: printing.gather(
            director, kind, lang, round_no=round_no, table=table, team=team).html,
            console=private)
    except printing.PrintError as exc:
        return refusals.page(request, 400 if ".bad_" in exc.key else 404, exc.key,
                             **exc.params)
    except QueueFull as full:
        return busy(request, "print.pages.busy", full)
    return HTMLResponse(body, headers={
        "Content-Disposition": printing.disposition(name, inline=True)})


def routes(director: Director) -> list[Route]:
    async def public_print(request: Request) -> Response:
        return await printed(request, director)

    async def export(request: Request) -> Response:
        kind, lang = request.path_params["name"], _lang(request)
        if lang is None:
            return _unknown_lang()
        if kind not in EXPORTS:
            return refusals.page(request, 404, "export.error.kind")
        try:  # (a download of the whole event: read on the loop, written in a worker)
            body = await gate_of(request).make(
                ("export", kind, lang, director.version()),
                lambda: _written(director, kind, lang, request.app.state.sheet_texts),
                keep=True)
        except QueueFull as full:
            return busy(request, "print.pages.busy", full)
        event = director.event()
        stem = event.name if event else "event"
        t = words(lang)
        if kind == "results.csv":
            return _download(body, "text/csv", f"{stem}-{t('export.file.results')}.csv")
        if kind == "results.json":
            return Response(body, media_type="application/json")
        return PlainTextResponse(body, headers={"Content-Disposition": printing.disposition(
            f"{stem}-{t('export.file.sheets')}.txt", inline=True)})

    async def job(request: Request) -> Response:
        return job_page(request, private=False)

    return [Route("/print/jobs/{job}.pdf", job), Route("/print/jobs/{job}", job),
            Route("/print/{kind}.{ext}", public_print), Route("/api/export/{name}", export)]


# -- PDFs: laid out by the print queue, a child process each ---------------------------------


def queue_of(request: Request) -> PdfQueue:
    return request.app.state.pdf_queue  # type: ignore[no-any-return]


def gate_of(request: Request) -> PageGate:
    return request.app.state.page_gate  # type: ignore[no-any-return]


def busy(request: Request, key: str, full: QueueFull) -> Response:
    """503: too much being printed; try again after the seconds said."""
    reply = refusals.page(request, 503, key, count=full.count, seconds=full.seconds)
    reply.headers["Retry-After"] = str(full.seconds)
    return reply


async def pdf_reply(request: Request, document: Hashable,
                    gather: Callable[[], Callable[[], printing.Page]], name: str,
                    private: bool = False, stamp: Hashable = None) -> Response:
    """The PDF of `document`: `gather()` reads its page from the director, on the event
    loop, and returns what makes the page's HTML in a worker thread (`printing.page_of`; it
    may raise PrintError), through the page gate. A program gets the PDF when it is laid out;
    a browser gets it
    within `FIRST_WAIT`, or else a page saying that it is being made, which looks again until
    it can download it. `stamp`: the store's state, when the page shows nothing else: while
    it is the same, the page is not built again (the HTML of 500 sheets takes the scorer a
    few tenths of a second). `private`: the console's (never refused for the public's)."""
    queue = queue_of(request)
    job = queue.known(document, stamp)
    try:
        if job is None:
            page = await gate_of(request).make(("pdf", document), gather, console=private)
            job = queue.submit(document, page.content, page.html, name, private, stamp)
    except QueueFull as full:
        return busy(request, "print.queue.full", full)
    browser = "text/html" in request.headers.get("accept", "")
    await _settled(job, FIRST_WAIT if browser else None)
    if job.finished is None:
        return _progress(request, job)
    return _finished(request, job, download=True)


async def _settled(job: Job, within: float | None) -> None:
    """Wait until `job` is finished, or `within` seconds have passed. (Looking every tenth of
    a second keeps the waiting on this loop, whichever thread finishes the job.)"""
    deadline = None if within is None else asyncio.get_running_loop().time() + within
    while not job.done.done():
        if deadline is not None and asyncio.get_running_loop().time() >= deadline:
            return
        await asyncio.sleep(0.1)


def job_page(request: Request, private: bool) -> Response:
    """`…/print/jobs/ID`: how the job is going (the browser looks again every `REFRESH`
    seconds), then a page that downloads it; `…/print/jobs/ID.pdf`: the PDF itself."""
    job = queue_of(request).job(request.path_params["job"])
    if job is None or job.private != private or (job.finished is not None and
                                                 job.failure is None and job.pdf is None):
        return refusals.page(request, 404, "print.queue.gone")
    if job.finished is None:
        return _progress(request, job)
    return _finished(request, job, download=request.url.path.endswith(".pdf"))


def _job_url(request: Request, job: Job, ext: str = "") -> str:
    """The job's page (or with `ext` ".pdf" its PDF), in the visitor's language."""
    return f"{'/admin' if job.private else ''}/print/jobs/{job.id}{ext}?lang={lang_of(request)}"


def _progress(request: Request, job: Job) -> Response:
    queue, lang = queue_of(request), lang_of(request)
    started = job.started is not None
    seconds = round(queue.clock() - (job.started if job.started is not None else job.queued))
    return HTMLResponse(render(
        "print/queue.html", lang, state="running" if started else "waiting", job=job,
        ahead=queue.ahead(job), seconds=seconds, estimate=queue.estimate(job),
        every=REFRESH, url=_job_url(request, job)), status_code=202,
        headers={"Cache-Control": "no-store"})


def _finished(request: Request, job: Job, download: bool) -> Response:
    if job.failure is not None:
        return refusals.page(request, 500, job.failure.key, **job.failure.params)
    pdf = job.pdf
    if pdf is None:  # let go meanwhile: its data changed, or the memory was needed
        return refusals.page(request, 404, "print.queue.gone")
    if not download:
        return HTMLResponse(render("print/queue.html", lang_of(request), state="ready",
                                   job=job, url=_job_url(request, job, ".pdf")),
                            headers={"Cache-Control": "no-store"})
    return Response(pdf, media_type="application/pdf",
                    headers={"Content-Disposition": printing.disposition(job.name),
                             "Cache-Control": "no-store"})


async def private_export(director: Director, kind: str, lang: str) -> Response | None:
    """The exports that hold the audit log (who did what): for the head referee's session
    only, so served under /admin. None for an unknown kind. (The workbook's rows are read on
    the event loop, the director's thread; openpyxl writes them in a worker thread.)"""
    event = director.event()
    stem = event.name if event else "event"
    t = words(lang)
    if kind == "audit.csv":
        return _download(exports.audit_csv(director, lang).encode(), "text/csv",
                         f"{stem}-{t('export.file.audit')}.csv")
    if kind == "results.xlsx":
        book = await run_in_threadpool(exports.write_workbook,
                                       exports.workbook_sheets(director, lang), lang)
        return _download(book, "application/vnd.openxmlformats-"
                         "officedocument.spreadsheetml.sheet",
                         f"{stem}-{t('export.file.results')}.xlsx")
    return None


def _download(body: bytes, media_type: str, name: str) -> Response:
    media = f"{media_type}; charset=utf-8" if media_type.startswith("text/") else media_type
    return Response(body, media_type=media,
                    headers={"Content-Disposition": printing.disposition(name)})
