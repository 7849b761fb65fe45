"""A whole tournament through the real sync path: the scorer in its own process on loopback,
the head referee's admin commands, and eight simulated kiosks pairing, playing the rounds the
scorer assigns and sending their journals. The scorer's standings must equal a recomputation
from the kiosks' exported journals (the rules core's replay) plus the rulings."""

from __future__ import annotations

import io
import json
import re

import pytest

from kiosk.rules import Rulesets, replay
from kiosk.scorer.tournament.core import Result, Team, standings
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join
from kiosk.table.journal import Journal, table_path
from kiosk.table.state import MatchState

from .helpers import ScorerProcess, fetch, kiosk

UNITS = ("厦门大学", "集美", "鼓浪屿", "同安")


def roster_csv(teams: int) -> bytes:
    """A roster as a Chinese spreadsheet saves it: GBK, Chinese column names."""
    rows = ["编号,队名,单位,队员1,队员2"] + [
        f"t{i:02d},第{i}队,{UNITS[i % 4]},张{i},王{i}" for i in range(1, teams + 1)]
    return ("\n".join(rows) + "\n").encode("gbk")


def admin(data, *args):
    result = kiosk("scorer", "admin", "--data", str(data), *args, "--lang", "en")
    assert result.returncode == 0, result.stderr
    return result.stdout


def get(url):
    return json.loads(fetch(url))


def recompute(kiosk_dirs, matches, rulings, teams, rulesets):
    """Standings from the kiosks' journals exported as §9 records and replayed by the rules
    core, with the assignments and the head referee's rulings."""
    ruled = {(r["round"], r["table"]): r for r in rulings}
    results = []
    for m in matches:
        if m["decided_by"] == "bye":
            results.append(Result(m["round"], m["ns"], None, m["ns"], {m["ns"]: 3},
                                  {m["ns"]: 0}))
            continue
        sides = {"NS": m["ns"], "EW": m["ew"]}
        ruling = ruled.get((m["round"], m["table"]))
        if ruling:
            winner = "EW" if ruling["loser"] == "NS" else "NS"
            net = ruling["net"]
        else:
            journal = Journal.reader(table_path(kiosk_dirs[m["table"]], m["table"]))
            state = MatchState(rulesets)
            for event in journal.events(str(m["round"])):
                state.apply(event)
            journal.close()
            last = list(replay(state.export(), rulesets))[-1]
            winner, net = last["winner"], last["net_levels"][last["winner"]]
        loser = "EW" if winner == "NS" else "NS"
        results.append(Result(m["round"], m["ns"], m["ew"], sides[winner],
                              {sides[winner]: 3, sides[loser]: 0},
                              {sides[winner]: net, sides[loser]: -net}))
    table = standings([Team(t) for t in teams], results)
    return [(s.rank, s.team, s.points, s.net) for s in table]


@pytest.mark.process
@pytest.mark.timeout(600)
def test_a_16_team_swiss_event_on_8_tables_matches_a_recomputation(tmp_path):
    rulesets = Rulesets.load([])
    data = tmp_path / "scorer"
    admin(data, "event", "--name", "厦门杯", "--ruleset", "xiamen-2015", "--seed", "7")
    (tmp_path / "teams.csv").write_bytes(roster_csv(16))
    assert admin(data, "teams", str(tmp_path / "teams.csv")).startswith("16 teams imported: ")
    codes = dict(line.split(": pairing code ") for line in
                 admin(data, "tables", "8").splitlines())
    dirs = {t: tmp_path / f"kiosk-{t}" for t in range(1, 9)}
    with ScorerProcess(data) as scorer:
        links = {t: join(dirs[t], t, scorer.url, codes[f"table {t}"], rulesets)
                 for t in dirs}
        for round_no in range(1, 6):
            if round_no == 5:  # a team withdraws: 15 teams, so one gets the bye
                admin(data, "withdraw", "t16", "--after-round", "4", "--yes")
            pairing = admin(data, "start-round", "--in", "0")
            assert pairing.startswith(f"round {round_no}")
            for table, link in links.items():
                if f"table {table}:" in pairing:
                    simulate_synced(dirs[table], table, rulesets, link, 1000,
                                    seed=round_no * 10 + table, speed=1e9,
                                    out=io.StringIO()).close()
            if round_no == 4:  # a protest upheld after the match: the head referee adjusts
                admin(data, "ruling", "--table", "3", "--kind", "adjusted", "--loser", "NS",
                      "--net", "2", "--reason", "申诉成立 appeal upheld")
        shown = get(scorer.url + "/api/standings")
        exported = get(scorer.url + "/api/export/results.json")
        tables = get(scorer.url + "/api/tables")
    assert all(t["phase"] == "over" for t in tables if t["round"] == 5)
    assert len(exported["matches"]) == 4 * 8 + 7 + 1  # round 5: 7 tables and a bye
    assert next(m for m in exported["matches"] if m["decided_by"] == "bye")["round"] == 5
    assert exported["rulings"][0]["reason"] == "申诉成立 appeal upheld"
    expected = recompute(dirs, exported["matches"], exported["rulings"],
                         [f"t{i:02d}" for i in range(1, 17)], rulesets)
    assert [(s["rank"], s["team"], s["points"], s["net"]) for s in shown] == expected
    assert sum(s["played"] for s in shown) == 2 * (4 * 8 + 7)
    met = [frozenset((m["ns"], m["ew"])) for m in exported["matches"] if m["ew"]]
    assert len(met) == len(set(met))  # no rematches in five rounds of sixteen teams


