"""The head referee's console through Starlette's TestClient, as windows of one browser: an
event of eight teams on four tables (the `director` fixture, its clock moved by the test),
a window's page and the forms on it as it had them, and the words a page said."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app

RULESETS = Rulesets.load([])
TEAMS = "".join(f"t{i:02d},第{i}队,单位{i}\n" for i in range(1, 9))


def event(tmp_path: Path) -> Iterator[Director]:
    """厦门杯 (xiamen-2015) with 第1队…第8队 (t01–t08, each its own unit) and four tables;
    `d.now[0]` is its clock, `d.password` the console's password (a test module's fixture:
    `yield from event(tmp_path)`)."""
    now = [1_800_000_000.0]
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS, clock=lambda: now[0])
    d.now = now
    d.password = d.first_password()
    d.create_event("厦门杯", "xiamen-2015", seed=11, by="陈")
    d.import_teams(("编号,队名,单位\n" + TEAMS).encode())
    d.add_tables(4)
    yield d
    d.store.close()


class Window:
    """A browser window on the console: the page it last loaded, and its forms as they were
    on that page (a second window shares the session, as a second tab does)."""

    def __init__(self, client: TestClient) -> None:
        self.client, self.page = client, ""

    def load(self, path: str) -> str:
        reply = self.client.get(path)
        assert reply.status_code == 200, (path, reply.status_code)
        self.page = reply.text
        return self.page

    def form(self, action: str, n: int = 0) -> dict[str, str]:
        """The hidden fields of the page's `n`th form posting to `action`, as the page had
        them (what a click sends)."""
        found = re.findall(rf'<form method="post" action="{re.escape(action)}"[^>]*>(.*?)</form>',
                           self.page, re.S)
        assert len(found) > n, (action, n, self.page[:2000])
        return {name: html.unescape(value) for name, value in re.findall(
            r'<input type="hidden" name="([^"]+)" value="([^"]*)"', found[n])}

    def send(self, action: str, n: int = 0, **typed: str):
        return self.client.post(action, data={**self.form(action, n), **typed})


def log_in(director: Director, who: str = "陈裁判长") -> TestClient:
    """A browser logged in to the console (`director.password`)."""
    client = TestClient(create_app(director), follow_redirects=False)
    reply = client.post("/admin/login", data={"password": director.password, "who": who})
    assert reply.status_code == 303
    return client


def flash_of(client: TestClient, reply) -> str:
    """The message a redirect carried, as the page it leads to shows it."""
    assert reply.status_code == 303, reply.status_code
    page = client.get(reply.headers["location"]).text
    found = re.search(r'<p class="flash (\w+)"[^>]*>(.*?)</p>', page, re.S)
    return html.unescape(found.group(2)) if found else ""


def refused_page(client: TestClient, reply):
    """The page a refused form leads to (a 303 to a GET page, so Back to it is a page and
    never Chromium's ERR_CACHE_MISS): the refusal above it, the form as it was typed."""
    assert reply.status_code == 303, reply.status_code
    assert "refused=" in reply.headers["location"], reply.headers["location"]
    page = client.get(reply.headers["location"])
    assert page.status_code == 200
    return page


def shown_error(reply) -> str:
    """The refusal a page shows above it."""
    found = re.search(r'<p class="flash error"[^>]*>(.*?)</p>', reply.text, re.S)
    return html.unescape(found.group(1)) if found else ""
