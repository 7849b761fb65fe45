"""The hall page against the real scorer, in the OS's Chromium: a table posts a hand through
the real sync path and the page shows it; the scorer stops and the page marks itself stale.
How long the hand took to appear is printed (a benchmark figure), never asserted."""

from __future__ import annotations

import io
import re
import time

import pytest

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.sim.table import simulate
from kiosk.sync.join import join
from kiosk.sync.outbox import Outbox
from kiosk.table.journal import table_path

from .browser import chromium_browser, playwright_sync_api
from .helpers import ScorerProcess

pytestmark = pytest.mark.process

expect = playwright_sync_api().expect
RULESETS = Rulesets.load([])
STALE = re.compile(r"\bstale\b")


@pytest.mark.timeout(180)
def test_the_hall_page_shows_a_posted_hand_and_goes_stale_when_the_scorer_stops(tmp_path):
    data = tmp_path / "scorer"
    director = Director(Store(data / "scorer.sqlite"), RULESETS)
    director.create_event("厦门杯", "xiamen-2015", seed=1)
    director.import_teams("name\n鼓浪屿队\n集美队\n".encode())
    code = director.add_tables(1)[1]
    director.start_round(0)
    director.store.close()
    kiosk = tmp_path / "kiosk"
    with ScorerProcess(data) as scorer, chromium_browser() as browser:
        link = join(kiosk, 1, scorer.url, code, RULESETS)
        # (the hall TV trusts the scorer's certificate once, as deploy/README.md says)
        page = browser.new_context(ignore_https_errors=True,
                                   viewport={"width": 1920, "height": 1080}).new_page()
        page.goto(scorer.url + "/?lang=en&stale_seconds=3")
        row = page.locator('#tables [data-table="1"]')
        expect(row).to_contain_text("鼓浪屿队", timeout=15_000)
        outbox = Outbox(table_path(kiosk, 1), link)
        simulate(kiosk, 1, RULESETS, "xiamen-2015", 2, 1, 1e9, io.StringIO(),
                 assignment=link.assignment()["assignment"]).close()
        posted = time.monotonic()
        assert outbox.flush(timeout=10)
        expect(row.locator(".hand")).to_contain_text("3", timeout=15_000)  # 2 played
        print(f"\nhand posted -> shown on the hall page: {time.monotonic() - posted:.2f} s")
        expect(row.locator(".link")).to_have_attribute("data-state", "ok")
        expect(page.locator("body")).not_to_have_class(STALE)
        scorer.kill()
        expect(page.locator("body")).to_have_class(STALE, timeout=15_000)
        expect(page.locator("#stale")).to_be_visible()
