"""The phones' view (the hall's QR code opens /team) and the hall page's patches, in the OS's
Chromium against the real scorer: events are written into the store as another process's
commits would be, and the pages follow them."""

from __future__ import annotations

import json
import os
import re
import threading
import time

import httpx
import pytest

from kiosk.scorer.director import Director
from kiosk.scorer.hall import snapshot as hall_module
from kiosk.scorer.store.database import Store

from .browser import DEADLINE_MS, collect_page_errors, playwright_sync_api
from .hall_events import RULESETS, Tables, hall
from .helpers import ScorerProcess, fetch

expect = playwright_sync_api().expect
expect.set_options(timeout=DEADLINE_MS)
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def scorer(tmp_path):
    director = hall(tmp_path / "scorer")
    director.start_round(0)
    tables = Tables(director)
    for table in (1, 2, 3, 4):
        tables.post(table, 20)
    with ScorerProcess(tmp_path / "scorer") as process:
        yield process, director, tables
    director.store.close()


def get(url: str) -> dict:
    return json.loads(fetch(url))


def newer(url: str, serial: int) -> int:
    """The hall's serial once it is past `serial` (the scorer sees the store change within
    its next look)."""
    deadline = time.monotonic() + 15
    while (now := get(url + "/api/hall")["serial"]) <= serial and time.monotonic() < deadline:
        time.sleep(0.1)
    assert now > serial, "the hall did not change"
    return now


def shown(snap: dict) -> dict:
    """What a screen shows, without what moves with the clock alone."""
    return {"tables": [{k: v for k, v in row.items() if k != "time_left"}
                       for row in snap["tables"]],
            **{k: snap[k] for k in ("event", "standings", "pairings", "pairings_round",
                                    "muted", "round_clock")}}


@pytest.mark.browser
def test_a_player_finds_the_team_and_follows_its_table(browser, scorer):
    process, director, tables = scorer
    table, ns, _ = director.assignments(1)[0]
    name = next(t.name for t in director.teams() if t.id == ns)
    context = browser.new_context(viewport=PHONE, ignore_https_errors=True)
    page = context.new_page()
    errors = collect_page_errors(page)
    page.goto(process.url + "/team")
    expect(page.locator("#search")).to_be_visible()
    page.locator("#query").fill(name[:2])
    page.locator(f'#matches button[data-team="{ns}"]').click()
    expect(page.locator("#team-name")).to_have_text(name)
    expect(page.locator("#now-title")).to_contain_text(f"第 {table} 桌")
    expect(page.locator("#now-teams .mine")).to_have_text(name)
    expect(page.locator("#standing .rank dd")).not_to_be_empty()
    before = page.locator("#now-facts .hand dd").inner_text()
    tables.post(table, 250)  # the table plays on
    expect(page.locator("#now-facts .hand dd")).not_to_have_text(before)
    levels = get(f"{process.url}/api/team/{ns}")["table"]["levels"]  # (its side: 南北)
    expect(page.locator("#now-facts .levels dd")).to_have_text(
        f"{levels['NS']} : {levels['EW']}")
    expect(page.locator("#now-facts .levels dd .mine")).to_have_text(str(levels["NS"]))
    page.reload()  # the phone remembers the team
    expect(page.locator("#team-name")).to_have_text(name)
    page.locator("#langs button[data-lang=en]").click()
    expect(page.locator("#now-title")).to_contain_text(f"table {table}")
    page.locator("#change").click()
    expect(page.locator("#search label")).to_have_text("Find my team")
    page.goto(process.url + "/team?team=nobody")
    expect(page.locator("#no-match")).to_have_text("没有这支队伍，请重新查找")
    context.close()
    assert errors == []


@pytest.mark.browser
def test_the_team_page_has_every_language_and_the_qr_code_opens_it(browser, scorer):
    process, _, _ = scorer
    page = browser.new_page(viewport=PHONE, ignore_https_errors=True)
    page.goto(process.url + "/team")
    keys = page.evaluate(
        "Object.values(window.teamView.I18N).map((d) => Object.keys(d).sort().join(','))")
    assert len(set(keys)) == 1
    svg = fetch(process.url + "/qr.svg").decode()
    assert "<svg" in svg and "path" in svg  # the code (of address + "team") is drawn
    page.close()


