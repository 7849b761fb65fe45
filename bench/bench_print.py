"""Benchmark: the printed pages of a 200-team event, as PDF (WeasyPrint) and HTML.

    .venv/bin/python bench/bench_print.py [--teams 200] [--rounds 3] [--played 20]
                                          [--repeat 3] [--lang zh-Hans]

A Swiss event (xiamen-2015) of --teams teams on teams/2 tables: every round's matches are
decided by rulings except --played tables of the last round, whose kiosks play whole matches
hand by hand through the real sync path (their score sheets list every hand). Then each
printed page is made --repeat times:

  kind             pages   HTML s   PDF s   s a page   PDF / floor

HTML is the page as the browser prints it; PDF is WeasyPrint laying the same HTML out on A4, in
a child process as the scorer does (its start, ~0.5 s, included); the hall's side of it is
bench/bench_print_hall.py.
The floor is a child process making a one-page A4 PDF of one line of Chinese text, in the same
run: the fixed cost every PDF pays. Medians over the repeats. The load average is printed too
(this machine's cores are shared: other work shows in the figures).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.printing import layout
from kiosk.scorer.printing import pages as printing
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join

UNITS = ("市粮食局", "储备粮公司", "购销公司", "军粮供应站", "粮油质检站")


def event(folder: Path, teams: int, rounds: int, played: int) -> Director:
    rulesets = Rulesets.load([])
    d = Director(Store(folder / "scorer.sqlite"), rulesets)
    d.create_event("厦门市粮食系统职工运动会80分比赛", "xiamen-2015", rounds=rounds + 1, seed=1)
    d.import_teams(("编号,队伍名称,单位,队员1,队员2\n" + "\n".join(
        f"t{i:03d},第{i}队,{UNITS[i % len(UNITS)]},张{i},王{i}"
        for i in range(1, teams + 1))).encode())
    codes = d.add_tables(teams // 2)
    client = TestClient(create_app(d))
    for round_no in range(1, rounds + 1):
        d.start_round(0)
        if round_no == rounds:
            for table in range(1, played + 1):
                link = join(folder / f"k{table}", table, "http://testserver", codes[table],
                            rulesets, client)
                simulate_synced(folder / f"k{table}", table, rulesets, link, 1000,
                                seed=table, speed=1e9, out=io.StringIO()).close()
        for table, _, _ in d.assignments(round_no):
            if d.round_results(round_no)[table] is None:
                d.record_ruling(table, "adjusted", "EW" if table % 2 else "NS", "bench",
                                round_no, net=table % 5, confirm=True)
    d.publish()  # the next round's pairings, for the wall
    return d


def timed(call, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teams", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--played", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lang", default="zh-Hans")
    args = parser.parse_args()
    import weasyprint

    with tempfile.TemporaryDirectory(dir=Path(__file__).resolve().parent.parent) as tmp:
        start = time.perf_counter()
        d = event(Path(tmp), args.teams, args.rounds, args.played)
        print(f"event: {args.teams} teams, {args.rounds} rounds ({args.played} tables of the "
              f"last played hand by hand), built in {time.perf_counter() - start:.1f} s")
        floor, _ = timed(lambda: layout.pdf_of(
            '<html><body style="font-family: Noto Sans CJK SC">排名表</body></html>'),
            args.repeat)
        print(f"floor (a one-page A4 PDF): {floor:.3f} s;  load average "
              f"{os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
        print(f"{'kind':<16}{'pages':>6}{'HTML s':>9}{'PDF s':>9}{'s a page':>10}"
              f"{'PDF / floor':>13}")
        rounds = {"sheets": args.rounds}
        for kind in printing.KINDS:
            where = {"round_no": rounds.get(kind)}
            html_s, _ = timed(lambda kind=kind, where=where: printing.html(
                d, kind, args.lang, **where), args.repeat)
            pdf_s, pdf = timed(lambda kind=kind, where=where: printing.pdf(
                d, kind, args.lang, **where), args.repeat)
            pages = weasyprint.HTML(string=printing.html(d, kind, args.lang, **where)) \
                .render().pages
            print(f"{kind:<16}{len(pages):>6}{html_s:>9.2f}{pdf_s:>9.2f}"
                  f"{pdf_s / len(pages):>10.3f}{pdf_s / floor:>13.0f}")
            del pdf
        d.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
