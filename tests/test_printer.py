"""The score slip and the ESC/POS printer, with a fake printer on a pty that parses the stream."""

from __future__ import annotations

import io
import json
import re
import time

import pytest

from kiosk.errors import PrinterError
from kiosk.hw.door import Door
from kiosk.hw.printer import PrintQueue, SlipPrinter
from kiosk.hw.slip import COLUMNS, as_escpos, as_text, slip_lines, wrap
from kiosk.rules import replay
from kiosk.words.sheet import score_sheet
from kiosk.words.textfmt import width

from .helpers import EXAMPLES
from .helpers import cli as kiosk
from .pty_printer import COMMANDS, NO_PAPER, OK, PtyPrinter


@pytest.fixture
def xiamen(rulesets):
    record = json.loads((EXAMPLES / "xiamen-2015-example.json").read_text())
    record.update({"event": "厦门粮食系统运动会", "round": "3", "table": 7,
                   "teams": {"NS": "市购销公司", "EW": "粮食局"},
                   "players": {"N": "张三", "S": "李四", "E": "王五", "W": "赵六"}})
    return record, rulesets["xiamen-2015"], list(replay(record, rulesets))


@pytest.mark.unit
def test_slip_printed_in_gb18030_carries_the_score_sheet(xiamen):
    record, ruleset, lines = xiamen
    printer = PtyPrinter()
    data = as_escpos(slip_lines(record, ruleset, lines, 58, "zh-Hans"))
    assert SlipPrinter(f"{printer.path}", timeout=2).print_slip(data) == "printed"
    text = printer.text()
    printer.close()
    for needed in ("记分表", "赛事：厦门粮食系统运动会", "轮次：3  桌号：7",
                   "南北：市购销公司\n  北 张三  南 李四",
                   "东 王五 暴露张：罚10分\n  （计入旁家得分）",
                   "抠底：底牌10分×8（2连对）\n  ＝",  # 「＝」 goes with its sum
                   "北 张三 甩错牌 2张：罚20分\n  （从旁家得分中扣除）",
                   "胜方：东西（打过A）", "最终级数：南北 4  东西 过A", "大分：南北 0  东西 3",
                   "净胜级数：南北 -9  东西 +9", "裁判签名：", "北 张三签名：",
                   f"规则版本：{ruleset.sha256[:8]}"):
        assert needed in text, needed
    assert ruleset.id not in text  # its name heads the slip
    table = text.split("-" * 32)[1]
    heads, *rows = table.strip("\n").splitlines()
    assert heads.split() == ["副", "庄", "级", "得分", "结果", "升", "南北", "东西"]
    hand_rows = [row.split() for row in rows if not row.startswith(" ")]  # notes are indented
    assert [row[:4] for row in hand_rows][:2] == [["1", "北", "2", "45"], ["2", "南", "4", "140"]]
    assert len(hand_rows) == 8
    signers = [line.split("签名")[0] for line in text.splitlines() if "签名：" in line]
    assert signers == ["北 张三", "东 王五", "南 李四", "西 赵六", "裁判"]  # table order


@pytest.mark.unit
@pytest.mark.parametrize(("lang", "past"), [("zh-Hans", "过A"), ("zh-Hant", "過A"),
                                            ("en", "past A")])
def test_the_last_row_says_past_a_as_the_footer_does(xiamen, lang, past):
    """东西 holds at K, +2: the slip's last row said 「+2 4 A」 above 「最终级数：南北 4  东西
    过A」, and the score sheet's too."""
    record, ruleset, lines = xiamen
    slip = as_text(slip_lines(record, ruleset, lines, 58, lang), 58).split("-" * 32)
    sheet = score_sheet(record, ruleset, lines, lang)
    for hands, footer in ((slip[1], slip[2]), (sheet, sheet)):
        rows = [row.split() for row in hands.splitlines()]
        last = [cells for cells in rows if cells and cells[0].isdigit()][-1]
        assert last[-1 - len(past.split()):] == ["4", *past.split()], last  # 南北 4, 东西 过A
        assert f"{past}\n" in footer