@pytest.mark.browser
def test_the_hall_page_follows_patches_to_the_same_picture(browser, scorer):
    process, director, tables = scorer
    kinds: list[str] = []

    def listen() -> None:  # what the stream sends, next to the page
        with httpx.stream("GET", process.url + "/api/hall/stream", timeout=30,
                          verify=False) as reply:
            for line in reply.iter_lines():
                if line.startswith("event: "):
                    kinds.append(line[7:])
                if len(kinds) >= 4 and "patch" in kinds:
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, ignore_https_errors=True,
                            bypass_csp=True)  # (for the test's wait_for_function only)
    errors = collect_page_errors(page)
    page.goto(process.url + "/?lang=en")
    expect(page.locator('#tables [data-table="1"]')).to_be_visible()
    first = page.evaluate("window.hall.snapshot.serial")
    for upto in (60, 120, 400):
        for table in (1, 2, 3):
            tables.post(table, upto)
        serial = get(process.url + "/api/hall")["serial"]
        page.wait_for_function(f"window.hall.snapshot.serial >= {serial}")
    tables.finish(4)  # one result: the ranks of teams that did not play it move too
    snap = get(process.url + "/api/hall")
    deadline = time.monotonic() + 15
    while not any(row["played"] for row in snap["standings"]) and time.monotonic() < deadline:
        time.sleep(0.1)  # the scorer sees the store change within its next look
        snap = get(process.url + "/api/hall")
    assert {row["rank"] for row in snap["standings"]} == {1, 2, 8}
    page.wait_for_function(f"window.hall.snapshot.serial >= {snap['serial']}")
    assert shown(page.evaluate("window.hall.snapshot")) == shown(snap)
    tables.finish_round()  # results and standings change …
    Director(Store(director.store.path), RULESETS).publish(confirm=True)  # … and pairings
    page.wait_for_function("window.hall.snapshot.pairings.length > 0")
    listener.join(20)
    serial = get(process.url + "/api/hall")["serial"]
    page.wait_for_function(f"window.hall.snapshot.serial >= {serial}")
    assert page.evaluate("window.hall.snapshot.serial") > first
    assert shown(page.evaluate("window.hall.snapshot")) == shown(get(process.url + "/api/hall"))
    assert kinds[0] == "snapshot" and "patch" in kinds
    page.close()
    assert errors == []


@pytest.mark.browser
def test_a_hall_page_open_across_a_restart_of_the_scorer_shows_the_new_hands(browser, scorer):
    """A restarted scorer numbers its frames from 1 again. A hall TV switched on as the
    scorer started (its stream asking for what changed since frame 1) took the new scorer's
    frames for ones it had and showed the hall of before the restart for minutes, with no
    stale mark (a head referee's trial)."""
    process, _, tables = scorer
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, ignore_https_errors=True)
    errors = collect_page_errors(page)
    page.goto(process.url + "/")
    hand = page.locator('#tables [data-table="2"] .hand')
    expect(hand).to_have_text(str(get(process.url + "/api/hall")["tables"][1]["hand"]))
    serial, upto = get(process.url + "/api/hall")["serial"], 20
    while serial < 6:  # the page's frames go on well past the new scorer's first ones
        upto += 20
        for table in (1, 3):
            tables.post(table, upto)
        serial = newer(process.url, serial)
        page.wait_for_function(f"window.hall.snapshot.serial >= {serial}")
    process.kill(15)
    process.start()  # the same address: the page's stream comes back by itself
    first = get(process.url + "/api/hall")
    tables.post(2, 400)
    newer(process.url, first["serial"])
    later = get(process.url + "/api/hall")
    assert later["serial"] < serial and later["tables"][1]["hand"] > first["tables"][1]["hand"]
    expect(hand).to_have_text(str(later["tables"][1]["hand"]))
    page.close()
    assert errors == []


@pytest.mark.process
def test_standings_and_tables_answer_from_the_store_as_it_is(scorer):
    process, director, tables = scorer
    tables.finish_round()
    reader = Director(Store(director.store.path), RULESETS)
    assert get(process.url + "/api/standings") == hall_module.standings(reader)
    assert all(row["phase"] == "over" for row in get(process.url + "/api/tables"))
    reader.store.close()


