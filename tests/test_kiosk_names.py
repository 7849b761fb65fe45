"""Names at the table (issue 31, finding 3): Chinese names typed in pinyin with candidates
from pypinyin's dictionaries, Latin names typed as the keys show them; through the real
controller, presenter, runner and journal."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def pick(table, letters: str, wanted: str) -> None:
    """Type `letters` in pinyin and tap the candidate `wanted` (on whichever page it is)."""
    for letter in letters:
        table.tap(f"key:{letter.upper()}")
    for _ in range(20):
        shown = {b.label: b.action for g in table.screen.grids for b in g.buttons}
        if wanted in shown:
            table.tap(shown[wanted])
            return
        table.tap("more")
    raise AssertionError(f"{wanted} is not offered for {letters}")


def test_a_chinese_team_name_is_typed_in_pinyin_at_a_table_of_its_own(table):
    table.tap("name:NS")
    screen = table.screen
    assert screen.name == "keyboard" and "打拼音，再点选出现的字词" in screen.lines
    assert screen.title == "输入南北队名"  # no 「（字母和数字）」 any more
    pick(table, "tongan", "同")
    assert "拼音：an" in table.screen.lines  # the syllable picked is taken from the letters
    pick(table, "", "安")
    pick(table, "laonian", "老")
    pick(table, "", "年")
    pick(table, "dui", "队")
    assert table.screen.lines[-1] == "同安老年队▏"  # (below what to do, large)
    table.tap("key_done", "setup:xiamen-2015")
    assert table.session.export()["teams"] == {"NS": "同安老年队"}


def test_a_word_is_offered_for_all_the_letters_and_space_takes_the_first(table):
    table.tap("name:EW")
    for letter in "xiamen":
        table.tap(f"key:{letter.upper()}")
    first = next(b for g in table.screen.grids for b in g.buttons if b.action == "pick:0")
    assert first.label == "厦门"
    table.tap("key_space")
    assert table.ctl.ui.names["EW"] == "厦门" and table.ctl.ui.pinyin == ""


@pytest.mark.parametrize(("letters", "word"), [
    ("jimei", "集美"), ("haicang", "海沧"), ("tongan", "同安"), ("fuzhou", "福州"),
    ("changtai", "长泰"), ("daibiaodui", "代表队"), ("xiamen", "厦门")])
def test_the_places_and_words_of_a_teams_name_come_first(table, letters, word):
    """A referee's review: 「jimei」 offered no 集美 (pypinyin's phrases lack most places),
    so 集美龙舟 took a character at a time, and 完成 then kept 「mei」 as typed: 机mei."""
    table.tap("name:EW", *(f"key:{letter.upper()}" for letter in letters))
    first = next(b for g in table.screen.grids for b in g.buttons if b.action == "pick:0")
    assert first.label == word
    table.tap("key_space", "key_done")
    assert table.ctl.ui.names["EW"] == word


def test_latin_keys_type_what_they_show_and_digits_go_straight_in(table):
    """X, M, 1, 1 gave 「Xm」: the keyboard turned to lower case after the first letter."""
    table.tap("name:NS", "key_mode")
    for key in ("X", "M", "1", "1"):
        table.tap(f"key:{key}")
    assert table.ctl.ui.names["NS"] == "XM11"
    table.tap("key_case", "key:B")
    assert table.ctl.ui.names["NS"] == "XM11b"
    table.tap("key_done", "name:E")
    assert table.screen.title == "输入东家选手名"


def test_the_keys_keep_their_places_while_candidates_come_and_go(table):
    from kiosk.ui.model import shape

    table.tap("name:NS")
    before = shape(table.screen)
    table.tap("key:T", "key:O")  # the start of tong, tou…: their characters are offered
    assert shape(table.screen) == before  # words change, the buttons stay where they are
    assert "同" in [b.label for b in table.screen.grids[0].buttons]


def test_the_letters_are_where_a_keyboard_has_them(table):
    """The keys were a to z in rows of ten (six standing up), an order nobody types on: a
    referee looked for each letter."""
    table.tap("name:N")
    screen = table.screen
    keys = screen.grids[-1]
    rows = ["".join(b.label or " " for b in keys.buttons[i:i + 10]) for i in range(0, 40, 10)]
    assert rows == ["1234567890", "qwertyuiop", "asdfghjkl'", " zxcvbnm  "]
    assert keys.columns(False) == keys.columns(True) == 10
    # what to do above the name, in the body's size; only the name is large
    assert screen.lines == ("打拼音，再点选出现的字词", "▏") and screen.extra["input"] == 1
    table.tap("key_mode")
    letters = [b.label for b in table.screen.grids[-1].buttons[10:20]]
    assert letters == list("QWERTYUIOP")  # (upper case first in Latin letters)
    assert "'" not in [b.label for b in table.screen.grids[-1].buttons]


@pytest.mark.parametrize("lang", ["zh-Hant", "en"])
def test_the_keyboard_reads_in_every_language(table, lang):
    table.ctl.ui.lang = lang
    table.tap("name:NS")
    screen = table.screen
    if lang == "en":
        assert screen.title == "Type the NS team" and screen.nav[0].label == "Pinyin"
    else:
        assert screen.title == "輸入南北隊名" and screen.nav[0].label == "英文"
