"""The head referee's operations (the `Director` facade the console and the CLI share): teams,
late entries and withdrawals; the private draft, swaps, publication, undo and the start; byes
and side balance; rulings on any round, listed and removed; closing and reopening; the hall's
round clock and a kiosk following its pause; the audit log of all of it."""

from __future__ import annotations

import io
import json
import time
from collections import Counter

import pytest
from starlette.testclient import TestClient

from kiosk.errors import AdminError, NeedsConfirmation
from kiosk.hw.door import Door
from kiosk.hw.runner import TableRunner
from kiosk.i18n import explain, render, translator
from kiosk.protocol.wire import event_hash
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director, views
from kiosk.scorer.hall import snapshot as hall
from kiosk.scorer.printing import exports
from kiosk.scorer.printing import pages as printing
from kiosk.scorer.printing.templating import clock_text
from kiosk.scorer.store.database import MISSES, Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join
from kiosk.sync.outbox import Outbox
from kiosk.sync.wiring import connect
from kiosk.table.clock import SystemClock
from kiosk.table.journal import Journal, table_path
from kiosk.table.session import TableSession

from . import hall_events

pytestmark = pytest.mark.unit

RULESETS = Rulesets.load([])
UNITS = ("厦大", "集美", "同安")


def roster(count: int, start: int = 1, ids: bool = True) -> bytes:
    head = "编号,队伍名称,单位\n" if ids else "队伍名称,单位\n"
    rows = [(f"t{i:02d}," if ids else "") + f"第{i}队,{UNITS[i % 3]}"
            for i in range(start, start + count)]
    return (head + "\n".join(rows) + "\n").encode()


@pytest.fixture
def director(tmp_path):
    now = [1_800_000_000.0]
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS, clock=lambda: now[0])
    d.now = now  # the test moves time on
    d.create_event("厦门杯", "xiamen-2015", seed=11, by="陈")
    yield d
    d.store.close()


def finish(d: Director, round_no: int, loser: str = "EW") -> None:
    """Every match of the round decided by a ruling (no kiosks needed)."""
    for table, _, _ in d.assignments(round_no):
        if d.ruling_for(round_no, table) is None:
            d.record_ruling(table, "forfeit", loser, "测试", round_no, confirm=True)


def play_round(d: Director, loser: str = "EW") -> int:
    round_no = d.start_round(0)
    finish(d, round_no, loser)
    return round_no


def refused(key: str, call, *args, **kw) -> AdminError:
    with pytest.raises(AdminError) as caught:
        call(*args, **kw)
    assert caught.value.key == key, caught.value.key
    return caught.value


# ---- teams ------------------------------------------------------------------------------------


def test_duplicate_names_are_refused_unless_confirmed_and_a_second_file_gets_new_ids(director):
    d = director
    d.import_teams(roster(4))
    twice = roster(2, ids=False).replace("第2队".encode(), "第1队".encode())
    asked = refused("admin.confirm.duplicate_names", d.import_teams, twice)
    said = explain(asked, "zh-Hans")  # which team of the event has the name, and in a list
    # pasted as well as a file (a head referee's review: 「在文件里」 for a pasted list)
    assert isinstance(asked, NeedsConfirmation) and said.startswith(
        "以下队名与赛事中已有的队伍同名，或在这份名单里出现两次：")
    assert "第1队（名单第 2 行，与已有的 t01 同名）、" \
        "第1队（名单第 3 行，与已有的 t01 同名）" in said
    assert len(d.team_rows()) == 4  # nothing imported while it asks
    report = d.import_teams(twice, confirm=True)
    assert report.added == ("t05", "t06")  # a file without ids continues the series
    assert [r.name for r in d.team_rows()].count("第1队") == 3
    same = refused("admin.error.update_nothing", d.import_teams, roster(1, start=2))
    assert same.params["n"] == 1  # the same team again: nothing to update (issue 32)


def test_teams_are_added_edited_renamed_and_deleted_before_play(director):
    d = director
    d.import_teams(roster(4))
    team = d.add_team("海沧红狮", "海沧", ("甲", "乙"))
    assert team == "t05" and d.team("海沧红狮").players == ("甲", "乙")
    refused("admin.confirm.duplicate_name", d.add_team, "海沧红狮")
    d.edit_team("t05", "海沧红狮队", "海沧区", ("丙",))
    assert d.team("t05").name == "海沧红狮队" and d.team("t05").unit == "海沧区"
    refused("admin.confirm.delete_team", d.delete_team, "t05")
    d.delete_team("海沧红狮队", confirm=True)
    refused("admin.error.no_team", d.team, "t05")
    d.add_tables(2)
    d.start_round(0)
    refused("admin.error.delete_played", d.delete_team, "t01", confirm=True)
    d.edit_team("t01", "第一队", "厦大", ())  # a rename after play keeps the results (by id)
    assert render("admin.note.team_edited", {"team": d.label("t01")}, "zh-Hans") == \
        "已保存第一队（t01）。"
    assert render("admin.note.team_edited", {"team": d.label("t01")}, "en") == \
        "第一队 (t01) saved."