@pytest.mark.browser
def test_a_withdrawn_team_and_its_forfeit_are_said_on_the_phone(browser, scorer):
    process, director, _ = scorer
    table, ns, ew = director.assignments(1)[0]  # mid-match: it leaves now, round 1 forfeited
    director.withdraw(ns, 0, confirm=True)
    names = {t.id: t.name for t in director.teams()}
    context = browser.new_context(viewport={"width": 360, "height": 740},
                                  device_scale_factor=2, is_mobile=True, has_touch=True,
                                  ignore_https_errors=True)
    page = context.new_page()
    errors = collect_page_errors(page)
    page.goto(f"{process.url}/team?team={ns}")
    expect(page.locator("#team-name")).to_have_text(names[ns])
    expect(page.locator("#withdrawn")).to_be_visible()
    expect(page.locator("#withdrawn")).to_have_text(
        "本队已在第 1 轮中途退赛：本场判负，之后不再参赛")
    expect(page.locator("#now-facts .phase dd")).to_have_text("已裁决：判负")  # not "ruled"
    mine = page.locator('#history li[data-round="1"]')
    expect(mine).to_contain_text(f"第 {table} 桌 · 对{names[ew]}：判负，")
    page.locator("#langs button[data-lang=zh-Hant]").click()
    expect(page.locator("#withdrawn")).to_have_text(
        "本隊已在第 1 輪中途退賽：本場判負，之後不再參賽")
    expect(mine).to_contain_text("：判負，")
    page.locator("#langs button[data-lang=zh-Hans]").click()
    page.goto(f"{process.url}/team?team={ew}")  # the opponent: won by the forfeit, still in
    expect(page.locator("#team-name")).to_have_text(names[ew])
    expect(page.locator('#history li[data-round="1"]')).to_contain_text("：胜（对方判负），")
    expect(page.locator("#now-facts .phase dd")).to_have_text("已裁决：胜（对方判负）")
    expect(page.locator("#withdrawn")).to_be_hidden()
    _, later, _ = director.assignments(1)[1]  # plays this round out, then leaves
    director.withdraw(later, 1, confirm=True)
    page.goto(f"{process.url}/team?team={later}")
    expect(page.locator("#withdrawn")).to_have_text("本队已退赛：第 1 轮后退赛，之后不再参赛")
    context.close()
    assert errors == []


@pytest.mark.browser
def test_once_the_event_is_closed_the_phone_shows_the_final_standing_and_no_table(browser,
                                                                                    scorer):
    """docs/scorer.md: phones too show 最终排名 and no tables once the event is closed; the
    phone still showed the last round's table and no heading (a director's review)."""
    process, director, _ = scorer
    _, ns, _ = director.assignments(1)[0]
    for table, _, _ in director.assignments(1):
        director.record_ruling(table, "forfeit", "EW", "测试", 1, confirm=True)
    context = browser.new_context(viewport=PHONE, ignore_https_errors=True)
    page = context.new_page()
    errors = collect_page_errors(page)
    page.goto(f"{process.url}/team?team={ns}")
    expect(page.locator("#now")).to_be_visible()  # the round's table, while it is on
    expect(page.locator("#final")).to_be_hidden()
    # every match decided, the round is over: 本轮结束 stands in the clock's place (a gold
    # dash stood alone under it: a hall review)
    expect(page.locator("#round-clock-label")).to_have_text("本轮结束")
    expect(page.locator("#round-clock")).to_be_hidden()
    director.close_event(confirm=True)
    expect(page.locator("#final")).to_have_text("最终排名")
    expect(page.locator("#now")).to_be_hidden()
    # a heading over the place, not a grey line under the unit (a hall review)
    unit, final = (page.locator(s).bounding_box() for s in ("#team-unit", "#final"))
    assert final["y"] - (unit["y"] + unit["height"]) >= 10, (unit, final)
    assert page.locator("#final").evaluate("e => getComputedStyle(e).fontWeight") == "700"
    if os.environ.get("HALL_SHOTS"):  # to look at it: HALL_SHOTS=DIR pytest -k closed_the_phone
        page.screenshot(path=f"{os.environ['HALL_SHOTS']}/phone-closed.png")
    expect(page.locator("#standing .rank dd")).to_have_text("并列第 1 名")
    context.close()
    assert errors == []


