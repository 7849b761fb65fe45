"""`kiosk demo`: the whole product on one machine. The scorer serves the hall page; a demo
event (xiamen-2015 Swiss, 16 teams, 8 tables) is created once; eight simulated kiosks pair
with it and play every round at accelerated time through the real sync path (HTTP on
loopback, signed batches, the outbox). Run again on the same directory, it continues where it
stopped; with --fresh it starts over."""

from __future__ import annotations

import io
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import LinkError
from ..i18n import explain, render
from ..rules import Rulesets
from ..scorer.director import Director
from ..scorer.net import tls
from ..scorer.server import server_for
from ..scorer.store.database import Store
from ..scorer.terminal import DETAILS
from ..scorer.web.app import create_app
from ..sync.join import join
from ..sync.link import Credential, ScorerLink
from ..sync.outbox import Outbox
from ..table.journal import Journal, table_path
from .hall import simulate_synced

TABLES = 8
PANEL_SECONDS = 15.0  # the hall shows the next round's pairings this long between rounds
DEMO = "demo"  # who the audit log says ran the demo's rounds
CITIES = ("厦门", "福州", "泉州", "漳州", "莆田", "龙岩", "三明", "南平")
NAMES = ("鼓浪屿队", "集美队", "思明队", "湖里队", "海沧队", "同安队", "翔安队", "南普陀队",
         "白鹭队", "凤凰木队", "三角梅队", "筼筜队", "环岛路队", "曾厝垵队", "五缘湾队",
         "植物园队")
SURNAMES = "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜"


def roster() -> bytes:
    rows = ["编号,队名,单位,队员1,队员2"]
    for i, name in enumerate(NAMES, 1):
        a, b = SURNAMES[(2 * i) % len(SURNAMES)], SURNAMES[(2 * i + 1) % len(SURNAMES)]
        rows.append(f"t{i:02d},{name},{CITIES[i % len(CITIES)]},{a}明,{b}华")
    return ("\n".join(rows) + "\n").encode()


class Stopped(Exception):
    """Ctrl-C: the simulated tables stop after their current hand."""


def run_demo(data: Path, port: int, speed: float, fresh: bool, rulesets: Rulesets,
             lang: str) -> int:
    say = _sayer(lang)
    if fresh and data.exists():
        shutil.rmtree(data)
    store_path = data / "scorer" / "scorer.sqlite"
    director = Director(Store(store_path), rulesets)  # the server's own connection
    admin = Director(Store(store_path), rulesets)  # the head referee's, as a command has
    password = password_words(director, data)
    if admin.event() is None:
        admin.create_event("厦门升级邀请赛（演示）", "xiamen-2015", seed=2026)
        admin.import_teams(roster())
    event = admin.event()
    ended = event is not None and event.status == "closed"  # played to its end before
    codes = {} if ended else admin.add_tables(TABLES)  # a code for each table not paired yet
    url = f"https://127.0.0.1:{port}"
    identity = tls.identity(director.store)
    server = server_for(create_app(director, url + "/", processes=True), "127.0.0.1", port,
                        identity.server_context(), details=store_path.parent / DETAILS)
    serving = threading.Thread(target=server.run, name="scorer", daemon=True)
    serving.start()
    while not server.started:
        if not serving.is_alive():
            say("demo.no_port", port=port)
            return 1
        time.sleep(0.05)
    say("demo.urls", url=url)
    pairs = [identity.fingerprint[i:i + 2].upper() for i in range(0, 16, 2)]
    say("demo.certificate", fingerprint=" ".join(pairs) + " …")
    say(password[0], **password[1])
    stop = threading.Event()
    standby = Standby(data)
    try:
        if ended:
            say("demo.ended_before")
        else:
            play_event(admin, data, url, codes, speed, rulesets, stop, say, standby)
            say("demo.over")
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        print()
        say("demo.stopping")
    except LinkError as exc:  # a table the scorer refuses, even after trying again
        say("demo.failed", reason=exc)
        return 1
    finally:
        stop.set()
        standby.stop_all()
        server.stop()
        serving.join(timeout=10)
        director.store.close()
        admin.store.close()
    return 0


PASSWORD_FILE = "admin-password.txt"
PAIR_TRIES = 8  # a kiosk that cannot pair tries again, waiting longer each time
PAIR_WAIT = 0.5  # seconds before its second try


def password_words(director: Director, data: Path) -> tuple[str, dict[str, Any]]:
    """What every start of the demo says about the admin password: the password and the file
    (this user's only) that keeps it, written on the first start; or, once the head referee
    changed it (`kiosk scorer admin password`), only where the old one was."""
    path = data / PASSWORD_FILE
    first = director.first_password()
    if first:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(first + "\n")
    kept = path.read_text().strip() if path.exists() else ""
    if kept and director.check_password(kept):
        return "demo.password", {"password": kept, "path": path}
    return "demo.password_changed", {"path": path}


