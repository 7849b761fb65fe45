"""Printed pages and exports: every A4 page as PDF in 简, 繁 and English, rendered to PNG by
pdftoppm and read back by pdftotext; CSV with a BOM that Excel opens in Chinese, names next to
ids; the XLSX workbook; download names; rulings wherever the result shows."""

from __future__ import annotations

import csv
import html
import io
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from openpyxl import load_workbook
from PIL import Image
from starlette.testclient import TestClient

from kiosk.protocol.wire import csv_cell
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director, views
from kiosk.scorer.printing import exports
from kiosk.scorer.printing import pages as printing
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join

from .helpers import tool

RULESETS = Rulesets.load([])
NAMES = ("海沧红狮", "集美龙舟", "鼓浪屿钢琴", "思明凤凰", "湖里白鹭", "=1+1")


@pytest.fixture(scope="module")
def event(tmp_path_factory):
    """Round 1 played: table 1 by a kiosk hand by hand, the others ruled; a late entry and a
    withdrawal; round 2 published (not started)."""
    tmp = tmp_path_factory.mktemp("printing")
    d = Director(Store(tmp / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=4)
    d.import_teams(("编号,队名,单位,队员1,队员2\n" + "\n".join(
        f"t{i:02d},{n},单位{i % 3},甲{i},乙{i}" for i, n in enumerate(NAMES, 1))).encode())
    codes = d.add_tables(3)
    d.start_round(0)
    link = join(tmp / "k1", 1, "http://testserver", codes[1], RULESETS,
                TestClient(create_app(d)))
    simulate_synced(tmp / "k1", 1, RULESETS, link, 1000, 3, 1e9, io.StringIO()).close()
    d.record_ruling(2, "forfeit", "EW", "未到场 no-show", confirm=True)
    d.record_ruling(3, "adjusted", "NS", "申诉成立 appeal upheld", net=2, confirm=True)
    d.add_team("迟到队", "单位9", missed_points=0)
    _, ns, _ = d.assignments(1)[1]
    d.withdraw(ns, confirm=True)
    d.publish()
    yield d, tmp
    d.store.close()


def render(pdf: bytes, folder: Path, stem: str) -> tuple[list[Path], str]:
    """The PDF's pages as PNG files (pdftoppm) and its text (pdftotext)."""
    path = folder / f"{stem}.pdf"
    path.write_bytes(pdf)
    subprocess.run([tool("pdftoppm"), "-r", "40", "-png", str(path), str(folder / stem)],
                   check=True, timeout=120)
    text = subprocess.run([tool("pdftotext"), "-layout", str(path), "-"], check=True,
                          capture_output=True, text=True, timeout=60).stdout
    return sorted(folder.glob(f"{stem}-*.png")), text


def inked(png: Path) -> float:
    """The share of a page that is not white."""
    image = Image.open(png).convert("L")
    dark = sum(image.histogram()[:200])
    return dark / (image.width * image.height)


WORDS = {  # a word each page must show, by language
    "pairings-table": {"zh-Hans": "对阵表", "zh-Hant": "對陣表", "en": "pairings by table"},
    "pairings-team": {"zh-Hans": "按队名", "zh-Hant": "按隊名", "en": "pairings by team"},
    "standings": {"zh-Hans": "净胜级", "zh-Hant": "淨勝級", "en": "net levels"},
    "scorecards": {"zh-Hans": "对手", "zh-Hant": "對手", "en": "Opponent"},
    "sheets": {"zh-Hans": "参赛选手签名确认", "zh-Hant": "參賽選手簽名確認",
               "en": "Players' signatures"},
}


@pytest.mark.process
@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "en"])
@pytest.mark.parametrize("kind", printing.KINDS)
def test_every_page_prints_as_pdf_and_renders_to_png(event, tmp_path, kind, lang):
    d, _ = event
    round_no = 1 if kind == "sheets" else None
    pages, text = render(printing.pdf(d, kind, lang, round_no=round_no), tmp_path, kind)
    assert pages and all(inked(p) > 0.005 for p in pages), kind  # drawn, not blank
    assert all(Image.open(p).size[0] < Image.open(p).size[1] for p in pages)  # A4 upright
    flat = " ".join(text.split())
    assert WORDS[kind][lang] in flat
    assert "海沧红狮" in flat or kind == "sheets"
    if kind == "sheets":
        assert len(pages) == 3  # one sheet a match of round 1
        ruled = {"zh-Hans": "判负", "zh-Hant": "判負", "en": "forfeit"}[lang]
        assert ruled in flat and "未到场 no-show" in flat
    if kind == "standings":
        withdrawn = {"zh-Hans": "第 1 轮后退赛", "zh-Hant": "第 1 輪後退賽",
                     "en": "withdrawn after round 1"}[lang]
        assert withdrawn in flat and "迟到队" in flat


@pytest.mark.unit
def test_a_score_sheet_lists_the_tables_hands_and_the_seeds_form(event):
    d, _ = event
    html = printing.html(d, "sheets", "zh-Hans", round_no=1, table=1)
    state = d.match_state(1, 1)
    assert html.count('<tr><td class="num">') >= len(state.played) > 0  # every hand
    for field in ("甲方", "乙方", "参赛选手姓名", "单位名称", "违例情况", "记胜负级", "级差（+−）",
                  "第三方签名证明人", "裁判"):
        assert field in html
    # a penalty's points with their word, as the hands' notes say them (a bare 「5」 wrapped
    # alone onto a line of its own)
    assert "西 暗示、交谈（罚分） 罚5分" in html
    ruled = printing.html(d, "sheets", "en", round_no=1, table=3)
    assert "Ruling: adjusted result, North–South loses." in ruled
    assert "Net levels: 2." in ruled


