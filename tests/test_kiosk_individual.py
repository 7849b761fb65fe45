"""An individual event at the kiosk (shuangsheng-2011: each player for themselves, the partner
drawn by a turned card), as a referee found it at the real window: the dispute's question
named the sides in xiamen's words, and a card tapped wrong could not be taken back. Through
the real controller, runner, session and journal on an injected clock."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def a_deal_entered(table, card: str = "7") -> None:
    table.tap("setup:shuangsheng-2011", f"card:{card}", "trump:♠", "start_bury")
    table.press(table.state.clock.seat)
    table.play_out()
    table.enter(40)


def test_the_dispute_question_names_the_side_in_the_rulesets_words(table):
    a_deal_entered(table)
    labels = [b.label for b in table.screen.nav]
    assert "防守方\n有异议" in labels  # the button already said it so
    table.tap("dispute:defenders")
    assert table.screen.title == "防守方有异议？"  # (it said 旁家有异议？)


def test_a_card_tapped_wrong_is_chosen_again_before_the_bury(table):
    table.tap("setup:shuangsheng-2011")
    assert table.screen.lines == ("翻到王：庄家再翻下一张",)  # (no key for a joker: said why)
    table.tap("card:7")
    assert table.state.draft.partner_card == "7"
    screen = table.screen
    assert screen.name == "ready"
    assert [b.label for b in screen.nav if b.action == "partner_again"] == ["重选翻出的牌"]
    table.tap("partner_again")
    screen = table.screen
    assert screen.name == "ready.partner"
    assert [b.action for g in screen.grids for b in g.buttons if b.style == "selected"] == [
        "card:7"]  # the card as tapped, marked
    table.tap("partner_back")  # changed their mind: nothing recorded
    assert table.screen.name == "ready" and table.state.draft.partner_card == "7"
    table.tap("partner_again", "card:8")
    assert table.state.draft.partner_card == "8" and table.screen.name == "ready"
    table.tap("trump:♠", "start_bury")
    assert "partner_again" not in table.screen.actions()  # the bury begun: the referee's now


def test_the_chairs_say_who_sits_in_them_and_a_penalty_goes_to_that_player(table):
    """E deals and turns a 7: N is the partner and swaps chairs with W for the deal. The clock
    named the chairs, the entry the players (「北家超时」 at the clock, 「西 超时」 in the list),
    and 哪个座位犯规？ drew the chairs but took the tap as a player: a referee pointing at the
    offender's chair charged someone else (a referee at the real window)."""
    table.tap("setup:shuangsheng-2011", "card:7", "trump:♠", "start_bury")
    assert table.state.partner() == "N" and table.state.player_at("W") == "N"
    table.press(table.state.clock.seat)  # E buried: E leads
    table.press("E")
    assert table.state.clock.seat == "N"  # the north chair, where W sits this deal
    screen = table.screen
    boxes = {s.seat: s.label for s in screen.seats}
    assert (boxes["N"], boxes["W"], boxes["E"]) == ("西（坐北）", "北（坐西）", "东")
    assert screen.title.startswith("西（坐北） 出牌")
    table.clock.advance(8)  # over its 5 s
    table.press("N")
    assert table.screen.notice.text.startswith("西家超时 3")
    table.play_out()
    table.tap("end_play")
    if table.screen.name == "confirm":
        table.tap("ok")
    table.tap("e_points:40", "e_last:dealer", "e_add")
    pick = table.screen.grids[0].buttons
    top = pick[1]  # the grid is the table seen from above: north in the top middle
    assert (top.action, top.label) == ("e_pseat:W", "西（坐北）")


def test_the_sides_are_named_by_their_players_and_the_history_tots_up(table):
    """The sides were only 保庄方 and 防守方, with nobody named (the partner presses at the
    chair they moved to), and no screen said the big points so far (a referee at the real
    window)."""
    table.tap("setup:shuangsheng-2011", "card:7", "trump:♠", "start_bury")
    table.press(table.state.clock.seat)
    table.play_out()
    table.tap("end_play")
    if table.screen.name == "confirm":
        table.tap("ok")
    table.tap("e_points:40")
    labels = [b.label for g in table.screen.grids for b in g.buttons if b.action]
    assert labels == ["防守方 南、西（坐北）", "保庄方 东、北（坐西）"]
    table.tap("e_last:dealer", "e_finish")
    lines = table.screen.lines
    assert "保庄方 东、北（坐西）：请按座位键确认" in lines
    assert "防守方 南、西（坐北）：请按座位键确认" in lines
    table.press("E", "S")  # one of each side
    table.tap("history")
    # the deal's points under 得分, as on the slip: 总分 read as big points beside the totals
    assert table.screen.lines[0].split() == ["副", "庄", "对家", "打", "得分"]
    assert table.screen.lines[1].endswith("；累计：东 6  北 6  西 4  南 4")


