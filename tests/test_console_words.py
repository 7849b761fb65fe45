"""What the console says, as a head referee reads it (the tester's M11 and the small ones):
the publishing question naming each table's warnings, the side warning's advice only where it
helps, lists of tables in the reader's language, a ruled result saying who lost and who won,
the ruleset by its name (no file id, no "sha256", no "chrony")."""

from __future__ import annotations

import html
import re
import string
import time

import pytest

from kiosk.i18n import catalog, render
from kiosk.rules import Rulesets
from kiosk.scorer.director import Draft
from kiosk.scorer.director.triage import number_list
from kiosk.scorer.printing import pages as printing
from kiosk.scorer.printing.templating import words
from kiosk.scorer.tournament.formats import RoundPlan

from .console_client import Window, event, flash_of, log_in, refused_page, shown_error
from .kiosk_driver import Table

pytestmark = pytest.mark.unit


@pytest.fixture
def director(tmp_path):
    yield from event(tmp_path)


# -- M11: the publishing question says what each table has ---------------------------------


def test_publishing_a_draft_with_warnings_lists_each_tables_own(director):
    director.edit_team("t02", "第2队", "单位1", (), by="陈")  # t01 and t02: one unit
    draft = director.make_draft(by="陈")
    table = next(n for n, pair in enumerate(draft.plan.pairs, 1) if "t01" in pair)
    other = next(t for t in draft.plan.pairs[table - 1] if t != "t01")
    if other != "t02":
        director.swap_teams(other, "t02", by="陈")
    window = Window(log_in(director))
    window.load("/admin/rounds")
    page = window.load(window.send("/admin/publish").headers["location"])
    ns, ew = director.current_draft().plan.pairs[table - 1]
    label = {"t01": "第1队（t01）", "t02": "第2队（t02）"}
    said = (f"第 1 轮草稿有 1 桌带提醒。第 {table} 桌：{label[ns]}与{label[ew]}同属单位1。"
            "仍要公布吗？")
    assert said in html.unescape(page), page
    assert "重复交手、同单位或南北不均" not in page

# -- the small ones: words a head referee reads ------------------------------------------


def test_the_overview_names_the_ruleset_in_words_not_its_file_id_or_hash(director):
    page = Window(log_in(director)).load("/admin")
    sha = director.event().ruleset_sha256
    assert f"规则版本 {sha[:8]}（与记分条上印的核对）" in page
    assert "sha256" not in page and sha[:12] not in page
    assert "(xiamen-2015)" not in page and "厦门" in page
    assert "chrony" not in Window(log_in(director)).load("/admin/tables")


def test_a_ruled_result_says_who_lost_and_who_won(director):
    round_1_started(director)
    _, ns, ew = director.assignments(1)[0]
    director.record_ruling(1, "forfeit", "NS", "迟到", 1, by="陈", confirm=True)
    page = Window(log_in(director)).load("/admin/results?round=1")
    names = director.team_names()
    row = re.search(r'<tr id="t1" .*?</tr>', page, re.S).group(0)
    assert f"{names[ns]}判负，{names[ew]}胜" in row  # not 「判负 {ew} 胜」


@pytest.mark.parametrize(("lang", "said"), [("zh-Hans", "第 1、2 桌"), ("zh-Hant", "第 1、2 桌"),
                                            ("en", "tables 1, 2")])
def test_a_list_of_tables_reads_in_the_readers_language(lang, said):
    listed = number_list([2, 1])
    assert render(listed.key, listed.params, lang) == said
    one = number_list([5])  # not 「tables 5」
    assert render(one.key, one.params, lang) == {"en": "table 5"}.get(lang, "第 5 桌")
    runs = number_list([1, 2, 3, 5, 7, 8])
    assert render(runs.key, runs.params, "zh-Hans") == "第 1–3、5、7、8 桌"


def test_swapping_a_tables_sides_is_advised_only_where_it_helps(director):
    sat = [(1, 1, "t01", "t05"), (1, 2, "t02", "t06"), (1, 3, "t07", "t03"),
           (2, 1, "t01", "t08"), (2, 2, "t02", "t05"), (2, 3, "t06", "t03")]
    with director.store.db.atomic():  # t01 and t02 sat NS twice, t03 EW twice
        director.store.db.conn.executemany("INSERT INTO assignments VALUES (?, ?, ?, ?, NULL)",
                                           sat)

    def advice(ns: str, ew: str) -> set[str]:
        plan = RoundPlan(((ns, ew),), (), "swiss", "", True, ())
        said = director.draft_warnings(Draft(3, plan, "", False))
        return {words("zh-Hans")(w.key, **w.params) for w in said
                if w.key == "admin.warn.sides"}

    both_ns = advice("t01", "t02")  # a swap moves the warning to t02: not advised
    assert both_ns == {"第1队（t01）打完本轮将坐南北 3 次、东西 0 次（相差 3 次）"}
    helps = advice("t01", "t03")  # swapped, both sit their short side: advised
    assert helps == {"第1队（t01）打完本轮将坐南北 3 次、东西 0 次（相差 3 次）：可交换该桌南北",
                     "第3队（t03）打完本轮将坐南北 0 次、东西 3 次（相差 3 次）：可交换该桌南北"}


