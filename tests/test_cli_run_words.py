"""What the commands say while they run, in the default language (简体中文) with no English
word left: the scorer's first lines, a broken ruleset file met by the scorer, a pairing that
fails (the scorer down, a wrong or void code), the simulated tables of the demo, and the
kiosk's start-up mistakes. The real `kiosk` command in a subprocess, against a real scorer
on loopback where one is needed; the check for English is test_cli_words.py's."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from .helpers import ROOT, ScorerProcess, free_port, kiosk
from .test_cli_words import english_left, parsers, run, typed_words, unwrapped, words_of

pytestmark = pytest.mark.process

XIAMEN = (ROOT / "kiosk" / "rules" / "data" / "xiamen-2015.toml").read_text("utf-8")


def chinese(text: str, *typed: str) -> bool:
    """Chinese words, and no English word but what is typed: the commands' own, an address,
    and `typed` (what the file said)."""
    text = re.sub(r"https?://[^\s（）：，。]+", " ", text)
    return english_left(text, typed_words() | set(typed)) == set() and bool(
        re.search("[\u4e00-\u9fff]", text))


# -- the scorer's first lines ---------------------------------------------------------------

def scorer_said(data, *extra: str) -> str:
    with ScorerProcess(data, None, *extra):
        said = (data / "scorer.log").read_text("utf-8")
    return said


def test_the_scorer_says_where_its_pages_are_one_item_a_line_in_chinese(tmp_path):
    data = tmp_path / "scorer"
    said = scorer_said(data)
    fingerprint = re.search(r"（SHA-256）：([0-9a-f]{64})\n", said)
    assert fingerprint, said
    port = said.split("大厅页面：https://127.0.0.1:", 1)[1].split("/", 1)[0]
    url = f"https://127.0.0.1:{port}/"
    lines = said.splitlines()
    assert f"大厅页面：{url}" in lines
    assert f"裁判长后台：{url}admin" in lines
    assert f"证书指纹（SHA-256）：{fingerprint.group(1)}" in lines
    assert "首个管理密码在" in said  # (the line about the password, as before)
    # the command to change it as it runs here (without --data it only said to give --data)
    assert f"用 `kiosk scorer admin --data {data.resolve()} password` 修改" in said
    assert chinese(said.replace(fingerprint.group(1), "")), said


def test_the_scorer_says_it_in_english_with_lang_en(tmp_path):
    said = scorer_said(tmp_path / "scorer", "--lang", "en")
    assert re.search(r"^hall page: https://127\.0\.0\.1:\d+/$", said, re.M), said
    assert re.search(r"^head referee's console: https://127\.0\.0\.1:\d+/admin$", said, re.M)
    assert re.search(r"^certificate fingerprint \(SHA-256\): [0-9a-f]{64}$", said, re.M)


# -- a broken ruleset file ------------------------------------------------------------------

BROKEN = {
    "syntax": XIAMEN.replace('id = "xiamen-2015"', 'id = "house-club"').replace(
        'en = "Xiamen grain-system games 2015"', "en = Xiamen", 1),
    "meaning": XIAMEN.replace('id = "xiamen-2015"', 'id = "house-club"').replace(
        "play_seconds = 5", 'play_seconds = "five"', 1),
}


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_broken_ruleset_is_said_by_the_scorer_as_rules_list_says_it(tmp_path, broken):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "broken.toml").write_text(BROKEN[broken], encoding="utf-8")
    assert BROKEN[broken] != XIAMEN.replace('id = "xiamen-2015"', 'id = "house-club"')
    data = str(tmp_path / "scorer")
    listed = run("--rules-dir", str(rules), "rules", "list")
    assert listed.returncode == 2
    reason = listed.stderr.strip().removeprefix("kiosk rules：")
    assert reason.startswith(f"规则文件{rules / 'broken.toml'}"), listed.stderr
    env = {k: v for k, v in os.environ.items() if k != "KIOSK_LANG"}
    env["KIOSK_RULES_DIR"] = str(rules)
    for said in (run("--rules-dir", str(rules), "scorer", "--data", data),
                 kiosk("scorer", "admin", "--data", data, "event", "--name", "x", "--ruleset",
                       "xiamen-2015", env=env)):
        assert said.returncode == 2
        assert said.stderr.strip() == f"kiosk scorer：{reason}"
        # (the key and the value as the file spells them)
        assert chinese(said.stderr, "time.play_seconds", "five", "match_minutes"), said.stderr
    english = run("--rules-dir", str(rules), "scorer", "--data", data, "--lang", "en")
    listed = run("--rules-dir", str(rules), "rules", "list", "--lang", "en")
    assert english.stderr.strip() == listed.stderr.strip().replace("kiosk rules:",
                                                                   "kiosk scorer:")
    assert "ruleset file" in english.stderr


# -- pairing with the scorer down -------------------------------------------------------------

@pytest.mark.parametrize("args", [("pair", "123456"), ("table", "--pair", "123456")])
def test_pairing_with_the_scorer_down_says_what_to_check_in_chinese(tmp_path, args):
    down = f"https://127.0.0.1:{free_port()}"  # nothing listens there
    command, *rest = args
    said = run(command, "--data", str(tmp_path / "kiosk"), "--table", "5", "--scorer", down,
               *rest)
    assert said.returncode == 2  # a person can fix it: the address, or start the scorer
    assert said.stderr.strip() == (
        f"kiosk {command}：第 5 桌未能配对：记分台 {down} 没有应答。请检查记分台的地址是否正确，"
        "以及记分台是否正在运行，然后再试")
    assert "Errno" not in said.stderr and "Traceback" not in said.stderr
    assert chinese(said.stderr)


def test_an_unpaired_kiosk_says_in_chinese_that_it_runs_offline(tmp_path):
    data = tmp_path / "kiosk"
    env = {k: v for k, v in os.environ.items() if k not in ("KIOSK_LANG", "DISPLAY")}
    child = subprocess.Popen(
        [sys.executable, "-m", "kiosk.cli.main", "table", "--data", str(data), "--table", "5",
         "--scorer", "auto", "--size", "800x480"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline, line = time.monotonic() + 60, ""
        while not line.startswith("kiosk table") and time.monotonic() < deadline:
            line = child.stderr.readline()  # (Kivy's own log lines start with "[")
            if not line:
                break
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(30)
        child.stderr.close()
    assert line.strip() == (f"kiosk table：第 5 桌尚未与记分台配对：kiosk pair --data {data} "
                            "--table 5 配对码。平板先离线运行，配对后再同步")


@pytest.mark.parametrize("args, said", [
    ((), "kiosk table：请用 --data DIR 指定数据目录（或用 --screenshots DIR 只截图）"),
    (("--size", "10x10"), "kiosk table：--size 10x10：请写成 宽x高，例如 800x480（每边至少 320）"),
])
def test_the_kiosks_start_up_mistakes_are_said_in_chinese(args, said):
    done = run("table", *args)
    assert done.returncode == 2
    assert done.stderr.strip() == said
    assert chinese(done.stderr)


# -- the demo's simulated tables ----------------------------------------------------------------

def test_the_simulated_tables_say_why_they_cannot_play_in_chinese(tmp_path):
    data = tmp_path / "scorer"
    assert run("scorer", "admin", "--data", str(data), "event", "--name", "演示赛",
               "--ruleset", "xiamen-2015").returncode == 0
    tables = run("scorer", "admin", "--data", str(data), "tables", "2")
    codes = dict(re.findall(r"第 (\d) 桌：配对码 (\S+)", tables.stdout))
    assert set(codes) == {"1", "2"}, tables.stdout
    wrong = "000000" if codes["1"] != "000000" else "111111"
    with ScorerProcess(data) as scorer:
        def simulate(table: str, code: str, where: str):
            return run("simulate", "--data", str(tmp_path / f"kiosk-{where}"), "--table",
                       table, "--scorer", scorer.url, "--pair", code, "--speed", "1e9")

        said = [simulate("1", wrong, "a"), simulate("3", codes["1"], "b"),
                simulate("2", codes["2"], "c")]
    assert [s.returncode for s in said] == [2, 2, 2]
    assert [s.stderr.strip() for s in said] == [
        "kiosk simulate：第 1 桌未能配对：第 1 桌的配对码不对：请核对后再输（还可再试 2 次，"
        "之后该码作废）",
        "kiosk simulate：第 3 桌未能配对：第 3 桌没有有效的配对码（已过期、已使用或因输错作废）："
        "请向裁判长要新码",
        "kiosk simulate：记分台现在没有给第 2 桌安排比赛：本轮还没有开始，或者本轮用不到这张桌"
        "（裁判长后台的“轮次编排”页列出本轮用到的桌）"]
    assert all(chinese(s.stderr) for s in said)


@pytest.mark.parametrize("command, options", [
    ("simulate", ("--data", "--table", "--seed")), ("pair", ("--data", "--table")),
    ("table", ("--table", "--pinmap"))])
def test_every_option_of_the_table_commands_says_what_it_is_for(command, options,
                                                               monkeypatch):
    from kiosk.cli.main import build_parser

    monkeypatch.delenv("KIOSK_LANG", raising=False)  # the same words as the command's
    shown = run(command, "--help")
    assert shown.returncode == 0
    assert english_left(shown.stdout, typed_words()) == set()
    parser = next(p for p in parsers(build_parser()) if p.prog == f"kiosk {command}")
    for action in parser._actions:
        assert action.help, (command, action.option_strings)
        if set(action.option_strings) & set(options):
            assert unwrapped(action.help) in unwrapped(shown.stdout)
    zh = words_of("zh-Hans")
    assert unwrapped(zh["cli.table_number"]) in unwrapped(shown.stdout)
