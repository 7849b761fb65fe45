"""Issue 32, the rules' last gaps, as replay records read from the seeds: chaodipi 六.2 (one
wrong kitty, two seats charged; found before the first trick, nothing), chaodipi 六.1 (the
silent partner only with the partner's wrong card), xiamen art. 10 (the kitty overdrawn by
他人, never the dealer), and values shown as the record spells them, never as Python does."""

from __future__ import annotations

import json

import pytest

from kiosk.i18n import explain
from kiosk.rules import RecordError, replay

from .helpers import cli as kiosk

pytestmark = pytest.mark.unit


def lines(record, rulesets):
    return list(replay(record, rulesets))


def refusal(record, rulesets, lang="zh-Hans"):
    with pytest.raises(RecordError) as err:
        lines(record, rulesets)
    return err.value, explain(err.value, lang)


def chaodipi(*hands):
    return {"ruleset": "chaodipi-2011", "first_dealer": "N", "hands": list(hands)}


# -- chaodipi 六.2: 「…在首轮出牌后被发现，则罚80分，炒家要数清底牌牌张后再炒；…
# 如炒家未发现，同样受罚80分」


def test_one_wrong_kitty_charges_the_dealer_who_buried_it_and_the_frier_who_did_not_count(
        rulesets):
    """N buried 7 cards, E fried without counting and buried last: 80 to each, one incident
    (N's 80 adds to the defenders' total, E's is taken from it). N used to be refused:
    「北不能被判…只有最后扣底的人（东）会犯」."""
    record = chaodipi({"points": 40, "buried_by": "E", "penalties": [
        {"code": "kitty-wrong", "seat": "N", "incident": 1},
        {"code": "kitty-wrong", "seat": "E", "incident": 1}]})
    (line,) = lines(record, rulesets)
    assert line["total"] == 40 + 80 - 80
    assert [p["seat"] for p in line["penalties"]] == ["N", "E"]


def test_the_dealer_alone_pays_a_wrong_kitty_nobody_fried(rulesets):
    (line,) = lines(chaodipi({"points": 40, "penalties": [
        {"code": "kitty-wrong", "seat": "N"}]}), rulesets)
    assert line["total"] == 120


def test_a_wrong_kitty_found_before_the_first_trick_costs_nothing(rulesets):
    (line,) = lines(chaodipi({"points": 40, "penalties": [
        {"code": "kitty-wrong", "seat": "N", "choice": "before-first-trick"}]}), rulesets)
    assert line["total"] == 40
    assert line["result"] == "hold"


def test_a_wrong_kitty_cannot_be_charged_to_a_seat_that_neither_dealt_nor_buried(rulesets):
    error, said = refusal(chaodipi({"points": 40, "buried_by": "E", "penalties": [
        {"code": "kitty-wrong", "seat": "W"}]}), rulesets)
    assert error.field == "penalties[0].seat"
    assert "西不能被判" in said and "庄家或最后扣底的人（北、东）" in said


# -- chaodipi 六.1: 「若出牌方的同伴不报告出错牌，一经发现，罚出牌方八十分」


def test_the_silent_partner_is_charged_on_top_of_the_partners_wrong_card(rulesets):
    (line,) = lines(chaodipi({"points": 0, "penalties": [
        {"code": "exposed-card", "seat": "E", "cards": 1},
        {"code": "partner-silent", "seat": "W"}]}), rulesets)
    assert (line["total"], line["result"]) == (-90, "hold")  # 10 + 80 off the defenders
    assert line["levels"]["NS"] == "A"  # T ≤ 0: the dealer side straight to A
    (line,) = lines(chaodipi({"points": 0, "penalties": [
        {"code": "exposed-card", "seat": "N", "cards": 1},
        {"code": "partner-silent", "seat": "S"}]}), rulesets)
    assert (line["total"], line["result"]) == (90, "take-over")  # the dealer side's fault


def test_partner_silent_without_the_partners_wrong_card_is_refused_in_words(rulesets):
    """T = 0 sends the dealer side NS straight to A; a lone partner-silent at S made it 80,
    a take-over."""
    record = chaodipi({"points": 0, "penalties": [{"code": "partner-silent", "seat": "S"}]})
    error, said = refusal(record, rulesets)
    assert error.field == "penalties[0].code"
    assert said.endswith("请先记本方（北、南）本副出错牌的罚分，再记“同伴不报错”")
    _, english = refusal(record, rulesets, "en")
    assert "same side (N, S)" in english
    # the wrong card at the other side's seat does not count
    error, _ = refusal(chaodipi({"points": 0, "penalties": [
        {"code": "exposed-card", "seat": "E", "cards": 1},
        {"code": "partner-silent", "seat": "S"}]}), rulesets)
    assert error.field == "penalties[1].code"


