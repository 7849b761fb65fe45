"""Issue 13: the rulesets in a referee's own words — `kiosk rules show`, the score sheet and the
printed slip speak each ruleset's vocabulary, name seats 北/东/南/西, give every penalty with its
direction, and carry the wording fixes the native reading asked for."""

from __future__ import annotations

import json
import re
from itertools import pairwise

import pytest

from kiosk.hw.slip import as_text, slip_lines, wrap
from kiosk.rules import replay
from kiosk.words.hand import penalty_words, ranking_words, signed
from kiosk.words.names import ui_words
from kiosk.words.sheet import score_sheet
from kiosk.words.textfmt import width

from .helpers import ROOT
from .helpers import cli as kiosk


def show(ruleset_id: str, lang: str = "zh-Hans") -> str:
    done = kiosk("rules", "show", ruleset_id, "--lang", lang)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def shown():
    return {r: show(r) for r in ("xiamen-2015", "standard-80fen", "chaodipi-2011",
                                 "shuangsheng-2011")}


# -- rules show -------------------------------------------------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize(("ruleset_id", "own", "foreign"), [
    ("xiamen-2015", ["旁家得分", "旁家上台", "庄家方守庄", "旁家（又称抓分方）"],
     ["抢分方", "防守方"]),
    ("standard-80fen", ["抢分方得分", "抢分方上台", "抢分方中有一人"], ["旁家", "防守方"]),
    ("chaodipi-2011", ["抓分方得分", "抓分方上台", "庄家方（又称台上方）", "抓分方（又称台下方）"],
     ["旁家", "抢分方"]),
    ("shuangsheng-2011", ["防守方得分", "保庄方每人", "防守方每人"], ["旁家", "抢分方"]),
])
def test_each_ruleset_is_shown_in_its_own_words(shown, ruleset_id, own, foreign):
    for word in own:
        assert word in shown[ruleset_id], word
    for word in foreign:
        assert word not in shown[ruleset_id], word


@pytest.mark.unit
def test_warning_counters_read_as_the_seeds_do(shown):
    chaodipi = shown["chaodipi-2011"]
    assert "第一次警告，第二次起每次罚80分" in chaodipi  # kitty-peek, 三.4
    assert "第一次不判罚，第二次起每次罚10分" in chaodipi  # look-back, 七.2
    assert "前1次" not in chaodipi and "之后" not in chaodipi
    assert "第一次警告，第二次起每次罚80分；须经裁判确认" in chaodipi  # the bury overrun


@pytest.mark.unit
def test_standard_kitty_and_tie_break_say_something(shown):
    standard = shown["standard-80fen"]
    assert "不论单张、对子或拖拉机，抠底一律2倍" in standard
    assert "倍数加0" not in standard
    assert "单场比赛，只分胜负，不计分" in standard  # (no points: issue 32)
    assert not re.search(r"^\s*无\s*$", standard.split("比赛结果")[1].split("赛制")[0], re.M)


@pytest.mark.unit
@pytest.mark.parametrize(("ruleset_id", "words"), [
    ("chaodipi-2011", ["副牌中7799、主牌中7799均算连对",
                       "主牌中小王与主8、主8与副8、副8与A均不算连对"]),
    ("standard-80fen", ["一对主10带一对副10", "两对副10、JJ1010、AA22等不是拖拉机"]),
    ("shuangsheng-2011", ["大王对与小王对也是姊妹对", "打10时99JJ也是姊妹对"]),
    ("xiamen-2015", ["级牌不能与同花色的副牌构成拖拉机"]),
])
def test_rules_show_gives_the_seeds_tractors(shown, ruleset_id, words):
    kitty = shown[ruleset_id].split("拖拉机（连对）: ")[1].splitlines()[0]
    for word in words:
        assert word in kitty


@pytest.mark.unit
def test_what_a_failed_throw_counts(shown):
    assert "每张罚10分，只数被卡住的牌（第20条：甩一张A加一对8，8对被卡住，罚20分）" in shown[
        "xiamen-2015"]
    assert ("每张罚10分，甩出的牌都算（甩牌中只要有一张是苍蝇，其余均为苍蝇：甩几张罚几十）"
            in shown["chaodipi-2011"])


