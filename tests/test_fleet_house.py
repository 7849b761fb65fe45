"""A house ruleset at an event: the head referee's file in the kiosk-rules folder on each card's
boot partition (taken at every boot: checked, copied to /etc/kiosk/rules, named by kiosk.env
for the table's unit), and on the scorer and hand-made kiosks by `--rules-dir`. A file the
rules core refuses is said on the card's screen and in kiosk-error.txt, in Chinese, and the
table does not start; a kiosk whose copy differs from the scorer's is refused in words."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from kiosk.cli.main import build_parser, load_rulesets
from kiosk.fleet.identity import RULES_DIR, read_env
from kiosk.i18n import explain
from kiosk.rules import RulesetError, parse_ruleset

from .helpers import ROOT, ScorerProcess, kiosk
from .helpers import cli as run
from .test_deploy import HOUSE, UNITS, provision, unit_lines
from .test_fleet_boot import CARD, exec_lines, expand, kiosk_args

XIAMEN = (ROOT / "kiosk/rules/data/xiamen-2015.toml").read_text(encoding="utf-8")
NOTICE = "这张卡的自定规则有误，平板不会开始比赛："


@pytest.fixture
def card(tmp_path):
    """A scratch root: a boot partition with the technician's kiosk.toml and the head
    referee's ruleset in kiosk-rules beside it (and what a Mac and a PC leave there)."""
    boot = tmp_path / "boot/firmware"
    (boot / "kiosk-rules").mkdir(parents=True)
    (boot / "kiosk.toml").write_text(CARD)
    (boot / "kiosk-rules/xiamen-house.toml").write_text(HOUSE, encoding="utf-8")
    (boot / "kiosk-rules/._xiamen-house.toml").write_bytes(b"\x00\x05\x16\x07Mac OS X")
    (boot / "kiosk-rules/说明.txt").write_text("裁判长 2026-05-01\n", encoding="utf-8")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/hosts").write_text("127.0.0.1\tlocalhost\n")
    return tmp_path


def boot(root: Path, lang: str = "zh-Hans"):
    """The card's boot: `kiosk fleet firstboot` as kiosk-firstboot.service runs it."""
    [command] = exec_lines("kiosk-firstboot.service", "ExecStart")
    return run(*shlex.split(kiosk_args(command)[0]), "--root", str(root), "--lang", lang)


