"""An individual event at the scorer (shuangsheng-2011, groups of four): what the head
referee does with its rounds, through the real director, app and simulated kiosks."""

from __future__ import annotations

import io
import re

import pytest
from openpyxl import load_workbook
from starlette.testclient import TestClient

from kiosk.errors import AdminError, NeedsConfirmation
from kiosk.i18n import explain
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.printing import exports
from kiosk.scorer.printing import pages as printing
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join

from .helpers import cli

RULESETS = Rulesets.load([])


@pytest.mark.process
def test_an_individual_round_ends_when_the_head_referee_calls_time(tmp_path):
    """Time called on an individual round left a table that had not played its 16 deals
    waiting for a ruling that only team matches have: the round could never end, and the
    overview said no table was left (a head referee's review). Now the round ends on the
    deals played."""
    from kiosk.scorer.web.admin.overview import next_step

    d = an_individual_event(tmp_path, 8)
    codes = d.store.open_codes(d.clock())
    d.start_round(0)
    client = TestClient(create_app(d))
    links = {t: join(tmp_path / f"k{t}", t, "http://testserver", c, RULESETS, client)
             for t, c in codes.items()}
    simulate_synced(tmp_path / "k1", 1, RULESETS, links[1], 1000, 1, 1e9, io.StringIO()).close()
    simulate_synced(tmp_path / "k2", 2, RULESETS, links[2], 5, 2, 1e9, io.StringIO()).close()
    assert d.unfinished(1) == [2]
    # the sheet of a table still playing says its big points are so far (it looked final)
    sheets = {t: printing.html(d, "sheets", "zh-Hans", round_no=1, table=t) for t in (1, 2)}
    assert "未完赛：已打 5 副" in sheets[2] and "未完赛" not in sheets[1]
    assert "<td>东</td>" in sheets[2] and "<td>E</td>" not in sheets[2]  # seats in words
    # the results page shows how each group stands; its link to the tables still playing
    # lists those alone (it listed every table, with no state, no deal, no totals)
    from .test_scorer_admin import logged_in

    admin, _ = logged_in(d)
    page = admin.get("/admin/results").text
    assert "完赛（16 副）" in page and "比赛中：已打 5 副" in page
    left = admin.get("/admin/results?show=unfinished").text
    assert re.findall(r'<tr data-table="(\d+)">', left) == ["2"]
    assert re.search(r'data-show="unfinished"[^>]*>未完赛 <b>1</b>', page)  # its filter
    # the workbook's results: a row a player, at a table and seat (it put each under 南北)
    book = load_workbook(io.BytesIO(exports.workbook(d, "zh-Hans")))
    results = list(book.worksheets[1].values)
    assert results[0] == ("轮次", "桌号", "座位", "编号", "选手", "大分", "已打副数", "状态")
    assert len(results) == 9 and {row[6] for row in results[1:] if row[1] == 2} == {5}
    assert {row[7] for row in results[1:]} == {"完赛", "未完成"}
    assert next_step(d) == ("admin.next.playing", {"round": 1, "n": 1})  # (it said 0)
    # the standings while the round is played: the finished table's players by their totals,
    # the others still at 0 with nothing played (they stayed empty until every table ended)
    finished = {p: total for letter, total in d.match_state(1, 1).core.totals
                for p in [d.seats(1)[1][letter]]}
    standings = d.standings()
    assert [(s.team, s.points, s.played) for s in standings[:4]] == sorted(
        ((p, t, 1) for p, t in finished.items()), key=lambda row: -row[1])
    assert {(s.points, s.played) for s in standings[4:]} == {(0, 0)}
    assert {s.team for s in standings[4:]} == set(d.seats(1)[2].values())
    with pytest.raises(AdminError, match="settled in the finals' draft"):
        d.order_tie(standings[4].team)  # (a prelim tie is the draft's: 调换两名选手)
    # a player's phone lists the table finished: its seat, big points and deals played
    from kiosk.scorer.hall.snapshot import snapshot, team_views

    views = team_views(snapshot(d, "http://testserver/"), d)
    seat, player = next(iter(d.seats(1)[1].items()))
    assert views[player]["history"] == [{"round": 1, "table": 1, "seat": seat,
                                         "points": finished[player],
                                         "deals": len(d.match_state(1, 1).played)}]
    assert views[d.seats(1)[2]["E"]]["history"] == []  # (its table plays on)
    # what the head referee is told says how an individual round ends and is mended
    with pytest.raises(NeedsConfirmation) as asked:
        d.stop_clock(by="裁判长")
    assert "本轮按已打的副数结束" in explain(asked.value, "zh-Hans")
    assert "裁决" not in explain(asked.value, "zh-Hans")  # (there is none in this format)
    refusal = d.undo_refusal(1)
    assert refusal is not None and "在平板上更正" in explain(refusal, "zh-Hans")
    d.stop_clock(confirm=True, by="裁判长")
    simulate_synced(tmp_path / "k2", 2, RULESETS, links[2], 1000, 2, 1e9, io.StringIO()).close()
    state = d.match_state(2, 1)
    assert state is not None and state.phase == "over" and state.needs_ruling is None
    assert 5 <= len(state.played) < 16  # the deal in play, if any, finished: no other dealt
    assert d.unfinished(1) == [] and d.round_over(1)
    assert "不能撤回" not in admin.get("/admin/rounds").text  # a round over needs no why
    totals = d.group_totals(1)
    assert totals is not None and len(totals) == 2
    # each player's card says the round's table, seat, tablemates and big points (it was
    # blank: 「桌号 — 方位 —」, 「队员：—」)
    names = d.team_names()
    page = printing.html(d, "scorecards", "zh-Hans")
    for table, seats in d.seats(1).items():
        for seat, player in seats.items():
            card = page[page.index(f"<h2>{names[player]} "):]
            card = card[:card.index("</section>")]
            row = re.search(r'<td class="num">1</td><td class="num">(\d)</td>\s*<td>(.)</td>'
                            r'<td>(.*?)</td>\s*<td>(.*?)</td>\s*<td class="num">(\d+)</td>', card)
            assert row is not None and "队员：" not in card and "净胜级" not in card, card
            mates = sorted(names[p] for p in seats.values() if p != player)
            assert row.groups()[:2] == (str(table), {"N": "北", "E": "东", "S": "南",
                                                     "W": "西"}[seat])
            assert sorted(row.group(3).split("、")) == mates
            assert row.group(4) == f"完赛（{len(d.match_state(table, 1).played)} 副）"
            assert int(row.group(5)) == totals[table - 1][player]
    d.store.close()