@pytest.mark.unit
def test_move_limits_the_seed_leaves_open_are_marked_as_the_kiosks(shown):
    for ruleset_id in ("shuangsheng-2011", "standard-80fen"):
        assert "出牌: 5秒（规则未定，本机默认，可由赛事另定）" in shown[ruleset_id]
    assert "出牌: 5秒\n" in shown["xiamen-2015"]  # the seed's own 5 s is not marked


@pytest.mark.unit
def test_the_xiamen_tie_break_after_net_levels_is_marked_as_the_projects_reading(
        shown, rulesets):
    assert ("净胜级数仍相同时，依次比所遇对手的积分之和、两队相互之间的胜负"
            "（本项目的解释，规则未写）" in shown["xiamen-2015"])
    assert rulesets["xiamen-2015"].result.further_tie_breaks == ("opponents", "head-to-head")
    assert "本项目的解释" in rulesets["xiamen-2015"].reading("tie-break").zh_hans
    assert rulesets["chaodipi-2011"].result.further_tie_breaks == ()


@pytest.mark.unit
def test_the_referees_extra_points_are_entered_as_the_whole_amount(shown):
    assert "裁判追加罚分（填写含原80分在内的总罚分）" in shown["chaodipi-2011"]


@pytest.mark.unit
def test_who_can_commit_each_offence_is_a_column(shown):
    rows = {line.split()[0]: line for line in shown["xiamen-2015"].splitlines()
            if line.startswith("  kitty-")}
    assert "庄家方" in rows["kitty-peek"] and "旁家" in rows["kitty-recount"]
    chaodipi = next(line for line in shown["chaodipi-2011"].splitlines()
                    if line.startswith("  kitty-wrong"))
    assert "最后扣底的人" in chaodipi


@pytest.mark.unit
def test_seats_are_chinese_in_the_individual_deal_table(shown):
    ss = shown["shuangsheng-2011"]
    assert "轮庄顺序（按人）: 东 北 西 南" in ss
    first_rows = ss.split("每轮各副")[1].splitlines()[3:5]
    assert [row.split()[-1] for row in first_rows] == ["东", "北"]


# -- the score sheet and the slip ----------------------------------------------------------------


def sheet(record: dict, lang: str = "zh-Hans") -> str:
    done = kiosk("replay", "-", "--format", "sheet", "--lang", lang,
                 stdin=json.dumps(record, ensure_ascii=False))
    assert done.returncode == 0, done.stderr
    return done.stdout


XIAMEN = {"ruleset": "xiamen-2015", "first_dealer": "N",
          "players": {"N": "张三", "E": "王五", "S": "李四", "W": "赵六"},
          "hands": [{"points": 45},
                    {"points": 60, "kitty": {"points": 10, "shape": "tractor2"}},
                    {"points": 95, "penalties": [{"code": "look-back", "seat": "N"},
                                                 {"code": "hidden-card", "seat": "W"}]},
                    {"redeal": True, "called_by": "E"},
                    {"points": 30, "penalties": [{"code": "failed-throw", "seat": "E",
                                                  "cards": 2}]}]}


@pytest.mark.unit
def test_sheet_gives_penalties_with_their_direction_never_a_bare_number():
    text = sheet(XIAMEN)
    assert "北 张三 翻看上一轮的牌：罚10分（本副按200分计，不计入）" in text  # item 3
    assert "西 赵六 藏牌（提醒后仍隐瞒）：本副按200分计" in text  # not 「(定分)」
    assert "东 王五 甩错牌 2张：罚20分（从旁家得分中扣除）" in text
    assert "抠底：底牌10分×8（2连对）＝80分" in text
    assert "革命（东提出）" in text
    notes = [line for line in text.splitlines() if line.startswith("      ")]
    assert notes and not any(re.search(r"(^|\s)[+-]\d+", n) for n in notes), notes
    assert "(定分)" not in text and "定分" not in text


@pytest.mark.unit
def test_a_kitty_won_with_no_points_in_it_says_so_without_a_sum():
    """A review of the printed records: 「抠底：底牌0分×8（2连对）＝0分」 is a sum that adds
    nothing; the defenders did win the last trick, which the sheet still says."""
    record = {**XIAMEN, "hands": [{"points": 60, "kitty": {"points": 0, "shape": "tractor2"}}]}
    for lang, said in (("zh-Hans", "抠底：底牌无分"), ("zh-Hant", "摳底：底牌無分"),
                       ("en", "kitty: no points")):
        text = sheet(record, lang)
        assert said in text and "×" not in text, (lang, text)


