"""The scorer's command line speaks the user's language: the missing data directory and the
new password's prompt are catalog words, 简体中文 by default (`--lang` for the others). The
real `kiosk` command in a subprocess; the password typed at a real pseudo-terminal."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store

from .helpers import ROOT
from .helpers import cli as kiosk


@pytest.mark.unit
@pytest.mark.parametrize("lang, said", [
    (None, "kiosk scorer：请用 --data DIR 指定数据目录"),
    ("zh-Hant", "kiosk scorer：請用 --data DIR 指定資料目錄"),
    ("en", "kiosk scorer: give --data DIR (the scorer's data directory)")])
def test_the_scorer_without_its_data_directory_says_so_in_the_users_language(lang, said):
    result = kiosk("scorer", *(("--lang", lang) if lang else ()))
    assert result.returncode == 2
    assert result.stderr.strip() == said


def read_until(fd: int, text: str, timeout: float = 30.0) -> str:
    seen, deadline = b"", time.monotonic() + timeout
    while text.encode() not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.5)[0]:
            try:
                seen += os.read(fd, 1024)
            except OSError:  # the child closed the terminal
                break
    return seen.decode(errors="replace")


@pytest.mark.process
@pytest.mark.parametrize("lang, prompt, other", [
    ("zh-Hans", "新密码：", "New password"), ("en", "New password: ", "新密码")])
def test_the_new_password_is_asked_for_at_the_terminal_in_the_users_language(
        tmp_path, lang, prompt, other):
    Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([])).store.close()
    main, terminal = os.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "kiosk.cli.main", "scorer", "admin", "--data", str(tmp_path),
         "password", "--lang", lang], cwd=ROOT, stdin=terminal, stdout=terminal,
        stderr=terminal, start_new_session=True)
    os.close(terminal)
    try:
        asked = read_until(main, prompt)
        assert prompt in asked and other not in asked
        os.write(main, b"hall-referee-2026\n")
        said = read_until(main, "\n", 30) + read_until(main, "xx", 3)
        assert child.wait(30) == 0, said
    finally:
        child.kill()
        os.close(main)
    director = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    assert director.check_password("hall-referee-2026")  # what was typed, not echoed
    assert "hall-referee-2026" not in asked + said
    director.store.close()