def test_a_late_entry_is_paired_from_the_next_round_and_scores_its_missed_rounds(director):
    d = director
    d.import_teams(roster(4))
    d.add_tables(3)
    play_round(d)
    refused("admin.error.missed_points_range", d.add_team, "迟到队", missed_points=4)
    late = d.add_team("迟到队", "湖里", missed_points=1)
    assert d.team(late).joined_round == 2
    round_no = d.start_round(0)
    assert round_no == 2
    paired = {x for _, a, b in d.assignments(2) for x in (a, b)} | set(d.byes(2))
    assert late in paired  # paired from the round after it entered
    finish(d, 2)
    standing = next(s for s in d.standings() if s.team == late)
    bye_or_win = 3 if late in d.byes(2) or any(late == a for _, a, _ in d.assignments(2)) else 0
    assert standing.points == 1 + bye_or_win  # round 1 missed: 1 big point, as chosen
    assert d.byes(1) == []


def test_withdrawing_a_team_in_an_unfinished_match_forfeits_it_and_reinstating_pairs_it(director):
    d = director
    d.import_teams(roster(6))
    d.add_tables(3)
    play_round(d)
    d.start_round(0)  # round 2 is being played
    table, ns, ew = d.assignments(2)[0]
    asked = refused("admin.confirm.withdraw_when", d.withdraw, ns)  # in a match: asks when
    assert [c.value for c in asked.choices] == ["next", "now"]
    now = asked.choices[1]  # (the kiosk's match ends for good: said before, as a ruling says)
    assert "该桌平板随即结束这场比赛，之后不能再继续" in render(now.key, now.params, "zh-Hans")
    refused("admin.confirm.withdraw", d.withdraw, ns, after_round=2)  # after this round
    asked = refused("admin.confirm.withdraw_forfeit", d.withdraw, ns, after_round=1)
    assert asked.params["table"] == table and d.label(ew) == asked.params["opponent"]
    d.withdraw(ns, after_round=1, confirm=True, by="陈")
    ruling = d.ruling_for(2, table)
    assert ruling is not None and ruling.kind == "forfeit" and ruling.loser == "NS"
    result = d.round_results(2)[table]
    assert result is not None and result.winner == ew  # the opponent is not left without a game
    finish(d, 2)
    d.make_draft()
    assert ns not in {x for p in d.current_draft().plan.pairs for x in p}
    assert d.team(ns).withdrawn_after == 1
    refused("admin.error.already_withdrawn", d.withdraw, ns, confirm=True)
    # Reinstated, it still lost the match it left: said before (a head referee's review), and
    # where to change it.
    asked = refused("admin.confirm.reinstate_forfeited", d.reinstate, ns)
    assert "它退赛时判负的第 2 轮比赛仍算判负" in explain(asked, "zh-Hans")
    d.reinstate(ns, confirm=True)
    assert d.current_draft() is None  # the field changed: the draft is drafted again
    d.make_draft()
    assert ns in {x for p in d.current_draft().plan.pairs for x in p}


def test_a_team_withdrawn_after_the_round_it_plays_can_leave_now_in_one_wording(director):
    """Issue 32: "after round 2" chosen while round 2 was played could not become "now"
    without reinstating the team first; and the standings PDF said 「第 1 轮后退赛」 where the
    phone said 「第 2 轮中途退赛」."""
    d = director
    d.import_teams(roster(6))
    d.add_tables(3)
    play_round(d)
    d.start_round(0)
    table, ns, ew = d.assignments(2)[0]
    d.withdraw(ns, after_round=2, confirm=True, by="陈")  # after this round
    assert d.withdrawal(ns) == ("after", 2)
    assert d.ruling_for(2, table) is None  # its match is still to be played
    asked = refused("admin.confirm.withdraw_forfeit", d.withdraw, ns, after_round=1)
    assert asked.params["opponent"] == d.label(ew)
    d.withdraw(ns, after_round=1, confirm=True, by="陈")  # now, not after reinstating
    assert d.ruling_for(2, table).loser == "NS"
    assert d.withdrawal(ns) == ("during", 2)
    said = refused("admin.error.already_withdrawn", d.withdraw, ns, after_round=1, confirm=True)
    assert explain(said, "zh-Hans") == \
        f"{d.team_names()[ns]}（{ns}）已经退赛（第 2 轮中途退赛（本场判负））。"
    row = next(s for s in views.standing_rows(d) if s.team == ns)
    assert row.withdrawal == ("during", 2)
    assert "第 2 轮中途退赛（本场判负）" in exports.standing_rows(d, "zh-Hans")[
        [s.team for s in views.standing_rows(d)].index(ns)][-1]