# -- what the audit of the phone page found (AUDIT-phone.md) ----------------------------------

SMALL = {"width": 360, "height": 640}


def phone(browser, viewport=PHONE):
    """A phone's page, and the list its script errors go to."""
    context = browser.new_context(viewport=viewport, ignore_https_errors=True)
    page = context.new_page()
    return page, collect_page_errors(page)


def seconds(text: str) -> int:
    """A clock's text (1:29:14, 04:05) in seconds."""
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


def lines(page, selector: str) -> int:
    """How many lines the element's text takes on screen."""
    return page.evaluate("""(sel) => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector(sel));
        return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
    }""", selector)


@pytest.mark.browser
def test_the_phone_clock_is_the_hall_clock_through_pause_extension_resume_and_stop(browser,
                                                                                    scorer):
    process, director, _ = scorer
    _, ns, _ = director.assignments(1)[0]
    page, errors = phone(browser)
    hall_page = page.context.new_page()
    page.goto(f"{process.url}/team?team={ns}")
    hall_page.goto(process.url + "/")
    expect(page.locator("#round-clock-label")).to_have_text("本轮剩余")
    director.extend_clock(10)  # the head referee gives the hall ten minutes, then pauses it
    director.pause_clock()
    expect(page.locator("#round-clock-label")).to_have_text("全场暂停")
    expect(hall_page.locator("#round-clock-label")).to_have_text("全场暂停")
    # a bar across the phone as across the hall's screens (only the clock's word said it)
    expect(page.locator("#paused")).to_have_text("全场暂停：所有比赛计时已停止，等候裁判长宣布继续")
    phase = page.locator("#now-facts .phase dd")  # (a hall review: it said 出牌 meanwhile)
    expect(phase).to_have_text("暂停")
    clock = get(f"{process.url}/api/team/{ns}")["round_clock"]
    held = clock["ends_at"] - clock["paused_at"]  # 100 minutes less the few seconds played
    assert 99 * 60 < held <= 100 * 60
    shown = page.locator("#round-clock").inner_text()
    assert abs(seconds(shown) - held) <= 1
    page.wait_for_timeout(2500)  # it stands still, as the hall's does
    expect(page.locator("#round-clock")).to_have_text(shown)
    expect(hall_page.locator("#round-clock")).to_have_text(shown)
    director.resume_clock()
    expect(page.locator("#round-clock-label")).to_have_text("本轮剩余")
    expect(page.locator("#paused")).to_be_hidden()
    expect(phase).not_to_have_text("暂停")
    page.wait_for_timeout(1200)
    mine, hall_text = page.locator("#round-clock").inner_text(), \
        hall_page.locator("#round-clock").inner_text()
    assert abs(seconds(mine) - seconds(hall_text)) <= 1
    assert abs(seconds(mine) - held) <= 3  # on from where the pause held it
    director.stop_clock(confirm=True)
    expect(page.locator("#round-clock-label")).to_have_text("时间到（裁判长叫停）")
    expect(page.locator("#round-clock")).to_have_text("时间到")
    page.locator("#langs button[data-lang=en]").click()
    expect(page.locator("#round-clock-label")).to_have_text("Time called")
    page.context.close()
    assert errors == []


@pytest.mark.browser
def test_the_lead_in_counts_down_to_the_start_not_past_the_round(browser, tmp_path):
    director = hall(tmp_path / "scorer")
    director.start_round(45)  # the head referee starts the round in 45 seconds
    _, ns, _ = director.assignments(1)[0]
    with ScorerProcess(tmp_path / "scorer") as process:
        page, errors = phone(browser)
        page.goto(f"{process.url}/team?team={ns}")
        expect(page.locator("#round-clock-label")).to_have_text("距开始")
        assert 30 <= seconds(page.locator("#round-clock").inner_text()) <= 45
        page.locator("#langs button[data-lang=zh-Hant]").click()
        expect(page.locator("#round-clock-label")).to_have_text("距開始")
        page.context.close()
    director.store.close()
    assert errors == []


