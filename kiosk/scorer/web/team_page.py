"""The phones' team page (`/team`, the hall's QR code opens it). Its words come from the
catalogs (kiosk/i18n/<lang>/phone.toml), put into the page once for all three languages,
with the hall's own words for what both pages say alike (the round clock, a lost feed)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from ...i18n import LANGS, catalog
from . import hall_page

STATIC = Path(__file__).parent / "static"
# the hall's words the phone says too, so that the two never disagree
FROM_HALL = ("clock_left", "clock_elapsed", "clock_none", "clock_paused", "clock_stopped",
             "clock_over", "clock_waiting", "clock_starts_in", "clock_closed", "time_up", "stale",
             "twin", "prize_group", "places_by_final", "paused_banner")


def words(lang: str) -> dict[str, str]:
    """The page's words in `lang`, by their keys without the area."""
    all_words = catalog(lang)
    mine = {k.removeprefix("phone."): v for k, v in all_words.items()
            if k.startswith("phone.")}
    return mine | {k: all_words[f"hall.{k}"] for k in FROM_HALL}


@functools.cache
def html() -> str:
    data = json.dumps({lang: words(lang) for lang in LANGS}, ensure_ascii=False)
    data = data.replace("</", "<\\/")  # cannot end the script
    page = (STATIC / "team.html").read_text(encoding="utf-8")
    return page.replace("<!--WORDS-->", f'<script id="words" type="application/json">'
                                         f"{data}</script>\n{hall_page.name_words_script()}")
