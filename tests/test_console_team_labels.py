"""A team named with its id reads in the page's own brackets: 第1队（t01） on a Chinese page,
第1队 (t01) on an English one, alike on the console, the command line and the exports (one
source: `Director.label`, the catalog's `admin.with_id`)."""

from __future__ import annotations

import io

import openpyxl
import pytest

from .console_client import Window, event, flash_of, log_in
from .helpers import cli

pytestmark = pytest.mark.unit


@pytest.fixture
def director(tmp_path):
    yield from event(tmp_path)


def test_a_team_with_its_id_is_bracketed_as_the_reader_language_writes(director, tmp_path):
    client = log_in(director)
    window = Window(client)
    window.load("/admin/teams")
    asked = window.send("/admin/delete-team", 7)  # 删除… on 第8队
    assert "删除第8队（t08）" in window.load(asked.headers["location"])
    done = window.send("/admin/delete-team")
    assert flash_of(client, done) == "已删除第8队（t08）。"
    in_english = client.get(done.headers["location"] + "&lang=en").text
    assert "第8队 (t08) deleted." in in_english
    assert "删除第8队（t08）" in window.load("/admin/log?lang=zh-Hans")

    director.publish()
    director.start_round(0)
    ns, ew = director.teams_at(1, 1)
    director.record_ruling(1, "forfeit", "NS", "迟到", by="陈", confirm=True)
    assert f"{director.team_names()[ns]}（{ns}）" in window.load("/admin/rulings")
    book = openpyxl.load_workbook(io.BytesIO(client.get("/admin/export/results.xlsx").content))
    cells = {str(c.value) for row in book.worksheets[2].iter_rows() for c in row}
    assert f"{director.team_names()[ew]}（{ew}）" in cells

    said = cli("scorer", "admin", "rulings", "--data", str(tmp_path)).stdout
    assert f"{director.team_names()[ns]}（{ns}）对{director.team_names()[ew]}（{ew}）" in said
    assert " (t0" not in said
