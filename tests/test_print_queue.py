"""PDFs at national-final scale (issue 15, scale audit C3): the real scorer (its own process,
HTTPS) lays every PDF out in a child process of its own, one at a time; the same document for
the same data once (requests at the same moment share the layout, later ones get it kept until
the data changes); a full queue and a failed layout are said in words; a browser sees a page
saying the PDF is being made, which downloads it when it is ready.

A watcher thread lists the scorer's child processes every few milliseconds (/proc): a layout
takes half a second at the least (Python and WeasyPrint start), so none goes unseen."""

from __future__ import annotations

import html
import re
import signal
import ssl
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote

import httpx
import pytest

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store

from .browser import chromium_browser
from .helpers import ScorerProcess, children_running, kiosk
from .test_printing import render

# A layout takes about ten seconds on a quiet machine and a minute at load 15; a queue of
# five is five of them. The deadlines are for a machine that busy, not a measurement.
pytestmark = [pytest.mark.process, pytest.mark.timeout(1800)]
DEADLINE = 600

RULESETS = Rulesets.load([])
PASSWORD = "national-final-print-41"


@pytest.fixture(scope="module")
def scorer(tmp_path_factory):
    data = tmp_path_factory.mktemp("print-queue")
    d = Director(Store(data / "scorer.sqlite"), RULESETS)
    d.set_password(PASSWORD)
    d.create_event("全国总决赛", "xiamen-2015", seed=5)
    d.import_teams(("编号,队名,单位\n" + "\n".join(
        f"t{n:02d},第{n}队,单位{n % 3}" for n in range(1, 13))).encode())
    d.add_tables(6)
    d.start_round(0)
    d.store.close()
    with ScorerProcess(data) as process:
        yield process


def get(scorer: ScorerProcess, path: str, browser: bool = False, session: str = ""
        ) -> tuple[int, dict[str, str], bytes]:
    """GET as a program (no Accept) or as a browser's tab (Accept: text/html …); with
    `session`, as the head referee's console."""
    headers = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"} if browser else {}
    if session:
        headers["Cookie"] = f"kiosk_admin={session}"
    request = urllib.request.Request(scorer.url + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=DEADLINE,
                                    context=ssl._create_unverified_context()) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as refused:
        return refused.code, {k.lower(): v for k, v in refused.headers.items()}, refused.read()


def console_session(scorer: ScorerProcess) -> str:
    """The head referee logged in: the console's session cookie."""
    with httpx.Client(verify=ssl._create_unverified_context()) as client:
        reply = client.post(scorer.url + "/admin/login", data={"password": PASSWORD})
        assert reply.status_code == 303, reply.text
        return reply.cookies["kiosk_admin"]


class Layouts:
    """The layout processes the scorer starts while this watches; `kill` ends each as soon as
    it is seen (a layout that dies, as one the kernel stops when memory runs out)."""

    def __init__(self, scorer: ScorerProcess, kill: bool = False) -> None:
        assert scorer.proc is not None
        self.pid, self.kill = scorer.proc.pid, kill
        self.seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        import os

        while not self._stop.is_set():
            for pid in children_running(self.pid, "kiosk.scorer.printing.layout"):
                if pid not in self.seen:
                    self.seen.add(pid)
                    if self.kill:
                        os.kill(pid, signal.SIGKILL)
            time.sleep(0.003)

    def __enter__(self) -> Layouts:
        self._thread.start()
        return self

    def wait_for(self, count: int) -> None:
        """Until `count` layouts have started (a deadline, not a wait)."""
        deadline = time.monotonic() + DEADLINE
        while len(self.seen) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.seen) >= count

    def __exit__(self, *exc: object) -> None:
        time.sleep(0.05)
        self._stop.set()
        self._thread.join()


def test_a_pdf_is_laid_out_by_a_child_process_never_by_the_scorer(scorer):
    with Layouts(scorer) as layouts:
        status, headers, pdf = get(scorer, "/print/standings.pdf")
    assert status == 200 and headers["content-type"] == "application/pdf"
    assert pdf.startswith(b"%PDF")
    assert len(layouts.seen) == 1 and scorer.proc.pid not in layouts.seen
    assert not any(Path(f"/proc/{pid}").exists() for pid in layouts.seen)  # gone, its memory too
    # WeasyPrint draws text with Pango: a scorer that had laid a page out would have it loaded
    maps = Path(f"/proc/{scorer.proc.pid}/maps").read_text()
    assert "libpango" not in maps


