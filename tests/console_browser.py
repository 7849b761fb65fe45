"""The head referee's console in real Chromium on a real uvicorn (loopback): a scorer with its
own director, a logged-in page, screenshots (the `console` fixture of the console's browser
tests)."""

from __future__ import annotations

import time
from pathlib import Path

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app

from .browser import collect_page_errors, log_in_to_the_console, serve

RULESETS = Rulesets.load([])
TEAMS = "编号,队名,单位\nt01,海沧红狮,海沧\nt02,集美龙舟,集美\nt03,鼓浪屿钢琴,思明\n" \
        "t04,思明凤凰,思明\n"


class Console:
    """A scorer on loopback and a logged-in Chromium page on its console."""

    def __init__(self, tmp_path: Path, browser) -> None:
        self.folder = tmp_path
        self.now = [time.time()]  # the scorer's clock: a test may move it on
        # The test's own director, on a connection of its own as the admin command's is: the
        # server's is used on its event loop's thread alone, as the server uses it.
        self.d, self.served = (Director(Store(tmp_path / "scorer.sqlite"), RULESETS,
                                        clock=lambda: self.now[0]) for _ in range(2))
        password = self.d.first_password()
        self.server = serve(create_app(self.served))
        self.url = self.server.__enter__().url
        self.context = browser.new_context(locale="zh-CN", viewport={"width": 1366,
                                                                     "height": 900})
        self.page = self.context.new_page()
        self.errors = collect_page_errors(self.page)
        log_in_to_the_console(self.page, self.url, password)
        self.shots = 0

    def shot(self, name: str) -> Path:
        self.shots += 1
        path = self.folder / f"{self.shots:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        print("screenshot", path)
        return path

    def event_with_teams(self) -> dict[int, str]:
        """厦门杯 with four teams and two tables (their pairing codes returned)."""
        self.d.create_event("厦门杯", "xiamen-2015", seed=3, by="陈")
        self.d.import_teams(TEAMS.encode())
        return self.d.add_tables(2)

    def flash(self) -> str:
        return self.page.locator(".flash").inner_text()

    def close(self) -> None:
        self.context.close()
        self.server.__exit__(None, None, None)
        self.d.store.close()
        self.served.store.close()

