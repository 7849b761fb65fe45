"""Issue 32, the head referee's day without surprises, in the OS's Chromium against the real
scorer on loopback: a late entry's id of its own and its missed rounds (缺赛), a player who
finds the team by their own name in 简 or 繁 on a 390×844 phone, re-importing a corrected team
list, the side balance in the draft, the withdrawal's choice on its confirmation, and the
console's confirmations and words. Screenshots go to the test's tmp folder (`-s` prints
where)."""

from __future__ import annotations

import json

import pytest

from .browser import collect_page_errors, playwright_sync_api
from .helpers import fetch

pytestmark = pytest.mark.browser

expect = playwright_sync_api().expect
PHONE = {"width": 390, "height": 844}
ROSTER = ("编号,队名,单位,队员1,队员2\n"
          "T01,海沧红狮,海沧,王建国,李海\nT02,集美龙舟,集美,陈小红,林木\n"
          "T03,鼓浪屿钢琴,思明,黄大伟,吴芳\nT04,思明凤凰,思明,赵刚,周敏\n")


def phone(console, browser):
    context = browser.new_context(locale="zh-CN", viewport=PHONE)
    page = context.new_page()
    return context, page, collect_page_errors(page)


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


# -- 1. a late entry: an id of its own, and its missed rounds said as such ---------------------


def test_a_late_entry_gets_an_id_of_its_own_and_its_missed_round_reads_as_missed(console,
                                                                                browser):
    page, d = console.page, console.d
    d.create_event("厦门杯", "xiamen-2015", seed=3, by="陈")
    d.import_teams(ROSTER.encode())
    d.add_tables(2)
    d.publish(by="陈")  # round 1 published: a team added now is a late entry
    page.goto(console.url + "/admin/teams")
    add = page.locator("#add-team")
    add.locator("input[name=name]").fill("湖里白鹭")
    add.locator("input[name=unit]").fill("湖里")
    add.locator("button").click()
    expect(page.locator(".flash")).to_contain_text("湖里白鹭（T05）")  # not t01 beside T01
    late = d.team_rows()[-1]
    assert (late.id, late.joined_round) == ("T05", 2)
    assert json.loads(fetch(console.url + "/api/team/t05"))["team"]["id"] == "T05"
    assert json.loads(fetch(console.url + "/api/team/T01"))["team"]["name"] == "海沧红狮"
    assert json.loads(fetch(console.url + "/api/team/t01"))["team"]["name"] == "海沧红狮"
    context, mobile, errors = phone(console, browser)
    mobile.goto(console.url + "/team?team=t05")
    history = mobile.locator("#history li")
    expect(history).to_have_count(1)
    expect(history).to_have_text("第 1 轮 · 缺赛（补报名）：大分 0")  # not 轮空 (a bye)
    mobile.screenshot(path=str(console.folder / "late-entry-missed.png"), full_page=True)
    assert errors == []
    context.close()


# -- 2. a player finds the team by their own name, 简 or 繁 -------------------------------------


@pytest.mark.parametrize("typed", ["王建國", "王建国", "海滄", "t01", "李 红狮"])
def test_a_player_finds_the_team_by_name_unit_or_id_in_either_script(console, browser, typed):
    d = console.d
    d.create_event("厦门杯", "xiamen-2015", seed=3, by="陈")
    d.import_teams(ROSTER.encode())
    context, mobile, errors = phone(console, browser)
    mobile.goto(console.url + "/team")
    mobile.locator("#query").fill(typed)
    found = mobile.locator("#matches button")
    expect(found).to_have_count(1)
    expect(found.locator(".name")).to_have_text("海沧红狮")
    if typed in ("王建國", "王建国"):
        expect(found.locator(".players")).to_have_text("王建国")  # how it was found
    no_sideways_scroll(mobile)
    mobile.screenshot(path=str(console.folder / "team-search.png"), full_page=True)
    found.click()
    expect(mobile.locator("#team-name")).to_have_text("海沧红狮")
    assert errors == []
    context.close()


def test_the_console_search_finds_a_player_typed_in_traditional(console):
    page, d = console.page, console.d
    d.create_event("厦门杯", "xiamen-2015", seed=3, by="陈")
    d.import_teams(ROSTER.encode())
    page.goto(console.url + "/admin/teams?q=黃大偉")
    expect(page.locator("#teams tbody tr")).to_have_count(1)
    expect(page.locator("#teams tbody tr")).to_contain_text("鼓浪屿钢琴")



