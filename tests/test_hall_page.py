"""The hall page (kiosk/scorer/web/static/hall.*) in the OS's Chromium, against a stand-in scorer.

The stand-in serves the real static files with the routes of the scorer's contract, and the
test decides what its snapshot and its event stream say: a new snapshot, pings on or off,
streams closed, the next connections refused.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import threading
import time
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from kiosk.scorer.web import hall_page
from kiosk.words.names import name_words

from .browser import DEADLINE_MS, collect_page_errors, playwright_sync_api, serve

pytestmark = pytest.mark.browser

expect = playwright_sync_api().expect

STATIC = Path(__file__).resolve().parent.parent / "kiosk" / "scorer" / "web" / "static"
TIMEOUT = DEADLINE_MS
expect.set_options(timeout=TIMEOUT)
TV = (1920, 1080)
PHONE = (390, 844)

NAMES = ["鼓浪屿队", "集美队", "思明队", "湖里队", "海沧队", "同安队", "翔安队", "厦大队"]
RULESET_NAMES = {"zh-Hans": "厦门 2015", "zh-Hant": "廈門 2015", "en": "Xiamen 2015"}


def team_name(i: int) -> str:
    return NAMES[i] if i < len(NAMES) else f"第{i + 1}队"


def round_clock(started: float | None, state: str = "running", **over) -> dict:
    """The round clock as `Director.round_clock` gives it (a 60-minute round 2)."""
    return {"round": 2, "started_at": started, "minutes": 60, "extra_seconds": 0.0,
            "paused_total": 0.0, "paused_at": None, "stopped_at": None,
            "ends_at": None if started is None else started + 3600,
            "state": state if started is not None else "waiting", **over}


def table(n: int, **over) -> dict:
    row = {"table": n, "round": 2, "ns": team_name(2 * n - 2), "ew": team_name(2 * n - 1),
           "hand": 7, "levels": {"NS": "8", "EW": "5"}, "dealer": "N", "phase": "play",
           "time_left": 1234.5, "clock_running": True,
           "link": {"state": "ok", "behind": 0, "last_seen": None},
           "late": False, "result": None}
    row.update(over)
    return row


def snapshot(tables: int = 4, **over) -> dict:
    """A snapshot of round 2 of 5; the first four tables differ in phase, link and lateness."""
    rows = [table(n) for n in range(1, tables + 1)]
    special = {
        2: dict(phase="bury", hand=3, dealer="E", late=True, clock_running=False,
                time_left=300.0, link={"state": "behind", "behind": 3, "last_seen": None}),
        3: dict(phase="over", hand=12, dealer=None, clock_running=False, time_left=0.0,
                result={"winner": "NS", "text": f"{team_name(4)} 胜"}),
        4: dict(phase="setup", hand=None, levels=None, dealer=None, time_left=None,
                clock_running=False, link={"state": "never", "behind": 0, "last_seen": None}),
    }
    for n, fields in special.items():
        if n <= tables:
            rows[n - 1].update(fields)
    teams = 2 * tables
    data = {
        "generated": 0.0,
        "address": "http://192.168.1.10:8080/",
        "event": {"name": "厦门杯", "ruleset": "xiamen-2015", "ruleset_name": RULESET_NAMES,
                  "format": "swiss", "wording": "", "net_levels": True, "opponents": True,
                  "round": 2, "rounds": 5, "status": "running"},
        "round_clock": round_clock(None),
        "muted": False,
        "standings": [{"rank": i + 1, "team": f"t{i + 1:02d}", "name": team_name(i),
                       "points": 6 - i // 3, "net": 7 - i, "opponents": 9, "played": 2,
                       "tied": False} for i in range(teams)],
        "tables": rows,
        "pairings_round": None,
        "pairings": [],
    }
    data.update(over)
    return data


def with_table(data: dict, n: int, **fields) -> dict:
    data["tables"][n - 1].update(fields)
    return data


def sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class Feed:
    """What the stand-in scorer serves; changed from the test's thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.shutdown = False
        self.generation = 0
        self.reset(snapshot())

    def reset(self, data: dict, skew: float = 0.0) -> None:
        """A new snapshot, pings on, counters at zero; streams of an earlier test end."""
        with self.lock:
            self.generation += 1
            self.snapshot = data
            self.skew = skew            # the scorer's clock minus the real one
            self.messages: list[str] = []
            self.pinging = True
            self.ping_every = 0.5
            self.refuse = 0             # answer the next N stream requests with 503
            self.crowded = False        # … saying the address has all the streams it may
            self.attempts = 0           # stream requests
            self.connections = 0        # streams opened

    def now(self) -> float:
        return time.time() + self.skew

    def current(self) -> dict:
        with self.lock:
            return {**self.snapshot, "generated": self.now()}

    def publish(self, data: dict) -> None:
        """A new snapshot, sent down every open stream."""
        with self.lock:
            self.snapshot = data
            self.messages.append(sse("snapshot", {**data, "generated": self.now()}))

    def replace_quietly(self, data: dict) -> None:
        """A new snapshot that only GET /api/hall shows."""
        with self.lock:
            self.snapshot = data

    def set_pinging(self, on: bool) -> None:
        with self.lock:
            self.pinging = on

    def close_streams(self, refuse_next: int = 0, crowded: bool = False) -> None:
        """End the open streams and refuse the next `refuse_next` (`crowded`: as the scorer
        does when the address has as many streams as it allows)."""
        with self.lock:
            self.generation += 1
            self.refuse, self.crowded = refuse_next, crowded