def an_individual_event(tmp_path, players: int) -> Director:
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("双升个人赛", "shuangsheng-2011", seed=3)
    d.import_teams(("选手,单位\n" + "".join(f"选手{i},厦门\n" for i in range(1, players + 1))
                    ).encode())
    d.add_tables(players // 4)
    return d


@pytest.mark.unit
def test_withdrawing_a_player_says_the_finals_need_groups_of_four(tmp_path):
    """A withdrawal left 11 players, and the finals could not be formed, with no warning
    before and no way named after (a head referee's review)."""
    d = an_individual_event(tmp_path, 8)
    d.start_round(0)
    player = d.team_rows()[0].id
    with pytest.raises(NeedsConfirmation) as asked:
        d.withdraw(player)
    said = explain(asked.value, "zh-Hans")
    assert "不再编排该选手" in said and "4 的倍数" in said and "恢复" in said
    d.store.close()


@pytest.mark.unit
def test_players_not_in_fours_are_told_what_to_do(tmp_path):
    d = an_individual_event(tmp_path, 7)
    with pytest.raises(AdminError) as refused:
        d.start_round(0)
    assert explain(refused.value, "zh-Hans").startswith(
        "7 名选手无法分成每组 4 人：人数须为 4 的倍数（在“选手”页增删选手")
    d.store.close()


@pytest.mark.unit
def test_the_console_shows_an_individual_round_as_players_at_tables(tmp_path):
    """The published round put all four players under 南北 with 东西 empty, seats as E N W S,
    and the standings kept the team columns 净胜级 and 对手分 (a head referee's review)."""
    from .test_scorer_admin import logged_in

    d = an_individual_event(tmp_path, 8)
    d.make_draft()
    client, _ = logged_in(d)
    draft = client.get("/admin/rounds").text
    draft = draft[draft.index('id="draft-tables"'):draft.index("</thead>", draft.index(
        'id="draft-tables"'))]
    assert "本桌选手" in draft and "南北" not in draft
    d.publish(confirm=True)
    rounds = client.get("/admin/rounds").text
    published = rounds[rounds.index('class="list pairings"'):]
    published = published[:published.index("</table>")]
    assert "本桌选手" in published and "南北" not in published and "东西" not in published
    names = d.team_names()
    for seats in d.seats(1).values():
        for seat, player in seats.items():
            assert f"{ {'N': '北', 'E': '东', 'S': '南', 'W': '西'}[seat]} {names[player]}" \
                in published
    standings = client.get("/admin/standings").text
    assert "净胜级" not in standings and "对手分" not in standings
    # the rulings tab says why it stays empty, and where a wrong deal is mended instead
    assert "个人赛没有裁决" in client.get("/admin/rulings").text
    d.store.close()


@pytest.mark.unit
def test_an_individual_event_speaks_of_players_not_teams(tmp_path):
    """An individual event's console, printed pages, workbook and phones spoke of teams
    (「队伍」, 「共 12 队」, 「各队成绩卡」, 「找我的队伍」, the log's 「导入 12 支队伍」) (a head
    referee's review); and its score sheets could not be printed before the tables had
    played: the console answered 500 where it should give the sheet to fill by hand."""
    from kiosk.cli.scorer_cmd import _round_text
    from kiosk.scorer.hall.snapshot import team_list
    from kiosk.scorer.printing.templating import words

    from .test_scorer_admin import logged_in

    d = an_individual_event(tmp_path, 8)
    d.start_round(0)
    client, _ = logged_in(d)

    def shown(html: str) -> str:
        return re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style).*?</\1>", "", html, flags=re.S))

    pages = {path: client.get(path) for path in (
        "/admin", "/admin/teams", "/admin/log", "/admin/print", "/admin/standings",
        "/admin/results", "/admin/rounds", "/admin/sheet?round=1&table=2")}
    for path, reply in pages.items():
        assert reply.status_code == 200, path
        assert "队" not in shown(reply.text), (path, re.findall(r".{12}队.{12}", shown(reply.text)))
    teams = shown(pages["/admin/teams"].text)
    assert "共 8 人" in teams and "导入选手" in teams and "姓名" in teams and "队员1" not in teams
    assert "导入 8 名选手" in shown(pages["/admin/log"].text)
    with pytest.raises(NeedsConfirmation) as asked:  # (no rulings to freeze in this format)
        d.close_event()
    assert "裁决" not in explain(asked.value, "zh-Hans")
    assert "工作簿：排名、各轮、日志" in shown(pages["/admin/print"].text)  # (no 裁决 sheet)
    # each table's sheet, before it has played: its four players and its 16 deals, each
    # with its level and dealer as the rules fix them (the seeds' 计分表), to fill by hand
    names = d.team_names()
    sheets = printing.html(d, "sheets", "zh-Hans", round_no=1)
    assert all(names[p] in sheets for seats in d.seats(1).values() for p in seats.values())
    deals = re.findall(r'<tr><td class="num">(\d+)</td><td>(\w+)</td><td>(.)</td><td></td>',
                       sheets)
    assert len(deals) == 2 * 16 and deals[:5] == [("1", "2", "东"), ("2", "3", "北"),
                                                  ("3", "4", "西"), ("4", "5", "南"),
                                                  ("5", "5", "东")]
    cards = printing.html(d, "scorecards", "zh-Hans")
    assert "选手成绩卡" in cards and "未开始" in cards and "未完成" not in cards  # (not begun)
    head = cards[cards.index("<thead>"):cards.index("</thead>")]
    assert len(re.findall(r"<th[ >]", head)) == 6  # (a seventh, blank, stood for net levels)
    deals = sheets[sheets.index('<table class="hands">'):]
    assert re.findall(r"<th class=\"num award\">(.)</th>", deals[:deals.index("</thead>")]) == [
        "东", "北", "西", "南"]  # the seats alone: their names break a narrow column
    book = load_workbook(io.BytesIO(exports.workbook(d, "zh-Hans")))
    assert book.sheetnames == ["排名", "各轮成绩", "操作日志"]  # (no 裁决: none in this format)
    standings, log = book.worksheets[0], book.worksheets[2]
    assert [c.value for c in standings[1]] == ["名次", "并列", "编号", "选手", "单位", "大分",
                                               "已赛", "状态"]
    assert "导入 8 名选手" in [c.value for c in log["C"]]
    assert team_list(d)["wording"] == "individual"  # (the phones' words follow it)
    said = _round_text(d, words("zh-Hans", "individual"), 1)  # what `start-round` prints
    assert re.search(r"东 选手\d · 北 选手\d · 西 选手\d · 南 选手\d", said), said  # (E N W S)
    d.store.close()
    # and the command line's
    (tmp_path / "cli").mkdir()
    d = Director(Store(tmp_path / "cli" / "scorer.sqlite"), RULESETS)
    d.create_event("双升个人赛", "shuangsheng-2011", seed=3)
    d.store.close()
    (tmp_path / "players.csv").write_text("姓名\n杨帆\n李娜\n王伟\n张敏\n", encoding="utf-8")
    said = cli("scorer", "admin", "--data", str(tmp_path / "cli"), "teams",
               str(tmp_path / "players.csv"))
    assert said.stdout.startswith("已导入 4 名选手："), said
    listed = cli("scorer", "admin", "--data", str(tmp_path / "cli"), "list-teams").stdout
    assert listed.split()[:4] == ["编号", "姓名", "单位", "状态"]  # (no 队员)
    ranked = cli("scorer", "admin", "--data", str(tmp_path / "cli"), "standings").stdout
    assert ranked.split()[:5] == ["名次", "姓名", "大分", "已赛", "状态"]  # (no 净胜级 …)
    # its refusals and questions speak of players, as the console's do
    refused = cli("scorer", "admin", "--data", str(tmp_path / "cli"), "delete-team", "赵六")
    assert "没有选手“赵六”。“选手”页列出所有编号和姓名。" in refused.stderr, refused
    asked = cli("scorer", "admin", "--data", str(tmp_path / "cli"), "add-team", "杨帆")
    assert "赛事中已有名为杨帆的选手。仍要用同一姓名添加吗？" in asked.stderr, asked
    helped = cli("scorer", "admin", "--help").stdout  # (before any event: both words)
    assert "列出队伍（个人赛：选手）" in helped and "对调两支队伍或两名选手" in helped


