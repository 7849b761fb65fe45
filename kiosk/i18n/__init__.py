"""Message catalogs: every string a person reads comes from here, in 简体中文, 繁體中文 or
English.

Each language is a folder of TOML files, one per area of the product (`rules.toml`,
`table.toml`, `slip.toml`, …); a language's catalog is all of them together, and a key may be
defined in only one file.

An error meant for a person carries a catalog key and its parameters (`.key`, `.params`, see
`kiosk.errors.KioskError`); `explain` renders it in a language, so no developer's English
reaches a screen, a page or a terminal.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

LANGS = ("zh-Hans", "zh-Hant", "en")


def __getattr__(name: str) -> Any:
    """`resources` (importlib's) is imported when first used: `kiosk --help` needs none."""
    if name == "resources":
        from importlib import resources

        return resources
    raise AttributeError(name)
DEFAULT_LANG = "zh-Hans"


@functools.cache
def catalog(lang: str) -> Mapping[str, str]:
    """All messages of `lang`. Raises ValueError for a language the product does not speak, or
    for a key defined in two of its files."""
    import tomllib  # here: a command's --help needs the languages' names only
    from importlib import resources

    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; allowed: {', '.join(LANGS)}")
    messages: dict[str, str] = {}
    folder = resources.files("kiosk.i18n") / lang
    for part in sorted(folder.iterdir(), key=lambda p: p.name):
        if not part.name.endswith(".toml"):
            continue
        for key, text in tomllib.loads(part.read_text(encoding="utf-8")).items():
            if key in messages:
                raise ValueError(f"{lang}/{part.name}: {key!r} is already defined")
            messages[key] = text
    return messages


def translator(lang: str) -> Callable[..., str]:
    """A function ``t(key, **values)`` giving the message `key` in `lang`, formatted."""
    messages = catalog(lang)

    def t(key: str, **values: Any) -> str:
        return messages[key].format(**values) if values else messages[key]

    return t


def explain(error: BaseException, lang: str) -> str:
    """What `error` says to a person in `lang`: its catalog key rendered with its parameters.
    An error without a key (a bug, not a refusal) gets the catalog's generic words, never its
    developer text."""
    key = getattr(error, "key", None)
    if not isinstance(key, str) or key not in catalog(lang):
        return translator(lang)("error.unexpected")
    return render(key, getattr(error, "params", {}), lang)


def render(key: str, params: Mapping[str, Any], lang: str) -> str:
    """Message `key` in `lang` with `params`, where a parameter may itself be words: anything
    with a catalog `key` and `params` (``kiosk.rules.errors.Words``) or a ruleset text (callable
    with the language, ``kiosk.rules.Text``) is rendered in `lang` first."""
    values = {name: _render_value(value, lang) for name, value in params.items()}
    return translator(lang)(key, **values)


def _render_value(value: Any, lang: str) -> Any:
    key, params = getattr(value, "key", None), getattr(value, "params", None)
    if isinstance(key, str) and isinstance(params, Mapping):
        return render(key, params, lang)
    if callable(value) and hasattr(value, "zh_hans"):  # a ruleset Text
        return value(lang)
    return value