def test_a_forfeit_keeps_the_levels_of_the_moment_it_is_ruled_and_says_why_in_chinese(tmp_path):
    d = hall_events.hall(tmp_path, teams=4)
    d.start_round(0)
    tables = hall_events.Tables(d)
    table, ns, ew = d.assignments(1)[0]
    tables.post(table, hall_events.hand_ends(hall_events.recorded(1 + table % 4))[4])
    d.withdraw(ns, after_round=0, confirm=True, by="陈")  # five hands in, EW five levels up
    ruled = d.round_results(1)[table]
    assert ruled.winner == ew and ruled.net == {ew: 5, ns: -5}
    tables.finish(table)  # the table plays on to the end of the match all the same
    assert d.match_state(table, 1).winner() is not None
    assert d.round_results(1)[table] == ruled  # what was ruled stands
    ruling = d.ruling_for(1, table)
    assert ruling.reason == f"{d.team_names()[ns]}在第 1 轮中途退赛"
    (line,) = [e.text(translator("zh-Hans")) for e in d.audit_log()
               if e.action == "ruling.record"]
    assert "判负" in line and "forfeit" not in line
    assert "（净胜级 5）" in line  # the levels ruled, not the form's 0
    withdrawn = [e.text(translator("zh-Hans")) for e in d.audit_log()
                 if e.action.startswith("team.withdraw")]
    assert withdrawn == [f"{d.team_names()[ns]}（{ns}）在第 1 轮中途退赛（第 {table} 桌判负）"]


# ---- rounds ------------------------------------------------------------------------------------


def test_the_draft_is_private_until_published_and_can_be_swapped_and_undone(director):
    d = director
    d.import_teams(roster(6))
    d.add_tables(3)
    draft = d.make_draft(by="陈")
    snap = hall.snapshot(d, "http://x/")
    assert snap["pairings"] == [] and d.assignment(1) is None  # nobody sees the draft
    (a, b), (c, _) = draft.plan.pairs[0], draft.plan.pairs[1]
    d.swap_teams(b, c)
    assert d.current_draft().plan.pairs[0] == (a, c) and d.current_draft().edited
    d.swap_tables(1, 3)
    assert d.current_draft().plan.pairs[2] == (a, c)
    d.swap_sides(3)
    assert d.current_draft().plan.pairs[2] == (c, a)
    refused("admin.error.swap_tables", d.swap_tables, 1, 4)
    assert d.publish() == 1
    shown = hall.snapshot(d, "http://x/")
    assert shown["pairings_round"] == 1 and len(shown["pairings"]) == 3
    assert d.assignment(1) is None  # the kiosks get it when the round starts
    refused("admin.confirm.undo_round", d.undo_round)
    d.undo_round(confirm=True)
    assert d.current_round() == 0 and d.current_draft().plan.pairs[2] == (c, a)
    assert hall.snapshot(d, "http://x/")["pairings"] == []
    d.publish()
    d.start_clock(0, confirm=True)
    assert d.assignment(1)["teams"]["NS"] == d.team_names()[d.assignments(1)[0][1]]


def test_a_draft_swapped_back_as_drafted_is_no_longer_marked_edited(director):
    """「已手动调整」 stayed on a draft whose swap was swapped back (a head referee's review),
    and discarding it then asked before losing swaps there were none of. A round taken back
    that had been swapped stays marked when swapped back to its published pairs."""
    d = director
    d.import_teams(roster(6))
    d.add_tables(3)
    (_, b), (c, _) = d.make_draft(by="陈").plan.pairs[:2]
    d.swap_teams(b, c)
    assert d.current_draft().edited
    d.swap_teams(b, c)
    assert not d.current_draft().edited
    d.discard_draft()  # nothing to lose: not asked
    d.make_draft()
    d.swap_sides(1)
    d.publish()
    d.undo_round(confirm=True)  # the swapped round taken back
    d.swap_sides(2)
    d.swap_sides(2)
    assert d.current_draft().edited  # (as published: swapped by hand)
    refused("admin.confirm.discard", d.discard_draft)


def test_a_bye_counts_once_its_round_began_not_when_it_is_published(director):
    """A published round's bye stood in the standings at once with a win's points, while its
    round had not begun and no other team had played (a head referee's review)."""
    d = director
    d.import_teams(roster(5))
    d.add_tables(2)
    d.make_draft()
    d.publish()
    bye = d.byes(1)[0]
    assert next(s for s in d.standings() if s.team == bye).points == 0
    d.start_round(0)
    assert next(s for s in d.standings() if s.team == bye).points == d.bye_points() == 3


