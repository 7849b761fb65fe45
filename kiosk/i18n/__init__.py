"""Message catalogs: every string a person reads comes from here, in 简体中文, 繁體中文 or
English."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

LANGS = ("zh-Hans", "zh-Hant", "en")
DEFAULT_LANG = "zh-Hans"


@functools.cache
def catalog(lang: str) -> Mapping[str, str]:
    """All messages of `lang`. Raises ValueError for a language the product does not speak."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; allowed: {', '.join(LANGS)}")
    text = (resources.files("kiosk.i18n") / f"{lang}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def translator(lang: str) -> Callable[..., str]:
    """A function ``t(key, **values)`` giving the message `key` in `lang`, formatted."""
    messages = catalog(lang)

    def t(key: str, **values: Any) -> str:
        return messages[key].format(**values) if values else messages[key]

    return t
