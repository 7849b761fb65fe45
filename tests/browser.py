"""Helpers for browser tests: the OS's Chromium driven by Playwright, and a real uvicorn server.

Playwright never downloads a browser here; it drives the Chromium the OS installed (Debian's
``chromium`` package). Without it a test is skipped, or fails when ``CI=true`` so a CI run cannot
go green by skipping everything.

    from .browser import chromium_browser, serve

    @pytest.fixture(scope="session")
    def browser():
        with chromium_browser() as b:
            yield b

    def test_page(browser):
        with serve(app) as server:
            page = browser.new_page()
            page.goto(server.url + "/")
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

#: How long a browser test waits for what it expects, in ms: a deadline, never a measure of
#: speed, so a machine busy with other work answers late but not wrong.
DEADLINE_MS = 60_000

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser")
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def find_chromium() -> str | None:
    """The path of the OS's Chromium, or None when there is none. Raises nothing."""
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    for path in CHROMIUM_PATHS:
        if Path(path).is_file() and os.access(path, os.X_OK):
            return path
    return None


def chromium_executable() -> str:
    """The OS's Chromium for a test that needs it.

    Skips the calling test when there is none, or fails it when the environment says
    ``CI=true`` (raises pytest's Skipped or Failed outcome exceptions).
    """
    path = find_chromium()
    if path:
        return path
    _missing("no Chromium found (looked for `chromium` on PATH and /usr/bin/chromium): "
             "install the OS package, e.g. `apt-get install -y chromium`")
    raise AssertionError("unreachable")  # pytest.skip and pytest.fail raise


def _missing(message: str) -> None:
    """Fail under CI=true, else skip (the whole module when called at import time)."""
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)


def playwright_sync_api() -> Any:
    """The ``playwright.sync_api`` module, for ``expect`` and friends at a test module's top.

    Skips the module when Playwright is not installed, or fails under ``CI=true``.
    """
    try:
        import playwright.sync_api as api
    except ImportError:
        _missing("Playwright is not installed (pip install playwright; no browser download)")
    return api


@contextmanager
def chromium_browser(**launch_options: Any) -> Iterator[Any]:
    """Start Playwright and launch the OS's Chromium headless; close both on exit.

    Yields a ``playwright.sync_api.Browser``. ``launch_options`` go to
    ``chromium.launch`` (``executable_path`` and ``--no-sandbox`` are set here: the tests run as
    root). Skips or fails as ``chromium_executable`` does; skips when Playwright is not
    installed (fails under ``CI=true``).
    """
    executable = chromium_executable()
    sync_playwright = playwright_sync_api().sync_playwright
    args = ["--no-sandbox", *launch_options.pop("args", [])]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=args,
                                             **launch_options)
        try:
            yield browser
        finally:
            browser.close()


class LiveServer:
    """An ASGI app served by uvicorn on 127.0.0.1 in a background thread.

    ``url`` is the base address without a trailing slash (``http://127.0.0.1:PORT``).
    Use ``serve(app)`` rather than building one by hand.
    """

    def __init__(self, app: Any, host: str = "127.0.0.1", **config: Any) -> None:
        import uvicorn

        config.setdefault("log_level", "warning")
        config.setdefault("lifespan", "auto")
        config.setdefault("timeout_graceful_shutdown", 2)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, 0))  # a free port, held from now on: no race for it
        self.host = host
        self.port: int = self._socket.getsockname()[1]
        self.url = f"http://{host}:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host=host, port=self.port, **config))
        self._thread = threading.Thread(target=self._run, name=f"uvicorn:{self.port}",
                                        daemon=True)
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self._socket])
        except BaseException as exc:  # reported by start()
            self._error = exc

    def start(self, timeout: float = 10.0) -> LiveServer:
        """Start serving; return once uvicorn accepts connections.

        Raises RuntimeError when it has not started within ``timeout`` seconds or stopped.
        """
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"uvicorn did not start on {self.url}: {self._error!r}")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Ask uvicorn to exit and wait for its thread; open streams are cut after a grace
        period (forced at half the timeout). Raises RuntimeError if the thread still lives."""
        self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout / 2)
        if self._thread.is_alive():
            self.server.force_exit = True
            self._thread.join(timeout / 2)
        self._socket.close()
        if self._thread.is_alive():
            raise RuntimeError(f"uvicorn on {self.url} did not stop")


@contextmanager
def serve(app: Any, host: str = "127.0.0.1", **config: Any) -> Iterator[LiveServer]:
    """Serve ``app`` with uvicorn on a free port of ``host`` for the ``with`` block.

    Yields the running ``LiveServer`` (``.url``, ``.port``, ``.server``). ``config`` goes to
    ``uvicorn.Config`` (defaults: ``log_level="warning"``, ``timeout_graceful_shutdown=2``).
    Raises RuntimeError when the server does not start or stop.
    """
    live = LiveServer(app, host, **config).start()
    try:
        yield live
    finally:
        live.stop()


def collect_page_errors(page: Any, console: bool = False) -> list[str]:
    """A list that fills with the page's uncaught JavaScript errors (and, with ``console``,
    its console errors, which include the network errors Chromium logs for a failed request).

    Assert it is empty at the end of a test: a broken script otherwise shows only as a
    timeout somewhere else. Raises nothing.
    """
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    if console:
        page.on("console", lambda msg: errors.append(f"console: {msg.text}")
                if msg.type == "error" else None)
    return errors


def log_in_to_the_console(page: Any, url: str, password: str, who: str = "陈裁判长") -> None:
    """Log in to the head referee's console at `url` as `who`, in the browser, as a person
    does: the overview opens."""
    from playwright.sync_api import expect

    page.goto(url + "/admin/login")
    page.fill("input[name=password]", password)
    page.fill("input[name=who]", who)
    page.click("form button")
    expect(page).to_have_url(url + "/admin")
