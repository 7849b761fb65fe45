"""What each screen shows, as plain data: a function of the table's view, the time and the
language. No Kivy here, and no rules: every result comes from the session's view."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..i18n import translator
from ..table.view import TableView

SEATS = ("N", "E", "S", "W")
#: Where each seat sits on the screen (the table seen from above, N at the top).
LAYOUT = {"N": "top", "E": "right", "S": "bottom", "W": "left"}
POINT_VALUES = tuple(range(0, 205, 5))
KITTY_VALUES = tuple(range(0, 85, 5))
SHAPES = ("single", "pair", "pairs2", "tractor2", "tractor3")
#: Which screen shows which phase.
SCREENS = {"setup": "setup", "ready": "ready", "bury": "clock", "play": "clock",
           "entry": "entry", "result": "result", "disputed": "result", "over": "over"}


@dataclass(frozen=True)
class SeatModel:
    seat: str
    label: str  # seat name and player
    to_move: bool
    state: str  # "idle", "moving", "warn" or "over"
    time: str  # the countdown when moving


@dataclass(frozen=True)
class ScreenModel:
    screen: str
    title: str
    status: str  # table, round, levels and the match clock, for the top bar
    message: str = ""
    seats: tuple[SeatModel, ...] = ()
    clock: str = ""  # the big countdown
    clock_state: str = "idle"
    lines: tuple[str, ...] = ()  # the screen's main text
    buttons: tuple[tuple[str, str], ...] = ()  # (action, label)
    values: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def present(view: TableView, now: float, lang: str) -> ScreenModel:
    """The screen for this moment."""
    t = translator(lang)
    screen = SCREENS[view.phase]
    title = t(f"ui.screen.{screen}")
    status = _status(view, now, t)
    message = _message(view.message, t)
    if view.phase == "setup":
        return ScreenModel("setup", t("ui.table", n=view.table), t("ui.setup.title"), message,
                           lines=(t("ui.setup.start"),),
                           buttons=tuple((f"setup:{r}", r) for r in view.choices))
    if view.phase == "ready":
        return _ready(view, title, status, message, t)
    if view.phase in ("bury", "play"):
        return _clock(view, now, title, status, message, t)
    if view.phase == "entry":
        return _entry(view, title, status, message, t, lang)
    if view.phase in ("result", "disputed"):
        return _result(view, title, status, message, t)
    return _over(view, title, status, message, t, lang)


def _status(view: TableView, now: float, t: Any) -> str:
    parts = [t("ui.table", n=view.table)]
    if view.match:
        parts.append(t("ui.round", n=view.match))
    if view.levels:
        parts.append(f"{t('team.NS')} {view.levels[0]} : {view.levels[1]} {t('team.EW')}")
    left = view.match_left(now)
    if left is not None:
        parts.append(t("ui.match_left", time=_mmss(max(0.0, left))))
    if view.paused:
        parts.append(t("ui.paused"))
    if view.link is not None:
        parts.append(_link(view.link, t))
    return "   ".join(parts)


def _link(link: Any, t: Any) -> str:
    """The scorer link, as the top bar says it; a wall clock off the scorer's is said too."""
    if link.status == "in-sync":
        text = t("ui.link.in-sync")
    elif link.status == "behind":
        text = t("ui.link.behind", n=link.behind)
    elif link.status == "refused":  # the reason as a catalog key when the link has one
        why = t(link.error_key, **link.error_params) if getattr(link, "error_key", None) \
            else link.error
        text = t("ui.link.refused", why=why)
    else:
        since = time.strftime("%H:%M", time.localtime(link.offline_since or time.time()))
        text = t("ui.link.offline", time=since)
    if link.synchronised is False:
        text += "   " + t("ui.link.clock", s=f"{link.offset:+.1f}")
    if link.problem:
        text += "   " + t("ui.link.refused", why=link.problem)
    if getattr(link, "storage", None):  # the card: low, full, or its journal damaged
        text += "   " + t(f"sync.storage-{link.storage}", seq=link.broken_at)
    return text


def _message(message: str | None, t: Any) -> str:
    if not message:
        return ""
    return t(message) if message.startswith("printer.") else message


def _seat_label(view: TableView, seat: str, t: Any) -> str:
    name = view.players.get(seat, "")
    return f"{t('ui.seat.' + seat)} {name}".strip()


def _ready(view: TableView, title: str, status: str, message: str, t: Any) -> ScreenModel:
    lines = [t("ui.hand", n=view.hand)]
    buttons: list[tuple[str, str]] = []
    if view.grab_dealer:
        lines.append(t("ui.grab"))
        buttons += [(f"dealer:{s}", t("ui.seat." + s)) for s in SEATS]
    else:
        lines.append(t("ui.dealer", seat=_seat_label(view, view.dealer or "", t)))
    if view.kind == "individual":
        if view.partner:
            lines.append(t("ui.partner", seat=_seat_label(view, view.partner, t)))
        else:
            lines.append(t("ui.partner_card"))
            buttons += [(f"card:{r}", r) for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9",
                                                    "10", "J", "Q", "K")]
    if view.dealer and view.can_redeal:
        defenders = [s for s in SEATS if (s in "NS") != (view.dealer in "NS")]
        buttons += [(f"redeal:{s}", t("ui.redeal", seat=t("ui.seat." + s)))
                    for s in defenders]
    if view.dealer and (view.kind == "team" or view.partner):
        buttons.append(("start_bury", t("ui.start_bury")))
    return ScreenModel("ready", title, status, message, lines=tuple(lines),
                       buttons=tuple(buttons))


