"""A second window on the console's 轮次编排 page that another window (or the command line)
has made stale since (the head referee's tester, M1): its draft and round forms are refused
in words saying what happened, never a success that did not happen nor an action on a draft
or round nobody looked at; and why a round can no longer be taken back, said where its
撤回 button was (M3)."""

from __future__ import annotations

import re

import pytest

from kiosk.errors import AdminError

from . import hall_events
from .console_client import Window, event, flash_of, log_in, refused_page, shown_error

pytestmark = pytest.mark.unit


@pytest.fixture
def director(tmp_path):
    yield from event(tmp_path)


# -- M1: a second window's page that another window made stale ----------------------------


def test_discarding_a_draft_another_window_published_is_refused_in_words(director):
    client = log_in(director)
    a, b = Window(client), Window(client)
    director.make_draft(by="陈")
    a.load("/admin/rounds")
    b.load("/admin/rounds")  # window B sits on the round 1 draft
    done = a.send("/admin/publish")
    assert director.current_round() == 1, flash_of(client, done)
    refused = refused_page(client, b.send("/admin/discard"))
    # no success said: 「草稿已放弃。」 was a lie
    assert shown_error(refused) == "第 1 轮已在其他窗口公布，草稿已不存在：这次操作没有执行。"
    assert "草稿已放弃" not in refused.text
    assert director.current_round() == 1 and director.current_draft() is None
    # the page shown with the refusal is the rounds page as it is now: round 1 published
    assert "第 1 轮已公布（尚未开始）" in refused.text


@pytest.mark.parametrize(("action", "typed"), [
    ("/admin/draft", {}), ("/admin/publish", {}), ("/admin/swap-tables",
                                                   {"first": "1", "second": "2"}),
    ("/admin/swap-sides", {}), ("/admin/swap-teams", {"first": "t01", "second": "t02"})])
def test_every_draft_action_from_a_stale_window_says_what_happened_instead(director, action,
                                                                           typed):
    client = log_in(director)
    a, b = Window(client), Window(client)
    director.make_draft(by="陈")
    b.load("/admin/rounds")
    a.load("/admin/rounds")
    a.send("/admin/publish")
    assert director.current_round() == 1
    refused = refused_page(client, b.send(action, **typed))
    assert shown_error(refused) == "第 1 轮已在其他窗口公布，草稿已不存在：这次操作没有执行。"
    assert director.current_round() == 1 and director.current_draft() is None  # nothing done


def test_a_draft_changed_or_discarded_in_another_window_is_not_acted_on_blind(director):
    client = log_in(director)
    a, b = Window(client), Window(client)
    director.make_draft(by="陈")
    b.load("/admin/rounds")
    a.load("/admin/rounds")
    a.send("/admin/swap-sides")  # window A swaps table 1's sides
    swapped = director.current_draft()
    refused = refused_page(client, b.send("/admin/swap-tables", first="1", second="2"))
    assert shown_error(refused) == ("第 1 轮的草稿已在其他窗口改过（重新编排或调换）：这次操作"
                                    "没有执行。请看过下面现在的草稿再操作。")
    assert director.current_draft() == swapped
    b.load("/admin/rounds")  # looked at again: B acts on what it sees
    assert flash_of(client, b.send("/admin/swap-tables", first="1", second="2")) == \
        "已调换第 1 桌与第 2 桌。"
    a.load("/admin/rounds")
    director.discard_draft(by="陈", confirm=True)  # (the command line, or window B)
    refused = refused_page(client, a.send("/admin/publish"))
    assert shown_error(refused) == "第 1 轮的草稿已在其他窗口放弃：这次操作没有执行。"
    assert director.current_round() == 0  # not drafted anew and published behind its back


def test_discarding_with_no_draft_at_all_is_no_success_either(director):
    """A form without `seen` (a script, an old page) or the command line: 草稿已放弃 was said
    with no draft there."""
    client = log_in(director)
    csrf = re.search(r'name="csrf" value="([^"]+)"', Window(client).load("/admin")).group(1)
    refused = refused_page(client, client.post("/admin/discard", data={"csrf": csrf}))
    assert shown_error(refused) == "没有草稿可放弃：没有做任何更改。"
    with pytest.raises(AdminError) as said:
        director.discard_draft(by="陈")
    assert said.value.key == "admin.error.no_draft_to_discard"


def test_redrafting_a_round_another_window_published_names_that_round(director):
    """92-tabB-stale-redraft: 重新编排 on the last round's draft said only 全部 5 轮都已公布."""
    director.edit_event(None, None, 1, None, by="陈")  # a one-round event
    client = log_in(director)
    a, b = Window(client), Window(client)
    director.make_draft(by="陈")
    b.load("/admin/rounds")
    a.load("/admin/rounds")
    a.send("/admin/publish")
    refused = refused_page(client, b.send("/admin/draft"))
    assert shown_error(refused) == "第 1 轮已在其他窗口公布，草稿已不存在：这次操作没有执行。"


def test_undo_or_start_from_a_stale_window_is_refused_not_done_to_another_round(director):
    client = log_in(director)
    a, b = Window(client), Window(client)
    director.make_draft(by="陈")
    director.publish(by="陈")
    a.load("/admin/rounds")
    b.load("/admin/rounds")
    a.send("/admin/start", start_in="0", confirmed="1")  # (no kiosks: asks first)
    # B still shows round 1 as published, not started
    refused = refused_page(client, b.send("/admin/undo"))
    assert shown_error(refused) == "第 1 轮已在其他窗口开始：这次操作没有执行。"
    assert director.round_start(1) is not None
    a.load("/admin/rounds")
    asked = a.send("/admin/undo")  # started, no hand played: it asks, then takes it back
    confirm = Window(client)
    confirm.load(asked.headers["location"])
    b.load("/admin/rounds")  # B shows round 1 started
    confirm.send("/admin/undo")
    assert director.current_round() == 0
    for action in ("/admin/clock", "/admin/undo"):
        refused = refused_page(client, b.send(action, n=0))
        assert shown_error(refused) == "第 1 轮已在其他窗口撤回：这次操作没有执行。", action

# -- M3: the undo that cannot be, said where its button was -------------------------------


def test_why_a_round_cannot_be_taken_back_is_said_where_the_button_was(tmp_path):
    d = hall_events.hall(tmp_path, teams=8)
    d.password = d.first_password()
    d.publish(by="陈")
    d.start_clock(0, by="陈", confirm=True)
    tables = hall_events.Tables(d)
    for table in (1, 2):
        tables.post(table, hall_events.hand_ends(hall_events.recorded(1 + table % 4))[0])
    page = Window(log_in(d)).load("/admin/rounds")
    assert "撤回第 1 轮" not in page
    assert re.search(r'<p class="hint" id="undo-refused">第 1 轮不能撤回：第 1、2 桌已经开始打牌。'
                     r'请用裁决更正。</p>', page), page
    d.store.close()