@pytest.mark.browser
def test_a_table_whose_kiosk_is_offline_stands_still_and_says_so(browser, tmp_path):
    director = hall(tmp_path / "scorer")
    director.start_round(0)
    Tables(director).post(1, 20)
    store = director.store  # table 1's kiosk paired, and not heard from since
    store.issue_code(1)
    store.pair(1, store.pairing_code(1, "kiosk-1", director.clock()), "kiosk-1",
               director.clock())
    ns = next(n for t, n, _ in director.assignments(1) if t == 1)
    with ScorerProcess(tmp_path / "scorer") as process:
        row = get(f"{process.url}/api/team/{ns}")["table"]
        assert row["link"]["state"] == "offline" and row["clock_running"]
        page, errors = phone(browser)
        page.goto(f"{process.url}/team?team={ns}")
        expect(page.locator("#now-offline")).to_have_text("本桌平板离线：以下是最后收到的情况")
        left = page.locator("#now-facts .time dd").inner_text()
        page.wait_for_timeout(2500)
        expect(page.locator("#now-facts .time dd")).to_have_text(left)  # not counting on
        page.locator("#langs button[data-lang=en]").click()
        expect(page.locator("#now-offline")).to_contain_text("tablet is offline")
        hall_page = page.context.new_page()  # the hall says the same of it
        hall_page.goto(process.url + "/")
        expect(hall_page.locator('#tables [data-table="1"] .link')).to_have_text("离线")
        page.context.close()
    director.store.close()
    assert errors == []


@pytest.mark.browser
def test_before_any_data_the_phone_says_it_is_connecting_and_later_when_data_stopped(
        browser, scorer):
    process, director, _ = scorer
    _, ns, _ = director.assignments(1)[0]
    name = next(t.name for t in director.teams() if t.id == ns)
    search, search_errors = phone(browser)  # the search page, in the same state
    search.route("**/api/**", lambda route: None)
    search.goto(f"{process.url}/team?lang=en&stale_seconds=3")
    expect(search.locator("#stale")).to_have_text("Connecting to the scorer…")
    expect(search.locator("#stale")).to_have_text("Cannot reach the scorer: trying again…")
    search.context.close()
    page, errors = phone(browser)
    page.route("**/api/**", lambda route: None)  # the scorer does not answer (held)
    page.goto(f"{process.url}/team?team={ns}&stale_seconds=3")
    expect(page.locator("#stale")).to_have_text("正在连接记分台…")
    expect(page.locator("#stale")).to_have_text("连不上记分台，正在重试…")
    assert "中断" not in page.locator("#stale").inner_text()  # nothing came: nothing stopped
    page.unroute("**/api/**")  # it answers again: the page finds it by itself
    expect(page.locator("#team-name")).to_have_text(name, timeout=30_000)
    expect(page.locator(".clock-box")).to_have_css("opacity", "1")
    process.kill()  # then it stops: since when, in the hall's words and order
    expect(page.locator("#stale")).to_have_text(re.compile(r"^数据自 \d\d:\d\d:\d\d 起中断$"))
    expect(page.locator(".clock-box")).to_have_css("opacity", "0.55")  # greyed, as the hall's
    page.context.close()
    assert errors == search_errors == []


@pytest.mark.browser
def test_an_unknown_team_is_said_at_the_top_next_to_the_search(browser, scorer):
    process, _, _ = scorer
    page, errors = phone(browser, SMALL)
    page.goto(f"{process.url}/team?team=T99")
    expect(page.locator("#no-match")).to_have_text("没有这支队伍，请重新查找")
    expect(page.locator("#no-match")).to_be_in_viewport(ratio=1)
    # next to the search, not below the list, once the page has settled (the first data
    # may still move things on a busy machine)
    page.wait_for_function("""() => {
      const top = (id) => document.getElementById(id).getBoundingClientRect().top;
      return top('no-match') < top('query') + 100 && top('no-match') < top('matches');
    }""")
    page.context.close()
    assert errors == []


