"""A hall TV as deploy/provision-hall-tv.sh sets it up: the launcher it installs
(`kiosk-hall-tv`), run with the settings file it writes, starts the OS's Chromium in a real X
session (Xvfb, as on the TV's desktop) on a real `kiosk scorer` serving HTTPS on loopback.
Pinned to the scorer's certificate (the `spki` line of `kiosk scorer admin certificate`), the
hall page loads and its live feed arrives, with nothing over it; without the pin, or pinned to
another scorer, Chromium refuses the page.

The only thing added to the launcher's own Chromium command line is what a test needs: a
`chromium` ahead on PATH that adds `--no-sandbox` (the tests run as root) and a DevTools port
(to read the page)."""

from __future__ import annotations

import io
import os
import signal
import struct
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kiosk.scorer.net.tls import make_identity

from .browser import chromium_executable, playwright_sync_api
from .helpers import ScorerProcess, kiosk, tool, xvfb
from .test_deploy import PI_CMDLINE, PI_CONFIG, hall_tv_env, provision

pytestmark = pytest.mark.window

EVENT = "厦门杯"
HALL_TITLE = f"{EVENT} · 赛场实时成绩"  # set by hall.js from the live feed's snapshot


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    with xvfb("1280x720x24") as name:
        yield name


@pytest.fixture(scope="module")
def scorer(tmp_path_factory) -> Iterator[tuple[ScorerProcess, str]]:
    """The real scorer with an event, and its certificate's pin as the technician reads it."""
    data = tmp_path_factory.mktemp("scorer")
    made = kiosk("scorer", "admin", "--data", str(data), "event", "--name", EVENT,
                 "--ruleset", "xiamen-2015")
    assert made.returncode == 0, made.stderr
    shown = kiosk("scorer", "admin", "--data", str(data), "certificate")
    assert shown.returncode == 0, shown.stderr
    pin = next(line.split()[1] for line in shown.stdout.splitlines()
               if line.startswith("spki "))
    with ScorerProcess(data) as process:
        yield process, pin


@dataclass
class Tv:
    page: Any  # the hall page's tab (playwright Page)
    window: tuple[int, int]  # where the page's top left corner is on the screen
    log: Path  # the launcher's stderr (and Chromium's)

    def warnings(self) -> list[str]:
        """What the launcher itself told the journal."""
        return [line for line in self.log.read_text().splitlines()
                if line.startswith("kiosk-hall-tv：")]


def provisioned(tmp_path: Path, url: str, pin: str) -> dict[str, str]:
    """Run provision-hall-tv.sh into a scratch root; the launcher and settings it wrote."""
    root = tmp_path / "root"
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(PI_CONFIG)
    (root / "boot/firmware/cmdline.txt").write_text(PI_CMDLINE)
    provision("provision-hall-tv.sh", root, "--url", url, "--spki", pin, "--user", "tv")
    return {**hall_tv_env(root), "launcher": str(root / "usr/local/bin/kiosk-hall-tv")}


