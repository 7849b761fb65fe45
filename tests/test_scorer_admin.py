"""The head referee's side: the password, the admin page's sessions and CSRF protection, the
`kiosk scorer admin` commands, and the team CSV in the encodings spreadsheets write."""

from __future__ import annotations

import re
import time

import pytest
from starlette.testclient import TestClient

from kiosk.errors import AccessError
from kiosk.i18n import explain
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director, roster
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app

from .console_client import refused_page
from .helpers import cli as kiosk
from .helpers import kiosk as program

TEAMS = ("队名,单位,队员1,队员2\n甲队,厦大,赵,钱\n乙队,集美,孙,李\n丙队,厦大,周,吴\n"
         "丁队,同安,郑,王\n")


@pytest.fixture
def director(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    yield d
    d.store.close()


def logged_in(director):
    password = director.first_password()
    client = TestClient(create_app(director), follow_redirects=False)
    reply = client.post("/admin/login", data={"password": password})
    assert reply.status_code == 303 and "kiosk_admin" in reply.cookies
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/admin").text).group(1)
    return client, csrf


@pytest.mark.unit
def test_the_password_is_made_once_and_never_by_a_visitor(director):
    first = director.first_password()
    assert first and director.check_password(first)
    assert director.first_password() is None  # the second start prints nothing
    client = TestClient(create_app(director), follow_redirects=False)
    assert client.get("/admin").headers["location"] == "/admin/login"
    wrong = client.post("/admin/login", data={"password": "guess-guess", "who": "陈<裁判长>"})
    assert wrong.status_code == 403  # the name typed is kept, escaped: only the password again
    assert 'value="陈&lt;裁判长&gt;"' in wrong.text and "guess-guess" not in wrong.text
    with pytest.raises(AccessError, match="10 characters"):
        director.set_password("short")


@pytest.mark.unit
def test_every_operation_needs_a_session_and_its_csrf_token(director):
    client, csrf = logged_in(director)
    outsider = TestClient(create_app(director), follow_redirects=False)
    form = {"name": "厦门杯", "ruleset": "xiamen-2015", "rounds": "5", "minutes": ""}
    assert outsider.post("/admin/event", data={**form, "csrf": csrf}).status_code == 303
    assert director.event() is None  # no session: sent to the login, nothing done
    assert client.post("/admin/event", data=form).status_code == 403
    assert client.post("/admin/event", data={**form, "csrf": "forged"}).status_code == 403
    assert director.event() is None
    reply = client.post("/admin/event", data={**form, "csrf": csrf})
    assert reply.status_code == 303 and "kind=note" in reply.headers["location"]
    assert director.event().name == "厦门杯"
    assert "已创建赛事厦门杯。" in client.get(reply.headers["location"]).text


@pytest.mark.unit
def test_the_admin_page_runs_an_event(director):
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015"})
    reply = client.post("/admin/import", data={"csrf": csrf},
                        files={"file": ("teams.csv", TEAMS.encode("gbk"), "text/csv")})
    assert "flash=admin.note.imported" in reply.headers["location"]
    assert "已导入 4 队。" in client.get(reply.headers["location"]).text
    client.post("/admin/tables", data={"csrf": csrf, "count": "2"})
    page = client.get("/admin/tables").text
    codes = re.findall(r'<td class="code">(\d{6})</td>', page)
    assert len(codes) == 2 and "甲队" in client.get("/admin/teams").text
    client.post("/admin/draft", data={"csrf": csrf})
    client.post("/admin/publish", data={"csrf": csrf})
    client.post("/admin/start", data={"csrf": csrf, "start_in": "0", "confirmed": "1"})
    assert director.current_round() == 1 and len(director.assignments(1)) == 2
    client.post("/admin/ruling", data={"csrf": csrf, "round": "1", "table": "1",
                                       "kind": "forfeit", "loser": "EW", "reason": "迟到 late",
                                       "confirmed": "1"})
    client.post("/admin/mute", data={"csrf": csrf, "on": "1"})
    assert director.muted() and director.rulings()[0].reason == "迟到 late"
    bad = refused_page(client, client.post("/admin/ruling", data={
        "csrf": csrf, "round": "1", "table": "9", "kind": "forfeit", "loser": "EW",
        "reason": "x"}))  # a clear error, nothing recorded, the form as typed
    assert len(director.rulings()) == 1
    assert "第 1 轮第 9 桌没有比赛。" in bad.text
    words = refused_page(client, client.post("/admin/ruling?lang=en", data={
        "csrf": csrf, "round": "一", "table": "十", "kind": "forfeit", "loser": "EW",
        "reason": "x"}))
    shown = words.text
    assert "“Table” needs a whole number (like 3), not “十”." in shown
    assert "invalid literal" not in shown and len(director.rulings()) == 1
    client.post("/admin/logout", data={"csrf": csrf})
    assert client.get("/admin").status_code == 303  # the session is gone


@pytest.mark.unit
def test_a_score_sheet_is_shown_for_a_match_and_refused_where_there_is_none(director):
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015"})
    client.post("/admin/import", data={"csrf": csrf},
                files={"file": ("teams.csv", TEAMS.encode("gbk"), "text/csv")})
    client.post("/admin/tables", data={"csrf": csrf, "count": "2"})
    client.post("/admin/draft", data={"csrf": csrf})
    client.post("/admin/publish", data={"csrf": csrf})
    ns, ew = director.assignments(1)[0][1:]
    sheet = client.get("/admin/sheet?round=1&table=1")
    names = director.team_names()
    assert sheet.status_code == 200 and names[ns] in sheet.text and names[ew] in sheet.text
    for query, said in (("round=1&table=99", "第 1 轮第 99 桌没有比赛。"),
                        ("round=9&table=1", "没有第 9 轮（最近公布的是第 1 轮）。"),
                        ("round=1&table=abc", "“桌号”须填整数（如 3），不能是“abc”。"),
                        ("round=abc&table=1", "“轮次”须填整数（如 3），不能是“abc”。")):
        refused = client.get(f"/admin/sheet?{query}")  # (it showed a blank sheet to fill)
        assert refused.status_code == 303, query
        assert said in client.get(refused.headers["location"]).text, query


@pytest.mark.unit
@pytest.mark.parametrize("sent", ["１２３４", "é", "not base64!"])
def test_a_team_file_sent_back_garbled_is_asked_for_again(director, sent):
    """The confirmation page sends the file back as base64: anything else (a full-width
    digit, a letter beyond ASCII: a 500 once) is refused in words, nothing imported."""
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015"})
    reply = refused_page(client, client.post("/admin/import", data={"csrf": csrf,
                                                                    "file_b64": sent}))
    assert "请选择" in reply.text
    assert director.teams() == []


@pytest.mark.unit
def test_a_form_sent_without_its_length_is_not_read(director):
    """A browser says how long a form is. A chunked one was read whole before its size was
    known: 1,000 fields of half a megabyte took the scorer past 2 GB."""
    client, csrf = logged_in(director)

    def chunked():
        yield f"csrf={csrf}&ruleset=xiamen-2015&name=".encode()
        yield from (b"x" * 1000 for _ in range(3))

    reply = client.post("/admin/event", content=chunked(),
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status_code == 411 and "请求没有注明内容的长度" in reply.text
    assert director.event() is None


def round_1_drafted(client, csrf: str) -> None:
    """A 30-minute event of TEAMS at 2 tables, its first round drafted through the console."""
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015",
                                      "minutes": "30"})
    client.post("/admin/import", data={"csrf": csrf},
                files={"file": ("teams.csv", TEAMS.encode("gbk"), "text/csv")})
    client.post("/admin/tables", data={"csrf": csrf, "count": "2"})
    client.post("/admin/draft", data={"csrf": csrf})


