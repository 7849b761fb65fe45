"""Every message catalog has the same keys and the same placeholders."""

from __future__ import annotations

import string

import pytest

from kiosk.i18n import LANGS, catalog, translator

pytestmark = pytest.mark.unit


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_catalogs_have_the_same_keys_and_placeholders():
    english = catalog("en")
    for lang in LANGS:
        messages = catalog(lang)
        assert set(messages) == set(english), lang
        for key, text in messages.items():
            assert text.strip(), (lang, key)
            assert placeholders(text) == placeholders(english[key]), (lang, key)


def test_translator_formats_and_refuses_unknown_languages():
    assert translator("en")("time.seconds", n=5) == "5 s"
    assert translator("zh-Hant")("time.seconds", n=5) == "5秒"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        catalog("fr")


def test_a_keyed_error_is_explained_in_each_language_and_a_bare_one_never_shows_its_english():
    from kiosk.i18n import explain
    from kiosk.rules.errors import EntryError

    keyed = EntryError("", "255 is not a card-point count").explained("time.seconds", n=5)
    assert [explain(keyed, lang) for lang in LANGS] == ["5秒", "5秒", "5 s"]
    located = EntryError("points", "255 is not a card-point count").explained(
        "time.seconds", n=5)  # an entry's field is named before the problem
    assert [explain(located, lang) for lang in LANGS] == ["得分：5秒", "得分：5秒", "points: 5 s"]
    bare = EntryError("points", "points: None is not a card-point count")
    for lang in LANGS:
        assert "None" not in explain(bare, lang)
        assert explain(bare, lang) == catalog(lang)["error.unexpected"]


def test_a_key_defined_in_two_files_of_one_language_is_refused(tmp_path, monkeypatch):
    import kiosk.i18n as i18n

    for lang in LANGS:
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "a.toml").write_text('"x" = "1"\n', encoding="utf-8")
        (tmp_path / lang / "b.toml").write_text('"x" = "2"\n', encoding="utf-8")
    monkeypatch.setattr(i18n.resources, "files", lambda _package: tmp_path)
    i18n.catalog.cache_clear()
    try:
        with pytest.raises(ValueError, match="'x' is already defined"):
            i18n.catalog("en")
    finally:
        i18n.catalog.cache_clear()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("keys", [
    ("admin.col.points", "print.col.points", "hall.col_points", "phone.points"),
    ("admin.col.net", "print.col.net", "hall.col_net", "phone.net"),
    ("admin.col.opponents", "print.col.opponents", "hall.col_opponents", "phone.opponents"),
])
def test_one_quantity_has_one_name_on_the_console_the_prints_the_hall_and_the_phone(lang, keys):
    assert len({catalog(lang)[key] for key in keys}) == 1, [catalog(lang)[k] for k in keys]


def test_the_seeds_own_words_name_big_points_and_net_levels():
    # The Xiamen seed's 记分表 records 大分 and 凈勝級; no screen says 积分 or 净级 for them.
    assert catalog("zh-Hans")["hall.col_points"] == catalog("zh-Hant")["hall.col_points"] == "大分"
    assert catalog("zh-Hans")["hall.col_net"] == "净胜级"
    assert catalog("zh-Hant")["hall.col_net"] == "淨勝級"
    for lang in ("zh-Hans", "zh-Hant"):
        said = catalog(lang)["phone.history_row"] + catalog(lang)["phone.history_bye"]
        assert "大分" in said
        assert not any(word in said for word in ("积分", "净级", "積分", "淨級"))


def test_every_phase_of_a_table_has_its_words_on_the_hall_and_the_phone():
    """A hall review (High): chaodipi's frying step showed as 「fry」 in the hall's and the
    phone's 状态 (no words for it; the page showed the raw name)."""
    from kiosk.table.kinds import Phase

    for lang in LANGS:
        messages = catalog(lang)
        missing = [f"{page}.phase_{phase}" for phase in Phase for page in ("hall", "phone")
                   if f"{page}.phase_{phase}" not in messages]
        assert missing == [], lang
