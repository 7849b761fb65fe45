"""The head referee runs a whole event from /admin in Chromium, on the real scorer (its own
process, a fresh data directory), with simulated kiosks playing through the real sync path:
import (with a duplicate name, and later a late entry), a private draft, a manual swap,
publication, a no-show ruled a forfeit, an adjusted ruling on an earlier round and its
removal, a withdrawal and reinstatement, a bye, closing and reopening. After each step the
test looks at what the hall page, the admin page, the exports and the printed pages show.

Each click's time is printed (`-s` shows them): the report's "flow as a list of clicks".
"""

from __future__ import annotations

import csv
import io
import re
import time
from pathlib import Path

import pytest

from kiosk.rules import Rulesets
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join

from .browser import DEADLINE_MS, chromium_browser, collect_page_errors, playwright_sync_api
from .helpers import ScorerProcess, fetch
from .test_printing import render

pytestmark = pytest.mark.process

expect = playwright_sync_api().expect
expect.set_options(timeout=DEADLINE_MS)
RULESETS = Rulesets.load([])
TEAMS = ("编号,队伍名称,单位,队员1,队员2\n"
         "t01,海沧红狮,海沧,张一,王一\nt02,集美龙舟,集美,张二,王二\n"
         "t03,鼓浪屿钢琴,思明,张三,王三\nt04,思明凤凰,思明,张四,王四\n"
         "t05,湖里白鹭,湖里,张五,王五\nt06,海沧红狮,同安,张六,王六\n"
         "t07,翔安金光,翔安,张七,王七\n")
UNITS = {row.split(",")[0]: row.split(",")[2] for row in TEAMS.splitlines()[1:]}