@pytest.mark.unit
def test_each_tie_at_a_final_groups_edge_is_said_with_its_players_and_can_be_swapped(tmp_path):
    """Two ties at two edges read as one list of four 「请裁判长裁定」, the draft could only
    swap whole tables, and publishing it asked nothing (a head referee's review): each tie
    is said, two players can change groups, and publishing asks first."""
    from kiosk.i18n import render
    from kiosk.scorer.director.rounds import Draft
    from kiosk.scorer.tournament import formats
    from kiosk.scorer.tournament.formats import RoundPlan

    d = an_individual_event(tmp_path, 8)
    players = [r.id for r in d.team_rows()]
    plan = RoundPlan(groups=(tuple(players[:4]), tuple(players[4:])), stage="final",
                     note=f"ties:{players[3]}, {players[4]}")
    draft = Draft(2, plan, d._basis(2), False)
    said = [render(w.key, w.params, "zh-Hans") for w in d.draft_warnings(draft)]
    names = d.team_names()
    assert len(said) == 1 and said[0].startswith(f"{names[players[3]]}（")
    assert "调换两名选手" in said[0]
    d._save_draft(draft)
    swapped = d.swap_teams(players[3], players[4], by="裁判长")
    assert swapped.plan.groups == ((*players[:3], players[4]), (players[3], *players[5:]))
    assert swapped.edited and swapped.plan.note == plan.note
    # publishing asks first, naming the tie (it asked only of a table's warnings)
    with pytest.raises(NeedsConfirmation) as asked:
        d.publish(by="裁判长")
    assert explain(asked.value, "zh-Hans") == (
        f"第 2 轮草稿带提醒：{names[players[3]]}（{players[3]}）与{names[players[4]]}"
        f"（{players[4]}）总分相同，分在两个决赛组的分界两侧。仍要公布吗？")
    # three of one total at the edge are said together (the third was left out)
    three = RoundPlan(groups=plan.groups, stage="final",
                      note=f"tied:{players[2]}, {players[3]}, {players[4]}")
    said = [render(w.key, w.params, "zh-Hans")
            for w in d.draft_warnings(Draft(2, three, d._basis(2), False))]
    # (the draft's own note, from prelim totals with that tie)
    prelims = [{players[0]: 90, players[1]: 80, players[2]: 75, players[3]: 60},
               {players[4]: 90, players[5]: 75, players[6]: 75, players[7]: 60}]
    assert formats.individual_next([], 1, prelims).note == \
        f"tied:{players[2]}, {players[5]}, {players[6]}"
    named = [f"{names[p]}（{p}）" for p in players[2:5]]
    assert said == [f"{named[0]}、{named[1]}与{named[2]}总分相同，在相邻两个决赛组的分界处："
                    "规则未定他们的先后，草稿暂按预赛组内名次、再按桌号先后分组；请裁判长裁定，"
                    "需要时用下面的“调换两名选手”。"]
    d.store.close()


