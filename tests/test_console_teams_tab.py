"""The console's 队伍 tab as the tester found it: 修改 opens the page on its form (M10), and a
team list pasted in a box goes through the import and its questions (M9)."""

from __future__ import annotations

import html
import re

import pytest

from .console_client import Window, event, flash_of, log_in, refused_page, shown_error

pytestmark = pytest.mark.unit


@pytest.fixture
def director(tmp_path):
    yield from event(tmp_path)


# -- M10: 修改 lands on its form ------------------------------------------------------------


def test_the_edit_link_opens_the_page_on_its_form(director):
    page = Window(log_in(director)).load("/admin/teams")
    link = re.search(r'<a href="([^"]*edit=t08[^"]*)">修改</a>', page).group(1)
    assert link == "/admin/teams?edit=t08#edit-t08"
    form = Window(log_in(director)).load(html.unescape(link.split("#")[0]))
    assert 'id="edit-t08"' in form and 'name="back" value="/admin/teams#team-t08"' in form

# -- M9: a team list pasted, through the import and its questions -------------------------


def test_a_pasted_list_of_names_is_imported_and_asks_about_a_name_already_there(director):
    client = log_in(director)
    window = Window(client)
    window.load("/admin/teams")
    assert 'name="pasted"' in window.page  # the box, on the 队伍 tab
    pasted = "海沧红狮\t海沧\r\n集美龙舟，集美\n\n鼓浪屿钢琴\n第1队\n"  # Excel, 全角逗号, a name
    asked = window.send("/admin/import", n=1, pasted=pasted)
    question = Window(client)
    page = question.load(asked.headers["location"])  # the duplicate's question, first
    assert "第1队（名单第 5 行，与已有的 t01 同名）" in page and len(director.team_rows()) == 8
    done = question.send("/admin/import")
    assert flash_of(client, done) == "已导入 4 队。"
    added = [(r.name, r.unit) for r in director.team_rows()[8:]]
    assert added == [("海沧红狮", "海沧"), ("集美龙舟", "集美"), ("鼓浪屿钢琴", ""), ("第1队", "")]


def test_a_pasted_list_with_excels_header_row_or_too_many_cells(director):
    client = log_in(director)
    window = Window(client)
    window.load("/admin/teams")
    copied = "编号\t队名\t单位\t队员1\nT09\t湖里白鹭\t湖里\t王五\n"  # cells copied with a header
    assert flash_of(client, window.send("/admin/import", n=1, pasted=copied)) == "已导入 1 队。"
    assert director.team("T09").players == ("王五",)
    window.load("/admin/teams")
    wrong = "甲队,厦大,1,2,3,4,5\n"
    refused = refused_page(client, window.send("/admin/import", n=1, pasted=wrong))
    assert shown_error(refused).startswith("第 1 行有 7 格：每行写队名")
    assert "甲队,厦大,1,2,3,4,5" in refused.text  # the box comes back as it was typed
    assert len(director.team_rows()) == 9