@pytest.mark.process
def test_a_score_sheets_narrow_columns_never_wrap_and_the_notes_take_the_room(event, tmp_path):
    """Each hand's result (庄家方守庄, 旁家上台 …) stays on one line in the PDF;
    the notes column is the one that grows."""
    d, _ = event
    sheet = printing.sheet_context(d, 1, 1, "zh-Hans")
    _, text = render(printing.pdf(d, "sheets", "zh-Hans", round_no=1, table=1), tmp_path,
                     "sheet")
    lines = text.splitlines()
    words = {h["result"] for h in sheet["hands"]}
    assert len(words) >= 2  # 庄家方守庄, 旁家上台 …
    for word in words:
        assert any(word in line for line in lines), word


@pytest.mark.unit
def test_the_private_draft_never_prints(event):
    d, _ = event
    with pytest.raises(printing.PrintError) as refused:
        printing.html(d, "pairings-table", "en", round_no=3)
    assert refused.value.key == "print.error.no_round"
    published = printing.html(d, "pairings-table", "zh-Hans")  # round 2, published
    assert "第 2 轮对阵表" in published


def log_in(client: TestClient, d: Director) -> None:
    """The head referee's console session (a password of the test's own: tests share the
    event)."""
    d.set_password("printing-tests-password")
    client.post("/admin/login", data={"password": "printing-tests-password", "who": "陈"})


@pytest.mark.process
def test_prints_and_exports_download_with_names_that_say_what_they_are(event):
    d, _ = event
    client = TestClient(create_app(d))
    reply = client.get("/print/pairings-team.pdf?lang=zh-Hans")
    assert reply.headers["content-type"] == "application/pdf"
    assert reply.content.startswith(b"%PDF")
    name = unquote(reply.headers["content-disposition"].split("UTF-8''")[1])
    assert name == "厦门杯-第2轮-对阵表(按队名).pdf"
    assert client.get("/print/nothing.pdf").status_code == 404
    assert "没有这种打印页面" in client.get("/print/nothing.html").text
    sheet = client.get("/print/standings.html?lang=en")
    assert sheet.status_code == 200 and "Standings" in sheet.text
    csv_reply = client.get("/api/export/results.csv")
    assert csv_reply.headers["content-type"].startswith("text/csv")
    assert unquote(csv_reply.headers["content-disposition"].split("UTF-8''")[1]) == \
        "厦门杯-成绩.csv"
    assert client.get("/api/export/results.xlsx").status_code == 404  # it holds the log:
    assert client.get("/admin/export/results.xlsx", follow_redirects=False).status_code == 303
    log_in(client, d)  # console only
    book = client.get("/admin/export/results.xlsx")
    assert unquote(book.headers["content-disposition"].split("UTF-8''")[1]) == \
        "厦门杯-成绩.xlsx"
    assert load_workbook(io.BytesIO(book.content)).sheetnames[-1] == "操作日志"


@pytest.mark.process
def test_prints_and_exports_read_the_director_on_the_event_loop_alone(event, monkeypatch):
    """The director's folds and caches are the event loop's: a print or an export made in a
    worker thread, folding while the loop folds kiosks' batches, could wipe tables' matches
    from the hall. Every read of the director happens on one thread, the loop's; only the
    layout of what was read (the sheets' replays, the templates, the workbook) runs beside."""
    import threading

    d, _ = event
    readers: set[int] = set()
    version = d.version

    def noted() -> tuple[int, int]:
        readers.add(threading.get_ident())
        return version()

    monkeypatch.setattr(d, "version", noted)
    with TestClient(create_app(d)) as client:
        log_in(client, d)
        assert client.get("/api/hall").status_code == 200
        assert readers, "the hall reads the director"
        loop = set(readers)
        for path in ("/print/sheets.pdf?lang=zh-Hant&round=1", "/print/scorecards.pdf?lang=en",
                     "/print/sheets.html?round=1&lang=en", "/print/pairings-team.html",
                     "/admin/export/results.xlsx", "/admin/print/codes.pdf",
                     "/api/export/sheets.txt", "/api/export/results.csv",
                     "/api/export/results.json"):
            reply = client.get(path, follow_redirects=False)
            assert reply.status_code == 200, (path, reply.text[:300])
            assert "html" not in reply.headers["content-type"] or ".html" in path, path
            if path.endswith("sheets.txt"):  # the replays (made in a worker) are there
                assert "== 第 1 轮 · 第 1 桌 ==" in reply.text and "签名" in reply.text
        book = load_workbook(io.BytesIO(client.get("/admin/export/results.xlsx").content))
        assert book.sheetnames[-1] == "操作日志"
    assert readers == loop


@pytest.mark.process
def test_printed_pages_are_made_one_at_a_time_and_a_crowd_is_told_to_wait(event, monkeypatch):
    """People on the hall's Wi-Fi asking for big pages over and over must not stall the
    kiosks: the same page asked for at once is made once and shared; other pages wait their
    turn, at most four behind the one being made; beyond, 503 with when to try again."""
    import threading
    import time
    import urllib.error
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    from .browser import serve

    d, _ = event
    making, most, made = [0], [0], []
    lay_out = printing.Parts.html

    def slow(parts: printing.Parts) -> str:  # a page as big as 500 score sheets
        making[0] += 1
        most[0] = max(most[0], making[0])
        time.sleep(1.5)
        made.append(threading.get_ident())
        making[0] -= 1
        return lay_out(parts)

    monkeypatch.setattr(printing.Parts, "html", slow)

    def ask(path: str) -> tuple[int, str, str | None]:
        try:
            with urllib.request.urlopen(server.url + path, timeout=60) as reply:
                return reply.status, reply.read().decode(), None
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode(), refused.headers["Retry-After"]

    with serve(create_app(d)) as server, ThreadPoolExecutor(8) as crowd:
        same = list(crowd.map(ask, ["/print/standings.html"] * 6))
        assert {status for status, _, _ in same} == {200} and len({b for _, b, _ in same}) == 1
        assert len(made) == 1  # made once for the six
        pages = [f"/print/{kind}.html?lang={lang}" for kind in ("standings", "pairings-table")
                 for lang in ("zh-Hans", "zh-Hant", "en")] + ["/print/scorecards.html",
                                                               "/print/pairings-team.html"]
        answers = list(crowd.map(ask, pages))
    assert most[0] == 1  # never two at once
    assert {status for status, _, _ in answers} <= {200, 503}
    refused = {path: (body, wait) for path, (status, body, wait) in zip(pages, answers,
                                                                         strict=True)
               if status == 503}
    assert 1 <= len(refused) <= 3 and len(answers) - len(refused) >= 5
    said = {"en": "Other printed pages or downloads are being made",
            "zh-Hant": "正在產生其他列印頁面或匯出檔案",
            "zh-Hans": "正在生成其他打印页面或导出文件"}  # in the page's language
    for path, (body, wait) in refused.items():
        lang = path.partition("lang=")[2] or "zh-Hans"
        assert said[lang] in body and int(wait) >= 5, (path, body)