@pytest.mark.process
def test_a_deal_the_referee_corrected_says_so_on_an_individual_events_sheet(tmp_path):
    """An individual round's deals could not be corrected at all; now one is, and the
    scorer's sheet marks it and gives the round's totals as corrected."""
    d = an_individual_event(tmp_path, 4)
    codes = d.store.open_codes(d.clock())
    d.start_round(0)
    link = join(tmp_path / "k1", 1, "http://testserver", codes[1], RULESETS,
                TestClient(create_app(d)))
    totals: dict[str, int] = {}

    def correct_the_first(session) -> None:
        if len(session.state.played) == 3:
            record = session.export()["deals"][0]
            session.unlock("2468")  # (the simulated referee's PIN)
            session.correct_hand(1, {"points": (record["points"] + 40) % 200}, "recount")
            totals.update(session.state.played[-1].result.totals)

    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 4, 3, 1e9, io.StringIO(),
                    after_hand=correct_the_first).close()
    sheet = printing.html(d, "sheets", "zh-Hans", round_no=1, table=1)
    rows = re.findall(r'<tr><td class="num">(\d+)</td>(.*?)</tr>', sheet, re.S)
    marked = [deal for deal, row in rows if "裁判已更正" in row]
    assert marked == ["1"], rows
    state = d.match_state(1, 1)
    assert state is not None and [p.corrected for p in state.played[:3]] == [True, False,
                                                                             False]
    assert state.played[2].result.totals == totals  # the scorer folded the correction too
    d.store.close()


@pytest.mark.unit
def test_the_overview_does_not_send_the_head_referee_to_a_draft_that_cannot_be_made(tmp_path):
    """With a player withdrawn, 概览 said 「编排第 2 轮」 where the rounds page refused to
    draft (a head referee's review): it says why, and what to do."""
    from kiosk.scorer.web.admin.overview import next_step

    d = an_individual_event(tmp_path, 7)
    assert next_step(d) == ("admin.error.groups_of_four", {"players": 7})
    d.store.close()
