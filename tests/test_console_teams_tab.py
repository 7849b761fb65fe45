"""The console's 队伍 tab as the tester found it: 修改 opens the page on its form (M10)."""

from __future__ import annotations

import html
import re

import pytest

from .console_client import Window, event, log_in

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