class Clicks:
    """Times each step of the director's flow, for the report."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float]] = []

    def __call__(self, what: str):
        clicks = self

        class Step:
            def __enter__(self):
                self.start = time.perf_counter()

            def __exit__(self, *exc):
                clicks.steps.append((what, time.perf_counter() - self.start))
        return Step()

    def report(self) -> str:
        return "\n".join(f"{i:2d}. {what:<58} {seconds:6.2f} s"
                         for i, (what, seconds) in enumerate(self.steps, 1))


def get(url: str) -> bytes:
    # (a PDF is laid out in a process of its own: at load 15 on two cores, about a minute)
    return fetch(url, timeout=180)


def results_csv(url: str) -> list[list[str]]:
    text = get(url + "/api/export/results.csv").decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


def printed_text(url: str, kind: str, folder: Path, query: str = "") -> str:
    """A printed page as the PDF renders (pdftoppm) and reads back (pdftotext)."""
    pages, text = render(get(f"{url}/print/{kind}.pdf?lang=zh-Hans{query}"), folder, kind)
    assert pages
    return " ".join(text.split())


def play(kiosks: dict[int, Path], links: dict, tables: list[int], round_no: int) -> None:
    for table in tables:
        simulate_synced(kiosks[table], table, RULESETS, links[table], 1000,
                        seed=round_no * 10 + table, speed=1e9, out=io.StringIO()).close()


@pytest.mark.timeout(1200)
def test_a_head_referee_runs_a_whole_event_from_the_admin_page(tmp_path):
    data = tmp_path / "scorer"
    (tmp_path / "teams.csv").write_bytes(TEAMS.encode("gbk"))
    (tmp_path / "late.csv").write_text("队伍,单位\n迟到队,集美\n", encoding="utf-8")
    clicks = Clicks()
    with ScorerProcess(data) as scorer, chromium_browser() as browser:
        url = scorer.url
        password = (data / "admin-password.txt").read_text().strip()  # mode 600, not the log
        admin = browser.new_page(viewport={"width": 1400, "height": 1000}, ignore_https_errors=True)
        hall = browser.new_page(viewport={"width": 1920, "height": 1080}, ignore_https_errors=True)
        errors = collect_page_errors(admin) + collect_page_errors(hall)
        hall.goto(url + "/")

        def flash(text: str) -> None:
            expect(admin.locator("p.flash[role]")).to_contain_text(text)

        def submit(form: str, button: str | None = None) -> None:
            locator = admin.locator(form)
            (locator.get_by_role("button", name=button) if button else
             locator.locator("button").first).click()

        def tab(name: str) -> None:
            admin.locator("nav.tabs").get_by_role("link", name=name, exact=True).click()

        def confirm() -> None:
            expect(admin.locator("h1")).to_have_text("请确认")
            admin.get_by_role("button", name="确认执行").click()

        with clicks("log in (password, name)"):
            admin.goto(url + "/admin")
            admin.get_by_label("密码").fill(password)
            admin.get_by_label("您的姓名（记入日志）").fill("陈裁判长")
            admin.get_by_role("button", name="登录").click()
            expect(admin.get_by_role("heading", name="创建赛事")).to_be_visible()

        with clicks("create the event"):
            admin.get_by_label("赛事名称").fill("厦门杯")
            admin.get_by_label("规则").select_option("xiamen-2015")
            admin.get_by_label("轮数").fill("3")
            admin.get_by_label("抽签种子").fill("2015")  # one draw every run
            admin.get_by_role("button", name="创建赛事").click()
            flash("已创建赛事厦门杯。")
        expect(hall.locator("#event-name")).to_have_text("厦门杯")

        with clicks("import 7 teams (a duplicate name: asked, confirmed)"):
            tab("队伍")
            admin.locator('input[type="file"]').set_input_files(str(tmp_path / "teams.csv"))
            admin.get_by_role("button", name="导入", exact=True).click()
            expect(admin.locator(".consequence")).to_contain_text("海沧红狮（第 2 行）")
            expect(admin.locator(".consequence")).to_contain_text("海沧红狮（第 7 行）")
            confirm()
            flash("已导入 7 队。")
        expect(admin.locator("#teams tbody tr")).to_have_count(7)
        expect(admin.locator('[data-team="t06"] .badge')).to_have_text("同名")

        with clicks("rename the duplicate"):
            admin.locator('[data-team="t06"]').get_by_role("link", name="修改").click()
            admin.locator("#edit-t06").get_by_label("队名").fill("同安红狮")
            admin.locator("#edit-t06").get_by_role("button", name="保存").click()
            flash("已保存同安红狮（t06）。")
        expect(admin.locator(".badge", has_text="同名")).to_have_count(0)

        with clicks("set 4 tables (pairing codes)"):
            tab("牌桌")
            admin.get_by_label("牌桌数").fill("4")
            admin.get_by_role("button", name="设置").click()
            flash("赛场共 4 张牌桌")
        codes = {int(r.get_attribute("data-table")): r.locator(".code").inner_text()
                 for r in admin.locator("#kiosks tbody tr").all()}
        assert all(re.fullmatch(r"\d{6}", c) for c in codes.values())
        kiosks = {t: tmp_path / f"kiosk-{t}" for t in codes}
        links = {t: join(kiosks[t], t, url, codes[t], RULESETS) for t in codes}

        with clicks("draft round 1 (private)"):
            tab("轮次编排")
            admin.get_by_role("button", name="编排第 1 轮").click()
            flash("已编排第 1 轮（不公开）。")
        draft = admin.locator("#draft tbody tr[data-table]")
        expect(draft).to_have_count(3)
        expect(admin.locator("#draft tr.bye")).to_have_count(1)  # 7 teams: a bye
        time.sleep(1.5)  # the hall's feed looks at the store four times a second
        expect(hall.locator("#panel")).to_be_hidden()  # the draft is nobody else's business

        # Swap the NS teams of two tables where that keeps the two 思明 teams apart, so
        # publishing asks nothing more (whatever the seed draws).
        seats = {t: [admin.locator(f'#draft tr[data-table="{t}"] td').nth(i).inner_text()
                     .split()[1] for i in (1, 2)] for t in (1, 2, 3)}  # [NS id, EW id]
        x, y = next((x, y) for x, y in ((1, 2), (1, 3), (2, 3))
                    if UNITS[seats[x][0]] != UNITS[seats[y][1]]
                    and UNITS[seats[y][0]] != UNITS[seats[x][1]])
        a, b = seats[x][0], seats[y][0]
        with clicks("swap two teams in the draft"):
            admin.locator("#swap-teams").get_by_label("第一队").fill(a)
            admin.locator("#swap-teams").get_by_label("第二队").fill(b)
            admin.locator("#swap-teams").get_by_role("button", name="调换").click()
            flash("已调换")
        expect(admin.locator(f'#draft tr[data-table="{x}"] td').nth(1)).to_contain_text(b)
        expect(admin.locator("#draft .badge.warn")).to_have_text("已手动调整")

        with clicks("publish round 1"):
            admin.get_by_role("button", name="公布第 1 轮").click()
            flash("第 1 轮已公布")
        expect(hall.locator("#panel")).to_be_visible()  # the pairing panel fills the hall
        expect(hall.locator("#panel-list [data-pairing-table]")).to_have_count(3)
        expect(hall.locator("#panel-list .bye")).to_have_count(1)
        expect(hall.locator("#status")).to_have_text("准备中")  # no round over yet to rest
        wall = printed_text(url, "pairings-table", tmp_path)
        assert "第 1 轮对阵表（按桌号）" in wall and "轮空" in wall

        with clicks("start round 1"):
            admin.get_by_label("几秒后开始计时").fill("0")
            admin.get_by_role("button", name="开始第 1 轮").click()
            flash("第 1 轮已在各桌同时开始。")
        expect(hall.locator("#panel")).to_be_hidden()
        expect(hall.locator('#tables [data-table="4"] .phase')).to_have_text("本轮不用")
        expect(hall.locator('#tables [data-table="4"] .link')).not_to_contain_text("离线")
        expect(hall.locator("#tables .trow.bye")).to_have_count(1)

        play(kiosks, links, [1, 3], 1)  # table 2's EW team never came
        with clicks("rule table 2 a no-show forfeit (round 1)"):
            tab("成绩")
            row = admin.locator('#results tr[data-table="2"]')
            expect(row).to_contain_text("平板未就绪")
            row.get_by_role("link", name="裁决").click()
            ruling = admin.locator("#ruling")
            ruling.get_by_label("判负方").select_option("EW")
            ruling.get_by_label("理由").fill("东西方未到场")
            ruling.get_by_role("button", name="记录裁决").click()
            # said before it is done: the table's match ends for good
            expect(admin.locator(".consequence")).to_contain_text("该桌平板立即结束比赛")
            admin.get_by_role("button", name="确认执行").click()
            flash("已记录第 1 轮第 2 桌的裁决。")
        ns2 = admin.locator('#results tr[data-table="2"] td').nth(1).inner_text().split()[0]
        ew2 = admin.locator('#results tr[data-table="2"] td').nth(2).inner_text().split()[0]
        expect(admin.locator('#results tr[data-table="2"] .result')).to_contain_text(
            f"{ew2}判负，{ns2}胜")
        expect(hall.locator('#tables [data-table="2"] .phase')).to_have_text(
            f"{ns2}胜（对方判负）")
        ruled = results_csv(url)[2]
        assert ruled[1] == "2" and ruled[12] == "判负" and ruled[13] == "东西方未到场"
        sheet = printed_text(url, "sheets", tmp_path, "&round=1&table=2")
        assert "裁决：判负，东西负。理由：东西方未到场" in sheet

        with clicks("open table 1's score sheet"):
            admin.locator('#results tr[data-table="1"]').get_by_role(
                "link", name="记分表").click()
            expect(admin.locator(".sheet h1")).to_contain_text("比赛记分表")
        expect(admin.locator(".sheet .hands tbody tr").first).to_be_visible()

        with clicks("add a late entry from a file (1 big point a missed round)"):
            tab("队伍")
            admin.locator('input[type="file"]').set_input_files(str(tmp_path / "late.csv"))
            admin.get_by_label("每个缺赛轮次的大分").first.fill("1")
            admin.get_by_role("button", name="导入", exact=True).click()
            flash("已导入 1 支补报名的队伍：第 2 轮起参赛。")
        expect(admin.locator('[data-team="t08"] .status')).to_contain_text("第 2 轮起参赛")

        with clicks("withdraw 翔安金光 (asked, confirmed)"):
            admin.locator('[data-team="t07"]').get_by_role("button", name="退赛…").click()
            expect(admin.locator(".consequence")).to_contain_text("从第 2 轮起不再编排该队")
            confirm()
            flash("翔安金光（t07）已退赛。")
        expect(admin.locator('[data-team="t07"] .status')).to_have_text("第 1 轮后退赛")
        expect(hall.locator('#standings [data-team="t07"] .mark')).to_have_text("退赛")

        with clicks("draft and publish round 2"):
            tab("轮次编排")
            admin.get_by_role("button", name="编排第 2 轮").click()
            admin.get_by_role("button", name="公布第 2 轮").click()
            flash("第 2 轮已公布")
        expect(admin.locator("#published")).not_to_contain_text("t07")  # withdrawn
        expect(admin.locator("#published")).to_contain_text("t08")  # the late entry plays
        expect(admin.locator("#published tr.bye")).to_have_count(1)  # 8 teams, one out: a bye
        with clicks("start round 2"):
            admin.get_by_label("几秒后开始计时").fill("0")
            admin.get_by_role("button", name="开始第 2 轮").click()
            flash("第 2 轮已在各桌同时开始")
        play(kiosks, links, [1, 2, 3], 2)
        standings_before = get(url + "/api/standings")

        with clicks("adjusted ruling on round 1, table 1 (earlier round)"):
            tab("成绩")
            admin.get_by_role("link", name="1", exact=True).click()
            admin.locator("#find").get_by_label("桌号").fill("1")
            admin.locator("#find").get_by_role("button", name="查看").click()
            expect(admin.locator("#chosen h2")).to_have_text("第 1 轮 · 第 1 桌")
            ruling = admin.locator("#ruling")
            ruling.locator("select[name=kind]").select_option("adjusted")
            ruling.get_by_label("判负方").select_option("NS")
            ruling.get_by_label("净胜级（改判时）").fill("3")
            ruling.get_by_label("理由").fill("申诉成立：记分错误")
            ruling.get_by_role("button", name="记录裁决").click()
            flash("已记录第 1 轮第 1 桌的裁决。")
        assert get(url + "/api/standings") != standings_before
        expect(admin.locator('#results tr[data-table="1"] .result')).to_contain_text("改判结果")

        with clicks("remove that ruling, with a reason"):
            tab("裁决")
            row = admin.locator("#rulings tbody tr").last
            expect(row).to_contain_text("申诉成立：记分错误")
            expect(row).to_contain_text("陈裁判长")
            row.get_by_placeholder("撤销理由").fill("申诉方撤回")
            row.get_by_role("button", name="撤销…").click()
            confirm()
            flash("已撤销第 1 轮第 1 桌的裁决。")
        expect(admin.locator("#rulings tbody tr").last).to_contain_text("已由 陈裁判长")
        assert get(url + "/api/standings") == standings_before

        with clicks("reinstate 翔安金光 (asked, confirmed)"):
            tab("队伍")
            admin.locator('[data-team="t07"]').get_by_role("button", name="恢复参赛…").click()
            confirm()
            flash("翔安金光（t07）已恢复参赛。")
        expect(hall.locator('#standings [data-team="t07"] .mark')).to_have_count(0)

        with clicks("close the event (asked, confirmed)"):
            tab("概览")
            admin.get_by_role("button", name="结束赛事…").click()
            expect(admin.locator(".consequence")).to_contain_text("成绩和排名将被冻结")
            confirm()
            flash("赛事已结束，成绩已冻结。")
        expect(hall.locator("#status")).to_have_text("已结束")
        final = printed_text(url, "standings", tmp_path)
        assert "最终排名" in final and "迟到队" in final

        with clicks("reopen it with a reason"):
            admin.get_by_label("理由").fill("迟到的申诉")
            admin.get_by_role("button", name="重新开启赛事").click()
            flash("赛事已重新开启。")
        # round 2 is over: 轮间休息, never 比赛中 beside the clock's 本轮结束 (issue 32)
        expect(hall.locator("#status")).to_have_text("轮间休息")

        tab("操作日志")
        log = admin.locator("#log").inner_text()
        for line in ("导入 7 支队伍", "公布第 1 轮", "裁决第 1 轮第 2 桌",
                     "撤销第 1 轮第 1 桌的裁决", "翔安金光（t07）第 1 轮后退赛",
                     "恢复翔安金光（t07）参赛", "结束赛事", "重新开启赛事：迟到的申诉"):
            assert line in log, line
        assert log.count("陈裁判长") >= 15
        tab("打印与导出")
        with admin.expect_download() as download:
            admin.get_by_role("link", name="操作日志（CSV）").click()
        assert download.value.suggested_filename == "厦门杯-操作日志.csv"
        audit = Path(download.value.path()).read_text(encoding="utf-8-sig")
        assert "重新开启赛事：迟到的申诉" in audit

        hall.screenshot(path=str(tmp_path / "hall.png"))
        assert errors == []
    print("\nthe director's flow, click by click:\n" + clicks.report())