def stand_in_scorer(feed: Feed) -> Starlette:
    async def page(request):
        return HTMLResponse(hall_page.html())  # the real page, with the catalogs' words

    async def hall(request):
        return JSONResponse(feed.current())

    async def qr(request):
        return Response(hall_page.qr_svg(feed.current()["address"] + "team"),  # (as the app)
                        media_type="image/svg+xml")

    async def stream(request):
        with feed.lock:
            feed.attempts += 1
            if feed.refuse > 0:
                feed.refuse -= 1
                if feed.crowded:
                    return JSONResponse({"error": "hall.too_many_viewers"}, status_code=503)
                return PlainTextResponse("busy", status_code=503)
            feed.connections += 1
            generation, sent = feed.generation, len(feed.messages)

        async def body(sent: int = sent):
            yield "retry: 300\n\n"  # the browser's own reconnect, quicker than its 3 s default
            last_ping = 0.0
            while True:
                with feed.lock:
                    if feed.shutdown or feed.generation != generation:
                        return  # the server ends the stream
                    new, sent = feed.messages[sent:], len(feed.messages)
                    ping = feed.pinging and time.monotonic() - last_ping >= feed.ping_every
                for message in new:
                    yield message
                if ping:
                    last_ping = time.monotonic()
                    yield sse("ping", {"now": feed.now()})
                await asyncio.sleep(0.05)

        return StreamingResponse(body(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    return Starlette(routes=[
        Route("/", page),
        Route("/api/hall", hall),
        Route("/api/hall/stream", stream),
        Route("/qr.svg", qr),
        Mount("/static", StaticFiles(directory=STATIC)),
    ])


@pytest.fixture(scope="module")
def scorer():
    feed = Feed()
    with serve(stand_in_scorer(feed)) as server:
        yield feed, server.url
        feed.shutdown = True


class Hall:
    """Opens the hall page in fresh browser contexts; checks for script errors at the end."""

    def __init__(self, browser, feed: Feed, url: str) -> None:
        self.browser, self.feed, self.url = browser, feed, url
        self.contexts: list = []
        self.errors: list[str] = []

    def open(self, query: str = "", size: tuple[int, int] = TV, wait: bool = True):
        context = self.browser.new_context(viewport={"width": size[0], "height": size[1]})
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        self.errors = collect_page_errors(page)
        streams = self.feed.connections
        page.goto(f"{self.url}/{query}")
        if wait:  # first paint done: the snapshot's event name is on screen
            name = (self.feed.current()["event"] or {}).get("name")
            if name:
                expect(page.locator("#event-name")).to_have_text(name)
            self.wait_for_streams(streams + 1)
        return page

    def wait_for_streams(self, count: int) -> None:
        """Until the page has opened its stream (`count` since the feed's reset): the page
        fetches the snapshot first, and the stand-in keeps no backlog for a stream opened
        later (the real scorer's ?since does), so a test's message must wait for it."""
        deadline = time.monotonic() + TIMEOUT / 1000
        while self.feed.connections < count:
            assert time.monotonic() < deadline, (self.feed.connections, count)
            time.sleep(0.02)

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def hall(browser, scorer):
    feed, url = scorer
    feed.reset(snapshot())
    opened = Hall(browser, feed, url)
    yield opened
    opened.close()
    assert opened.errors == []


def row(page, n: int):
    return page.locator(f'#tables [data-table="{n}"]')


def visible_tables(page) -> list[int]:
    return page.eval_on_selector_all(
        "#tables [data-table]:not([hidden])", "rows => rows.map(r => Number(r.dataset.table))")


# ---- first paint and the live feed ----------------------------------------------------------

def test_first_paint_shows_the_snapshot(hall):
    page = hall.open()
    expect(page.locator("#round")).to_have_text("第 2/5 轮")
    expect(page.locator("#ruleset")).to_have_text("规则：厦门 2015")
    expect(page.locator("#status")).to_have_text("比赛中")
    expect(page.locator("#muted")).to_be_hidden()
    expect(page.locator("#standings [data-team]")).to_have_count(8)
    first = page.locator('#standings [data-team="t01"]')
    expect(first.locator(".name")).to_have_text("鼓浪屿队")
    expect(first.locator(".net")).to_have_text("+7")
    expect(page.locator("#tables [data-table]")).to_have_count(4)
    one = row(page, 1)
    expect(one.locator(".ns")).to_have_text("鼓浪屿队")
    expect(one.locator(".ew")).to_have_text("集美队")
    expect(one.locator(".hand")).to_have_text("7")
    expect(one.locator(".levels .lv-ns")).to_have_text("8")
    expect(one.locator(".levels .lv-ew")).to_have_text("5")
    expect(one.locator(".dealer")).to_have_text("北")
    expect(one.locator(".phase")).to_have_text("出牌")
    expect(one.locator(".link")).to_have_text("在线")
    expect(row(page, 2).locator(".link")).to_have_text("待传 3")
    expect(row(page, 4).locator(".link")).to_have_text("未连接")
    expect(row(page, 4).locator(".levels")).to_have_text("—")
    qr = page.locator("#qr img")
    expect(qr).to_have_attribute("src", "/qr.svg")
    assert page.evaluate("document.querySelector('#qr img').naturalWidth") > 0
    # what the QR code says, to type by hand: the phones' page (it said the hall's own)
    expect(page.locator("#address")).to_have_text("http://192.168.1.10:8080/team")


def test_a_snapshot_from_the_stream_updates_a_table(hall):
    page = hall.open()
    expect(row(page, 1).locator(".hand")).to_have_text("7")
    data = with_table(snapshot(), 1, hand=8, levels={"NS": "9", "EW": "5"}, dealer="S")
    hall.feed.publish(with_table(data, 4, phase="recess"))  # a phase this page does not know
    expect(row(page, 1).locator(".hand")).to_have_text("8")
    # (a dash: its raw name is no word for the hall, as 「fry」 was in a hall review)
    expect(row(page, 4).locator(".phase")).to_have_text("—")
    expect(row(page, 1).locator(".lv-ns")).to_have_text("9")
    expect(row(page, 1).locator(".dealer")).to_have_text("南")


def test_clocks_count_down_on_the_scorer_clock(hall):
    # The scorer's clock is 400 days behind this machine's: only the offset between the
    # two may matter, as for a TV whose own clock is wrong.
    skew = -400 * 86400.0
    data = snapshot()
    data["round_clock"] = round_clock(time.time() + skew - 600)
    hall.feed.reset(data, skew=skew)
    page = hall.open()
    expect(page.locator("#round-clock")).to_have_text(re.compile(r"^(50:00|49:[0-5]\d)$"))
    expect(page.locator("#round-clock-label")).to_have_text("本轮剩余")
    running = row(page, 1).locator(".time")
    expect(running).to_have_text(re.compile(r"^20:[23]\d$"))  # 1234.5 s
    first = running.inner_text()
    expect(running).not_to_have_text(first)  # it counts down by itself
    expect(row(page, 2).locator(".time")).to_have_text("05:00")  # a stopped clock stays
    expect(row(page, 4).locator(".time")).to_have_text("—")


def test_round_clock_says_time_up(hall):
    data = snapshot()
    data["round_clock"] = round_clock(time.time() - 3700)
    hall.feed.reset(data)
    page = hall.open()
    expect(page.locator("#round-clock")).to_have_text("时间到")
    expect(page.locator("#round-clock")).to_have_class(re.compile(r"\bexpired\b"))


def test_late_and_finished_tables(hall):
    page = hall.open()
    late = row(page, 2)
    expect(late).to_have_class(re.compile(r"\blate\b"))
    expect(late.locator(".late-badge")).to_have_text("超时")
    expect(late.locator(".late-badge")).to_be_visible()
    expect(row(page, 1)).not_to_have_class(re.compile(r"\blate\b"))
    done = row(page, 3)
    expect(done.locator(".phase")).to_have_text("海沧队胜")
    expect(done.locator(".ns")).to_have_class(re.compile(r"\bwinner\b"))
    assert done.evaluate("r => getComputedStyle(r).backgroundColor") != late.evaluate(
        "r => getComputedStyle(r).backgroundColor")


def test_muted_mark_and_next_round_pairings(hall):
    data = snapshot(muted=True, pairings_round=3,
                    pairings=[{"table": 1, "ns": "鼓浪屿队", "ew": "湖里队"},
                              {"table": 2, "ns": "集美队", "ew": "思明队"}])
    data["event"]["status"] = "between"
    hall.feed.reset(data)
    page = hall.open()
    expect(page.locator("#muted")).to_be_visible()
    expect(page.locator("#muted")).to_have_text("静音")
    expect(page.locator("#status")).to_have_text("轮间休息")
    expect(page.locator("#panel-title")).to_have_text("第 3 轮对阵")
    pairs = page.locator("#panel-list [data-pairing-table]")
    expect(pairs).to_have_count(2)
    expect(pairs.nth(0)).to_contain_text("鼓浪屿队")
    expect(pairs.nth(0)).to_contain_text("湖里队")
    expect(page.locator("[data-table]")).to_have_count(4)  # pairings are not live tables


def test_an_individual_events_places_are_numbers_and_its_team_columns_stay_blank(hall):
    """Final places read 「F11」…「F312」 and every player showed 净胜级 0 and 对手分 0 (a head
    referee's review): a place is its number, the prize-final group is said beside the name."""
    data = snapshot()
    data["event"].update(format="individual-groups", wording="individual", net_levels=False,
                         opponents=False)
    data["standings"] = [{"rank": i + 1, "team": f"p{i + 1:02d}", "name": f"选手{i + 1}",
                          "points": 90 - i, "net": 0, "opponents": 0, "played": 2,
                          "tied": False, "group": "", "prize": 1 + i // 4} for i in range(8)]
    data["tables"][0].update(ns="选手1 · 选手2 · 选手3 · 选手4", ew="",
                             ns_ids=["p01", "p02", "p03", "p04"], ew_ids=[], levels=None)
    hall.feed.reset(data)
    page = hall.open()
    # a table of four players, across the sides' columns (they stood under 南北, 东西 empty)
    expect(row(page, 1).locator(".players")).to_have_text("选手1 · 选手2 · 选手3 · 选手4")
    expect(row(page, 1).locator(".ns")).to_have_count(0)
    heads = page.locator("#tables-box .grid-head")
    expect(heads.locator(".players-h")).to_have_text("本桌选手")
    expect(heads.locator(".ns")).to_be_hidden()
    expect(page.locator("#standings-box .grid-head .player-h").first).to_have_text("选手")
    first = page.locator('#standings [data-team="p01"]')
    expect(first.locator(".rank")).to_have_text("1")
    expect(first.locator(".mark")).to_have_text("决赛第 1 组")
    expect(page.locator('#standings [data-team="p05"] .mark')).to_have_text("决赛第 2 组")
    expect(first.locator(".net")).to_be_hidden()
    expect(page.locator('#standings-box .grid-head [data-i18n="col_net"]').first).to_be_hidden()
    expect(page.locator("#team-link")).to_have_text("查我的成绩")  # (找我的队伍: no teams)
    # a fifth place above a fourth's points read as a mistake: the heading says why
    expect(page.locator("#standings-hint")).to_have_text("名次按决赛组排列，大分只计决赛")


def test_an_event_of_wins_shows_wins_and_no_column_of_net_levels(hall):
    """standard-80fen gives no points, a match is won or lost: its standings showed 大分 (the
    matches won) and a 净胜级 column of every team's 0 (a head referee's review). The points
    are 胜场 there, and only the columns that break its ties show: 对手分, not 净胜级."""
    data = snapshot()
    data["event"].update(ruleset="standard-80fen", format="single", wording="wins",
                         net_levels=False)
    for i, standing in enumerate(data["standings"]):
        standing.update(points=2 - i // 3, net=0)
    hall.feed.reset(data)
    page = hall.open()
    head = page.locator("#standings-box .grid-head").first
    expect(head.locator('[data-i18n="col_points"]')).to_have_text("胜场")
    expect(head.locator('[data-i18n="col_net"]')).to_be_hidden()
    expect(head.locator('[data-i18n="col_opponents"]')).to_have_text("对手分")
    first = page.locator('#standings [data-team="t01"]')
    expect(first.locator(".points")).to_have_text("2")
    expect(first.locator(".net")).to_be_hidden()
    expect(first.locator(".opponents")).to_be_visible()
    data["event"].update(ruleset="chaodipi-2011", format="groups-knockout", wording="group",
                         opponents=False)  # a group's points, 1 a win; a playoff breaks ties
    hall.feed.reset(data)
    page = hall.open()
    head = page.locator("#standings-box .grid-head").first
    expect(head.locator('[data-i18n="col_points"]')).to_have_text("积分")
    expect(head.locator('[data-i18n="col_opponents"]')).to_be_hidden()
    expect(page.locator('#standings [data-team="t01"] .opponents')).to_be_hidden()


def test_a_team_whose_only_result_is_a_bye_has_its_place(hall):
    """A team whose one round so far was a bye showed 「—」 for its place on the hall (and the
    phones) while the console and the printed standings placed it (a head referee's
    review): it has scored, so it has a place."""
    data = snapshot()
    last = data["standings"][-1]
    data["standings"][0].update(played=0, points=3)  # round 1's bye
    last.update(played=1, points=0)  # a lost match: placed too
    hall.feed.reset(data)
    page = hall.open()
    expect(page.locator('#standings [data-team="t01"] .rank')).to_have_text("1")
    expect(page.locator(f'#standings [data-team="{last["team"]}"] .rank')).not_to_have_text("—")


def test_a_player_whose_table_plays_on_has_no_place_yet(hall):
    """While the prelims are played, the players of the tables still playing read
    「并列5 … 0」 beside those whose table had finished (a head referee's check)."""
    data = snapshot()
    data["event"].update(format="individual-groups", wording="individual", net_levels=False,
                         opponents=False)
    data["standings"] = [{"rank": 1 if i == 0 else 2, "team": f"p{i + 1:02d}",
                          "name": f"选手{i + 1}", "points": 85 if i == 0 else 0, "net": 0,
                          "opponents": 0, "played": int(i == 0), "tied": i > 0, "group": "",
                          "prize": 0} for i in range(3)]
    hall.feed.reset(data)
    page = hall.open()
    expect(page.locator('#standings [data-team="p01"] .rank')).to_have_text("1")
    expect(page.locator('#standings [data-team="p02"] .rank')).to_have_text("—")


def test_no_event_yet(hall):
    hall.feed.reset(snapshot(tables=0, event=None, standings=[]))
    page = hall.open(wait=False)
    expect(page.locator("#event-name")).to_have_text("尚无赛事")
    expect(page.locator("#standings-box .empty")).to_be_visible()
    expect(page.locator("#tables-box .empty")).to_have_text("暂无比赛桌")
    expect(page.locator("#round")).to_have_text("")


# ---- a feed that stops, ends, fails ----------------------------------------------------------

STALE = re.compile(r"\bstale\b")


def test_stale_mark_when_pings_stop_and_gone_when_they_return(hall):
    """While the hall's data is lost no table is said to be 在线 (every one stayed green: a
    spectator's review, 2026-12-06): their links are 未知 until data comes again."""
    page = hall.open("?stale_seconds=1")
    link = row(page, 1).locator(".link")
    expect(page.locator("body")).not_to_have_class(STALE)
    expect(page.locator("#stale")).to_be_hidden()
    expect(link).to_have_text("在线")
    hall.feed.set_pinging(False)
    expect(page.locator("body")).to_have_class(STALE)
    banner = page.locator("#stale")
    expect(banner).to_be_visible()
    expect(banner).to_have_text(re.compile(r"^数据自 \d\d:\d\d:\d\d 起中断$"))
    expect(link).to_have_text("未知")
    expect(page.locator("#tables .link-ok")).to_have_count(0)
    # The round clock and the status beside it are greyed as the lists are: the page cannot
    # know whether the head referee paused or ended the round (a hall review: they looked live).
    for part in ("main", ".round-box", ".clock-box"):
        expect(page.locator(part)).to_have_css("opacity", "0.55")
    name, bar = page.locator("#event-name").bounding_box(), banner.bounding_box()
    assert bar["y"] >= name["y"] + name["height"]  # a bar of its own: the name stays readable
    hall.feed.set_pinging(True)
    expect(page.locator("body")).not_to_have_class(STALE)
    expect(banner).to_be_hidden()
    expect(link).to_have_text("在线")
    expect(page.locator(".clock-box")).to_have_css("opacity", "1")


def test_reconnects_and_refetches_after_the_server_ends_the_stream(hall):
    page = hall.open()
    expect(row(page, 1).locator(".hand")).to_have_text("7")
    page.evaluate("""() => {
        window.staleSeen = false;
        new MutationObserver(() => {
            if (document.body.classList.contains('stale')) window.staleSeen = true;
        }).observe(document.body, {attributes: true, attributeFilter: ['class']});
    }""")
    # The stream ends; the browser's own retry is refused (503), which leaves the
    # EventSource CLOSED, so the page must start a new one itself. Meanwhile the
    # snapshot changed without a message: only a refetch of /api/hall can show it.
    hall.feed.replace_quietly(with_table(snapshot(), 1, hand=9))
    hall.feed.close_streams(refuse_next=1)
    expect(row(page, 1).locator(".hand")).to_have_text("9")
    expect(page.locator("body")).not_to_have_class(STALE)
    assert page.evaluate("window.staleSeen") is True
    hall.wait_for_streams(2)  # the page's own new stream
    assert hall.feed.attempts >= 3
    hall.feed.publish(with_table(snapshot(), 1, hand=10))  # and the new stream is live
    expect(row(page, 1).locator(".hand")).to_have_text("10")


def test_a_screen_the_hall_has_no_room_for_says_so_and_keeps_up(hall):
    """With as many screens open from one address as the scorer allows, a new one was told
    「数据自 17:13:36 起中断」, a time before it was opened (a spectator's review, 2026-12-06):
    it says the hall is full here, keeps fetching the snapshot, and goes live once let in."""
    page = hall.open()
    hall.feed.replace_quietly(with_table(snapshot(), 1, hand=9))
    hall.feed.close_streams(refuse_next=3, crowded=True)
    expect(page.locator("#stale")).to_have_text("这里打开的屏幕已达上限：稍后自动重试")
    expect(row(page, 1).locator(".hand")).to_have_text("9")  # the snapshot, fetched meanwhile
    hall.wait_for_streams(2)  # let in at last
    expect(page.locator("#stale")).to_be_hidden()
    hall.feed.publish(with_table(snapshot(), 1, hand=10))
    expect(row(page, 1).locator(".hand")).to_have_text("10")


# ---- pages, phones, languages, names -----------------------------------------------------------

PAGE_STATE = """() => {
    const area = document.querySelector('#tables').parentElement.getBoundingClientRect();
    const rows = [...document.querySelectorAll('#tables [data-table]:not([hidden])')];
    return {
        pager: document.querySelector('#tables-pager').textContent,
        tables: rows.map(r => Number(r.dataset.table)),
        fits: rows.every(r => r.getBoundingClientRect().bottom <= area.bottom + 0.5),
    };
}"""


def test_pages_turn_when_forty_tables_do_not_fit_a_tv(hall):
    hall.feed.reset(snapshot(tables=40))
    page = hall.open("?page_seconds=1")
    pager = page.locator("#tables-pager")
    expect(pager).to_have_text(re.compile(r"^1/\d+$"))
    count = int(pager.inner_text().split("/")[1])
    assert count >= 2
    expect(page.locator("#standings-pager")).to_have_text(re.compile(r"^\d+/\d+$"))
    assert page.evaluate("document.documentElement.scrollHeight") <= TV[1]  # no scrolling
    pages: dict[int, list[int]] = {}
    for _ in range(3 * count):  # watch the pages turn until each was seen
        state = page.evaluate(PAGE_STATE)  # indicator and rows read at one moment
        number, total = map(int, state["pager"].split("/"))
        assert total == count and state["fits"]  # each row wholly inside the list's area
        assert 0 < len(state["tables"]) < 40
        pages[number] = state["tables"]
        if len(pages) == count:
            break
        expect(pager).not_to_have_text(state["pager"])
    assert sorted(pages) == list(range(1, count + 1))
    # each table on exactly one page, in order
    assert [n for number in sorted(pages) for n in pages[number]] == list(range(1, 41))


def test_phone_layout_is_one_scrolling_column_without_pages(hall):
    hall.feed.reset(snapshot(tables=40))
    page = hall.open("?page_seconds=1", size=PHONE)
    expect(page.locator("#tables [data-table]")).to_have_count(40)
    assert len(visible_tables(page)) == 40
    expect(page.locator("#tables-pager")).to_be_hidden()
    expect(page.locator("#standings-pager")).to_be_hidden()
    boxes = {name: page.locator(name).bounding_box()
             for name in ("#standings-box", "#tables-box", "#side")}
    assert abs(boxes["#standings-box"]["x"] - boxes["#tables-box"]["x"]) < 1
    assert boxes["#tables-box"]["y"] >= boxes["#standings-box"]["y"] + \
        boxes["#standings-box"]["height"]
    assert all(box["width"] <= PHONE[0] for box in boxes.values())
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    assert page.evaluate("document.documentElement.scrollHeight") > PHONE[1]  # it scrolls
    size = row(page, 1).locator(".ns").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 18
    # a card has no column heads: each side's name under its word, the time after its own
    # (「湖里… 6 : 2 火炬…」 and 「1:21:43」 said neither; a player's review)
    said = {cell: row(page, 1).locator(cell).evaluate(
        "e => getComputedStyle(e, '::before').content") for cell in (".ns", ".ew", ".time")}
    assert said == {".ns": '"南北"', ".ew": '"东西"', ".time": '"剩余 "'}, said
    page.wait_for_timeout(1500)  # longer than a page turn: still every table shown
    assert len(visible_tables(page)) == 40


@pytest.mark.parametrize(("lang", "labels"), [
    ("zh-Hans", {"#standings-box h2 > span": "排名", "#round": "第 2/5 轮",
                 "#ruleset": "规则：厦门 2015", "#status": "比赛中",
                 '[data-i18n="col_points"]': "大分", '[data-i18n="col_net"]': "净胜级"}),
    ("zh-Hant", {"#standings-box h2 > span": "排名", "#round": "第 2/5 輪",
                 "#ruleset": "規則：廈門 2015", "#status": "比賽中",
                 '[data-i18n="col_points"]': "大分", '[data-i18n="col_net"]': "淨勝級"}),
    ("en", {"#standings-box h2 > span": "Standings", "#round": "Round 2/5",
            "#ruleset": "Rules: Xiamen 2015", "#status": "In play"}),
])
def test_languages_show_their_labels(hall, lang, labels):
    page = hall.open(f"?lang={lang}")
    assert page.evaluate("document.documentElement.lang") == lang
    for selector, text in labels.items():
        expect(page.locator(selector).first).to_have_text(text)
    dictionary = page.evaluate("window.hall.I18N")
    assert set(dictionary) == {"zh-Hans", "zh-Hant", "en"}
    assert dictionary[lang]["tables"] in page.locator("#tables-box h2").inner_text()
    for key in ("col_hand", "col_link", "col_phase"):
        expect(page.locator(f'[data-i18n="{key}"]')).to_have_text(dictionary[lang][key])
    expect(row(page, 1).locator(".phase")).to_have_text(dictionary[lang]["phase_play"])


def test_every_language_has_the_same_keys_and_the_switch_works(hall):
    page = hall.open()
    keys = page.evaluate("Object.values(window.hall.I18N).map(d => Object.keys(d).sort())")
    assert keys[0] == keys[1] == keys[2]
    expect(page.locator("#standings-box h2 > span").first).to_have_text("排名")
    page.locator('#langs button[data-lang="en"]').click()
    expect(page.locator("#standings-box h2 > span").first).to_have_text("Standings")
    expect(row(page, 3).locator(".phase")).to_have_text("海沧队 won")
    expect(page.locator('#langs button[data-lang="en"]')).to_have_attribute("aria-pressed", "true")
    assert "lang=en" in page.url
    page.locator('#langs button[data-lang="zh-Hant"]').click()
    expect(page.locator("#tables-box h2 > span").first).to_have_text("各桌實況")
    expect(row(page, 1).locator(".link")).to_have_text("線上")


CUT_HEADS = """() => [...document.querySelectorAll('#standings-box .grid-head > *')]
  .filter((head) => head.offsetWidth && (head.scrollWidth > head.clientWidth + 1 ||
                                         head.scrollHeight > head.clientHeight + 1))
  .map((head) => head.textContent)"""


@pytest.mark.parametrize("size", [TV, (1366, 768), PHONE])
def test_the_english_standings_heads_are_read_whole_never_cut(hall, size):
    """「Bi…」 for Big points, 「Opp…」 on a 1080p TV: each head whole, on two lines if it
    must, live and in the closed event's final standings."""
    page = hall.open("?lang=en", size=size)
    expect(page.locator('[data-i18n="col_points"]').first).to_have_text("Big points")
    assert page.evaluate(CUT_HEADS) == []
    hall.feed.publish(final_standings())
    expect(page.locator("#standings-box h2 > span").first).to_have_text("Final standings")
    assert page.evaluate(CUT_HEADS) == []


def test_names_are_shown_as_text_never_as_html(hall):
    script = "<script>window.pwned = 1</script>"
    image = '<img src="x" onerror="window.pwned = 2">'
    data = with_table(snapshot(), 1, ns=script, ew=image)
    data["standings"][0]["name"] = image
    data["event"]["name"] = "<b>厦门杯</b>"
    hall.feed.reset(data)
    page = hall.open()
    expect(row(page, 1).locator(".ns")).to_have_text(script)
    expect(row(page, 1).locator(".ew")).to_have_text(image)
    expect(page.locator('#standings [data-team="t01"] .name')).to_have_text(image)
    assert page.locator("#tables script, #tables img, #standings img, #event-name b").count() == 0
    hall.feed.publish(data)  # the stream's path renders the same way
    expect(row(page, 1).locator(".ns")).to_have_text(script)
    assert page.evaluate("window.pwned") is None


# ---- the head referee's console on the hall page (issue 12) -------------------------------


def test_the_qr_code_is_an_image_chromium_draws_and_it_reads_back_as_the_address(hall):
    import zxingcpp
    from PIL import Image

    page = hall.open()
    qr = page.locator("#qr img")
    expect(qr).to_be_visible()
    assert page.evaluate("document.querySelector('#qr img').naturalWidth") > 0
    shot = Image.open(io.BytesIO(qr.screenshot()))
    found = zxingcpp.read_barcodes(shot)
    assert [code.text for code in found] == ["http://192.168.1.10:8080/team"]


def test_24_teams_and_12_tables_fit_one_1080p_screen_without_pages(hall):
    hall.feed.reset(snapshot(tables=12))
    page = hall.open()
    expect(page.locator("#standings [data-team]")).to_have_count(24)
    page.wait_for_timeout(300)  # the layout settles after the fonts
    for name in ("standings", "tables"):
        expect(page.locator(f"#{name}-pager")).to_be_hidden()
        hidden = page.locator(f"#{name} [hidden]")
        expect(hidden).to_have_count(0)
    state = page.evaluate(PAGE_STATE)
    assert state["fits"] and len(state["tables"]) == 12
    assert page.evaluate("document.documentElement.scrollHeight") <= TV[1]


def test_between_rounds_the_pairings_stand_beside_the_standings_while_they_fit_one_page(hall):
    """A head referee's review: between rounds the board took the whole screen, and players
    saw no standings after the round they had just played until the next one started."""
    pairings = [{"table": n, "ns": team_name(2 * n - 2), "ew": team_name(2 * n - 1)}
                for n in range(1, 9)]
    hall.feed.reset(snapshot(pairings_round=3, pairings=pairings,
                             byes=[{"team": "t17", "name": "轮空队", "points": 3}]))
    page = hall.open()
    expect(page.locator("#panel")).to_be_visible()
    expect(page.locator("#tables-box")).to_be_hidden()
    expect(page.locator("#panel-title")).to_have_text("第 3 轮对阵")
    expect(page.locator("#panel-list [data-pairing-table]")).to_have_count(8)
    expect(page.locator("#panel-list .bye")).to_have_text("—轮空：轮空队")
    expect(page.locator("#status")).to_have_text("轮间休息")
    expect(page.locator("#standings-box")).to_be_visible()
    expect(page.locator("#standings [data-team]")).to_have_count(8)
    page.wait_for_timeout(300)  # the layout settles after the fonts
    expect(page.locator("#panel-pager")).to_be_hidden()  # every table on one page
    box, standings = (page.locator(name).bounding_box() for name in ("#panel", "#standings-box"))
    assert standings["x"] + standings["width"] <= box["x"] and box["height"] > 0.8 * TV[1]
    # ... and the QR code beside them: players look for their table then, phone in hand
    expect(page.locator("#qr-img")).to_be_visible()
    qr = page.locator("#qr-img").bounding_box()
    assert qr["x"] >= box["x"] + box["width"] and qr["y"] < TV[1] / 2
    # A board that would turn pages beside the standings takes their room.
    hall.feed.publish(snapshot(pairings_round=3, pairings=[
        {"table": n, "ns": team_name(n), "ew": team_name(n + 40)} for n in range(1, 31)]))
    expect(page.locator("#panel-list [data-pairing-table]")).to_have_count(30)
    expect(page.locator("#standings-box")).to_be_hidden()
    box = page.locator("#panel").bounding_box()
    assert box["width"] > 0.75 * TV[0] and box["height"] > 0.8 * TV[1]  # most of the screen
    hall.feed.publish(snapshot())  # the round starts: the tables are back
    expect(page.locator("#panel")).to_be_hidden()
    expect(page.locator("#tables-box")).to_be_visible()
    expect(page.locator("#standings-box")).to_be_visible()


def test_unused_tables_ruled_results_and_byes_read_as_such(hall):
    data = snapshot(tables=4, byes=[{"team": "t09", "name": "轮空队", "points": 3}])
    data = with_table(data, 4, phase="unused", round=None, ns="", ew="",
                      link={"state": "unused", "behind": 0, "last_seen": 0.0})
    data = with_table(data, 3, phase="ruled", result={"winner": "EW", "text": team_name(5),
                                                      "ruling": "forfeit"})
    hall.feed.reset(data)
    page = hall.open()
    four = row(page, 4)
    expect(four.locator(".phase")).to_have_text("本轮不用")
    expect(four).to_have_class(re.compile(r"\bunused\b"))
    expect(four.locator(".link")).not_to_contain_text("离线")
    expect(row(page, 3).locator(".phase")).to_have_text(f"{team_name(5)}胜（对方判负）")
    expect(page.locator("#tables .bye")).to_have_text("—轮空：轮空队")
    page.locator('#langs [data-lang="en"]').click()
    expect(row(page, 3).locator(".phase")).to_have_text(f"{team_name(5)} won (forfeit)")
    expect(four.locator(".phase")).to_have_text("Not used")


def test_a_kiosk_coming_back_after_a_restart_of_the_scorer_is_grey_not_red(hall):
    data = with_table(snapshot(tables=4), 2, link={"state": "returning", "behind": 0,
                                                   "last_seen": 1_800_000_000.0})
    hall.feed.reset(data)
    page = hall.open()
    link = row(page, 2).locator(".link")
    expect(link).to_have_text("重连中")
    assert link.evaluate("e => getComputedStyle(e).color") == \
        row(page, 4).locator(".link").evaluate("e => getComputedStyle(e).color")  # 未连接's
    page.locator('#langs [data-lang="en"]').click()
    expect(link).to_have_text("Reconnecting")


def test_the_round_clock_pauses_and_stops_with_the_hall(hall):
    now = time.time()
    hall.feed.reset(snapshot(round_clock=round_clock(now - 600, "paused", paused_at=now - 60)))
    page = hall.open()
    expect(page.locator("#round-clock-label")).to_have_text("全场暂停")
    expect(page.locator("#round-clock")).to_have_text("51:00")  # frozen where the pause began
    hall.feed.publish(snapshot(round_clock=round_clock(now - 600, "stopped")))
    expect(page.locator("#round-clock-label")).to_have_text("时间到（裁判长叫停）")
    size = "e => parseFloat(getComputedStyle(e).fontSize)"
    small = page.locator("#round-clock-label").evaluate(size)
    hall.feed.publish(snapshot(round_clock=round_clock(now - 600, "over")))
    # It no longer counts: 本轮结束 takes the clock's place (a hall review: a gold dash stood
    # alone under it).
    expect(page.locator("#round-clock-label")).to_have_text("本轮结束")
    expect(page.locator("#round-clock")).to_be_hidden()
    assert page.locator("#round-clock-label").evaluate(size) > 1.5 * small
    hall.feed.publish(snapshot(round_clock=None))  # no round at all: the box says nothing
    expect(page.locator(".clock-box")).to_have_css("visibility", "hidden")
    hall.feed.publish(snapshot(round_clock=round_clock(now - 600)))
    expect(page.locator("#round-clock")).to_have_text(re.compile(r"^(50:00|49:[0-5]\d)$"))
    expect(page.locator(".clock-box")).to_have_css("visibility", "visible")
    expect(page.locator("#round-clock-label")).to_have_text("本轮剩余")
    assert page.locator("#round-clock-label").evaluate(size) == small


def test_the_status_beside_the_round_clock_never_says_in_play_before_or_after_the_rounds(hall):
    """A round's lead-in said 比赛中 beside 等待开始 02:00, and then 即将开始 beside it (two words
    for one moment: a spectator's review); the last round over said 轮间休息 beside 本轮结束."""
    now = time.time()
    hall.feed.reset(snapshot(round_clock=round_clock(now + 120)))  # started, 2 minutes to go
    page = hall.open()
    expect(page.locator("#round-clock-label")).to_have_text("距开始")
    expect(page.locator("#status")).to_have_text("即将开始")
    hall.feed.publish(snapshot(round_clock=round_clock(now - 600)))
    expect(page.locator("#status")).to_have_text("比赛中")
    last = snapshot(round_clock=round_clock(now - 600, "over"))
    last["event"]["round"] = last["event"]["rounds"]
    hall.feed.publish(last)
    expect(page.locator("#round-clock-label")).to_have_text("本轮结束")
    expect(page.locator("#status")).to_have_text("全部轮次结束")


def test_printing_the_hall_page_keeps_every_name_black_on_white(hall):
    hall.feed.reset(snapshot(tables=40))
    page = hall.open()
    page.emulate_media(media="print")
    colors = page.evaluate("""() => {
        const name = document.querySelector('#standings .name');
        const team = document.querySelector('#tables .team');
        const css = (n) => getComputedStyle(n);
        return {name: css(name).color, team: css(team).color,
                body: css(document.body).backgroundColor,
                shown: document.querySelectorAll('#tables .trow').length,
                visible: [...document.querySelectorAll('#tables .trow')]
                    .filter((r) => getComputedStyle(r).display !== 'none').length};
    }""")
    assert colors["name"] == colors["team"] == "rgb(0, 0, 0)"
    assert colors["body"] == "rgb(255, 255, 255)"
    assert colors["visible"] == colors["shown"] == 40  # every row on paper, not one page


WHOLE = """(sel) => [...document.querySelectorAll(sel)].map((e) => {
  const box = e.getBoundingClientRect(), cell = (e.closest('.srow > *, .trow > *') || e)
    .getBoundingClientRect(), size = parseFloat(getComputedStyle(e).fontSize);
  return {text: e.textContent, lines: Math.round(box.height / (size * 1.45)) || 1,
          cut: e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 2
               || box.right > cell.right + 1 || box.bottom > cell.bottom + 1};
})"""


@pytest.mark.parametrize("size", [(1366, 900), (1920, 1080), (360, 740)])
def test_withdrawn_marks_names_and_results_read_whole_on_tvs_and_phones(hall, size):
    data = snapshot(tables=4)
    data["standings"][2].update(name="面粉厂队", withdrawn_after=1)
    data["standings"][3].update(name="饲料公司联队")
    data = with_table(data, 3, ns="湖里队", ew="面粉厂队", phase="ruled",
                      result={"winner": "NS", "text": "湖里队", "ruling": "forfeit"})
    data = with_table(data, 1, ns="饲料公司联队")
    hall.feed.reset(data)
    page = hall.open(size=size)
    expect(row(page, 3).locator(".phase")).to_have_text("湖里队胜（对方判负）")
    mark, = page.evaluate(WHOLE, "#standings .srow.withdrawn .mark")
    assert mark == {"text": "退赛", "lines": 1, "cut": False}
    names = {n["text"]: n for n in page.evaluate(WHOLE, "#standings .srow .name .label")}
    for name in ("面粉厂队", "饲料公司联队"):
        assert names[name]["lines"] == 1 and not names[name]["cut"], names[name]
    result, = page.evaluate(WHOLE, '#tables [data-table="3"] .phase')
    assert not result["cut"] and result["lines"] <= 2, result
    for team in page.evaluate(WHOLE, "#tables .trow .ns, #tables .trow .ew"):
        assert team["lines"] == 1 and not team["cut"], team


#: The tops of the lines each character of an element's text is on.
CHARACTER_LINES = """(sel) => {
  const e = document.querySelector(sel), tops = [], walker = document.createTreeWalker(e, 4);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      tops.push([node.data[i], Math.round(range.getBoundingClientRect().top)]);
    }
  }
  return tops;
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (360, 740)])
def test_a_ruled_result_breaks_before_its_bracket_not_inside_it(hall, size):
    """「湖里区工商联合会代表队胜（对方判⏎负）」 at 1280 (a spectator's review): the ruling in
    brackets goes whole to the next line, and is not cut."""
    data = snapshot(tables=4)
    for table, ruling in ((2, "forfeit"), (3, "disqualification")):
        data = with_table(data, table, ns="湖里区工商联合会代表队", ew="面粉厂队",
                          phase="ruled", late=False,
                          result={"winner": "NS", "text": "湖里区工商联合会代表队",
                                  "ruling": ruling})
    hall.feed.reset(data)
    page = hall.open(size=size)
    expect(row(page, 2).locator(".phase")).to_have_text("湖里区工商联合会代表队胜（对方判负）")
    expect(row(page, 3).locator(".phase")).to_have_text("湖里区工商联合会代表队胜（对方取消资格）")
    for table in (2, 3):
        tops = page.evaluate(CHARACTER_LINES, f'#tables [data-table="{table}"] .phase')
        bracket = {top for _, top in tops[[ch for ch, _ in tops].index("（"):]}
        assert len(bracket) == 1, tops
        result, = page.evaluate(WHOLE, f'#tables [data-table="{table}"] .phase')
        assert not result["cut"], result


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_a_long_winners_name_is_its_side_in_its_result_which_keeps_to_one_line(hall, size):
    """「厦门市思明区粮油储运有限责任公司代表队胜」 took three lines of its 状态 cell and pushed
    the 20th table onto a second page (a head referee's review); cut, 「…有限…胜」 read as a
    cut (a hall review). The result names the side (the name is whole in its side's cell, in
    gold, and in the result's title)."""
    long = "厦门市思明区粮油储运有限责任公司代表队"
    data = with_table(snapshot(tables=4), 3, ns=long, ew="面粉厂队", phase="over", late=False,
                      result={"winner": "NS", "text": long})
    hall.feed.reset(data)
    page = hall.open(size=size)
    result = row(page, 3).locator(".phase")
    expect(result).to_have_text("南北胜")
    assert result.get_attribute("title") == long
    tops = page.evaluate(CHARACTER_LINES, '#tables [data-table="3"] .phase')
    assert len({top for _, top in tops}) == 1, tops
    (shown,) = page.evaluate(WHOLE, '#tables [data-table="3"] .phase')
    assert not shown["cut"], shown


LONG_NAMES = ["思明区老年大学一队", "思明区老年大学二队", "湖里区工商联合会代表队",
              "Xiamen Expats Card Club"]


HALL_NAMES = ["湖里工人文化宫桥牌与升级爱好者联合队", "思明区老年体育协会八十分代表一队",
              "ABC科技Tractor俱乐部", "集美大学教职工联队"]  # (18, 16, 15 and 9 characters)


def with_names(data: dict, names: list[str]) -> dict:
    """`data` with `names` the first four teams' names, tables 1 and 2 theirs (the first
    against the second, the third against the fourth)."""
    for i, name in enumerate(names):
        data["standings"][i].update(name=name)
    data = with_table(data, 1, ns=names[0], ew=names[1])
    return with_table(data, 2, ns=names[2], ew=names[3])


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_longest_names_a_hall_uses_read_whole_everywhere_on_a_tv(hall, size):
    """A head referee's trial with 16 teams: 湖里工人文化宫桥牌与升级爱… on the 1080p pairing
    board, in the standings and at its table, with a quarter of the board empty below."""
    hall.feed.reset(with_names(snapshot(tables=8), HALL_NAMES))
    page = hall.open(size=size)
    page.wait_for_timeout(300)  # the layout settles after the fonts
    for where in ("#standings .srow .name .label", "#tables .trow .ns, #tables .trow .ew"):
        shown = {n["text"]: n for n in page.evaluate(WHOLE, where)}
        assert all(not shown[name]["cut"] for name in HALL_NAMES), (where, shown)
    if os.environ.get("HALL_SHOTS"):
        page.screenshot(path=f"{os.environ['HALL_SHOTS']}/long-names-{size[0]}.png")
    hall.feed.publish(snapshot(tables=8, pairings_round=3, pairings=[
        {"table": n, "ns": ns, "ew": ew} for n, (ns, ew) in enumerate(
            [(HALL_NAMES[0], HALL_NAMES[1]), (HALL_NAMES[2], HALL_NAMES[3])]
            + [(team_name(2 * i), team_name(2 * i + 1)) for i in range(2, 8)], 1)]))
    expect(page.locator("#panel-list .team")).to_have_count(16)
    page.wait_for_timeout(300)
    shown = {n["text"][2:]: n for n in page.evaluate(WHOLE, "#panel-list .team")}
    assert all(not shown[name]["cut"] for name in HALL_NAMES), shown  # (after 南北 / 东西)
    if os.environ.get("HALL_SHOTS"):
        page.screenshot(path=f"{os.environ['HALL_SHOTS']}/long-names-board-{size[0]}.png")


def test_a_south_north_name_cut_after_its_lines_ends_in_an_ellipsis(hall):
    """A head referee's review: at 1080p 厦门市粮食局机关第二代表队（海沧片区联队） took four
    lines in a box of three and lost 队） with no … (Chromium draws none at the end of a
    right-aligned name it cuts). The 南北 side's names stand at the right of their cells, their
    lines aligned left in a box pushed right."""
    name = "厦门市粮食局机关第二代表队（海沧片区联队）"
    hall.feed.reset(with_table(snapshot(tables=8), 3, ns=name))
    page = hall.open()
    page.wait_for_timeout(300)  # the layout settles after the fonts
    cut = page.locator('#tables [data-table="3"] .ns')
    assert page.evaluate(WHOLE, '#tables [data-table="3"] .ns')[0]["cut"]  # (as it was)
    assert cut.evaluate("e => getComputedStyle(e).textAlign") == "left"
    boxes = page.evaluate("""() => [...document.querySelectorAll('#tables .trow')].map((r) => {
      const ns = r.querySelector('.ns').getBoundingClientRect();
      return Math.round(r.querySelector('.levels').getBoundingClientRect().left - ns.right); })""")
    assert len(set(boxes)) == 1, boxes  # every 南北 name, long or short, ends at the levels


#: A hall's own names (a head referee's review): as a browser breaks Chinese anywhere, they
#: read 「鼓浪屿老年八十」「分协会第一代表」「队」, 「厦门大学教职工代表」「队」, 「集美（集美大」
#: 「学）」.
XIAMEN_NAMES = ["厦门大学教职工代表队", "鼓浪屿老年八十分协会第一代表队", "集美（集美区）",
                "海沧区粮食系统联队", "同安", "思明区工人文化宫八十分俱乐部精英队", "翔安", "湖里",
                "厦门港务集团有限公司工会委员会联合代表队", "火炬高新区", "集美（集美大学）",
                "厦门市第一医院"]

#: Each name's text as the lines it is shown on, and whether its box cuts it.
NAME_LINES = """() => [...document.querySelectorAll('#standings .name .label, #tables .team')]
  .map((e) => {
    const lines = new Map(), walker = document.createTreeWalker(e, 4);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const top = Math.round(range.getBoundingClientRect().top);
        lines.set(top, (lines.get(top) || '') + node.data[i]);
      }
    }
    return {lines: [...lines.keys()].sort((a, b) => a - b).map((top) => lines.get(top)),
            cut: e.scrollHeight > e.clientHeight + 1, loose: e.classList.contains('loose')};
  })"""


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_a_tv_breaks_a_name_between_its_words_unless_that_would_cut_it(hall, size):
    data = snapshot(tables=6)
    for i, shown in enumerate(data["tables"]):
        shown.update(ns=XIAMEN_NAMES[2 * i], ew=XIAMEN_NAMES[2 * i + 1])
    for i, name in enumerate(XIAMEN_NAMES):
        data["standings"][i].update(name=name)
    hall.feed.reset(data)
    page = hall.open(size=size)
    page.wait_for_timeout(300)  # the layout settles after the fonts
    words = [word for word, _ in name_words()] + ["集美大学", "集美区", "八十分", "第一"]
    names = page.evaluate(NAME_LINES)
    assert len(names) == 24 and all(not n["cut"] for n in names), names
    wrapped = [n for n in names if len(n["lines"]) > 1]
    assert len(wrapped) >= 8, names
    for name in wrapped:
        text = "".join(name["lines"])
        ends = {sum(map(len, name["lines"][:i + 1])) for i in range(len(name["lines"]) - 1)}
        assert all(len(line) > 1 for line in name["lines"]), name  # (no 「队」 alone)
        if name["loose"]:  # four lines of words in a box of three: broken anywhere, not cut
            assert text == "厦门港务集团有限公司工会委员会联合代表队", name
            continue
        inside = [(word, end) for word in words for start in _starts(text, word)
                  for end in ends if start < end < start + len(word)]
        assert inside == [], (name, inside)


def _starts(text: str, word: str) -> list[int]:
    return [i for i in range(len(text)) if text.startswith(word, i)]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_long_names_that_begin_alike_read_whole_on_a_tv(hall, size):
    # A hall's names often share their first characters: cut to 思明区老… they cannot be told
    # apart, and a player cannot find their table.
    hall.feed.reset(with_names(snapshot(tables=4), LONG_NAMES))
    page = hall.open(size=size)
    for where in ("#standings .srow .name .label", "#tables .trow .ns, #tables .trow .ew"):
        for name in page.evaluate(WHOLE, where):
            assert not name["cut"] and name["lines"] <= 3, name
    pairings = [{"table": 1, "ns": LONG_NAMES[0], "ew": LONG_NAMES[1]},
                {"table": 2, "ns": LONG_NAMES[2], "ew": LONG_NAMES[3]}]
    hall.feed.publish(snapshot(pairings_round=3, pairings=pairings))
    expect(page.locator("#panel-list .team")).to_have_count(4)
    shown = page.evaluate(WHOLE, "#panel-list .team")
    assert {n["text"][2:] for n in shown} == set(LONG_NAMES)  # (after 南北 / 东西)
    assert not any(n["cut"] for n in shown), shown


GROWN = """() => {
  const root = parseFloat(getComputedStyle(document.documentElement).fontSize);
  const cells = [...document.querySelectorAll('.srow > *, .trow > *')];
  return {sizes: ['#standings .srow', '#tables .trow'].map(
            (row) => parseFloat(getComputedStyle(document.querySelector(row)).fontSize) / root),
          cut: cells.filter((c) => c.scrollWidth > c.clientWidth + 0.5).map((c) => c.textContent)};
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_a_small_halls_lists_grow_to_fill_a_tv_and_nothing_in_them_is_cut(hall, size):
    """A head referee's review: on a 720p TV a 16-team hall's eight tables took half the
    panel in small type, with the rest of it empty below."""
    hall.feed.reset(snapshot(tables=8))
    page = hall.open(size=size)
    page.wait_for_timeout(300)  # the layout settles after the fonts
    grown = page.evaluate(GROWN)
    assert min(grown["sizes"]) > 1.1 and grown["cut"] == [], grown  # (1.0: as before)
    # New data too wide for its column at the grown size: the type is made smaller, not cut.
    hall.feed.publish(with_table(snapshot(tables=8), 1, link={
        "state": "behind", "behind": 12345, "last_seen": None}))
    expect(page.locator('#tables [data-table="1"] .link')).to_contain_text("12345")
    page.wait_for_timeout(300)
    smaller = page.evaluate(GROWN)
    assert smaller["cut"] == [] and smaller["sizes"][1] < grown["sizes"][1], smaller
    # In English too: a late table's state goes under its badge (it was Late Buryi…).
    hall.feed.publish(snapshot(tables=8))
    expect(page.locator('#tables [data-table="1"] .link')).not_to_contain_text("12345")
    page.locator('#langs [data-lang="en"]').click()
    expect(row(page, 2).locator(".phase")).to_have_text("Late Burying")
    page.wait_for_timeout(300)
    english = page.evaluate(GROWN)
    assert english["cut"] == [] and min(english["sizes"]) > 1, english


def test_before_round_one_is_drawn_the_tables_say_so_and_nobody_is_gold(hall):
    data = snapshot(tables=3)
    data["event"]["round"] = None
    data["tables"] = [table(n, round=None, phase="unused", ns="", ew="") for n in (1, 2, 3)]
    for standing in data["standings"]:
        standing.update(rank=1, tied=True, points=0, net=0, played=0)
    hall.feed.reset(data)
    page = hall.open()
    expect(page.locator("#tables-box .empty")).to_have_text("第 1 轮对阵尚未公布")
    expect(page.locator("#tables [data-table]")).to_have_count(0)
    expect(page.locator("#standings .podium")).to_have_count(0)  # all 1=, none has played
    page.locator('#langs [data-lang="en"]').click()
    expect(page.locator("#tables-box .empty")).to_have_text("The round 1 draw is not out yet")
    later = snapshot(tables=3)  # after a round: the first three places, ties sharing one
    later["standings"][2].update(tied=True)
    later["standings"][3].update(rank=3, tied=True)
    hall.feed.publish(later)
    expect(page.locator("#standings .podium")).to_have_count(4)


BOARD = """() => {
  const area = document.querySelector('#panel-list').parentElement.getBoundingClientRect();
  const rows = [...document.querySelectorAll('#panel-list [data-pairing-table]:not([hidden])')];
  return {pager: document.querySelector('#panel-pager').textContent,
          hint: document.querySelector('#panel-hint').textContent,
          tables: rows.map((r) => Number(r.dataset.pairingTable)),
          columns: new Set(rows.map((r) => Math.round(r.getBoundingClientRect().left))).size,
          fits: rows.every((r) => r.getBoundingClientRect().bottom <= area.bottom + 0.5),
          scrolls: document.documentElement.scrollHeight > innerHeight};
}"""


@pytest.mark.parametrize("size, at_least", [((1280, 720), 36), ((1920, 1080), 44)])
def test_a_national_finals_pairing_board_shows_many_tables_a_page_and_says_which(
        hall, size, at_least):
    # 500 tables: at 10 (720p) or 24 (1080p) a page, the board took 50 or 21 pages to turn.
    pairings = [{"table": n, "ns": f"第{2 * n - 1}队", "ew": LONG_NAMES[n % 4]}
                for n in range(1, 501)]
    hall.feed.reset(snapshot(pairings_round=4, pairings=pairings))
    # a page every 3 s: a busy machine still reads the first before it turns
    page = hall.open("?page_seconds=3", size=size)
    expect(page.locator("#panel-pager")).to_have_text(re.compile(r"^第 1–\d+ 桌 · 1/\d+$"))
    first = page.evaluate(BOARD)
    assert first["tables"][0] == 1
    assert first["hint"] == "请按桌号和方位入座：每行左为南北，右为东西"
    assert first["columns"] >= 2 and len(first["tables"]) >= at_least, first
    assert first["fits"] and not first["scrolls"]
    assert first["pager"].startswith(f"第 1–{first['tables'][-1]} 桌")
    shown = page.evaluate(WHOLE, "#panel-list .team:not([hidden])")
    assert not any(n["cut"] for n in shown if n["text"]), shown[:3]
    expect(page.locator("#panel-pager")).not_to_have_text(first["pager"])  # the page turns
    second = page.evaluate(BOARD)
    assert second["tables"][0] == first["tables"][-1] + 1
    assert second["pager"].startswith(f"第 {second['tables'][0]}–{second['tables'][-1]} 桌")
    if os.environ.get("HALL_SHOTS"):  # to look at it: HALL_SHOTS=DIR pytest -k national
        page.screenshot(path=f"{os.environ['HALL_SHOTS']}/board-{size[0]}.png")
    page.locator('#langs [data-lang="en"]').click()
    expect(page.locator("#panel-pager")).to_have_text(re.compile(r"^Tables \d+–\d+ · \d+/\d+$"))
    hint = page.locator("#panel-hint")
    expect(hint).to_have_text("Find your table: North‑South left, East‑West right")
    assert hint.bounding_box()["y"] + hint.bounding_box()["height"] < \
        page.locator("#panel-list").bounding_box()["y"] + 1  # the header holds it
    if os.environ.get("HALL_SHOTS"):
        page.screenshot(path=f"{os.environ['HALL_SHOTS']}/board-{size[0]}-en.png")


# ---- what a player across the room reads (the head referee's hall test) ----------------------

TOWER = "厦门市思明区粮食和物资储备局直属粮油质量检测中心八十分爱好者协会代表队"  # 37 characters


def test_a_hall_pause_is_unmistakable_and_goes_away_on_resume(hall):
    """M12: paused, the TV showed a small grey 全场暂停 above the clock and a green 比赛中."""
    now = time.time()
    hall.feed.reset(snapshot(round_clock=round_clock(now - 600, "paused", paused_at=now - 60)))
    page = hall.open()
    status, banner, clock = page.locator("#status"), page.locator("#paused"), \
        page.locator("#round-clock")
    expect(status).to_have_text("全场暂停")  # never 比赛中 while the hall stands still
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("全场暂停")
    box = banner.bounding_box()
    size = banner.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert box["width"] > 0.9 * TV[0] and size >= 40, (box, size)  # read from the far end
    name = page.locator("#event-name").bounding_box()
    assert box["y"] >= name["y"] + name["height"]  # a bar of its own under the header
    expect(clock).to_have_class(re.compile(r"\bpaused\b"))
    sign = clock.evaluate("e => getComputedStyle(e, '::before').borderLeftWidth")
    assert float(sign.removesuffix("px")) > 0  # the pause sign before the time
    colors = page.evaluate("""() => ({
        status: getComputedStyle(document.querySelector('#status')).backgroundColor,
        running: getComputedStyle(document.querySelector('#round-clock')).color})""")
    assert colors["status"] == colors["running"]  # amber, the status boxed in the clock's colour
    expect(clock).to_have_text("51:00")
    # a table in play says so too, not 出牌 beside a stopped clock (a hall review); a match
    # over keeps its result
    expect(row(page, 1).locator(".phase")).to_have_text("暂停")
    expect(row(page, 3).locator(".phase")).to_contain_text("胜")
    page.wait_for_timeout(1500)
    expect(clock).to_have_text("51:00")  # it stands still
    page.locator('#langs [data-lang="en"]').click()
    expect(status).to_have_text("Hall paused")
    expect(banner).to_contain_text("Hall paused")
    page.locator('#langs [data-lang="zh-Hans"]').click()
    hall.feed.publish(snapshot(round_clock=round_clock(now - 600)))  # resumed
    expect(banner).to_be_hidden()
    expect(status).to_have_text("比赛中")
    expect(clock).not_to_have_class(re.compile(r"\bpaused\b"))
    expect(row(page, 1).locator(".phase")).to_have_text("出牌")
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bpaused\b"))


def final_standings(teams: int = 21) -> dict:
    """A closed event after its fifth round: 21 teams, one with a 37-character name."""
    data = snapshot(tables=10, round_clock={**round_clock(time.time() - 9000), "state": "closed"})
    data["event"].update(round=5, status="closed")
    data["standings"] = [{"rank": i + 1, "team": f"t{i + 1:02d}",
                          "name": TOWER if i == 17 else team_name(i) + ("联队" if i % 3 else ""),
                          "points": 15 - i // 2, "net": 16 - 2 * i, "opponents": 45 - i,
                          "played": 5, "tied": False} for i in range(teams)]
    return data


def test_a_closed_event_features_its_final_standings_large(hall):
    """M13: closed, the TV still filled the screen with the last round's tables, the
    standings a narrow column headed 排名, a long name five lines tall."""
    hall.feed.reset(final_standings())
    page = hall.open()
    title = page.locator("#standings-box h2 > span").first
    expect(title).to_have_text("最终排名")  # it said 排名
    expect(page.locator("#tables-box")).to_be_hidden()
    expect(page.locator(".clock-box")).to_be_hidden()  # nothing counts any more
    expect(page.locator("#standings [data-team]")).to_have_count(21)
    expect(page.locator("#standings [hidden]")).to_have_count(0)  # every team, no pages
    expect(page.locator("#standings-pager")).to_be_hidden()
    expect(page.locator("#qr-img")).to_be_visible()  # a phone still finds its team's matches
    page.wait_for_timeout(300)  # the layout settles after the fonts
    box = page.locator("#standings-box").bounding_box()
    assert box["width"] > 0.75 * TV[0], box
    state = page.evaluate("""() => {
        const area = document.querySelector('#standings').parentElement.getBoundingClientRect();
        const rows = [...document.querySelectorAll('#standings .srow')];
        return {fits: rows.every((r) => r.getBoundingClientRect().bottom <= area.bottom + 0.5),
                size: parseFloat(getComputedStyle(document.querySelector(
                    '#standings .srow .name .label')).fontSize)};
    }""")
    assert state["fits"] and state["size"] >= 1.3 * 22, state  # larger than a running hall's
    names = page.evaluate(WHOLE, "#standings .srow .name .label")
    assert all(n["lines"] == 1 and not n["cut"] for n in names if n["text"] != TOWER), names
    tower, = (n for n in names if n["text"] == TOWER)
    assert tower["lines"] <= 3, tower  # not a tower: three lines, then …
    expect(page.locator('#standings [data-team="t18"] .name')).to_have_attribute("title", TOWER)
    if os.environ.get("HALL_SHOTS"):
        page.screenshot(path=f"{os.environ['HALL_SHOTS']}/final-1920.png")
    page.locator('#langs [data-lang="en"]').click()
    expect(title).to_have_text("Final standings")
    reopened = snapshot()  # reopened: the live hall again
    hall.feed.publish(reopened)
    expect(page.locator("#tables-box")).to_be_visible()
    expect(title).to_have_text("Standings")
    phone = hall.open(size=PHONE)
    hall.feed.publish(final_standings())
    expect(phone.locator("#standings-box h2 > span").first).to_have_text("最终排名")
    expect(phone.locator("#tables-box")).to_be_hidden()


@pytest.mark.parametrize("size", [TV, (1280, 720), PHONE])
def test_a_long_name_takes_three_lines_or_four_never_a_tower(hall, size):
    data = snapshot(tables=4)
    data["standings"][1].update(name=TOWER)
    hall.feed.reset(with_table(data, 1, ew=TOWER))
    page = hall.open(size=size)
    for where, most in (("#standings .srow .name .label", 3),
                        ("#tables .trow .ew", 3 if size[0] >= 1600 or size == PHONE else 4)):
        shown = {n["text"]: n for n in page.evaluate(WHOLE, where)}
        assert shown[TOWER]["lines"] <= most and shown[TOWER]["cut"], shown[TOWER]  # … then
    expect(row(page, 1).locator(".ew")).to_have_attribute("title", TOWER)
    hall.feed.publish(snapshot(pairings_round=3, pairings=[
        {"table": 1, "ns": "鼓浪屿队", "ew": TOWER}, {"table": 2, "ns": "集美队", "ew": "思明队"}]))
    expect(page.locator("#panel-list .team")).to_have_count(4)
    board = page.evaluate("""() => [...document.querySelectorAll('#panel-list .team')].map((e) => {
        const range = document.createRange(), box = e.getBoundingClientRect();
        range.selectNodeContents(e.lastChild);  // (the lines shown: those inside its box)
        return new Set([...range.getClientRects()].filter((r) => r.bottom <= box.bottom + 1)
            .map((r) => Math.round(r.top))).size; })""")
    assert max(board) <= 3, board  # (the side's word above it apart)


def test_the_phone_shows_the_published_pairings_once_and_no_alarm_before_the_start(hall):
    """30/30b: between rounds the phone listed the pairings twice (three times, with every
    table 等待开始 below them), and every table red 离线 as its kiosk had not connected."""
    data = snapshot(tables=4, pairings_round=2, pairings=[
        {"table": n, "ns": team_name(2 * n - 2), "ew": team_name(2 * n - 1)} for n in (1, 2, 3, 4)])
    for n in (1, 2, 3, 4):
        data = with_table(data, n, phase="waiting", hand=None, levels=None, dealer=None,
                          time_left=None, clock_running=False,
                          link={"state": "offline", "behind": 0, "last_seen": None})
    data["round_clock"] = round_clock(None)
    hall.feed.reset(data)
    page = hall.open(size=PHONE)
    expect(page.locator("#panel")).to_be_visible()
    shown = page.evaluate("""() => [...document.querySelectorAll('*')].filter((e) =>
        e.checkVisibility() && [...e.childNodes].some((c) => c.nodeType === 3
            && c.textContent.includes('鼓浪屿队'))).length""")
    assert shown == 2, shown  # in the pairings and in the standings, no more
    assert "离线" not in page.locator("body").inner_text()
    # (on paper too: a kiosk not yet heard from before its round is said in grey)
    expect(row(page, 1).locator(".link")).to_have_text("未连接")
    expect(row(page, 1).locator(".link")).to_have_attribute("data-state", "never")
    started = snapshot(tables=4)
    hall.feed.publish(with_table(started, 1, link={"state": "offline", "behind": 0,
                                                   "last_seen": None}))
    expect(row(page, 1).locator(".link")).to_have_text("离线")  # in play: the alarm it is
    expect(row(page, 1).locator(".link")).to_have_css("color", "rgb(248, 81, 73)")


def test_a_table_whose_kiosk_has_not_set_up_its_match_is_not_free(hall):
    hall.feed.reset(with_table(snapshot(tables=4), 4, phase="idle"))
    page = hall.open()
    expect(row(page, 4).locator(".phase")).to_have_text("未就绪")  # not 空闲


@pytest.mark.parametrize(("lang", "tied", "alone"), [
    ("zh-Hans", "并列3", "5"), ("zh-Hant", "並列3", "5"), ("en", "3=", "5")])
def test_shared_places_are_said_as_the_console_says_them(hall, lang, tied, alone):
    """1= read as nothing in particular: the console says 并列第 3 名."""
    data = snapshot()
    data["standings"][2].update(rank=3, tied=True)
    data["standings"][3].update(rank=3, tied=True)
    hall.feed.reset(data)
    page = hall.open(f"?lang={lang}")
    expect(page.locator('#standings [data-team="t03"] .rank')).to_have_text(tied)
    expect(page.locator('#standings [data-team="t04"] .rank')).to_have_text(tied)
    expect(page.locator('#standings [data-team="t05"] .rank')).to_have_text(alone)
    rank = page.evaluate(WHOLE, '#standings [data-team="t03"] .rank')[0]
    assert not rank["cut"] and rank["lines"] == 1, rank
    before = snapshot()  # before any match: every team would be 并列1
    for standing in before["standings"]:
        standing.update(rank=1, tied=True, points=0, net=0, played=0)
    hall.feed.publish(before)
    expect(page.locator("#standings .rank")).to_have_text(["—"] * 8)


def test_the_ruleset_is_labelled_not_read_as_a_second_title(hall):
    page = hall.open()
    expect(page.locator("#ruleset")).to_have_text("规则：厦门 2015")
    page.locator('#langs [data-lang="en"]').click()
    expect(page.locator("#ruleset")).to_have_text("Rules: Xiamen 2015")


def test_a_standings_name_is_as_bright_and_as_large_as_a_tables(hall):
    page = hall.open()  # (it was grey and smaller: the clock's label's style)
    look = page.evaluate("""() => {
        const css = (sel) => getComputedStyle(document.querySelector(sel));
        const a = css('#standings .srow .name .label'), b = css('#tables .trow .ns');
        return [a.color, b.color, a.fontSize, b.fontSize];
    }""")
    assert look[0] == look[1] and look[2] == look[3], look


@pytest.mark.parametrize("size", [TV, (1280, 720)])
def test_for_how_long_a_kiosk_has_been_offline_reads_whole(hall, size):
    data = with_table(snapshot(), 1, link={"state": "offline", "behind": 0,
                                           "last_seen": time.time() - 15 * 60 - 5})
    hall.feed.reset(data)
    page = hall.open(size=size)
    expect(row(page, 1).locator(".link")).to_have_text("离线 15 分钟")
    link, = page.evaluate(WHOLE, '#tables [data-table="1"] .link')
    assert not link["cut"], link  # it read 离线 15 …


def test_the_address_under_the_qr_code_breaks_only_between_its_parts(hall):
    address = "https://192.168.100.200:18231/team"  # (its parts end at 8, 23 and 34)
    hall.feed.reset(snapshot(address=address.removesuffix("team")))
    for lang in ("en", "zh-Hans"):
        page = hall.open(f"?lang={lang}")
        expect(page.locator("#address")).to_have_text(address)
        lines = page.evaluate("""() => {
          const lines = new Map();  // each character's line, by its top
          for (const node of document.getElementById('address').childNodes) {
            for (let i = 0; node.nodeType === Node.TEXT_NODE && i < node.length; i++) {
              const range = document.createRange();
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const top = Math.round(range.getClientRects()[0].top);
              lines.set(top, (lines.get(top) || '') + node.data[i]);
            }
          }
          return [...lines.keys()].sort((a, b) => a - b).map((top) => lines.get(top));
        }""")
        ends = [sum(map(len, lines[:i + 1])) for i in range(len(lines))]
        assert "".join(lines) == address and set(ends) <= {8, 23, 34}, (lang, lines)


def test_the_state_column_gives_its_room_to_the_names_while_no_row_needs_it(hall):
    """A hall review (Medium): long names wrapped on the TV while 状态 stood half empty
    beside 出牌. The column is four characters wide until a row says more (a result, 超时)."""
    playing = snapshot()
    for tb in playing["tables"]:
        tb.update(late=False, result=None, phase="play" if tb["phase"] == "over" else tb["phase"])
    hall.feed.reset(playing)
    page = hall.open()
    box, names = page.locator("#tables-box"), page.locator("#tables-box .grid-head .ew")
    expect(box).not_to_have_class(re.compile(r"\bwide-state\b"))
    wide = names.bounding_box()["width"]
    cut = """() => Array.from(document.querySelectorAll('#tables .phase'))
        .filter((c) => c.scrollWidth > c.clientWidth + 0.5).length"""
    assert page.evaluate(cut) == 0  # (出牌, 扣底, 设置: whole)
    page.locator('#langs [data-lang="en"]').click()
    expect(row(page, 1).locator(".phase")).to_have_text("Playing")
    assert page.evaluate(cut) == 0  # (Setup is narrow enough; Not ready widens it)
    page.locator('#langs [data-lang="zh-Hans"]').click()
    hall.feed.publish(snapshot())  # table 3 over (its result), table 2 超时
    expect(box).to_have_class(re.compile(r"\bwide-state\b"))
    expect(row(page, 3).locator(".phase")).to_contain_text("胜")
    assert names.bounding_box()["width"] < wide - 20  # (its names' column gave it back)
    assert page.evaluate(cut) == 0