@pytest.mark.process
@pytest.mark.timeout(300)
def test_an_export_is_made_once_a_version_and_a_sheet_replayed_when_its_match_changes(
        tmp_path, monkeypatch):
    """Exports are public downloads of the whole event: eight people asking for sheets.txt over
    and over during a round froze the hall page for 14 s at 1,000 teams. Asked for at once, an
    export is made once; asked for again with nothing new, it is not made again; when a table
    posts a hand, only that table's sheet is replayed."""
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from .browser import serve

    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=4)
    d.import_teams(("编号,队名\n" + "\n".join(f"t{i},{n}" for i, n in enumerate(NAMES[:4], 1))
                    ).encode())
    codes = d.add_tables(2)
    d.start_round(0)
    replays, made = [], []
    real_replay, real_sheets_of = exports.replay, exports.sheets_of

    def replay(record, rulesets):
        replays.append(record["table"])
        return real_replay(record, rulesets)

    def sheets_of(*args):
        made.append(args)
        return real_sheets_of(*args)

    monkeypatch.setattr(exports, "replay", replay)
    monkeypatch.setattr(exports, "sheets_of", sheets_of)

    def sheets() -> str:
        with urllib.request.urlopen(server.url + "/api/export/sheets.txt", timeout=60) as reply:
            return reply.read().decode()

    def block(text: str, table: int) -> str:
        return re.search(rf"== 第 1 轮 · 第 {table} 桌 ==\n(.*?)(?=\n== |\Z)", text, re.S)[1]

    def hands(text: str, table: int) -> list[str]:  # the sheet's rows: 副, 庄家, …
        return re.findall(r"^ ?(\d+)  [东南西北] ", block(text, table), re.M)

    with serve(create_app(d)) as server, ThreadPoolExecutor(6) as crowd:
        links = {t: join(tmp_path / f"k{t}", t, server.url, codes[t], RULESETS, httpx.Client())
                 for t in (1, 2)}  # (plain HTTP on loopback)
        for table, link in links.items():
            simulate_synced(tmp_path / f"k{table}", table, RULESETS, link, 2, table, 1e9,
                            io.StringIO()).close()
        answers = list(crowd.map(lambda _: sheets(), range(6)))
        assert len(set(answers)) == 1 and len(made) == 1  # made once for the six
        first = answers[0]
        assert hands(first, 1) == hands(first, 2) == ["1", "2"] and sorted(replays) == [1, 2]
        assert sheets() == first and len(made) == 1  # nothing new: not made again
        simulate_synced(tmp_path / "k2", 2, RULESETS, links[2], 4, 2, 1e9,
                        io.StringIO()).close()  # table 2 plays on
        later = sheets()
    assert len(made) == 2 and replays[2:] == [2]  # table 1's sheet was kept
    assert block(later, 1) == block(first, 1)
    assert hands(later, 2) == ["1", "2", "3", "4"]


@pytest.mark.unit
def test_the_csv_opens_in_chinese_excel_with_names_ids_and_rulings(event):
    d, _ = event
    text = exports.results_csv(d)
    assert text.startswith("\ufeff")  # UTF-8 with a BOM: Excel reads it as UTF-8
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows[0][:8] == ["轮次", "桌号", "南北编号", "南北", "东西编号", "东西", "胜方编号",
                           "胜方"]
    names = {t: csv_cell(n) for t, n in d.team_names().items()}  # "=1+1" shows as '=1+1
    for row in rows[1:4]:
        assert names[row[2]] == row[3] and names[row[4]] == row[5]
        assert names[row[6]] == row[7]  # the winner by name too, not only its id
    assert rows[2][12] == "判负" and rows[2][13] == "未到场 no-show"
    assert rows[3][12] == "改判结果"
    english = list(csv.reader(io.StringIO(exports.results_csv(d, "en").removeprefix("\ufeff"))))
    assert english[2][12] == "forfeit" and english[1][12] == "at the table"


@pytest.mark.unit
def test_the_workbook_has_standings_rounds_rulings_and_the_log(event, tmp_path):
    d, _ = event
    path = tmp_path / "book.xlsx"
    path.write_bytes(exports.workbook(d))
    book = load_workbook(path)
    assert book.sheetnames == ["排名", "各轮成绩", "裁决", "操作日志"]
    standings = list(book["排名"].values)
    assert standings[0][:4] == ("名次", "并列", "编号", "队伍") and len(standings) == 1 + 7
    assert any(row[3] == "=1+1" for row in standings[1:])  # a name, never a formula
    assert book["排名"].cell(row=2, column=7).data_type == "n"  # points stay numbers
    rulings = list(book["裁决"].values)[1:]
    assert [r[4] for r in rulings] == ["判负", "改判结果"]
    log = [r[2] for r in list(book["操作日志"].values)[1:]]
    assert any("退赛" in line for line in log) and any("公布第 2 轮" in line for line in log)


