"""Benchmark: the hall page's redraws in Chromium at 24, 500 and 1,000 tables.

    .venv/bin/python bench/bench_hall_page.py [--sizes 24,500,1000] [--duration 20]
        [--before DIR] [--shots DIR]

A stand-in scorer (Starlette on 127.0.0.1, the real page and its catalogs' words) serves a
snapshot of N tables and 2N teams, then a patch every 0.5 s while five tables play (their rows,
and one team's standing), as the feed sends them when any table plays. The page is the
OS's Chromium at 1920×1080, headless. `--before DIR` runs the same against another copy of
the page's static files (e.g. main's `kiosk/scorer/web/static`) in the same run, and prints
the ratios.

In the page (counted on its own clock, every animation frame):
  frame         p50 / max of the gap between two frames: a redraw that takes the page's main
                thread for 800 ms is an 800 ms frame
  age           p50 / max of how old the data on screen is when it shows (a patch's table 1
                at hand = its serial: first frame it shows − when the patch was generated)
  ticks         the round clock's changes (it should change every second: ~duration)
  turns         the tables' page indicator's changes (every 10 s: ~duration / 10)
  stale         frames with the red 「数据自 … 起中断」 bar showing
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from starlette.applications import Starlette  # noqa: E402
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402

from kiosk.scorer.web import hall_page  # noqa: E402
from tests.browser import chromium_browser, serve  # noqa: E402

STATIC = ROOT / "kiosk" / "scorer" / "web" / "static"
NAMES = ["鼓浪屿队", "集美队", "思明队", "湖里队", "海沧队", "同安队", "翔安队", "厦大队"]

PROBE = """
  window.__bench = {frames: [], ages: [], seen: 0, stale: 0, clock: 0, turns: 0};
  (function () {
    const b = window.__bench;
    let last = performance.now(), clock = '', pager = '';
    function frame(now) {
      b.frames.push(now - last); last = now;
      const hand = document.querySelector('#tables [data-table="1"] .hand');
      const snap = window.hall && window.hall.snapshot;
      const shown = hand ? Number(hand.textContent) : 0;
      if (shown > b.seen && snap && window.__sent && window.__sent[shown]) {
        b.seen = shown; b.ages.push(Date.now() - window.__sent[shown] * 1000);
      }
      const c = document.getElementById('round-clock');
      if (c && c.textContent !== clock) { clock = c.textContent; b.clock += 1; }
      const p = document.getElementById('tables-pager');
      if (p && p.textContent !== pager) { pager = p.textContent; b.turns += 1; }
      const s = document.getElementById('stale');
      if (s && !s.hidden) b.stale += 1;
      requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
    // (read by the bench from the console: a page busy for minutes still reports)
    setInterval(() => console.log('BENCH ' + JSON.stringify(b)), 1000);
    // when each serial was generated, noted as the stream's message arrives
    const Source = window.EventSource;
    window.__sent = {};
    window.EventSource = function (url) {
      const es = new Source(url);
      es.addEventListener('patch', (e) => {
        const d = JSON.parse(e.data);
        window.__sent[d.tables[0].hand] = d.generated;
      });
      return es;
    };
    window.EventSource.CLOSED = Source.CLOSED;
  })();
"""


def team(i: int) -> str:
    return NAMES[i] if i < len(NAMES) else f"第{i + 1}队"


def hall(tables: int) -> dict:
    now = time.time()
    rows = [{"table": n, "round": 2, "ns": team(2 * n - 2), "ew": team(2 * n - 1), "hand": 1,
             "levels": {"NS": "8", "EW": "5"}, "dealer": "N", "phase": "play",
             "time_left": 3000.0, "clock_running": True,
             "link": {"state": "ok", "behind": 0, "last_seen": None}, "late": False,
             "result": None} for n in range(1, tables + 1)]
    return {"serial": 1, "generated": now, "address": "http://192.168.1.10:8080/",
            "event": {"name": "厦门杯", "ruleset": "xiamen-2015",
                      "ruleset_name": {"zh-Hans": "厦门 2015", "zh-Hant": "廈門 2015",
                                       "en": "Xiamen 2015"},
                      "format": "swiss", "round": 2, "rounds": 5, "status": "running"},
            "round_clock": {"round": 2, "started_at": now - 600, "minutes": 60,
                            "extra_seconds": 0.0, "paused_total": 0.0, "paused_at": None,
                            "stopped_at": None, "ends_at": now + 3000, "state": "running"},
            "muted": False,
            "standings": [{"rank": i + 1, "team": f"t{i + 1}", "name": team(i),
                           "points": 6 - i // 300, "net": 7 - i // 100, "opponents": 9,
                           "played": 2, "tied": False} for i in range(2 * tables)],
            "tables": rows, "pairings_round": None, "pairings": [], "byes": []}


class Stand:
    def __init__(self, tables: int) -> None:
        self.snap = hall(tables)
        self.serial = 1
        self.lock = threading.Lock()
        self.stop = False

    def patch(self) -> str:
        with self.lock:
            self.serial += 1
            rows = []
            for n in range(1, 6):
                row = copy.deepcopy(self.snap["tables"][n - 1])
                row["hand"] = self.serial
                rows.append(row)
            standing = {**self.snap["standings"][9], "points": self.serial}
            data = {"serial": self.serial, "generated": time.time(), "tables": rows,
                    "standings": [standing]}
            for row in rows:
                self.snap["tables"][row["table"] - 1] = row
            self.snap["standings"][9] = standing
            self.snap["serial"], self.snap["generated"] = self.serial, data["generated"]
        return f"event: patch\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

    def app(self, static: Path) -> Starlette:
        async def page(request):
            return HTMLResponse(hall_page.html())

        async def snapshot(request):
            with self.lock:
                return JSONResponse({**self.snap})

        async def qr(request):
            return Response(hall_page.qr_svg(self.snap["address"]), media_type="image/svg+xml")

        async def stream(request):
            async def body():
                yield "retry: 300\n\n"
                ping = 0.0
                while not self.stop:
                    await asyncio.sleep(0.5)
                    yield self.patch()
                    if time.monotonic() - ping > 5:
                        ping = time.monotonic()
                        yield f"event: ping\ndata: {json.dumps({'now': time.time()})}\n\n"
            return StreamingResponse(body(), media_type="text/event-stream")

        return Starlette(routes=[Route("/", page), Route("/api/hall", snapshot),
                                 Route("/api/hall/stream", stream), Route("/qr.svg", qr),
                                 Mount("/static", StaticFiles(directory=static))])


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def run(browser, tables: int, static: Path, duration: float, shot: Path | None) -> dict:
    stand = Stand(tables)
    with serve(stand.app(static)) as server:
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        context.add_init_script(PROBE)
        page = context.new_page()
        page.set_default_timeout(180_000)
        reports: list[dict] = []
        page.on("console", lambda m: reports.append(json.loads(m.text[6:]))
                if m.text.startswith("BENCH ") else None)
        page.goto(server.url + "/")
        page.wait_for_function(f"document.querySelectorAll('#tables [data-table]').length"
                               f" === {tables}")
        time.sleep(2)  # the first layout and fonts
        start = len(reports)
        time.sleep(duration)
        stand.stop = True
        if shot is not None:
            try:
                page.screenshot(path=str(shot), timeout=60_000)
            except Exception as exc:  # a page too busy to paint: said, not fatal
                print(f"(no screenshot at {tables} tables: {type(exc).__name__})", flush=True)
        context.close()
    first, last = reports[start] if start < len(reports) else reports[-1], reports[-1]
    # (the run's share: what the page counted after the first layout)
    result = {"frames": last["frames"][len(first["frames"]):],
              "ages": last["ages"][len(first["ages"]):],
              **{k: last[k] - first[k] for k in ("clock", "turns", "stale")}}
    frames = result["frames"]
    return {"tables": tables, "frame_p50": pct(frames, 0.5), "frame_max": max(frames or [0]),
            "age_p50": pct(result["ages"], 0.5), "age_max": max(result["ages"] or [0]),
            "shown": len(result["ages"]), "ticks": result["clock"], "turns": result["turns"],
            "stale": result["stale"]}


def main() -> None:
    parser = argparse.ArgumentParser(description="the hall page's redraws in Chromium")
    parser.add_argument("--sizes", default="24,500,1000")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--before", type=Path, help="another copy of the page's static files")
    parser.add_argument("--shots", type=Path, help="a screenshot of each run, here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    variants = [("now", STATIC)] + ([("before", args.before)] if args.before else [])
    rows = {}
    with chromium_browser() as browser:
        for tables in sizes:
            for name, static in variants:
                shot = args.shots / f"hall-{name}-{tables}.png" if args.shots else None
                if args.shots:
                    args.shots.mkdir(parents=True, exist_ok=True)
                r = run(browser, tables, static, args.duration, shot)
                rows[(name, tables)] = r
                print(f"{name:6} {tables:5} tables: frame p50 {r['frame_p50']:6.0f} ms, "
                      f"max {r['frame_max']:6.0f} ms; data age p50 {r['age_p50']:6.0f} ms, "
                      f"max {r['age_max']:6.0f} ms ({r['shown']} shown); clock ticks "
                      f"{r['ticks']}, page turns {r['turns']}, stale frames {r['stale']} "
                      f"in {args.duration:.0f} s", flush=True)
    if args.before:
        for tables in sizes:
            now, before = rows[("now", tables)], rows[("before", tables)]
            ratio = {k: now[k] / before[k] if before[k] else float("nan")
                     for k in ("frame_max", "age_p50", "age_max")}
            print(f"{tables:5} tables, now/before: frame max {ratio['frame_max']:.2f}, "
                  f"age p50 {ratio['age_p50']:.2f}, age max {ratio['age_max']:.2f}; "
                  f"ticks {now['ticks']} vs {before['ticks']}, turns {now['turns']} vs "
                  f"{before['turns']}")


if __name__ == "__main__":
    main()