def at(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def rules_env(root: Path) -> dict[str, str]:
    """The environment of the table's unit (kiosk.env), its rules directories in the root."""
    env = read_env(root / "etc/kiosk/kiosk.env")
    env["KIOSK_RULES_DIR"] = os.pathsep.join(
        str(at(root, d)) for d in env["KIOSK_RULES_DIR"].split(os.pathsep))
    return env


def said(root: Path) -> str:
    """What the card says on its screen, after checking that kiosk-error.txt says the same."""
    notice = (root / "run/kiosk-setup.txt").read_text(encoding="utf-8")
    error = (root / "boot/firmware/kiosk-error.txt").read_bytes().decode("utf-8-sig")
    assert error.replace("\r\n", "\n") == notice
    return notice


@pytest.mark.unit
def test_a_cards_house_ruleset_is_what_its_table_loads(card, monkeypatch):
    first = boot(card)
    assert first.returncode == 0, first.stderr
    sha = hashlib.sha256(HOUSE.encode()).hexdigest()
    assert f"自定规则 xiamen-house：sha256 {sha}（已从启动分区的 kiosk-rules 复制）" in \
        first.stdout.splitlines()
    env = read_env(card / "etc/kiosk/kiosk.env")
    assert env["KIOSK_RULES_DIR"] == RULES_DIR == "/etc/kiosk/rules"
    copies = at(card, RULES_DIR)
    assert sorted(p.name for p in copies.iterdir()) == ["xiamen-house.toml"]  # no ._ file
    assert (copies / "xiamen-house.toml").read_bytes() == HOUSE.encode()  # byte for byte
    assert (copies.stat().st_mode & 0o777, (copies / "xiamen-house.toml").stat().st_mode
            & 0o777) == (0o755, 0o644)  # the table's user reads them
    assert not (card / "run/kiosk-setup.txt").exists()  # the table starts

    # `kiosk rules show` with the unit's environment finds it, as the head referee's check did.
    shown = run("rules", "show", "xiamen-house", env={**os.environ, **rules_env(card)})
    assert shown.returncode == 0, shown.stderr
    assert "出牌: 6秒" in [line.strip() for line in shown.stdout.splitlines()]
    assert f"sha256: {sha}" in shown.stdout.splitlines()
    # The table's own command line, with that environment, loads it.
    monkeypatch.setenv("KIOSK_RULES_DIR", rules_env(card)["KIOSK_RULES_DIR"])
    [start] = exec_lines("kiosk-table.service", "ExecStart")
    args = build_parser().parse_args(expand(kiosk_args(start)[0], env))
    assert load_rulesets(args)["xiamen-house"].sha256 == sha
    assert boot(card).stdout == ""  # the next boot: nothing to change


@pytest.mark.unit
def test_a_ruleset_changed_renamed_or_taken_out_is_taken_at_the_next_boot(card):
    """The head referee fixes a typo in the morning: the new file on the card, a reboot."""
    assert boot(card).returncode == 0
    folder, copies = card / "boot/firmware/kiosk-rules", at(card, RULES_DIR)
    fixed = HOUSE.replace("出牌5秒", "出牌6秒")
    (folder / "xiamen-house.toml").write_text(fixed, encoding="utf-8")
    again = boot(card)
    assert again.returncode == 0, again.stderr
    assert "已应用 /etc/kiosk/rules/xiamen-house.toml" in again.stdout.splitlines()
    assert (copies / "xiamen-house.toml").read_bytes() == fixed.encode()
    # Saved under another name: the old copy goes (one id, one file).
    (folder / "xiamen-house.toml").rename(folder / "house.toml")
    assert boot(card).returncode == 0
    assert sorted(p.name for p in copies.iterdir()) == ["house.toml"]
    # No folder on the card: the copies stay. An empty one: the card holds none.
    (folder / "house.toml").unlink()
    folder.rename(card / "boot/firmware/elsewhere")
    assert boot(card).stdout == "" and (copies / "house.toml").exists()
    folder.mkdir()
    emptied = boot(card)
    assert emptied.returncode == 0 and "已应用 /etc/kiosk/rules/house.toml" in emptied.stdout
    assert list(copies.iterdir()) == []


def core_words(data: bytes) -> str:
    """The rules core's own words for a ruleset file it refuses, named as on the card."""
    with pytest.raises(RulesetError) as err:
        parse_ruleset(data, "kiosk-rules/xiamen-house.toml")
    return explain(err.value, "zh-Hans")


BROKEN = {  # a ruleset file as a head referee might get it wrong, and what the card says
    "quoted-number": (HOUSE.replace("play_seconds = 6", 'play_seconds = "6"').encode(),
                      "规则文件kiosk-rules/xiamen-house.toml，time.play_seconds："),
    "toml": (HOUSE.replace('en = "Xiamen', "en = Xiamen", 1).encode(),
             "规则文件kiosk-rules/xiamen-house.toml：TOML格式错误（第"),
    "not-utf8": (HOUSE.encode("gb18030"), "规则文件kiosk-rules/xiamen-house.toml：不是UTF-8"),
    "built-in-id": (XIAMEN.encode(), "规则文件kiosk-rules/xiamen-house.toml，id：规则id "
                    "xiamen-2015已被kiosk/rules/data/xiamen-2015.toml使用；请给自定规则另起一个id"),
}


@pytest.mark.unit
@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_ruleset_is_said_in_chinese_and_the_table_does_not_start(card, case):
    data, words = BROKEN[case]
    (card / "boot/firmware/kiosk-rules/xiamen-house.toml").write_bytes(data)
    result = boot(card)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    text = said(card)
    assert text.startswith(NOTICE) and words in text, text
    if case != "built-in-id":  # (refused when the rulesets are loaded together)
        assert core_words(data) in text  # the rules core's own words, naming the file
    assert result.stderr.startswith(f"kiosk fleet firstboot：{words}")
    # The table does not start (its unit's condition), and nothing was copied.
    assert ("Unit", "ConditionPathExists", "!/run/kiosk-setup.txt") in unit_lines(
        UNITS / "kiosk-table.service")
    assert list(at(card, RULES_DIR).iterdir()) == []
    # The card is still on its network (for ssh): its settings were applied all the same.
    assert (card / "etc/hostname").read_text() == "table-07\n"

    (card / "boot/firmware/kiosk-rules/xiamen-house.toml").write_text(HOUSE)  # corrected
    fixed = boot(card)
    assert fixed.returncode == 0, fixed.stderr
    assert not (card / "run/kiosk-setup.txt").exists()
    assert not (card / "boot/firmware/kiosk-error.txt").exists()


@pytest.mark.unit
def test_a_ruleset_saved_as_toml_txt_or_unreadable_is_named(card):
    folder = card / "boot/firmware/kiosk-rules"
    (folder / "xiamen-house.toml").rename(folder / "xiamen-house.toml.txt")
    assert boot(card).returncode == 2
    assert ("kiosk-rules/xiamen-house.toml.txt：文件名多了 .txt（记事本“另存为”时加上的，"
            "Windows 默认不显示），平板不读这样的文件：请把它改名为 xiamen-house.toml"
            ) in said(card)
    (folder / "xiamen-house.toml.txt").unlink()
    (folder / "xiamen-house.toml").mkdir()  # there, but no file to read
    assert boot(card).returncode == 2
    assert "kiosk-rules/xiamen-house.toml：这是一个目录，不是文件" in said(card)
    english = boot(card, "en")
    assert english.returncode == 2 and "This card's house ruleset has a mistake" in said(card)


@pytest.mark.unit
def test_a_card_set_up_before_house_rulesets_and_a_broken_copy(card):
    """A card whose kiosk.env is older than house rulesets gets the line at its next boot; a
    copy broken where the table loads it (a kiosk set up by hand, its file edited there) stops
    the table in words too, rather than over a blank screen."""
    assert boot(card).returncode == 0
    env_file = card / "etc/kiosk/kiosk.env"
    env_file.write_text("".join(line for line in env_file.read_text().splitlines(True)
                                if not line.startswith("KIOSK_RULES_DIR=")))
    older = boot(card)
    assert older.returncode == 0 and "已应用 /etc/kiosk/kiosk.env" in older.stdout
    assert read_env(env_file)["KIOSK_RULES_DIR"] == "/etc/kiosk/rules"
    assert env_file.stat().st_mode & 0o777 == 0o600  # it holds the PIN

    (card / "boot/firmware/kiosk-rules").rename(card / "boot/firmware/away")
    copy = at(card, RULES_DIR) / "xiamen-house.toml"
    copy.write_text(HOUSE.replace("[ladder]", "[ladder]\nfinal = 1\n", 1))
    assert boot(card).returncode == 2
    assert said(card).startswith(NOTICE) and f"规则文件{copy}" in said(card)


# -- the same file on the scorer and the kiosks ----------------------------------------------


@pytest.mark.process
def test_kiosks_with_the_scorers_copy_pair_and_others_are_refused_in_words(tmp_path,
                                                                          monkeypatch):
    """The scorer as provision-scorer.sh --rules-dir sets it up and its unit starts it; cards
    booted with the file in kiosk-rules, without it, and with another copy of it."""
    house = tmp_path / "house"
    house.mkdir()
    (house / "xiamen-house.toml").write_text(HOUSE, encoding="utf-8")
    server = tmp_path / "scorer-root"
    provision("provision-scorer.sh", server, "--rules-dir", str(house))
    [rules_dir] = [v.split("=", 1)[1] for s, k, v in unit_lines(UNITS / "kiosk-scorer.service")
                   if k == "Environment" and v.startswith("KIOSK_RULES_DIR=")]
    monkeypatch.setenv("KIOSK_RULES_DIR", str(at(server, rules_dir)))  # the unit's environment
    scorer = ScorerProcess(tmp_path / "scorer")

    def card(table: int, code: str, ruleset: str | None) -> subprocess.CompletedProcess[str]:
        root = tmp_path / f"card-{table}"
        (root / "boot/firmware").mkdir(parents=True)
        (root / "boot/firmware/kiosk.toml").write_text(
            f'table = {table}\nscorer = "{scorer.url}"\npin = "2580"\npairing_code = "{code}"\n')
        if ruleset is not None:
            (root / "boot/firmware/kiosk-rules").mkdir()
            (root / "boot/firmware/kiosk-rules/xiamen-house.toml").write_text(ruleset)
        started = kiosk("fleet", "firstboot", "--root", str(root))
        assert started.returncode == 0, started.stderr
        # The pairing code it left for the table, tried with the table's environment.
        return kiosk("fleet", "pair-pending", "--data", str(root / "var/lib/kiosk"),
                     "--table", str(table), "--scorer", scorer.url,
                     env={**os.environ, **rules_env(root)})

    sha = hashlib.sha256(HOUSE.encode()).hexdigest()
    other = HOUSE.replace("play_seconds = 6", "play_seconds = 7")
    with scorer:
        made = kiosk("scorer", "admin", "--data", str(scorer.data), "event", "--name", "厦门杯",
                     "--ruleset", "xiamen-house")
        assert made.returncode == 0, made.stderr
        tables = kiosk("scorer", "admin", "--data", str(scorer.data), "tables", "3",
                       "--lang", "en")
        codes = dict(re.findall(r"^table (\d): pairing code (\S+)$", tables.stdout, re.M))
        monkeypatch.delenv("KIOSK_RULES_DIR")  # the kiosks have their own
        same = card(1, codes["1"], HOUSE)
        assert same.stdout == "第 1 桌已与记分台配对\n", same.stderr
        without = card(2, codes["2"], None)
        assert (f"本平板的规则 xiamen-house 与记分台的不同（记分台 sha256 {sha}，平板 -）"
                in without.stderr), without.stderr
        another = card(3, codes["3"], other)
        assert (f"本平板的规则 xiamen-house 与记分台的不同（记分台 sha256 {sha}，平板 "
                f"{hashlib.sha256(other.encode()).hexdigest()}）" in another.stderr), \
            another.stderr
    assert not (tmp_path / "card-1/var/lib/kiosk/pair-code").exists()  # used
    assert (tmp_path / "card-2/var/lib/kiosk/pair-code").exists()  # kept, for a card set right
