"""The hall page at 1,000 tables and 2,000 teams, against the stand-in scorer of
test_hall_page: a patch redraws the rows it changes, in place, and measures nothing; the
pages are laid out again only when rows came, went, moved or may have changed height.

Counted, never timed: how often the page measures its rows (getBoundingClientRect) and
whether a row the patches did not touch is still the same element."""

from __future__ import annotations

import copy
import time

import pytest

from .browser import DEADLINE_MS, collect_page_errors, playwright_sync_api, serve
from .test_hall_page import TV, Feed, snapshot, sse, stand_in_scorer

pytestmark = pytest.mark.browser

expect = playwright_sync_api().expect
TABLES = 1000

# Every call of getBoundingClientRect, counted (a pager measures each row it lays out).
COUNT_MEASURES = """
  window.__measures = 0;
  const measure = Element.prototype.getBoundingClientRect;
  Element.prototype.getBoundingClientRect = function () {
    window.__measures += 1;
    return measure.call(this);
  };
"""


@pytest.fixture(scope="module")
def scorer():
    feed = Feed()
    with serve(stand_in_scorer(feed)) as server:
        yield feed, server.url
        feed.shutdown = True


def big_hall() -> dict:
    data = snapshot(TABLES)
    data["serial"] = 1
    data["round_clock"]["started_at"] = time.time() - 600
    data["round_clock"]["ends_at"] = time.time() + 3000
    data["round_clock"]["state"] = "running"
    return data


def open_hall(browser, feed: Feed, url: str):
    context = browser.new_context(viewport={"width": TV[0], "height": TV[1]})
    context.add_init_script(COUNT_MEASURES)
    page = context.new_page()
    page.set_default_timeout(DEADLINE_MS)
    errors = collect_page_errors(page)
    streams = feed.connections
    page.goto(f"{url}/")
    expect(page.locator("#event-name")).to_have_text("厦门杯")
    expect(page.locator("#tables [data-table]")).to_have_count(TABLES)
    expect(page.locator("#tables-pager")).to_be_visible()  # laid out in pages
    deadline = time.monotonic() + DEADLINE_MS / 1000
    while feed.connections <= streams:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return context, page, errors


def patch(serial: int, data: dict, **fields) -> dict:
    """Tables 1-5 at hand `serial`, team t10's points up: what a hall sends while five
    tables play (a changed row whole, as the feed sends it)."""
    rows = []
    for n in range(1, 6):
        row = copy.deepcopy(data["tables"][n - 1])
        row.update(hand=serial, **fields)
        rows.append(row)
    standing = {**data["standings"][9], "points": serial}
    return {"serial": serial, "generated": time.time(), "tables": rows, "standings": [standing]}


def send(feed: Feed, messages: list[dict]) -> None:
    with feed.lock:
        feed.messages.extend(sse("patch", m) for m in messages)


def test_a_big_halls_patches_redraw_their_rows_in_place_and_measure_nothing(browser, scorer):
    feed, url = scorer
    data = big_hall()
    feed.reset(data)
    context, page, errors = open_hall(browser, feed, url)
    try:
        # Rows no patch touches: the same elements afterwards, not rebuilt.
        page.evaluate("""() => {
          document.querySelector('#tables [data-table="500"]').__probe = 1;
          document.querySelector('#standings [data-team="t1500"]').__probe = 1;
          window.__measures = 0;
        }""")
        count = 40
        send(feed, [patch(serial, data) for serial in range(2, count + 2)])
        last = count + 1
        expect(page.locator('#tables [data-table="1"] .hand')).to_have_text(str(last))
        expect(page.locator('#tables [data-table="5"] .hand')).to_have_text(str(last))
        expect(page.locator('#standings [data-team="t10"] .points')).to_have_text(str(last))
        assert page.evaluate("window.hall.snapshot.serial") == last
        kept = page.evaluate("""() => [
          document.querySelector('#tables [data-table="500"]').__probe,
          document.querySelector('#standings [data-team="t1500"]').__probe]""")
        assert kept == [1, 1]
        # Laying out 3,000 rows measures each (the page did it for every patch): a patch
        # that changes no row's height, nor which rows there are, measures none.
        assert page.evaluate("window.__measures") == 0
        assert page.evaluate("window.hall.renders") < count  # patches drawn together
        # A name that may take two lines does lay its list out again.
        layouts = page.evaluate("window.hall.layouts")
        renamed = patch(last + 1, data, ns="一个很长很长很长很长很长很长的队名")
        send(feed, [renamed])
        expect(page.locator('#tables [data-table="1"] .ns')).to_have_text(
            "一个很长很长很长很长很长很长的队名")
        page.wait_for_function(f"window.hall.layouts > {layouts}")
        assert page.evaluate("window.__measures") >= TABLES  # the tables' list measured
        assert errors == []
    finally:
        context.close()


def test_a_big_halls_clock_ticks_and_pages_turn_between_patches(browser, scorer):
    """While patches come, the round clock keeps counting and the tables' pages turn: each
    counted in the page's own ticks (a render of the whole hall a patch froze both)."""
    feed, url = scorer
    data = big_hall()
    feed.reset(data)
    context, page, errors = open_hall(browser, feed, url)
    try:
        page.evaluate("""() => {
          window.__clock = []; window.__pages = [];
          const note = (list, node) => new MutationObserver(() => list.push(node.textContent))
            .observe(node, { childList: true, characterData: true, subtree: true });
          note(window.__clock, document.getElementById('round-clock'));
          note(window.__pages, document.getElementById('tables-pager'));
          window.__measures = 0;
        }""")
        for serial in range(2, 32):  # 30 patches, one every 0.2 s: six seconds of play
            send(feed, [patch(serial, data)])
            time.sleep(0.2)
        expect(page.locator('#tables [data-table="1"] .hand')).to_have_text("31")
        renders = page.evaluate("window.hall.renders")
        clock = page.evaluate("window.__clock")
        # The clock changes every second on its own, not once a render: with each render
        # of the 1,000 rows taking a second, the clock moved with the renders.
        assert len(set(clock)) >= 3, clock
        assert page.evaluate("window.__measures") < TABLES
        assert renders >= 1
        assert errors == []
    finally:
        context.close()