@pytest.mark.unit
@pytest.mark.parametrize("query, status, said", [
    ("round=xyz", 400, "“xyz”不是轮次：请在管理页的“打印与导出”页选择轮次。"),
    ("round=0", 400, "“0”不是轮次"),
    ("round=99", 404, "第 99 轮尚未公布：已公布到第 2 轮。"),
    ("round=1&table=abc", 400, "“abc”不是桌号"),
])
def test_a_print_of_a_bad_or_unknown_round_is_refused_in_chinese(event, query, status, said):
    d, _ = event
    client = TestClient(create_app(d))
    for kind in ("sheets.pdf", "pairings-table.pdf", "pairings-team.html"):
        reply = client.get(f"/print/{kind}?{query}")
        assert reply.status_code == status, kind
        assert reply.headers["content-type"].startswith("text/html")  # a page, not a PDF
        assert said in reply.text and "无法打开此页" in reply.text


@pytest.mark.process
def test_the_print_page_prints_an_earlier_rounds_pairings_and_sheets(event):
    d, _ = event
    d.set_password("print-page-password-7")
    client = TestClient(create_app(d))
    client.post("/admin/login", data={"password": "print-page-password-7"})
    page = client.get("/admin/print").text
    assert re.search(r'<option value="2" selected>第 2 轮</option>', page)
    assert '<option value="1" >第 1 轮</option>' in page
    earlier = client.get("/admin/print?round=1").text
    links = [html.unescape(x) for x in re.findall(r'href="(/admin/print/[^"]+)"', earlier)]
    by_round = [x for x in links if "pairings" in x or "sheets" in x]
    assert by_round and all(x.endswith("&round=1") for x in by_round)
    assert not any("round=" in x for x in links if "standings" in x or "scorecards" in x)
    pairings = client.get(next(x for x in by_round if "/pairings-table.html" in x
                               and "lang=zh-Hans" in x)).text
    assert "第 1 轮对阵表" in pairings
    sheets = client.get(next(x for x in by_round if "/sheets.pdf" in x
                             and "lang=zh-Hans" in x))
    assert sheets.content.startswith(b"%PDF")
    assert "第1轮" in unquote(sheets.headers["content-disposition"])


@pytest.mark.unit
def test_printed_chinese_has_its_own_colons_and_english_its_apostrophes_once(event):
    d, _ = event
    standings, cards = (printing.html(d, kind, "zh-Hans") for kind in ("standings", "scorecards"))
    assert "排名依据：大分 → 净胜级 → " in standings and "排名依据:" not in standings
    assert "队员：" in cards and "队员:" not in cards
    assert "opponents&#39; big points" in printing.html(d, "standings", "en")


@pytest.mark.unit
def test_printed_net_levels_carry_their_sign_as_the_screens_do(event):
    d, _ = event
    ahead = [s for s in views.standing_rows(d) if s.net > 0]
    assert ahead  # the fixture has a team ahead on levels
    standings = printing.html(d, "standings", "zh-Hans")
    cards = printing.html(d, "scorecards", "zh-Hans")
    assert '<th class="num">净胜级</th>' in standings and "净胜级" in cards
    for s in ahead:
        row = re.search(rf"<tr>.*?{re.escape(s.team)}.*?</tr>", standings, re.S).group(0)
        assert f'<td class="num">+{s.net}</td>' in row, row
    assert f'<th class="num">+{ahead[0].net}</th></tr>' in printing.html(
        d, "scorecards", "zh-Hans", team=ahead[0].team)


@pytest.mark.process
def test_standings_before_play_and_with_a_withdrawal_read_cleanly(tmp_path):
    """No round -1 or empty slot before round 1 starts; a withdrawal's mark keeps the number
    columns and the units whole (audit of the printed pages, findings 1–3)."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("第十二届厦门市“鹭岛杯”升级（80分）公开赛", "xiamen-2015", seed=5)
    names = ["上海浦东新区桥牌与升级扑克俱乐部联队", "思明区老年大学二队", "湖里区工商联合会代表队",
             "Golden Dragons Card Club", "集美区工会职工文化体育活动中心代表队", "集美龙舟",
             "北京市东城区老年人体育协会第一代表队", "翔安区教工队"]
    d.import_teams(("编号,队名,单位\n" + "\n".join(
        f"t{i:02d},{n},厦门市第{i}单位" for i, n in enumerate(names, 1))).encode())
    d.add_tables(4)
    for stage in ("before any round", "round 1 published"):
        if stage == "round 1 published":
            d.publish()
        page = printing.html(d, "standings", "zh-Hans")
        assert "尚未开赛" in page and "第 -1 轮" not in page, stage
        assert not re.search(r"·\s*·", page), stage
    d.start_round(0)
    _, ns, _ = d.assignments(1)[1]
    d.withdraw(ns, confirm=True)
    _, text = render(printing.pdf(d, "standings", "zh-Hans"), tmp_path, "standings")
    head = next(line for line in text.splitlines() if "队伍" in line)
    assert all(word in head for word in ("名次", "大分", "净胜级", "对手分", "已赛", "备注"))
    assert all(f"厦门市第{i}单位" in text for i in range(1, 9))
    assert "第 1 轮后退赛" in text


@pytest.mark.process
def test_the_final_standings_say_each_bye_and_have_a_line_for_the_chief_referee(tmp_path):
    """A review of the printed records: a bye was in no team's 备注, and the final standings,
    posted and kept, had nowhere for the chief referee to sign."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", rounds=2, seed=3)
    d.import_teams(("编号,队名\n" + "\n".join(
        f"t{i:02d},{n}" for i, n in enumerate(NAMES[:5], 1))).encode())
    d.add_tables(2)
    byes = {}
    for round_no in (1, 2):
        d.start_round(0)
        byes[round_no], = d.byes(round_no)
        for table in (1, 2):
            d.record_ruling(table, "forfeit", "EW", "未到场", confirm=True)
        if round_no == 1:
            d.publish()
            before = printing.html(d, "standings", "zh-Hans")  # round 2 not started yet
            assert "第 1 轮轮空" in before and "第 2 轮轮空" not in before
            assert "裁判长签名" not in before  # not the final standings
    d.close_event(confirm=True)
    _, text = render(printing.pdf(d, "standings", "zh-Hans"), tmp_path, "standings")
    lines = text.splitlines()
    for round_no, team in byes.items():
        name = dict(d.team_names())[team]
        row = next(line for line in lines if name in line)
        assert f"第 {round_no} 轮轮空" in row or "第 1、2 轮轮空" in row, (row, byes)
    assert "最终排名" in text and any("裁判长签名" in line and "日期" in line for line in lines)
    assert lines.index(next(line for line in lines if "裁判长签名" in line)) > \
        max(lines.index(line) for line in lines if any(n in line for n in NAMES[:5]))
    english = printing.html(d, "standings", "en")
    assert "bye in round 1" in english and english.count("Chief referee") == 1  # (not in <title>)
    client = TestClient(create_app(d))
    log_in(client, d)
    console = html.unescape(client.get("/admin/standings").text)  # (the console says it too)
    assert all(f"第 {r} 轮轮空" in console or "第 1、2 轮轮空" in console for r in byes), byes
    book = load_workbook(io.BytesIO(exports.workbook(d)))
    notes = {row[2]: row[-1] for row in list(book["排名"].values)[1:]}
    assert all(f"第 {r} 轮轮空" in notes[t] or "第 1、2 轮轮空" in notes[t]
               for r, t in byes.items()), (notes, byes)