@pytest.mark.unit
def test_a_round_started_with_a_lead_in_says_when_it_starts_not_its_time_left(director):
    client, csrf = logged_in(director)
    round_1_drafted(client, csrf)
    client.post("/admin/publish", data={"csrf": csrf})
    client.post("/admin/start", data={"csrf": csrf, "start_in": "120", "confirmed": "1"})
    page = client.get("/admin/rounds").text  # (it said 比赛中, 本轮剩余 32:00)
    assert "第 1 轮 · 即将开始" in page and "后开始" in page and "本轮剩余" not in page
    # no table has begun: not 「第 1 轮还有 2 桌在比赛」 and a link to them
    assert "第 1 轮还没开始（各桌届时一起开始计时）：打完后才能编排第 2 轮。" in page
    assert "在比赛" not in page and "未完赛" not in page
    overview = client.get("/admin").text  # (it said 第 1 轮比赛中：还有 2 桌未完赛)
    assert re.search(r"第 1 轮将于 \d\d:\d\d(:\d\d)? 开始", overview), overview


@pytest.mark.unit
def test_the_header_says_setup_until_the_first_round_starts_as_the_hall_does(director):
    client, csrf = logged_in(director)
    round_1_drafted(client, csrf)

    def status() -> str:
        found = re.search(r'class="event-status status-(\w+)">([^<]+)<', client.get("/admin").text)
        assert found
        return f"{found[1]} {found[2]}"

    assert status() == "setup 准备中"
    client.post("/admin/publish", data={"csrf": csrf})
    assert status() == "setup 准备中"  # (it said 进行中 while the hall said 准备中)
    client.post("/admin/start", data={"csrf": csrf, "confirmed": "1"})
    assert status() == "running 进行中"