# -- a team's label sits in Chinese text without a gap --------------------------------------

# The placeholders that carry a team's label (粮食局一队（t07）) in the scorer's words, and the
# keys that use one of those names for a number instead (a table's, a count of sides).
TEAM_PLACEHOLDERS = {"team", "opponent", "loser", "winner", "ns", "ew", "first", "second"}
NUMBERS_NAMED_LIKE_TEAMS = {("admin.note.swapped_tables", "first"),
                            ("admin.note.swapped_tables", "second"),
                            ("admin.audit.round.swap_tables", "first"),
                            ("admin.audit.round.swap_tables", "second"),
                            ("admin.warn.sides", "ns"), ("admin.warn.sides", "ew"),
                            ("admin.rounds.facts", "ns"), ("admin.rounds.facts", "ew"),
                            ("admin.rounds.facts_tied", "ns"), ("admin.rounds.facts_tied", "ew"),
                            ("admin.rounds.facts_wins", "ns"), ("admin.rounds.facts_wins", "ew"),
                            ("admin.rounds.facts_tied_wins", "ns"),
                            ("admin.rounds.facts_tied_wins", "ew")}
CJK = "[\u3000-\u303f\u3400-\u9fff\uff00-\uffef“”]"


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_a_team_label_has_no_stray_space_beside_chinese_text(lang):
    label = "海沧红狮（t07）"
    gaps = []
    for key, text in catalog(lang).items():
        if not key.startswith(("admin.", "hall.", "phone.", "print.", "roster.")):
            continue
        fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
        teams = {f for f in fields & TEAM_PLACEHOLDERS if (key, f) not in NUMBERS_NAMED_LIKE_TEAMS}
        if not teams:
            continue
        said = text.format(**{f: label if f in teams else "7" for f in fields})
        if re.search(f"） (?={CJK})|(?<={CJK}) 海沧", said):
            gaps.append(f"{key}: {said}")
    assert gaps == []


# -- starting a round: tables without a kiosk, a start at once ------------------------------


def round_1_started(director) -> None:
    """Round 1 drafted, published and started."""
    director.make_draft(by="陈")
    director.publish(by="陈")
    director.start_clock(0, by="陈", confirm=True)


def rounds_page_of_a_published_round(director, paired: tuple[int, ...]):
    """Four tables, those `paired` with a kiosk, round 1 published: the console on 轮次编排."""
    codes = director.add_tables(4)
    for table in paired:
        director.store.pair(table, codes[table], f"pi-{table}", time.time())
    director.make_draft(by="陈")
    director.publish(by="陈")
    client = log_in(director)
    window = Window(client)
    window.load("/admin/rounds")
    return client, window


def test_starting_a_round_with_tables_without_a_kiosk_names_them_and_asks_first(director):
    client, window = rounds_page_of_a_published_round(director, (1, 2))  # 3, 4: no kiosk
    asked = window.load(window.send("/admin/start", start_in="60").headers["location"])
    assert ("第 3、4 桌还没有配对平板。第 1 轮开始后，本轮时钟照常计时，这些桌要等配对好平板"
            "才能开赛。仍要开始吗？") in html.unescape(asked)
    assert director.round_start(1) is None  # nothing done before the answer
    done = window.send("/admin/start")
    assert flash_of(client, done) == "第 1 轮将于 60 秒后在各桌同时开始。"
    assert director.round_start(1) == director.now[0] + 60


def test_a_round_started_with_no_lead_in_says_it_starts_now(director):
    client, window = rounds_page_of_a_published_round(director, (1, 2, 3, 4))
    done = window.send("/admin/start", start_in="0")  # every table paired: asks nothing
    assert flash_of(client, done) == "第 1 轮已在各桌同时开始。"  # not 「将于 0 秒后」


def test_an_adjusted_result_with_no_net_levels_is_refused_in_words_keeping_the_form(director):
    round_1_started(director)
    client = log_in(director)
    window = Window(client)
    window.load("/admin/results?round=1&table=1")
    reply = window.send("/admin/ruling", kind="adjusted", loser="NS", net="", reason="记错一副")
    page = refused_page(client, reply)
    assert shown_error(page) == "请填写“净胜级（改判时）”。"  # not an adjusted result by 0
    assert director.rulings() == []
    assert 'value="记错一副"' in page.text and '<option value="adjusted" selected>' in page.text