@pytest.mark.browser
def test_a_link_with_the_team_in_capitals_opens_it_as_the_search_would(browser, scorer):
    process, director, _ = scorer
    page, errors = phone(browser, SMALL)
    first = director.teams()[0]
    page.goto(f"{process.url}/team?team={first.id.upper()}")  # an id typed in capitals
    expect(page.locator("#team-name")).to_have_text(first.name)
    assert f"team={first.id}" in page.url
    page.context.close()
    assert errors == []


@pytest.mark.browser
def test_the_phone_says_when_pairings_are_to_come_a_bye_and_its_pairing_once(browser,
                                                                            tmp_path):
    director = hall(tmp_path / "scorer", teams=6)
    loner = director.add_team("散客队")  # its id  # no unit; seven teams: one has a bye
    with ScorerProcess(tmp_path / "scorer") as process:
        page, errors = phone(browser)
        page.goto(process.url + "/team")
        row = page.locator(f'#matches button[data-team="{loner}"]')
        expect(row.locator(".name")).to_have_text("散客队")
        expect(row.locator(".unit")).to_have_text("")  # not its id
        page.goto(f"{process.url}/team?team={loner}")
        expect(page.locator("#pending")).to_contain_text("第 1 轮对阵尚未公布")
        director.publish(confirm=True)  # round 1 published, not started
        bye = director.byes(1)[0]
        page.goto(f"{process.url}/team?team={bye}")
        expect(page.locator("#bye")).to_contain_text(
            f"本轮轮空，无需入座，计大分 {director.bye_points()}")
        view = get(f"{process.url}/api/team/{bye}")
        assert view["bye"] == {"round": 1, "points": director.bye_points()}
        expect(page.locator("#pending")).to_be_hidden()
        table, ns, ew = director.assignments(1)[0]
        names = {t.id: t.name for t in director.teams()}
        page.goto(f"{process.url}/team?team={ns}")
        expect(page.locator("#now-title")).to_contain_text(f"第 {table} 桌")
        expect(page.locator("#now-teams")).to_contain_text(names[ew])
        expect(page.locator("#next")).to_be_hidden()  # the same pairing, said once
        expect(page.locator("section.card:visible", has_text=f"第 {table} 桌")).to_have_count(1)
        page.context.close()
    director.store.close()
    assert errors == []


@pytest.mark.browser
def test_a_fetched_view_older_than_the_streams_never_replaces_it(browser, tmp_path):
    """The page fetches its team's view and opens the stream at once; when the fetch's
    answer comes last and is older, the newer view the stream sent stays on screen."""
    director = hall(tmp_path / "scorer", teams=6)
    team = director.teams()[0].id
    with ScorerProcess(tmp_path / "scorer") as process:
        before = fetch(f"{process.url}/api/team/{team}")  # nothing published yet
        director.publish(confirm=True)
        deadline = time.monotonic() + 20
        while get(f"{process.url}/api/team/{team}").get("table") is None:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        page, errors = phone(browser)
        held = []

        def late(route):  # the fetch answers only after the stream has shown the new view
            held.append(route)

        page.route("**/api/team/*", late)
        page.goto(f"{process.url}/team?team={team}")
        expect(page.locator("#now")).to_be_visible()  # its table, from the stream
        held[0].fulfill(body=before, content_type="application/json")
        page.wait_for_timeout(500)
        expect(page.locator("#now")).to_be_visible()
        expect(page.locator("#pending")).to_be_hidden()
        page.context.close()
    director.store.close()
    assert errors == []


