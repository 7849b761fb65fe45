"""Issue 32, the head referee's teams in one process: ids that differ only in letter case are
one id, and a corrected team list imported again as an update."""

from __future__ import annotations

import pytest

from kiosk.i18n import explain, translator
from kiosk.rules import Rulesets
from kiosk.scorer.director import AdminError, Director
from kiosk.scorer.store.database import Store

pytestmark = pytest.mark.unit

RULESETS = Rulesets.load([])
ROSTER = ("编号,队名,单位,队员1,队员2\n"
          "T01,海沧红狮,海沧,王建国,李海\nT02,集美龙舟,集美,陈小红,林木\n"
          "T03,鼓浪屿钢琴,思明,黄大伟,吴芳\nT04,思明凤凰,思明,赵刚,周敏\n")


def director(tmp_path) -> Director:
    return Director(Store(tmp_path / "scorer.sqlite"), RULESETS)


def test_ids_that_differ_only_in_letter_case_are_one_id(tmp_path):
    d = director(tmp_path)
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    d.import_teams(ROSTER.encode())
    with pytest.raises(AdminError) as taken:
        d.add_team("湖里白鹭", team_id="t02")
    assert taken.value.params["id"] == "T02"  # the one the event has
    with pytest.raises(AdminError):
        d.import_teams("编号,队名\nt03,又一队\n".encode())
    assert d.import_teams("队名\n湖里白鹭\n同安银城\n".encode()).added == ("T05", "T06")
    assert d.team("t06").name == "同安银城"


def test_a_team_without_an_id_in_a_file_gets_the_next_of_the_files_own_series(tmp_path):
    """A roster whose last row has no id: it is T05 after the file's T01 … T04, never t01
    (one id with T01: two teams answered to it, and Excel's lookups mixed them up)."""
    d = director(tmp_path)
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    report = d.import_teams((ROSTER + ",湖里白鹭,湖里\n").encode())
    assert report.added == ("T01", "T02", "T03", "T04", "T05")
    assert d.add_team("同安银城") == "T06"  # by hand: the event's series, its letter case


CORRECTED = ("编号,队名,单位,队员1,队员2\n"
             "T01,海沧红狮队,海沧,王建国,李海\nT02,集美龙舟,集美区,陈小红,林木\n"
             "T03,鼓浪屿钢琴,思明,黄大伟,吴芳芳\nT04,思明凤凰,思明,赵刚,周敏\n"
             "T05,同安银城,同安,\n")


def test_a_corrected_team_list_imported_again_updates_after_showing_each_change(tmp_path):
    """The second file was refused (「这些编号已在赛事中…」): six delete-team --yes."""
    d = director(tmp_path)
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    d.import_teams(ROSTER.encode())
    with pytest.raises(AdminError) as asked:
        d.import_teams(CORRECTED.encode(), by="陈")
    question = explain(asked.value, "zh-Hans")
    assert asked.value.key == "admin.confirm.update_teams"
    assert "3 队有改动，1 队不变；新增 1 队（同安银城）" in question
    assert "海沧红狮（T01）：队名 海沧红狮 → 海沧红狮队" in question
    assert "集美龙舟（T02）：单位 集美 → 集美区" in question
    assert "队员 黄大伟、吴芳 → 黄大伟、吴芳芳" in question
    assert d.team("T01").name == "海沧红狮"  # nothing changed while it asks
    report = d.import_teams(CORRECTED.encode(), confirm=True, by="陈")
    assert (report.updated, report.added) == (("T01", "T02", "T03"), ("T05",))
    assert d.team("T01").name == "海沧红狮队" and d.team("T03").players == ("黄大伟", "吴芳芳")
    log = [e.text(translator("zh-Hans")) for e in d.audit_log() if e.action == "team.update"]
    assert log[0] == "按新名单更正海沧红狮（T01）：海沧红狮 / 海沧 / 王建国、李海 → " \
                     "海沧红狮队 / 海沧 / 王建国、李海"  # the old value is kept
    with pytest.raises(AdminError) as same:
        d.import_teams(CORRECTED.encode(), by="陈")
    assert same.value.key == "admin.error.update_nothing"
    renamed = CORRECTED.replace("思明凤凰", "思明凤凰队")  # a change, and no team new
    with pytest.raises(AdminError) as again:
        d.import_teams(renamed.encode(), by="陈")
    question = explain(again.value, "zh-Hans")
    assert "1 队有改动，4 队不变；改动：思明凤凰（T04）" in question  # not 「新增 0 队（—）」
    assert "新增" not in question and "—" not in question and " 0 队" not in question