@pytest.mark.unit
def test_swapping_a_paired_kiosk_asks_first_on_the_command_line(tmp_path):
    director = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    director.create_event("杯", "standard-80fen")
    codes = director.add_tables(2)
    director.store.pair(1, codes[1], "pi-1", time.time())
    director.store.close()

    def swap(*more):
        return kiosk("scorer", "admin", "--data", str(tmp_path), "swap", "--table", "1", *more)

    asked = swap()
    assert asked.returncode == 3 and "--yes" in asked.stderr
    assert "把第 1 桌换到新平板？该桌现用的平板立即不能再上传" in asked.stderr
    store = Store(tmp_path / "scorer.sqlite")
    assert store.paired_tables() == {1: "pi-1"}  # nothing done
    store.close()
    done = swap("--yes")
    assert done.returncode == 0, done.stderr
    store = Store(tmp_path / "scorer.sqlite")
    code = store.open_codes()[1]
    assert code in done.stdout and store.paired_tables() == {}
    store.close()


@pytest.mark.process
def test_the_admin_commands(tmp_path):
    data = str(tmp_path)

    def admin(*args, stdin=None):
        return program("scorer", "admin", "--data", data, *args, stdin=stdin)

    refused = admin("start-round")
    assert refused.returncode == 2 and "还没有赛事：请先创建。" in refused.stderr
    english = admin("start-round", "--lang", "en")
    assert "There is no event yet: create one first." in english.stderr
    assert admin("event", "--name", "杯", "--ruleset", "nope").returncode == 2
    assert admin("event", "--name", "杯", "--ruleset", "standard-80fen").returncode == 0
    (tmp_path / "bad.csv").write_text("foo,bar\n1,2\n")
    bad = admin("teams", str(tmp_path / "bad.csv"))
    assert bad.returncode == 2 and "第一行（第 1 行）没有队名列" in bad.stderr
    (tmp_path / "teams.csv").write_bytes(TEAMS.encode("gb18030"))
    imported = admin("teams", str(tmp_path / "teams.csv")).stdout
    assert imported.startswith("已导入 4 队：甲队（t01）、乙队（t02）")
    listed = admin("list-teams").stdout
    assert "t03" in listed and "丙队" in listed and "参赛中" in listed
    assert len(admin("tables", "2").stdout.splitlines()) == 2
    started = admin("start-round", "--in", "0").stdout
    assert started.startswith("第 1 轮") and "（南北）对" in started
    withdrawn = admin("withdraw", "甲队")  # by name, asks first
    assert withdrawn.returncode == 3 and "--yes" in withdrawn.stderr
    ruled = admin("ruling", "--table", "2", "--kind", "disqualification", "--loser", "NS",
                  "--reason", "作弊")
    assert ruled.returncode == 3 and "立即结束比赛" in ruled.stderr  # said first
    ruled = admin("ruling", "--table", "2", "--kind", "disqualification", "--loser", "NS",
                  "--reason", "作弊", "--yes")
    assert ruled.returncode == 0 and "已记录第 1 号裁决" in ruled.stdout
    assert admin("password", stdin="correct horse\n").returncode == 0
    assert admin("mute", "on").returncode == 0
    csv_out = admin("export", "--format", "csv", "--lang", "en").stdout.splitlines()
    assert csv_out[0].startswith("round,table,NS id,NS,EW id,EW,winner id,winner")
    assert "disqualification" in csv_out[2]  # table 2's match was ruled
    standings = admin("standings").stdout.splitlines()
    # (standard-80fen counts matches won; its ties are not broken by net levels)
    assert standings[0].split()[:5] == ["名次", "队名", "胜场", "对手分", "已赛"]
    assert len(standings) == 6
    assert "（t0" in standings[2]  # names with their ids
    log = admin("log", "--lang", "en").stdout
    assert "ruled on round 1, table 2: disqualification" in log and "command line" in log
    chinese = admin("log").stdout  # the ruling's kind in words, never its code
    assert "裁决第 1 轮第 2 桌：取消资格" in chinese and "disqualification" not in chinese
    backup = admin("backup", "--to", str(tmp_path / "backups")).stdout.strip()
    copy = Store(backup.split("：", 1)[1])
    assert copy.db.execute("SELECT count(*) FROM teams").fetchone()[0] == 4
    copy.close()
    d = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    assert d.check_password("correct horse") and d.muted()
    d.store.close()