@pytest.mark.unit
def test_sheet_names_seats_in_chinese_and_signs_in_table_order():
    text = sheet(XIAMEN)
    rows = [line.split() for line in text.splitlines() if re.match(r"\s?\d+\s", line)]
    assert [row[1] for row in rows] == ["北", "南", "西", "北", "北"]
    assert text.strip().splitlines()[-1] == (
        "签名：北 张三 ________  东 王五 ________  南 李四 ________  西 赵六 ________  "
        "裁判 ________")  # xiamen plays clockwise
    standard = sheet({"ruleset": "standard-80fen", "first_dealer": "N", "hands": []})
    assert standard.strip().splitlines()[-1] == (
        "签名：北 ________  西 ________  南 ________  东 ________  裁判 ________")


@pytest.mark.unit
def test_a_team_past_the_final_level_shows_past_it():
    text = sheet({"ruleset": "standard-80fen", "first_dealer": "N",
                  "hands": [{"points": 0}, {"points": 0}, {"points": 5}]})
    assert "最终级数：南北 过10  东西 2" in text  # not 「南北 10」
    assert "胜方：南北（打过10）" in text


@pytest.mark.unit
def test_a_match_lost_by_a_penalty_says_who_lost():
    text = sheet({"ruleset": "standard-80fen", "first_dealer": "N", "hands": [
        {"points": 40, "penalties": [{"code": "signalling", "seat": "E"}]}]})
    assert "东西被判负，南北获胜" in text
    assert "胜方：南北（判罚）" not in text


SHUANGSHENG = {"ruleset": "shuangsheng-2011", "deals": [
    {"partner_card": "2", "points": 80},
    {"partner": "E", "points": 120, "penalties": [
        {"code": "card-count", "seat": "W", "choice": "after-bury"}]},
    {"partner_card": "5", "points": 80}]}


@pytest.mark.unit
def test_shuangsheng_sheet_shows_minus_two_and_ties_without_a_greater_sign():
    text = sheet(SHUANGSHENG)
    assert "西 多牌少牌（扣底后发现）：错方每人记-2大分，对方每人至少记2大分" in text
    row = next(line.split() for line in text.splitlines() if line.startswith("2 "))
    assert row[-4:] == ["3", "3", "-2", "-2"] and "+-" not in text
    ranking = text.strip().splitlines()[-3]
    assert " > " in ranking or " = " in ranking
    for left, sign, right in re.findall(r"(\d+) ([>=]) \S+ (\d+)", ranking):
        assert (sign == "=") == (left == right)


@pytest.mark.unit
def test_ranking_joins_equal_totals_with_equals():
    assert ranking_words({"E": 80, "N": 80, "W": 75, "S": 80}, ("E", "N", "W", "S"),
                         "zh-Hans") == "东 80 = 北 80 = 南 80 > 西 75"
    assert [signed(v) for v in (-2, 0, 2)] == ["-2", "0", "+2"]


@pytest.mark.unit
@pytest.mark.parametrize("text", ["现在是第 1 轮，共 25 轮。结束后开始录入本副；裁判可以撤销。",
                                  "南北打7，东西打2：南北获胜，比赛结束。第2副不再打完，不计成绩。"])
def test_a_line_never_breaks_inside_a_word_of_the_kiosks_sentences(text):
    """A review at other panels: 「结束后开」⏎「始录入本副」 in portrait, 「获胜，比赛」⏎「结束。」
    broke 南北 and 获胜 at 800×480."""
    for cols in range(8, 31):
        lines = wrap(text, cols)
        assert "".join(lines).replace(" ", "") == text.replace(" ", ""), (cols, lines)
        ends = {sum(len(line) for line in lines[:i + 1]) for i in range(len(lines) - 1)}
        joined = "".join(lines)
        inside = [(word, cols) for word in ui_words() for start in range(len(joined))
                  if joined.startswith(word, start) and
                  any(start < end < start + len(word) for end in ends)]
        assert inside == [], (cols, lines)


