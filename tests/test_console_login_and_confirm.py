"""The console's login and its confirmations as a head referee meets them (the tester's M2,
M6): a form sent after the login expired says it was not done and comes back to its page
after the login; a bookmarked page logs in to itself, and never to another site; the
confirmation is a page of its own that Back returns to, and nothing is done twice."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

from kiosk.scorer.web.app import create_app

from .console_client import Window, event, flash_of, log_in

pytestmark = pytest.mark.unit


@pytest.fixture
def director(tmp_path):
    yield from event(tmp_path)


# -- M2: an expired login, and a page asked for before logging in --------------------------


def test_a_form_sent_after_the_login_expired_says_so_and_comes_back_after_login(director):
    client = log_in(director)
    page = Window(client)
    page.load("/admin/results?round=1")  # (no round yet: still a page)
    page.load("/admin/teams?q=第1")
    director.set_password("换了一个新密码-2025")  # every session ends (as after 12 hours)
    director.password = "换了一个新密码-2025"
    came_from = page.form("/admin/delete-team")["back"]
    assert came_from == "/admin/teams?q=%E7%AC%AC1"  # (the search for 第1)
    sent = page.send("/admin/delete-team")  # 删除… on 第1队
    assert sent.status_code == 303
    login = sent.headers["location"]
    assert urlsplit(login).path == "/admin/login"
    asked = parse_qs(urlsplit(login).query)
    assert asked["next"] == [came_from] and asked["expired"] == ["1"]
    shown = client.get(login).text
    assert "登录已过期，刚才的操作没有执行，请登录后重做。" in shown
    assert f'name="next" value="{came_from}"' in shown
    back = client.post("/admin/login", data={"password": "换了一个新密码-2025", "who": "陈",
                                             "next": came_from})
    assert back.status_code == 303 and back.headers["location"] == came_from
    assert director.team("t01").name == "第1队"  # the form was not done behind the login


def test_a_bookmarked_page_logs_in_to_itself_and_never_to_another_site(director):
    outsider = TestClient(create_app(director), follow_redirects=False)
    sent = outsider.get("/admin/results?round=1")
    assert sent.headers["location"] == "/admin/login?next=%2Fadmin%2Fresults%3Fround%3D1"
    shown = outsider.get(sent.headers["location"]).text
    assert "登录已过期" not in shown  # nothing was sent: nothing to redo
    password = director.password
    done = outsider.post("/admin/login", data={"password": password, "who": "陈",
                                               "next": "/admin/results?round=1"})
    assert done.headers["location"] == "/admin/results?round=1"
    for elsewhere in ("https://evil.example/admin", "//evil.example/admin", "/\\evil.example",
                      "/admin/../\\\\evil.example", "/administrator", "/admin/login",
                      "javascript:alert(1)", "/admin\n/x"):
        client = TestClient(create_app(director), follow_redirects=False)
        reply = client.post("/admin/login", data={"password": password, "who": "陈",
                                                  "next": elsewhere})
        assert reply.headers["location"] == "/admin", elsewhere

# -- M6: the confirmation is a page of its own ---------------------------------------------


def test_a_confirmation_is_a_page_back_returns_to_and_it_is_never_done_twice(director):
    client = log_in(director)
    window = Window(client)
    director.make_draft(by="陈")
    director.swap_sides(1, by="陈")  # swapped by hand: discarding it asks first
    window.load("/admin/rounds")
    asked = window.send("/admin/discard")
    assert asked.status_code == 303  # not a page answering a POST (Back: ERR_CACHE_MISS)
    question = asked.headers["location"]
    assert urlsplit(question).path == "/admin/confirm"
    page = window.load(question)
    assert "放弃第 1 轮草稿？" in page and director.current_draft() is not None
    asked_id = parse_qs(urlsplit(question).query)["id"][0]  # (English keeps the question)
    assert f'href="?id={asked_id}&amp;lang=en"' in page
    done = window.send("/admin/discard")
    assert flash_of(client, done) == "草稿已放弃。"
    discards = [e for e in director.audit_log() if e.action == "round.discard"]
    assert len(discards) == 1
    again = client.get(question)  # Back from the page after it
    assert again.status_code == 303 and flash_of(client, again) == \
        "这一步已经确认并执行过了，没有再执行一次。"
    assert urlsplit(again.headers["location"]).path == "/admin/rounds"
    assert len([e for e in director.audit_log() if e.action == "round.discard"]) == 1
    gone = client.get("/admin/confirm?id=nothing-asked")
    assert "这个确认页已经失效" in flash_of(client, gone)


def test_a_team_file_comes_back_through_its_confirmation_page(director):
    client = log_in(director)
    csrf = Window(client).load("/admin/teams")
    csrf = re.search(r'name="csrf" value="([^"]+)"', csrf).group(1)
    twice = "队名,单位\n第1队,别处\n新队,新单位\n".encode("gbk")
    asked = client.post("/admin/import", data={"csrf": csrf},
                        files={"file": ("teams.csv", twice, "text/csv")})
    window = Window(client)
    page = window.load(asked.headers["location"])
    assert "第1队（名单第 2 行，与已有的 t01 同名）" in page
    done = window.send("/admin/import")
    assert flash_of(client, done) == "已导入 2 队。"
    assert [r.name for r in director.team_rows()][-2:] == ["第1队", "新队"]


def test_an_open_confirmation_outlives_a_restart_and_still_runs_once_on_what_it_asked(
        director, tmp_path):
    """It said 「已经失效（记分台重启过）」: the question is kept beside the store, and after a
    restart it is the same page; answered, it is never done again; the rounds page's stale
    checks still hold; on a store restored from an older copy it is gone."""
    client = log_in(director)
    window = Window(client)
    director.make_draft(by="陈")
    director.swap_sides(1, by="陈")  # swapped by hand: discarding it asks first
    window.load("/admin/rounds")
    question = window.send("/admin/discard").headers["location"]

    restarted = Window(log_in(director))  # a new app on the same store: the scorer restarted
    restarted.client.cookies = client.cookies
    page = restarted.load(question)
    assert "放弃第 1 轮草稿？" in page
    done = restarted.send("/admin/discard")
    assert flash_of(restarted.client, done) == "草稿已放弃。"
    again = Window(log_in(director))  # and restarted once more: Back says it was done
    again.client.cookies = client.cookies
    back = again.client.get(question)
    assert flash_of(again.client, back) == "这一步已经确认并执行过了，没有再执行一次。"
    assert len([e for e in director.audit_log() if e.action == "round.discard"]) == 1

    # a question from a page another window made stale since is still refused in words
    director.make_draft(by="陈")
    director.swap_sides(1, by="陈")
    window.load("/admin/rounds")
    question = window.send("/admin/discard").headers["location"]
    director.publish(confirm=True, by="陈")  # (the command line, while the scorer was down)
    later = Window(log_in(director))
    later.client.cookies = client.cookies
    later.load(question)
    refused = later.send("/admin/discard")
    assert "第 1 轮已在其他窗口公布，草稿已不存在" in later.client.get(
        refused.headers["location"]).text
    assert director.current_round() == 1

    # a store put back from an older copy: the record it was asked on is gone
    window.load("/admin/rounds")
    question = window.send("/admin/undo").headers["location"]
    director.store.db.execute("DELETE FROM audit WHERE id = (SELECT max(id) FROM audit)")
    gone = Window(log_in(director))
    gone.client.cookies = client.cookies
    assert "这个确认页已经失效" in flash_of(gone.client, gone.client.get(question))
    assert director.current_round() == 1


def test_the_login_page_says_where_the_password_is(director):
    """The password is printed once, to the terminal: a head referee at the login page was not
    told where else to find it (a director's review, 2026-12-06)."""
    page = TestClient(create_app(director)).get("/admin/login").text
    assert "admin-password.txt" in page and "kiosk scorer admin password" in page