@pytest.mark.unit
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gbk", "gb18030"])
def test_a_roster_in_each_encoding_spreadsheets_write(encoding):
    entrants = roster.parse(TEAMS.encode(encoding)).entrants
    assert [e.name for e in entrants] == ["甲队", "乙队", "丙队", "丁队"]
    assert entrants[0].unit == "厦大" and entrants[0].players == ("赵", "钱")
    assert [e.id for e in entrants] == ["", "", "", ""]  # the event gives the next free ids


@pytest.mark.unit
@pytest.mark.parametrize("header", ["队伍", "队伍名称", "隊伍名稱", "参赛队", "Team Name"])
def test_common_chinese_headers_name_the_team(header):
    parsed = roster.parse(f"{header},单位名称,备注\n甲队,厦大,早到\n".encode())
    assert parsed.entrants[0].name == "甲队" and parsed.entrants[0].unit == "厦大"
    assert parsed.ignored == ("备注",)  # said, not silently dropped


@pytest.mark.unit
@pytest.mark.parametrize(("text", "key", "params"), [
    ("", "roster.error.empty", {}),
    ("name\n\n", "roster.error.no_rows", {}),
    ("name,id\n甲,a\n\n乙,a\n", "roster.error.id_twice", {"line": 4, "id": "a", "other": 2}),
    ("name,unit\n\n\n,x\n", "roster.error.empty_name", {"line": 4}),
    ("name,unit\n甲,x\n\n乙,y,z\n", "roster.error.extra_cells",
     {"line": 4, "cells": 3, "columns": 2}),
    ('name\n"甲\n', "roster.error.csv", {"line": 2}),
    ('name\n"甲\n乙\n丙\n', "roster.error.csv", {"line": 2}),  # (not where the file ended)
    ("name\n" + "队" * 40 + "\n" + "队" * 41 + "\n", "roster.error.long_name",
     {"line": 3, "most": 40}),  # (40 characters are a name: the first line is taken)
])
def test_a_bad_roster_is_refused_naming_the_files_own_line(text, key, params):
    with pytest.raises(roster.RosterError) as refused:
        roster.parse(text.encode())
    assert refused.value.key == key and refused.value.params == params