@pytest.mark.browser
def test_the_phone_header_and_buttons_fit_and_seats_are_words(browser, tmp_path):
    long_name = "2025年厦门市“鹭岛杯”八十分升级公开赛暨第十届队际邀请赛"  # squeezes the header
    director = hall(tmp_path / "scorer", name=long_name)
    team = director.teams()[0].id
    langs = ("zh-Hans", "zh-Hant", "en")
    with ScorerProcess(tmp_path / "scorer") as process:
        page, errors = phone(browser, SMALL)
        for lang in langs:  # before the round: 等待开始 alone in the clock's place, large
            page.goto(f"{process.url}/team?team={team}&lang={lang}")
            expect(page.locator("#round-clock-label")).to_have_class(re.compile(r"\balone\b"))
            expect(page.locator("#round-clock")).to_be_hidden()
            assert lines(page, "#round-clock-label") == 1, lang
            # the team's name kept in words, as on the hall (鼓浪屿队: one, never 鼓浪屿⏎队)
            expect(page.locator("#team-name .w")).to_have_count(1)
            assert lines(page, "#change") == 1, lang
        director.start_round(0)
        table = next(t for t, ns, ew in director.assignments(1) if team in (ns, ew))
        Tables(director).post(table, 20)
        for lang, seats in zip(langs, ("北东南西", "北東南西", ["North", "East", "South", "West"]),
                               strict=True):
            page.goto(f"{process.url}/team?team={team}&lang={lang}")
            expect(page.locator("#now-facts .dealer dd")).not_to_have_text("—")
            assert page.locator("#now-facts .dealer dd").inner_text() in seats
            assert lines(page, "#round-clock-label") == 1, lang
            assert lines(page, "#change") == 1, lang
        page.context.close()
    director.store.close()
    assert errors == []


# -- what the head referee's hall test found -------------------------------------------------------


@pytest.mark.browser
def test_before_the_start_the_phone_raises_no_alarm_and_says_shared_places_in_words(
        browser, tmp_path):
    """A kiosk not yet heard from before its round starts is no alarm for the players (the
    phone said 本桌平板离线); before any match is played no place is shown, as on the hall
    (the phone said 并列第 1 名 where the hall says —: a spectator's review); once the round
    has started, a match its kiosk has not set up is 未就绪, not 空闲."""
    director = hall(tmp_path / "scorer")
    director.publish()
    store = director.store  # table 1's kiosk paired, and not heard from since
    store.issue_code(1)
    store.pair(1, store.pairing_code(1, "kiosk-1", director.clock()), "kiosk-1",
               director.clock())
    ns = next(n for t, n, _ in director.assignments(1) if t == 1)
    with ScorerProcess(tmp_path / "scorer") as process:
        row = get(f"{process.url}/api/team/{ns}")["table"]
        assert row["link"]["state"] == "offline" and row["phase"] == "waiting"
        page, errors = phone(browser)
        page.goto(f"{process.url}/team?team={ns}")
        expect(page.locator("#now-facts .phase dd")).to_have_text("等待开始")
        expect(page.locator("#standing .rank dd")).to_have_text("—")
        expect(page.locator("#now-offline")).to_be_hidden()
        expect(page.locator("#now")).not_to_have_class(re.compile(r"\bkiosk-offline\b"))
        director.start_clock(0, confirm=True)  # started: a kiosk not heard from is an alarm
        expect(page.locator("#now-offline")).to_have_text("本桌平板离线：以下是最后收到的情况")
        expect(page.locator("#now-facts .phase dd")).to_have_text("未就绪")
        page.context.close()
    director.store.close()
    assert errors == []


@pytest.mark.browser
def test_twin_names_on_the_hall_and_the_phone_say_what_tells_them_apart(browser, tmp_path):
    director = hall(tmp_path / "scorer")
    ids = [t.id for t in director.teams()]
    units = {t.id: t.unit for t in director.teams()}
    first, second = ids[0], ids[1]  # two units: the unit tells them apart
    for team in (first, second):
        director.edit_team(team, "海沧红狮", units[team], (), confirm=True)
    director.start_round(0)
    table, ns, ew = next(a for a in director.assignments(1) if first in a[1:])
    opponent = ew if ns == first else ns
    with ScorerProcess(tmp_path / "scorer") as process:
        page, errors = phone(browser, {"width": 1920, "height": 1080})
        page.goto(process.url + "/")
        names = page.locator("#standings .name .label")
        for team in (first, second):
            expect(names.filter(has_text=f"海沧红狮（{units[team]}）")).to_have_count(1)
        expect(names.filter(has_text="思明队")).to_have_text(["思明队"])  # a name of its own
        side = "ns" if ns == first else "ew"
        expect(page.locator(f'#tables [data-table="{table}"] .team.{side}')).to_have_text(
            f"海沧红狮（{units[first]}）")
        page.locator("#langs button[data-lang=en]").click()
        expect(page.locator(f'#tables [data-table="{table}"] .team.{side}')).to_have_text(
            f"海沧红狮 ({units[first]})")
        page.context.close()
        page, errors_too = phone(browser)
        page.goto(f"{process.url}/team?team={opponent}")
        expect(page.locator("#now-teams")).to_contain_text(f"海沧红狮（{units[first]}）")
        page.context.close()
    # Two more of one name and one unit: the phone's search tells them apart by id.
    third, fourth = ids[2], ids[3]
    for team in (third, fourth):
        director.edit_team(team, "集美龙舟", "集美", (), confirm=True)
    with ScorerProcess(tmp_path / "scorer") as process:
        page, errors_three = phone(browser)
        page.goto(f"{process.url}/team")
        page.locator("#query").fill("龙舟")
        for team in (third, fourth):
            expect(page.locator(f'#matches button[data-team="{team}"] .name')).to_have_text(
                f"集美龙舟（{team}）")
            expect(page.locator(f'#matches button[data-team="{team}"] .unit')).to_have_text(
                "集美")
        page.locator("#query").fill("海沧红狮")  # (told apart by the unit shown beside)
        expect(page.locator("#matches .name")).to_have_text(["海沧红狮", "海沧红狮"])
        page.context.close()
    director.store.close()
    assert errors == [] and errors_too == [] and errors_three == []


