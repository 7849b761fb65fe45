"""The scorer's ASGI app: the tables' sync API, the admin page, the read-only APIs, the
exports, the hall page and the phones' team page with their server-sent events (`feed`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..director import ONLINE_WITHIN, Director, contacts, search
from ..director.folds import Checkpoint
from ..director.pairer import BackgroundPairer, pair_ahead
from ..hall import snapshot as hall
from ..hall.feed import HallFeed
from ..hall.process import HallProcess
from ..hall.streams import ScorerApp
from ..net import heap
from ..net.shield import SecurityHeaders
from ..printing import exports
from ..printing.page_gate import PageGate
from ..printing.pdf_queue import PdfQueue
from . import admin, hall_page, kiosks, outputs, refusals, updates
from .team_page import html as team_page_html

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
CHECKPOINT_EVERY = 60.0  # seconds between checkpoints of the folds (a restart resumes there)


def create_app(director: Director, address: str | Callable[[], str] = "http://127.0.0.1:8080/",
               processes: bool = False) -> ScorerApp:
    """The app; with `processes`, as the server runs it: the hall's frames are built in a
    process of their own (`hall/process.py`) and the kiosks' batches checked in another
    (`checker.py`); a test's app does both on its loop (the frames with its clock)."""
    feed = HallFeed(director, address)

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(hall_page.html())

    async def team_page(request: Request) -> HTMLResponse:
        return HTMLResponse(team_page_html())

    async def snapshot(request: Request) -> Response:
        frame = await feed.ready()
        etag = f'"{feed.boot}-{frame.serial}"'
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers={"ETag": etag})
        return Response(frame.json, media_type="application/json",
                        headers={"ETag": etag, "Cache-Control": "no-cache"})

    async def team(request: Request) -> Response:
        view = await feed.team_json(request.path_params["team"])
        if view is None:
            return refusals.page(request, 404, "web.no_such_team")
        return Response(view, media_type="application/json")

    def kept_json(read: Callable[[Director], Any], ticking: bool = False
                  ) -> Callable[[Request], Awaitable[Response]]:
        """A read-only API whose JSON is made again only when what it shows may have changed:
        when the store's version moves (and with `ticking`, each second: the tables' clocks
        count down). Eight clients polling /api/tables during a round at 1,000 teams had the
        loop read every table for each of them, and the hall page answered p50 150 ms."""
        kept: list[Any] = [None, b""]

        async def route(request: Request) -> Response:
            stamp = (director.version(), int(director.clock()) if ticking else None)
            if kept[0] != stamp:
                with director.reading():
                    value = read(director)
                kept[:] = stamp, json.dumps(value, ensure_ascii=False, allow_nan=False,
                                            separators=(",", ":")).encode()
            return Response(kept[1], media_type="application/json")
        return route

    async def favicon(request: Request) -> Response:
        # (the pages link /static/favicon.svg; a browser still asks here on its own)
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml",
                            headers={"Cache-Control": "max-age=86400"})

    async def qr(request: Request) -> Response:
        return Response(hall_page.qr_svg(feed.address() + "team"), media_type="image/svg+xml")

    door = kiosks.Door(director, feed.problems)

    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        contacts.resume(director.store, director.clock(), ONLINE_WITHIN)
        # While serving, Swiss rounds are paired in a worker process.
        pairer, in_process = BackgroundPairer(feed.refresh), director.pairer
        pairer.bind(asyncio.get_running_loop())
        director.pairer = pairer
        remote = feed.remote = HallProcess(
            feed, director.rulesets, lambda args: pairer.ready(*args)) if processes else None
        if remote is None:
            feed.on_build = lambda: pair_ahead(director)
        director.folded_elsewhere = remote is not None
        with heap.starting():  # what starting makes (the folds) lives as long as the server
            if remote is None:
                director.fold(0)  # resume from the checkpoint and fold what came after it
                feed.current()
        tasks = [asyncio.create_task(asyncio.to_thread(search.warm)),  # (the phones' 简/繁)
                 asyncio.create_task(feed.run()),
                 asyncio.create_task(remote.run() if remote else checkpoints(director)),
                 asyncio.create_task(heap.keep_collections_short()),
                 asyncio.create_task(contacts_saved(director))]
        if processes:
            tasks.append(asyncio.create_task(door.checker.run()))
        yield
        feed.close()
        await door.checker.stop()
        if remote is not None:
            await remote.stop()  # (it writes the folds' checkpoint)
        for task in tasks:
            task.cancel()
        heap.thaw()
        director.pairer, feed.on_build, director.folded_elsewhere = in_process, None, False
        pairer.close()
        app.state.pdf_queue.close()
        app.state.kept.close()
        if remote is None:
            save_checkpoint(director)
        save_contacts(director)

    app = ScorerApp(
        # (the tables' routes first: a hall's kiosks make most of the requests)
        routes=[*kiosks.ROUTES, Route("/", page), Route("/team", team_page),
                Route("/api/hall", snapshot),
                Route("/api/team/{team}", team),
                Route("/api/teams", kept_json(hall.team_list)),
                Route("/api/standings", kept_json(hall.standings)),
                Route("/api/tables", kept_json(hall.tables, ticking=True)), Route("/qr.svg", qr),
                Route("/favicon.ico", favicon),
                *outputs.routes(director), *admin.routes(),
                *updates.routes(director.store.path.parent),
                Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers=refusals.HANDLERS,  # a wrong address or method: in their language
        lifespan=contextlib.asynccontextmanager(lifespan))
    app.state.director = director  # the console's endpoints read it (admin/)
    app.state.logins = admin.login.limiter()  # the console's login attempts
    # the questions it asked and the refused forms' pages, by id (kept across a restart)
    app.state.kept = admin.kept.Kept(director.store.path.parent)
    app.state.feed = app.feed = feed  # the hall's streams: streams.py, in front of the routes
    app.state.kiosks = door  # what the tables' endpoints share
    app.state.pdf_queue = PdfQueue()  # PDFs, laid out one at a time outside this process
    app.state.page_gate = PageGate()  # printed pages and exports, made one at a time
    app.state.sheet_texts = exports.SheetTexts()  # sheets.txt's sheets, by match
    return app


async def checkpoints(director: Director) -> None:
    """Every CHECKPOINT_EVERY seconds: the matches folded further (`checkpoint`)."""
    while True:
        await asyncio.sleep(CHECKPOINT_EVERY)
        try:
            await checkpoint(director)
        except Exception:  # a cache: the next restart folds more, nothing is lost
            log.exception("terminal.scorer.log.checkpoint")


async def checkpoint(director: Director) -> None:
    """The matches folded further since the last checkpoint, pickled a table at a time on the
    event loop, which serves between two tables (at 1,000 tables the whole held it 1.7 s), and
    written in a thread."""
    folds = director.folds
    taken = folds.begin_checkpoint()
    for number in list(folds.tables):
        taken.take(folds, number)
        await asyncio.sleep(0)
    folds.writing.acquire()  # (released by the thread once written: the last save waits)
    await asyncio.to_thread(_write, taken, director.checkpoint_path, folds.writing)
    folds.wrote(taken)


async def contacts_saved(director: Director) -> None:
    """Every contacts.SAVE_EVERY seconds: the tables' last contacts, for a restart."""
    while True:
        await asyncio.sleep(contacts.SAVE_EVERY)
        await asyncio.to_thread(save_contacts, director)


def save_contacts(director: Director) -> None:
    try:
        contacts.save(director.store, director.clock())
    except OSError:  # (a cache: after a restart its kiosks are offline until heard from)
        log.exception("terminal.scorer.log.contacts")


def _write(checkpoint: Checkpoint, path: Path, writing: threading.Lock) -> None:
    try:
        checkpoint.write(path)
    finally:
        writing.release()


def save_checkpoint(director: Director) -> None:
    try:
        director.folds.save(director.checkpoint_path)
    except Exception:
        log.exception("terminal.scorer.log.checkpoint")
