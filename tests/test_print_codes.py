"""The printable list of pairing codes (audit #5, #19): one slip a table not paired yet, with
its code or that its code was voided or expired; the paired tables left out and counted (scale
audit C8: mid-event they are most of the hall). The codes are
secret: only the head referee's session prints them; no public /print/* page shows one."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.printing import pages as printing
from kiosk.scorer.store.database import MISSES, Store
from kiosk.scorer.web.app import create_app
from kiosk.sync.join import join

from .test_printing import render

pytestmark = pytest.mark.process

RULESETS = Rulesets.load([])
PASSWORD = "the-head-referee-47"


@pytest.fixture
def hall(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.set_password(PASSWORD)
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    d.import_teams("编号,队名\nt01,甲\nt02,乙\nt03,丙\nt04,丁\n".encode())
    codes = d.add_tables(4)
    client = TestClient(create_app(d), follow_redirects=False)
    join(tmp_path / "k1", 1, "http://testserver", codes[1], RULESETS, client)  # paired
    for _ in range(MISSES):  # a stranger's wrong guesses voided table 3's code
        d.store.miss_code(codes[3])
    d.start_round(0)  # a round published and started: every public page has something
    yield d, client, codes
    d.store.close()


def test_the_code_list_is_the_consoles_only(hall, tmp_path):
    _, client, codes = hall
    secret = [codes[2], codes[4]]
    for path in ("/admin/print/codes.html", "/admin/print/codes.pdf"):
        went = client.get(path).headers["location"]  # no session: the login (back here after)
        assert went == "/admin/login?" + urlencode({"next": path})
    for ext in ("html", "pdf"):
        assert client.get(f"/print/codes.{ext}").status_code == 404  # never public
    for kind in printing.KINDS:  # and no public page prints a code
        page = client.get(f"/print/{kind}.html")
        assert page.status_code == 200 and not any(c in page.text for c in secret), kind
    client.post("/admin/login", data={"password": PASSWORD, "who": "陈"})
    page = client.get("/admin/print/codes.html")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    slips = dict(re.findall(r'data-table="(\d)">(.*?)</div>\s*</div>', page.text, re.S))
    text = {n: " ".join(re.sub(r"<[^>]+>", " ", s).split()) for n, s in slips.items()}
    assert "1" not in slips  # paired: no slip, counted on the first page instead
    assert "已配对的 1 张桌不在此列（无需配对码）；下面是还没有配对的 3 张桌。" in page.text
    assert codes[2] in text["2"] and "--table 2 --pair " + codes[2] in text["2"]
    assert "码已作废" in text["3"] and codes[3] not in page.text
    assert codes[4] in text["4"]
    pdf = client.get("/admin/print/codes.pdf")
    assert pdf.headers["content-type"] == "application/pdf"
    assert "filename*=UTF-8''%E5%8E%A6%E9%97%A8%E6%9D%AF-%E9%85%8D%E5%AF%B9%E7%A0%81.pdf" \
        in pdf.headers["content-disposition"]  # 厦门杯-配对码.pdf
    pages, printed = render(pdf.content, tmp_path, "codes")
    assert len(pages) == 1 and "各桌配对码（保密）" in printed
    assert "已配对的 1 张桌不在此列" in " ".join(printed.split())
    assert codes[2] in printed and codes[4] in printed and "请勿张贴" in printed


def test_mid_event_only_the_tables_still_to_pair_are_printed(tmp_path):
    """Scale audit C8: 480 of 500 tables paired printed 480 slips saying 无需配对码 before
    the 20 that mattered. Here 5 of 7 are paired: two slips, on the first page, and the five
    counted; then all seven paired: words, not an empty page of slips."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.set_password(PASSWORD)
    d.create_event("全国总决赛", "xiamen-2015", seed=3)
    codes = d.add_tables(7)
    client = TestClient(create_app(d), follow_redirects=False)
    for table in (1, 2, 3, 5, 7):
        join(tmp_path / f"k{table}", table, "http://testserver", codes[table], RULESETS,
             client)
    client.post("/admin/login", data={"password": PASSWORD, "who": "陈"})
    page = client.get("/admin/print/codes.html").text
    assert re.findall(r'data-table="(\d)"', page) == ["4", "6"]
    assert "已配对的 5 张桌不在此列（无需配对码）；下面是还没有配对的 2 张桌。" in page
    pages, printed = render(client.get("/admin/print/codes.pdf").content, tmp_path, "some")
    flat = " ".join(printed.split())
    assert len(pages) == 1 and codes[4] in flat and codes[6] in flat
    assert "已配对的 5 张桌不在此列" in flat and "第 1 桌" not in flat
    for table in (4, 6):
        join(tmp_path / f"k{table}", table, "http://testserver", codes[table], RULESETS,
             client)
    english = client.get("/admin/print/codes.html?lang=en").text
    assert 'data-table="' not in english
    assert "All 7 tables are paired: no code is needed." in english
    pages, printed = render(client.get("/admin/print/codes.pdf").content, tmp_path, "none")
    flat = " ".join(printed.split())
    assert len(pages) == 1 and "全部 7 张桌都已配对，无需配对码。" in flat
    assert "请勿张贴" not in flat  # no slips, so no cutting instructions
    d.store.close()