def test_an_adjusted_result_on_a_match_not_ended_asks_on_a_page_then_is_recorded(director):
    """The question before an adjusted result the table will not follow is the console's own
    confirmation page, and confirming it records the ruling once."""
    round_1_started(director)
    client = log_in(director)
    window = Window(client)
    window.load("/admin/results?round=1&table=1")
    asked = window.send("/admin/ruling", kind="adjusted", loser="NS", net="2", reason="记错一副")
    assert asked.status_code == 303 and "/admin/confirm" in asked.headers["location"]
    page = window.load(asked.headers["location"])
    assert "平板不会停下" in html.unescape(page) and director.rulings() == []
    done = window.send("/admin/ruling")
    assert flash_of(client, done) == "已记录第 1 轮第 1 桌的裁决。"
    assert [(r.kind, r.loser, r.net) for r in director.rulings()] == [("adjusted", "NS", 2)]


def test_the_log_names_the_event_s_ruleset_in_the_reader_s_words_not_its_file_id(director):
    window = Window(log_in(director))
    created = re.search(r'data-action="event.create">.*?</tr>', window.load("/admin/log"), re.S)
    assert "创建赛事厦门杯（2015年厦门市粮食系统运动会八十分赛，" in html.unescape(created.group(0))
    in_english = window.load("/admin/log?lang=en")
    assert "Xiamen grain-system games 2015" in in_english and "xiamen-2015" not in in_english


def test_a_swap_that_seats_teams_of_different_scores_together_is_pointed_out(director):
    round_1_started(director)
    for table, _, _ in director.assignments(1):  # every EW team wins round 1
        director.record_ruling(table, "forfeit", "NS", "迟到", 1, by="陈", confirm=True)
    director.make_draft(by="陈")
    window = Window(log_in(director))

    def hints() -> list[str]:
        page = window.load("/admin/rounds")
        return [html.unescape(h) for h in re.findall(r'<span class="warn-text">(.*?)</span>',
                                                     page)]

    assert not [h for h in hints() if "大分不同" in h]  # as drafted: winners meet winners
    points = {s.team: s.points for s in director.standings()}
    ns, ew = director.current_draft().plan.pairs[0]
    loser = next(t for t in points if points[t] != points[ns])
    director.swap_teams(ns, loser, by="陈")
    labels = {t: f"{n}（{t}）" for t, n in director.team_names().items()}
    said = {h for h in hints() if "大分不同" in h}
    assert (f"调换后同桌的{labels[loser]}与{labels[ew]}大分不同"
            f"（{points[loser]} 对 {points[ew]}）") in said
    assert len(said) == 2  # and the table the other team went to


def test_a_tie_is_said_in_words_on_the_console_and_the_scorecards_as_in_the_hall(director):
    """The console's standings said 「3=」, the printed scorecards 「第 11= 名」 with no note, and
    the printed standings 「4=」, where the hall says 「并列3」 (reviews, 2026-12-06)."""
    round_1_started(director)
    for table, _, _ in director.assignments(1):  # every NS wins: four teams tie at 1, four at 5
        director.record_ruling(table, "forfeit", "EW", "缺席", 1, confirm=True)
    assert {(s.rank, s.tied) for s in director.standings()} == {(1, True), (5, True)}
    page = html.unescape(log_in(director).get("/admin/standings").text)
    ranks = re.findall(r'<tr data-team="t\d+"[^>]*>\s*<td>([^<]*)</td>', page)
    assert sorted(set(ranks)) == ["并列1", "并列5"]
    cards = html.unescape(printing.html(director, "scorecards", "zh-Hans"))
    assert "并列第 1 名" in cards and "并列第 5 名" in cards and "名 =" not in cards
    assert not re.search(r"第 \d+= 名", cards)
    printed = html.unescape(printing.html(director, "standings", "zh-Hans"))
    assert sorted(set(re.findall(r'<td class="num rank">([^<]*)</td>', printed))) == \
        ["并列1", "并列5"]  # (it said 「1=」)
    # a ruled match as the phones say it: the winner's 「胜 [判负]」 read as won, forfeited
    results = re.findall(r'<span class="ruled">([^<]*)</span>', cards)
    assert sorted(set(results)) == ["判负", "胜（对方判负）"] and len(results) == 8


