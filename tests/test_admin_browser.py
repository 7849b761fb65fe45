"""What the head referee sees in the console, in real Chromium on a real uvicorn (loopback):
correcting the event after creating it, a refused form that keeps what was typed, the
printable list of pairing codes, the rounds' wording and the small things the audit found.
Screenshots go to the test's tmp folder (`-s` prints where)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store import Store
from kiosk.scorer.web import create_app

from .browser import chromium_browser, collect_page_errors, playwright_sync_api, serve

expect = playwright_sync_api().expect
expect.set_options(timeout=15_000)
RULESETS = Rulesets.load([])
TEAMS = "编号,队名,单位\nt01,海沧红狮,海沧\nt02,集美龙舟,集美\nt03,鼓浪屿钢琴,思明\n" \
        "t04,思明凤凰,思明\n"


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as launched:
        yield launched


class Console:
    """A scorer on loopback and a logged-in Chromium page on its console."""

    def __init__(self, tmp_path: Path, browser) -> None:
        self.folder = tmp_path
        self.d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
        password = self.d.first_password()
        self.server = serve(create_app(self.d))
        self.url = self.server.__enter__().url
        self.context = browser.new_context(locale="zh-CN", viewport={"width": 1366,
                                                                     "height": 900})
        self.page = self.context.new_page()
        self.errors = collect_page_errors(self.page)
        self.page.goto(self.url + "/admin/login")
        self.page.fill("input[name=password]", password)
        self.page.fill("input[name=who]", "陈裁判长")
        self.page.click("form button")
        expect(self.page).to_have_url(re.compile(r"/admin$"))
        self.shots = 0

    def shot(self, name: str) -> Path:
        self.shots += 1
        path = self.folder / f"{self.shots:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        print("screenshot", path)
        return path

    def flash(self) -> str:
        return self.page.locator(".flash").inner_text()

    def close(self) -> None:
        self.context.close()
        self.server.__exit__(None, None, None)
        self.d.store.close()


@pytest.fixture
def console(tmp_path, browser):
    made = Console(tmp_path, browser)
    yield made
    assert made.errors == []
    made.close()


def test_the_event_is_corrected_after_creation_and_each_change_is_logged(console):
    page, d = console.page, console.d
    page.fill("input[name=name]", "厦门怀八十分团体赛")  # a typo
    page.fill("input[name=rounds]", "3")
    page.click("form[action='/admin/event'] button")
    expect(page.locator(".top .event b")).to_have_text("厦门怀八十分团体赛")
    form = page.locator("#edit-event")
    expect(form.locator("input[name=name]")).to_have_value("厦门怀八十分团体赛")
    expect(form.locator("select[name=ruleset]")).to_have_value("xiamen-2015")
    expect(form.locator("input[name=rounds]")).to_have_value("3")
    expect(form.locator("input[name=minutes]")).to_have_value("90")
    console.shot("edit-form")
    form.locator("input[name=name]").fill("厦门杯八十分团体赛")
    form.locator("input[name=rounds]").fill("5")
    form.locator("button").click()
    assert "已保存更正" in console.flash()
    expect(page.locator(".top .event b")).to_have_text("厦门杯八十分团体赛")
    expect(page.locator("#edit-event input[name=rounds]")).to_have_value("5")
    page.goto(console.url + "/admin/log")
    log = page.locator("#log").inner_text()
    assert "更正赛事名称：厦门怀八十分团体赛 → 厦门杯八十分团体赛" in log
    assert "更正轮数：3 → 5" in log and "陈裁判长" in log
    console.shot("edit-log")
    d.import_teams(TEAMS.encode())
    d.add_tables(2)
    d.publish(by="陈")  # round 1 published: the ruleset and minutes are locked
    page.goto(console.url + "/admin")
    form = page.locator("#edit-event")
    expect(form.locator("select[name=ruleset]")).to_have_count(0)  # shown, not sent
    expect(form.locator("select[disabled]")).to_contain_text("xiamen-2015")
    expect(form).to_contain_text("第 1 轮已公布：规则和每场分钟数不能再改。")
    form.locator("input[name=rounds]").fill("0")
    form.locator("button").click()
    assert console.flash() == "轮数为 1 到 99。"
    console.shot("edit-refused")
    assert d.event().rounds == 5
