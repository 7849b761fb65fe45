"""The screen of a card that cannot start its table (kiosk-notice.service): the words
`kiosk fleet firstboot` wrote, shown by `kiosk fleet notice` in a real Kivy window under Xvfb."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kiosk.i18n import translator

from .helpers import ROOT, xvfb

# The notice as the unit runs it, with a screenshot once it is up (then it closes).
SHOT = """
import argparse, sys
from kivy.app import App
from kivy.clock import Clock
from kiosk.cli import fleet_cmd

def shot(dt):
    from kivy.core.window import Window
    Window.screenshot(name=sys.argv[2])
    App.get_running_app().stop()

Clock.schedule_once(shot, 2)
sys.exit(fleet_cmd.run_notice(argparse.Namespace(file=sys.argv[1])))
"""


@pytest.mark.window
def test_the_notice_shows_firstboots_words_in_a_window(tmp_path):
    from PIL import Image

    said = tmp_path / "kiosk-setup.txt"
    said.write_text(translator("zh-Hans")("fleet.notice.not_set_up"), encoding="utf-8")
    with xvfb("800x480x24") as display:
        env = {**os.environ, "DISPLAY": display, "KIVY_GL_BACKEND": "sdl2", "KIVY_NO_ARGS": "1",
               "KIVY_HOME": str(tmp_path / "kivy"),
               "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", str(ROOT / ".venv/cache"))}
        done = subprocess.run([sys.executable, "-c", SHOT, str(said), str(tmp_path / "shot.png")],
                              capture_output=True, text=True, timeout=180, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    [shot] = tmp_path.glob("shot*.png")
    lit = sum(1 for level in Image.open(shot).convert("L").getdata() if level > 128)
    assert lit > 3000  # the words are drawn (a window without its font shows nothing)