@pytest.mark.browser
def test_a_shared_place_of_two_digits_stays_on_one_line_on_a_phone(browser, tmp_path):
    """「并列第 14 名」 wrapped its 名 onto a second line at 390 px (a spectator's review): a
    shared place takes two of the facts' columns, and never wraps."""
    director = hall(tmp_path / "scorer", teams=24)
    director.start_round(0)
    Tables(director).finish_round()
    with ScorerProcess(tmp_path / "scorer") as process:
        standings = get(f"{process.url}/api/standings")
        tied = next(s for s in standings if s["tied"] and s["rank"] >= 10)
        page, errors = phone(browser)
        page.goto(f"{process.url}/team?team={tied['team']}")
        expect(page.locator("#standing .rank dd")).to_have_text(f"并列第 {tied['rank']} 名")
        assert lines(page, "#standing .rank dd") == 1
        page.context.close()
    director.store.close()
    assert errors == []


@pytest.mark.browser
def test_an_individual_players_phone_names_the_table_not_two_sides(browser, tmp_path):
    """A player's phone read 「南北 赵敏 · 周杰 · 张伟 · 徐强 对 东西」: an individual table has
    four players and no sides; and it spoke of a team (「我的队伍」, 「换队伍」) (a head
    referee's review)."""
    from kiosk.scorer.director import Director
    from kiosk.scorer.store.database import Store

    director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), RULESETS)
    director.create_event("双升个人赛", "shuangsheng-2011", seed=3)
    director.import_teams(("选手,单位\n" + "".join(f"选手{i},厦门\n" for i in range(1, 5))
                           ).encode())
    director.add_tables(1)
    director.start_round(0)
    seats = director.seats(1)[1]
    player = seats["E"]
    names = director.team_names()
    with ScorerProcess(tmp_path / "scorer") as process:
        page, errors = phone(browser)
        page.goto(f"{process.url}/team?team={player}")
        said = page.locator("#now-teams")
        expect(said).to_contain_text("本桌")
        for other in seats.values():
            expect(said).to_contain_text(names[other])
        assert "南北" not in said.inner_text() and "对" not in said.inner_text()
        # the player's seat, and no net levels or opponents' points (none are kept)
        expect(page.locator("#now-facts .seat")).to_contain_text("东")
        expect(page.locator("#standing .points")).to_be_visible()
        expect(page.locator("#standing .net")).to_have_count(0)
        expect(page.locator("#now-facts .levels")).to_have_count(0)
        # a player, not a team (换队伍, 找我的队伍): in each language the page speaks
        expect(page.locator("#change")).to_have_text("换一名选手")
        assert page.title() == "我的成绩"
        page.goto(f"{process.url}/team?lang=en")
        expect(page.locator("label[for=query]")).to_have_text("Find my name")
        page.goto(f"{process.url}/team?team=t99")  # (it said 没有这支队伍)
        expect(page.locator("#search")).to_contain_text("没有这名选手，请重新查找")
        page.context.close()
    director.store.close()
    assert errors == []
