"""Issue 32, the head referee's teams in one process: ids that differ only in letter case are
one id, and a corrected team list imported again as an update."""

from __future__ import annotations

import pytest

from kiosk.rules import Rulesets
from kiosk.scorer.director import AdminError, Director
from kiosk.scorer.store.database import Store

pytestmark = pytest.mark.unit

RULESETS = Rulesets.load([])
ROSTER = ("编号,队名,单位,队员1,队员2\n"
          "T01,海沧红狮,海沧,王建国,李海\nT02,集美龙舟,集美,陈小红,林木\n"
          "T03,鼓浪屿钢琴,思明,黄大伟,吴芳\nT04,思明凤凰,思明,赵刚,周敏\n")


def director(tmp_path) -> Director:
    return Director(Store(tmp_path / "s.sqlite"), RULESETS)


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