def test_swaps_warn_of_rematches_and_units_and_a_round_played_at_a_table_stays(director):
    d = director
    d.import_teams(roster(6))
    d.add_tables(3)
    play_round(d)
    draft = d.make_draft()
    assert d.draft_warnings(draft) == []  # the matcher avoids both
    first = d.assignments(1)[0]
    (a, b), (c, e) = draft.plan.pairs[0], draft.plan.pairs[1]
    # put round 1's first pair together again
    x, y = first[1], first[2]
    partner = next(p for p in (a, b, c, e) if p != x and frozenset((p, x)) in
                   {frozenset(p_) for p_ in d.current_draft().plan.pairs})
    d.swap_teams(partner, y)
    keys = {w.key for w in d.draft_warnings(d.current_draft())}
    assert "admin.warn.rematch" in keys
    d.make_draft(confirm=True)  # drafting again drops the hand edits (asked first)
    d.publish()
    d.start_clock(0, confirm=True)
    prev, events = "", []
    for seq, (kind, data) in enumerate((("setup", {**d.assignment(1), "table": 1}),
                                        ("dealer", {"seat": "N"}), ("bury-start", {})), 1):
        events.append({"prev": prev, "device": "kiosk-1", "seq": seq, "match": "2",
                       "kind": kind, "data": data, "mono": float(seq), "wall": d.clock(),
                       "actor": "referee"})
        prev = event_hash(events[-1])
    d.store.ingest(1, events[:2], d.clock())  # set up, the dealer known: no card played yet
    refused("admin.confirm.undo_started", d.undo_round)
    d.store.ingest(1, events[2:], d.clock())  # the bury has begun: play has begun
    error = refused("admin.error.undo_played", d.undo_round, confirm=True)
    assert "第 1 桌已经开始打牌" in explain(error, "zh-Hans")


def test_a_bye_is_shown_everywhere_and_scores_what_the_event_says(director, tmp_path):
    d = director
    d.import_teams(roster(5))
    d.add_tables(2)
    assert d.bye_points() == 3  # the seed's full win by default
    refused("admin.error.bye_points_range", d.set_bye_points, 4)
    d.set_bye_points(2, by="陈")
    draft = d.make_draft()
    (bye,) = draft.plan.byes
    d.publish()
    snap = hall.snapshot(d, "http://x/")
    assert snap["byes"] == [{"team": bye, "name": d.team_names()[bye], "tells": {},
                             "points": 2}]
    d.start_clock(0, confirm=True)
    finish(d, 1)
    assert next(s for s in d.standings() if s.team == bye).points == 2
    # a bye has been played: a change says whose standings it changes, and asks first
    asked = refused("admin.confirm.bye_points", d.set_bye_points, 3)
    assert asked.params["byes"] == 1 and d.team_names()[bye] in explain(asked, "zh-Hans")
    assert next(s for s in d.standings() if s.team == bye).points == 2  # nothing changed
    d.set_bye_points(3, confirm=True, by="陈")
    assert next(s for s in d.standings() if s.team == bye).points == 3
    # closed: the final standings are frozen, the bye's points with them
    d.close_event(confirm=True, by="陈")
    refused("admin.error.closed", d.set_bye_points, 0, confirm=True)
    assert next(s for s in d.standings() if s.team == bye).points == 3


def test_sides_alternate_over_five_rounds(director):
    """Side balance is a preference after the others: over five rounds of eight teams no
    team sits one side more than once more than the other (today's main sat a team NS once
    and EW four times)."""
    d = director
    d.import_teams(roster(8))
    d.add_tables(4)
    for round_no in range(1, 6):
        play_round(d, loser="EW" if round_no % 2 else "NS")
    sides = d.sides_so_far()
    assert all(abs(c["NS"] - c["EW"]) <= 1 for c in sides.values()), sides
    met = Counter(frozenset((a, b)) for r in range(1, 6) for _, a, b in d.assignments(r))
    assert max(met.values()) == 1  # still no rematch


def test_fewer_tables_than_the_round_uses_are_refused(director):
    d = director
    d.import_teams(roster(8))
    d.add_tables(4)
    d.start_round(0)
    error = refused("admin.error.tables_in_use", d.add_tables, 3)
    assert error.params == {"count": 3, "used": 4}
    assert d.table_count() == 4


# ---- rulings, closing ------------------------------------------------------------------------


def test_rulings_on_an_earlier_round_are_listed_removed_with_a_reason_and_audited(director):
    d = director
    d.import_teams(roster(4))
    d.add_tables(2)
    play_round(d)
    play_round(d)
    before = {s.team: s.points for s in d.standings()}
    refused("admin.error.ruled_already", d.record_ruling, 1, "adjusted", "NS", "申诉", 1, 2)
    first = d.ruling_for(1, 1)
    d.remove_ruling(first.id, "申诉成立", confirm=True, by="陈")
    # xiamen: a match gives at most 11 net levels (2 against A: the levels strictly between)
    too_many = refused("admin.error.net_range", d.record_ruling, 1, "adjusted", "NS", "申诉",
                       round_no=1, net=12)
    assert too_many.params["most"] == 11
    ruling = d.record_ruling(1, "adjusted", "NS", "申诉成立，改判", round_no=1, net=2, by="陈",
                            confirm=True)
    assert ruling.by == "陈" and ruling.at == d.clock() and ruling.round == 1
    _, ns, ew = d.assignments(1)[0]
    after = {s.team: s.points for s in d.standings()}
    assert after[ns] == before[ns] - 3 and after[ew] == before[ew] + 3
    refused("admin.confirm.remove_ruling", d.remove_ruling, ruling.id, "撤销")
    refused("admin.error.removal_reason", d.remove_ruling, ruling.id, "  ")
    d.remove_ruling(ruling.id, "录入错误", confirm=True, by="陈")
    listed = d.rulings(removed=True)
    assert [r.removed_reason for r in listed if r.removed_at] == ["申诉成立", "录入错误"]
    assert d.round_results(1)[1] is None  # no table result, no ruling: open again
    actions = [e.action for e in d.audit_log()]
    assert actions.count("ruling.record") == 5 and actions.count("ruling.remove") == 2
    assert all(e.who == "陈" for e in d.audit_log() if e.action == "ruling.remove")


