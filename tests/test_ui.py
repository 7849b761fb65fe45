"""The touchscreen app: presenters without a window, the font's glyphs, and real windows under
Xvfb playing a whole hand with touches and seat buttons."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import time

import pytest

from kiosk.i18n import LANGS, catalog
from kiosk.table import ManualClock, SessionConfig, TableSession
from kiosk.table.view import snapshot
from kiosk.ui.presenter import POINT_VALUES, present

from .helpers import ROOT

# -- presenters, no window ------------------------------------------------------------------


@pytest.fixture
def session(tmp_path, rulesets):
    clock = ManualClock()
    s = TableSession.open(tmp_path, 5, rulesets, clock, SessionConfig(pin="1"))
    yield s, clock
    s.close()


def test_setup_offers_the_rulesets_and_shows_the_table_number(session):
    s, clock = session
    model = present(snapshot(s), clock.now(), "zh-Hans")
    assert (model.screen, model.title) == ("setup", "5号桌")
    assert [a for a, _ in model.buttons] == [f"setup:{r}" for r in s.rulesets]


def test_clock_screen_colours_the_seat_to_move(session):
    s, clock = session
    s.setup_match(event="e", round="1", teams={}, players={"N": "赵"}, ruleset="xiamen-2015")
    s.grab_dealer("N")
    s.start_bury()
    s.press("N")
    states = []
    for step in (0.0, 3.5, 2.0):
        clock.advance(step)
        model = present(snapshot(s), clock.now(), "en")
        (north,) = [seat for seat in model.seats if seat.seat == "N"]
        states.append((north.state, model.clock, north.label))
    assert states == [("moving", "5", "North 赵"), ("warn", "2", "North 赵"),
                      ("over", "-0", "North 赵")]
    assert all(seat.state == "idle" for seat in model.seats if seat.seat != "N")
    assert ("end_play", "Last trick done") in model.buttons


def test_entry_offers_only_valid_points_and_the_result_shows_the_change(session):
    s, clock = session
    s.setup_match(event="e", round="1", teams={}, players={}, ruleset="chaodipi-2011")
    s.grab_dealer("E")
    s.start_bury()
    s.press("E")
    s.end_play()
    model = present(snapshot(s), clock.now(), "zh-Hant")
    assert model.screen == "entry" and model.values == POINT_VALUES
    assert set(model.values) == set(range(0, 201, 5))
    s.enter_points(85)
    s.finish_entries()
    model = present(snapshot(s), clock.now(), "zh-Hant")
    assert model.lines[:3] == ("旁家總分：85", "旁家上台 +0", "南北 2 : 2 東西")
    assert "東西：請按座位鍵確認" in model.lines


def test_status_shows_levels_match_time_and_pause(session):
    s, clock = session
    s.setup_match(event="e", round="3", teams={}, players={}, ruleset="xiamen-2015")
    s.start_match_clock()
    clock.advance(61)
    s.unlock("1")
    s.pause()
    model = present(snapshot(s), clock.now(), "en")
    assert model.status == "Table 5   Round 3   NS 2 : 2 EW   Match 88:59   PAUSED"


# -- the font --------------------------------------------------------------------------------


def test_the_font_has_every_character_the_screens_can_show(rulesets):
    from fontTools.ttLib import TTFont

    from kiosk.ui.fonts import FONT_FOR_LANG, font_files

    files = font_files()
    for lang in LANGS:
        cmap = TTFont(str(files[FONT_FOR_LANG[lang]]), lazy=True).getBestCmap()
        texts = list(catalog(lang).values())
        for ruleset in rulesets.values():
            texts += [ruleset.name(lang), ruleset.summary(lang), ruleset.event.text(lang)]
            texts += [p.name(lang) for p in ruleset.penalties.values()]
            texts += [r.text(lang) for r in ruleset.readings]
        missing = {ch for text in texts for ch in text if ch.strip() and ord(ch) not in cmap}
        assert missing == set(), (lang, sorted(missing))


def test_faces_are_simplified_and_traditional():
    from fontTools.ttLib import TTFont

    from kiosk.ui.fonts import font_files

    names = {key: TTFont(str(path), lazy=True)["name"].getDebugName(1)
             for key, path in font_files().items()}
    assert names == {"KioskSC": "Noto Sans CJK SC", "KioskTC": "Noto Sans CJK TC",
                     "KioskMonoSC": "Noto Sans Mono CJK SC",
                     "KioskMonoTC": "Noto Sans Mono CJK TC"}


# -- real windows under Xvfb -----------------------------------------------------------------


@pytest.fixture(scope="module")
def display():
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Xvfb is missing: make test installs it (.ci/os-packages.sh)")
        pytest.skip("Xvfb is not installed")
    number = 90 + os.getpid() % 500
    proc = subprocess.Popen([xvfb, f":{number}", "-screen", "0", "2000x2000x24", "-nolisten",
                             "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not os.path.exists(f"/tmp/.X11-unix/X{number}") and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f":{number}"
    proc.terminate()
    proc.wait(timeout=10)


def png_size(path) -> tuple[int, int]:
    with open(path, "rb") as f:
        header = f.read(24)
    return struct.unpack(">II", header[16:24])


EXPECTED = {
    "zh-Hans": {"clock": "西 Wang出牌", "result": "旁家总分：120", "over": "胜方：南北（弃权）",
                "history": "1  N   2  120  上台 +2  2:4",
                "corrected": "1  N   2   85  上台 +0  2:2"},
    "zh-Hant": {"clock": "西 Wang出牌", "result": "旁家總分：120", "over": "勝方：南北（棄權）",
                "history": "1  N   2  120  上台 +2  2:4",
                "corrected": "1  N   2   85  上台 +0  2:2"},
    "en": {"clock": "West Wang to play", "result": "Defenders' total: 120",
           "over": "Winner: NS (forfeit)", "history": "1  N   2  120  take +2  2:4",
           "corrected": "1  N   2   85  take +0  2:2"},
}


WINDOWS = [(lang, size) for size in ("800x480", "720x1280") for lang in LANGS]
WINDOWS.append(("zh-Hans", "1920x1080"))


@pytest.mark.parametrize(("lang", "size"), WINDOWS)
def test_a_whole_hand_in_a_real_window(tmp_path, display, rulesets, lang, size):
    out = tmp_path / "shots"
    env = {**os.environ, "DISPLAY": display, "XDG_CACHE_HOME": str(ROOT / ".venv" / "cache"),
           "KIVY_HOME": str(tmp_path / "kivy")}
    done = subprocess.run(
        [sys.executable, "-m", "kiosk.cli.main", "table", "--screenshots", str(out), "--lang",
         lang, "--size", size, "--data", str(tmp_path / "data"), "--table", "3"],
        capture_output=True, text=True, timeout=180, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    shots = sorted(p.name for p in out.glob("*.png"))
    assert shots == ["01-setup.png", "02-ready.png", "03-bury.png", "04-play.png",
                     "05-entry.png", "06-result.png", "07-history.png", "08-referee.png",
                     "09-correction.png", "10-over.png"]
    width, height = (int(n) for n in size.split("x"))
    assert png_size(out / "04-play.png") == (width, height)
    screens = json.loads((out / "screens.json").read_text(encoding="utf-8"))
    texts = {name: "\n".join(lines) for name, lines in screens.items()}
    want = EXPECTED[lang]
    assert want["clock"] in texts["play"]
    assert want["result"] in texts["result"]
    assert want["over"] in texts["over"]
    assert {"zh-Hans": "记分表", "zh-Hant": "記分表", "en": "Score sheet"}[lang] in texts["over"]
    assert want["history"] in texts["history"]
    assert want["corrected"] in texts["correction"]  # the referee corrected hand 1 to 85
    assert {"zh-Hans": "3号桌", "zh-Hant": "3號桌", "en": "Table 3"}[lang] in texts["setup"]
    # touch targets: at least 9 mm on the 7" display (800x480 at about 133 px an inch: 47 px)
    for name in ("ready", "entry", "result", "referee"):
        assert float(screens[f"{name}:smallest-button-px"][0]) >= 47, name
    # the hand the window played is in the journal, confirmed by both sides
    session = TableSession.open(tmp_path / "data", 3, rulesets)
    record = session.export()
    session.close()
    assert record["hands"][0] == {"dealer": "N", "points": 85}  # as corrected
    assert (record["teams"], record["players"]) == ({"NS": "厦门粮食局"}, {"W": "Wang"})
    assert record["end"]["forfeit"] == "EW"
