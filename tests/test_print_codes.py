"""The printable list of pairing codes (audit #5, #19): one slip a table with its code, or that
it is paired (with when and its kiosk), or that its code was voided or expired. The codes are
secret: only the head referee's session prints them; no public /print/* page shows one."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer import printing
from kiosk.scorer.director import Director
from kiosk.scorer.store import Store
from kiosk.scorer.web import create_app
from kiosk.sync.join import join

from .test_printing import render

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
    d.store.burn_code(codes[3])  # a stranger's wrong guess voided table 3's code
    d.start_round(0)  # a round published and started: every public page has something
    yield d, client, codes
    d.store.close()


def test_the_code_list_is_the_consoles_only(hall, tmp_path):
    _, client, codes = hall
    secret = [codes[2], codes[4]]
    for path in ("/admin/print/codes.html", "/admin/print/codes.pdf"):
        assert client.get(path).headers["location"] == "/admin/login"  # no session: login
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
    assert text["1"].startswith("第 1 桌 已配对（") and "无需配对码" in text["1"]
    assert codes[2] in text["2"] and "--table 2 --pair " + codes[2] in text["2"]
    assert "码已作废" in text["3"] and codes[3] not in page.text
    assert codes[4] in text["4"]
    pdf = client.get("/admin/print/codes.pdf")
    assert pdf.headers["content-type"] == "application/pdf"
    assert "filename*=UTF-8''%E5%8E%A6%E9%97%A8%E6%9D%AF-%E9%85%8D%E5%AF%B9%E7%A0%81.pdf" \
        in pdf.headers["content-disposition"]  # 厦门杯-配对码.pdf
    pages, printed = render(pdf.content, tmp_path, "codes")
    assert len(pages) == 1 and "各桌配对码（保密）" in printed
    assert codes[2] in printed and codes[4] in printed and "请勿张贴" in printed