def test_a_practice_match_keeps_no_team_names_in_an_individual_round(table):
    """The setup asks for 南北/东西 team names before the ruleset is chosen: in shuangsheng the
    partners change every deal, so a team's name typed there named nobody."""
    assert "个人赛不用队名" in table.screen.lines[0]
    table.ctl.ui.names = {"NS": "甲队", "EW": "乙队", "N": "王"}  # as typed on the keyboard
    table.tap("setup:shuangsheng-2011")
    assert table.runner.view.teams == {} and table.runner.view.players == {"N": "王"}


def deals_played(table, *points: int) -> None:
    """A shuangsheng round's first deals, each confirmed by all four (the first: E deals and
    turns a 7, so N partners E and sits in the west chair for it)."""
    table.tap("setup:shuangsheng-2011")
    for n in points:
        table.tap("card:7", "trump:♠", "start_bury")
        table.press(table.state.clock.seat)
        table.play_out()
        table.enter(n)
        table.press(*"NESW")


def test_a_confirmed_deal_is_corrected_and_its_big_points_said(table):
    """Corrections were for team matches only: a deal both sides confirmed with the points
    miscounted stood for the rest of the round (a referee at the real window)."""
    deals_played(table, 40, 120)
    table.tap("referee")
    table.pin()
    table.tap("r_correct")
    assert [b.label for g in table.screen.grids for b in g.buttons] == [
        "第1副\n东庄 40分", "第2副\n北庄 120分"]
    table.tap("r_correct:1", "e_points:80")
    sides = [b.label for g in table.screen.grids for b in g.buttons]
    assert sides == ["防守方 南、西", "保庄方 东、北"]  # deal 1's sides, not deal 3's
    table.tap("e_last:dealer", "e_add")
    grid = [(b.action, b.label) for g in table.screen.grids for b in g.buttons if b.action]
    # the deal is over and its chairs swapped back: each player where they sit
    assert grid == [("e_pseat:N", "北"), ("e_pseat:W", "西"), ("e_pseat:E", "东"),
                    ("e_pseat:S", "南")]
    table.tap("e_back")
    nav = [b.label for b in table.screen.nav if b.label]
    assert nav == ["返回", "下一步：核对结果", "放弃更正"]  # (an individual deal: no trump)
    table.tap("e_finish")
    assert table.screen.lines == (
        "得分：40 → 80", "东：本副大分 6 → 4，累计 14 → 12", "北：本副大分 6 → 4，累计 9 → 7",
        "西：本副大分 4 → 6，累计 7 → 9", "南：本副大分 4 → 6，累计 12 → 14")
    table.tap("r_save_correction")
    assert table.screen.notice.text == "第1副已更正"
    played = table.state.played
    assert [p.record["points"] for p in played] == [80, 120]
    assert [p.record["partner_card"] for p in played] == ["7", "7"]  # as played
    assert played[-1].result.totals == {"E": 12, "N": 7, "W": 9, "S": 14}
    assert [p.corrected for p in played] == [True, False]


def test_a_correction_that_changes_no_big_points_says_so(table):
    deals_played(table, 40)
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:45", "e_last:dealer", "e_finish")
    assert table.screen.lines == ("得分：40 → 45", "大分不变")


def test_the_slip_of_a_corrected_round_marks_the_deal_and_its_new_totals(table):
    deals_played(table, *[40] * 16)
    assert table.state.phase == "over"
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:2", "e_points:80", "e_last:dealer", "e_finish",
              "r_save_correction")
    slip = table.runner.slips["zh-Hans"].splitlines()
    marked = [i for i, line in enumerate(slip) if "裁判已更正" in line]
    rows = [i for i, line in enumerate(slip) if line.split()[:1] in (["2"], ["3"])]
    assert len(marked) == 1 and rows[0] < marked[0] < rows[1], slip
    totals = table.state.played[-1].result.totals
    assert next(line for line in slip if line.startswith("合计")).split()[1:] == [
        str(totals[p]) for p in "ENWS"], slip


