"""`kiosk replay` and the record contract of docs/rules.md §9, through the real command line."""

from __future__ import annotations

import json

import pytest

from .helpers import EXAMPLES, jsonl
from .helpers import cli as kiosk

pytestmark = pytest.mark.unit

EXAMPLE_IDS = ["xiamen-2015", "standard-80fen", "chaodipi-2011", "shuangsheng-2011"]


def replay(record: dict, *args: str):
    return kiosk("replay", "-", *args, stdin=json.dumps(record, ensure_ascii=False))


@pytest.mark.parametrize("name", EXAMPLE_IDS)
def test_shipped_examples_replay_to_the_expected_lines(name):
    done = kiosk("replay", str(EXAMPLES / f"{name}-example.json"))
    assert done.returncode == 0, done.stderr
    expected = jsonl((EXAMPLES / f"{name}-example.expected.jsonl").read_text())
    got = jsonl(done.stdout)
    assert len(got) == len(expected)
    for line, want in zip(got, expected, strict=True):
        assert {k: line.get(k) for k in want} == want


def test_the_penalties_example_replays_to_its_checked_lines():
    # chaodipi-2011: a frier's wrong kitty (buried_by), a wrong card and the silent partner on
    # one incident, the first bury overrun a warning and the second confirmed by the referee,
    # the first look-back free, the dealer side's underdrawn kitty; each total checked by hand
    done = kiosk("replay", str(EXAMPLES / "chaodipi-2011-penalties.json"))
    assert done.returncode == 0, done.stderr
    expected = jsonl((EXAMPLES / "chaodipi-2011-penalties.expected.jsonl").read_text())
    got = jsonl(done.stdout)
    assert got == expected
    assert [(x["total"], x["result"], x["advance"]) for x in got] == [
        (20, "hold", 6), (150, "take-over", 7), (50, "hold", 2), (110, "take-over", 3),
        (50, "hold", 3)]
    assert got[-1]["levels"] == {"NS": "A", "EW": "J"}


def test_shuangsheng_deal_of_255_card_points_is_refused():
    # The shared example's deal 16 enters 255 card points; two decks hold 200 (docs/rules.md §1).
    # The shipped copy reaches T = 255 with 95 points and a kitty of 40 taken by a pair.
    record = json.loads((EXAMPLES / "shuangsheng-2011-example.json").read_text())
    record["deals"][15] = {"partner_card": "Q", "points": 255}
    done = replay(record)
    assert done.returncode == 2
    assert len(jsonl(done.stdout)) == 15
    assert done.stderr.strip() == ("kiosk replay：第16副，得分：255不是有效的牌分；"
                                   "请填0到200之间5的倍数")


def test_stdin_and_file_give_the_same_lines():
    path = EXAMPLES / "chaodipi-2011-example.json"
    assert kiosk("replay", str(path)).stdout == kiosk("replay", "-",
                                                      stdin=path.read_text()).stdout


