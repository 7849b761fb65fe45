"""Line breaks, colours and room on the kiosk's screens in the real window under Xvfb at
800×480 (audit of the kiosk, findings 14 and 15): a button's words break at sensible points,
the history keeps 「北 跟错牌」 together, ♥ is red on the strip, the end screen's slip fits
without scrolling."""

from __future__ import annotations

import re

import pytest

from .helpers import xvfb
from .window import cut_words, play

pytestmark = pytest.mark.window

PIN = [("touch", "pin:0")] * 4 + [("touch", "pin_ok")]


@pytest.fixture(scope="module")
def display():
    with xvfb("800x480x24") as name:
        yield name


def penalties(*seats: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, str]] = []
    for seat in seats:
        steps += [("wait", "entry.penalties"), ("touch", "e_add"),
                  ("wait", "entry.penalty_seat"), ("touch", f"e_pseat:{seat}"),
                  ("wait", "entry.penalty_kind"), ("touch", "e_pkind:exposed-card")]
    return steps


@pytest.fixture(scope="module")
def screens(tmp_path_factory, display):
    """A xiamen hand with a penalty at every seat, its history, time up and the end screen."""
    script = [
        ("wait", "setup"), ("type", "NS=A1"), ("touch", "setup:xiamen-2015"),
        ("wait", "ready.dealer"), ("touch", "dealer:N"), ("wait", "ready"),
        ("touch", "trump:♥"), ("touch", "start_bury"), ("wait", "clock.bury"), ("seat", "N"),
        ("wait", "clock.play"), ("play_out", ""), ("wait", "clock.done"),
        ("touch", "end_play"), ("wait", "entry.points"), ("touch", "e_points:40"),
        ("wait", "entry.last_trick"), ("touch", "e_last:defenders"),
        ("wait", "entry.kitty_points"), ("touch", "e_kitty:15"), ("wait", "entry.kitty_shape"),
        ("touch", "e_back"), ("wait", "entry.kitty_points"), ("touch", "e_back"),
        ("wait", "entry.last_trick"), ("touch", "e_last:dealer"), ("wait", "entry.penalties"),
        ("touch", "e_add"), ("wait", "entry.penalty_seat"), ("touch", "e_pseat:N"),
        ("wait", "entry.penalty_kind"), ("shot", "offence-N"), ("touch", "e_back"),
        ("touch", "e_back"), *penalties("E", "S", "W", "N"), ("wait", "entry.penalties"),
        ("shot", "penalties"), ("touch", "e_finish"), ("wait", "result"), ("seat", "N"),
        ("seat", "E"), ("wait", "ready"), ("touch", "history"), ("wait", "history"),
        ("shot", "history"), ("touch", "close"), ("touch", "referee"),
        ("wait", "referee.pin"), *PIN, ("wait", "referee"), ("touch", "r_time_up"),
        ("wait", "confirm"), ("touch", "ok"), ("wait", "over"), ("shot", "over")]
    _, seen = play(tmp_path_factory.mktemp("layout"), display, script)
    return seen


def test_offence_buttons_break_at_sensible_points(screens):
    laid = screens["laid"]["entry.penalty_kind"]
    broken = {text: lines for text, lines in laid.items() if len(lines) > 1}
    assert broken  # the long offence names do take two lines at 800×480
    for text, lines in broken.items():
        for line in lines:
            assert len(line.strip()) > 1, (text, lines)  # no 「上」 left alone
            assert line.strip()[0] not in "）」，。", (text, lines)  # no lone 「）」


def test_a_button_keeps_its_own_lines(screens):
    laid = screens["laid"]["entry.kitty_shape"]
    assert laid["拖拉机（两对相连）\n×8 = 120"] == ["拖拉机（两对相连）", "×8 = 120"]


def test_the_step_forward_and_the_pager_read_on_one_line(screens):
    laid = screens["laid"]["entry.penalties"]
    assert laid["下一步：核对结果"] == ["下一步：核对结果"]
    assert laid["第2/2页 ◀"] == ["第2/2页 ◀"]  # the page shown (the penalty just added's)


def test_the_history_keeps_a_seat_with_its_offence(screens):
    (notes,) = [lines for text, lines in screens["laid"]["history"].items()
                if "暴露" in text or "露" in text]
    assert len(notes) > 2  # four penalties take more than one line
    for line in notes:
        assert not re.search(r"[北东南西]$", line.strip()), notes
        assert not re.match(r"\s*(暴露|罚)", line), notes
    assert any(text.split()[-1] == "A1:东西" for text in screens["texts"]["history"])


def test_the_result_keeps_each_penalty_whole_on_a_line(screens):
    """On 本副结果, where both sides check the hand before they agree, a penalty's note broke
    in the middle (「南 超时 1.8」⏎「秒：警告」; a referee's review, 2026-12-06)."""
    (notes,) = [lines for text, lines in screens["laid"]["result"].items() if "暴露" in text]
    assert len(notes) > 1  # five penalties take more than one line at 800×480
    for line in notes:
        assert re.match(r"[北东南西]\s", line), notes  # each line opens with a seat's note
    for line in notes[:-1]:
        assert line.rstrip().endswith("；"), notes  # … and ends with a whole one


def test_a_red_trump_is_red_on_the_strip(screens):
    red, green, blue, _ = screens["colors"]["ready"]["♥"]
    assert red > 0.9 and green < 0.6 and blue < 0.6


def test_the_end_screen_shows_the_slip_without_scrolling(screens):
    assert screens["scrolls"] == []
    assert [cut for cut in screens["overflow"] if cut[0] == "over"] == []
    assert any("第1/" in text for text in screens["texts"]["over"])  # the rest on a page


def test_no_words_are_cut_off_on_any_screen(screens):
    assert cut_words(screens) == []


def test_every_pin_pad_has_its_keys_in_the_same_places(tmp_path, display):
    """删除罚则's PIN pad names the penalty above the PIN: its keys sat a line lower than on
    the other PIN pads (a referee's hand learns them), in the real window at 800×480."""
    script = [
        ("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
        ("touch", "dealer:N"), ("wait", "ready"), ("touch", "trump:♠"), ("touch", "start_bury"),
        ("wait", "clock.bury"), ("seat", "N"), ("wait", "clock.play"), ("touch", "referee"),
        ("wait", "referee.pin"), ("rects", "menu"), ("touch", "close"), ("wait", "clock.play"),
        ("touch", "end_play"), ("wait", "confirm"), ("touch", "ok"), ("wait", "entry.points"),
        ("touch", "e_points:40"), ("wait", "entry.last_trick"), ("touch", "e_last:dealer"),
        *penalties("W"), ("wait", "entry.penalties"), ("touch", "e_del:*"),
        ("wait", "referee.pin"), ("rects", "delete"), ("shot", "delete")]
    _, screens = play(tmp_path, display, script, pointer=True)
    assert "删除罚则：西 暴露张" in screens["texts"]["referee.pin"]
    pad = ("pin:", "pin_clear", "pin_back")
    keys = {name: {a: r for a, r in rects.items() if a.startswith(pad)}
            for name, rects in screens["rects"].items()}
    assert len(keys["menu"]) == 12
    assert keys["delete"] == keys["menu"]