@pytest.mark.unit
def test_the_text_sheets_list_every_ruled_table_with_its_ruled_result(event):
    """sheets.txt says what the printed sheet says: a ruled table without a record of play
    has its ruling, and an adjusted result its net levels (audit of the printed pages, 4)."""
    d, _ = event
    text = exports.sheets(d, "zh-Hans")
    blocks = dict(re.findall(r"== 第 1 轮 · 第 (\d+) 桌 ==\n(.*?)(?=\n== |\Z)", text, re.S))
    assert set(blocks) == {"1", "2", "3"}
    assert "本桌尚无记录" in blocks["2"] and "判负" in blocks["2"] and "未到场" in blocks["2"]
    assert "净胜级：2。" in blocks["3"] and "申诉成立" in blocks["3"]


@pytest.mark.unit
def test_numbered_team_names_sort_by_their_numbers_on_the_wall(tmp_path):
    """Scale audit C5: 第1000队, 第100队 … 第10队 came before 第109队 (digits compared as text).
    A player looks for 第10队 after 第9队: numbers compare by value, wherever the wall's
    alphabetical order is used (pairings by team, the scorecards)."""
    numbers = (1000, 100, 10, 2, 109, 1, 11, 110, 101, 9, 20, 3)
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("全国总决赛", "xiamen-2015", seed=2)
    d.import_teams(("编号,队名\n" + "\n".join(f"t{n:04d},第{n}队" for n in numbers)).encode())
    d.add_tables(len(numbers) // 2)
    d.start_round(0)
    page = printing.html(d, "pairings-team", "zh-Hans")
    listed = re.findall(r"<tr><td>(第\d+队) <span", page)
    wanted = [f"第{n}队" for n in sorted(numbers)]
    assert listed == wanted
    cards = printing.html(d, "scorecards", "zh-Hans")
    assert re.findall(r"<h2>(第\d+队) <span", cards) == wanted
    assert sorted(["第１０队", "第9队", "海沧红狮", "第10队A", "第10队"], key=views.sort_key) == \
        ["第9队", "第10队", "第１０队", "第10队A", "海沧红狮"]  # full-width digits: numbers too
    # numbers in Chinese that count a team too (a printed-record review: 第二 came before 第一,
    # èr before yī); other numerals are words (十里长堤 is shí lǐ)
    assert sorted(["粮食公司第二代表队", "粮食公司第一代表队", "思明十二队", "思明二队",
                   "十里长堤队", "第十一队", "第九队"], key=views.sort_key) == \
        ["第九队", "第十一队", "粮食公司第一代表队", "粮食公司第二代表队", "十里长堤队",
         "思明二队", "思明十二队"]
    d.store.close()


@pytest.mark.process
def test_every_teams_scorecard_has_the_same_columns(event, tmp_path):
    """Cards of teams with long and short names, with and without a ruling, laid out their
    columns each by its own content: 对手 and 结果 stood at different places on one page."""
    d, _ = event
    path = tmp_path / "cards.pdf"
    path.write_bytes(printing.pdf(d, "scorecards", "zh-Hans"))
    boxes = subprocess.run([tool("pdftotext"), "-bbox", str(path), "-"], check=True,
                           capture_output=True, text=True, timeout=60).stdout
    for header in ("对手", "结果", "净胜级"):
        lefts = {round(float(x), 1) for x in re.findall(
            rf'<word xMin="([\d.]+)"[^>]*>{header}</word>', boxes)}
        assert len(re.findall(rf">{header}</word>", boxes)) > 3 and len(lefts) == 1, \
            (header, lefts)


def one_table_played_by_a_kiosk(tmp_path: Path) -> tuple[Director, Any]:
    """A one-table event, round 1 started, table 1's kiosk paired: the director and its link
    (for `simulate_synced`)."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=4)
    d.import_teams("编号,队名\nt01,甲队\nt02,乙队\n".encode())
    codes = d.add_tables(1)
    d.start_round(0)
    return d, join(tmp_path / "k1", 1, "http://testserver", codes[1], RULESETS,
                   TestClient(create_app(d)))


@pytest.mark.process
def test_a_hand_the_referee_corrected_says_so_on_the_printed_sheet(tmp_path):
    """The kiosk's history said 已更正 where the scorer's 记分表 said nothing."""
    d, link = one_table_played_by_a_kiosk(tmp_path)

    def correct_the_first(session) -> None:
        if len(session.state.played) == 2:
            record = session.export()["hands"][0]
            session.unlock("2468")  # (the simulated referee's PIN)
            session.correct_hand(1, {"points": record["points"] + 5}, "recount")

    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 3, 3, 1e9, io.StringIO(),
                    after_hand=correct_the_first).close()
    sheet = printing.html(d, "sheets", "zh-Hans", round_no=1, table=1)
    rows = re.findall(r'<tr><td class="num">(\d+)</td>(.*?)</tr>', sheet, re.S)
    marked = [hand for hand, row in rows if "裁判已更正" in row]
    assert marked == ["1"], rows
    # its total as first confirmed and the referee's reason, as the slip says them (a
    # printed-record review: the sheet said only 裁判已更正)
    first = dict(rows)["1"]
    assert re.search(r"裁判已更正：(\d+)→(\d+)分（recount）", first), first
    assert "打印于 20" in sheet  # (a filed sheet is dated)
    d.store.close()


@pytest.mark.unit
def test_a_match_the_hall_stop_decided_says_time_up_wherever_its_result_shows(tmp_path):
    """A head referee's review: table 2 ended 5:6 when the head referee called time; the
    console, the score sheet the players sign and the workbook's 判定 said a plain win."""
    from .test_scorer_admin import logged_in

    d, link = one_table_played_by_a_kiosk(tmp_path)

    def stop_after_two(session) -> None:  # as the kiosk follows the head referee's 叫停
        if len(session.state.played) == 2:
            session.follow_hall_stop()

    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 10, 3, 1e9, io.StringIO(),
                    after_hand=stop_after_two).close()
    match = views.round_rows(d, 1)[0]
    winner = match.ns_name if match.winner_side == "NS" else match.ew_name
    client, _ = logged_in(d)
    console = client.get("/admin/results?round=1").text
    assert f"{winner}胜（时间到）" in console
    sheet = printing.html(d, "sheets", "zh-Hans", round_no=1, table=1)
    side = {"NS": "南北", "EW": "东西"}[match.winner_side]
    assert f"胜方：{side}（时间到）；时间到：裁判长宣布全场时间到" in sheet
    rows = list(csv.reader(io.StringIO(exports.results_csv(d, "zh-Hans").removeprefix("\ufeff"))))
    assert rows[1][12] == "牌桌结果（时间到）"
    assert "牌桌结果（时间到）" in [row[12] for row in load_workbook(
        io.BytesIO(exports.workbook(d, "zh-Hans"))).worksheets[1].values]
    d.store.close()


