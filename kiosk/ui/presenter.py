"""What each screen shows, as plain data: a function of the table's view, the time, and the
screen's own state (overlays, a confirmation, the PIN being typed). No Kivy here, and no rules:
every result comes from the session's view."""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

from ..i18n import render, translator
from ..rules.errors import seat_words
from ..table.kinds import CLOCKED, IDLE, IN_HAND, EventKind, PauseReason, Phase
from ..table.view import TableView
from ..words.hand import fry_words, result_words, stopped_words, tie_ending
from ..words.textfmt import fit_lines, width
from . import wizard
from .control import CANDIDATES, UiState, shown_candidates
from .model import Btn, Grid, Notice, Part, Row, ScreenModel, SeatModel
from .wizard import (
    applied_text,
    chair_label,
    has,
    penalty_name,
    seat_grid,
    seat_label,
    side_terms,
    team_label,
    trump_label,
)

SEATS = ("N", "E", "S", "W")
RED_SUITS = ("♥", "♦")
#: Where each seat sits on the screen (the table seen from above, N at the top).
LAYOUT = {"N": "top", "E": "right", "S": "bottom", "W": "left"}
#: How long a notice stays (an alert stays until the next action).
NOTICE_SECONDS = 6.0
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
# The name keyboard's rows of ten, as on a phone's or a computer's keyboard (they were a–z,
# a layout nobody types on); " " is a gap, "'" pinyin's syllable mark (a gap in Latin).
KEY_ROWS = ("1234567890", "QWERTYUIOP", "ASDFGHJKL'", " ZXCVBNM  ")
FORFEIT_REASONS = ("absent", "left", "conduct", "other")
#: A history page (the screen never scrolls): at most this many hands, and this many lines
#: under the headings, a hand's notes broken as the window breaks them at HISTORY_COLUMNS (a
#: little less than it has: its text grows with the screen's short side, so these hold at every
#: size, landscape and portrait).
HISTORY_ROWS = {False: 4, True: 9}
HISTORY_LINES = {False: 9, True: 22}
HISTORY_COLUMNS = {False: 76, True: 47}
RULESETS_PER_PAGE = {False: 6, True: 10}
PENALTY_ROWS = {False: 3, True: 8}
#: The score slip on the end screen: (columns side by side, lines a column) a page under the
#: result's usual two lines; each line more above it (a forfeit's, its reason, broken as the
#: window breaks it at HISTORY_COLUMNS) takes the room of two of the slip's.
SLIP_PAGE = {False: (2, 11), True: (1, 28)}
#: The screens of the hand whose bottom bar keeps fixed slots (see `slotted`).
SLOTTED = ("ready", "fry", "clock", "end_play", "entry")
BACK_ACTIONS = ("undo", "e_back", "e_back_to_play", "redeal_back", "fry_back", "end_play_back",
                "partner_back")
FORWARD_ACTIONS = ("start_bury", "no_fry", "end_play", "end_play_by", "e_finish", "e_summary",
                   "r_save_correction")
GAP = Btn("", "")
#: Kivy breaks a line only at a plain space: the spaces inside a note are this one.
NO_BREAK_SPACE = "\u00a0"


def present(view: TableView, now: float, ui: UiState | str, portrait: bool = False
            ) -> ScreenModel:
    """The screen for this moment (`ui`: the screen's own state, or just a language)."""
    if isinstance(ui, str):
        ui = UiState(lang=ui)
    t = translator(ui.lang)
    model = _screen(view, now, ui, t, portrait)
    # a new match's setup (and its keyboard) says nothing of the match that ended (its round,
    # levels, time up): only the table, and its link to the scorer
    shown = TableView(view.table, link=view.link) if model.name in ("setup", "keyboard") \
        else view
    strip = status(shown, now, t, big=model.screen == "clock", lang=ui.lang,
                   paused=model.name != "paused")  # (the banner says it, once)
    flags = tuple(f for f, on in (("muted", view.muted), ("paused", view.paused),
                                  ("time-up", view.time_up is not None)) if on)
    nav = model.nav
    if model.name.startswith(SLOTTED):
        nav = slotted(nav, ui, t)
    elif model.name.startswith("correct."):  # a correction's steps, as the entry's
        nav = slotted(nav, ui, t, shared=False)
    elif model.name not in ("confirm", "keyboard", "history") and model.screen != "clock" and \
            not model.name.startswith(("referee", "correct")):
        # (a screen's own button for one of them, 请裁判 on a disputed hand, stands in its slot)
        own = {b.action: b for b in nav if b.action}
        shared = tuple(own.get(b.action, b) for b in _global(ui, t))
        nav = (*(b for b in nav if b not in shared), *shared)
    said = notice(view, now, t, ui.lang)
    if not said.text and model.screen == "clock":  # (its strip has no room for the link)
        said = link_notice(view.link, t)
    return ScreenModel(**{**model.__dict__, "strip": strip, "flags": flags,
                          "notice": said, "nav": nav})


def slotted(nav: tuple[Btn, ...], ui: UiState, t: Any, shared: bool = True
            ) -> tuple[Btn, ...]:
    """The bottom bar of the hand's own screens in fixed slots: going back (返回, 撤销…), a
    second action (革命…, the next page), the step forward (开始扣底, 无人炒底, 出牌结束,
    下一步…), then (`shared`) the hands so far, the referee and the language. An absent action
    leaves its slot empty, so that a referee tapping by habit never hits another button. The
    step forward's slot is wider (「下一步：核对结果」 on one line)."""
    # (without them, their slots are left empty: the others keep their places and sizes)
    slots: list[Btn] = [GAP, GAP, replace(GAP, wide=True),
                        *(_global(ui, t) if shared else (GAP, GAP, GAP))]
    for btn in nav:
        name = btn.action.partition(":")[0]
        slot = 0 if name in BACK_ACTIONS else 2 if name in FORWARD_ACTIONS else \
            5 if name == "e_quit" else 1  # (a correction's way out: the last slot, its own)
        slots[slot] = replace(btn, wide=slot == 2)
    return tuple(slots)


def _global(ui: UiState, t: Any) -> tuple[Btn, ...]:
    """The buttons every screen has: the hands so far, the referee, the language."""
    return (Btn("history", t("ui.history"), "quiet"), Btn("referee", t("ui.referee"), "quiet"),
            Btn("language", t("ui.next_language"), "quiet"))


def _screen(view: TableView, now: float, ui: UiState, t: Any, portrait: bool) -> ScreenModel:
    lang = ui.lang
    if ui.dialog is not None:
        d = ui.dialog
        lines = (_text(line, view, t, lang, now) for line in d.lines)
        return ScreenModel("step", "confirm", _text(d.title, view, t, lang, now),
                           lines=tuple(line for line in lines if line),
                           nav=(Btn("cancel", t("ui.cancel"), "quiet"),
                                Btn("ok", t(d.ok), d.style)))
    if ui.end_step == "lead_by" and view.phase == Phase.PLAY:
        return _lead_by(view, now, t)
    if ui.overlay == "keyboard":
        return _keyboard(view, ui, t)
    if ui.overlay == "referee":
        return _referee(view, now, ui, t, lang, portrait)
    if ui.overlay == "correct" and ui.correct is not None:
        return _correction(view, ui, t, lang, portrait)
    if ui.overlay == "history":
        return _history(view, ui, t, lang, portrait)
    time_up = view.time_up is not None and (ui.time_up_seen or ("", 0))[0] != view.match
    if time_up and view.pause_reason in (None, PauseReason.HOLD):  # (its own hold: `frame`)
        return _time_up_banner(view, t)
    if view.paused and view.phase not in IDLE:  # between hands too: a restart
        return _paused(view, t)  # there pauses the match clock, and only 继续 resumes it
    if time_up:
        return _time_up_banner(view, t)
    if view.phase == Phase.SETUP or (view.phase == Phase.OVER and ui.new_match):
        return _setup(view, ui, t, lang, portrait)
    if view.phase == Phase.READY:
        return _ready(view, ui, t)
    if view.phase == Phase.FRY:
        return _fry(view, ui, t)
    if view.phase in CLOCKED:
        return _clock(view, now, t)
    if view.phase == Phase.ENTRY:
        step = wizard.screen(wizard.live_values(view), view, t, lang, view.dealer,
                             costs=view.penalty_costs)
        rows, nav = _paged_rows(step.rows, step.nav, ui, t, portrait)
        return ScreenModel("step", step.name, step.title, lines=step.lines, rows=rows,
                           grids=step.grids, nav=nav)
    if view.phase in (Phase.RESULT, Phase.DISPUTED):
        return _result(view, t, lang)
    return _over(view, ui, t, portrait)


