"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from kiosk.rules import Rulesets

# CI replays the same examples every run, so a landing never hangs on a lucky draw; run the
# suite locally (or FUZZ_EXAMPLES=5000 for the session fuzz) to explore new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


#: Where the tests' files go when the machine has the room: memory (tmpfs). A journal commits
#: every event with fsync, so that a power cut loses none; on a disk that is half a millisecond
#: a commit and minutes over the suite. The same SQLite files, WAL and all, on tmpfs commit
#: without waiting for a disk, and a killed process loses what it would have lost on a disk.
#: `--basetemp DIR` puts them elsewhere (and keeps them after the run).
SCRATCH, SCRATCH_ROOM = Path("/dev/shm"), 4 << 30


def pytest_configure(config: pytest.Config) -> None:
    if config.option.basetemp or hasattr(config, "workerinput"):
        return  # chosen by the command line, or by the controller for this worker
    if SCRATCH.is_dir() and shutil.disk_usage(SCRATCH).free >= SCRATCH_ROOM:
        base = tempfile.mkdtemp(prefix="kiosk-tests-", dir=SCRATCH)
        config.option.basetemp = base
        config.add_cleanup(lambda: shutil.rmtree(base, ignore_errors=True))


#: What a test needs, one mark each (pyproject.toml describes them); `make check` runs `unit`.
KINDS = ("unit", "sim", "process", "window", "browser", "image")
SLOW_FIRST = ("image", "window", "browser", "process", "sim", "unit")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test says what it needs, once: a test without its kind would be left out of the
    tier it belongs to, or run in the wrong one."""
    wrong, kind = [], {}
    for item in items:
        kinds = {mark.name for mark in item.iter_markers() if mark.name in KINDS}
        if len(kinds) != 1:
            wrong.append(f"{item.nodeid}: {sorted(kinds) or 'no kind'}")
        kind[item] = next(iter(kinds), "unit")
    if wrong:
        raise pytest.UsageError("each test takes one of the marks " + ", ".join(KINDS) + ":\n"
                                + "\n".join(wrong))
    # The slow kinds first (each in file order): the workers share out what is left as they
    # finish, and what is left at the end is then seconds of unit tests, not a minute-long
    # window that one worker plays while the other stands idle.
    items.sort(key=lambda item: SLOW_FIRST.index(kind[item]))
    # The card image's build takes root, qemu and an hour: only `make image-test` asks for it,
    # whatever -m says (`-m "not unit"` must not start it by accident).
    if os.environ.get("KIOSK_IMAGE_TESTS") != "1":
        image = [item for item in items if item.get_closest_marker("image")]
        if image:
            items[:] = [item for item in items if not item.get_closest_marker("image")]
            config.hook.pytest_deselected(items=image)


@pytest.fixture(autouse=True)
def _unit_tests_stay_in_their_process(request: pytest.FixtureRequest,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A `unit` test that starts a process or opens a server is not one: it fails and says so,
    so the fast tier stays fast and the marks stay true."""
    if request.node.get_closest_marker("unit") is None:
        return

    def refuse(what: str) -> None:
        raise AssertionError(f"a unit test {what}: mark it `process`, or keep it in one process")

    monkeypatch.setattr(subprocess.Popen, "__init__",
                        lambda *_args, **_kw: refuse("started a process"))
    monkeypatch.setattr(socket.socket, "bind", lambda *_args: refuse("opened a server socket"))


@pytest.fixture(scope="module")
def browser():
    """Chromium, once a test module (tests/browser.py)."""
    from tests.browser import chromium_browser

    with chromium_browser() as launched:
        yield launched


@pytest.fixture
def console(tmp_path, browser):
    """A scorer on loopback and Chromium logged in to its console (tests/console_browser.py)."""
    from tests.console_browser import Console

    made = Console(tmp_path, browser)
    yield made
    assert made.errors == []
    made.close()


@pytest.fixture(scope="session")
def rulesets() -> Rulesets:
    return Rulesets.load()


@pytest.fixture
def table(tmp_path, rulesets):
    """A kiosk at a table, driven through its real controller, runner and session on an
    injected clock (tests/kiosk_driver.py)."""
    from tests.kiosk_driver import Table

    kiosk = Table(tmp_path, rulesets)
    yield kiosk
    kiosk.session.close()