@pytest.mark.process
def test_the_sheet_says_which_hand_time_up_left_unfinished(tmp_path):
    """The hall stopped while hand 3 was being played, the levels apart: the match is decided
    at once and hand 3 never finished. The sheet said nothing of it (the slip now does)."""
    d, link = one_table_played_by_a_kiosk(tmp_path)

    def stop_in_hand_three(session) -> None:
        state = session.state
        if len(state.played) == 2 and state.core.levels[0] != state.core.levels[1]:
            if state.draft.dealer is None:
                session.grab_dealer("N")
            session.declare_trump("♠", "N")
            session.start_bury()  # hand 3 in play
            session.follow_hall_stop()

    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 10, 3, 1e9, io.StringIO(),
                    after_hand=stop_in_hand_three).close()
    assert d.match_state(1, 1).dropped_at_time_up() == 3
    sheet = html.unescape(printing.html(d, "sheets", "zh-Hans", round_no=1, table=1))
    assert "时间到时第3副未打完，不计" in sheet
    d.store.close()


@pytest.mark.process
def test_the_signatures_never_start_a_page_without_the_sheet_they_certify(event, tmp_path):
    """Head referee's test M5: a table of 20 hands filled its page to the foot, and the
    第三方签名证明人 / 裁判 row went over alone to the next page, away from the sheet it
    certifies. Sheets of 8 to 35 hands (the table's own, again and again) put the foot of
    the first page at every row in turn: wherever the signatures fall, the sheet's last rows
    go with them."""
    from kiosk.scorer.printing import layout
    from kiosk.scorer.printing.templating import render as render_page

    d, _ = event
    parts = printing.gather(d, "sheets", "zh-Hans", round_no=1, table=1)
    sheet = printing.fill_sheet(parts.context["sheets"][0], d.rulesets, "zh-Hans")
    hands = sheet["hands"]
    assert hands
    sheets = [{**sheet, "table": n,
               "hands": [{**hands[i % len(hands)], "hand": i + 1} for i in range(n)]}
              for n in range(8, 36)]
    path = tmp_path / "long.pdf"
    path.write_bytes(layout.pdf_of(render_page("print/sheets.html", "zh-Hans",
                                               **{**parts.context, "sheets": sheets})))
    text = subprocess.run([tool("pdftotext"), "-layout", str(path), "-"], check=True,
                          capture_output=True, text=True, timeout=120).stdout
    signed = 0
    for number, page in enumerate(text.split("\f"), 1):
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        at = next((i for i, line in enumerate(lines) if "第三方签名证明人" in line), None)
        if at is None:
            continue
        signed += 1
        above = lines[:at]
        rows = [line for line in above if re.match(r"\d+ [东南西北] ", line)
                or "参赛选手签名确认" in line]
        assert rows, (number, lines)  # a hand's row or the form, on the signatures' page
    assert signed == len(sheets)


