"""The head referee's console at a big event (issue 15's scale audit, C1 C2 C6 C7 K2): a round
of 60 tables with two disputes, finished, ruled and never-set-up tables, read in real Chromium
on a real uvicorn (and the command line in a subprocess). The audit's 500 tables are the same
pages with more rows; 60 keep the suite fast. Screenshots go to the test's tmp folder."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from kiosk.errors import AdminError
from kiosk.i18n import explain
from kiosk.protocol.wire import event_hash
from kiosk.scorer.director import Director
from kiosk.scorer.web.app import create_app

from . import hall_events
from .browser import (
    DEADLINE_MS,
    collect_page_errors,
    log_in_to_the_console,
    playwright_sync_api,
    serve,
)
from .helpers import kiosk

expect = playwright_sync_api().expect
expect.set_options(timeout=DEADLINE_MS)
TEAMS, TABLES, PAIRED = 120, 60, 40
DISPUTED, FINISHED, RULED = (3, 17), (1, 2), (9,)


def dispute(tables: hall_events.Tables, table: int) -> None:
    """The table plays its first hand, then the EW side disputes its result."""
    first_hand = hall_events.hand_ends(hall_events.recorded(1 + table % 4))[0]
    tables.post(table, first_hand)
    seq = tables.seq[table] = tables.seq[table] + 1
    event = {"kind": "dispute", "data": {"seat": "W"}, "mono": 0.0, "wall": time.time(),
             "actor": "seat:W", "device": f"kiosk-{table}", "seq": seq, "match": "1",
             "prev": tables.prev[table]}
    tables.prev[table] = event_hash(event)
    db = tables.director.store.db
    with db.atomic():
        db.conn.execute(
            "INSERT INTO events (device, seq, table_number, match, kind, data, mono, wall, "
            "actor, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (event["device"], seq, table, "1", "dispute", json.dumps(event["data"]), 0.0,
             event["wall"], event["actor"], event["prev"], tables.prev[table]))


def big_round(folder: Path, rulings: tuple[int, ...] = RULED) -> Director:
    """Round 1 of 120 teams under way: tables 3 and 17 disputed, 1 and 2 finished, the
    `rulings` ruled, the rest without a kiosk's word; tables 1–40 paired (never heard since:
    offline, but for those whose match is over or ruled: no alarm), 41–60 not paired."""
    d = hall_events.hall(folder, teams=TEAMS)
    codes = d.store.open_codes(time.time())
    for table in range(1, PAIRED + 1):
        d.store.pair(table, codes[table], f"pi-{table}", time.time())
    d.publish(by="陈")
    d.start_clock(0, by="陈", confirm=True)
    tables = hall_events.Tables(d)
    for table in FINISHED:
        tables.finish(table)
    for table in DISPUTED:
        dispute(tables, table)
    for table in rulings:
        d.record_ruling(table, "forfeit", "EW", "未到场", 1, confirm=True)
    return d


class Console:
    """The scorer on loopback and a logged-in Chromium page at a given width."""

    def __init__(self, d: Director, browser, folder: Path, width: int = 1366,
                 height: int = 900) -> None:
        self.d, self.folder = d, folder
        password = d.first_password()
        self.server = serve(create_app(d))
        self.url = self.server.__enter__().url
        self.context = browser.new_context(locale="zh-CN",
                                           viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.errors = collect_page_errors(self.page)
        log_in_to_the_console(self.page, self.url, password)

    def go(self, path: str) -> None:
        self.page.goto(self.url + path)

    def shot(self, name: str) -> None:
        path = self.folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=False)
        print("screenshot", path)

    def close(self) -> None:
        self.context.close()
        self.server.__exit__(None, None, None)


@pytest.fixture
def console(tmp_path, browser):
    made = Console(big_round(tmp_path), browser, tmp_path)
    yield made
    assert made.errors == []
    made.close()
    made.d.store.close()


def arrived(page, query: str) -> None:
    """After a click on a link: the page it leads to (its address says `query`) has loaded
    (a click does not wait for it: under load the rows were read from the page before)."""
    expect(page).to_have_url(re.compile(re.escape(query)))
    page.wait_for_load_state()


def rows_shown(page, table: str = "#results") -> list[int]:
    return [int(n) for n in page.locator(f"{table} tbody tr[data-table]").evaluate_all(
        "rows => rows.filter(r => !r.hidden).map(r => r.dataset.table)")]


# -- C1: the results page ------------------------------------------------------------------

@pytest.mark.browser
def test_the_results_page_counts_the_tables_by_state_and_shows_one_state_at_a_time(console):
    page = console.page
    console.go("/admin/results")
    chips = page.locator(".filters")
    expect(chips.locator("a").first).to_have_text("全部 60")
    expect(chips.locator("[data-show=disputed]")).to_have_text("有争议 2")
    expect(chips.locator("[data-show=not-set-up]")).to_have_text("平板未就绪 55")
    expect(chips.locator("[data-show=offline]")).to_have_text("平板离线 37")  # (1, 2, 9 done)
    expect(chips.locator("[data-show=unfinished]")).to_have_text("未完赛 57")
    expect(chips.locator("[data-show=over]")).to_have_text("已结束 2")
    expect(chips.locator("[data-show=ruled]")).to_have_text("已裁决 1")
    expect(chips.locator("[data-show=problem]")).to_have_count(0)  # none: not offered
    console.shot("results-1366")
    # a disputed row stands out from a playing one: its own background and a bold state
    colour = "r => getComputedStyle(r.querySelector('td')).backgroundColor"
    disputed = page.locator('#results tr[data-table="3"]').evaluate(colour)
    quiet = page.locator('#results tr[data-table="5"]').evaluate(colour)
    assert disputed != quiet
    chips.locator("[data-show=disputed]").click()
    expect(page).to_have_url(re.compile(r"show=disputed"))
    assert rows_shown(page) == list(DISPUTED)
    expect(page.locator("#results tr.bye")).to_have_count(0)
    # the standings have a page of their own: the results page is the tables only
    expect(page.locator("#standings")).to_have_count(0)
    page.get_by_role("link", name="排名（全部队伍）→").click()
    expect(page.locator("#standings tbody tr")).to_have_count(TEAMS)


@pytest.mark.browser
def test_a_table_is_found_by_number_and_after_its_ruling_the_page_is_back_on_its_row(console):
    page = console.page
    console.go("/admin/results?table=999")
    expect(page.locator(".flash.error")).to_have_text("第 1 轮没有第 999 桌：本轮共 60 桌。")
    expect(page.locator("#ruling")).to_have_count(0)
    page.locator("#find").get_by_label("桌号").fill("17")
    page.locator("#find").get_by_role("button", name="查看").click()
    chosen = page.locator("#chosen")
    expect(chosen.locator("h2")).to_have_text("第 1 轮 · 第 17 桌")
    expect(chosen.locator("td.state")).to_contain_text("有争议")
    ruling = page.locator("#ruling")
    expect(ruling.locator("select[name=table], input[name=table][type=number]")).to_have_count(0)
    console.shot("results-chosen-17")
    ruling.get_by_label("判负方").select_option("EW")
    ruling.get_by_label("理由").fill("东西方拒绝继续比赛")
    ruling.get_by_role("button", name="记录裁决").click()
    page.get_by_role("button", name="确认执行").click()  # (the table's match ends for good)
    expect(page.locator(".flash.note")).to_have_text("已记录第 1 轮第 17 桌的裁决。")
    expect(page).to_have_url(re.compile(r"table=17.*#t17$"))
    row = page.locator("#t17")
    expect(row.locator("td.state")).to_have_text("已裁决")
    expect(row).to_be_in_viewport()
    assert page.evaluate("window.scrollY") > 300  # not the top of the page
    console.shot("results-after-ruling-17")


@pytest.mark.browser
def test_the_overview_says_how_many_tables_are_left_and_which_need_the_head_referee(console):
    page = console.page
    console.go("/admin")
    expect(page.locator(".next p")).to_have_text(
        "第 1 轮比赛中：还有 57 桌未完赛；2 桌有争议、55 桌平板未就绪、37 桌平板离线（“成绩”页）。")
    page.locator(".next [data-show=disputed]").click()
    arrived(page, "show=disputed")
    assert rows_shown(page) == list(DISPUTED)
    console.go("/admin?lang=en")
    expect(page.locator(".next p")).to_have_text(
        "Round 1 is being played: 57 table(s) not finished yet; 2 disputed, 55 with the kiosk "
        "not ready, 37 with the kiosk offline (Results).")


# -- C2: a count and short runs, never a wall of numbers -------------------------------------

@pytest.mark.browser
def test_a_round_still_playing_is_said_as_a_count_and_at_most_ten_runs_of_tables(
        tmp_path, browser):
    d = big_round(tmp_path, rulings=tuple(range(4, 31, 2)))  # 4, 6 … 30 ruled
    said = "第 1 轮还有 44 桌在比赛（第 3、5、7、9、11、13、15、17、19、21 桌等）。"
    with pytest.raises(AdminError) as refused:
        d.make_draft(by="陈")
    assert explain(refused.value, "zh-Hans") == said
    assert explain(refused.value, "en") == (
        "Round 1 is still being played at 44 table(s) (tables 3, 5, 7, 9, 11, 13, 15, 17, 19, "
        "21 and more).")
    made = Console(d, browser, tmp_path)
    try:
        made.go("/admin/rounds")
        expect(made.page.locator("main")).to_contain_text(said)
        made.page.get_by_role("link", name="查看第 1 轮未完赛的 44 桌 →").click()
        arrived(made.page, "show=unfinished")
        assert len(rows_shown(made.page)) == 44
        assert made.errors == []
    finally:
        made.close()
    d.store.close()
    drafted = kiosk("scorer", "admin", "--data", str(tmp_path), "draft")
    assert drafted.returncode != 0 and said in drafted.stderr
    assert len(drafted.stderr.encode()) < 300, drafted.stderr
    closing = kiosk("scorer", "admin", "--data", str(tmp_path), "close")
    assert said.removesuffix("。") + "。仍要结束赛事吗？" in closing.stderr
    assert len(closing.stderr.encode()) < 500, closing.stderr


# -- C6: teams and the draft -----------------------------------------------------------------

@pytest.mark.browser
def test_the_teams_page_finds_a_team_by_name_unit_or_id_and_keeps_its_forms_on_top(console):
    page = console.page
    console.go("/admin/teams?q=第77")
    assert [r.get_attribute("data-team") for r in page.locator("#teams tbody tr").all()] == \
        ["t77"]
    expect(page.locator("#search .hint")).to_have_text("找到 1 队（“第77”）")
    console.go("/admin/teams?q=u1")  # letter case ignored
    expect(page.locator("#teams tbody tr")).to_have_count(TEAMS // 3)
    console.go("/admin/teams?q=不存在的队")
    expect(page.locator("main")).to_contain_text("没有与“不存在的队”相符的队伍。")
    console.go("/admin/teams")
    expect(page.locator("#teams tbody tr")).to_have_count(TEAMS)
    # typing filters at once (before 查找 is pressed); the address still works without it
    page.locator("#search").get_by_label("查找队伍").fill("第120")
    expect(page.locator("#teams tbody tr:visible")).to_have_count(1)
    expect(page.locator('#teams tr[data-team="t120"]')).to_be_visible()
    # adding and importing sit above the 120 rows, folded
    add, listing = page.locator("#add summary"), page.locator("#teams")
    assert add.bounding_box()["y"] < listing.bounding_box()["y"]
    assert add.bounding_box()["y"] < 900
    console.shot("teams-1366")
    add.click()
    expect(page.locator("#add-team").get_by_label("队名")).to_be_visible()


@pytest.mark.browser
def test_withdrawn_teams_are_a_filter_and_a_row_action_comes_back_to_the_search(console):
    page, d = console.page, console.d
    d.withdraw("t50", 1, confirm=True, by="陈")
    console.go("/admin/teams")
    expect(page.locator(".filters [data-show=withdrawn]")).to_have_text("已退赛 1")
    page.locator(".filters [data-show=withdrawn]").click()
    assert [r.get_attribute("data-team") for r in page.locator("#teams tbody tr").all()] == \
        ["t50"]
    console.go("/admin/teams?q=t50")
    page.locator('[data-team="t50"]').get_by_role("button", name="恢复参赛…").click()
    page.locator("[data-confirm]").click()
    expect(page.locator(".flash.note")).to_contain_text("已恢复参赛")
    expect(page).to_have_url(re.compile(r"/admin/teams\?q=t50"))
    expect(page.locator("#teams tbody tr")).to_have_count(1)


@pytest.mark.browser
def test_the_draft_is_published_from_the_top_and_two_teams_are_swapped_by_typing(
        tmp_path, browser):
    d = hall_events.hall(tmp_path, teams=TEAMS)
    made = Console(d, browser, tmp_path)
    page = made.page
    try:
        made.go("/admin/rounds")
        page.get_by_role("button", name="编排第 1 轮").click()
        publish = page.get_by_role("button", name="公布第 1 轮")
        assert publish.bounding_box()["y"] < page.locator("#t1").bounding_box()["y"] < 900
        expect(page.locator("#swap-teams select")).to_have_count(0)
        swap = page.locator("#swap-teams")
        swap.get_by_label("第一队").fill("t999")
        swap.get_by_label("第二队").fill("t01")
        swap.get_by_role("button", name="调换").click()
        expect(page.locator(".flash.error")).to_have_text(
            "没有队伍“t999”。“队伍”页列出所有编号和队名。")
        expect(swap.get_by_label("第一队")).to_have_value("t999")  # kept, to correct
        where = {n: page.locator(f"#t{n}").inner_text() for n in (1, 2)}
        a = re.search(r"t\d+", where[1]).group()
        b = re.search(r"第\d+队", where[2]).group()  # a team by its name works too
        swap.get_by_label("第一队").fill(a)
        swap.get_by_label("第二队").fill(b)
        swap.get_by_role("button", name="调换").click()
        expect(page.locator(".flash.note")).to_contain_text("已调换")
        expect(page.locator("#t2")).to_contain_text(a)
        made.shot("draft-1366")
        page.get_by_role("button", name="公布第 1 轮").click()
        start = page.get_by_role("button", name="开始第 1 轮")
        assert start.bounding_box()["y"] < page.locator('#published tr[data-table="1"]'
                                                        ).bounding_box()["y"]
        assert made.errors == []
    finally:
        made.close()
        d.store.close()


@pytest.mark.browser
def test_the_drafts_warned_tables_are_a_filter_that_a_swap_comes_back_to(tmp_path, browser):
    """At 60 tables the few pairings a head referee must look at (a rematch, one unit's two
    teams) are a filter, as on the results page."""
    d = hall_events.hall(tmp_path, teams=TEAMS)
    d.make_draft(by="陈")
    pairs = d.current_draft().plan.pairs
    units = {t.id: t.unit for t in d.teams()}
    first, second = pairs[0]
    same = next(x for pair in pairs[1:] for x in pair if units[x] == units[first])
    d.swap_teams(second, same, by="陈")  # table 1: two teams of one unit
    warned = [n for n, (ns, ew) in enumerate(d.current_draft().plan.pairs, 1)
              if units[ns] == units[ew]]
    assert 1 in warned and len(warned) < TABLES
    made = Console(d, browser, tmp_path)
    page = made.page
    try:
        made.go("/admin/rounds")
        chips = page.locator("#draft .filters")
        expect(chips.locator("a").first).to_have_text(f"全部 {TABLES}")
        chips.locator("[data-show=warned]").click()
        expect(page).to_have_url(re.compile(r"/admin/rounds\?show=warned"))
        expect(chips.locator("[data-show=warned]")).to_have_text(f"有提醒的桌 {len(warned)}")
        assert rows_shown(page, "#draft-tables") == warned
        expect(page.locator("#draft-tables tr[data-table='1']")).to_contain_text("同属")
        made.shot("draft-warned")
        page.locator("#draft-tables tr[data-table='1']").get_by_role(
            "button", name="交换南北/东西").click()
        expect(page.locator(".flash.note")).to_be_visible()
        expect(page).to_have_url(re.compile(r"/admin/rounds\?show=warned#t1$"))  # (its note gone)
        assert rows_shown(page, "#draft-tables") == warned
        assert made.errors == []
    finally:
        made.close()
        d.store.close()


@pytest.mark.process
def test_an_empty_team_swap_says_which_field_is_missing(tmp_path):
    from starlette.testclient import TestClient

    d = hall_events.hall(tmp_path, teams=8)
    d.make_draft(by="陈")
    with TestClient(create_app(d)) as client:
        client.post("/admin/login", data={"password": d.first_password(), "who": "陈"})
        page = client.get("/admin/rounds").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        refused = client.post("/admin/swap-teams",  # (followed to the page it leads to)
                              data={"csrf": csrf, "first": "", "second": "t02"})
    assert "refused=" in str(refused.url) and "请填写“第一队”。" in refused.text
    d.store.close()


# -- C7: the tables page ---------------------------------------------------------------------

@pytest.mark.browser
def test_the_tables_page_counts_paired_unpaired_and_offline_and_has_the_mute_on_top(console):
    page = console.page
    console.go("/admin/tables")
    chips = page.locator(".filters")
    expect(chips.locator("[data-show=paired]")).to_have_text("已配对 40")
    expect(chips.locator("[data-show=unpaired]")).to_have_text("未配对 20")
    expect(chips.locator("[data-show=offline]")).to_have_text("离线 37")  # (1, 2, 9 done)
    # the 37 are offline in the middle of their matches: each a problem its row says (the
    # results page's 平板离线 too); the three whose match is over are no alarm
    expect(chips.locator("[data-show=problem]")).to_have_text("有问题 37")
    expect(page.locator('#kiosks tr.problem[data-for="3"]')).to_contain_text(
        "第 1 轮比赛中平板离线，最后联系")  # (when it paired: not heard since)
    expect(page.locator('#kiosks tr.problem[data-for="1"]')).to_have_count(0)
    mute = page.get_by_role("button", name="全场静音")
    assert mute.bounding_box()["y"] < page.locator("#kiosks").bounding_box()["y"]
    assert mute.bounding_box()["y"] < 900
    console.shot("tables-1366")
    chips.locator("[data-show=unpaired]").click()
    arrived(page, "show=unpaired")
    assert rows_shown(page, "#kiosks") == list(range(PAIRED + 1, TABLES + 1))
    mute.click()
    expect(page.locator(".flash.note")).to_be_visible()
    expect(page).to_have_url(re.compile(r"show=unpaired"))  # still the same filter


@pytest.mark.browser
def test_the_tables_finder_shows_one_table_and_comes_back_to_it_after_a_swap(console):
    """A referee calls out table 12's kiosk: the head referee types 12 instead of scrolling a
    hall's rows, swaps the kiosk there and is still looking at table 12 afterwards."""
    page = console.page
    console.go("/admin/tables")
    finder = page.locator("#find")
    finder.get_by_label("桌号").fill("12")
    finder.get_by_role("button", name="查看").click()
    expect(page).to_have_url(re.compile(r"/admin/tables\?table=12$"))
    assert rows_shown(page, "#kiosks") == [12]
    expect(finder.get_by_label("桌号")).to_have_value("12")
    console.shot("tables-finder")
    page.locator("#kiosks tr[data-table='12']").get_by_role("button").click()
    expect(page.locator(".consequence")).to_contain_text(  # asked first: irreversible
        "把第 12 桌换到新平板？该桌现用的平板立即不能再上传")
    assert 12 in console.d.store.paired_tables()  # nothing done yet
    console.shot("tables-swap-asks")
    page.get_by_role("button", name="确认执行").click()
    note = page.locator(".flash.note")
    expect(note).to_contain_text("第 12 桌：旧平板已不能再上传")
    code = re.search(r"配对码 (\d{6})", note.inner_text()).group(1)
    expect(page).to_have_url(re.compile(r"table=12"))
    assert rows_shown(page, "#kiosks") == [12]
    expect(page.locator("#kiosks tr[data-table='12'] td.code")).to_have_text(code)

    finder.get_by_label("桌号").fill(str(TABLES + 1))
    page.locator("#find input").evaluate("box => box.removeAttribute('max')")  # (typed anyway)
    finder.get_by_role("button", name="查看").click()
    expect(page.locator(".flash.error")).to_have_text(
        f"没有第 {TABLES + 1} 桌：本赛场共 {TABLES} 张桌。")
    assert rows_shown(page, "#kiosks") == list(range(1, TABLES + 1))


# -- K2: a wide screen is used ----------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.parametrize("width, height", [(1920, 1080), (1366, 900)])
def test_the_results_table_uses_a_wide_screen_and_fits_a_laptop(tmp_path, browser, width,
                                                                 height):
    made = Console(big_round(tmp_path), browser, tmp_path, width, height)
    try:
        made.go("/admin/results")
        table = made.page.locator("#results").bounding_box()["width"]
        wide = made.page.evaluate("document.documentElement.scrollWidth")
        made.shot(f"results-{width}")
        assert wide <= width  # nothing runs off to the side
        if width >= 1600:
            assert table > width - 150
        else:
            assert 1150 < table <= 1260  # the laptop's page as it was
        assert made.errors == []
    finally:
        made.close()
        made.d.store.close()
