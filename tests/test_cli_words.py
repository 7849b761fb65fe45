"""The `kiosk` command's own words, its --help and argparse's messages, are 简体中文 by default
and 繁體中文 or English with KIOSK_LANG: the real command in a subprocess, and every parser
built and its help printed in each language."""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import re
import tomllib

import pytest

from kiosk.cli.main import build_parser
from kiosk.cli.words import ARGPARSE_KEYS, argparse_words
from kiosk.i18n import LANGS

from .helpers import ROOT
from .helpers import cli as kiosk

HELPS = (("--help",), ("scorer", "admin", "--help"), ("table", "--help"))
# Words a person types that the parsers do not list: the --scorer value `auto`, and the names of
# a protocol, libraries, formats and programs a technician looks up as they are.
TYPED_ELSEWHERE = {"auto", "mDNS", "pyserial", "Python", "wheel", "systemd", "Excel"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def words_of(lang: str) -> dict[str, str]:
    return tomllib.loads((ROOT / "kiosk" / "i18n" / lang / "cli.toml").read_text("utf-8"))


def unwrapped(text: str) -> str:
    """`text` without its spaces and line breaks, where help's wrapping put them or not."""
    return re.sub(r"\s+", "", text)


def run(*args: str, lang: str | None = None):
    env = {k: v for k, v in os.environ.items() if k != "KIOSK_LANG"}
    if lang is not None:
        env["KIOSK_LANG"] = lang
    return kiosk(*args, env=env)


def parsers(parser: argparse.ArgumentParser):
    """`parser` and every parser under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from parsers(sub)


def typed_words() -> set[str]:
    """What the parsers themselves name: commands, choices, positionals and metavars."""
    typed = {"kiosk"}
    for parser in parsers(build_parser()):
        for action in parser._actions:
            typed.update(str(choice) for choice in action.choices or ())
            if isinstance(action.metavar, str):
                typed.add(action.metavar)
            if not action.option_strings and not isinstance(action,
                                                            argparse._SubParsersAction):
                typed.add(action.dest)
    return typed


def english_left(text: str, typed: set[str]) -> set[str]:
    """The English words of 3+ letters in `text` that are none of what a person types: option
    names, choices, metavars, command names, paths, $VARIABLES, file names, acronyms."""
    text = re.sub(r"\{[^}]*\}", " ", text)  # choices, as {a,b}
    text = re.sub(r"(?<![\w-])--?[A-Za-z][\w-]*", " ", text, flags=re.ASCII)  # options
    text = re.sub(r"[\w.$*-]*[/$][\w./$-]*", " ", text, flags=re.ASCII)  # paths, $VARIABLES
    text = re.sub(r"[\w*-]*\.[a-z]+\b", " ", text, flags=re.ASCII)  # file names, *.toml
    for word in sorted(typed, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", text, flags=re.ASCII)
    text = re.sub(r"\b[A-Z][A-Z0-9_]+\b", " ", text, flags=re.ASCII)  # metavars, acronyms
    return set(re.findall(r"[A-Za-z]{3,}", text)) - TYPED_ELSEWHERE


@pytest.mark.unit
def test_the_check_for_english_finds_english():
    typed = typed_words()
    assert english_left("--data DIR  数据目录", typed) == set()
    assert english_left("--data DIR  the data directory", typed) == {"the", "data",
                                                                     "directory"}
    assert english_left("json：每副牌一个对象；见 RULES.md", typed) == set()
    assert english_left("usage: kiosk", typed) == {"usage"}


@pytest.mark.unit
@pytest.mark.parametrize("args, key", [(("--help",), "cli.scorer"),
                                       (("scorer", "admin", "--help"), "cli.admin.publish"),
                                       (("table", "--help"), "cli.table.printer_baud")])
def test_help_is_chinese_by_default_with_no_english_word_but_what_is_typed(args, key):
    shown = run(*args)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("用法：kiosk")
    assert "\n选项：\n" in shown.stdout and "显示本帮助并退出" in shown.stdout
    assert unwrapped(words_of("zh-Hans")[key]) in unwrapped(shown.stdout)
    assert english_left(shown.stdout, typed_words()) == set()
    english = run(*args, lang="en")  # the same check finds today's English
    assert english.returncode == 0
    assert english.stdout.startswith("usage: kiosk")
    assert "\noptions:\n" in english.stdout and "show this help message and exit" in english.stdout
    assert unwrapped(words_of("en")[key]) in unwrapped(english.stdout)
    assert len(english_left(english.stdout, typed_words())) > 5


@pytest.mark.unit
def test_the_headings_and_subcommand_lines():
    top = run("--help").stdout
    assert "\n位置参数：\n" in top and ":\n" not in top
    assert top.split("\n\n")[1] == "80分比赛的牌桌平板与记分台"
    assert "表示从标准输入读取" in unwrapped(run("replay", "--help").stdout)  # a positional
    admin = run("scorer", "admin", "--help").stdout
    assert admin.split("\n\n")[1] == "裁判长的操作"  # its description
    assert "\n位置参数：\n" in admin


@pytest.mark.unit
def test_traditional_chinese_and_an_unknown_language():
    shown = run("table", "--help", lang="zh-Hant")
    assert shown.stdout.startswith("用法：kiosk table")
    assert "\n選項：\n" in shown.stdout and "顯示本說明並退出" in shown.stdout
    assert "序列埠印表機的鮑率" in unwrapped(shown.stdout)
    assert english_left(shown.stdout, typed_words()) == set()
    assert run("table", "--help", lang="fr").stdout == run("table", "--help").stdout


@pytest.mark.unit
@pytest.mark.parametrize("args, said", [
    (("replay", "--format", "pdf", "x.json"),
     "kiosk replay：错误：参数 --format：无效的取值 'pdf'（可选：'json', 'sheet'）"),
    (("replay",), "kiosk replay：错误：缺少以下参数：file"),
    (("slip", "--table", "x"), "kiosk slip：错误：参数 --table：无效的数值：'x'"),
    (("slip", "--data"), "kiosk slip：错误：参数 --data：需要一个值"),
    (("rules", "list", "--bogus"), "kiosk：错误：无法识别的参数：--bogus"),
    (("scorer", "admin", "mute", "maybe"),
     "kiosk scorer admin mute：错误：参数 state：无效的取值 'maybe'（可选：'on', 'off'）"),
])
def test_a_mistake_in_the_command_line_is_said_in_chinese_with_status_2(args, said):
    done = run(*args)
    assert done.returncode == 2
    usage, error = done.stderr.rstrip("\n").rsplit("\n", 1)
    assert usage.startswith("用法：kiosk")
    assert error == said
    assert "Traceback" not in done.stderr


@pytest.mark.unit
def test_a_mistake_in_english_and_in_traditional_chinese():
    done = run("replay", lang="en")
    assert done.returncode == 2
    assert done.stderr.endswith(
        "kiosk replay: error: the following arguments are required: file\n")
    done = run("nope", lang="zh-Hant")
    assert done.returncode == 2
    assert "kiosk：錯誤：引數 COMMAND：無效的取值 'nope'（可選：'rules', 'replay'," in done.stderr


@pytest.mark.process
def test_argparse_is_left_as_it_was_after_a_run():
    from kiosk.cli.main import main

    before = argparse._
    with pytest.raises(SystemExit):
        main(["replay"])
    assert argparse._ is before
    assert argparse._("usage: ") == "usage: "


@pytest.mark.unit
def test_every_key_the_commands_use_is_in_every_language(monkeypatch):
    source = "\n".join(p.read_text("utf-8") for p in (ROOT / "kiosk" / "cli").glob("*.py"))
    literal = set(re.findall(r"\b(?:say|about)\(\"(cli\.[\w.]+)\"", source))
    assert len(literal) > 80
    catalogs = {lang: words_of(lang) for lang in LANGS}
    for lang in LANGS:
        assert literal <= set(catalogs[lang]), literal - set(catalogs[lang])
        assert set(ARGPARSE_KEYS.values()) <= set(catalogs[lang])
        # The keys made from a command's name (the director's actions, `journal show|export`),
        # and every help text through argparse's %-formatting: every parser's help, built and
        # printed in this language.
        monkeypatch.setenv("KIOSK_LANG", lang)
        with argparse_words():
            for parser in parsers(build_parser()):
                text = parser.format_help()
                assert text.startswith(catalogs[lang]["cli.argparse.usage"])
                assert parser.description, parser.prog  # every command says what it does


@pytest.mark.unit
def test_the_chinese_words_are_chinese_and_argparse_keeps_its_placeholders():
    english = words_of("en")
    source = inspect.getsource(argparse)
    for msgid, key in ARGPARSE_KEYS.items():
        assert english[key] == msgid  # English is argparse's own text, unchanged
        assert f"_('{msgid}')".replace("\n", "\\n") in source  # this Python's msgid
    for lang in ("zh-Hans", "zh-Hant"):
        words = words_of(lang)
        assert set(words) == set(english)
        for key, text in words.items():
            # (a heading's colon is the one word that is only punctuation: the full-width one)
            assert CJK.search(text) or re.fullmatch(r"\{\w+\}：", text), (lang, key)
            if key.startswith("cli.argparse."):
                assert set(re.findall(r"%\(\w+\)[sr]", text)) <= set(
                    re.findall(r"%\(\w+\)[sr]", english[key])), (lang, key)
                assert len(re.findall(r"%[sr]", text)) == len(re.findall(r"%[sr]",
                                                                         english[key]))


@pytest.mark.unit
@pytest.mark.parametrize("lang", [None, "zh-Hant", "en"])
def test_help_fits_the_terminal_and_keeps_paths_whole(lang):
    import unicodedata

    env = {k: v for k, v in os.environ.items() if k != "KIOSK_LANG"}
    env.update({"COLUMNS": "80", **({"KIOSK_LANG": lang} if lang else {})})
    for args in HELPS:
        shown = kiosk(*args, env=env).stdout
        assert "/dev/kiosk-printer" in shown or args != ("table", "--help")
        body = shown.split("\n\n", 1)[1]  # (the usage line is argparse's own layout)
        for line in body.splitlines():
            width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
            assert width <= 80, line


def help_on_a_terminal(columns: int) -> str:
    """`kiosk --help` as a terminal `columns` wide shows it (a pty of that size, no $COLUMNS)."""
    import fcntl
    import struct
    import subprocess
    import sys
    import termios

    main, side = os.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "KIOSK_LANG")}
    with subprocess.Popen([sys.executable, "-m", "kiosk.cli.main", "--help"], cwd=ROOT,
                          env=env, stdin=subprocess.DEVNULL, stdout=side,
                          stderr=subprocess.DEVNULL) as process:
        os.close(side)
        shown = b""
        with contextlib.suppress(OSError):  # EIO: the command ended and closed the pty
            while chunk := os.read(main, 65536):
                shown += chunk
        os.close(main)
        assert process.wait(timeout=60) == 0
    return shown.decode().replace("\r\n", "\n")


@pytest.mark.process
def test_help_follows_the_width_of_the_terminal_it_is_shown_on():
    import unicodedata

    def widest(columns: int) -> int:
        body = help_on_a_terminal(columns).split("\n\n", 1)[1]
        return max(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
                   for line in body.splitlines())

    assert widest(60) <= 60
    assert 80 < widest(120) <= 120  # the terminal's width, not a fixed 80