def test_a_broken_seat_after_partner_silent_is_refused_where_it_is(rulesets):
    """(Found by the property test: the check of partner-silent read the next entry's seat,
    a list, before that entry was checked, and ended in a TypeError.)"""
    error, said = refusal(chaodipi({"points": 0, "penalties": [
        {"code": "partner-silent", "seat": "N"},
        {"code": "exposed-card", "seat": [], "cards": 1}]}), rulesets)
    assert error.field == "penalties[1].seat"
    assert "TypeError" not in said and "[]" in said


# -- xiamen art. 10: 「若底牌被他人抓2張或更多，莊家下台」


def test_the_kitty_overdrawn_by_another_seat_steps_the_dealer_down(rulesets):
    (line,) = lines({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"points": 20, "penalties": [{"code": "kitty-overdrawn", "seat": "S"}]}]}, rulesets)
    assert line["result"] == "take-over"


def test_the_dealer_is_never_the_seat_that_overdrew_the_kitty(rulesets):
    error, said = refusal({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"points": 20, "penalties": [{"code": "kitty-overdrawn", "seat": "N"}]}]}, rulesets)
    assert error.field == "penalties[0].seat"
    assert "他人（庄家以外的任何人）（东、南、西）" in said


def test_rules_show_says_who_overdraws_the_kitty():
    shown = kiosk("rules", "show", "xiamen-2015", "--lang", "zh-Hant").stdout
    row = next(line for line in shown.splitlines() if line.strip().startswith("kitty-overdrawn"))
    assert "他人" in row and "任何一方" not in row


# -- words: a value as the record spells it


@pytest.mark.parametrize(("points", "zh", "en"), [
    (True, "true不是有效的牌分", "true is not"),
    ("40", "“40”（加了引号，是文字而不是数字）不是有效的牌分",
     "“40” (in quotes: text, not a number)"),
    (12.5, "12.5不是有效的牌分", "12.5 is not"),
])
def test_a_refused_value_is_shown_as_the_record_spells_it(rulesets, points, zh, en):
    record = {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": points}]}
    _, said = refusal(record, rulesets)
    assert zh in said and "True" not in said and "'40'" not in said
    _, english = refusal(record, rulesets, "en")
    assert en in english and "True" not in english and "'40'" not in english


def test_replay_prints_the_refusal_without_a_python_repr(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"ruleset": "xiamen-2015", "first_dealer": "N",
                                "hands": [{"points": True}]}), encoding="utf-8")
    run = kiosk("replay", str(path))
    assert run.returncode == 2
    assert "true不是有效的牌分" in run.stderr and "True" not in run.stderr


# -- words: what a ruleset says it has, and one language setting


def test_standard_80fen_says_it_gives_no_points():
    """The seed has single matches and no points: 「胜一局得1分」 stood beside
    「单场比赛，不比积分」."""
    shown = kiosk("rules", "show", "standard-80fen").stdout
    result = shown.split("比赛结果", 1)[1].split("\n\n", 1)[0]
    assert result.strip() == "单场比赛，只分胜负，不计分"
    assert "得1分" not in shown


def test_a_standard_80fen_sheet_shows_no_big_points(tmp_path):
    """The score sheet said 「大分：南北 1 东西 0」 (and the kiosk's last screen the same)."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"ruleset": "standard-80fen", "first_dealer": "N", "hands": [
        {"points": 0}, {"points": 0}, {"points": 0}]}), encoding="utf-8")
    run = kiosk("replay", str(path))
    last = json.loads(run.stdout.splitlines()[-1])
    assert last["winner"] == "NS" and "big_points" not in last
    sheet = kiosk("replay", str(path), "--format", "sheet").stdout
    assert "胜方：南北" in sheet and "大分" not in sheet


def test_shuangsheng_says_its_play_direction_is_a_reading():
    """The seed is silent on the direction: the rules said 「出牌方向: 逆时针」 as its rule."""
    shown = kiosk("rules", "show", "shuangsheng-2011").stdout
    assert "出牌方向: 逆时针，北→西→南→东（规则未写，本项目的理解）" in shown
    english = kiosk("rules", "show", "chaodipi-2011", "--lang", "en").stdout
    assert "(the seed is silent" not in english  # 五.5 says 逆时针


def test_kiosk_lang_chooses_the_words_of_replay_errors_too(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"ruleset": "xiamen-2015", "first_dealer": "N",
                                "hands": [{"points": 7}]}), encoding="utf-8")
    english = kiosk("replay", str(path), env={"KIOSK_LANG": "en"})
    assert english.stderr.startswith("kiosk replay: hand 1, points: 7 is not"), english.stderr
    assert "usage" in kiosk("replay", "--help", env={"KIOSK_LANG": "en"}).stdout
    chosen = kiosk("replay", str(path), "--lang", "zh-Hant", env={"KIOSK_LANG": "en"})
    assert chosen.stderr.startswith("kiosk replay：第1副"), chosen.stderr  # --lang wins