# -- 6. withdrawals: the choice on the confirmation, "after" changed to "now", one wording -----


def test_the_withdrawal_is_chosen_on_its_confirmation_and_can_become_now(console, browser):
    page, d = console.page, console.d
    d.create_event("厦门杯", "xiamen-2015", seed=3, by="陈")
    d.import_teams(ROSTER.encode())
    d.add_tables(2)
    d.publish(by="陈")
    d.start_round(0)  # round 1 is being played
    (t1, ns1, _ew1), (t2, ns2, _ew2) = d.assignments(1)
    page.goto(console.url + "/admin/teams")
    expect(page.locator("#teams select")).to_have_count(0)  # no small select beside 退赛…
    page.locator(f"tr[data-team={ns1}]").get_by_role("button", name="退赛…").click()
    expect(page.locator("h1")).to_have_text("请确认")
    expect(page.locator(".consequence")).to_contain_text(f"第 1 轮第 {t1} 桌")
    choices = page.locator(".choices button")
    expect(choices).to_have_count(2)
    expect(choices.nth(0)).to_have_text("打完这场：第 1 轮后退赛")
    console.shot("withdraw-choice")
    choices.nth(0).click()
    row = page.locator(f"tr[data-team={ns1}]")
    expect(row.locator(".badge.out")).to_have_text("第 1 轮后退赛")
    assert d.ruling_for(1, t1) is None  # its match is played out
    row.get_by_role("button", name="改为立即退赛…").click()  # the same team, now after all
    expect(page.locator(".consequence")).to_contain_text("立即退赛")
    page.get_by_role("button", name="确认执行").click()
    expect(row.locator(".badge.out")).to_have_text("第 1 轮中途退赛（本场判负）")
    assert d.ruling_for(1, t1).kind == "forfeit"
    page.locator(f"tr[data-team={ns2}]").get_by_role("button", name="退赛…").click()
    page.locator(".choices button").nth(1).click()  # now: a forfeit, at once
    expect(page.locator(f"tr[data-team={ns2}] .badge.out")).to_have_text(
        "第 1 轮中途退赛（本场判负）")
    assert d.ruling_for(1, t2).loser == "NS"
    context, mobile, errors = phone(console, browser)  # the phone says it the same way
    mobile.goto(console.url + f"/team?team={ns1}")
    expect(mobile.locator("#withdrawn")).to_have_text(
        "本队已在第 1 轮中途退赛：本场判负，之后不再参赛")
    assert errors == []
    context.close()


# -- 4. the draft says each team's rank, big points and sides; a warned draft asks ------------


def test_the_draft_shows_rank_points_and_sides_and_a_warned_draft_asks(console):
    page, d = console.page, console.d
    d.create_event("厦门杯", "xiamen-2015", seed=3, by="陈")
    d.import_teams(ROSTER.encode())
    d.add_tables(2)
    page.goto(console.url + "/admin/rounds")
    page.get_by_role("button", name="编排第 1 轮").click()
    expect(page.locator("#draft-tables tbody tr")).to_have_count(2)
    expect(page.locator(".draft-facts")).to_have_count(0)  # not every team 「并列第 1 名」
    d.publish(by="陈")
    d.start_round(0)
    for table, _, _ in d.assignments(1):
        d.record_ruling(table, "forfeit", "EW", "测试", 1, confirm=True)  # NS wins both
    page.goto(console.url + "/admin/rounds")
    page.get_by_role("button", name="编排第 2 轮").click()
    first = page.locator("#draft-tables tbody tr").first
    expect(first.locator(".draft-facts").first).to_contain_text("大分 · 南北")
    facts = first.locator(".draft-facts").all_inner_texts()
    assert any("南北 1 / 东西 0" in f for f in facts) and any("南北 0 / 东西 1" in f
                                                               for f in facts), facts
    page.get_by_role("button", name="公布第 2 轮").click()  # no warning: published at once
    expect(page.locator(".flash")).to_contain_text("第 2 轮已公布")
    d.start_round(0)
    for table, _, _ in d.assignments(2):
        d.record_ruling(table, "forfeit", "EW", "测试", 2, confirm=True)
    page.goto(console.url + "/admin/rounds")
    page.get_by_role("button", name="编排第 3 轮").click()
    # round 3 must pair the two teams of 思明 (every other pair has met): said, and asked
    expect(page.locator("#draft-tables .warn-text").first).to_contain_text("同属思明")
    console.shot("draft-warned")
    page.get_by_role("button", name="公布第 3 轮").click()
    expect(page.locator("h1")).to_have_text("请确认")  # it did not publish at once
    expect(page.locator(".consequence")).to_contain_text("仍要公布吗")
    page.get_by_role("button", name="确认执行").click()
    expect(page.locator(".flash")).to_contain_text("第 3 轮已公布")