def a_kiosk_three_hands_in(tmp_path, ruleset: str = "xiamen-2015", hands: int = 3):
    """One table, its kiosk paired (over the app, in process) and three hands (`hands`: at
    most as many) into round 1's match: the director, and the kiosk's link to play on."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", ruleset, seed=11)
    d.import_teams(roster(2))
    codes = d.add_tables(1)
    d.start_round(0)
    link = join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS,
                TestClient(create_app(d)))
    simulate_synced(tmp_path / "k", 1, RULESETS, link, hands, 6, 1e9, io.StringIO()).close()
    return d, link


def test_an_adjusted_result_on_a_match_the_table_plays_on_is_confirmed_first(tmp_path):
    """An adjusted result changes only the scores: a table that has not ended its match plays
    on and prints its own slip. The head referee is told so before it is recorded, with the
    rulings that do stop the table (a director's review, 2026-12-06); a match the table ended
    is ruled without the question. A forfeit asks too: the table stops at once, for good, and
    taking the ruling back does not let it play on (a head referee's review: it was recorded
    at one click, the side to lose chosen already)."""
    d, link = a_kiosk_three_hands_in(tmp_path)
    assert d.match_state(1, 1).winner() is None  # the match in play
    with pytest.raises(NeedsConfirmation) as asked:
        d.record_ruling(1, "adjusted", "NS", "申诉成立", 1, 2)
    said = explain(asked.value, "zh-Hans")
    assert "第 1 轮第 1 桌" in said and "平板不会停下" in said and "“判负”" in said
    assert d.ruling_for(1, 1) is None  # nothing recorded
    adjusted = d.record_ruling(1, "adjusted", "NS", "申诉成立", 1, 2, confirm=True)
    d.remove_ruling(adjusted.id, "改为判负", confirm=True)
    with pytest.raises(NeedsConfirmation) as asked:
        d.record_ruling(1, "forfeit", "EW", "退赛", 1)
    said = explain(asked.value, "zh-Hans")
    assert "该桌平板立即结束比赛" in said and "撤销这一裁决也不能让比赛继续" in said
    assert "判负" in said and d.ruling_for(1, 1) is None
    forfeit = d.record_ruling(1, "forfeit", "EW", "退赛", 1, confirm=True)
    simulate_synced(tmp_path / "k", 1, RULESETS, link, 4, 6, 1e9, io.StringIO()).close()
    assert d.match_state(1, 1).phase == "over"  # the kiosk ended its match as ruled
    d.remove_ruling(forfeit.id, "改判", confirm=True)
    assert d.record_ruling(1, "adjusted", "EW", "改判", 1, 1).kind == "adjusted"
    d.store.close()


def test_taking_back_a_forfeit_the_table_ended_at_other_levels_says_the_scores_change(
        tmp_path):
    """The table finished a hand before the forfeit reached its kiosk (7:2 when ruled, 8:2
    when it ended): taking the ruling back gives the table's own net levels, and the question
    said 「撤销后成绩不变」 (a head referee's review). It says the result changes."""
    d, link = a_kiosk_three_hands_in(tmp_path)
    ruling = d.record_ruling(1, "forfeit", "EW", "退赛", 1, confirm=True)
    simulate_synced(tmp_path / "k", 1, RULESETS, link, 4, 6, 1e9, io.StringIO()).close()
    with d.store.db.atomic():  # as it stood when ruled: one hand fewer for NS
        d.store.db.execute("UPDATE rulings SET data = ? WHERE id = ?",
                           [json.dumps({"net": 0, "net_at_ruling": 5}), ruling.id])
    d._changed()
    assert d.round_results(1)[1].net[d.teams_at(1, 1)[0]] == 5
    with pytest.raises(NeedsConfirmation) as asked:
        d.remove_ruling(ruling.id, "理由写错")
    said = explain(asked.value, "zh-Hans")
    assert "撤销后成绩不变" not in said and "排名随之改变" in said
    d.remove_ruling(ruling.id, "理由写错", confirm=True)
    assert d.round_results(1)[1].net[d.teams_at(1, 1)[0]] == 6  # the table's own
    d.store.close()


def test_a_forfeit_the_tables_own_referee_recorded_is_said_so_everywhere(tmp_path):
    """The table's referee ended the match at the kiosk (东西弃权): the hall, the phones, the
    console, the score sheet and the results workbook said a plain win (a head referee's
    review). Each says it as a forfeit ruling of its kind is, with the table's reason."""
    d, link = a_kiosk_three_hands_in(tmp_path)
    session = simulate_synced(tmp_path / "k", 1, RULESETS, link, 3, 6, 1e9, io.StringIO())
    assert session.unlock(session.config.pin)
    session.end_match("EW", "forfeit", "擅自离开赛场")
    Outbox(table_path(tmp_path / "k", 1), link).flush(10)
    session.close()
    ns = d.teams_at(1, 1)[0]
    assert d.round_results(1)[1].winner == ns and d.ruling_for(1, 1) is None
    snap = hall.snapshot(d, "http://x/")
    row = next(r for r in snap["tables"] if r["table"] == 1)
    assert row["result"]["ruling"] == "forfeit"  # 「…胜（对方判负）」
    history = hall.team_views(snap, d)
    assert [h["ruling"] for h in history[ns]["history"]] == ["forfeit"]
    (match,) = views.round_rows(d, 1)
    assert (match.decided_by, match.reason) == ("forfeit", "擅自离开赛场")
    (line,) = exports.result_rows(d, "zh-Hans")
    assert line[-2:] == ["判负", "擅自离开赛场"]
    sheet = printing.html(d, "sheets", "zh-Hans", round_no=1, table=1)
    assert "本桌裁判：判负，东西负。理由：擅自离开赛场" in sheet
    d.store.close()


def test_a_match_won_past_the_final_level_reads_so_wherever_its_levels_show(tmp_path):
    """A match won by moving past 10 from 10:10 read 「10 : 10 厦门大学队胜」 on the hall, the
    results page and the score sheet (a head referee's review); the slip said 「过10」."""
    d, _ = a_kiosk_three_hands_in(tmp_path, "standard-80fen", hands=200)  # (played out)
    state = d.match_state(1, 1)
    assert (state.levels(), state.winner(), state.past_final()) == (("10", "3"), "NS", "NS")
    (match,) = views.round_rows(d, 1)
    assert match.past == "NS"
    row = next(r for r in hall.snapshot(d, "http://x/")["tables"] if r["table"] == 1)
    assert (row["levels"], row["past"]) == ({"NS": "10", "EW": "3"}, "NS")  # (the page: 过10)
    sheet = printing.html(d, "sheets", "zh-Hans", round_no=1, table=1)
    assert "<td>过10</td><td>3</td>" in sheet  # 记胜负级, and the last hand's row
    from .test_scorer_admin import logged_in

    client, _ = logged_in(d)
    assert "过10 : 3" in client.get("/admin/results").text
    d.store.close()


def test_a_team_corrected_after_its_match_is_named_so_and_the_log_says_what_changed(tmp_path):
    """A team renamed, a player's name mended, after round 1: the text sheets still named the
    team and players as the table had them, and the log gave the new values alone, so which
    player was corrected could not be told (a head referee's review)."""
    d, _ = a_kiosk_three_hands_in(tmp_path)
    ns = d.teams_at(1, 1)[0]
    d.edit_team(ns, "厦门航空队", "厦门航空", ("汪洋", "范冰"), by="陈")
    d.edit_team(ns, "厦门航空队", "厦门航空", ("汪洋", "范冰冰"), by="陈")
    text = exports.sheets(d, "zh-Hans")
    assert "厦门航空队" in text and "范冰冰" in text
    said = [row[2] for row in exports.audit_rows(d, "zh-Hans")][-2:]
    assert said[1] == f"修改厦门航空队（{ns}）：队员 汪洋、范冰 → 汪洋、范冰冰"
    assert said[0].startswith("修改第") and "队名 第" in said[0] and "，单位 " in said[0]
    d.edit_team(ns, "厦门航空队", "厦门航空", ("汪洋", "范冰冰"), by="陈")
    assert exports.audit_rows(d, "zh-Hans")[-1][2] == f"修改厦门航空队（{ns}）：没有改动"
    d.store.close()


def test_a_forfeit_ruled_again_after_the_table_followed_it_keeps_its_net_levels(tmp_path):
    """A forfeit ruled in the middle of a match keeps the net levels as they stood; the
    table's kiosk follows it and ends its match so. Taken back and ruled again (its reason
    mistyped), it agrees with the table's own result and keeps those net levels: the
    tie-break does not change (it fell to 0, as for a match not begun)."""
    d, link = a_kiosk_three_hands_in(tmp_path)
    assert d.match_state(1, 1).levels() == ("10", "3")  # NS well ahead, the match in play
    first = d.record_ruling(1, "forfeit", "EW", "退赛", 1, confirm=True)
    ruled = d.round_results(1)[1]
    assert first.net_at_ruling == 6 and ruled.net[ruled.winner] == 6  # 4 … 9 between
    simulate_synced(tmp_path / "k", 1, RULESETS, link, 4, 6, 1e9, io.StringIO()).close()
    assert d.match_state(1, 1).winner() == "NS"  # the kiosk ended its match as ruled
    with pytest.raises(NeedsConfirmation) as asked:  # what taking it back changes: nothing
        d.remove_ruling(first.id, "理由写错")
    assert "撤销后成绩不变" in explain(asked.value, "zh-Hans")
    d.remove_ruling(first.id, "理由写错", confirm=True)
    assert d.round_results(1)[1] == ruled  # the table's own result: the same
    # the signed score sheet said 「本桌裁判：判负…理由：退赛」: nobody at the table ruled it
    sheet = printing.html(d, "sheets", "zh-Hans", round_no=1, table=1)
    assert "本场按裁判长的裁决结束：判负，东西负。该裁决已撤销（理由写错）；比赛已中止，" \
        "成绩仍按此计。" in sheet and "本桌裁判" not in sheet
    again = d.record_ruling(1, "forfeit", "EW", "中途退赛", 1, confirm=True)
    assert again.net_at_ruling == 6 and d.round_results(1)[1] == ruled
    # the workbook's rulings say the net levels each gave (they said 0, the adjusted field)
    assert [row[6] for row in exports.ruling_rows(d, "zh-Hans")] == [6, 6]
    d.store.close()


def test_closing_asks_freezes_the_results_and_reopening_needs_a_reason(director):
    d = director
    d.import_teams(roster(4))
    d.add_tables(2)
    play_round(d)
    refused("admin.confirm.close_early", d.close_event)  # (round 1 of 5: says so, issue 32)
    d.close_event(confirm=True, by="陈")
    frozen = [(s.team, s.points) for s in d.standings()]
    first = d.ruling_for(1, 1)
    refused("admin.error.closed", d.record_ruling, 2, "adjusted", "NS", "x", 1, 1)
    refused("admin.error.closed", d.remove_ruling, first.id, "x", confirm=True)
    d.store.db.execute("UPDATE rulings SET loser = 'NS'")  # what a late change would do
    assert [(s.team, s.points) for s in d.standings()] == frozen  # frozen: nothing moves
    refused("admin.error.reopen_reason", d.reopen_event, " ")
    d.reopen_event("迟到的申诉", by="陈")
    assert [(s.team, s.points) for s in d.standings()] != frozen  # live again
    assert [e.action for e in d.audit_log()][-2:] == ["event.close", "event.reopen"]
    assert d.audit_log()[-1].params == {"reason": "迟到的申诉"}


def test_a_table_whose_code_was_voided_gets_a_new_one_from_the_tables_page(director):
    d = director
    d.now[0] = time.time()  # codes are issued at the store's time
    codes = d.add_tables(2)
    for _ in range(MISSES):  # someone on the Wi-Fi guessed wrong for table 2
        d.store.miss_code(codes[2])
    d.store.pair(1, codes[1], "kiosk-1", d.clock())
    d.set_password("the-head-referee-47")
    console = TestClient(create_app(d), follow_redirects=False)
    console.post("/admin/login", data={"password": "the-head-referee-47", "who": "陈"})
    page = console.get("/admin/tables").text
    row = page.split('data-table="2"')[1].split("</tr>")[0]
    assert "有人用错误的码尝试配对，此码已作废" in row and "发新码" in row
    csrf = page.split('name="csrf" value="')[1].split('"')[0]
    answer = console.post("/admin/new-code", data={"csrf": csrf, "table": "2"})
    assert answer.status_code == 303
    (new,) = [c for t, c in d.store.open_codes(d.clock()).items() if t == 2]
    assert new != codes[2] and new in console.get(answer.headers["location"]).text
    refused("admin.error.table_paired", d.new_code, 1)  # a paired table changes kiosk instead
    refused("admin.error.no_table", d.new_code, 3)
    assert "给第 2 桌发了新配对码" in [e.text(translator("zh-Hans")) for e in d.audit_log()]


# ---- the round clock ---------------------------------------------------------------------------


def test_the_round_clock_pauses_extends_stops_and_ends_with_the_round(director):
    d = director
    d.import_teams(roster(4))
    d.add_tables(2)
    d.start_round(0)
    start = d.round_start(1)
    clock = d.round_clock()
    assert clock["state"] == "running" and clock["ends_at"] == start + 90 * 60
    d.set_password("the-head-referee-47")
    console = TestClient(create_app(d), follow_redirects=False)
    console.post("/admin/login", data={"password": "the-head-referee-47", "who": "陈"})

    def clock_line() -> str:
        page = console.get("/admin/rounds").text
        return " ".join(page.split('class="clock-line">')[1].split("<")[0].split())

    d.now[0] += 600
    assert clock_line() == f"本轮剩余 1:20:00（{clock_text(start + 90 * 60)} 时间到）"
    d.pause_clock(by="陈")
    assert d.round_clock()["state"] == "paused" and d.assignment(1)["hall_clock"]["paused"]
    refused("admin.error.clock_paused", d.pause_clock)
    d.now[0] += 120
    # a kiosk setting up late counts the hall's running time: the pause so far left out
    assert d.assignment(1)["hall_clock"]["paused_seconds"] == 120
    assert clock_line() == "全场暂停中：本轮剩余 1:20:00，继续后接着计时"  # held while paused
    # The overview and every tab's header say it too (they said 第 1 轮比赛中 and 进行中).
    overview = console.get("/admin").text
    assert "第 1 轮全场暂停中：所有比赛计时已停止。要继续比赛，请到“轮次编排”页点“全场继续”。" \
        in overview
    assert 'class="event-status status-paused">全场暂停<' in overview
    d.resume_clock()
    assert 'class="event-status status-running">进行中<' in console.get("/admin").text
    assert d.assignment(1)["hall_clock"]["paused_seconds"] == 120  # (the pause, over)
    d.extend_clock(5)
    assert d.round_clock()["ends_at"] == start + 90 * 60 + 120 + 300
    assert clock_line().startswith("本轮剩余 1:25:00（")
    refused("admin.error.extend_range", d.extend_clock, 0)
    refused("admin.confirm.stop_clock", d.stop_clock)
    d.stop_clock(confirm=True)
    assert d.round_clock()["state"] == "stopped" and d.assignment(2)["hall_clock"]["stopped"]
    assert clock_line() == f"已于 {clock_text(d.now[0])} 叫停 · 已加时 5 分钟"
    finish(d, 1)
    assert d.round_clock()["state"] == "over"  # it stops at the end of the round
    refused("admin.error.round_over", d.pause_clock)
    d.close_event(confirm=True)
    assert d.round_clock()["state"] == "closed"  # and of the event
    assert [e.action for e in d.audit_log() if e.action.startswith("clock.")] == [
        "clock.pause", "clock.resume", "clock.extend", "clock.stop"]
    extended = next(e for e in d.audit_log() if e.action == "clock.extend")
    assert "加时 5 分钟" in extended.text(translator("zh-Hans"))


class HallWithAKiosk:
    """A hall of one table (two teams, round 1 started) and its kiosk: the real session,
    runner and outbox, paired with the scorer's app through a test client."""

    def __init__(self, tmp_path) -> None:
        self.d = d = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), RULESETS)
        d.create_event("厦门杯", "xiamen-2015", seed=3)
        d.import_teams(roster(2))
        codes = d.add_tables(1)
        link = join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS,
                    TestClient(create_app(d)))
        d.start_round(0)
        self.session = TableSession.open(tmp_path / "k", 1, RULESETS, SystemClock())
        door = Door()
        self.runner = TableRunner(self.session, door)
        self.outbox = Outbox(table_path(tmp_path / "k", 1), link)
        connect(self.outbox, door, self.session.clock)
        self.journal = Journal.reader(table_path(tmp_path / "k", 1))  # the session writes it

    def cycle(self) -> None:
        """The kiosk syncs (and asks for its assignment), then does what the scorer said."""
        self.outbox.sync_once(self.journal)
        self.runner.step()
        time.sleep(0.01)
        self.outbox.sync_once(self.journal)
        self.runner.step()

    def close(self) -> None:
        self.journal.close()
        self.session.close()
        self.d.store.close()