def test_the_same_pdf_asked_twice_at_once_is_laid_out_once_and_kept_until_its_data_changes(
        scorer, tmp_path):
    path = "/print/scorecards.pdf?lang=zh-Hans"
    with Layouts(scorer) as layouts, ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: get(scorer, path), range(2))
    assert first[0] == second[0] == 200 and first[2] == second[2]
    assert len(layouts.seen) == 1  # one layout for both
    with Layouts(scorer) as layouts:
        again = get(scorer, path)
    assert again[2] == first[2] and not layouts.seen  # kept: no layout at all
    _, text = render(first[2], tmp_path, "before")
    assert "第7队" in text and "海沧第七" not in text
    said = kiosk("scorer", "admin", "--data", str(scorer.data), "edit-team", "t07",
                 "--name", "海沧第七")  # another process changes the data, as the console may
    assert said.returncode == 0, said.stderr
    with Layouts(scorer) as layouts:
        changed = get(scorer, path)
    assert changed[0] == 200 and len(layouts.seen) == 1  # laid out again
    _, text = render(changed[2], tmp_path, "after")
    assert "海沧第七" in text


def test_a_full_queue_is_refused_in_words_with_when_to_try_again(scorer):
    paths = [f"/print/sheets.pdf?table={t}&lang={lang}" for lang in ("zh-Hans", "en")
             for t in range(1, 7)] + ["/print/pairings-team.pdf?lang=en",
                                      "/print/pairings-table.pdf?lang=en"]
    with ThreadPoolExecutor(len(paths)) as pool:
        replies = dict(zip(paths, pool.map(lambda p: get(scorer, p), paths), strict=True))
    refused = {p: r for p, r in replies.items() if r[0] == 503}
    made = [r for r in replies.values() if r[0] == 200]
    assert len(made) + len(refused) == len(paths)
    # One at work and four waiting at each gate (the page's reading, then the PDF's layout);
    # how many got in before the rest were turned away depends on how the requests interleave.
    assert 1 <= len(made) <= 10 and refused
    for path, (_, headers, body) in refused.items():
        assert int(headers["retry-after"]) >= 5
        assert headers["content-type"].startswith("text/html")
        page = body.decode()
        said = ("The print queue is full", "try again in about") if "lang=en" in path \
            else ("打印队列已满", "秒后再试")  # in the language asked for
        assert all(s in page for s in said) and "Traceback" not in page
    assert all(body.startswith(b"%PDF") for _, _, body in made)


def test_a_layout_that_dies_is_said_in_words_and_the_next_try_works(scorer):
    path = "/print/pairings-team.pdf?lang=zh-Hans"
    with Layouts(scorer, kill=True) as layouts:
        status, headers, body = get(scorer, path)
    assert len(layouts.seen) == 1
    assert status == 500 and headers["content-type"].startswith("text/html")
    page = body.decode()
    assert "PDF 没有生成：排版程序意外中止" in page and "Traceback" not in page
    status, headers, body = get(scorer, path)  # a failure is not kept: this one is laid out
    assert status == 200 and body.startswith(b"%PDF")


def test_a_browser_sees_the_pdf_being_made_then_downloads_it(scorer):
    ahead = [f"/print/sheets.pdf?table={t}&lang=zh-Hant" for t in range(1, 5)]
    with ThreadPoolExecutor(len(ahead)) as pool, Layouts(scorer) as layouts:
        busy = [pool.submit(get, scorer, p) for p in ahead]
        layouts.wait_for(1)  # the queue is at work on them
        status, headers, body = get(scorer, "/print/pairings-table.pdf?lang=zh-Hans",
                                    browser=True)
        page = body.decode()
        assert status == 202 and headers["content-type"].startswith("text/html")
        assert "PDF 排队中" in page or "正在生成 PDF" in page
        assert "《全国总决赛-第1轮-对阵表(按桌号).pdf》" in page  # which document
        assert "本页每 3 秒自动刷新" in page
        refresh = re.search(r'http-equiv="refresh" content="3;url=([^"]+)"', page)
        assert refresh and refresh.group(1).startswith("/print/jobs/")
        job = html.unescape(refresh.group(1))
        assert all(f.result()[0] == 200 for f in busy)
    for _ in range(200):  # the page looks again every 3 s; here more often
        status, _, body = get(scorer, job, browser=True)
        if status != 202:
            break
        time.sleep(0.2)
    page = body.decode()
    assert status == 200 and "PDF 已生成" in page and "下载 PDF" in page
    download = re.search(r'http-equiv="refresh" content="0;url=([^"]+)"', page)
    assert download and html.unescape(download.group(1)).startswith(job.split("?")[0] + ".pdf")
    status, headers, pdf = get(scorer, html.unescape(download.group(1)), browser=True)
    assert status == 200 and pdf.startswith(b"%PDF")
    assert unquote(headers["content-disposition"].split("UTF-8''")[1]) == \
        "全国总决赛-第1轮-对阵表(按桌号).pdf"


