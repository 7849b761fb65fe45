"""A kiosk whose screen cannot open (a display not connected, the KMS driver not loaded) says
so in the unit's journal, where the guide sends the technician: Kivy ended the process with
its reason in its own log file only, and `journalctl -u kiosk-table` showed nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import kiosk

pytestmark = pytest.mark.process


@pytest.mark.parametrize("command", [("table", "--table", "3"), ("fleet", "notice")])
def test_a_kiosk_that_cannot_open_its_screen_says_why_and_where_kivy_logged(tmp_path,
                                                                            command):
    notice = tmp_path / "notice.txt"
    notice.write_text("本卡尚未设置", encoding="utf-8")
    args = [*command, "--data", str(tmp_path / "data")] if command[0] == "table" else \
        [*command, str(notice)]
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    # as kiosk-table.service runs it on a Pi, here with no display to find
    env.update(KIVY_WINDOW="sdl2", SDL_VIDEODRIVER="kmsdrm", KIVY_GL_BACKEND="sdl2",
               KIVY_HOME=str(tmp_path / "kivy"))
    done = kiosk(*args, env=env)
    assert done.returncode == 2
    said = done.stderr.strip()
    assert "无法打开屏幕：请检查显示屏接好并通电" in said, said
    log = Path(said.rpartition("Kivy 自己的记录：")[2])
    assert log.is_file() and log.is_relative_to(tmp_path / "kivy")
    assert "Traceback" not in said