def join_retrying(kiosk: Path, table: int, url: str, code: str | None, rulesets: Rulesets,
                  say: Callable[..., None], wait: Callable[[float], bool]) -> ScorerLink:
    """`join`, tried again when the scorer is unreachable, busy or failed (a 5xx): a demo
    table that cannot pair at once says why and waits, rather than end the demo. A refusal
    (a wrong code, another ruleset) is raised at once. `wait(s)`: True to stop waiting."""
    delay = PAIR_WAIT
    for attempt in range(1, PAIR_TRIES + 1):
        try:
            return join(kiosk, table, url, code, rulesets)
        except LinkError as exc:
            passing = exc.status is None or exc.status >= 500 or exc.status == 429
            if not passing or attempt == PAIR_TRIES:
                raise
            say("demo.table_error", table=table, reason=exc)
            if wait(delay):
                raise
            delay *= 2
    raise AssertionError("unreachable")


def _sayer(lang: str) -> Callable[..., None]:
    """Prints a catalog message in `lang`; a parameter that is an error (a LinkError) is said
    in its own words."""
    def say(key: str, **values: Any) -> None:
        words = {name: explain(v, lang) if isinstance(v, BaseException) else v
                 for name, v in values.items()}
        print(render(key, words, lang), flush=True)

    return say


class Standby:
    """The demo's kiosks between matches: each keeps its link to the scorer as a real kiosk
    does (a heartbeat, the assignment asked for), so the director's tables page shows it
    online, not as a table gone quiet."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.outboxes: dict[int, Outbox] = {}

    def start(self, table: int, link: ScorerLink) -> None:
        journal = table_path(self.data / f"kiosk-{table}", table)
        if not journal.exists():  # a kiosk makes its journal when it is first switched on
            Journal(journal).close()
        outbox = Outbox(journal, link)
        outbox.start()
        self.outboxes[table] = outbox

    def stop(self, table: int) -> None:
        """Before the table plays: its match's own outbox takes over the journal."""
        outbox = self.outboxes.pop(table, None)
        if outbox is not None:
            outbox.stop()

    def stop_all(self) -> None:
        for table in list(self.outboxes):
            self.stop(table)


def play_event(admin: Director, data: Path, url: str, codes: dict[int, str], speed: float,
               rulesets: Rulesets, stop: threading.Event, say: Callable[..., None],
               standby: Standby) -> None:
    """Every remaining round: start it, let each table's bots play it, until the last.
    A table not playing stays on `standby`."""
    event = admin.event()
    assert event is not None
    links = {}
    for table in range(1, TABLES + 1):
        kiosk = data / f"kiosk-{table}"
        paired = Credential.load(kiosk, table) is not None
        # The URL each time: a run on another port finds the scorer there.
        links[table] = join_retrying(kiosk, table, url, None if paired else codes[table],
                                     rulesets, say, stop.wait)
        standby.start(table, links[table])
    while not stop.is_set():
        round_no = admin.current_round()
        if round_no and admin.round_start(round_no) is None:  # published by an earlier run
            _between_rounds(admin, round_no, stop, say)
        elif round_no == 0 or _round_over(admin, round_no):
            if round_no >= event.rounds:
                admin.close_event(confirm=True, by=DEMO)
                return
            round_no = admin.publish(confirm=True, by=DEMO)
            _between_rounds(admin, round_no, stop, say)
        if stop.is_set():
            return
        players = {t: threading.Thread(target=_play, args=(data, t, links[t], round_no, speed,
                                                          rulesets, stop, say), daemon=True)
                   for t, _, _ in admin.assignments(round_no)}
        for table, player in players.items():
            standby.stop(table)
            player.start()
        while players:
            time.sleep(0.5)
            for table, player in list(players.items()):
                if not player.is_alive():
                    del players[table]
                    standby.start(table, links[table])
        if stop.is_set():
            return


def _between_rounds(admin: Director, round_no: int, stop: threading.Event,
                    say: Callable[..., None]) -> None:
    """The published round's pairings fill the hall page for a while, as when players look
    for their tables; then the round starts at every table."""
    say("demo.published", round=round_no, seconds=f"{PANEL_SECONDS:g}")
    if not stop.wait(PANEL_SECONDS):
        admin.start_clock(start_in=3.0, by=DEMO, confirm=True)
        say("demo.started", round=round_no)


def _round_over(admin: Director, round_no: int) -> bool:
    states = [admin.match_state(t, round_no) for t, _, _ in admin.assignments(round_no)]
    return all(s is not None and s.phase == "over" for s in states)


def _play(data: Path, table: int, link: ScorerLink, round_no: int, speed: float,
          rulesets: Rulesets, stop: threading.Event, say: Callable[..., None]) -> None:
    def check_stop(_: object) -> None:
        if stop.is_set():
            raise Stopped

    kiosk = data / f"kiosk-{table}"
    try:
        simulate_synced(kiosk, table, rulesets, link, 1000, seed=round_no * 100 + table,
                        speed=speed, out=io.StringIO(), after_hand=check_stop).close()
    except Stopped:
        pass
    except LinkError as exc:
        say("demo.table_error", table=table, reason=exc)
