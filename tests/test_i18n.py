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
