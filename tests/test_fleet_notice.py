"""The screen of a card that cannot start its table (kiosk-notice.service): the words
`kiosk fleet firstboot` wrote, shown by `kiosk fleet notice` in a real Kivy window under Xvfb."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kiosk.i18n import translator

from .helpers import ROOT, xvfb

# Run in the notice's process: `act` once the notice is on the screen, its text laid out and
# a few frames drawn since (counted in frames, not seconds: a loaded machine draws late, and a
# shot two seconds after the start was black).
WHEN_DRAWN = """
import argparse, json, sys
from kivy.app import App
from kivy.clock import Clock
from kiosk.cli import fleet_cmd

def when_drawn(act):
    frames = []

    def tick(dt):
        root = App.get_running_app().root
        if root is not None and root.texture_size[1] > 0:
            frames.append(dt)
        if len(frames) >= 5:
            act()
            App.get_running_app().stop()
            return False

    Clock.schedule_interval(tick, 0)
"""

# The notice as the unit runs it, with a screenshot once it is up (then it closes).
SHOT = WHEN_DRAWN + """
def shot():
    from kivy.core.window import Window
    Window.screenshot(name=sys.argv[2])

when_drawn(shot)
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
    lit = sum(Image.open(shot).convert("L").histogram()[129:])  # pixels brighter than half
    assert lit > 3000  # the words are drawn (a window without its font shows nothing)


# The notice as the unit runs it, then what it shows: its lines against the lines of the whole
# text at its type and width, and how high they are.
MEASURE = WHEN_DRAWN + """
from kivy.metrics import sp
from kivy.uix.label import Label

def measure():
    from kivy.core.window import Window
    shown = App.get_running_app().root
    whole = Label(text=shown.text, font_name=shown.font_name, font_size=shown.font_size,
                  padding=shown.padding, text_size=(shown.width, None))
    whole.texture_update()
    lines = [sum(1 for line in label._label._cached_lines if line.words)
             for label in (shown, whole)]
    print(json.dumps({"window": list(Window.size), "label": [*shown.pos, *shown.size],
                      "height": shown.texture_size[1], "lines": lines,
                      "sp": shown.font_size / sp(1)}))

when_drawn(measure)
sys.exit(fleet_cmd.run_notice(argparse.Namespace(file=sys.argv[1])))
"""


def longest_refusal(lang: str) -> str:
    """The longest reason firstboot gives among a few mistakes an installer makes."""
    from kiosk.errors import IdentityError
    from kiosk.fleet.identity import parse
    from kiosk.i18n import explain

    from .test_fleet_boot import CARD

    reasons = []
    for text in (CARD.replace('ssh_key = "ssh-ed25519 ', 'ssh_key = "password '),
                 CARD.replace('pin = "2580"', 'pin = "4321"'), "colour = 1\n" + CARD,
                 CARD.replace("pairing_code = \"604137\"", "pairing_code = 022133"),
                 CARD.replace('country = "CN"', 'country = "china"')):
        with pytest.raises(IdentityError) as err:
            parse(text)
        reasons.append(explain(err.value, lang))
    return max(reasons, key=len)


def ruleset_refusal(lang: str) -> str:
    """A long reason a house ruleset in kiosk-rules is refused: a key misspelt, said with
    every key its table allows."""
    from kiosk.i18n import explain
    from kiosk.rules import RulesetError, parse_ruleset

    from .test_deploy import HOUSE

    text = HOUSE.replace("play_seconds = 6", "play_seconds = 6\nplay_second = 6", 1)
    with pytest.raises(RulesetError) as err:
        parse_ruleset(text.encode(), "kiosk-rules/xiamen-house.toml")
    return explain(err.value, lang)


@pytest.mark.window
@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
@pytest.mark.parametrize("which", ["not_set_up", "two_files", "refused", "longer", "rules"])
def test_the_whole_notice_fits_an_800x480_screen(tmp_path, which, lang):
    """Nothing scrolls on the kiosk: the whole text is on the screen, its type made smaller
    when it must be, never too small to read."""
    import json

    t = translator(lang)
    said = tmp_path / "kiosk-setup.txt"
    reason = longest_refusal(lang) * (3 if which == "longer" else 1)  # longer: smaller type
    if which == "rules":  # a house ruleset refused (kiosk/fleet/house.py)
        said.write_text(t("fleet.notice.rules_refused", reason=ruleset_refusal(lang)),
                        encoding="utf-8")
    else:
        said.write_text(t(f"fleet.notice.{which}") if which in ("not_set_up", "two_files")
                        else t("fleet.notice.refused", reason=reason), encoding="utf-8")
    with xvfb("800x480x24") as display:
        env = {**os.environ, "DISPLAY": display, "KIVY_GL_BACKEND": "sdl2", "KIVY_NO_ARGS": "1",
               "KIVY_HOME": str(tmp_path / "kivy"), "KIVY_METRICS_DENSITY": "1",
               "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", str(ROOT / ".venv/cache"))}
        done = subprocess.run([sys.executable, "-c", MEASURE, str(said)], capture_output=True,
                              text=True, timeout=180, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["window"] == [800, 480] and shown["label"] == [0, 0, 800, 480]
    shown_lines, all_lines = shown["lines"]
    assert shown_lines == all_lines, shown  # no line left out
    assert shown["height"] <= 480, shown  # none beyond the window's edge
    assert shown["sp"] >= 14
