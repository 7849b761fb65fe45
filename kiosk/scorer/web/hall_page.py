"""The hall page's HTML and its QR code. The page's words come from the catalogs
(kiosk/i18n/<lang>/hall.toml), put into the page once for all three languages, so the
buttons switch language without asking the scorer."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path

from ...i18n import LANGS, catalog
from ...words.names import name_words

STATIC = Path(__file__).parent / "static"
PREFIX = "hall."


@functools.cache
def html() -> str:
    words = {lang: {k[len(PREFIX):]: v for k, v in catalog(lang).items()
                    if k.startswith(PREFIX)} for lang in LANGS}
    # "</" cannot end the script early: JSON may escape the slash.
    data = json.dumps(words, ensure_ascii=False).replace("</", "<\\/")
    page = (STATIC / "hall.html").read_text(encoding="utf-8")
    return page.replace("<!--WORDS-->", f'<script id="words" type="application/json">'
                                         f"{data}</script>\n{name_words_script()}")


def name_words_script() -> str:
    """The words of teams' names, which the pages keep whole on a line (feed.js, nameNodes)."""
    names = json.dumps([word for word, _ in name_words()], ensure_ascii=False)
    return f'<script id="name-words" type="application/json">{names}</script>'


@functools.cache
def qr_svg(address: str) -> bytes:
    """The scorer's address as a QR code: a standalone SVG document (with its namespace, or
    a browser draws nothing for it as an image)."""
    import segno  # (here: the first /qr.svg, not the scorer's start)

    out = io.BytesIO()
    segno.make(address, error="m").save(out, kind="svg", scale=8, border=4, dark="#000",
                                        light="#fff")
    return out.getvalue()
