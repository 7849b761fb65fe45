"""What a person sees when the scorer cannot give what was asked: a wrong address, a wrong
method, a failure, a print of a round that does not exist. Always a short page in the
visitor's language (the console's choice), never the framework's English."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app

pytestmark = pytest.mark.unit

ENGLISH_DEFAULTS = ("Not Found", "Method Not Allowed", "Internal Server Error")


@pytest.fixture
def director(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    yield d
    d.store.close()


def shown(html: str) -> str:
    """The words of a page, as a person reads them."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


@pytest.mark.parametrize("method, path, status, said", [
    ("GET", "/admin/nonexistent", 404, "没有这个页面：请检查地址。"),
    ("GET", "/nonexistent", 404, "没有这个页面：请检查地址。"),
    ("GET", "/static/nonexistent.css", 404, "没有这个页面：请检查地址。"),
    ("GET", "/admin/mute", 405, "此页不能这样打开：请从页面上的按钮或链接进入。"),
    ("DELETE", "/team", 405, "此页不能这样打开：请从页面上的按钮或链接进入。"),
])
def test_a_wrong_address_or_method_is_a_short_page_in_chinese(director, method, path, status,
                                                              said):
    reply = TestClient(create_app(director)).request(method, path)
    assert reply.status_code == status
    assert reply.headers["content-type"].startswith("text/html")
    text = shown(reply.text)
    assert said in text and "无法打开此页" in text
    assert not any(english in reply.text for english in ENGLISH_DEFAULTS)
    if status == 405:
        assert reply.headers["allow"]  # the method that would work, for a program


def test_the_page_speaks_the_language_picked_on_the_console(director):
    client = TestClient(create_app(director))
    client.get("/admin/login?lang=zh-Hant")  # the console's language switch sets the cookie
    text = shown(client.get("/admin/nonexistent").text)
    assert "沒有這個頁面：請檢查地址。" in text and "回到管理頁" in text
    english = shown(client.get("/admin/mute?lang=en").text)
    assert "This page cannot be opened this way" in english
    assert "Method Not Allowed" not in english


def test_an_unexpected_failure_says_it_was_not_done_without_a_traceback(director):
    client = TestClient(create_app(director), raise_server_exceptions=False)
    director.store.close()  # the database is gone under the scorer's feet
    reply = client.get("/api/standings")
    assert reply.status_code == 500
    assert reply.json()["message"].startswith("记分台出了问题，这次操作没有完成")
    page = client.get("/admin/login")
    assert page.status_code == 500 and "Internal Server Error" not in page.text
    assert "记分台出了问题" in shown(page.text) and "Traceback" not in page.text


def test_an_api_address_that_does_not_exist_answers_json_with_a_catalog_key(director):
    reply = TestClient(create_app(director)).get("/api/nonexistent")
    assert reply.status_code == 404
    assert reply.json()["key"] == "web.http.404"
    assert reply.json()["message"] == "没有这个页面：请检查地址。"