def test_a_deal_corrected_while_the_next_awaits_its_confirmation_is_confirmed_again(table):
    deals_played(table, 40)
    table.tap("card:7", "start_bury")
    table.press(table.state.clock.seat)
    table.play_out()
    table.enter(120)
    table.press("N")  # one player has agreed to deal 2's result
    table.tap("referee")
    table.pin()
    table.tap("r_correct", "r_correct:1", "e_points:80", "e_last:dealer", "e_finish",
              "r_save_correction", "close")
    assert table.state.phase == "entry" and not table.state.draft.confirmed
    table.tap("e_finish")
    table.press(*"NESW")
    assert [p.record["points"] for p in table.state.played] == [80, 120]


def test_the_ready_screen_says_who_changes_chairs_before_the_bury(table):
    """The ready screen said only 「对家：北」: that the partner moves opposite the dealer
    first showed on the clock, once the bury had begun; and its strip's 「第1轮」 read as a
    trick beside the clock's 「第 2/25 轮」 (a referee's review)."""
    table.tap("setup:shuangsheng-2011", "card:7")  # E deals; a 7: N partners E, from W's chair
    assert table.screen.name == "ready" and "请北与西换座" in table.screen.lines
    # the strip's round is the match's, not a trick's (「第 2/25 轮」 on the clock)
    assert table.screen.strip[0].value == "第1轮比赛"
    table.tap("partner_again", "card:2")  # a 2: the one opposite, W, partners E
    assert "对家就坐在对面：不用换座" in table.screen.lines


def test_a_penalty_in_big_points_says_its_cost_before_and_after_it_is_chosen(table):
    """多牌少牌 found after the bury was offered as 「扣底后发现」 and listed as 「按大分判」:
    its cost appeared only folded into the deal's big points (a referee's review)."""
    table.tap("setup:shuangsheng-2011", "card:7", "start_bury")
    table.press(table.state.clock.seat)
    table.play_out()
    table.tap("end_play")
    if table.screen.name == "confirm":
        table.tap("ok")
    table.tap("e_points:40", "e_last:dealer", "e_add", "e_pseat:S", "e_pkind:card-count")
    options = [b.label for g in table.screen.grids for b in g.buttons if b.action]
    cost = "错方每人记-2大分，对方每人至少记2大分"
    assert f"扣底后发现：{cost}" in options
    table.tap(f"e_popt:{options.index(f'扣底后发现：{cost}')}")
    assert [r.text for r in table.screen.rows] == [f"南 多牌少牌 扣底后发现：{cost}"]
    table.tap("e_finish")
    table.press(*"NESW")
    table.tap("history")  # and the history keeps it with the deal (it left penalties out)
    assert f"南 多牌少牌 扣底后发现：{cost}" in "".join(table.screen.lines).replace("\n", "")


def test_time_up_ends_an_individual_round_on_the_deals_played(table):
    """Time up in an individual round asked the referee to rule a result that only a team
    match has, and play went on for the rest of the 16 deals (a head referee's review)."""
    deals_played(table, 40)
    table.tap("card:7", "start_bury")
    table.press(table.state.clock.seat)
    table.tap("referee")
    table.pin()
    table.tap("r_time_up")
    assert table.screen.lines == ("第 2 副打完计分后本轮结束，不再发新的一副。",)
    table.tap("ok")
    assert table.screen.lines == ("打完本副，本轮结束",)
    assert table.state.needs_ruling is None
    table.tap("time_up_ok")
    table.play_out()
    table.enter(60)
    table.press(*"NESW")
    assert table.state.phase == "over" and len(table.state.played) == 2
    assert table.runner.slips["zh-Hans"]  # the slip to sign, of the deals played


def test_time_up_between_two_deals_ends_the_round_at_once(table):
    """The question said 「正在打的一副打完计分」 with the next deal's card turned, and that
    deal was not played (a referee's review): it says the round ends now, on the deals
    played."""
    deals_played(table, 40, 45)
    table.tap("card:7")  # the third deal's partner named: not begun
    table.tap("referee")
    table.pin()
    table.tap("r_time_up")
    assert table.screen.lines == ("本轮现在结束，共打了 2 副：没开始的一副不再打。",)
    table.tap("ok")
    assert table.state.phase == "over" and len(table.state.played) == 2
    assert table.screen.lines == ("本轮到此结束，共打了2副",)


def test_an_older_journals_time_up_in_an_individual_round_folds_as_it_did(table):
    """A time up recorded before the round ended at it (no `ends_round`) waited for the
    referee while play went on: such a journal folds the same way still."""
    from kiosk.table.kinds import EventKind

    deals_played(table, 40)
    table.session._record("referee", (EventKind.TIME_UP, {}))
    assert table.state.needs_ruling and table.state.phase == "ready"
