"""The bottom bar keeps each recurring action in one place, in the real kiosk window under
Xvfb at 800×480 (audit of the kiosk, finding 12: 开始扣底 was the 3rd, 2nd or 1st button as
撤销 and 革命 came and went, and a referee tapping by habit opened 记录)."""

from __future__ import annotations

import pytest

from .helpers import xvfb
from .window import play

pytestmark = pytest.mark.window

PORTRAIT = "720x1280"


@pytest.fixture(scope="module")
def display():
    with xvfb("800x1280x24") as name:
        yield name


def hand_screens(ruleset: str) -> list[tuple[str, str]]:
    """Hand 1 (a grabbed dealer: 撤销抢庄 on the ready screen) and the ready screen of hand 2
    (nothing to undo), with the bar's rectangles noted on each screen of the hand."""
    return [
        ("wait", "setup"), ("touch", f"setup:{ruleset}"), ("wait", "ready.dealer"),
        ("touch", "dealer:N"), ("wait", "ready"), ("rects", "ready-1"), ("touch", "trump:♣"),
        ("touch", "start_bury"), ("wait", "clock.bury"), ("rects", "bury"), ("seat", "N"),
        *([("wait", "fry"), ("rects", "fry"), ("touch", "no_fry")]
          if ruleset == "chaodipi-2011" else []),
        ("wait", "clock.play"), ("rects", "play"), ("play_out", ""), ("wait", "clock.done"),
        ("rects", "done"), ("touch", "end_play"), ("wait", "entry.points"),
        ("rects", "entry.points"), ("touch", "e_points:40"), ("wait", "entry.last_trick"),
        ("rects", "entry.last_trick"), ("touch", "e_last:dealer"),
        ("wait", "entry.penalties"), ("rects", "entry.penalties"), ("touch", "e_finish"),
        ("wait", "result"), ("seat", "N"), ("seat", "E"), ("wait", "ready"),
        ("rects", "ready-2"), ("shot", "ready-2")]


@pytest.mark.parametrize(("ruleset", "size"), [("chaodipi-2011", "800x480"),
                                               ("xiamen-2015", "800x480"),
                                               ("chaodipi-2011", PORTRAIT)])
def test_each_action_keeps_its_slot_in_the_bottom_bar(tmp_path, display, ruleset, size):
    _, screens = play(tmp_path, display, hand_screens(ruleset), size=size)
    rects = screens["rects"]
    forward = {name: r[a] for name, r in rects.items()
               for a in ("start_bury", "no_fry", "end_play", "e_finish") if a in r}
    # 开始扣底 with and without 撤销/革命 beside it, 无人炒底, 出牌结束, 下一步: one place
    assert {"ready-1", "ready-2", "play", "done", "entry.penalties"} <= set(forward)
    assert len({tuple(r) for r in forward.values()}) == 1, forward
    back = {name: r[a] for name, r in rects.items()
            for a in ("undo", "e_back", "e_back_to_play") if a in r}
    assert {"ready-1", "play", "entry.points", "entry.last_trick"} <= set(back)
    assert len({tuple(r) for r in back.values()}) == 1, back
    assert tuple(back["ready-1"]) != tuple(forward["ready-1"])
    for common in ("history", "referee", "language"):  # 记录 never where 开始扣底 was
        assert len({tuple(r[common]) for r in rects.values()}) == 1, common