def test_once_every_round_is_published_the_teams_page_offers_no_late_entry(tmp_path):
    """The 队伍 page still offered 「添加补报名队伍（第 2 轮起参赛）」 after the last round was
    published, a form that could only be refused (a director's review, 2026-12-06): its place
    says why instead."""
    events = event(tmp_path)
    d = next(events)
    d.edit_event(rounds=2, by="陈")
    client = log_in(d)
    round_1_started(d)
    page = html.unescape(client.get("/admin/teams").text)
    assert "添加补报名队伍（第 2 轮起参赛）" in page and 'id="no-entry"' not in page
    for table, _, _ in d.assignments(1):
        d.record_ruling(table, "forfeit", "EW", "测试", 1, confirm=True)
    d.make_draft(by="陈")
    d.publish(by="陈")  # round 2 of 2: no round left to join
    page = html.unescape(client.get("/admin/teams").text)
    assert 'action="/admin/add-team"' not in page
    assert "所有轮次都已公布：补报名的队伍已无比赛可打。" in page
    assert 'action="/admin/import"' in page  # a corrected list may still be imported
    assert "新队伍从第" not in page and 'name="missed_points"' not in page  # (no round to join)
    next(events, None)


def test_a_link_to_a_round_there_is_not_says_which_round_is_shown(director):
    """/admin/results?round=9 and ?round=xyz showed round 1 without a word (a director's
    review, 2026-12-06)."""
    round_1_started(director)
    client = log_in(director)
    for asked in ("9", "xyz", "0"):
        page = html.unescape(client.get(f"/admin/results?round={asked}").text)
        assert f"没有第 {asked} 轮：这里显示的是第 1 轮。" in page, asked
    assert 'id="other-round"' not in client.get("/admin/results?round=1").text
    assert 'id="other-round"' not in client.get("/admin/results").text
    said = client.get("/admin/results?round=<b>x</b>").text  # as typed, never as markup
    assert "没有第 &lt;b&gt;x&lt;/b&gt; 轮" in said and "<b>x</b>" not in said


def test_a_disputed_table_says_who_disputes_and_what_the_table_entered(director, tmp_path,
                                                                       monkeypatch):
    """A disputed table said only 「有争议 · 第 1 副」: the head referee had nothing to rule on
    (a director's review, 2026-12-06). Table 1's match is a real kiosk's, disputed by NS
    after 85 points were entered."""
    round_1_started(director)
    kiosk = Table(tmp_path / "kiosk", Rulesets.load([]))
    kiosk.start()
    kiosk.play_out()
    kiosk.enter(85)
    kiosk.tap("dispute:NS", "ok")
    assert kiosk.state.phase == "disputed"
    kept = director.match_state
    monkeypatch.setattr(director, "match_state", lambda table, round_no: kiosk.state
                        if table == 1 else kept(table, round_no))
    _, ns, _ = director.assignments(1)[0]
    page = html.unescape(log_in(director).get("/admin/results?round=1&table=1").text)
    total = kiosk.state.preview().total
    assert f"{director.team_names()[ns]}有异议；桌上录入：得分 85，总分 {total}" in page
    # ... who settles it and where (the console's match-wide ruling is not the way), and the
    # score sheet says the hand waits for it (a later review: neither did).
    assert "由本桌裁判在平板上裁定这一副：裁判菜单里选“裁定：确认本副”或“裁定：先修改本副”" in page
    sheet = html.unescape(printing.html(director, "sheets", "zh-Hans", round_no=1, table=1))
    assert f"第 1 副有异议，等待本桌裁判裁定（{director.team_names()[ns]}有异议；" in sheet
    kiosk.session.close()


def test_a_ruled_table_offers_no_second_ruling_but_says_where_to_take_it_back(director):
    """A head referee's review: the ruling form was offered on a table already ruled, and
    refused only once filled in (已有裁决：请先撤销)."""
    round_1_started(director)
    director.record_ruling(1, "forfeit", "EW", "未到场", confirm=True, by="陈")
    client = log_in(director)
    ruled = html.unescape(client.get("/admin/results?round=1&table=1").text)
    assert 'id="ruling"' not in ruled
    assert "第 1 轮第 1 桌已有裁决：请先撤销（“裁决”页）。" in ruled
    assert 'id="ruling"' in client.get("/admin/results?round=1&table=2").text


def test_a_won_or_lost_only_event_is_called_swiss_on_the_overview(tmp_path):
    """A 3-round standard-80fen event, paired round by round as any Swiss one, said 赛制
    「单场比赛」 on the overview (a head referee's review)."""
    from kiosk.scorer.director import Director
    from kiosk.scorer.store.database import Store

    from .test_scorer_admin import logged_in

    d = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load())
    d.create_event("双升杯", "standard-80fen", rounds=3)
    client, _ = logged_in(d)
    page = html.unescape(re.sub(r"<[^>]+>", " ", client.get("/admin").text))
    assert "赛制 瑞士制（每场只分胜负）" in " ".join(page.split())
    d.store.close()