@pytest.mark.unit
def test_blank_lines_and_trailing_empty_cells_are_fine():
    parsed = roster.parse("name,unit\n甲,x,,\n\n乙,y\n,\n".encode())
    assert [e.name for e in parsed.entrants] == ["甲", "乙"]
    assert [e.line for e in parsed.entrants] == [2, 4]


@pytest.mark.unit
def test_a_file_that_is_not_text_is_refused():
    with pytest.raises(roster.RosterError, match="neither UTF-8, GBK/GB18030 nor Big5"):
        roster.parse(b"name\n\xff\xfe\x00\n")


@pytest.mark.unit
@pytest.mark.parametrize("encoding", ["big5", "cp950"])
def test_a_taiwanese_excels_big5_roster_is_imported(encoding):
    """Big5 bytes decode as GB18030 too (as nonsense): the reading that names the columns
    is the file's."""
    text = "隊名,單位,隊員1\n臺北飛龍,臺大,陳\n高雄海豚,中山,林\n"
    entrants = roster.parse(text.encode(encoding)).entrants
    assert [(e.name, e.unit, e.players) for e in entrants] == [
        ("臺北飛龍", "臺大", ("陳",)), ("高雄海豚", "中山", ("林",))]


@pytest.mark.unit
def test_a_roster_not_utf8_whose_header_reads_in_no_encoding_says_to_save_as_utf8():
    with pytest.raises(roster.RosterError) as refused:
        roster.parse("參賽者姓名,備註\n臺北飛龍,早到\n".encode("big5"))
    assert refused.value.key == "roster.error.no_name_column_encoding"
    assert "CSV UTF-8" in explain(refused.value, "zh-Hans")


@pytest.mark.unit
def test_an_excel_file_itself_is_refused_with_how_to_save_it(tmp_path):
    """An .xlsx chosen as the roster was refused as text in no known encoding (a head
    referee's review): it is a spreadsheet, and the words say how to save it as CSV."""
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["姓名", "单位"])
    book.active.append(["陈静", "厦门"])
    book.save(tmp_path / "players.xlsx")
    with pytest.raises(roster.RosterError) as refused:
        roster.parse((tmp_path / "players.xlsx").read_bytes())
    assert refused.value.key == "roster.error.spreadsheet"
    assert "另存为" in explain(refused.value, "zh-Hans")


@pytest.mark.unit
def test_minutes_are_written_as_a_person_writes_them(director):
    """90, not 90.0: the event's match minutes and the hall's extension."""
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015",
                                      "rounds": "3", "minutes": "90"})
    overview = client.get("/admin").text
    assert re.search(r"<dt>每场分钟数</dt><dd>90</dd>", overview), overview
    director.import_teams("队名\n甲\n乙\n".encode())
    director.add_tables(1)
    director.start_round(0)
    director.extend_clock(5)
    assert "已加时 5 分钟" in client.get("/admin/rounds").text
    director.extend_clock(2.5)
    assert "已加时 7.5 分钟" in client.get("/admin/rounds").text


@pytest.mark.sim
def test_a_hall_has_up_to_the_measured_number_of_tables(tmp_path):
    from kiosk.errors import AdminError
    from kiosk.scorer.director.access import MAX_TABLES

    director = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    director.create_event("杯", "xiamen-2015")
    assert MAX_TABLES == 1000  # bench_hall_feed, bench_pairing (2,000 teams), bench_scorer
    assert len(director.add_tables(MAX_TABLES)) == MAX_TABLES
    for wrong in (0, MAX_TABLES + 1):
        with pytest.raises(AdminError, match="1 to 1000 tables") as refused:
            director.add_tables(wrong)
        assert refused.value.key == "admin.error.tables_range"
    assert director.table_count() == MAX_TABLES  # a refused count changes nothing


