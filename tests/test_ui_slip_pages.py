"""The score slip on the end screen, page by page in the real window under Xvfb, landscape
and portrait: every line of it on some page (a referee's review, 2026-12-06: in portrait a
page held 40 lines where about 29 fit, and the end of the slip, its 胜方 and its signatures,
was on no page), under the result's two lines or a forfeit's four."""

from __future__ import annotations

import re

import pytest

from kiosk.ui.presenter import present

from .helpers import xvfb
from .kiosk_driver import Table
from .test_kiosk_correction_words import a_match_of_seven_hands
from .window import play

pytestmark = pytest.mark.window


@pytest.fixture(scope="module")
def display():
    with xvfb("800x1280x24") as name:
        yield name


def won_at_a(table: Table) -> None:
    """Seven hands, the first with an overrun every move of eight tricks: a long slip."""
    table.start()
    table.play_tricks(8, move=7.0)
    table.play_out()
    table.enter(40)
    a_match_of_seven_hands(table, started=True)


def forfeited(table: Table) -> None:
    """Three hands, an overrun every move of the first, then the referee's forfeit."""
    table.start()
    table.play_tricks(8, move=7.0)
    table.play_out()
    table.enter(85)
    for _ in range(2):
        table.press(*"NESW")
        table.tap("trump:♠", "start_bury")
        table.press(table.state.clock.seat)
        table.play_out()
        table.enter(85)
    table.press(*"NESW")
    table.tap("referee")
    table.pin()
    table.tap("r_forfeit", "r_fkind:forfeit", "r_fteam:EW", "r_freason:conduct", "ok")


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
@pytest.mark.parametrize("match", [won_at_a, forfeited])
def test_every_line_of_the_slip_is_on_a_page(tmp_path, display, rulesets, size, match):
    table = Table(tmp_path / "data", rulesets)
    match(table)
    over = present(table.runner.view, table.clock.now(), "zh-Hans", portrait=size == "720x1280")
    assert over.name == "over"
    pager = next((b.label for b in over.nav if b.action.startswith("page:")), "第1/1页")
    pages = int(re.search(r"/(\d+)页", pager)[1])
    table.session.close()
    script = [("wait", "over"), ("shot", "1")]
    for page in range(1, pages):
        script += [("touch", f"page:{page}"), ("wait", "over"), ("shot", str(page + 1))]
    _, screens = play(tmp_path, display, script, size=size)
    assert screens["spill"] == []
    assert [cut for cut in screens["overflow"] if cut[0] == "over"] == []  # no line left out