def test_an_error_names_hand_and_field_after_printing_the_hands_before_it():
    done = replay({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"points": 45}, {"points": 60}, {"points": 30, "penalties": [
            {"code": "exposed-card", "seat": "Q"}]}, {"points": 10}]})
    assert done.returncode == 2
    assert [line["hand"] for line in jsonl(done.stdout)] == [1, 2]
    assert done.stderr.strip() == ("kiosk replay：第3副，第1条违例的座位：“Q”不是座位；"
                                   "请填N（北）、E（东）、S（南）或W（西）")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("record", "chinese", "english"), [
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 0}] * 9},
     "第4副：比赛已经结束：南北获胜", "hand 4: the match is over: NS won"),
    ({"ruleset": "nope", "hands": []}, "比赛记录，规则：没有规则“nope”",
     "the record, ruleset: unknown ruleset 'nope'"),
    ({"ruleset": "xiamen-2015", "hands": [{"points": 45}]},
     "第1副，庄家：请填首庄", "hand 1, dealer: give the first dealer"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"dealer": "E", "points": 5}]},
     "比赛记录，首庄：首庄“N”与第1副的庄家“E”不同",
     "the record, first dealer: the first dealer “N” differs from hand 1's dealer “E”"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "pionts": 3}]},
     "第1副，“pionts”：不认识的字段", "hand 1, “pionts”: unknown field"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45}],
      "ruleset_sha256": "0" * 64}, "比赛记录，规则文件校验值（sha256）：这份记录是用另一份",
     "the record, ruleset checksum (sha256): the record was scored with another"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45,
                                                               "disputed_by": "N"}]},
     "第1副，有异议的一方：“N”不可用；可选：NS, EW",
     "hand 1, the side that disputed: “N” is refused; allowed: NS, EW"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N",
      "hands": [{"points": 60, "kitty": {"points": 10}}]},  # (standard-80fen: not asked)
     "第1副，抠底牌型：缺少此项；本规则按赢得最后一轮的牌型加倍底分",
     "hand 1, kitty shape: missing; this ruleset multiplies the kitty by the shape"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": "lots"},
     "比赛记录，各副记录：应为列表", "the record, hands: give a list"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [7]},
     "第1副，这一副的记录：应为一个JSON对象", "hand 1, this hand's entry: must be"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "kitty": 30}]},
     "第1副，抠底：应为一个JSON对象", "hand 1, kitty: must be a JSON object"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45, "redeal": 1}]},
     "第1副，革命：1：请填true（是）或false（否）", "hand 1, redeal: 1: give true or false"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45}],
      "end": {"time_up": "later"}}, "比赛结束记录，时间到：“later”不可用",
     "the end of the match, time up: “later” is refused"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45}],
      "end": {"forfeit": "NS", "time_up": "between-hands"}},
     "比赛结束记录：时间到（time_up）和弃权（forfeit）请只填一项",
     "the end of the match: give either"),
    ({"ruleset": "standard-80fen", "first_dealer": "N", "hands": [{"points": 45}],
      "end": {"time_up": "between-hands"}},
     "比赛结束记录，时间到：“扑克牌八十分比赛规则”没有规定比赛时间到时怎么办",
     "the end of the match, time up: “Standard competition 80 points” has no time-up rule"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45}, {"points": 60}],
      "end": {"time_up": "during-last-hand"}}, "第2副，时间到：时间到时双方级数不同",
     "hand 2, time up: at time up the levels differed"),
    ({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45}],
      "end": {"forfeit": "SN"}}, "比赛结束记录，弃权：“SN”不是队",
     "the end of the match, forfeit: “SN” is not a team"),
    ({"ruleset": "shuangsheng-2011", "deals": [{"partner_card": "2", "points": 45}] * 17},
     "第17副：“2011 扑克双升个人赛”每轮打16副，已经打完",
     "deal 17: a “Shuangsheng individual event 2011” round is 16 deals"),
    ([1, 2], "比赛记录：应为一个JSON对象", "the record: must be a JSON object"),
])
def test_bad_records_are_refused_with_a_clear_message(record, chinese, english):
    done = replay(record)  # 简体中文 by default
    assert done.returncode == 2
    assert done.stderr.startswith(f"kiosk replay：{chinese}"), done.stderr
    assert "Traceback" not in done.stderr
    done = replay(record, "--lang", "en")
    assert done.stderr.startswith(f"kiosk replay: {english}"), done.stderr


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "比赛记录：不是JSON格式（第1行第2列）"),
    ("", "比赛记录：不是JSON格式（第1行第1列）"),
])
def test_unreadable_input(text, message):
    done = kiosk("replay", "-", stdin=text)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip() == f"kiosk replay：{message}"


def test_missing_file():
    done = kiosk("replay", "/nonexistent/record.json", "--lang", "en")
    assert done.returncode == 2
    assert done.stderr.strip() == ("kiosk replay: the record: cannot read "
                                   "/nonexistent/record.json: there is no such file or directory")
    chinese = kiosk("replay", "/nonexistent/record.json")
    assert chinese.stderr == ("kiosk replay：比赛记录：无法读取/nonexistent/record.json："
                              "没有这个文件或目录\n")


def test_a_kitty_of_a_ruleset_whose_shapes_all_multiply_the_same_needs_no_shape():
    lines = jsonl(replay({"ruleset": "standard-80fen", "first_dealer": "N", "hands": [
        {"points": 60, "kitty": {"points": 10}}]}).stdout)
    assert lines[0]["total"] == 80  # 60 + 10 × 2, whatever won the last trick