@pytest.mark.unit
def test_setting_the_table_count_again_keeps_the_codes_already_handed_out(director):
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015"})
    codes = director.add_tables(3)
    director.store.pair(1, codes[1], "kiosk-1", director.clock())
    again = client.post("/admin/tables", data={"csrf": csrf, "count": "3"})
    assert "赛场共 3 张牌桌；新发配对码 0 个。" in client.get(again.headers["location"]).text
    assert director.add_tables(3) == {2: codes[2], 3: codes[3]}  # the slips stay good
    more = director.add_tables(4)
    assert {n: more[n] for n in (2, 3)} == {2: codes[2], 3: codes[3]} and 1 not in more
    assert len(more[4]) == 6
    director.add_tables(2)  # table 3 and 4 leave the hall: their codes pair nothing
    assert director.store.pairing_code(3, "kiosk-3", director.clock()) is None
    assert director.store.pairing_code(2, "kiosk-2", director.clock()) == codes[2]


@pytest.mark.unit
def test_drafting_again_or_discarding_a_draft_swapped_by_hand_asks_first(director):
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015"})
    client.post("/admin/import", data={"csrf": csrf},
                files={"file": ("teams.csv", TEAMS.encode(), "text/csv")})
    client.post("/admin/tables", data={"csrf": csrf, "count": "2"})
    client.post("/admin/draft", data={"csrf": csrf})
    page = client.get("/admin/rounds").text
    assert ">重新编排</button>" in page and ">放弃草稿</button>" in page  # nothing to lose yet
    (a, _), (c, _) = director.current_draft().plan.pairs
    client.post("/admin/swap-teams", data={"csrf": csrf, "first": a, "second": c})
    swapped = director.current_draft()
    assert swapped.edited
    page = client.get("/admin/rounds").text
    assert ">重新编排…</button>" in page and ">放弃草稿…</button>" in page
    lost = "您手动做的调整（对调队伍、桌号或方位）将全部丢失"
    for action, said in (("draft", f"重新编排第 1 轮？草稿中{lost}"),
                         ("discard", f"放弃第 1 轮草稿？草稿和{lost}")):
        asked = client.post(f"/admin/{action}", data={"csrf": csrf})
        assert asked.status_code == 303  # the question is a page of its own (Back comes to it)
        question = client.get(asked.headers["location"])
        assert question.status_code == 200 and said in question.text
        assert 'name="confirmed" value="1"' in question.text and "不，返回" in question.text
        assert director.current_draft() == swapped  # nothing lost by asking
    done = client.post("/admin/draft", data={"csrf": csrf, "confirmed": "1"})
    assert "admin.note.drafted" in done.headers["location"]
    assert not director.current_draft().edited  # a fresh draft: nothing of the swap is left
    quiet = client.post("/admin/discard", data={"csrf": csrf})  # unswapped: nothing to lose
    assert "admin.note.discarded" in quiet.headers["location"]
    assert director.current_draft() is None


@pytest.mark.unit
def test_the_draft_commands_ask_too_before_a_hand_swap_is_lost(tmp_path):
    data = str(tmp_path)

    def admin(*args):
        return kiosk("scorer", "admin", "--data", data, *args)

    admin("event", "--name", "杯", "--ruleset", "xiamen-2015")
    (tmp_path / "teams.csv").write_text(TEAMS)
    admin("teams", str(tmp_path / "teams.csv"))
    admin("tables", "2")
    assert admin("draft").returncode == 0 and admin("swap-sides", "1").returncode == 0
    for command in ("draft", "discard"):
        asked = admin(command)
        assert asked.returncode == 3 and "将全部丢失" in asked.stderr and "--yes" in asked.stderr
    assert admin("discard", "--yes").stdout.strip() == "草稿已放弃。"


@pytest.mark.unit
def test_a_refused_form_gives_back_what_was_typed_as_text_only(director):
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015"})
    client.post("/admin/add-team", data={"csrf": csrf, "name": "甲队", "id": "t01"})
    typed = '"><script>alert(1)</script>'
    page = refused_page(client, client.post("/admin/add-team", data={
        "csrf": csrf, "name": typed, "id": "t01"}))
    assert "编号 t01 已是甲队的编号" in page.text
    assert "<script>alert(1)" not in page.text
    assert 'value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page.text
    assert len(director.team_rows()) == 1