@contextmanager
def hall_tv(tmp_path: Path, display: str, settings: dict[str, str]) -> Iterator[Tv]:
    """The launcher as kiosk-hall-tv.service runs it (its EnvironmentFile's variables and a
    RuntimeDirectory), until the hall page's tab has loaded something."""
    chromium = chromium_executable()
    bin_dir, profile = tmp_path / "bin", tmp_path / "runtime"
    bin_dir.mkdir()
    profile.mkdir(mode=0o700)
    (bin_dir / "chromium").write_text(
        f'#!/bin/sh\nexec {chromium} --no-sandbox --remote-debugging-port=0 "$@"\n')
    (bin_dir / "chromium").chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path),
           "DISPLAY": display, "RUNTIME_DIRECTORY": str(profile), "LANG": "C.UTF-8",
           **{k: v for k, v in settings.items() if k.startswith("KIOSK_")}}
    stderr = tmp_path / "launcher.log"
    with open(stderr, "w") as log:
        proc = subprocess.Popen([settings["launcher"]], env=env, stdout=subprocess.DEVNULL,
                                stderr=log, start_new_session=True)
    api = playwright_sync_api()
    try:
        port = devtools_port(profile / "DevToolsActivePort", proc)
        settled(port, settings["KIOSK_HALL_URL"])
        with api.sync_playwright() as playwright:
            browser = attach(api, playwright, port)
            page = tab(browser, settings["KIOSK_HALL_URL"])
            page.wait_for_load_state()
            corner = page.evaluate("[screenX + outerWidth - innerWidth,"
                                   " screenY + outerHeight - innerHeight]")
            yield Tv(page, (int(corner[0]), int(corner[1])), stderr)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def devtools_port(path: Path, proc: subprocess.Popen[bytes], timeout: float = 90) -> int:
    """Chromium writes its DevTools port into its profile once it runs (the launcher first
    waits for the scorer to answer)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().split()[0])
        assert proc.poll() is None, "the launcher ended before Chromium ran"
        time.sleep(0.2)
    raise AssertionError(f"Chromium did not start within {timeout:.0f} s")


def settled(port: int, url: str, timeout: float = 90) -> None:
    """Wait, over DevTools' plain HTTP list, until the tab has reached `url` (or its error page)
    and finished loading: Playwright attaching in the middle of a navigation (the certificate
    error's page replacing the tab's) can wait on a target that never answers."""
    import json
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            pages = [t for t in json.load(answer) if t.get("type") == "page"]
        if any(t["url"].startswith((url, "chrome-error://")) and t.get("title") != t["url"]
               for t in pages):
            return
        time.sleep(0.2)
    raise AssertionError(f"no tab settled on {url}")


def attach(api: Any, playwright: Any, port: int, attempts: int = 3) -> Any:
    """Playwright attached to the TV's Chromium. An attach that hangs once connected (seen on a
    loaded machine) is given up after 30 s and tried afresh; the browser keeps running."""
    for attempt in range(1, attempts + 1):
        try:
            return playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}",
                                                        timeout=30_000)
        except api.TimeoutError:
            if attempt == attempts:
                raise
    raise AssertionError("attempts must be at least 1")


def tab(browser: Any, url: str, timeout: float = 30) -> Any:
    """The tab Chromium opened on `url` (it may still be on its way there), or its error page
    in place of `url`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for context in browser.contexts:
            for page in context.pages:
                if page.url.startswith((url, "chrome-error://")):
                    return page
        time.sleep(0.2)
    raise AssertionError(f"no tab on {url}: {[p.url for c in browser.contexts for p in c.pages]}")


def screen(display: str) -> Any:
    """What the TV shows: the whole X screen, as a PIL image."""
    from PIL import Image

    dump = subprocess.run([tool("xwd"), "-root", "-silent", "-display", display],
                          capture_output=True, check=True, timeout=30).stdout
    header = struct.unpack(">25I", dump[:100])
    size, width, height, line = header[0], header[4], header[5], header[12]
    pixels = dump[size + header[19] * 12:]  # after the header and the colour map
    return Image.frombuffer("RGBX", (width, height), pixels, "raw", "BGRX", line, 1)


def differing(a: Any, b: Any) -> float:
    """The share of pixels of two images of one size that differ visibly."""
    from PIL import ImageChops

    diff = ImageChops.difference(a.convert("L"), b.convert("L")).point(lambda v: v > 40)
    return diff.histogram()[1] / (a.width * a.height)


def test_the_tv_pinned_to_the_scorer_shows_the_live_hall_page_with_nothing_over_it(
        tmp_path, display, scorer):
    process, pin = scorer
    settings = provisioned(tmp_path, process.url + "/", pin)
    with hall_tv(tmp_path, display, settings) as tv:
        # The title comes from the live feed (server-sent events over the same pinned TLS).
        tv.page.wait_for_function(f"document.title === {HALL_TITLE!r}", timeout=30_000)
        assert tv.page.locator("#event-name").inner_text() == EVENT
        assert tv.warnings() == []
        # What the TV shows is the page itself: no translate bubble or bar over its top.
        from PIL import Image

        page = Image.open(io.BytesIO(tv.page.screenshot()))
        x, y = tv.window
        seen = screen(display).crop((x, y, x + page.width, y + 90))
        assert differing(page.crop((0, 0, page.width, 90)), seen) < 0.01


@pytest.mark.parametrize("pinned", ["none", "another scorer"])
def test_the_tv_without_the_scorers_pin_refuses_the_page(tmp_path, display, scorer, pinned):
    process, pin = scorer
    settings = provisioned(tmp_path, process.url + "/", pin)
    if pinned == "none":
        settings.pop("KIOSK_HALL_SPKI")
        warning = "没有 KIOSK_HALL_SPKI"
    else:  # a rogue answering at the scorer's address would present another certificate
        settings["KIOSK_HALL_SPKI"] = make_identity(["127.0.0.1"]).spki_pin
        warning = "出示的证书与 KIOSK_HALL_SPKI 不符"
    with hall_tv(tmp_path, display, settings) as tv:
        tv.page.wait_for_function(
            "document.body && document.body.innerText.includes('ERR_CERT_AUTHORITY_INVALID')",
            timeout=30_000)
        assert EVENT not in tv.page.title() and tv.page.locator("#event-name").count() == 0
        assert len(tv.warnings()) == 1 and warning in tv.warnings()[0]