@pytest.mark.unit
def test_a_redeal_row_says_who_called_it_as_the_sheet_does(xiamen, rulesets):
    """The slip printed a bare 「革命」 where the score sheet says 「革命（北提出）」."""
    record, ruleset, _ = xiamen
    hands = [dict(h) for h in record["hands"]]
    redeal = next(i for i, h in enumerate(hands) if h.get("redeal"))
    hands[redeal]["called_by"] = "N"  # (a defender of that hand: 东 deals it)
    record = {**record, "hands": hands}
    lines = list(replay(record, rulesets))
    slip = as_text(slip_lines(record, ruleset, lines, 58, "zh-Hans"), 58)
    row = next(r for r in slip.splitlines() if r.split()[3:4] == ["革命"])  # (no points)
    assert slip.splitlines()[slip.splitlines().index(row) + 1].strip() == "北 张三提出革命"
    assert "革命（北提出）" in score_sheet(record, ruleset, lines, "zh-Hans")


@pytest.mark.unit
def test_slip_lines_break_where_a_reader_expects():
    assert wrap("2015年厦门市粮食系统运动会八十分赛", 32) == [
        "2015年厦门市粮食系统运动会", "八十分赛"]  # no 「八十⏎分赛」 (issue 31), nor a lone 「赛」
    assert wrap("东 王五 暴露张：罚10分（计入旁家得分）", 32) == [
        "东 王五 暴露张：罚10分", "（计入旁家得分）"]  # a bracket kept whole
    long = "罚10分（" + "很长的说明" * 8 + "）"  # a bracket longer than a line: it flows on
    assert "".join(wrap(long, 32)) == long and all(width(x) <= 32 for x in wrap(long, 32))
    assert wrap("记分表", 32) == ["记分表"] and wrap("", 32) == [""]


@pytest.mark.unit
@pytest.mark.parametrize("paper", [58, 80])
@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "en"])
def test_slip_fits_the_paper(xiamen, paper, lang):
    record, ruleset, lines = xiamen
    text = as_text(slip_lines(record, ruleset, lines, paper, lang), paper)
    assert max(width(line) for line in text.splitlines()) <= COLUMNS[paper]


@pytest.mark.unit
def test_no_paper_prints_nothing(xiamen):
    record, ruleset, lines = xiamen
    printer = PtyPrinter(status=NO_PAPER)
    with pytest.raises(PrinterError) as err:
        SlipPrinter(printer.path, timeout=2).print_slip(as_escpos(
            slip_lines(record, ruleset, lines, 58, "en")))
    assert err.value.reason == "no_paper" and printer.queries == 1
    time.sleep(0.1)
    assert not printer.received
    printer.close()


@pytest.mark.unit
def test_printer_not_answering_or_missing():
    silent = PtyPrinter(answer=False)
    with pytest.raises(PrinterError) as err:
        SlipPrinter(silent.path, timeout=0.3).print_slip(b"x")
    assert err.value.reason == "not_answering"
    silent.close()
    with pytest.raises(PrinterError) as err:  # unplugged, or a wrong name: not its power
        SlipPrinter("/dev/no-such-printer", timeout=0.3).print_slip(b"x")
    assert err.value.reason == "no_device"


@pytest.mark.unit
def test_printer_that_vanishes_mid_slip(xiamen):
    record, ruleset, lines = xiamen
    printer = PtyPrinter(vanish_after=200)
    data = as_escpos(slip_lines(record, ruleset, lines, 80, "zh-Hans")) * 20
    with pytest.raises(PrinterError) as err:
        SlipPrinter(printer.path, timeout=1).print_slip(data)
    assert err.value.reason == "lost"


@pytest.mark.unit
def test_print_queue_keeps_the_slip_and_reports_through_the_door(tmp_path, xiamen):
    record, ruleset, lines = xiamen
    door = Door()
    printer = PtyPrinter(status=NO_PAPER)
    queue = PrintQueue(SlipPrinter(printer.path, timeout=1), tmp_path / "slips", door)
    data = as_escpos(slip_lines(record, ruleset, lines, 58, "zh-Hans"))
    kept = queue.submit("table-7-round-3", data)  # returns at once; printing is elsewhere
    assert kept.read_bytes() == data
    (result,) = door.take(timeout=5)
    assert (result.name, result.reason) == ("table-7-round-3", "no_paper")
    printer.status = OK  # paper loaded: reprint from the kept copy
    queue.reprint("table-7-round-3")
    (result,) = door.take(timeout=5)
    assert result.reason == "printed"
    assert "净胜级数" in printer.text()
    queue.close()
    printer.close()