@pytest.mark.unit
def test_a_straight_climb_to_the_final_level_is_said_on_the_sheet_and_the_slip(rulesets):
    """chaodipi's 大光: the kiosk says 「庄家方守庄，直升 A」, the slip and the sheet only +12
    (the same levels, but not the rule a player checks: a review of the printed records)."""
    record = {"ruleset": "chaodipi-2011", "first_dealer": "N",
              "hands": [{"points": 0}, {"points": 40}]}
    sheet_text = sheet(record)
    lines = list(replay(record, rulesets))
    slip = as_text(slip_lines(record, rulesets["chaodipi-2011"], lines, 58, "zh-Hans"), 58)
    for text in (sheet_text, slip):
        assert text.count("庄家方直升 A") == 1, text  # hand 1's, not hand 2's hold at A
        assert text.index("庄家方直升 A") < text.index("过A"), text
    assert "dealer side straight to A" in sheet(record, "en")
    assert "直升" not in sheet(XIAMEN)  # (xiamen has no such band)


@pytest.mark.unit
def test_slip_carries_kitty_and_penalties_under_their_hand(rulesets):
    ruleset = rulesets["xiamen-2015"]
    lines = list(replay(XIAMEN, rulesets))
    text = as_text(slip_lines(XIAMEN, ruleset, lines, 58, "zh-Hans"), 58)
    body = text.split("-" * 32)[1].strip("\n").splitlines()
    assert body[0].split() == ["副", "庄", "级", "得分", "结果", "升", "南北", "东西"]
    assert body[1].split()[:2] == ["1", "北"]
    after_two = body[body.index(next(b for b in body if b.startswith("2 "))) + 1]
    assert after_two.startswith("  抠底：底牌10分×8")
    assert "罚10分" in text and "+10" not in text
    for paper in (58, 80):
        for lang in ("zh-Hans", "zh-Hant", "en"):
            slip = as_text(slip_lines(XIAMEN, ruleset, lines, paper, lang), paper)
            assert max(width(line) for line in slip.splitlines()) <= (32 if paper == 58 else 48)


@pytest.mark.unit
def test_wrap_never_starts_a_line_with_closing_punctuation_or_splits_a_number():
    text = "南 李四 甩错牌 2张：罚20分（从旁家得分中扣除）抠底：底牌10分×8（2连对）＝80分"
    for cols in range(12, 40):
        lines = wrap(text, cols)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert all(width(line) <= cols for line in lines)
        assert not any(line[:1] in "）」，。：；、" for line in lines[1:]), lines
        assert not any(a[-1:].isdigit() and b[:1].isdigit() for a, b in pairwise(lines))


@pytest.mark.unit
def test_wrap_keeps_a_seat_with_its_offence_and_an_equals_sign_with_its_sum():
    """Issue 31: 「东⏎翻看上一轮的牌」 and 「＝⏎160分」 on the slip."""
    offence = "底牌10分×8＝80分；东 翻看上一轮的牌：罚10分"
    for cols in range(10, 40):
        lines = wrap(offence, cols)
        assert not any(line.rstrip().endswith(("＝", "×", "；东", " 东")) or line.strip() == "东"
                       for line in lines[:-1]), (cols, lines)
        assert "".join(lines).replace(" ", "") == offence.replace(" ", "")


@pytest.mark.unit
def test_wrap_keeps_a_chinese_number_with_its_unit():
    """「2015年厦门市粮食系统运动会八十⏎分赛」 headed the slip (issue 31)."""
    title = "2015年厦门市粮食系统运动会八十分赛"
    for cols in range(8, 34):
        lines = wrap(title, cols)
        assert not any(a.endswith(("八", "八十")) and b.startswith(("十", "分"))
                       for a, b in pairwise(lines)), (cols, lines)


@pytest.mark.unit
def test_english_sheet_keeps_letters_and_words(rulesets):
    lines = list(replay(XIAMEN, rulesets))
    text = score_sheet(XIAMEN, rulesets["xiamen-2015"], lines, "en")
    assert "N 张三 Looking back at a trick: 10 points (not counted: the hand is scored as 200)" \
        in text
    assert "E 王五 Failed throw, 2 card(s): 20 points (taken off the defenders)" in text


@pytest.mark.unit
def test_wrap_keeps_a_count_with_its_unit_and_leaves_no_character_alone_before_a_stop():
    """「共 25⏎轮」 and 「撤⏎销。」 in the kiosk's end-of-play question."""
    question = "现在是第 1 轮，共 25 轮。结束后开始录入本副；裁判可以撤销。"
    for cols in range(16, 60):
        lines = wrap(question, cols)
        assert "".join(lines).replace(" ", "") == question.replace(" ", "")
        assert not any(a.rstrip().endswith("25") for a in lines[:-1]), (cols, lines)
        assert len(lines) == 1 or len(lines[-1].strip().rstrip("。")) > 1, (cols, lines)