# -- 3. a corrected team list imported again: the changes shown, asked, kept in the log -------


def test_a_corrected_list_is_imported_again_as_an_update(console, tmp_path):
    page, d = console.page, console.d
    d.create_event("厦门杯", "xiamen-2015", seed=3, by="陈")
    d.import_teams(ROSTER.encode())
    corrected = tmp_path / "队伍（更正）.csv"
    corrected.write_bytes(ROSTER.replace("海沧红狮,海沧", "海沧红狮队,海沧区").encode("gbk"))
    page.goto(console.url + "/admin/teams")
    page.set_input_files("form[action='/admin/import'] input[type=file]", str(corrected))
    page.click("form[action='/admin/import'] button")
    expect(page.locator("h1")).to_have_text("请确认")  # not 「这些编号已在赛事中…」
    expect(page.locator(".consequence")).to_contain_text(
        "海沧红狮（T01）：队名 海沧红狮 → 海沧红狮队、单位 海沧 → 海沧区")
    console.shot("update-teams-confirm")
    page.get_by_role("button", name="确认执行").click()
    expect(page.locator(".flash")).to_have_text("已按新名单更新 1 队。")  # no 「新增 0 队」
    expect(page.locator("tr[data-team=T01] .name")).to_have_text("海沧红狮队")
    page.goto(console.url + "/admin/log")
    expect(page.locator("#log")).to_contain_text("按新名单更正海沧红狮（T01）")


# -- low: the console on a phone, the hall's header and names --------------------------------


def test_the_console_pages_fit_a_390_pixel_phone(console):
    page, d = console.page, console.d
    d.create_event("厦门杯八十分团体赛", "xiamen-2015", seed=3, by="陈")
    d.import_teams(ROSTER.encode())
    d.add_tables(2)
    d.publish(by="陈")
    d.start_round(0)
    page.set_viewport_size(PHONE)
    wide = {}
    for tab in ("", "/teams", "/rounds", "/results", "/results?table=1", "/standings",
                "/rulings", "/tables", "/print", "/log"):
        page.goto(console.url + "/admin" + tab)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide[tab or "/"] = width
            page.screenshot(path=str(console.folder / f"wide-{tab.strip('/') or 'overview'}"
                                                      ".png"), full_page=True)
    assert wide == {}  # overview 430 px, 成绩 528, 牌桌 486 scrolled sideways


FIVE = ("队名,单位\n福州榕城队,福州\n厦门鹭岛队,厦门\n泉州刺桐队,泉州\n漳州芗城队,漳州\n"
        "莆田木兰队,莆田\n龙岩红土队,龙岩\n三明沙溪队,三明\n南平武夷队,南平\n")


def lines_of(page, selector: str) -> list[int]:
    """How many lines each element's own text (its last child, after the side's label)
    takes: its line boxes."""
    return page.eval_on_selector_all(selector, """nodes => nodes.map((node) => {
        const range = document.createRange(); range.selectNodeContents(node.lastChild);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size; })""")


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1366, "height": 768}])
def test_the_hall_keeps_a_five_character_name_on_one_line_and_one_status(console, browser,
                                                                        viewport):
    d = console.d
    d.create_event("福建杯", "xiamen-2015", seed=3, by="陈")
    d.import_teams(FIVE.encode())
    d.add_tables(4)
    d.publish(by="陈")
    context = browser.new_context(locale="zh-CN", viewport=viewport)
    hall = context.new_page()
    errors = collect_page_errors(hall)
    hall.goto(console.url + "/")
    board = "#panel-list .panel-row .team"  # between rounds: the pairings fill the screen
    expect(hall.locator(board)).to_have_count(8)
    hall.screenshot(path=str(console.folder / f"hall-{viewport['width']}.png"), full_page=True)
    assert set(lines_of(hall, board)) == {1}  # never 福州榕城 / 队
    d.start_round(0)
    for table, _, _ in d.assignments(1):
        d.record_ruling(table, "forfeit", "EW", "测试", 1, confirm=True)  # every table finished
    expect(hall.locator("#round-clock-label")).to_have_text("本轮结束")
    expect(hall.locator("#status")).to_have_text("轮间休息")  # not 比赛中 beside 本轮结束
    assert errors == []
    context.close()