@pytest.mark.sim
@pytest.mark.timeout(600)
def test_a_groups_and_knockout_event_plays_to_its_places(tmp_path):
    """chaodipi-2011 with 24 teams: 8 groups of 3 play round robins, level group leaders play
    off, the 8 group winners play the knockout: places 1, 2, 3= ×2, 4= ×4."""
    from starlette.testclient import TestClient

    from kiosk.errors import AdminError
    from kiosk.scorer.director import Director
    from kiosk.scorer.store.database import Store
    from kiosk.scorer.tournament.core import group_table
    from kiosk.scorer.tournament.formats import draw_into_groups
    from kiosk.scorer.web.app import create_app

    rulesets = Rulesets.load([])
    director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), rulesets)
    director.create_event("炒地皮杯", "chaodipi-2011", seed=3)
    director.import_teams(("name\n" + "\n".join(f"队{i}" for i in range(1, 25))).encode())
    codes = director.add_tables(12)
    client = TestClient(create_app(director))
    links = {t: join(tmp_path / f"k{t}", t, "http://testserver", c, rulesets, client)
             for t, c in codes.items()}
    while True:
        try:
            round_no = director.start_round(0)
        except AdminError as exc:
            assert exc.key == "admin.error.knockout_decided"
            break
        for table, _, _ in director.assignments(round_no):
            simulate_synced(tmp_path / f"k{table}", table, rulesets, links[table], 1000,
                            round_no * 10 + table, 1e9, io.StringIO()).close()
    stages = director.stages()
    assert stages[:3] == ["group"] * 3 and stages[-3:] == ["quarter-final", "semi-final",
                                                           "final"]
    assert set(stages[3:-3]) <= {"playoff"}
    places = [(s.rank, s.tied) for s in director.standings() if s.group == "KO"]
    assert places == [(1, False), (2, False), (3, True), (3, True)] + [(4, True)] * 4
    results = director.results()
    final = next(r for r in results if r.round == len(stages))
    assert director.standings()[0].team == final.winner
    # Each group's winner is the top of its round-robin table, or won the playoff for it.
    winners = {s.team for s in director.standings() if s.group == "KO"}
    teams = [t.id for t in director.teams()]
    group_rounds = [r for r in results if stages[r.round - 1] == "group"]
    for group in draw_into_groups(teams, 8, 3):
        (winner,) = set(group) & winners
        table = group_table(group, [r for r in group_rounds if r.a in group and r.b in group])
        assert winner in {s.team for s in table if s.points == table[0].points}
        assert len(group) == 3 and len(table) == 3