@pytest.mark.unit
def test_the_workbooks_ranks_are_numbers_and_a_tie_is_said_beside_them(event, tmp_path):
    """M14: 名次 was text ('1', '2', … '10', '2=', 'A1') and Excel sorted 10 before 2. The
    rank is a number; a shared rank says 并列 in a column of its own, and a group (A, B …)
    in one before it, so that sorting by 组 then 名次 gives each group's order."""
    d, _ = event
    sheet = load_workbook(io.BytesIO(exports.workbook(d)))["排名"]
    head = [c.value for c in sheet[1]]
    rows = list(sheet.iter_rows(min_row=2))
    standing = views.standing_rows(d)
    assert any(s.tied for s in standing)  # (the fixture has a shared rank)
    rank = head.index("名次")
    assert [(r[rank].value, r[rank].data_type) for r in rows] == [(s.rank, "n")
                                                                  for s in standing]
    tied = head.index("并列")
    assert [r[tied].value for r in rows] == ["并列" if s.tied else None for s in standing]
    assert "组" not in head  # no groups, no empty column for them
    grouped = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    grouped.create_event("小组赛", "chaodipi-2011", seed=1)  # eight groups of two
    grouped.import_teams(("编号,队名\n" + "\n".join(
        f"t{i:02d},队{i}" for i in range(1, 17))).encode())
    grouped.add_tables(8)
    grouped.start_round(0)
    rows = list(load_workbook(io.BytesIO(exports.workbook(grouped)))["排名"].values)
    assert rows[0][:3] == ("组", "名次", "并列")
    assert [row[:2] for row in rows[1:]] == [(s.group, s.rank)
                                             for s in views.standing_rows(grouped)]
    assert {row[0] for row in rows[1:]} == set("ABCDEFGH")
    grouped.store.close()


@pytest.mark.unit
def test_the_workbooks_times_are_date_times_and_the_csv_says_them_as_before(event):
    """M14: the rulings' and the log's times were text: they neither sorted nor filtered as
    times in Excel."""
    import datetime

    d, _ = event
    book = load_workbook(io.BytesIO(exports.workbook(d)))
    for name in ("裁决", "操作日志"):
        sheet = book[name]
        column = [c.value for c in sheet[1]].index("时间")
        cells = [row[column] for row in sheet.iter_rows(min_row=2)]
        assert cells and all(isinstance(c.value, datetime.datetime) and c.is_date
                             for c in cells), name
        assert cells[0].number_format == "yyyy-mm-dd hh:mm:ss"
    first = list(csv.reader(io.StringIO(exports.audit_csv(d).removeprefix("\ufeff"))))[1]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", first[0]), first


@pytest.mark.unit
def test_every_workbook_sheet_prints_across_one_page_wide_with_its_header_on_each(event):
    """M14: no print setup: 各轮成绩's 14 columns spilled over three pages upright, and the
    header row was on the first page only."""
    d, _ = event
    book = load_workbook(io.BytesIO(exports.workbook(d)))
    for sheet in book.worksheets:
        setup = sheet.page_setup
        assert setup.orientation == "landscape", sheet.title
        assert int(setup.paperSize) == int(sheet.PAPERSIZE_A4)
        assert sheet.sheet_properties.pageSetUpPr.fitToPage
        assert int(setup.fitToWidth) == 1 and int(setup.fitToHeight) == 0  # any pages down
        assert sheet.print_title_rows == "$1:$1", sheet.title


@pytest.mark.unit
def test_the_workbooks_net_levels_are_signed_numbers(event):
    """A printed-record review (Low): Excel showed +3 as 3 (the General format), unlike every
    printed page; a number still, to sort and sum."""
    d, _ = event
    book = load_workbook(io.BytesIO(exports.workbook(d)))
    for sheet, head in (("排名", "净胜级"), ("各轮成绩", "南北净胜级")):
        rows = list(book[sheet].iter_rows())
        column = [c.value for c in rows[0]].index(head)
        cells = [row[column] for row in rows[1:] if isinstance(row[column].value, int)]
        assert cells and all(c.number_format == "+0;-0;0" for c in cells), sheet
        assert any(c.value != 0 for c in cells)


@pytest.mark.unit
def test_the_results_list_a_late_entrys_missed_rounds_as_the_standings_count_them(event):
    """M14: 各轮成绩 (and results.csv) listed the byes but not a late entry's missed round,
    which the standings count (its big points) and the scorecards show."""
    d, _ = event
    late = next(r for r in d.team_rows() if r.joined_round > 1)
    book = load_workbook(io.BytesIO(exports.workbook(d)))
    rows = list(book["各轮成绩"].values)
    head = rows[0]
    found = [r for r in rows[1:] if late.id in (r[2], r[4]) and r[0] == 1]
    assert [(r[0], r[head.index("南北大分")], r[head.index("判定")]) for r in found] == \
        [(1, late.missed_points, "缺赛（补报名）")]
    text = list(csv.reader(io.StringIO(exports.results_csv(d).removeprefix("\ufeff"))))
    assert [r[12] for r in text if r[2] == late.id and r[0] == "1"] == ["缺赛（补报名）"]
    json_rows = [m for m in exports.results_json(d)["matches"]
                 if m["ns"] == late.id and m["round"] == 1]
    assert [m["decided_by"] for m in json_rows] == ["late"]


@pytest.mark.unit
@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "en"])
def test_a_ruling_is_named_on_paper_and_in_the_exports_as_the_console_names_it(event, lang):
    """M14: the console records and lists an adjusted result as 改判结果; the CSV, the
    workbook, the text sheets and the printed pages called it 裁判长改判."""
    from kiosk.i18n import catalog

    d, _ = event
    named = {kind: catalog(lang)[f"admin.ruling.kind.{kind}"]
             for kind in ("forfeit", "adjusted")}
    rows = list(csv.reader(io.StringIO(exports.results_csv(d, lang).removeprefix("\ufeff"))))
    assert [r[12] for r in rows if r[1] in ("2", "3") and r[0] == "1"] == \
        [named["forfeit"], named["adjusted"]]
    rulings = list(load_workbook(io.BytesIO(exports.workbook(d, lang))).worksheets[2].values)
    assert [r[4] for r in rulings[1:]] == [named["forfeit"], named["adjusted"]]
    assert named["adjusted"] in exports.sheets(d, lang)
    assert html.escape(named["adjusted"]) in printing.html(d, "sheets", lang, round_no=1,
                                                           table=3)
    assert html.escape(named["adjusted"]) in printing.html(d, "scorecards", lang)