def test_a_job_the_scorer_no_longer_has_is_said_in_words(scorer):
    status, _, body = get(scorer, "/print/jobs/no-such-job", browser=True)
    assert status == 404 and "这份 PDF 已不在记分台上" in body.decode()


def test_the_head_referee_clicks_a_pdf_while_others_are_made_and_is_told_then_gets_it(
        scorer, tmp_path):
    """Chromium: the console's PDF link opens a tab; with the queue busy (the console's own
    PDFs: they go ahead of the public's) the tab says the PDF is waiting or being made (no
    frozen blank tab), then downloads it by itself."""
    ahead = [f"/admin/print/scorecards.pdf?lang={lang}" for lang in ("zh-Hant", "en")] + \
        [f"/admin/print/pairings-team.pdf?lang={lang}" for lang in ("zh-Hant", "en")]
    with chromium_browser() as browser, ThreadPoolExecutor(len(ahead)) as pool:
        context = browser.new_context(ignore_https_errors=True, accept_downloads=True,
                                      locale="zh-CN")
        page = context.new_page()
        page.goto(scorer.url + "/admin/login")
        page.fill("input[name=password]", PASSWORD)
        page.press("input[name=password]", "Enter")
        page.goto(scorer.url + "/admin/print")
        session = next(c["value"] for c in context.cookies() if c["name"] == "kiosk_admin")
        with Layouts(scorer) as layouts:
            busy = [pool.submit(get, scorer, p, session=session) for p in ahead]
            layouts.wait_for(1)  # the queue is at work on them
        with context.expect_page() as opened:
            page.locator("tr[data-print=standings]").get_by_role("link", name="PDF").first.click()
        tab = opened.value
        tab.wait_for_load_state()
        said = tab.locator("main").inner_text()
        assert "PDF 排队中" in said or "正在生成 PDF" in said, said
        assert "《全国总决赛-排名表.pdf》" in said and "自动下载" in said
        tab.screenshot(path=str(tmp_path / "waiting.png"))
        print("screenshot", tmp_path / "waiting.png")
        with tab.expect_download(timeout=DEADLINE * 1000) as got:
            pass  # the page looks again every 3 s and downloads when it is ready
        assert got.value.suggested_filename == "全国总决赛-排名表.pdf"
        got.value.save_as(tmp_path / "standings.pdf")
        assert (tmp_path / "standings.pdf").read_bytes().startswith(b"%PDF")
        assert "PDF 已生成" in tab.locator("main").inner_text()
        tab.screenshot(path=str(tmp_path / "ready.png"))
        print("screenshot", tmp_path / "ready.png")
        assert all(f.result()[0] == 200 for f in busy)
        context.close()


def test_the_head_referees_pdf_goes_ahead_of_a_crowds_and_a_crowd_cannot_make_pages_anew(
        scorer):
    """A laptop on the hall's Wi-Fi asking for one public PDF over and over, each time with a
    `?team=` it does not read, gets the one document (it made a new one each time, and the
    pairing codes' PDF was refused while it did). The console's PDF is laid out next, ahead
    of the public's waiting, and is never refused for them."""
    session = console_session(scorer)
    standings = "/print/standings.pdf?lang=en"
    assert get(scorer, standings)[0] == 200
    with Layouts(scorer) as layouts, ThreadPoolExecutor(12) as pool:
        crowd = list(pool.map(lambda n: get(scorer, f"{standings}&team=x{n}")[0], range(12)))
    assert crowd == [200] * 12 and not layouts.seen  # the one kept, none laid out again
    public = [f"/print/scorecards.pdf?team=t0{n}&lang=zh-Hant" for n in range(1, 5)]
    finished: dict[str, float] = {}

    def timed(path: str, session: str = "") -> int:
        status = get(scorer, path, session=session)[0]
        finished[path] = time.monotonic()
        return status

    with Layouts(scorer) as layouts, ThreadPoolExecutor(len(public) + 1) as pool:
        busy = [pool.submit(timed, p) for p in public]
        layouts.wait_for(1)  # the queue is at work on them
        done_before = len(finished)
        codes = pool.submit(timed, "/admin/print/codes.pdf", session)
        assert codes.result() == 200 and all(f.result() == 200 for f in busy)
    after = [p for p in public if finished[p] > finished["/admin/print/codes.pdf"]]
    # All the public's still waiting then were laid out after it (one more may have started
    # between the look and the request).
    assert len(after) >= len(public) - done_before - 2 >= 1, (done_before, after)