@pytest.fixture
def hall_with_a_kiosk(tmp_path, monkeypatch):
    monkeypatch.setattr("kiosk.sync.outbox.ASK_EVERY", 0.0)  # ask at every pass, not every 5 s
    hall = HallWithAKiosk(tmp_path)
    yield hall
    hall.close()


def test_a_kiosk_pauses_and_resumes_with_the_hall(hall_with_a_kiosk):
    h, d, session = hall_with_a_kiosk, hall_with_a_kiosk.d, hall_with_a_kiosk.session
    h.cycle()
    assert session.state.match_started and not session.state.paused
    d.pause_clock()
    h.cycle()
    assert session.state.paused  # the whole hall stopped, this table too
    d.resume_clock()
    h.cycle()
    assert not session.state.paused
    session.pause_key()  # the table's referee pauses for a reason of their own
    d.pause_clock()
    h.cycle()
    d.resume_clock()
    h.cycle()
    assert session.state.paused  # the hall's resume leaves the referee's own pause alone


def test_a_team_withdrawn_in_the_middle_of_a_match_ends_it_at_the_table(hall_with_a_kiosk):
    h, d, session = hall_with_a_kiosk, hall_with_a_kiosk.d, hall_with_a_kiosk.session
    h.cycle()
    assert session.state.match_started and session.state.phase != "over"
    _, ns, ew = d.assignments(1)[0]
    d.withdraw(ns, after_round=0, confirm=True, by="陈")  # 南北 withdraws now: a forfeit
    h.cycle()
    assert session.state.phase == "over" and session.state.end["forfeit"] == "NS"
    assert session.state.end["reason"] == f"{d.team_names()[ns]}在第 1 轮中途退赛"
    ended = [e for e in h.journal.events() if e.kind == "match-end"]
    assert [(e.actor, e.data["loser"]) for e in ended] == [("scorer", "NS")]
    assert d.round_results(1)[1].winner == ew  # the table's record and the ruling agree
    h.cycle()  # asserted again at the next poll: nothing more is recorded
    assert len([e for e in h.journal.events() if e.kind == "match-end"]) == 1