def test_time_up_between_hands_marks_the_last_line():
    lines = jsonl(replay({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"points": 45}, {"points": 100}], "end": {"time_up": "between-hands"}}).stdout)
    assert lines[-1]["levels"] == {"NS": "4", "EW": "3"}
    assert (lines[-1]["winner"], lines[-1]["by"], lines[-1]["big_points"]) == (
        "NS", "time-up", {"NS": 3, "EW": 0})
    assert lines[0]["winner"] is None


def test_time_up_during_last_hand_finishes_it():
    lines = jsonl(replay({"ruleset": "chaodipi-2011", "first_dealer": "N", "hands": [
        {"points": 60}, {"points": 140}], "end": {"time_up": "during-last-hand"}}).stdout)
    # NS 2 -> 4; then EW take over +6 -> 8 and lead when the finished hand ends the match.
    assert (lines[-1]["levels"], lines[-1]["winner"], lines[-1]["by"]) == (
        {"NS": "4", "EW": "8"}, "EW", "time-up")


def test_forfeit_before_any_hand_prints_one_end_line():
    lines = jsonl(replay({"ruleset": "standard-80fen", "hands": [],
                          "end": {"forfeit": "EW", "reason": "late 15 min"}}).stdout)
    assert lines == [{"hand": None, "dealer": None, "level": None, "total": None,
                      "result": "end", "advance": None, "levels": {"NS": "2", "EW": "2"},
                      "next_dealer": None, "winner": "NS", "by": "forfeit",
                      "reason": "late 15 min"}]


def test_corrected_match_replays_as_played_dealers():
    lines = jsonl(replay({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"points": 100}, {"dealer": "W", "as_played": True, "points": 45}]}).stdout)
    assert [(x["dealer"], x["levels"]) for x in lines] == [
        ("N", {"NS": "2", "EW": "3"}), ("W", {"NS": "2", "EW": "5"})]


def test_matching_sha256_is_accepted(rulesets):
    record = json.loads((EXAMPLES / "standard-80fen-example.json").read_text())
    record["ruleset_sha256"] = rulesets["standard-80fen"].sha256
    assert replay(record).returncode == 0


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "en"])
def test_score_sheet(lang):
    done = kiosk("replay", str(EXAMPLES / "xiamen-2015-example.json"), "--format", "sheet",
                 "--lang", lang)
    assert done.returncode == 0, done.stderr
    head = {"zh-Hans": "记分表", "zh-Hant": "記分表", "en": "Score sheet"}[lang]
    winner = {"zh-Hans": "胜方：东西（打过A）", "zh-Hant": "勝方：東西（打過A）",
              "en": "Winner: EW (past A)"}[lang]
    assert head in done.stdout and winner in done.stdout
    hand_rows = [line.split() for line in done.stdout.splitlines() if line[:4].strip().isdigit()]
    east = {"zh-Hans": "东", "zh-Hant": "東", "en": "E"}[lang]
    assert [row[:3] for row in hand_rows][-1] == ["8", east, "K"]


def test_score_sheet_for_shuangsheng_ranks_players():
    done = kiosk("replay", str(EXAMPLES / "shuangsheng-2011-example.json"), "--format",
                 "sheet", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert "N 121 > E 88 > S 78 > W 67" in done.stdout


def test_score_sheet_shows_where_replay_stopped():
    done = replay({"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [
        {"points": 45}, {"points": 3}]}, "--format", "sheet", "--lang", "en")
    assert done.returncode == 2
    assert "Stopped at an error: hand 2, points: 3 is not a card-point count" in done.stdout


@pytest.mark.parametrize("text", [
    '{"ruleset": "shuangsheng-2011", "deals": [{"partner_card": [1], "points": 45}]}',
    "[" * 100_000,
    '{"ruleset": "xiamen-2015", "x": ' + "9" * 5000 + "}",
    '{"ruleset": []}',
    '{"ruleset": "xiamen-2015", "first_dealer": "N", "teams": ["x"], "hands": []}',
    '{"ruleset": "xiamen-2015", "first_dealer": "N", "players": "NS", "hands": []}',
    '{"ruleset": "xiamen-2015", "first_dealer": "N", "round": [], "hands": []}',
])
@pytest.mark.parametrize("form", ["json", "sheet"])
def test_odd_input_is_a_clear_error_in_every_format(text, form):
    done = kiosk("replay", "-", "--format", form, stdin=text)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("kiosk replay：") and "Traceback" not in done.stderr