@pytest.mark.unit
@pytest.mark.parametrize(("lang", "under", "tenths"), [
    ("zh-Hans", "超时 不足 0.1 秒", "超时 0.3 秒"), ("zh-Hant", "超時 不足 0.1 秒", "超時 0.3 秒"),
    ("en", "(under 0.1 s)", "(0.3 s)")])
def test_an_overrun_shorter_than_a_tenth_never_reads_as_zero_seconds(rulesets, lang, under,
                                                                     tenths):
    """The kiosk records an overrun in tenths of a second: a press 0.04 s late is over its
    time and recorded as 0.0, which the score sheets printed as 「超时 0.0 秒：警告」."""
    from kiosk.words.hand import penalty_name

    ruleset = rulesets.require("xiamen-2015")
    said = penalty_name({"code": "time-overrun", "seat": "S", "over_seconds": 0.0}, ruleset,
                        lang)
    assert under in said and "0.0" not in said
    assert tenths in penalty_name({"code": "time-overrun", "seat": "S", "over_seconds": 0.3},
                                  ruleset, lang)


@pytest.mark.unit
def test_wrap_leaves_no_character_alone_with_a_bracket_too_long_for_its_line():
    """「藏牌（提醒后仍隐⏎瞒）」 on an offence button five to a row at 800×480: a bracket
    that cannot stay whole breaks as the rest of the text does."""
    offence = "藏牌（提醒后仍隐瞒）"
    for cols in range(8, 20):
        lines = wrap(offence, cols)
        assert "".join(lines) == offence
        assert len(lines) == 1 or len(lines[-1].rstrip("）")) > 1, (cols, lines)


@pytest.mark.unit
def test_a_choice_named_with_its_cost_says_it_once(rulesets):
    """chaodipi's 「出牌超时：警告」 is a choice named with its cost: the slip said
    「西 出牌超时：警告 15.0 秒：警告」 (a referee at the real window). The seconds follow the
    offence, as in 「扣底超时 5.2 秒：警告」 (a printed-record review: they came last here)."""
    ruleset = rulesets["chaodipi-2011"]
    warned = {"code": "time-overrun", "seat": "W", "choice": "play-warning",
              "effect": "warning", "points": 0, "over_seconds": 15.0}
    assert penalty_words(warned, ruleset, "zh-Hans", 40) == "西 出牌超时 15.0 秒：警告"
    charged = {**warned, "choice": "play-points", "effect": "referee-points", "points": 20}
    # its range gives way to the points given (a referee's review: 「…罚10至80分：罚20分」)
    assert penalty_words(charged, ruleset, "zh-Hans", 40) == \
        "西 出牌超时 15.0 秒：罚20分（计入抓分方得分）"
    assert penalty_words(charged, ruleset, "en", 40).startswith(
        "W Time overrun (15.0 s) – Play overrun: 20 points")


@pytest.mark.unit
def test_the_slip_and_the_text_sheet_say_the_same_ruleset_version(rulesets):
    """A printed-record review (Low): the slip said 规则版本：e38b755a, the text sheets
    e38b755aa370; the console says 8 characters too."""
    record = json.loads((ROOT / "examples" / "xiamen-2015-example.json").read_text("utf-8"))
    ruleset = rulesets[record["ruleset"]]
    lines = list(replay(record, rulesets))
    said = {re.search(r"规则版本：(\w+)", text).group(1) for text in (
        as_text(slip_lines(record, ruleset, lines, 58, "zh-Hans"), 58),
        score_sheet(record, ruleset, lines, "zh-Hans"))}
    assert said == {ruleset.sha256[:8]}


@pytest.mark.unit
def test_wrap_keeps_a_word_of_a_teams_name_whole():
    """A printed-record review: the 58 mm slip broke 「…第一代」⏎「表队」 and 「…职工运」⏎
    「动会八十分赛」. The words a team's name is made of (the pinyin keyboard's own list) are
    kept whole, as numbers and Latin words are."""
    assert wrap("南北：厦门市粮食购销有限公司第一代表队", 32) == [
        "南北：厦门市粮食购销有限公司第一", "代表队"]
    assert wrap("赛事：2026年厦门市粮食系统职工运动会八十分赛", 32) == [
        "赛事：2026年厦门市粮食系统职工", "运动会八十分赛"]
    assert wrap("湖里区工商联合会代表队", 10) == ["湖里区工商", "联合会", "代表队"]
