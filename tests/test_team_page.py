"""The phones' view (the hall's QR code opens /team) and the hall page's patches, in the OS's
Chromium against the real scorer: events are written into the store as another process's
commits would be, and the pages follow them."""

from __future__ import annotations

import json
import threading

import httpx
import pytest

from kiosk.scorer import hall as hall_module
from kiosk.scorer.director import Director
from kiosk.scorer.store import Store

from .browser import chromium_browser, collect_page_errors, playwright_sync_api
from .hall_events import RULESETS, Tables, hall
from .helpers import ScorerProcess, fetch

expect = playwright_sync_api().expect
expect.set_options(timeout=15_000)
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as launched:
        yield launched


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


def shown(snap: dict) -> dict:
    """What a screen shows, without what moves with the clock alone."""
    return {"tables": [{k: v for k, v in row.items() if k != "time_left"}
                       for row in snap["tables"]],
            **{k: snap[k] for k in ("event", "standings", "pairings", "pairings_round",
                                    "muted", "round_clock")}}


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


def test_standings_and_tables_answer_from_the_store_as_it_is(scorer):
    process, director, tables = scorer
    tables.finish_round()
    reader = Director(Store(director.store.path), RULESETS)
    assert get(process.url + "/api/standings") == hall_module.standings(reader)
    assert all(row["phase"] == "over" for row in get(process.url + "/api/tables"))
    reader.store.close()


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
    expect(page.locator("#withdrawn")).to_have_text("本队已退赛：从第 1 轮起不再参赛")
    expect(page.locator("#now-facts .phase dd")).to_have_text("已裁决")  # not "ruled"
    mine = page.locator('#history li[data-round="1"]')
    expect(mine).to_contain_text(f"第 {table} 桌 · 对 {names[ew]}：判负，")
    page.locator("#langs button[data-lang=zh-Hant]").click()
    expect(page.locator("#withdrawn")).to_have_text("本隊已退賽：從第 1 輪起不再參賽")
    expect(mine).to_contain_text("：判負，")
    page.locator("#langs button[data-lang=zh-Hans]").click()
    page.goto(f"{process.url}/team?team={ew}")  # the opponent: won by the forfeit, still in
    expect(page.locator("#team-name")).to_have_text(names[ew])
    expect(page.locator('#history li[data-round="1"]')).to_contain_text("：胜（对方判负），")
    expect(page.locator("#withdrawn")).to_be_hidden()
    context.close()
    assert errors == []