@pytest.mark.unit
def test_slip_command(tmp_path, rulesets):
    from kiosk.sim.table import simulate

    simulate(tmp_path, 2, rulesets, "chaodipi-2011", 5, seed=3, speed=float("inf"),
             out=io.StringIO()).close()
    text = kiosk("slip", "--data", str(tmp_path), "--table", "2", "--lang", "en", "--width",
                 "80")
    assert text.returncode == 0, text.stderr
    assert "Score sheet" in text.stdout and "Referee signature" in text.stdout
    out = tmp_path / "slip.bin"
    done = kiosk("slip", "--data", str(tmp_path), "--table", "2", "--format", "escpos",
                 "--out", str(out))
    assert done.returncode == 0
    data = out.read_bytes()
    assert data.startswith(b"\x1b@\x1c&") and data.endswith(b"\x1dVB\x00")
    assert "记分表" in COMMANDS.sub(b"", data).decode("gb18030")
    missing = kiosk("slip", "--data", str(tmp_path), "--table", "9")
    assert missing.returncode == 2 and "没有第 9 桌的日志" in missing.stderr


@pytest.mark.unit
def test_the_slip_prints_itself_at_the_end_of_a_match(tmp_path, rulesets):
    from kiosk.hw.runner import TableRunner
    from kiosk.table.clock import ManualClock
    from kiosk.table.session import SessionConfig, TableSession

    clock, door = ManualClock(), Door()
    printer = PtyPrinter()
    queue = PrintQueue(SlipPrinter(printer.path, timeout=2), tmp_path / "slips", door)
    session = TableSession.open(tmp_path, 4, rulesets, clock, SessionConfig(pin="1"))
    session.setup_match(event="e", round="2", teams={"NS": "甲", "EW": "乙"}, players={},
                        ruleset="standard-80fen")
    runner = TableRunner(session, door, printer=queue, lang="en")
    runner.step()
    assert list((tmp_path / "slips").iterdir()) == []  # no slip while the match runs
    session.unlock("1")
    session.end_match("EW", "forfeit", "late by 15 minutes")
    runner.step()
    assert (tmp_path / "slips" / "table-4-round-2.bin").exists()
    runner.step(timeout=5)
    assert [(r.name, r.reason) for r in runner.printed] == [("table-4-round-2", "printed")]
    assert "EW forfeit, NS win" in printer.text()
    runner.step()
    assert len(runner.printed) == 1  # one slip a match
    queue.close()
    session.close()
    printer.close()


@pytest.mark.unit
def test_udev_rules_name_the_header_uart_and_every_kind_of_usb_printer():
    rules = (EXAMPLES.parent / "deploy" / "udev" / "99-kiosk-printer.rules").read_text()
    lines = [line for line in rules.splitlines() if line and not line.startswith("#")]
    names = {}
    for line in lines:
        pairs = [part.strip() for part in line.split(",")]
        for pair in pairs:
            assert re.fullmatch(r'[A-Z]+(\{\w+\})?(==|\+=|=)"[\w\[\]*-]+"', pair), pair
        subsystem = pairs[0]
        link = next(p for p in pairs if p.startswith("SYMLINK+="))
        group = next(p for p in pairs if p.startswith("GROUP="))
        names.setdefault(link, []).append((subsystem, group))
    # The header's UART: ttyAMA0 on every model with the kiosk's config.txt.
    assert names['SYMLINK+="kiosk-uart"'] == [('SUBSYSTEM=="tty"', 'GROUP="dialout"')]
    assert 'KERNEL=="ttyAMA0"' in rules
    usb = names['SYMLINK+="kiosk-printer"']
    assert usb.count(('SUBSYSTEM=="tty"', 'GROUP="dialout"')) == 4  # the USB-serial chips
    assert ('SUBSYSTEM=="usbmisc"', 'GROUP="lp"') in usb  # the printer class, /dev/usb/lpN