@pytest.mark.sim
@pytest.mark.timeout(600)
def test_an_individual_event_forms_its_prize_finals_from_the_prelims(tmp_path):
    """shuangsheng-2011 with 12 players: three prelim groups of 4 drawn, then the prize-final
    groups formed from the prelim totals as the kiosks' exported journals replay them."""
    from starlette.testclient import TestClient

    from kiosk.errors import AdminError
    from kiosk.rules import form_prize_finals
    from kiosk.scorer.director import Director
    from kiosk.scorer.store.database import Store
    from kiosk.scorer.web.app import create_app

    rulesets = Rulesets.load([])
    director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), rulesets)
    director.create_event("双升个人赛", "shuangsheng-2011", seed=3)
    director.import_teams(("选手,单位\n" + "\n".join(f"选手{i},厦门" for i in range(1, 13))
                           ).encode("gbk"))
    codes = director.add_tables(3)
    client = TestClient(create_app(director))
    links = {t: join(tmp_path / f"k{t}", t, "http://testserver", c, rulesets, client)
             for t, c in codes.items()}

    def play(round_no):
        for table in director.seats(round_no):
            simulate_synced(tmp_path / f"k{table}", table, rulesets, links[table], 1000,
                            round_no * 10 + table, 1e9, io.StringIO()).close()

    def replayed_totals(round_no):
        """Each group's totals by player id, from the kiosk journal's §9 export replayed."""
        out = []
        for table, seats in director.seats(round_no).items():
            journal = Journal.reader(table_path(tmp_path / f"k{table}", table))
            state = MatchState(rulesets)
            for event in journal.events(str(round_no)):
                state.apply(event)
            journal.close()
            last = list(replay(state.export(), rulesets))[-1]
            out.append({seats[letter]: total for letter, total in last["totals"].items()})
        return out

    director.start_round(0)
    assert sorted(p for s in director.seats(1).values() for p in s.values()) == \
        sorted(t.id for t in director.teams())
    with pytest.raises(AdminError, match="still being played"):
        director.start_round(0)
    play(1)
    prelims = replayed_totals(1)
    assert [s.points for s in director.standings()] == sorted(
        (t for g in prelims for t in g.values()), reverse=True)
    # a draft of the finals moved away from the rules' groups is warned of, player by
    # player (a swap of two tables changes who plays for which prize: group N is table N)
    director.make_draft()
    groups = director.current_draft().plan.groups

    def moved():
        return sorted((w.params["rule"], w.table) for w in director.draft_warnings(
            director.current_draft()) if w.key == "admin.warn.final_group")

    director.swap_teams(groups[0][1], groups[2][1])
    assert moved() == [(1, 3), (3, 1)]
    from .test_scorer_admin import logged_in

    admin, _ = logged_in(director)  # the draft's page says it at each table (it said none)
    page = admin.get("/admin/rounds").text
    assert page.count("按规则在决赛第 1 组，草稿中在第 3 组") == 1
    assert 'data-show="warned"' in page and "有提醒的桌 <b>2</b>" in page
    director.swap_teams(groups[0][1], groups[2][1])
    director.swap_tables(1, 3)
    assert moved() == [(1, 3)] * 4 + [(3, 1)] * 4
    director.swap_tables(1, 3)
    assert moved() == []
    director.start_round(0)
    expected = form_prize_finals([sorted(g.items(), key=lambda p: -p[1]) for g in prelims])
    assert [tuple(s.values()) for s in director.seats(2).values()] == list(expected.groups)
    play(2)
    finals = replayed_totals(2)
    table = director.standings()
    assert [s.prize for s in table] == [1] * 4 + [2] * 4 + [3] * 4
    # places across the field, each group's first at 1, 5, 9 (not 「F11」…「F312」)
    assert [s.rank for s in table][::4] == [1, 5, 9] and not any(s.group for s in table)
    first = finals[0]
    assert table[0].team in expected.groups[0] and table[0].points == max(first.values())
    # a tie in the final standings is the head referee's to order (rules.md §8): on the
    # standings page, each tied player's 「排在同分者之前」, and a wrong one taken back
    tied = [s.team for s in table if s.tied and s.prize == 1]
    assert len(tied) == 2  # (this event's second place: two players on 84)
    from kiosk.scorer.web.admin.overview import next_step

    assert next_step(director) == ("admin.next.order_ties", {})  # (before closing)
    page = admin.get("/admin/standings").text
    assert "排在同分者之前" in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    second = tied[1]
    answer = admin.post("/admin/order-tie", data={"csrf": csrf, "player": second})
    assert answer.status_code == 303
    after = {s.team: s for s in director.standings()}
    assert (after[second].rank, after[second].tied) == (2, False)
    assert (after[tied[0]].rank, after[tied[0]].tied) == (3, False)
    assert "裁判长裁定" in admin.get("/admin/standings").text
    from kiosk.scorer.printing.templating import words

    assert any("排在同分选手之前" in e.text(words("zh-Hans")) for e in director.audit_log())
    admin.post("/admin/order-tie", data={"csrf": csrf, "player": second, "undo": "1"})
    assert [s.tied for s in director.standings() if s.team in tied] == [True, True]
    with pytest.raises(AdminError, match="shares no place"):
        director.order_tie(table[0].team)
    # the standings say their big points are the finals' (a fifth place above a fourth's
    # total read as a mistake), and the finals' printed seats have no sides
    from kiosk.scorer.printing import pages as printing

    note = "大分一栏只计决赛"
    assert note in printing.html(director, "standings", "zh-Hans")
    assert note not in printing.html(director, "standings", "zh-Hans").split("</table>")[0]
    seats = printing.html(director, "pairings-table", "zh-Hans", round_no=2)
    seats = seats[seats.index("<body"):]  # (the style names 南北 in a comment)
    assert "第 2 轮座位表（按桌号）" in seats and "本桌选手" in seats and "南北" not in seats
    assert re.findall(r'<td class="no">(\d)</td><td colspan="2"><span class="mark">([^<]+)<',
                      seats) == [(str(n), f"决赛第 {n} 组") for n in (1, 2, 3)]
    with pytest.raises(AdminError, match="All 2 rounds"):
        director.start_round(0)
    with pytest.raises(AdminError, match="no match results to rule on"):
        director.record_ruling(1, "forfeit", "NS", "x", confirm=True)
