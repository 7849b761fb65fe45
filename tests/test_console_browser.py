"""What the head referee's tester saw in Chromium (M6 of the report), in the OS's Chromium
against the real scorer on loopback: Back after a confirmation. Screenshots go to the
test's tmp folder (`-s` prints where)."""

from __future__ import annotations

import pytest

from .browser import chromium_browser, playwright_sync_api
from .test_admin_browser import Console

pytestmark = pytest.mark.browser

expect = playwright_sync_api().expect


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as launched:
        yield launched


@pytest.fixture
def console(tmp_path, browser):
    made = Console(tmp_path, browser)
    yield made
    assert made.errors == []
    made.close()


# -- M6: Back after a confirmation -----------------------------------------------------------


def test_back_after_a_confirmation_lands_on_a_page_and_does_nothing_again(console):
    page, d = console.page, console.d
    console.event_with_teams()
    d.make_draft(by="陈")
    d.swap_sides(1, by="陈")  # swapped by hand: discarding it asks first
    page.goto(console.url + "/admin/rounds")
    page.get_by_role("button", name="放弃草稿…").click()
    expect(page.locator("h1")).to_have_text("请确认")
    console.shot("confirm-discard")
    page.get_by_role("button", name="确认执行").click()
    expect(page.locator(".flash")).to_have_text("草稿已放弃。")
    page.go_back()  # (it showed Chromium's 确认重新提交表单 / ERR_CACHE_MISS)
    expect(page.locator("h1")).to_have_text("轮次编排")
    expect(page.locator(".flash")).to_have_text("这一步已经确认并执行过了，没有再执行一次。")
    console.shot("back-after-confirm")
    discards = [e for e in d.audit_log() if e.action == "round.discard"]
    assert len(discards) == 1 and d.current_draft() is None
    page.go_back()  # and back once more: the rounds page as it was before the question
    expect(page.locator("h1")).to_have_text("轮次编排")
    assert len([e for e in d.audit_log() if e.action == "round.discard"]) == 1