def _clock(view: TableView, now: float, title: str, status: str, message: str,
           t: Any) -> ScreenModel:
    left = view.move_left(now) or 0.0
    state = "moving" if left > view.warn_before else ("warn" if left > 0 else "over")
    if not view.clock_running:
        state = "paused"
    seats = []
    for seat in SEATS:
        moving = view.clock_seat == seat or (view.clock_seat is None and view.phase == "play")
        seats.append(SeatModel(seat, _seat_label(view, seat, t), moving,
                               state if moving else "idle",
                               _seconds(left) if moving else ""))
    who = view.clock_seat and _seat_label(view, view.clock_seat, t)
    lines = (t("ui.bury_by", seat=who) if view.phase == "bury"
             else t("ui.to_move", seat=who) if who else t("ui.lead_anyone"),)
    buttons = [("end_play", t("ui.end_play"))] if view.phase == "play" else []
    if view.phase == "play" and view.can_fry:
        buttons += [(f"fry:{s}", t("ui.fry", seat=t("ui.seat." + s))) for s in SEATS
                    if s != view.clock_seat]
    buttons.append(("undo", t("ui.undo")))
    return ScreenModel("clock", title, status, message, tuple(seats), _seconds(left), state,
                       lines, tuple(buttons))


def _entry(view: TableView, title: str, status: str, message: str, t: Any,
           lang: str) -> ScreenModel:
    kitty = view.kitty
    lines = [t("ui.points_now", points="—" if view.points is None else view.points)]
    if kitty:
        lines.append(t("ui.kitty_now", points=kitty["points"], shape=t("ui.shape." +
                                                                     kitty["shape"])))
    names = {code: name(lang) for code, name in view.penalty_names}
    for _, penalty in view.penalties:
        lines.append(f"{t('ui.seat.' + penalty['seat'])} {names.get(penalty['code'], '')}")
    buttons = [(f"kitty_shape:{s}", t("ui.shape." + s)) for s in SHAPES]
    buttons += [(f"penalty:{code}", name) for code, name in names.items()]
    return ScreenModel("entry", title, status, message, lines=tuple(lines),
                       buttons=tuple(buttons), values=POINT_VALUES,
                       extra={"kitty_values": KITTY_VALUES,
                              "finish": ("finish_entries", t("ui.show_result"))})


def _result(view: TableView, title: str, status: str, message: str, t: Any) -> ScreenModel:
    p = view.preview or {}
    lines = []
    if "total" in p and view.kind == "team":
        lines.append(t("ui.total", total=p["total"]))
        lines.append(f"{t('result.' + p['result'])} +{p['advance']}")
        lines.append(f"{t('team.NS')} {p['levels']['NS']} : {p['levels']['EW']} "
                     f"{t('team.EW')}")
        if p.get("next_dealer"):
            lines.append(t("ui.next_dealer", seat=_seat_label(view, p["next_dealer"], t)))
        if p.get("winner"):
            lines.append(t("sheet.winner", team=t("team." + p["winner"]), by=t("by." + p["by"])))
    elif "awards" in p:
        lines.append(t("ui.total", total=p["total"]))
        lines.append("  ".join(f"{k} +{v}" for k, v in p["awards"].items()))
    if view.phase == "disputed":
        lines.append(t("ui.disputed"))
        buttons = (("referee", t("ui.referee")),)
    else:
        sides = sorted(set(view.sides.values()))
        for side in sides:
            done = side in view.confirmed
            lines.append(t("ui.confirmed" if done else "ui.confirm_please",
                           side=t("ui.side." + side)))
        buttons = tuple((f"dispute:{s}", t("ui.dispute", seat=t("ui.seat." + s)))
                        for s in SEATS)
    return ScreenModel("result", title, status, message, lines=tuple(lines), buttons=buttons)


def _over(view: TableView, title: str, status: str, message: str, t: Any,
          lang: str) -> ScreenModel:
    r = view.result or {}
    lines = []
    if r.get("winner"):
        lines.append(t("sheet.winner", team=t("team." + r["winner"]), by=t("by." + r["by"])))
        if "big_points" in r:
            lines.append(f"{t('sheet.big_points')}: {t('team.NS')} {r['big_points']['NS']}  "
                         f"{t('team.EW')} {r['big_points']['EW']}")
    elif "totals" in r:
        lines.append("  ".join(f"{k} {v}" for k, v in sorted(r["totals"].items(),
                                                              key=lambda kv: -kv[1])))
    return ScreenModel("over", title, status, message, lines=tuple(lines),
                       buttons=(("reprint", t("ui.reprint")),),
                       extra={"slip": view.slips.get(lang, "")})


def history(view: TableView, lang: str) -> tuple[str, ...]:
    """One line a hand, for the history screen."""
    t = translator(lang)
    out = []
    for h in view.history:
        if "deal" in h:
            out.append(f"{h['deal']:>2}  {h['level']:>2}  {h['dealer']}+{h['partner']}  "
                       f"{h['total']:>3}")
            continue
        total = "" if h["total"] is None else h["total"]
        advance = "" if h["advance"] is None else f"+{h['advance']}"
        out.append(f"{h['hand']:>2}  {h['dealer']}  {h['level']:>2}  {total:>3}  "
                   f"{t('slip.result.' + h['result'])} {advance}  "
                   f"{h['levels']['NS']}:{h['levels']['EW']}")
    return tuple(out)


def _seconds(left: float) -> str:
    return f"{left:.0f}" if left >= 0 else f"-{-left:.0f}"


def _mmss(seconds: float) -> str:
    return f"{int(seconds // 60):02d}:{int(seconds % 60):02d}"
