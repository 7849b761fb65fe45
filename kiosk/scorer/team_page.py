"""The phones' team page (`/team`, the hall's QR code opens it). Its words come from the
catalogs (kiosk/i18n/<lang>/phone.toml), put into the page once for all three languages."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from ..i18n import LANGS, catalog

STATIC = Path(__file__).parent / "static"
PREFIX = "phone."


@functools.cache
def html() -> str:
    words = {lang: {k[len(PREFIX):]: v for k, v in catalog(lang).items()
                    if k.startswith(PREFIX)} for lang in LANGS}
    data = json.dumps(words, ensure_ascii=False).replace("</", "<\\/")  # cannot end the script
    page = (STATIC / "team.html").read_text(encoding="utf-8")
    return page.replace("<!--WORDS-->", f'<script id="words" type="application/json">'
                                         f"{data}</script>")