def test_closing_with_rounds_unplayed_says_so_and_cli_refusals_name_the_command(tmp_path):
    from .helpers import cli

    d = director(tmp_path)
    d.create_event("厦门杯", "xiamen-2015", rounds=5, seed=3)
    d.import_teams(ROSTER.encode())
    with pytest.raises(AdminError) as asked:
        d.close_event()
    assert asked.value.key == "admin.confirm.close_early"
    assert "只打了 0 轮：还有 5 轮没有编排" in explain(asked.value, "zh-Hans")
    d.close_event(confirm=True)
    d.store.close()
    run = cli("scorer", "admin", "add-team", "湖里白鹭", "--data", str(tmp_path))
    assert run.returncode == 2
    assert "请先重新开启（kiosk scorer admin reopen --reason 原因）" in run.stderr
    assert "页" not in run.stderr


def test_cli_standings_sign_the_net_levels_as_the_screens_do(tmp_path):
    from .helpers import cli

    d = director(tmp_path)
    d.create_event("厦门杯", "xiamen-2015", rounds=5, seed=3)
    d.import_teams(ROSTER.encode())
    d.add_tables(2)
    d.publish()
    d.start_round(0)
    for table, _, _ in d.assignments(1):
        d.record_ruling(table, "adjusted", "EW", "测试", 1, 10, confirm=True)
    d.store.close()
    shown = cli("scorer", "admin", "standings", "--data", str(tmp_path)).stdout
    rows = [line.split() for line in shown.splitlines()[2:]]
    assert sorted(row[3] for row in rows) == ["+10", "+10", "-10", "-10"], shown
    # a shared place as the console says it (a printed-record review: 5= in Chinese)
    assert sorted(row[0] for row in rows) == ["并列1", "并列1", "并列3", "并列3"], shown


def test_cli_publish_names_the_command_that_starts_the_round(tmp_path):
    from .helpers import cli

    d = director(tmp_path)
    d.create_event("厦门杯", "xiamen-2015", rounds=5, seed=3)
    d.import_teams(ROSTER.encode())
    d.add_tables(2)
    d.store.close()
    shown = cli("scorer", "admin", "publish", "--data", str(tmp_path)).stdout
    assert "用 `start` 开始" in shown and "start-round" not in shown


def test_the_pdf_estimate_learns_how_long_a_layout_takes_here():
    """「预计共需约 3 秒」 of a PDF that took 12 s: the start of a layout is learnt too."""
    from kiosk.scorer.printing.pdf_queue import PdfQueue

    now = [100.0]

    def lay_out(html: str, started) -> bytes:
        now[0] += 12.0  # a busy scorer: 12 s for a small document
        return b"%PDF"

    queue = PdfQueue(lay_out, clock=lambda: now[0])
    first = queue.submit(("standings", "zh-Hans"), "v1", "<p>1</p>" * 100, "排名.pdf")
    guessed = queue.estimate(first)
    first.done.result(timeout=30)
    second = queue.submit(("pairings", "zh-Hans"), "v1", "<p>1</p>" * 100, "对阵.pdf")
    assert guessed < 12 <= queue.estimate(second) <= 13
    second.done.result(timeout=30)
    queue.close()


def test_simulating_a_table_the_round_does_not_use_does_not_say_to_start_a_round(tmp_path):
    """「请先在裁判长后台开始一轮」 while the round ran, for a table it did not use."""
    import io

    from starlette.testclient import TestClient

    from kiosk.errors import LinkError
    from kiosk.scorer.web.app import create_app
    from kiosk.sim.hall import simulate_synced
    from kiosk.sync.join import join

    d = director(tmp_path)
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    d.import_teams(ROSTER.encode())
    codes = d.add_tables(3)  # four teams: the round uses tables 1 and 2
    d.publish()
    d.start_round(0)
    link = join(tmp_path / "k3", 3, "http://testserver", codes[3], RULESETS,
                TestClient(create_app(d)))
    with pytest.raises(LinkError) as none:
        simulate_synced(tmp_path / "k3", 3, RULESETS, link, 1, 1, 1e9, io.StringIO())
    said = explain(none.value, "zh-Hans")
    assert "本轮用不到这张桌" in said and "请先在裁判长后台开始一轮" not in said
