"""Issue 13: offences charged only to the side that can commit them (docs/rules.md §7),
per-card counts, the referee's confirmation, one penalty per incident, redeal callers,
the missing codes, each ruleset's own words, and errors in the reader's language."""

from __future__ import annotations

import json
import re

import pytest

from kiosk.i18n import LANGS, catalog, explain
from kiosk.rules import EntryError, RecordError, RulesetError, TeamMatch, replay
from kiosk.rules.errors import Words
from kiosk.rules.ruleset import parse_ruleset

from .helpers import ROOT, at_levels, hand, play
from .helpers import cli as kiosk

DATA = ROOT / "kiosk" / "rules" / "data"


def penalty(code, seat, **kw):
    return {"code": code, "seat": seat, **kw}


def refused(match: TeamMatch, entry) -> EntryError:
    with pytest.raises(EntryError) as err:
        match.play(entry)
    return err.value


# -- 1. who can commit an offence -------------------------------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize(("ruleset_id", "code", "dealer", "buried_by", "seats"), [
    ("xiamen-2015", "kitty-peek", "N", None, ("N", "S")),        # art. 15: the dealer side
    ("xiamen-2015", "kitty-recount", "N", None, ("E", "W")),     # art. 15: 旁家
    ("xiamen-2015", "kitty-wrong", "E", None, ("E", "W")),       # art. 14: 罚莊家
    ("xiamen-2015", "exposed-card", "E", None, ("N", "E", "S", "W")),
    ("standard-80fen", "kitty-wrong", "W", None, ("E", "W")),
    ("chaodipi-2011", "kitty-underdrawn", "N", None, ("N", "S")),  # 六.7 判罚庄家方
    ("chaodipi-2011", "kitty-wrong", "N", None, ("N",)),         # the dealer buried
    ("chaodipi-2011", "kitty-wrong", "N", "W", ("N", "W")),      # 六.2: N buried, W fried
    ("chaodipi-2011", "kitty-peek", "N", "W", ("N", "S", "W")),  # the dealer side or the frier
    ("shuangsheng-2011", "hidden-card", "E", None, ("N", "E", "S", "W")),
])
def test_seats_for_comes_from_the_ruleset_file(rulesets, ruleset_id, code, dealer, buried_by,
                                               seats):
    assert rulesets[ruleset_id].seats_for(code, dealer, buried_by) == seats


@pytest.mark.unit
def test_xiamen_kitty_wrong_play_on_fines_the_dealer_and_is_refused_at_a_defender(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "5", "3", "N")
    err = refused(match, hand(60, penalties=[penalty("kitty-wrong", "E", choice="play-on")]))
    assert (err.field, err.problem_key) == ("penalties[0].seat", "rules.entry.seat_cannot_commit")
    _, r = match.play(hand(60, penalties=[penalty("kitty-wrong", "S", choice="play-on")]))
    assert (r.total, r.result) == (80, "take-over")  # art. 14: 罚莊家20分