def _paged_rows(rows: tuple[Row, ...], nav: tuple[Btn, ...], ui: UiState, t: Any,
                portrait: bool) -> tuple[tuple[Row, ...], tuple[Btn, ...]]:
    """The penalties of a hand a page at a time, so the screen never scrolls."""
    per_page = PENALTY_ROWS[portrait]
    if len(rows) <= per_page:
        return rows, nav
    pages = -(-len(rows) // per_page)
    page = min(ui.page, pages - 1)
    more = pager(page, pages, t)
    return rows[page * per_page:(page + 1) * per_page], (*nav, more)


def pager(page: int, pages: int, t: Any) -> Btn:
    """The page shown, of how many (第1/2页 ▶); a tap shows the next, and on the last page
    the first, which its arrow says (第2/2页 ▶ read as a page still to come)."""
    last = page + 1 == pages
    return Btn(f"page:{(page + 1) % pages}",
               t("ui.page_first" if last else "ui.page_more", n=page + 1, of=pages), "quiet")


# -- the status strip and the notice area -------------------------------------------------


def _paired(view: TableView) -> bool:
    return view.link is not None and not getattr(view.link, "pairing", False)


def _which_match(view: TableView, t: Any) -> str:
    """第3轮比赛: the hall's round of an assigned match (its journal name may be 3.2, a
    practice having taken 3); 练习赛 for one a paired table set up itself."""
    if not view.match:
        return ""
    if view.round:
        return t("ui.round", n=view.round)
    return t("ui.practice") if _paired(view) else t("ui.round", n=view.match)


def status(view: TableView, now: float, t: Any, big: bool = False, lang: str = "zh-Hans",
           paused: bool = True) -> tuple[Part, ...]:
    """The parts of the status strip: where, who deals, the level played, trump, both sides'
    levels, the match time and (`paused`) 已暂停. On the clock (`big`) the table and round give
    way."""
    parts = []
    if not big:
        parts.append(Part(t("ui.table", n=view.table), _which_match(view, t)))
    if view.dealer and view.phase not in IDLE:
        term = view.terms.get("dealer")
        caption = term(lang) if term else t("ui.cap.dealer")
        parts.append(Part(caption[:1].upper() + caption[1:], t("seat." + view.dealer)))
        if view.level:
            parts.append(Part(t("ui.cap.level"), view.level))
        if view.kind == "team":
            parts.append(Part(t("ui.cap.trump"), trump_label(view.trump, t),
                              "red" if view.trump in RED_SUITS else ""))
    if view.levels:  # which side is which must read from across the table (by the sides'
        # names where the teams' do not fit: the seats and the countdown keep their room)
        parts.append(Part(f"{team_label(view, 'NS', t)} : {team_label(view, 'EW', t)}",
                          f"{view.levels[0]} : {view.levels[1]}", strong=True,
                          short=f"{t('team.NS')} : {t('team.EW')}"))
    left = view.match_left(now)
    if left is not None and (view.match_clock_started or view.phase != "over"):  # (a match
        # ended before its clock started, by a forfeit, has no match time to say)
        if view.time_up:  # time up, said alone: the minutes left no longer count
            parts.append(Part(t("ui.cap.match_time"), t("ui.cap.time_up"), "alert"))
        else:
            caption = ("ui.cap.match_time" if view.match_clock_started
                       else "ui.cap.match_time_waiting")
            parts.append(Part(t(caption), mmss(max(0.0, left)),
                              "" if view.match_running else "dim"))
    if paused and view.paused and view.pause_reason != PauseReason.HOLD:  # (a question holds
        parts.append(Part("", t("ui.paused.short"), "alert"))  # the move clock: nothing is
        # paused)
    if view.link is not None and not big:
        parts.append(Part(t("ui.cap.link"), _link(view.link, t),
                          "alert" if _link_lost(view.link) else ""))
    return tuple(parts)


def _link_lost(link: Any) -> bool:
    """The scorer cannot be reached, or turns the table's records away (not while a first
    boot's code waits for it: the table plays on its own meanwhile)."""
    return link.status in ("offline", "refused") and not getattr(link, "pairing", False)


def link_notice(link: Any, t: Any) -> Notice:
    """The clock's notice band while the link is lost and nothing else is said there: the
    clock's strip is all seats and time, and a referee's review found that a table could
    play a whole hand cut off from the hall with nothing on its screen to say so."""
    if link is None or not _link_lost(link):
        return Notice()
    if link.status == "refused":
        return Notice(t("ui.link.refused_clock"), "link")
    since = time.strftime("%H:%M", time.localtime(link.offline_since or time.time()))
    return Notice(t("ui.link.offline_clock", time=since), "link")


def _link(link: Any, t: Any) -> str:
    """The scorer link, as the strip says it; a wall clock off the scorer's is said too."""
    if getattr(link, "pairing", False):  # a first boot's code, tried until it answers
        # (turned away: the setup says why, where there is room for it)
        text = t("ui.link.pairing_refused" if link.status == "refused" else "ui.link.pairing")
    elif link.status == "in-sync":
        text = t("ui.link.in-sync")
    elif link.status == "behind":
        text = t("ui.link.behind", n=link.behind)
    elif link.status == "refused":  # the reason in words when the link has them
        text = t("ui.link.refused_why", why=t(link.error_key, **link.error_params)) \
            if getattr(link, "error_key", None) else t("ui.link.refused")
    else:
        since = time.strftime("%H:%M", time.localtime(link.offline_since or time.time()))
        text = t("ui.link.offline", time=since)
    if link.synchronised is False:
        text += "  " + t("ui.link.clock", s=f"{link.offset:+.1f}")
    if link.problem:
        text += "  " + t("ui.link.refused")
    if getattr(link, "storage", None):  # the card: low, full, or its journal damaged
        text += "  " + t(f"sync.storage-{link.storage}", seq=link.broken_at)
    return text


def notice(view: TableView, now: float, t: Any, lang: str) -> Notice:
    """The notice area: the last refusal or silent event, for a few seconds."""
    n = view.notice
    if n is None or (n.level != "alert" and now - n.at > max(n.lasts, NOTICE_SECONDS)):
        return Notice()
    return Notice(notice_text(n.key, n.params, view, t, lang), n.level)


def notice_text(key: str, params: dict[str, Any], view: TableView, t: Any,
                lang: str) -> str:
    """A notice's words: its catalog key, with its parameters (seats, a field, a ruleset's
    words…) in the reader's language; a key the catalogs do not have gets the generic words."""
    if not has(t, key):
        return t("error.unexpected")
    shown = dict(params)
    if key == "table.undone":
        shown["what"] = undo_words(params.get("kind", ""), params.get("seat"), t)
    if shown.get("seat") in SEATS:
        shown["seat"] = seat_words(shown["seat"])
    if key == "table.overrun":
        if params.get("phase") == "bury":  # (a bury's overrun is not a move's: 扣底超时)
            key = "table.overrun_bury"
        cost = view.overrun.get(str(params.get("phase")), {})
        effect = cost.get("effect", "record")
        shown["cost"] = t("ui.overrun_cost." + ("warnings_first" if cost.get("warnings_first")
                                               else effect), n=cost.get("warnings_first", 0),
                          points=cost.get("points", 0), min=cost.get("min", 0))
    try:
        return render(key, shown, lang)
    except (KeyError, IndexError, ValueError):
        return t("error.unexpected")


# -- before the hand ----------------------------------------------------------------------


def _setup(view: TableView, ui: UiState, t: Any, lang: str, portrait: bool) -> ScreenModel:
    names = ui.names
    fields = (("NS", t("ui.name.NS")), ("EW", t("ui.name.EW")),
              *((s, t("seat." + s)) for s in SEATS))
    # (a first boot's code still waiting for the scorer: the table plays on its own meanwhile)
    paired = _paired(view)
    # a paired table's names come from the scorer's roster: none are asked here
    name_buttons = () if paired else tuple(
        Btn(f"name:{key}", t("ui.setup.field", field=label, name=names.get(key) or "—"))
        for key, label in fields)
    per_page = RULESETS_PER_PAGE[portrait]
    choices = view.choices
    if paired:  # only the event's ruleset, once the scorer has said which
        event_ruleset = getattr(view.link, "ruleset", None)
        choices = tuple(c for c in choices if c[0] == event_ruleset)
    pages = max(1, -(-len(choices) // per_page))
    page = min(ui.page, pages - 1)
    shown = choices[page * per_page:(page + 1) * per_page]
    # (a paired table's own match is a practice, whatever the round: its button says so)
    rulesets = tuple(Btn(f"setup:{rid}", t("ui.setup.practice", ruleset=name(lang) if name
                                               else rid) if paired else
                         name(lang) if name else rid, "primary") for rid, name in shown)
    nav: list[Btn | None] = []
    if pages > 1:
        nav += [Btn(f"page:{page - 1}", t("ui.page_back"), "quiet") if page else GAP,
                pager(page, pages, t)]  # (a gap on the first page: the pager keeps its place)
    if view.phase == Phase.OVER:
        nav.append(Btn("cancel_new", t("ui.cancel"), "quiet"))
    lines: tuple[str, ...] = (t("ui.setup.paired" if paired else "ui.setup.how"),)
    link = view.link
    if link is not None and getattr(link, "pairing", False) and link.status == "refused" and \
            getattr(link, "error_key", None):  # the code turned away: why, for the technician
        lines += (t("ui.setup.pairing_refused", why=t(link.error_key, **link.error_params)),)
    grids = (Grid(name_buttons, 3, 2),) if name_buttons else ()
    return ScreenModel("step", "setup", t("ui.setup.title", n=view.table), lines=lines,
                       grids=(*grids, Grid(rulesets, 2, 1)) if rulesets else grids,
                       nav=tuple(b for b in nav if b), extra={"big_title": True})


def _keyboard(view: TableView, ui: UiState, t: Any) -> ScreenModel:
    """The name keyboard: in pinyin, the letters typed wait over a row of the words and
    characters they may spell; in Latin letters, each key types what it shows."""
    key = ui.keyboard_field or "NS"
    label = t("ui.name." + key) if key in ("NS", "EW") else \
        t("ui.name.seat", seat=t("seat." + key))
    text = ui.names.get(key, "")
    chinese = ui.keyboard_mode == "pinyin"
    upper = ui.keyboard_upper and not chinese
    keys = tuple(Btn("", "") if c == " " or (c == "'" and not chinese) else
                 Btn(f"key:{c}", c if upper else c.lower()) for c in "".join(KEY_ROWS))
    grids = [Grid(keys, 10, 10, keyboard=True)]
    lines: tuple[str, ...] = (text + "▏",)
    if chinese:
        shown, more = shown_candidates(ui) if ui.pinyin else ((), False)
        # the slots keep their places (an empty one does nothing): the keys never move
        picks = tuple(Btn(f"pick:{i}", shown[i].text if i < len(shown) else "",
                          "primary" if i < len(shown) else "quiet")
                      for i in range(CANDIDATES))
        grids.insert(0, Grid((*picks, Btn("more", t("ui.key.more") if more else "",
                                          "quiet")), CANDIDATES + 1, 5, 1.2))
        # what to do, or the letters typed, above the name, in the body's size: the keys
        # keep their height at 800×480 (both were as large as the name)
        lines = (t("ui.key.pinyin_typed", letters=ui.pinyin) if ui.pinyin
                 else t("ui.key.pinyin_how"), *lines)
    nav = (Btn("key_mode", t("ui.key.to_latin" if chinese else "ui.key.to_pinyin"), "quiet"),
           Btn("key_case", t("ui.key.case"), "selected" if ui.keyboard_upper else "quiet")
           if not chinese else Btn("", ""),
           Btn("key_space", t("ui.key.pick_first" if chinese and ui.pinyin else
                              "ui.key.space"), "quiet"),
           Btn("key_back", t("ui.key.back"), "quiet"), Btn("key_clear", t("ui.key.clear"),
                                                          "quiet"),
           Btn("key_done", t("ui.key.done"), "primary"))
    return ScreenModel("step", "keyboard", t("ui.q.name", field=label), lines=lines,
                       grids=tuple(grids), nav=nav, extra={"input": 1})


def _ready(view: TableView, ui: UiState, t: Any) -> ScreenModel:
    if view.waiting_for_hall:  # paired: the first hand waits for the head referee's start
        at = time.strftime("%H:%M", time.localtime(view.hall_start or 0))
        return ScreenModel("step", "ready.wait", t("ui.wait.title"),
                           lines=(t("ui.wait.at", time=at), t("ui.wait.how")))
    hand = t("ui.hand", n=view.hand)
    if view.grab_dealer:
        undo = (Btn("undo", undo_label(view, t), "quiet"),) if view.undo else ()
        return ScreenModel("step", "ready.dealer", t("ui.q.dealer", hand=hand),
                           grids=(seat_grid("dealer", SEATS, view, t),), nav=undo)
    dealer = seat_label(view, view.dealer or "", t)
    if view.kind == "individual" and (not view.partner or ui.ready_step == "partner"):
        again = (Btn("partner_back", t("ui.back"), "quiet"),) if view.partner else ()
        cards = tuple(Btn(f"card:{r}", r, "selected" if r == view.partner_card else "normal")
                      for r in RANKS)
        return ScreenModel("step", "ready.partner", t("ui.q.partner_card", dealer=dealer),
                           lines=(t("ui.partner_joker"),), grids=(Grid(cards, 7, 5),),
                           nav=again)
    if ui.ready_step == "redeal" and view.redeal_callers:
        condition = (render(view.redeal_condition.key, view.redeal_condition.params, ui.lang),
                     ) if view.redeal_condition is not None else ()
        return ScreenModel("step", "ready.redeal", t("ui.q.redeal"), lines=condition,
                           grids=(seat_grid("redeal", view.redeal_callers, view, t),),
                           nav=(Btn("redeal_back", t("ui.back"), "quiet"),))
    lines = []
    if view.partner:
        lines.append(t("ui.partner", seat=seat_label(view, view.partner, t)))
        # the partner takes the chair opposite the dealer: who moves, said before the bury
        # (the clock's 「北 王（坐西）」 came only once the bury had begun)
        moving = sorted(view.seated)
        lines.append(t("ui.partner_swap", a=seat_label(view, moving[0], t),
                       b=seat_label(view, moving[1], t)) if len(moving) == 2
                     else t("ui.partner_stays"))
    grids = []
    if view.kind == "team":
        lines.append(t("ui.q.trump_then_bury"))
        grids.append(Grid(tuple(Btn(f"trump:{s}", trump_label(s, t),
                                    "selected" if view.trump == s else "normal")
                                for s in view.trumps), 5, 3, 2.0))
    nav = []
    if view.undo:
        nav.append(Btn("undo", undo_label(view, t), "quiet"))
    if view.redeal_callers:
        nav.append(Btn("redeal", t("ui.redeal"), "quiet"))
    if view.partner:  # a card tapped wrong: chosen again until the bury begins
        nav.append(Btn("partner_again", t("ui.partner_again"), "quiet"))
    # the way on once it can be taken: before the trump, a tap only says to choose it first
    ready = view.kind != "team" or view.trump is not None
    nav.append(Btn("start_bury", t("ui.start_bury"), "primary" if ready else "quiet"))
    title = t("ui.dealer_level", hand=hand, dealer=dealer, level=view.level or "")
    return ScreenModel("step", "ready", title, lines=tuple(lines),
                       grids=tuple(grids), nav=tuple(nav))


# -- frying -------------------------------------------------------------------------------


def _fry(view: TableView, ui: UiState, t: Any) -> ScreenModel:
    """After a bury, where the ruleset allows frying: who fries, or nobody (no clock runs
    meanwhile). A frier then sets the new trump, and its re-bury's clock starts."""
    seconds_ = int(view.rebury_seconds)
    if ui.fry_seat in view.fry_seats:
        frier = seat_label(view, ui.fry_seat, t)
        keys = tuple(Btn(f"fry_trump:{s}", trump_label(s, t)) for s in view.trumps)
        return ScreenModel("step", "fry.trump", t("ui.fry.q_trump", seat=frier),
                           lines=(t("ui.fry.then", seat=frier, n=seconds_),),
                           grids=(Grid(keys, 5, 3, 2.0),),
                           nav=(Btn("fry_back", t("ui.back"), "quiet"),))
    last = seat_label(view, view.last_burier or "", t)
    dealer = seat_label(view, view.dealer or "", t)
    undo = t("ui.fry.undo_bury") if view.undo and view.undo[0] == EventKind.PRESS else \
        undo_label(view, t)
    nav = [Btn("undo", undo, "quiet")] if undo else []
    nav.append(Btn("no_fry", t("ui.fry.none"), "primary"))
    return ScreenModel("step", "fry", t("ui.fry.q", seat=last),
                       lines=(t("ui.fry.how", n=seconds_), t("ui.fry.none_then", seat=dealer)),
                       grids=(seat_grid("fry", view.fry_seats, view, t),), nav=tuple(nav))


# -- the clock ------------------------------------------------------------------------------


def _over_by(view: TableView, now: float) -> float:
    """Seconds the running move is over its time (0: within it)."""
    left = view.move_left(now)
    return 0.0 if left is None or view.all_played else max(0.0, -left)


def end_play_overrun(view: TableView, now: float, t: Any) -> str:
    """What ending the play will charge: the seat to move over its time; a lead over its time,
    whose seat the referee is asked next. "" when no move is over."""
    over = _over_by(view, now)
    if not over:
        return ""
    if view.clock_seat is None:
        return t("ui.confirm.end_play_lead_over", trick=view.trick, seconds=f"{over:.1f}")
    return t("ui.confirm.end_play_overrun", seat=chair_label(view, view.clock_seat, t),
             seconds=f"{over:.1f}")


def _lead_by(view: TableView, now: float, t: Any) -> ScreenModel:
    """The end of play with a lead over its time: whose lead it was, or nobody charged."""
    return ScreenModel("step", "end_play.leader",
                       t("ui.q.end_play_leader", trick=view.trick,
                         seconds=f"{_over_by(view, now):.1f}"),
                       grids=(seat_grid("end_play_by", SEATS, view, t),),
                       nav=(Btn("end_play_back", t("ui.back"), "quiet"),
                            Btn("end_play_by:", t("ui.end_play.nobody"), "primary")))


def _clock(view: TableView, now: float, t: Any) -> ScreenModel:
    left = view.move_left(now) or 0.0
    gather = view.clock_running and left > view.clock_limit
    state = ("paused" if not view.clock_running else "gather" if gather else
             "moving" if left > view.warn_before else "warn" if left > 0 else "over")
    if view.all_played:
        state = "idle"
    shown = "" if view.all_played else seconds(min(left, view.clock_limit))
    seats = []
    for seat in SEATS:
        moving = not view.all_played and (view.clock_seat == seat or (
            view.clock_seat is None and view.phase == Phase.PLAY))
        seats.append(SeatModel(seat, chair_label(view, seat, t), moving,
                               state if moving else "idle", shown if moving else "",
                               f"press:{seat}" if moving and view.clock_running else ""))
    title = to_move(view, t)
    caption = t("ui.trick_of", n=view.trick, of=view.tricks) if view.phase == Phase.PLAY else ""
    buttons = []
    if view.phase == Phase.PLAY:
        buttons.append(Btn("end_play", t("ui.enter_hand") if view.all_played else
                           t("ui.end_play"), "primary" if view.all_played else "normal"))
    if view.undo:
        buttons.append(Btn("undo", undo_label(view, t), "quiet"))
    name = "clock.done" if view.all_played else "clock." + view.phase
    return ScreenModel("clock", name, title, seats=tuple(seats), clock=shown,
                       clock_state=state, clock_caption=caption, nav=tuple(buttons),
                       extra={"hold_hint": t("ui.hold_to_pause")})


def undo_label(view: TableView, t: Any) -> str:
    """What 撤销 takes back, said on its button: a press with its seat (「撤销北的按键」: on the
    clock a bare 撤销 left the referee to guess), else the step's kind ("": nothing to undo)."""
    return "" if view.undo is None else undo_words(*view.undo, t)


def undo_words(kind: str, seat: str | None, t: Any) -> str:
    """「撤销北的按键」, 「撤销抢庄」: an undo of `kind` (by `seat`, for a press)."""
    if kind == EventKind.PRESS and seat in SEATS:
        return t("ui.undo_press", seat=t("seat." + seat))
    return t("ui.undo_what." + kind)


def seconds(left: float) -> str:
    """Whole seconds rounded up: "1" while any time is left, "0" at the limit, "−2" over."""
    if left > 0:
        return str(math.ceil(left - 1e-9))
    over = math.ceil(-left - 1e-9)
    return f"−{over}" if over else "0"


def mmss(left: float) -> str:
    whole = math.ceil(left - 1e-9)
    return f"{whole // 60:02d}:{whole % 60:02d}"


# -- banners ------------------------------------------------------------------------------


def to_move(view: TableView, t: Any) -> str:
    """Who is to move on the clock: 「北 出牌」, 「东 扣底」, or that every trick is played."""
    who = view.clock_seat and chair_label(view, view.clock_seat, t)
    if view.all_played:
        return str(t("ui.all_played", tricks=view.tricks))
    if view.phase == Phase.BURY:
        return str(t("ui.bury_by", seat=who))
    return str(t("ui.to_move", seat=who) if who else t("ui.lead_anyone"))


def where_the_hand_is(view: TableView, t: Any) -> str:
    """「第7副 · 第 3/25 轮 · 北 出牌」: what the clock screen says, which a pause covers (after
    a restart the banner said nothing of where the table was: a referee's review)."""
    if view.phase not in (Phase.BURY, Phase.PLAY):
        return ""
    trick = () if view.phase == Phase.BURY or view.all_played else (
        t("ui.trick_of", n=view.trick, of=view.tricks),)
    return " · ".join((t("ui.hand", n=view.hand), *trick, to_move(view, t)))


def _paused(view: TableView, t: Any) -> ScreenModel:
    reason = view.pause_reason or PauseReason.REFEREE
    key = reason if reason in set(PauseReason) else PauseReason.REFEREE
    # only the clocks that were running are said to stop: no move clock runs in the entry,
    # nor after the last trick; no match clock before it starts or after time up
    move = view.clock_kind is not None and not view.all_played
    timed = view.match_clock_started and view.match_limit is not None and not view.time_up
    match = timed and not view.match_running  # (a paired match's runs on after a restart)
    stopped = {(True, True): "ui.paused.stopped", (True, False): "ui.paused.stopped_move",
               (False, True): "ui.paused.stopped_match"}.get((move, match))
    where = where_the_hand_is(view, t)
    lines: tuple[str, ...] = ((where,) if where else ()) + ((t(stopped),) if stopped else ())
    if timed and view.match_running:
        lines += (t("ui.paused.match_runs"),)
    # the hall's pause ends with the hall's resume (the referee's menu can still resume it)
    nav = () if key == PauseReason.HALL else (Btn("resume", t("ui.paused.resume"), "primary"),)
    if key == PauseReason.REFEREE_KEY:
        lines += (t("ui.paused.key"),)
    if key == PauseReason.HALL:
        lines += (t("ui.paused.hall"),)
    # 暂停 once, in the banner; the title says who paused
    return ScreenModel("banner", "paused", t("ui.paused.why." + key.replace(" ", "_")),
                       big=t("ui.paused.big"), tone="paused", lines=lines, nav=nav)


def _time_up_banner(view: TableView, t: Any) -> ScreenModel:
    # 时间到 once, in the banner; the title says who called it (as the pause's says who paused)
    return ScreenModel("banner", "time_up", time_up_by(view, t), big=t("ui.time_up.big"),
                       tone="alert", lines=(time_up_now(view, t),),
                       nav=(Btn("time_up_ok", t("ui.time_up.ok"), "primary"),))


def time_up_by(view: TableView, t: Any) -> str:
    """Who called time: the head referee for the hall, the table's referee, or the clock."""
    by = (view.time_up or {}).get("by")
    return t("ui.time_up.by." + (by if by in ("scorer", "referee") else "system"))


def time_up_now(view: TableView, t: Any) -> str:
    """What happens now that time is up, as this ruleset and this moment decide."""
    if view.phase == Phase.OVER and view.result and view.result.get("winner"):
        said = t("ui.time_up.over" + tie_ending(view.result),
                 team=team_label(view, view.result["winner"], t), level=_level(view))
        dropped = view.dropped_at_time_up
        return said + (t("ui.time_up.dropped", n=dropped) if dropped else "")
    if (view.time_up or {}).get("ends_round"):  # an individual round: on the deals played
        if view.phase == Phase.OVER:
            return t("ui.time_up.round_over", n=len(view.history))
        return t("ui.time_up.finish_deal" if view.phase in IN_HAND else "ui.time_up.after_deal",
                 n=view.hand)
    if view.needs_ruling:
        return t("ui.time_up.referee")
    if view.phase in IN_HAND:
        return t("ui.time_up.finish_hand")
    return t("ui.time_up.after_hand", n=view.hand)


def _level(view: TableView) -> str:
    """The level both teams are at, where a time up found them equal."""
    return (view.levels or ("",))[0]


def time_up_question(view: TableView, t: Any) -> str:
    """What time up called now decides, said before the irreversible tap: 东西 8 : 2，东西获胜，
    比赛结束 (from the session's preview: the rules core decides, nothing here)."""
    preview = view.time_up_preview or {}
    levels = view.levels or ("", "")
    ns, ew = team_label(view, "NS", t), team_label(view, "EW", t)
    if preview.get("winner"):  # (levels equal: what broke the tie, 先打到7)
        said = t("ui.confirm.time_up_wins" + tie_ending(preview), ns=ns, ew=ew, a=levels[0],
                 b=levels[1], team=team_label(view, preview["winner"], t))
        return said + (t("ui.confirm.time_up_drops", n=preview["drops"])
                       if preview.get("drops") else "")
    if preview.get("finish_hand"):
        return t("ui.confirm.time_up_finish", ns=ns, ew=ew, a=levels[0], b=levels[1])
    if preview.get("after_hand"):
        return t("ui.confirm.time_up_after", n=view.hand)
    if preview.get("ends_round") == "after_deal":
        return t("ui.confirm.time_up_ends_round", n=view.hand)
    if preview.get("ends_round"):  # (a deal whose card is turned is not played: said so)
        return t("ui.confirm.time_up_ends_round_now", n=len(view.history))
    if view.time_up_rule != "none":  # a rule, but no hand played to decide by
        return t("ui.confirm.time_up_no_hand")
    return t("ui.confirm.time_up.none")


# -- after the hand -----------------------------------------------------------------------


def breakdown(view: TableView, p: dict[str, Any], t: Any, lang: str) -> tuple[str, ...]:
    """How the total came about, for both sides to check: 得分 85 + 底牌 15×4 + 罚分 10 = 155."""
    lines = []
    total = p.get("total")
    penalties = p.get("penalties", ())
    fixed = next((x for x in penalties if x.get("effect") == "fix-total"), None)
    if total is None:
        lines.append(t("ui.sum.no_total"))
    elif fixed is not None:
        lines.append(t("ui.sum.fixed", total=total, name=penalty_name(view, fixed, lang)))
    else:
        points = view.points if view.points is not None else 0
        parts = [t("ui.sum.points", n=points)]
        kitty = view.kitty
        if kitty:
            parts.append(t("ui.sum.kitty", n=kitty["points"], times=_kitty_times(view, kitty)))
        fine = sum(int(x.get("points") or 0) for x in penalties)
        if any(x.get("points") for x in penalties):  # (those that cancel out too: + 罚分 0)
            parts.append(t("ui.sum.fine_add" if fine >= 0 else "ui.sum.fine_sub", n=abs(fine)))
        # (the points alone are their own total: 「得分 40」, not 「得分 40 = 40」)
        lines.append(" ".join(parts) + (f" = {total}" if len(parts) > 1 or total != points
                                         else ""))
    return (*lines, *notes_lines(
        wizard.counted_texts(view.penalties, view.penalty_costs, view, t, lang), lang))


def notes_lines(notes: tuple[str, ...], lang: str) -> tuple[str, ...]:
    """A hand's penalties under its result: more than two as one text, so the screen has room,
    that wraps between notes only, never between a seat and its offence (「西」/「跟错牌：…」)."""
    if len(notes) <= 2:
        return notes
    return (("; " if lang == "en" else "； ").join(n.replace(" ", NO_BREAK_SPACE) for n in notes),)


def outcome_lines(view: TableView, p: dict[str, Any], t: Any, lang: str) -> list[str]:
    """What a team hand's result (`p`, a preview) gives: the ruleset's words for it with the
    levels after it, then who deals next, or who won the match."""
    said = result_words(p, view, lang)  # the ruleset's words, as on the sheet and slip
    if p["result"] == "match-loss" and p.get("winner"):  # who lost (「判负：南北…」 misread)
        said = t("ui.outcome.lost", team=team_label(view, "EW" if p["winner"] == "NS"
                                                    else "NS", t))
    outcome = "ui.outcome." + ("only" if p["result"] not in ("hold", "take-over") else
                               "straight" if p.get("straight_to") else
                               "up" if p.get("advance") else "none")
    # (each level said with its team's 打: 「厦门1 7 : 4 海沧」 read as 厦门17)
    lines = [t(outcome, result=said, n=p.get("advance") or 0, level=p.get("straight_to"),
               levels=t("ui.levels_of", ns=team_label(view, "NS", t), a=p["levels"]["NS"],
                        ew=team_label(view, "EW", t), b=p["levels"]["EW"]))]
    if p.get("stopped_at"):  # (fewer levels than the players count from the total)
        lines.append(stopped_words(p, lang))
    if p.get("winner"):  # the match is over: no hand is dealt next
        lines.append(t("ui.match_won", team=team_label(view, p["winner"], t)))
    elif p.get("next_dealer"):
        lines.append(t("ui.next_dealer", seat=seat_label(view, p["next_dealer"], t)))
    return lines


def _result(view: TableView, t: Any, lang: str) -> ScreenModel:
    p = view.preview or {}
    lines = list(breakdown(view, p, t, lang)) if p else []
    if "result" in p and view.kind == "team":
        lines += outcome_lines(view, p, t, lang)
    elif "awards" in p:
        lines.append("  ".join(f"{seat_label(view, k, t) or k} {v:+d}"
                               for k, v in p["awards"].items()))
    if view.phase == Phase.DISPUTED:
        lines.append(t("ui.disputed", side=_side(view, view.disputed_by or "", t, lang)))
        if view.match_running:
            lines.append(t("ui.disputed_clock"))
        # (the result's own three buttons' slots left empty: 记录, 请裁判 where 裁判 is, the
        # language, each where the referee's hand expects it)
        return ScreenModel("step", "disputed", t("ui.screen.result"), lines=tuple(lines),
                           nav=(GAP, GAP, GAP, Btn("referee", t("ui.call_referee"), "primary")))
    order = ("NS", "EW", "dealer", "defenders")
    sides = sorted(set(view.sides.values()), key=order.index)
    named = side_terms(view, t, lang, view.dealer)  # (shuangsheng: who is on each side)
    for side in sides:
        done = side in view.confirmed
        who = named[f"{side}_seats"] if side in ("dealer", "defenders") else \
            _side(view, side, t, lang)
        lines.append(t("ui.confirmed" if done else "ui.confirm_please", side=who))
    nav = (Btn("reopen", t("ui.reopen"), "quiet"),
           *(Btn(f"dispute:{side}", t("ui.dispute", side=_side(view, side, t, lang)), "danger")
             for side in sides))
    return ScreenModel("step", "result", t("ui.screen.result"), lines=tuple(lines), nav=nav)


def _side(view: TableView, side: str, t: Any, lang: str) -> str:
    if side in ("NS", "EW"):
        return team_label(view, side, t)
    terms = side_terms(view, t, lang, None)
    return terms["dealer_side"] if side == "dealer" else terms["defenders"]


def _over(view: TableView, ui: UiState, t: Any, portrait: bool) -> ScreenModel:
    r = view.result or {}
    lines = []
    if r.get("winner"):
        loser = "EW" if r["winner"] == "NS" else "NS"
        if view.end:
            kind = view.end.get("kind", "forfeit")
            lines.append(t("ui.over.lost_by." + ("disqualification" if kind ==
                                                 "disqualification" else "forfeit"),
                           team=team_label(view, loser, t)))
            if view.end.get("reason"):
                lines.append(t("ui.over.reason", reason=view.end["reason"]))
        winner = team_label(view, r["winner"], t)
        lines.append(t("ui.over.winner_plain", team=winner) if view.end else  # (said above)
                     t("ui.over.winner", team=winner,
                       by=t("by." + r["by"] + tie_ending(r), level=_level(view))))
        if "big_points" in r:
            lines.append(t("ui.over.big_points", ns=team_label(view, "NS", t),
                           ew=team_label(view, "EW", t), a=r["big_points"]["NS"],
                           b=r["big_points"]["EW"]))
    elif "totals" in r:
        lines.append("  ".join(f"{seat_label(view, k, t) or k} {v}" for k, v in
                               sorted(r["totals"].items(), key=lambda kv: -kv[1])))
    nav = [Btn("reprint", t("ui.reprint"), "quiet")]
    if view.standalone:
        nav.append(Btn("new_match", t("ui.new_match"), "primary"))
    # the slip as printed, a page at a time in columns side by side: nothing scrolls
    columns, rows = SLIP_PAGE[portrait]
    above = sum(fit_lines(line, HISTORY_COLUMNS[portrait]).count("\n") + 1 for line in lines)
    rows -= 2 * max(0, above - 2)
    slip = slip_columns(view.slips.get(ui.lang, "").split("\n"), rows)
    pages = max(1, -(-len(slip) // columns))
    page = min(ui.page, pages - 1)
    # the pager's slot kept on a one-page slip: 新比赛, 记录 and 裁判 stay where they are
    nav.insert(1, pager(page, pages, t) if pages > 1 else GAP)
    shown = slip[page * columns:(page + 1) * columns]
    split = tuple("\n".join(column) for column in shown + [[]] * (columns - len(shown)))
    return ScreenModel("step", "over", t("ui.screen.over"), lines=tuple(lines), nav=tuple(nav),
                       mono="\n".join(split).strip("\n"), extra={"slip_columns": split})


SIGN_HERE = "____"  # the end of a line to sign on the slip (`hw.slip`)


def slip_columns(slip: list[str], rows: int) -> list[list[str]]:
    """The slip's lines in columns of at most `rows`, filled from the left, each column
    opening where a reader can start: a hand's notes (its indented lines) in the column of its
    row (a page began with 「北 暴露张：罚10分」 whose hand was on the page before), a rule with
    the two lines under it (the hands' heads and the first hand), the lines to sign together
    (裁判签名 had a page to itself), unless a group is longer than a column, and without the
    room to sign between them (nobody signs the screen: an individual round's five took a
    page of their own); no column opening on a blank line (the slip's gaps)."""
    groups: list[list[str]] = []
    kept = 0  # lines still to go with the group before (a rule's next two)
    for line in slip:
        if not line.strip() and groups and groups[-1][-1].endswith(SIGN_HERE):
            continue
        note = line.startswith("  ") and line.strip() and groups and groups[-1][-1].strip()
        signing = line.endswith(SIGN_HERE) and groups and groups[-1][0].endswith(SIGN_HERE)
        if kept or note or signing:
            groups[-1].append(line)
        else:
            groups.append([line])
        kept = 2 if line and set(line) == {"-"} else 1 if line.endswith(SIGN_HERE) else \
            max(0, kept - 1)
    columns: list[list[str]] = [[]]
    for group in groups:
        if columns[-1] and len(columns[-1]) + len(group) > rows >= len(group):
            columns.append([])
        for line in group:
            if len(columns[-1]) == rows:
                columns.append([])
            if line.strip() or columns[-1]:
                columns[-1].append(line)
    return columns


# -- the hands so far ---------------------------------------------------------------------


def history_rows(view: TableView, t: Any, lang: str, room: int | None = None
                 ) -> tuple[str, ...]:
    """The hands so far in columns under their headings (the dealer, the level, the points,
    the total, the result, the levels after it), each hand's kitty and penalties under it.
    Headings wider than `room` name the sides, not the teams (南北:东西): 「福州榕树:海沧」⏎
    「红狮」 broke a name in two."""
    # the points caught in tricks (抓分), then the total under 得分, as the slip heads it
    columns: tuple[str, ...] = ("hand", "dealer", "level", "caught", "total", "result",
                                "levels")
    if view.kind != "team":  # shuangsheng: each deal's dealer, partner and total
        columns = ("hand", "dealer", "partner", "level", "total")
    teams = f"{team_label(view, 'NS', t)}:{team_label(view, 'EW', t)}"  # A1:东西
    headings = tuple(teams if c == "levels" else t("ui.history.col." + c) for c in columns)
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    for h, record in zip(view.history, view.records, strict=False):
        if "deal" in h:
            rows.append((str(h["deal"]), seat_label(view, h["dealer"], t) or h["dealer"],
                         seat_label(view, h["partner"], t) or h["partner"], h["level"],
                         str(h["total"])))
            said = "  ".join(f"{seat_label(view, k, t) or k} {v:+d}"
                             for k, v in h.get("awards", {}).items())
            if h.get("totals"):  # (the big points so far: what the players tot up)
                said += t("ui.history.totals", totals="  ".join(
                    f"{seat_label(view, k, t) or k} {v}" for k, v in h["totals"].items()))
            # the deal's penalties as its result said them (they were left out)
            extra = list(wizard.priced_texts(*_penalties_of(record, h), view, t, lang))
            extra += _disputed(view, record, t, lang)
            if view.corrected[h["deal"] - 1]:
                extra.append(t("ui.history.corrected"))
            notes.append(("; " if lang == "en" else "；").join([said, *extra]))
            continue
        dealer = t("seat." + h["dealer"]) if h.get("dealer") in SEATS else "—"
        levels = f"{h['levels']['NS']}:{h['levels']['EW']}"
        if h["result"] == "redeal":
            who = record.get("called_by")
            rows.append((str(h["hand"]), dealer, h["level"], "", "",
                         t("ui.history.result.redeal"), levels))
            notes.append(t("ui.history.redeal_by", seat=t("seat." + who)) if who in SEATS
                         else "")
            continue
        extra = []
        fried = fry_words(record, lang, view.players)
        if fried:
            extra.append(fried)
        kitty = record.get("kitty")
        if kitty:
            extra.append(t("ui.history.kitty", n=kitty["points"],
                           times=_kitty_times(view, kitty)))
        # each as the entry and the result said it (an overrun with its seconds)
        extra += wizard.priced_texts(*_penalties_of(record, h), view, t, lang)
        extra += _disputed(view, record, t, lang)
        if view.corrected[h["hand"] - 1]:
            extra.append(t("ui.history.corrected"))
        rows.append((str(h["hand"]), dealer, h["level"], str(record.get("points", "—")),
                     "—" if h["total"] is None else str(h["total"]),
                     t("ui.history.result." + h["result"], n=h["advance"] or 0), levels))
        notes.append("；".join(extra) if lang != "en" else "; ".join(extra))
    widths = [max(width(x) for x in col) for col in zip(headings, *rows, strict=True)]
    if room is not None and view.kind == "team" and width(_row(headings, widths)) > room:
        headings = (*headings[:-1], f"{t('team.NS')}:{t('team.EW')}")
        widths = [max(width(x) for x in col) for col in zip(headings, *rows, strict=True)]
    out = [_row(headings, widths)]
    for row, note in zip(rows, notes, strict=True):
        out.append(_row(row, widths) + (f"\n    {note}" if note else ""))
    return tuple(out)


def _kitty_times(view: TableView, kitty: dict[str, Any]) -> int:
    """What a kitty's points were multiplied by: its shape's, or every shape's (none asked)."""
    shape = kitty.get("shape")
    return view.multipliers.get(shape, 0) if shape else view.kitty_times or 0


def _disputed(view: TableView, record: dict[str, Any], t: Any, lang: str) -> list[str]:
    """A hand whose result a side disputed and the referee ruled on, as the slip says it."""
    side = record.get("disputed_by")
    return [t("words.disputed", side=_side(view, side, t, lang))] if side else []


def _penalties_of(record: dict[str, Any], played: dict[str, Any]
                  ) -> tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]:
    """A played hand's penalties as entered and as applied, each under its place."""
    entered, applied = (tuple((str(i), p) for i, p in enumerate(ps)) for ps in (
        record.get("penalties", ()), played.get("penalties", ())))
    return entered, applied


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(c + " " * (w - width(c)) for c, w in zip(cells, widths, strict=True)
                     ).rstrip()


def history_pages(rows: list[str], hands: int, lines: int) -> list[list[str]]:
    """`rows` (a hand each, its notes on the lines under it) on pages of at most `hands`
    hands and `lines` lines; a hand with more notes than a page holds goes on over the next."""
    pages: list[list[str]] = [[]]
    used = 0
    for row in rows:
        parts = row.split("\n")
        for start in range(0, len(parts), lines):
            chunk = parts[start:start + lines]
            if pages[-1] and (len(pages[-1]) == hands or used + len(chunk) > lines):
                pages.append([])
                used = 0
            pages[-1].append("\n".join(chunk))
            used += len(chunk)
    return pages


def _history(view: TableView, ui: UiState, t: Any, lang: str, portrait: bool) -> ScreenModel:
    cols = HISTORY_COLUMNS[portrait]
    heading, *rows = history_rows(view, t, lang, cols)
    paged = history_pages([fit_lines(row, cols) for row in rows], HISTORY_ROWS[portrait],
                          HISTORY_LINES[portrait])
    pages = len(paged)
    page = min(ui.page, pages - 1)
    lines = (heading, *paged[page]) if rows else (t("ui.history.none"),)
    close = Btn("close", t("ui.close"), "primary")
    nav = (Btn(f"page:{page - 1}", t("ui.page_back"), "quiet") if page else GAP,
           pager(page, pages, t), close) if pages > 1 else (close,)  # (the pager keeps its place)
    return ScreenModel("step", "history", t("ui.history.title"), lines=lines, nav=nav,
                       extra={"mono_lines": True})


# -- the referee ---------------------------------------------------------------------------


def _referee(view: TableView, now: float, ui: UiState, t: Any, lang: str,
             portrait: bool) -> ScreenModel:
    if not view.referee_open:
        return _pin_pad(view, now, ui, t)
    step = ui.referee_step
    back = Btn("r_back", t("ui.back"), "quiet")
    if step == "leader":  # as recorded now, and what choosing another changes
        now_led = t("ui.leader.now", seat=seat_label(view, view.leader, t), n=view.plays) \
            if view.leader in SEATS else t("ui.leader.none")
        return ScreenModel("step", "referee.leader", t("ui.q.leader"),
                           lines=(now_led, t("ui.leader.then")),
                           grids=(seat_grid("r_leader", SEATS, view, t, view.leader),),
                           nav=(back,))
    if step == "forfeit_kind":
        return ScreenModel("step", "referee.forfeit_kind", t("ui.q.forfeit_kind"), grids=(
            Grid((Btn("r_fkind:forfeit", t("ui.forfeit.forfeit")),
                  Btn("r_fkind:disqualification", t("ui.forfeit.disqualification"))), 2, 1),),
            nav=(back,))
    if step == "forfeit_team":
        return ScreenModel("step", "referee.forfeit_team", t("ui.q.forfeit_team"), grids=(
            Grid(tuple(Btn(f"r_fteam:{team}", team_label(view, team, t))
                       for team in ("NS", "EW")), 2, 1),), nav=(back,))
    if step == "forfeit_reason":
        return ScreenModel("step", "referee.forfeit_reason", t("ui.q.forfeit_reason"), grids=(
            Grid(tuple(Btn(f"r_freason:{r}", t("ui.forfeit.reason." + r))
                       for r in FORFEIT_REASONS), 2, 1),), nav=(back,))
    if step == "correct_pick":  # each hand told apart by its dealer and points, as 记录 does
        hands = tuple(Btn(f"r_correct:{n}", t(
            "ui.correct.pick", n=n, points=record.get("points", "—"),
            seat=t("seat." + h["dealer"]) if h.get("dealer") in SEATS else "—"))
            for n, (h, record) in enumerate(zip(view.history, view.records, strict=False), 1)
            if h.get("result") != "redeal")
        return ScreenModel("step", "referee.correct_pick", t("ui.q.correct_pick"),
                           grids=(Grid(hands, 6, 4),) if hands else (),
                           lines=() if hands else (t("ui.history.none"),), nav=(back,))
    return ScreenModel("step", "referee", t("ui.referee_menu"),
                       grids=(Grid(_referee_menu(view, t, lang), 3, 3),),
                       nav=(Btn("close", t(_close_words(view)), "primary"),))


def _close_words(view: TableView) -> str:
    """What closing the menu does, said on its button: the match goes on (the menu's own hold
    ends), or only the menu closes (the match is over, paused until 继续计时, or its hand
    disputed until the referee rules)."""
    if view.phase in (Phase.OVER, Phase.DISPUTED) or (
            view.paused and view.pause_reason != PauseReason.HOLD):
        return "ui.close"
    return "ui.close_referee"


def _referee_menu(view: TableView, t: Any, lang: str) -> tuple[Btn, ...]:
    """What the referee can do now, each saying what it does, each in a place of its own
    whatever else is offered (a gap where it is not), so that a referee's hand learns where
    each is: a pause adds 继续计时 and moves nothing. Three rows of three: the clock, undo, the
    phase's own (the leader, the ruling, a new match); a cost to confirm, a correction, the
    second ruling or the match clock's start; time up, forfeit, the buzzer (in portrait too)."""
    slots = [GAP] * 9
    playing = view.phase not in IDLE
    if view.paused and view.pause_reason != PauseReason.HOLD:
        slots[0] = Btn("r_resume", t("ui.r.resume"), "primary")
    if view.undo:
        slots[1] = Btn("r_undo", t("ui.r.undo", what=undo_label(view, t)))
    if view.phase == Phase.PLAY and not view.all_played:
        slots[2] = Btn("r_leader", t("ui.r.leader"))
    elif view.phase == Phase.DISPUTED:  # the result as shown, or changed first
        slots[2] = Btn("r_rule", t("ui.r.rule"), "primary")
        slots[5] = Btn("r_change", t("ui.r.change"))
    elif view.phase == Phase.OVER and view.standalone:
        slots[2] = Btn("r_new_match", t("ui.new_match"), "primary")
    if view.unconfirmed:  # a cost the seed leaves to the referee: one at a time
        pid, _ = view.unconfirmed[0]
        penalty = dict(view.penalties).get(pid, {})
        slots[3] = Btn(f"r_pconfirm:{pid}", t("ui.r.confirm_penalty", penalty=wizard.penalty_text(
            penalty, view, t, lang)), "primary")
    if any(h.get("result") != "redeal" for h in view.history):
        slots[4] = Btn("r_correct", t("ui.r.correct"))
    if view.match_limit is not None and not view.match_clock_started and playing and \
            view.phase != Phase.DISPUTED and view.time_up is None:  # (time up: nothing to start)
        slots[5] = Btn("r_start_clock", t("ui.r.start_clock"))
    # (a match with no time limit under rules with no time-up rule is played to its end:
    # time up declared there decided nothing, and left the table playing on)
    if playing and view.time_up is None and (
            view.time_up_rule != "none" or view.match_limit is not None):
        slots[6] = Btn("r_time_up", t("ui.r.time_up"), "danger")
    if playing and view.kind == "team":
        slots[7] = Btn("r_forfeit", t("ui.r.forfeit"), "danger")
    slots[8] = Btn("r_mute", t("ui.r.unmute" if view.muted else "ui.r.mute"))
    return tuple(slots)


def _pin_pad(view: TableView, now: float, ui: UiState, t: Any) -> ScreenModel:
    locked = view.pin_locked_until - now
    if locked > 0:
        shown = t("ui.pin.locked", n=math.ceil(locked))
    else:
        shown = "●" * len(ui.pin) if ui.pin else t("ui.pin.enter")
    digits = tuple(Btn(f"pin:{d}", d) for d in "123456789")
    keys = (*digits, Btn("pin_clear", t("ui.pin.clear"), "quiet"), Btn("pin:0", "0"),
            Btn("pin_back", t("ui.key.back"), "quiet"))
    unlocks, _, what = (ui.after_unlock or "menu").partition(":")  # the title says what
    # a penalty struck out is named before the PIN is given (the list behind may hold
    # several); the other pads leave that line blank, so that every pad's keys keep their
    # places
    penalty = dict(view.penalties).get(what) if unlocks == "e_del" else None
    said = t("ui.pin.deletes", penalty=wizard.penalty_text(penalty, view, t, ui.lang)) \
        if penalty else ""
    if unlocks == "e_loss":  # the offence that loses the match, named (「判负」 alone)
        losing = wizard.losing_penalty(wizard.live_values(view), what, view)
        said = wizard.penalty_text(losing, view, t, ui.lang) if losing else ""
    # (undo is the referee's for a redeal and for a cost the referee confirmed: which one)
    title = t("ui.pin.for.undo", what=undo_label(view, t)) if unlocks == "undo" else \
        t("ui.pin.for." + unlocks)
    return ScreenModel("step", "referee.pin", title, lines=(said, shown),
                       grids=(Grid(keys, 3, 3),),
                       nav=(Btn("close", t("ui.close"), "quiet"),
                            Btn("pin_ok", t("ui.ok"), "primary")),
                       extra={"locked": locked > 0, "input": 1})  # (the PIN typed)


def _as_dealt(view: TableView, hand: int) -> TableView:
    """The table as confirmed hand `hand` was dealt, for its correction: its dealer, and in an
    individual round its partner, every player named in their own chair (the deal's swap of
    chairs is long over, so the referee picks a player, not a chair)."""
    dealt = view.history[hand - 1]
    if view.kind == "team":
        return replace(view, dealer=dealt.get("dealer"))
    return replace(view, dealer=dealt.get("dealer"), partner=dealt.get("partner"), seated={})


def _correction(view: TableView, ui: UiState, t: Any, lang: str,
                portrait: bool) -> ScreenModel:
    hand = ui.correct_hand or 0
    view = _as_dealt(view, hand)
    values = ui.correct
    assert values is not None
    title = t("ui.correct_title", n=hand)
    if ui.correct_preview is not None:
        return _correction_summary(view, ui, values, t, lang, title)
    step = wizard.screen(values, view, t, lang, view.dealer, correcting=True,
                         costs=ui.correct_costs)
    rows, nav = _paged_rows(step.rows, step.nav, ui, t, portrait)
    return ScreenModel("step", "correct." + step.name, f"{title} · {step.title}",
                       lines=step.lines, rows=rows, grids=step.grids,
                       nav=(*nav, Btn("e_quit", t("ui.correct.quit"), "quiet")))


def _correction_summary(view: TableView, ui: UiState, values: wizard.EntryValues, t: Any,
                        lang: str, title: str) -> ScreenModel:
    preview = ui.correct_preview or {}
    before, after = preview["before"], preview["result"]
    # (an individual deal's 总分 read as big points beside them: its points, as on the slip)
    total = "ui.correct.total" if view.kind == "team" else "ui.correct.points"
    lines = [t(total, old="—" if before["total"] is None else before["total"],
               new="—" if after["total"] is None else after["total"])]
    if view.kind == "team":
        lines += _level_changes(view, preview, t)
    else:
        lines += _big_point_changes(view, preview, t)
    lines += notes_lines(wizard.counted_texts(values.penalties, ui.correct_costs, view, t, lang),
                         lang)
    # what the correction strikes out, with what it cost (the hand's own penalties are c1 …)
    hand = ui.correct_hand or 0
    was = wizard.record_values(view.records[hand - 1]).penalties
    kept = {pid for pid, _ in values.penalties}
    cost = tuple(zip((pid for pid, _ in was), view.history[hand - 1].get("penalties", ()),
                     strict=False))
    lines += notes_lines(tuple(t("ui.correct.removed", penalty=text) for text in
                               wizard.counted_texts(tuple(x for x in was if x[0] not in kept),
                                                    cost, view, t, lang)), lang)
    return ScreenModel("step", "correct.summary", title, lines=tuple(lines),
                       nav=(Btn("e_back", t("ui.back"), "quiet"),
                            Btn("e_quit", t("ui.correct.quit"), "quiet"),
                            Btn("r_save_correction", t("ui.correct.save"), "primary")))


def _big_point_changes(view: TableView, preview: dict[str, Any], t: Any) -> list[str]:
    """An individual deal corrected: each player whose big points change, the deal's and the
    round's so far (「东：本副大分 3 → 1，累计 12 → 10」)."""
    was, now = preview["before"]["awards"], preview["result"]["awards"]
    totals_were, totals_now = preview["totals"]
    lines = [t("ui.correct.big_points", player=wizard.player_label(view, player, t),
               a=was[player], b=now[player], c=totals_were[player], d=totals_now[player])
             for player in was if was[player] != now[player]]
    return lines or [t("ui.correct.no_big_point_change")]


def _level_changes(view: TableView, preview: dict[str, Any], t: Any) -> list[str]:
    """A team hand corrected: the levels after the first and the last hand they change (those
    between in one line), and what becomes of the match's win and its next dealer."""
    lines: list[str] = []
    changes = preview.get("changes") or []
    for hand, old, new in [changes[0], changes[-1]] if len(changes) > 3 else changes:
        lines.append(t("ui.correct.levels", n=hand, a=old[0], b=old[1], c=new[0], d=new[1],
                       ns=team_label(view, "NS", t), ew=team_label(view, "EW", t)))
    if len(changes) > 3:  # the first and the last hand changed; those between, one line
        between = [hand for hand, _, _ in changes[1:-1]]
        first, last = between[0], between[-1]
        lines.insert(-1, t("ui.correct.levels_between", a=first, b=last)
                     if len(between) == last - first + 1 else
                     t("ui.correct.levels_some", a=first, b=last, n=len(between)))
    if not changes:
        lines.append(t("ui.correct.no_level_change"))
    old_winner, new_winner = preview["winner"]
    old_dealer, new_dealer = preview.get("dealer") or (None, None)
    if new_winner is not None and new_winner != old_winner:
        lines.append(t("ui.correct.wins", team=team_label(view, new_winner, t)))
    elif old_winner is not None and new_dealer is not None:  # the win taken away: play goes on
        lines.append(t("ui.correct.plays_on", seat=t("seat." + new_dealer)))
    elif new_dealer is not None and new_dealer != old_dealer:  # the hand not dealt yet
        lines.append(t("ui.correct.dealer", a=t("seat." + old_dealer) if old_dealer else "—",
                       b=t("seat." + new_dealer)))
    if preview.get("in_play"):  # its cards dealt: played out as dealt, said before saving
        hand, dealer, was, level, due = preview["in_play"]
        lines.append(t("ui.correct.in_play", n=hand, seat=t("seat." + dealer), a=was, b=level)
                     if was != level else
                     t("ui.correct.in_play_level", n=hand, seat=t("seat." + dealer), a=was))
        if due != dealer:
            lines.append(t("ui.correct.in_play_due", seat=t("seat." + due)))
    return lines


def _text(item: tuple[str, dict[str, Any]], view: TableView, t: Any, lang: str,
          now: float) -> str:
    """A dialog's line: a key and parameters; a seat, a team or a side is named."""
    key, params = item
    if key == "ui.confirm.end_play_overrun":  # said only when a move is over its time
        return end_play_overrun(view, now, t)
    if key == "ui.confirm.time_up_now":
        return time_up_question(view, t)
    if key == "ui.confirm.redeal" and view.dealer in SEATS:  # who deals the cards again
        return t("ui.confirm.redeal_same", dealer=seat_label(view, view.dealer, t)) \
            if view.redeal_keeps_dealer else t("ui.confirm.redeal_grab")
    if key == "ui.confirm.penalty":  # what a cost waiting for the referee will be
        waiting = dict(view.unconfirmed).get(params["id"])
        return applied_text(view, waiting, t, lang) if waiting else ""
    shown = dict(params)
    if shown.get("seat") in SEATS:
        shown["seat"] = seat_label(view, shown["seat"], t)
    for name in ("team", "side"):  # (a side in the ruleset's own words, as on its button)
        if shown.get(name) in ("NS", "EW", "dealer", "defenders"):
            shown[name] = _side(view, shown[name], t, lang)
    if isinstance(shown.get("penalty"), dict):  # (the offence a match loss is for)
        shown["penalty"] = wizard.penalty_text(shown["penalty"], view, t, lang)
    said = t(key, **shown)
    p = view.preview or {}
    if key in ("ui.confirm.rule", "ui.confirm.rule_wins") and "result" in p and \
            view.kind == "team":  # the result the ruling confirms, above it (who wins: below)
        outcome = outcome_lines(view, p, t, lang)
        return "\n".join((*outcome[:1 if key == "ui.confirm.rule_wins" else None], said))
    return said


__all__ = ["LAYOUT", "Row", "ScreenModel", "present", "seconds"]
