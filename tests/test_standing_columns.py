"""What a standing's points are, and which columns it shows, by the event's ruleset (a head
referee's review): standard-80fen gives no points, a match is only won or lost, yet every page
called its matches won 大分 and showed a 净胜级 column of every team's 0. Its points are 胜场
there; a groups event's are 积分 (1 a win); net levels and opponents' points show only where
they break ties. xiamen-2015 keeps all three."""

from __future__ import annotations

import re

import pytest

from kiosk.errors import AdminError
from kiosk.scorer.director import Director
from kiosk.scorer.hall.snapshot import snapshot
from kiosk.scorer.printing import exports, pages
from kiosk.scorer.store.database import Store

from .browser import DEADLINE_MS, collect_page_errors, playwright_sync_api
from .helpers import ScorerProcess
from .test_director_console import RULESETS, finish, roster
from .test_scorer_admin import logged_in


def one_round(path, ruleset: str) -> Director:
    """Five teams (one has a bye) at two tables, round 1 over: each EW side lost."""
    d = Director(Store(path / "scorer.sqlite"), RULESETS)
    d.create_event("杯", ruleset, rounds=3, seed=5, by="陈")
    d.import_teams(roster(5))
    d.add_tables(2)
    d.start_round(0)
    finish(d, 1)
    return d


def refused_with(call, *args, **kw) -> str:
    with pytest.raises(AdminError) as caught:
        call(*args, **kw)
    return caught.value.key


def heads(html: str, tag: str = "th") -> list[str]:
    return re.findall(f"<{tag}[^>]*>([^<]*)</{tag}>", html)


def text(html: str) -> str:
    """What a page says: no style sheet, no markup."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", html, flags=re.S))


@pytest.mark.unit
def test_an_event_of_wins_says_wins_and_shows_no_net_levels_anywhere(tmp_path):
    d = one_round(tmp_path, "standard-80fen")
    client, csrf = logged_in(d)
    standings = client.get("/admin/standings").text
    assert heads(standings)[3:6] == ["胜场", "对手分", "已赛"]
    results = client.get("/admin/results").text
    assert "胜场" in heads(results) and "净胜级" not in results
    assert "大分" not in standings + results
    teams = client.get("/admin/teams").text  # a late entry's missed rounds count wins too
    assert "每个缺赛轮次计胜场数" in teams and "大分" not in text(teams)
    assert "轮空：第5队（计胜 1 场）" in pages.html(d, "pairings-table", "zh-Hans", 1)
    printed = pages.html(d, "standings", "zh-Hans")
    assert "胜场" in heads(printed) and "排名依据：胜场 → 对手胜场之和" in text(printed)
    cards = pages.html(d, "scorecards", "zh-Hans")
    assert "胜场" in heads(cards)
    sheets = pages.html(d, "sheets", "zh-Hans", 1)
    assert "胜场（胜 1 ✓ / 负 0）" in sheets and "级差" not in text(sheets)
    for page in (printed, cards, sheets):
        assert "净胜级" not in text(page) and "大分" not in text(page)
    sheets_by_name = {name: said for name, _, said, _ in exports.workbook_sheets(d, "zh-Hans")}
    assert "胜场" in sheets_by_name["standings"] and "净胜级" not in sheets_by_name["standings"]
    assert "南北胜场" in sheets_by_name["results"]
    assert not any("净胜级" in head for head in sheets_by_name["results"])
    event = snapshot(d, "http://127.0.0.1/")["event"]
    assert (event["wording"], event["net_levels"], event["opponents"]) == ("wins", False, True)
    # a ruling asks no net levels there, and a refusal says its field in the event's words
    # (the form is on a table with no ruling: table 1's taken back)
    d.remove_ruling(d.ruling_for(1, 1).id, "重新裁决", confirm=True)
    page = client.get("/admin/results?round=1&table=1").text
    assert 'name="net"' not in page and "本赛事只计胜负" in page
    refused = client.post("/admin/bye-points", data={"csrf": csrf, "points": "0.5"})
    assert "“轮空计胜场数”须填整数" in client.get(refused.headers["location"]).text
    said = refused_with(d.record_ruling, 2, "adjusted", "NS", "测", 1, net=2)
    assert said == "admin.error.net_not_counted"
    d.store.close()


@pytest.mark.unit
def test_xiamen_keeps_big_points_net_levels_and_opponents(tmp_path):
    d = one_round(tmp_path, "xiamen-2015")
    client, _ = logged_in(d)
    assert heads(client.get("/admin/standings").text)[3:7] == ["大分", "净胜级", "对手分", "已赛"]
    cards = pages.html(d, "scorecards", "zh-Hans")
    assert {"大分", "净胜级"} <= set(heads(cards))
    assert "级差" in pages.html(d, "sheets", "zh-Hans", 1)
    said = {name: heads for name, _, heads, _ in exports.workbook_sheets(d, "zh-Hans")}
    assert {"大分", "净胜级", "对手分"} <= set(said["standings"])
    event = snapshot(d, "http://127.0.0.1/")["event"]
    assert (event["wording"], event["net_levels"], event["opponents"]) == ("", True, True)
    d.store.close()


@pytest.mark.browser
def test_a_phone_of_an_event_of_wins_says_wins(browser, tmp_path):
    expect = playwright_sync_api().expect
    d = one_round(tmp_path / "scorer", "standard-80fen")
    table, ns, _ = d.assignments(1)[0]
    with ScorerProcess(tmp_path / "scorer") as process:
        context = browser.new_context(viewport={"width": 390, "height": 844},
                                      ignore_https_errors=True)
        page = context.new_page()
        errors = collect_page_errors(page)
        page.goto(f"{process.url}/team?team={ns}")
        standing = page.locator("#standing")
        expect(standing.locator(".points dt")).to_have_text("胜场", timeout=DEADLINE_MS)
        expect(standing.locator(".points dd")).to_have_text("1")
        expect(standing.locator(".net")).to_have_count(0)
        expect(standing.locator(".opponents dt")).to_have_text("对手分")
        history = page.locator('#history li[data-round="1"]')
        expect(history).to_have_text(  # (won or lost says it: no 大分 1, no 净胜级 0)
            re.compile(f"^第 1 轮 · 第 {table} 桌 · 对.+：胜（对方判负）$"))
        context.close()
    d.store.close()
    assert errors == []


@pytest.mark.unit
def test_before_an_event_the_results_file_is_its_headings(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    assert exports.results_csv(d).splitlines()[0].startswith("\ufeff轮次,桌号")
    d.store.close()


@pytest.mark.unit
def test_a_groups_event_says_its_points_and_no_tie_break_columns(tmp_path):
    """chaodipi-2011's groups count 1 a win (积分), and a playoff breaks their ties: neither
    net levels nor opponents' points show."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("杯", "chaodipi-2011", seed=5, by="陈")
    d.import_teams(roster(16))  # (8 groups of 2 at least)
    d.add_tables(8)
    d.start_round(0)
    finish(d, 1)
    client, _ = logged_in(d)
    assert heads(client.get("/admin/standings").text)[3:5] == ["积分", "已赛"]
    said = {name: heads for name, _, heads, _ in exports.workbook_sheets(d, "zh-Hans")}
    assert "积分" in said["standings"]
    assert not {"大分", "净胜级", "对手分"} & set(said["standings"])
    printed = text(pages.html(d, "standings", "zh-Hans"))
    assert "积分" in printed and "净胜级" not in printed and "大分" not in printed
    event = snapshot(d, "http://127.0.0.1/")["event"]
    assert (event["wording"], event["net_levels"], event["opponents"]) == ("group", False, False)
    d.store.close()