@pytest.mark.unit
def test_xiamen_kitty_peek_only_by_the_dealer_side_and_recount_only_by_the_defenders(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    refused(match, hand(100, penalties=[penalty("kitty-peek", "E")]))
    refused(match, hand(60, penalties=[penalty("kitty-recount", "N")]))
    _, peek = match.play(hand(100, penalties=[penalty("kitty-peek", "N")]))
    _, recount = match.play(hand(60, penalties=[penalty("kitty-recount", "W")]))
    assert (peek.total, recount.total) == (120, 40)


@pytest.mark.unit
def test_chaodipi_kitty_underdrawn_at_a_defender_is_refused(rulesets):
    # In a simulated match this alone once handed the match to the wrong side.
    match = at_levels(rulesets, "chaodipi-2011", "5", "5", "N")
    refused(match, hand(100, penalties=[penalty("kitty-underdrawn", "E")]))
    _, r = match.play(hand(100, penalties=[penalty("kitty-underdrawn", "S")]))
    assert (r.total, r.result, r.advance) == (180, "take-over", 6)  # +10, stopped at J


@pytest.mark.unit
def test_chaodipi_kitty_wrong_is_charged_to_the_dealer_and_whoever_buried_last(rulesets):
    match = at_levels(rulesets, "chaodipi-2011", "5", "5", "N")
    wrong = [penalty("kitty-wrong", "W")]
    err = refused(match, hand(60, penalties=wrong))  # no buried_by: the dealer N buried
    assert err.field == "penalties[0].seat"
    _, r = match.play(hand(60, penalties=wrong, buried_by="W"))
    assert r.total == 60 - 80  # W (a defender) fried, buried a wrong kitty: 80 off T
    _, r = match.play(hand(60, penalties=[penalty("kitty-wrong", "N")], buried_by="W"))
    assert r.total == 60 + 80  # 六.2: the dealer buried it wrong before W fried
    refused(match, hand(60, penalties=[penalty("kitty-wrong", "E")], buried_by="W"))
    with pytest.raises(EntryError) as bad:
        match.play(hand(60, buried_by="X"))
    assert bad.value.field == "buried_by"


@pytest.mark.unit
def test_without_frying_only_the_dealer_buries(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    err = refused(match, hand(60, buried_by="S"))
    assert (err.field, err.problem_key) == ("buried_by", "rules.entry.buried_by_dealer")
    assert match.play(hand(60, buried_by="N"))[1].total == 60


@pytest.mark.unit
def test_the_refusal_names_the_seat_and_the_side_in_the_rulesets_words():
    record = {"ruleset": "chaodipi-2011", "first_dealer": "N", "hands": [
        {"points": 40}, {"points": 100, "penalties": [{"code": "kitty-underdrawn", "seat": "W"}]}]}
    done = kiosk("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "kiosk replay：第2副，第1条违例的座位：西不能被判“底牌少抓，庄家多牌”：这项违例只有"
        "庄家方（北、南）会犯")
    english = kiosk("replay", "-", "--lang", "en", stdin=json.dumps(record))
    assert english.stderr.strip() == (
        "kiosk replay: hand 2, the seat of penalty 1: W cannot be charged with “Kitty "
        "underdrawn, dealer holds extra”: only the dealer side (N, S) can commit it")
    xiamen = {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"points": 60, "penalties": [{"code": "kitty-recount", "seat": "S"}]}]}
    done = kiosk("replay", "-", "--lang", "zh-Hant", stdin=json.dumps(xiamen))
    assert "南不能被判「旁家再查底牌」：這項違例只有旁家（東、西）會犯" in done.stderr


@pytest.mark.unit
def test_a_broken_committed_by_is_refused_when_the_file_loads():
    text = (DATA / "xiamen-2015.toml").read_text(encoding="utf-8").replace(
        'committed_by = "defenders"', 'committed_by = "the-other-lot"')
    with pytest.raises(RulesetError) as err:
        parse_ruleset(text.encode(), "house.toml")
    assert err.value.path == "penalties.kitty-recount.committed_by"


# -- 2. a per-card penalty needs its count ----------------------------------------------------