@pytest.mark.unit
def test_wall_lists_follow_pinyin_order_and_read_traditional_names_as_simplified(tmp_path):
    """Head referee's test: 「厦門…」 filed under shà while 「厦门…」 under xià (pypinyin knows
    the phrase 厦门 only in simplified), and 建发 came before 集美 (the spellings compared
    run together, jianfa < jimei): a dictionary puts 集 jí before 建 jiàn."""
    names = ["厦門糧食貿易公司", "建发粮食", "集美粮油公司", "厦门市思明区粮食局",
             "湖里区物流中心", "象屿粮油", "思明区供销社", "翔安粮库", "廈門大學教職工隊",
             "金门乡亲队"]
    wanted = ["湖里区物流中心", "集美粮油公司", "建发粮食", "金门乡亲队", "思明区供销社",
              "廈門大學教職工隊", "厦門糧食貿易公司", "厦门市思明区粮食局", "翔安粮库",
              "象屿粮油"]
    assert sorted(names, key=views.sort_key) == wanted
    # 厦大 and 厦航 are Xiamen's too (they came between 粮食局 and 思明), 大厦 a building's
    local = ["思明区队", "厦大南强", "厦航队", "粮食局队", "国贸大厦队", "象屿队"]
    assert sorted(local, key=views.sort_key) == [
        "国贸大厦队", "粮食局队", "思明区队", "厦大南强", "厦航队", "象屿队"]
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=2)
    d.import_teams(("编号,队名\n" + "\n".join(
        f"t{i:02d},{n}" for i, n in enumerate(names, 1))).encode())
    d.add_tables(len(names) // 2)
    d.start_round(0)
    page = printing.html(d, "pairings-team", "zh-Hans")
    assert re.findall(r"<tr><td>(\S+) <span", page) == wanted
    d.store.close()


@pytest.mark.unit
def test_a_scorecards_round_without_a_side_says_so_across_the_row(event):
    """The 方位 column said 已退赛 and 尚未参赛, as if they were sides: a round without one
    (missed by a late entry, after a withdrawal, a bye) says so in one cell across 方位,
    对手 and 结果."""
    d, _ = event
    page = printing.html(d, "scorecards", "zh-Hans")
    late = next(r for r in d.team_rows() if r.joined_round > 1)
    out = next(r for r in d.team_rows() if r.withdrawn_after is not None)
    for team, said in ((late, "缺赛（补报名）"), (out, "已退赛")):
        card = re.search(rf"<section class=\"card\">\s*<h2>{re.escape(team.name)} .*?</section>",
                         page, re.S).group(0)
        rows = re.findall(r"<tr>(.*?)</tr>", card, re.S)
        assert any(re.search(rf'<td colspan="3" class="status">{said}</td>', row)
                   for row in rows), card
    assert "尚未参赛" not in page
    assert not re.search(r"<td>已退赛</td>", page)


@pytest.mark.process
def test_pairings_by_table_give_north_south_and_east_west_the_same_width(tmp_path):
    """A long name on one side made its column wide and squeezed the other, so that its names
    wrapped (pdf-r5-pairings-table): both sides are as wide as each other."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=2)
    d.import_teams("编号,队名,单位\nt01,厦门市思明区粮食和物资储备局直属粮油质量检测中心八十分爱好者协会代表队,"
                   "市粮食局\nt02,湖里区物流中心,湖里物流\n".encode())
    d.add_tables(1)
    d.start_round(0)
    path = tmp_path / "pairings.pdf"
    path.write_bytes(printing.pdf(d, "pairings-table", "zh-Hans"))
    boxes = subprocess.run([tool("pdftotext"), "-bbox", str(path), "-"], check=True,
                           capture_output=True, text=True, timeout=60).stdout
    page = float(re.search(r'<page width="([\d.]+)"', boxes).group(1))

    def left(word: str) -> float:
        return float(re.search(rf'<word xMin="([\d.]+)"[^>]*>{word}</word>', boxes).group(1))

    right = page - 12 / 25.4 * 72  # the table ends at the page's right margin (12 mm)
    padding = (2 + 0.3) / 25.4 * 72  # a cell's padding and border, before its first word
    ns = left("东西") - left("南北")
    ew = right - (left("东西") - padding)
    assert abs(ns - ew) < 3, (ns, ew)
    d.store.close()


@pytest.mark.unit
@pytest.mark.parametrize(("lang", "said"), [
    ("zh-Hans", "排名依据：大分 → 净胜级 → 对手大分之和 → 两队之间的胜负。"),
    ("zh-Hant", "排名依據：大分 → 淨勝級 → 對手大分之和 → 兩隊之間的勝負。"),
    ("en", "Order: big points → net levels → opponents&#39; big points")])
def test_the_standings_footnote_names_big_points_as_the_first_criterion(event, lang, said):
    d, _ = event
    assert said in printing.html(d, "standings", lang)


@pytest.mark.unit
def test_an_individual_events_list_by_name_says_each_players_table_and_seat(tmp_path):
    """The list players look for their table on was empty in an individual event: it knew
    only team matches (a head referee's review)."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("双升个人赛", "shuangsheng-2011", seed=3)
    d.import_teams(("选手,单位\n" + "".join(f"选手{i},厦门\n" for i in range(1, 9))).encode())
    d.add_tables(2)
    d.start_round(0)
    page = printing.html(d, "pairings-team", "zh-Hans", round_no=1)
    assert "第 1 轮座位表（按姓名）" in page and "对阵表" not in page
    rows = re.findall(r'<tr><td>(选手\d) <span class="id">\w+</span></td>\s*'
                      r'<td class="no">(\d)</td><td class="seat">(.)</td><td>(.*?)</td>', page)
    assert sorted(name for name, *_ in rows) == [f"选手{i}" for i in range(1, 9)]
    seats = d.seats(1)
    names = d.team_names()
    for name, table, seat, mates in rows:
        group = seats[int(table)]
        letter = {"东": "E", "南": "S", "西": "W", "北": "N"}[seat]
        assert names[group[letter]] == name
        assert sorted(mates.split("、")) == sorted(names[p] for p in group.values()
                                                  if names[p] != name)
    d.store.close()

