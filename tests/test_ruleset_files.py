"""Ruleset files: the shipped four, house rulesets, and broken files refused with a message that
names the file, the key, the bad value and what is allowed."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from kiosk.rules import BUILTIN_IDS, RulesetError, Rulesets, parse_ruleset

from .helpers import ROOT, jsonl
from .helpers import cli as kiosk

DATA = ROOT / "kiosk" / "rules" / "data"
XIAMEN = (DATA / "xiamen-2015.toml").read_text(encoding="utf-8")


def house(text: str, ruleset_id: str = "house-club") -> str:
    return text.replace('id = "xiamen-2015"', f'id = "{ruleset_id}"', 1)


def broken(old: str, new: str) -> str:
    assert old in XIAMEN, old
    return house(XIAMEN.replace(old, new, 1))


@pytest.mark.unit
def test_the_four_rulesets_ship_with_their_content_hash(rulesets):
    assert list(rulesets) == list(BUILTIN_IDS)
    for ruleset_id in BUILTIN_IDS:
        data = (DATA / f"{ruleset_id}.toml").read_bytes()
        assert rulesets[ruleset_id].sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.unit
def test_every_reading_of_rules_md_is_written_in_its_ruleset(rulesets):
    topics = {r: {x.topic for x in rulesets[r].readings} for r in BUILTIN_IDS}
    assert {"kitty-shape", "redeal-dealer", "time-up", "net-levels", "swiss-rematch"} <= topics[
        "xiamen-2015"]
    assert {"failed-throw", "first-dealer", "timing"} <= topics["standard-80fen"]
    assert {"kitty-shape", "dealer-rotation", "time-up", "counters"} <= topics["chaodipi-2011"]
    assert {"kitty-shape", "direction", "seats", "joker", "ties", "finals"} <= topics[
        "shuangsheng-2011"]
    for ruleset_id in BUILTIN_IDS:
        for reading in rulesets[ruleset_id].readings:
            assert all(reading.text(lang) for lang in ("zh-Hans", "zh-Hant", "en"))


@pytest.mark.unit
def test_timing_and_penalty_catalog_as_rules_md_gives(rulesets):
    xiamen, chaodipi = rulesets["xiamen-2015"], rulesets["chaodipi-2011"]
    assert (xiamen.time.play_seconds, xiamen.time.bury_seconds, xiamen.time.match_minutes) == (
        5, 10, 90)
    assert (chaodipi.time.play_seconds, chaodipi.time.bury_seconds,
            chaodipi.time.rebury_seconds, chaodipi.time.match_minutes) == (15, 60, 60, 60)
    assert rulesets["standard-80fen"].time.match_minutes is None
    assert set(rulesets["shuangsheng-2011"].penalties) == {
        "failed-throw", "hidden-card", "card-count", "time-overrun",
        "exposed-card", "out-of-turn", "look-back"}  # the last three: recorded, no cost
    assert {"kitty-recount", "bad-trump-show", "hidden-card-trump"} <= set(xiamen.penalties)
    assert {"rearranged", "partner-silent", "kitty-underdrawn"} <= set(chaodipi.penalties)
    assert chaodipi.frying and not xiamen.frying


def write(tmp_path: Path, text: str, name: str = "house.toml") -> Path:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.unit
@pytest.mark.parametrize(("old", "new", "key", "words"), [
    ("from = 20\nto = 35", "from = 25\nto = 35", "bands[2].from",
     "25 is refused; a gap: after a band ending at 15 the next must start at 20"),
    ("from = 20\nto = 35", "from = 15\nto = 35", "bands[2].from",
     "15 is refused; an overlap: after a band ending at 15 the next must start at 20"),
    ("[dealer]\n", "[dealer]\nholds = \"partner\"\n", "dealer.holds",
     "unknown key; allowed here: direction, direction_read, first, hold, take_over"),
    ('must_play = []', 'must_play = ["2", "B"]', "ladder.must_play[1]",
     "“B” is refused; not on the ladder; allowed: 2 3 4 5 6 7 8 9 10 J Q K A"),
    ("play_seconds = 5", "play_seconds = -5", "time.play_seconds",
     "-5 is refused; allowed: a number of seconds"),
    ('effect = "dealer-steps-down"', 'effect = "banish"', "penalties.kitty-wrong.effect",
     "“banish” is refused; allowed: points, referee-points, warning"),
    ("points = 10\nper = \"card\"", "points = 12\nper = \"card\"",
     "penalties.failed-throw.points", "12 is refused; allowed: a multiple of 5"),
    ('final = "A"', 'final = "B"', "ladder.final", "“B” is refused; allowed: 2, 3, 4"),
    ("every = 20", "every = 20\nto = 400", "bands[5].to",
     "400 is refused; the last band has no upper end"),
    ('time_up = "higher-level-now"', 'time_up = "coin-toss"', "time.time_up",
     "“coin-toss” is refused; allowed: none, higher-level-now, finish-hand-then-leader"),
    ('[summary]\nzh-Hans', '[summary]\nfr = "non"\nzh-Hans', "summary.fr", "unknown key"),
    ("play_seconds = 5", "play_seconds = 5\ngather_seconds = 31", "time.gather_seconds",
     "31 is refused; allowed: 0 to 30 seconds"),
    ('tractor_growth = "double"', 'tractor_growth = "triple"', "kitty.tractor_growth",
     "“triple” is refused; allowed: double, add"),
    ('effect = "record"', 'effect = "big-points"\nerring = -2\nother_at_least = 2',
     "penalties.card-count.choices.opponents.effect",
     "“big-points” is refused; not available in this kind of ruleset"),
])
def test_broken_ruleset_files_are_refused(tmp_path, old, new, key, words):
    path = write(tmp_path, broken(old, new)) / "house.toml"
    with pytest.raises(RulesetError) as err:
        Rulesets.load([tmp_path])
    assert (err.value.file, err.value.path) == (str(path), key)
    assert str(err.value) == f"{path}: {key}: {err.value.problem}"
    assert words in err.value.problem
    done = kiosk("--rules-dir", str(tmp_path), "rules", "list", "--lang", "en")
    assert done.returncode == 2
    assert done.stderr.strip() == f"kiosk rules: ruleset file {path}, {key}: {err.value.problem}"
    done = kiosk("--rules-dir", str(tmp_path), "rules", "list")  # 简体中文 by default
    assert done.stderr.startswith(f"kiosk rules：规则文件{path}，{key}："), done.stderr
    assert not re.search("[a-z]{3,} (is|the|a) ", done.stderr.split("：", 1)[1]), done.stderr


@pytest.mark.unit
def test_toml_syntax_error_names_its_line(tmp_path):
    text = house(XIAMEN).replace('en = "Xiamen grain-system games 2015"', 'en = Xiamen', 1)
    line = text.splitlines().index("en = Xiamen") + 1
    write(tmp_path, text)
    with pytest.raises(RulesetError, match=rf"TOML syntax error: .*\(at line {line}, column"):
        Rulesets.load([tmp_path])


@pytest.mark.unit
def test_file_that_is_not_utf8(tmp_path):
    (tmp_path / "house.toml").write_bytes(house(XIAMEN).encode("gb18030"))
    with pytest.raises(RulesetError, match="not UTF-8"):
        Rulesets.load([tmp_path])


@pytest.mark.unit
def test_missing_key_and_duplicate_id_and_missing_directory(tmp_path):
    write(tmp_path, re.sub(r"\[redeal\]\n(.*\n){3}", "", house(XIAMEN)).replace(
        "[time]\n", "[time]\n", 1).replace("bury_seconds = 10\n", ""))
    with pytest.raises(RulesetError, match=r"time\.bury_seconds: missing; this key is required"):
        Rulesets.load([tmp_path])
    write(tmp_path, XIAMEN)
    with pytest.raises(RulesetError, match="'xiamen-2015' is already used by kiosk/rules/data"):
        Rulesets.load([tmp_path])
    with pytest.raises(RulesetError, match="no such directory"):
        Rulesets.load([tmp_path / "nowhere"])


@pytest.mark.unit
def test_parse_refuses_a_wrong_kind():
    with pytest.raises(RulesetError, match="kind: “pairs” is refused; allowed: team, individual"):
        parse_ruleset(XIAMEN.replace('kind = "team"', 'kind = "pairs"').encode(), "x.toml")


@pytest.mark.unit
def test_house_ruleset_from_rules_dir_and_environment(tmp_path):
    text = house(XIAMEN).replace("play_seconds = 5", "play_seconds = 8")
    write(tmp_path, text)
    done = kiosk("--rules-dir", str(tmp_path), "rules", "show", "house-club", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert "Play: 8 s" in done.stdout
    assert hashlib.sha256(text.encode()).hexdigest() in done.stdout
    env = {**os.environ, "KIOSK_RULES_DIR": str(tmp_path)}
    listed = kiosk("rules", "list", "--lang", "en", env=env)
    assert "house-club" in listed.stdout
    record = '{"ruleset": "house-club", "first_dealer": "N", "hands": [{"points": 45}]}'
    assert jsonl(kiosk("replay", "-", stdin=record, env=env).stdout)[0]["levels"] == {
        "NS": "4", "EW": "2"}


@pytest.mark.unit
@pytest.mark.parametrize("ruleset_id", BUILTIN_IDS)
@pytest.mark.parametrize(("lang", "words"), [
    ("zh-Hans", ["罚则", "解释"]), ("zh-Hant", ["罰則", "解釋"]),
    ("en", ["Penalties", "Readings"])])
def test_rules_show_in_every_language(rulesets, ruleset_id, lang, words):
    done = kiosk("rules", "show", ruleset_id, "--lang", lang)
    assert done.returncode == 0, done.stderr
    ruleset = rulesets[ruleset_id]
    for text in [*words, ruleset.name(lang), ruleset.sha256]:
        assert text in done.stdout
    for penalty in ruleset.penalties.values():
        assert penalty.code in done.stdout and penalty.name(lang) in done.stdout
    for reading in ruleset.readings:
        assert reading.text(lang) in done.stdout


@pytest.mark.unit
def test_rules_show_unknown_id():
    done = kiosk("rules", "show", "nope")
    assert done.returncode == 2
    assert done.stderr.startswith("kiosk rules：没有规则“nope”；已知的规则：xiamen-2015")
    done = kiosk("rules", "show", "nope", "--lang", "en")
    assert "unknown ruleset 'nope'; known: xiamen-2015" in done.stderr


@pytest.mark.unit
def test_rules_list():
    done = kiosk("rules", "list", "--lang", "en")
    assert done.returncode == 0
    assert [line.split()[0] for line in done.stdout.splitlines()[2:] if line] == list(BUILTIN_IDS)


@pytest.mark.unit
def test_a_ruleset_sets_the_gather_grace_the_table_gives_and_rules_show_says_it(tmp_path):
    from kiosk.table.clock import ManualClock
    from kiosk.table.session import SessionConfig, TableSession

    write(tmp_path, house(XIAMEN).replace("play_seconds = 5", "play_seconds = 5\n"
                                          "gather_seconds = 3.5"))
    shown = kiosk("--rules-dir", str(tmp_path), "rules", "show", "house-club")
    assert "收牌宽限（下一家领出前）: 3.5秒" in shown.stdout, shown.stdout
    default = kiosk("rules", "show", "xiamen-2015")
    assert "收牌宽限（下一家领出前）: 2秒（规则未定，本机默认" in default.stdout
    rulesets = Rulesets.load([tmp_path])
    for ruleset, gather in (("house-club", 3.5), ("xiamen-2015", 2.0)):
        session = TableSession.open(tmp_path / ruleset, 1, rulesets, ManualClock(),
                                    SessionConfig())
        session.setup_match(event="e", round="1", teams={"NS": "甲", "EW": "乙"},
                            players={}, ruleset=ruleset)
        assert session.state.gather == gather
        assert session.state.setup["gather_seconds"] == gather  # journaled with the setup
        session.close()


@pytest.mark.unit
def test_rules_md_names_every_key_a_ruleset_file_may_hold(monkeypatch):
    """A house ruleset's author reads the key table: every key the loader reads (in any of
    the four files, set or defaulted) is named there, and every `committed_by` word."""
    from kiosk.rules import ruleset as loader

    read: set[tuple[str, str]] = set()  # (the table's path, the key)
    original = loader._Table.get

    def get(self, name, default):
        read.add((self.path, name))
        return original(self, name, default)

    monkeypatch.setattr(loader._Table, "get", get)
    for ruleset_id in BUILTIN_IDS:
        parse_ruleset((DATA / f"{ruleset_id}.toml").read_bytes(), ruleset_id)
    assert len(read) > 60  # (the loader was watched)
    section = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8").split(
        "## Writing a house ruleset")[1].split("\n## ")[0]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    named = set(re.findall(r"`([^`]+)`", table))
    # a key is named as itself, as a table (`[kitty.tractors]`) or set (`hook = "…"`)
    parts = {part for n in named for part in re.split(r"[\[\]. =]+", n) if part}
    keys = {name for path, name in read if path != "penalties" and not path.endswith(
        ".choices") and name not in ("zh-Hans", "zh-Hant", "en")}  # (names, and languages)
    assert keys - parts == set()
    assert set(loader.COMMITTERS) - named == set()