@pytest.mark.unit
def test_a_per_card_penalty_without_cards_is_refused_in_replay():
    record = {"ruleset": "chaodipi-2011", "first_dealer": "N", "hands": [
        {"points": 50, "penalties": [{"code": "failed-throw", "seat": "E"}]}]}
    done = kiosk("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 2
    assert done.stderr.strip() == ("kiosk replay：第1副，第1条违例的张数：“甩牌失败”按张罚分："
                                   "请填张数（1到33）")


# -- 3. a fixed total overrides the other penalties' points -----------------------------------


@pytest.mark.unit
def test_points_a_fixed_total_overrode_are_recorded_not_counted(rulesets):
    _, r = at_levels(rulesets, "xiamen-2015", "2", "2", "N").play(hand(95, penalties=[
        penalty("look-back", "E"), penalty("hidden-card", "S")]))
    assert r.total == 200
    look_back = r.penalties[0].to_json()
    assert (look_back["points"], look_back["not_counted"]) == (0, -10)
    assert "not_counted" not in r.penalties[1].to_json()


# -- 5. one incident, one penalty (xiamen art. 22) --------------------------------------------


@pytest.mark.unit
def test_xiamen_refuses_two_penalties_for_one_incident(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    two = [penalty("wrong-follow", "E", incident="t5"), penalty("exposed-card", "E",
                                                                incident="t5")]
    err = refused(match, hand(60, penalties=two))
    assert (err.field, err.problem_key) == ("penalties[1].incident",
                                            "rules.entry.incident_twice")
    _, r = match.play(hand(60, penalties=[two[0], {**two[1], "incident": "t6"}]))
    assert r.total == 40 and [p.incident for p in r.penalties] == ["t5", "t6"]


@pytest.mark.unit
def test_chaodipi_stacks_penalties_on_one_incident(rulesets):
    # 六.1: the wrong card costs 10 a card and the silent partner 80, for one wrong play
    _, r = at_levels(rulesets, "chaodipi-2011", "2", "2", "N").play(hand(50, penalties=[
        penalty("wrong-follow", "N", cards=1, incident=3),
        penalty("partner-silent", "N", incident=3)]))
    assert r.total == 140


@pytest.mark.unit
def test_an_incident_is_text_or_a_number(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    for bad in (True, "  ", [1], 2.5):
        err = refused(match, hand(60, penalties=[penalty("wrong-follow", "E", incident=bad)]))
        assert err.field == "penalties[0].incident"


# -- 6. a cost the referee must call ----------------------------------------------------------


@pytest.mark.unit
def test_chaodipi_second_bury_overrun_counts_in_replay_only_when_confirmed():
    def record(confirmed):
        second = {"code": "time-overrun", "seat": "S", "choice": "bury"}
        if confirmed is not None:
            second["confirmed"] = confirmed
        return {"ruleset": "chaodipi-2011", "first_dealer": "N", "hands": [
            {"points": 40, "penalties": [{"code": "time-overrun", "seat": "N",
                                          "choice": "bury"}]},
            {"points": 40, "penalties": [second]}]}

    totals = {}
    for confirmed in (None, False, True):
        lines = [json.loads(x) for x in kiosk("replay", "-", stdin=json.dumps(
            record(confirmed))).stdout.splitlines()]
        totals[confirmed] = (lines[1]["total"], lines[1]["penalties"][0]["effect"])
    assert totals == {None: (40, "unconfirmed"), False: (40, "unconfirmed"),
                      True: (120, "points")}


@pytest.mark.unit
def test_referee_confirms_on_a_warning_is_refused_when_the_file_loads():
    text = (DATA / "xiamen-2015.toml").read_text(encoding="utf-8").replace(
        'en = "Time overrun"\neffect = "warning"',
        'en = "Time overrun"\neffect = "warning"\nreferee_confirms = true')
    with pytest.raises(RulesetError) as err:
        parse_ruleset(text.encode(), "house.toml")
    assert err.value.path == "penalties.time-overrun.referee_confirms"


# -- 7. redeals ----------------------------------------------------------------------------


@pytest.mark.unit
def test_redeal_callers_are_the_defenders_with_the_condition_in_words(rulesets):
    xiamen, standard = rulesets["xiamen-2015"], rulesets["standard-80fen"]
    assert xiamen.redeal_callers("N") == ("E", "W")
    assert standard.redeal_callers("W") == ("N", "S")
    assert rulesets["chaodipi-2011"].redeal_callers("N") == ()
    assert rulesets["chaodipi-2011"].redeal_condition() is None
    said = {r: rulesets[r].redeal_condition() for r in ("xiamen-2015", "standard-80fen")}
    from kiosk.i18n import render
    assert render(said["xiamen-2015"].key, said["xiamen-2015"].params, "zh-Hans") == (
        "旁家中有一人手中牌分不超过15分时可以革命：重新发牌，不升级。")
    assert render(said["standard-80fen"].key, said["standard-80fen"].params, "zh-Hans") == (
        "抢分方中有一人手中牌分不超过15分、且该人还没有出牌时，可以革命：重新发牌，不升级；"
        "是否革命由该人自行决定，不得与同伴商量。")


@pytest.mark.unit
def test_a_redeal_by_the_dealer_side_is_refused(rulesets):
    match = TeamMatch.start(rulesets["xiamen-2015"], "N")
    err = refused(match, hand(redeal=True, called_by="S"))
    assert (err.field, err.problem_key) == ("called_by", "rules.entry.redeal_caller")
    _, r = match.play(hand(redeal=True, called_by="E"))
    assert (r.result, r.to_json()["called_by"]) == ("redeal", "E")
    assert refused(match, hand(40, called_by="E")).field == "called_by"
    done = kiosk("replay", "-", stdin=json.dumps({
        "ruleset": "standard-80fen", "first_dealer": "N", "hands": [
            {"redeal": True, "called_by": "N"}]}))
    assert done.stderr.startswith("kiosk replay：第1副，革命提出者：北不能提出革命：只有抢分方"
                                  "（东、西）可以。抢分方中有一人手中牌分不超过15分")


# -- 8. the missing codes ------------------------------------------------------------------


@pytest.mark.unit
def test_standard_has_a_ruling_and_no_kitty_peek_cost(rulesets):
    standard = rulesets["standard-80fen"]
    assert "kitty-peek" not in standard.penalties  # the seed sets none: a ruling
    match = at_levels(rulesets, "standard-80fen", "2", "2", "N")
    _, r = match.play(hand(40, penalties=[penalty("ruling", "N", points=20)]))
    assert r.total == 60
    _, r = match.play(hand(40, penalties=[penalty("ruling", "E", choice="match-loss")]))
    assert (r.result, r.winner) == ("match-loss", "NS")


@pytest.mark.unit
@pytest.mark.parametrize("code", ["exposed-card", "out-of-turn", "look-back"])
def test_shuangsheng_records_an_exposed_card_out_of_turn_play_and_looking_back(rulesets, code):
    from kiosk.rules import DealEntry, IndividualRound, PenaltyEntry

    round_ = IndividualRound.start(rulesets["shuangsheng-2011"])
    _, deal = round_.play(DealEntry(points=40, partner="W", penalties=(PenaltyEntry(code, "N"),)))
    assert (deal.total, deal.penalties[0].effect, deal.penalties[0].points) == (40, "record", 0)


# -- terms: each ruleset's own words --------------------------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize(("ruleset_id", "dealer_side", "defenders"), [
    ("xiamen-2015", "庄家方", "旁家"),
    ("standard-80fen", "庄家方", "抢分方"),
    ("chaodipi-2011", "庄家方", "抓分方"),
    ("shuangsheng-2011", "保庄方", "防守方"),
])
def test_each_ruleset_speaks_its_seeds_words(rulesets, ruleset_id, dealer_side, defenders):
    terms = rulesets[ruleset_id].terms
    assert (terms["dealer_side"].zh_hans, terms["defenders"].zh_hans) == (dealer_side, defenders)
    seed = (ROOT.parent / "shared" / "seeds" / rulesets[ruleset_id].seed)
    if seed.exists():  # the seed's own text holds the words (xiamen's in 繁體)
        text = seed.read_text(encoding="utf-8", errors="replace")
        assert terms["defenders"].zh_hant in text or terms["defenders"].zh_hans in text
        assert terms["dealer_side"].zh_hant in text or terms["dealer_side"].zh_hans in text
    if ruleset_id == "chaodipi-2011":
        assert (terms["dealer_side_also"].zh_hans, terms["defenders_also"].zh_hans) == (
            "台上方", "台下方")


# -- 9. every refusal has words in every language ---------------------------------------------


BAD_RECORDS = [
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "kitty": {
        "points": 10, "shape": "tractor1"}}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "kitty": {
        "points": 10, "shape": "pair2"}}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "kitty": {
        "points": 10, "shape": "rocket"}}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 150, "kitty": {
        "points": 60, "shape": "pair"}}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "kitty": {
        "points": 85, "shape": "pair"}}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"kitty": {"points": 5}}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "card-count", "seat": "E"}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "card-count", "seat": "E", "choice": "lots"}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "exposed-card", "seat": "E", "choice": "lots"}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "exposed-card", "seat": "E", "choice": 3}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "exposed-card", "seat": "E", "cards": 2}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "exposed-card", "seat": "E", "points": 20}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "exposed-card", "seat": "E", "levels": 2}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "exposed-card", "seat": "E", "late": "yes"}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "time-overrun", "seat": "E", "choice": "points", "points": 7}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "failed-throw", "seat": "E", "cards": 99}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"seat": "E"}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "penalties": {}}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"penalties": [
        {"code": "hidden-card", "seat": "E"}, {"code": "hidden-card", "seat": "S"}]}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"dealer": "S", "points": 45}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"dealer": "Q", "points": 45}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"as_played": True, "points": 45}]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"redeal": True, "points": 45}]},
    {"ruleset": "xiamen-2015", "first_dealer": "X", "hands": []},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [], "end": {
        "time_up": "between-hands"}},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [], "end": {
        "time_up": "during-last-hand"}},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [], "end": {"forfeit": "NS",
                                                                        "reason": 3}},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [], "end": {"forfeit": "NS",
                                                                        "why": "x"}},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [], "teams": ["NS"]},
    {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [], "round": [1]},
    {"ruleset": "chaodipi-2011", "first_dealer": "N", "hands": [{"redeal": True}]},
    {"ruleset": "chaodipi-2011", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "ruling", "seat": "E", "choice": "levels"}]}]},
    {"ruleset": "standard-80fen", "first_dealer": "N", "hands": [{"points": 45, "penalties": [
        {"code": "wrong-follow", "seat": "E", "late": True}]}]},
    {"ruleset": "shuangsheng-2011", "deals": [{"points": 45}]},
    {"ruleset": "shuangsheng-2011", "deals": [{"points": 45, "partner": "E"}]},
    {"ruleset": "shuangsheng-2011", "deals": [{"points": 45, "partner_card": "joker"}]},
    {"ruleset": "shuangsheng-2011", "deals": [{"points": 45, "partner_card": "1"}]},
    {"ruleset": "shuangsheng-2011", "deals": [{"points": 45, "partner": "W",
                                               "partner_card": "A"}]},
    {"ruleset": "shuangsheng-2011", "deals": [{"points": 45, "partner": "W", "dealer": "N"}]},
    {"ruleset": "shuangsheng-2011", "deals": [{"points": 45, "partner": "W", "redeal": True}]},
]
ENGLISH_WORDS = re.compile(r"\b(is|the|give|not|must|only|allowed|refused)\b")


