"""The head referee's side: the password, the admin page's sessions and CSRF protection, the
`kiosk scorer admin` commands, and the team CSV in the encodings spreadsheets write."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer import roster
from kiosk.scorer.director import MAX_TABLES, AdminError, Director
from kiosk.scorer.store import Store
from kiosk.scorer.web import create_app

from .helpers import kiosk

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


def test_the_password_is_made_once_and_never_by_a_visitor(director):
    first = director.first_password()
    assert first and director.check_password(first)
    assert director.first_password() is None  # the second start prints nothing
    client = TestClient(create_app(director), follow_redirects=False)
    assert client.get("/admin").headers["location"] == "/admin/login"
    assert client.post("/admin/login", data={"password": "guess-guess"}).status_code == 403
    with pytest.raises(AdminError, match="8 characters"):
        director.set_password("short")


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
    assert reply.status_code == 303 and "note=" in reply.headers["location"]
    assert director.event().name == "厦门杯"


def test_the_admin_page_runs_an_event(director):
    client, csrf = logged_in(director)
    client.post("/admin/event", data={"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015"})
    reply = client.post("/admin/teams", data={"csrf": csrf},
                        files={"file": ("teams.csv", TEAMS.encode("gbk"), "text/csv")})
    assert "4+teams+imported" in reply.headers["location"]
    client.post("/admin/tables", data={"csrf": csrf, "count": "2"})
    page = client.get("/admin").text
    codes = re.findall(r"<td>(\d{6})</td>", page)
    assert len(codes) == 2 and "甲队" in page
    client.post("/admin/round", data={"csrf": csrf, "start_in": "0"})
    assert director.current_round() == 1 and len(director.assignments(1)) == 2
    client.post("/admin/ruling", data={"csrf": csrf, "table": "1", "kind": "forfeit",
                                       "loser": "EW", "reason": "迟到 late", "net": "0"})
    client.post("/admin/mute", data={"csrf": csrf, "on": "1"})
    assert director.muted() and director.rulings()[0]["reason"] == "迟到 late"
    bad = client.post("/admin/ruling", data={"csrf": csrf, "table": "9", "kind": "forfeit",
                                             "loser": "EW", "reason": "x"})
    assert "error=" in bad.headers["location"]  # a clear error, nothing recorded
    assert len(director.rulings()) == 1
    assert "table 9 plays no match" in client.get(bad.headers["location"]).text
    client.post("/admin/logout", data={"csrf": csrf})
    assert client.get("/admin").status_code == 303  # the session is gone


def test_the_admin_commands(tmp_path):
    data = str(tmp_path)

    def admin(*args, stdin=None):
        return kiosk("scorer", "admin", "--data", data, *args, stdin=stdin)

    refused = admin("start-round")
    assert refused.returncode == 2 and "create one first" in refused.stderr
    assert admin("event", "--name", "杯", "--ruleset", "nope").returncode == 2
    assert admin("event", "--name", "杯", "--ruleset", "standard-80fen").returncode == 0
    (tmp_path / "bad.csv").write_text("foo,bar\n1,2\n")
    bad = admin("teams", str(tmp_path / "bad.csv"))
    assert bad.returncode == 2 and "no name column" in bad.stderr
    (tmp_path / "teams.csv").write_bytes(TEAMS.encode("gb18030"))
    assert admin("teams", str(tmp_path / "teams.csv")).stdout.strip() == "4 imported"
    assert len(admin("tables", "2").stdout.splitlines()) == 2
    started = admin("start-round", "--in", "0").stdout
    assert started.startswith("round 1") and "(NS) v" in started
    assert admin("ruling", "--table", "2", "--kind", "disqualification", "--loser", "NS",
                 "--reason", "作弊").returncode == 0
    assert admin("password", stdin="correct horse\n").returncode == 0
    assert admin("mute", "on").returncode == 0
    csv_out = admin("export", "--format", "csv").stdout.splitlines()
    assert csv_out[0].startswith("round,table,ns,ew,winner")
    assert "disqualification" in csv_out[2]  # table 2's match was ruled
    standings = admin("standings").stdout.splitlines()
    assert len(standings) == 4 and standings[0].split()[2] == "1"  # 1 point a win
    backup = admin("backup", "--to", str(tmp_path / "backups")).stdout.strip()
    copy = Store(backup)
    assert copy.db.execute("SELECT count(*) FROM teams").fetchone()[0] == 4
    copy.close()
    d = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    assert d.check_password("correct horse") and d.muted()
    d.store.close()


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gbk", "gb18030"])
def test_a_roster_in_each_encoding_spreadsheets_write(encoding):
    entrants = roster.parse(TEAMS.encode(encoding))
    assert [e.name for e in entrants] == ["甲队", "乙队", "丙队", "丁队"]
    assert entrants[0].unit == "厦大" and entrants[0].players == ("赵", "钱")
    assert [e.id for e in entrants] == ["t01", "t02", "t03", "t04"]


@pytest.mark.parametrize(("text", "problem"), [
    ("", "empty"), ("name\n甲\n\n乙\n,\n", None), ("name\n\n", "empty"),
    ("name,id\n甲,a\n乙,a\n", "row 3: id 'a' is used twice"),
    ("name,unit\n,x\n", "row 2: the name is empty"), ("a,b\n1,2\n", "no name column")])
def test_a_bad_roster_is_refused_naming_the_row(text, problem):
    if problem is None:
        assert [e.name for e in roster.parse(text.encode())] == ["甲", "乙"]
    else:
        with pytest.raises(roster.RosterError, match=problem):
            roster.parse(text.encode())


def test_a_file_that_is_not_text_is_refused():
    with pytest.raises(roster.RosterError, match="neither UTF-8 nor GBK"):
        roster.parse(b"name\n\xff\xfe\x00\n")


def test_a_hall_has_up_to_the_measured_number_of_tables(tmp_path):
    director = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load([]))
    director.create_event("杯", "xiamen-2015")
    assert len(director.add_tables(MAX_TABLES)) == MAX_TABLES == 1000
    assert director.table_count() == 1000
    for wrong in (0, MAX_TABLES + 1):
        with pytest.raises(AdminError, match=f"1 to {MAX_TABLES} tables"):
            director.add_tables(wrong)
    assert director.table_count() == 1000  # a refused count changes nothing
