"""Every message catalog has the same keys and the same placeholders."""

from __future__ import annotations

import string

import pytest

from kiosk.i18n import LANGS, catalog, translator


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