@pytest.mark.unit
@pytest.mark.parametrize("record", BAD_RECORDS, ids=range(len(BAD_RECORDS)))
def test_every_refusal_is_said_in_every_language_naming_where(rulesets, record):
    with pytest.raises(RecordError) as err:
        list(replay(record, rulesets))
    error = err.value
    assert error.key in catalog("en") and error.problem_key in catalog("en"), error
    for lang in LANGS:
        words = explain(error, lang)
        assert words != catalog(lang)["error.unexpected"]
        assert not re.search(r"\{[a-z_]\w*\}", words), words
        if lang != "en":  # no developer English; record codes like 'tractor1' may appear
            assert not ENGLISH_WORDS.search(words), words
            assert words.startswith(("第", "比赛", "比賽")), words


@pytest.mark.unit
def test_entry_errors_from_the_fold_carry_keys_too(rulesets):
    match = TeamMatch.start(rulesets["xiamen-2015"], "N")
    match, _ = play(match, *[hand(0)] * 3)
    with pytest.raises(EntryError) as err:
        match.play(hand(40))
    assert err.value.problem_key == "rules.entry.match_over"
    assert explain(err.value, "zh-Hans") == "比赛已经结束：南北获胜（打过终点级）"
    with pytest.raises(EntryError) as err:
        TeamMatch.start(rulesets["shuangsheng-2011"])
    assert explain(err.value, "en") == "ruleset: “Shuangsheng individual event 2011” is not " \
                                       "a team ruleset"


@pytest.mark.unit
def test_words_render_nested_parameters():
    from kiosk.i18n import render

    nested = Words("rules.at_field", {"field": Words("rules.field.points", {}),
                                      "problem": Words("rules.entry.points_missing",
                                                       {"step": 5, "max": 200})})
    assert render(nested.key, nested.params, "zh-Hant") == "得分：沒有填得分；請填0到200之間5的倍數"
