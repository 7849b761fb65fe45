"""What a tap does. The controller keeps the screen's own state (which overlay is open, the PIN
being typed, a confirmation waiting, the names being typed, a correction in progress) and sends
everything that changes the table through the door to the runner's thread, which alone touches
the session. Plain Python: tested without a window."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import SessionError
from ..i18n import LANGS, translator
from ..rules import SEATS, TEAM_OF
from ..table.kinds import AFTER_PLAY, IN_HAND, PauseReason, Phase
from ..table.view import TableView
from . import pinyin, wizard
from .wizard import EntryValues

#: Overlays that belong to the referee: the move clock pauses while one is open, and the move
#: starts afresh when the last closes.
REFEREE_OVERLAYS = ("referee", "correct")
#: Overlays that cover the move clock: it is held the same way while one is open. Closing one
#: that is not the referee's gives the seat back the time it had left.
HOLDING_OVERLAYS = (*REFEREE_OVERLAYS, "history")
KEYBOARD_MAX = 16
PINYIN_MAX = 30  # letters waiting for their characters
#: Candidates the pinyin keyboard shows at once (slots pick:0 … pick:7; then a next page).
CANDIDATES = 8
SIDE_SEAT = {"NS": "N", "EW": "E"}


@dataclass(frozen=True)
class Dialog:
    """A confirmation: what will happen (catalog keys and parameters), and the action taken on
    OK. `style` "danger" for what cannot be taken back."""

    title: tuple[str, dict[str, Any]]
    lines: tuple[tuple[str, dict[str, Any]], ...]
    then: str
    ok: str = "ui.ok"
    style: str = "danger"
    holds: bool = False  # it holds the move clock while it waits for an answer


@dataclass
class UiState:
    lang: str = "zh-Hans"
    overlay: str | None = None  # "referee", "history", "keyboard" or "correct"
    dialog: Dialog | None = None
    pin: str = ""
    referee_step: str = "menu"  # menu, leader, correct_pick, forfeit_kind/team/reason
    forfeit: dict[str, str] = field(default_factory=dict)
    after_unlock: str | None = None  # an action that waits for the PIN
    ready_step: str = ""  # "redeal" while the calling seat is chosen, "partner": the card again
    end_step: str = ""  # "lead_by" while the referee says whose lead ran over, at the end
    fry_seat: str = ""  # the frier, while the referee picks the trump it sets
    names: dict[str, str] = field(default_factory=dict)
    keyboard_field: str | None = None
    keyboard_upper: bool = True  # the Latin letters' case (changed by its key only)
    keyboard_mode: str = "pinyin"  # "pinyin" (Chinese, from pinyin) or "latin"
    pinyin: str = ""  # letters typed in pinyin, waiting for their characters
    candidate_page: int = 0
    page: int = 0  # of a long list (rulesets, history)
    page_before_pin: int = 0  # the list's page the PIN pad covered (a penalty struck out)
    new_match: bool = False  # after a match, the referee opened the setup of the next
    time_up_seen: tuple[str, int] | None = None  # (match, hand) whose time-up banner was read
    time_up_held: str = ""  # the match whose time-up banner holds the move clock (`frame`)
    correct: EntryValues | None = None
    correct_hand: int | None = None
    correct_preview: dict[str, Any] | None = None
    # what each penalty of the correction costs as the hand would count (id, applied as JSON)
    correct_costs: tuple[tuple[str, dict[str, Any]], ...] = ()
    unlocking: bool = False  # a PIN is on its way to the session


def shown_candidates(ui: UiState) -> tuple[tuple[pinyin.Candidate, ...], bool]:
    """The words and characters the pinyin keyboard shows now (a page of them), and whether
    there are other pages (the last page's next is the first)."""
    found = pinyin.candidates(ui.pinyin)
    pages = max(1, -(-len(found) // CANDIDATES))
    start = (ui.candidate_page % pages) * CANDIDATES
    return found[start:start + CANDIDATES], pages > 1


class Controller:
    """Taps in, door commands out. `runner` gives the view, the door and the notice area."""

    def __init__(self, runner: Any, lang: str = "zh-Hans") -> None:
        self.runner = runner
        self.ui = UiState(lang=lang)

    @property
    def view(self) -> TableView:
        return self.runner.view  # type: ignore[no-any-return]

    def send(self, command: Any) -> None:
        self.runner.door.put(command)

    def frame(self) -> None:
        """Each frame, before the screen is drawn: the time-up banner covers the clock with no
        tap having opened it (the match clock ran out, the hall or the referee called time),
        so it holds the move clock from here as a question does, until 知道了 gives the seat
        its time back (`time_up_ok`). Else the seat's clock ran on under it, and its first
        press after the banner was an overrun, which in chaodipi makes the next one cost."""
        view, ui = self.view, self.ui
        # (again whenever it shows over a running clock: the referee's menu opened from it
        # ends its hold when it closes)
        if view.time_up is None or view.paused or not view.clock_running or \
                (ui.time_up_seen or ("", 0))[0] == view.match or ui.dialog is not None or \
                ui.overlay in HOLDING_OVERLAYS:
            return
        ui.time_up_held = view.match
        self.send(lambda s: s.hold_for_referee(screen=True))

    # -- overlays -------------------------------------------------------------------------

    def _overlay(self, new: str | None, lock: bool = True) -> None:
        """Open `new` (None: the table's own screen). Leaving the referee's overlays locks the
        menu unless `lock` is False (the PIN then holds for its usual while)."""
        old, ui = self.ui.overlay, self.ui
        if new == old:
            return
        ui.overlay, ui.page = new, 0
        if new in HOLDING_OVERLAYS and old not in HOLDING_OVERLAYS:
            screen = new not in REFEREE_OVERLAYS
            self.send(lambda s: s.hold_for_referee(screen))
        left_referee = old in REFEREE_OVERLAYS and new not in REFEREE_OVERLAYS
        released = old in HOLDING_OVERLAYS and new not in HOLDING_OVERLAYS
        if left_referee:
            ui.pin, ui.referee_step, ui.after_unlock = "", "menu", None
            ui.correct = ui.correct_hand = ui.correct_preview = None
            ui.correct_costs = ()
        keep_time = old not in REFEREE_OVERLAYS

        def leave(session: Any) -> None:
            if released:
                session.release_referee_hold(keep_time)
            if left_referee and lock:
                session.lock()

        if left_referee or released:
            self.send(leave)

    def _ask(self, dialog: Dialog) -> None:
        """A question covers the screen: outside the referee's overlays (which hold it
        already) it holds the move clock until it is answered."""
        holds = self.ui.overlay not in HOLDING_OVERLAYS
        self.ui.dialog = replace(dialog, holds=holds)
        if holds:
            self.send(lambda s: s.hold_for_referee(screen=True))

    # -- taps -----------------------------------------------------------------------------

    def act(self, action: str) -> None:
        name, _, arg = action.partition(":")
        ui, view = self.ui, self.view
        if name != "language" and not name.startswith("pin"):
            # any other tap works (a screen opened, or a command that may be refused anew): the
            # last refusal has been read. (The PIN's keys clear a wrong PIN's only.)
            self.send(lambda s: self.runner.clear_refusal())
        if ui.dialog is not None:  # a confirmation answers first
            dialog, ui.dialog = ui.dialog, None
            if dialog.holds:  # the seat goes on with the time it had, before the answer acts
                self.send(lambda s: s.release_referee_hold(keep_time=True))
            if name == "ok":
                self.act(dialog.then)
            elif dialog.then.startswith("e_lose:"):  # no match loss: back to the entry
                self._overlay(None)
            return
        if name == "language":
            ui.lang = LANGS[(LANGS.index(ui.lang) + 1) % len(LANGS)]
        elif name == "history":
            self._overlay(None if ui.overlay == "history" else "history")
        elif name == "referee":
            self._overlay("referee")
        elif name == "close":
            self._overlay(None)
        elif name == "page":
            ui.page = max(0, int(arg))
        elif name == "mute":
            self.send(lambda s: self.runner.toggle_mute())
        elif name.startswith("pin"):
            self._pin(name, arg)
        elif name.startswith("r_"):
            self._referee(name, arg)
        elif name.startswith("e_"):
            self._entry(action)
        elif name in ("name", "key", "key_space", "key_back", "key_case", "key_clear",
                      "key_done", "key_mode", "pick", "more"):
            self._keyboard(name, arg)
        else:
            self._table(name, arg, view)

    # -- the table's own actions ----------------------------------------------------------

    def _table(self, name: str, arg: str, view: TableView) -> None:
        ui = self.ui
        if name == "setup":
            names = {k: v.strip() for k, v in ui.names.items() if v.strip()}
            teams = {k: v for k, v in names.items() if k in ("NS", "EW")}
            players = {k: v for k, v in names.items() if k in "NESW"}

            def setup(session: Any) -> None:
                session.setup_match(event="", round=str(len(session.journal.matches()) + 1),
                                    teams=teams, players=players, ruleset=arg)
                session.lock()  # (the PIN given for 新比赛 holds no further than its setup)
                ui.new_match, ui.names = False, {}

            self.send(setup)
        elif name == "cancel_new":
            ui.new_match = False
        elif name == "dealer":
            self.send(lambda s: s.grab_dealer(arg))
        elif name == "card":
            self.send(lambda s: s.draw_partner(card=arg))
            ui.ready_step = ""
        elif name == "partner_again":
            ui.ready_step = "partner"
        elif name == "partner_back":
            ui.ready_step = ""
        elif name == "trump":
            seat = view.dealer or "N"
            self.send(lambda s: s.declare_trump(arg, seat))
        elif name == "redeal" and not arg:
            ui.ready_step = "redeal"
        elif name == "redeal_back":
            ui.ready_step = ""
        elif name == "redeal":
            ui.ready_step = ""
            self._ask(Dialog(("ui.confirm.redeal_title", {"seat": arg}),
                             (("ui.confirm.redeal", {"seat": arg}),), f"do_redeal:{arg}",
                             style="primary"))
        elif name == "do_redeal":
            self.send(lambda s: s.redeal(arg))
        elif name == "fry":
            ui.fry_seat = arg
        elif name == "fry_back":
            ui.fry_seat = ""
        elif name == "fry_trump" and ui.fry_seat:
            seat, ui.fry_seat = ui.fry_seat, ""
            self.send(lambda s: s.fry(seat, arg))
        elif name == "no_fry":
            ui.fry_seat = ""
            self.send(lambda s: s.no_fry())
        elif name == "end_play":
            if view.all_played:
                self.send(lambda s: s.end_play())
            else:
                self._ask(Dialog(("ui.confirm.end_play_title", {}), (
                    ("ui.confirm.end_play", {"trick": view.trick, "tricks": view.tricks}),
                    ("ui.confirm.end_play_overrun", {})), "do_end_play", style="primary"))
        elif name == "do_end_play" and view.clock_seat is None and \
                (view.move_left(self.runner.session.clock.now()) or 0) < 0:
            # the lead's time is over, and whose lead it was only the table knows: asked,
            # with the clock held as by the question before
            ui.end_step = "lead_by"
            self.send(lambda s: s.hold_for_referee(screen=True))
        elif name == "do_end_play":
            self.send(lambda s: s.end_play())
        elif name in ("end_play_by", "end_play_back"):
            ui.end_step = ""
            self.send(lambda s: s.release_referee_hold(keep_time=True))
            if name == "end_play_by":
                self.send(lambda s: s.end_play(arg or None))
        elif name == "undo" and view.undo_referees:
            self._with_pin("undo")  # a redeal, a confirmed cost: the referee takes it back
        elif name == "undo":
            self.send(self._undo())
        elif name == "start_bury":
            self.send(lambda s: s.start_bury())
        elif name == "press" and arg in SEATS:  # a long press on the seat's box
            self.send(lambda s: s.press(arg))
        elif name == "pause_table":
            self.send(lambda s: s.pause_table())
        elif name == "resume":
            self._with_pin("resume")
        elif name == "time_up_ok":
            ui.time_up_seen = (view.match, view.hand or 0)
            if ui.time_up_held == view.match:  # (the banner's hold: the seat's time back)
                self.send(lambda s: s.release_referee_hold(keep_time=True))
        elif name == "reopen" and view.confirmed:  # said before it is dropped
            self._ask(Dialog(("ui.confirm.reopen_title", {}),
                             (("ui.confirm.reopen", {"side": view.confirmed[0]}),),
                             "do_reopen", ok="ui.reopen", style="primary"))
        elif name in ("reopen", "do_reopen"):
            self.send(lambda s: s.reopen_entries())
        elif name == "dispute":
            lines = [("ui.confirm.dispute", {"side": arg})]
            if view.match_running:  # (it runs on while the referee rules: said before, not after)
                lines.append(("ui.disputed_clock", {}))
            self._ask(Dialog(("ui.confirm.dispute_title", {"side": arg}), tuple(lines),
                             f"do_dispute:{arg}"))
        elif name == "do_dispute":
            seat = SIDE_SEAT.get(arg) or next(s for s, side in view.sides.items()
                                              if side == arg)
            self.send(lambda s: s.dispute(seat))
        elif name == "reprint":
            self._reprint()
        elif name == "new_match":
            self._with_pin("new_match")

    def _undo(self) -> Callable[[Any], None]:
        """Take the last step back, and say what was taken back (the button that said it is
        gone once it is done: a referee's review found nothing on the screen to say it worked)."""
        kind, seat = self.view.undo or ("", None)

        def undo(session: Any) -> None:
            session.undo()
            if kind:  # (what the button said it takes back)
                self.runner.notify("table.undone", kind=kind, seat=seat or "")
        return undo

    def _reprint(self) -> None:
        printer = self.runner.printer
        if printer is None:
            self.send(lambda s: self.runner.notify("table.no_printer", "error"))
            return
        self.send(lambda s: printer.reprint(f"table-{s.table}-round-{s.match}"))

    # -- names, typed on the screen's keyboard -------------------------------------------

    def _keyboard(self, name: str, arg: str) -> None:
        """The screen's keyboard. In pinyin (the Chinese screens' default) letters wait as
        pinyin until a word or character is picked for them (`pick:i`, the i-th candidate
        shown; space picks the first); digits go into the name at once. In Latin letters each
        key types what it shows: its case changes only by the case key."""
        ui = self.ui
        field_name = ui.keyboard_field
        if name == "name":
            ui.keyboard_field, ui.keyboard_upper = arg, True
            ui.keyboard_mode = "pinyin" if ui.lang.startswith("zh") else "latin"
            ui.pinyin, ui.candidate_page = "", 0
            pinyin.warm()
            self._overlay("keyboard")
            return
        if field_name is None:
            return
        text, letters = ui.names.get(field_name, ""), ui.pinyin
        room = KEYBOARD_MAX - len(text)
        if name == "key" and ui.keyboard_mode == "pinyin" and (arg.isalpha() or arg == "'"):
            if len(letters) < PINYIN_MAX and room > 0:
                letters += arg.lower()
        elif name == "key" and room > 0 and not letters:
            text += arg.upper() if ui.keyboard_upper else arg.lower()
        elif name in ("pick", "key_space") and letters:
            chosen = shown_candidates(ui)[0]
            i = int(arg) if name == "pick" else 0
            if 0 <= i < len(chosen) and room > 0:
                word = chosen[i].text[:room]
                text, letters = text + word, letters[chosen[i].takes:].lstrip("'")
        elif name == "key_space" and text and room > 0:
            text += " "
        elif name == "more":
            ui.candidate_page += 1
            return
        elif name == "key_back":
            letters, text = (letters[:-1], text) if letters else (letters, text[:-1])
        elif name == "key_case":
            ui.keyboard_upper = not ui.keyboard_upper
        elif name in ("key_mode", "key_done"):  # letters still waiting stay as typed
            text, letters = (text + letters)[:KEYBOARD_MAX], ""
            if name == "key_mode":
                ui.keyboard_mode = "latin" if ui.keyboard_mode == "pinyin" else "pinyin"
            else:
                ui.keyboard_field = None
                self._overlay(None)
        elif name == "key_clear":
            text, letters = "", ""
        if letters != ui.pinyin:
            ui.candidate_page = 0
        ui.names[field_name], ui.pinyin = text, letters



    # -- the PIN --------------------------------------------------------------------------

    def _with_pin(self, then: str) -> None:
        """Do `then` once the referee has given the PIN (at once if the menu is open)."""
        if self.view.referee_open:
            self._after_unlock(then)
            return
        self.ui.after_unlock, self.ui.page_before_pin = then, self.ui.page
        self._overlay("referee")

    def _pin(self, name: str, arg: str) -> None:
        ui = self.ui
        if name in ("pin", "pin_back", "pin_clear"):  # typing again: the last try is read
            self.send(lambda s: self.runner.clear_notice("table.pin_wrong"))
        if name == "pin" and arg.isdigit():
            ui.pin = (ui.pin + arg)[:8]
        elif name == "pin_back":
            ui.pin = ui.pin[:-1]
        elif name == "pin_clear":
            ui.pin = ""
        elif name == "pin_ok" and ui.pin:
            pin, ui.pin, ui.unlocking = ui.pin, "", True
            then = ui.after_unlock

            def unlock(session: Any) -> None:  # on the runner's thread
                try:
                    opened = session.unlock(pin)
                finally:
                    ui.unlocking = False
                if not opened:
                    left = session.pin_tries_left()
                    self.runner.notify("table.pin_wrong" if left else "table.pin_locked",
                                       "error", tries=left,
                                       seconds=round(session.pin_locked_for()))
                elif then:
                    ui.after_unlock = None
                    self._after_unlock(then, session)
                elif ui.overlay in REFEREE_OVERLAYS:  # the menu: the referee is at the table
                    session.hold_for_ruling()

            self.send(unlock)

    def _after_unlock(self, then: str, session: Any = None) -> None:
        ui = self.ui
        if then == "resume":
            def resume(s: Any) -> None:
                s.resume()
                s.lock()

            ui.overlay = None  # the clocks run again as the referee closes the menu
            if session is not None:
                resume(session)
            else:
                self.send(resume)
        elif then == "new_match":
            ui.new_match, ui.names, ui.overlay = True, {}, None
        elif then.startswith("e_loss:"):  # a penalty that loses the match: said first
            tap = then.removeprefix("e_loss:")
            penalty = wizard.losing_penalty(wizard.live_values(self.view), tap, self.view)
            team = TEAM_OF[penalty["seat"]] if penalty else None
            self._ask(Dialog(("ui.confirm.loss_title", {"team": team}),
                             (("ui.confirm.loss", {"team": team, "penalty": penalty}),),
                             "e_lose:" + tap))
        elif then == "undo" or then.startswith("e_del:"):
            # a redeal taken back, a recorded penalty struck out: done, then the menu closes
            command = self._entry_command(then) if then.startswith("e_") else self._undo()
            if session is not None:
                command(session)
            else:
                self.send(command)
            self._overlay(None)
            if then.startswith("e_del:"):  # back to the page of the list it was struck from
                self.ui.page = self.ui.page_before_pin

    # -- the referee's menu ---------------------------------------------------------------

    def _referee(self, name: str, arg: str) -> None:
        ui, view = self.ui, self.view
        if not view.referee_open:
            return
        if name == "r_back":
            ui.referee_step = "menu"
        elif name == "r_resume":
            def resume(s: Any) -> None:  # before the overlay's own hold is released
                if s.state.paused and s.state.pause_reason != PauseReason.HOLD:
                    s.resume()

            self.send(resume)
            self._overlay(None)
        elif name == "r_start_clock":
            self.send(lambda s: s.start_match_clock())
        elif name == "r_undo":
            self.send(self._undo())
        elif name == "r_leader" and not arg:
            ui.referee_step = "leader"
        elif name == "r_leader":
            ui.referee_step = "menu"
            self.send(lambda s: s.set_leader(arg))
        elif name == "r_rule":  # what confirming the result shown does: the match may end
            winner = (view.preview or {}).get("winner")
            said = ("ui.confirm.rule_wins", {"team": winner}) if winner else \
                ("ui.confirm.rule", {})
            self._ask(Dialog(("ui.confirm.rule_title", {}), (said,), "r_do_rule",
                             style="primary"))
        elif name == "r_change":  # the entry again; both sides then agree to what it shows
            self.send(lambda s: s.reopen_entries())
            self._overlay(None)
        elif name == "r_do_rule":
            note = translator(ui.lang)("ui.note.ruling")  # journaled in the referee's words
            self.send(lambda s: s.rule_dispute(note))
        elif name == "r_time_up":  # the question says what time up decides now
            self._ask(Dialog(("ui.confirm.time_up_title", {}),
                             (("ui.confirm.time_up_now", {}),), "r_do_time_up"))
        elif name == "r_do_time_up":
            ends = (view.time_up_preview or {}).get("winner") is not None
            self.send(lambda s: s.declare_time_up())
            if ends:  # the referee has just read who won: the result shows, not the banner
                ui.time_up_seen = (view.match, 0)
            # the match's result (or the hand to finish) shows; when the match is over the PIN
            # just given still opens 新比赛 for the menu's usual while
            self._overlay(None, lock=not ends)
        elif name == "r_forfeit":
            ui.referee_step, ui.forfeit = "forfeit_kind", {}
        elif name == "r_fkind":
            ui.referee_step, ui.forfeit = "forfeit_team", {"kind": arg}
        elif name == "r_fteam":
            ui.referee_step, ui.forfeit = "forfeit_reason", {**ui.forfeit, "team": arg}
        elif name == "r_freason":
            f = {**ui.forfeit, "reason": arg}
            ui.forfeit, ui.referee_step = f, "menu"
            why = translator(ui.lang)(f"ui.forfeit.reason.{arg}")  # (the reason chosen, again)
            lines: tuple[tuple[str, dict[str, Any]], ...] = (
                ("ui.confirm.forfeit", {"team": f["team"]}),
                ("ui.confirm.forfeit_reason", {"reason": why}))
            if view.phase in IN_HAND | AFTER_PLAY:
                lines += (("ui.confirm.forfeit_hand", {"n": view.hand}),)
            self._ask(Dialog(("ui.confirm.forfeit_title." + f["kind"], {"team": f["team"]}),
                             lines, "r_do_forfeit"))
        elif name == "r_do_forfeit":
            f = ui.forfeit
            # the reason in the referee's words, for the slip (the kind is recorded apart)
            reason = translator(ui.lang)(f"ui.forfeit.reason.{f['reason']}")
            self.send(lambda s: s.end_match(f["team"], f["kind"], reason))
            self._overlay(None)
        elif name == "r_correct" and not arg:
            ui.referee_step, ui.page = "correct_pick", 0
        elif name == "r_correct":
            hand = int(arg)
            ui.correct_hand, ui.correct_preview = hand, None
            ui.correct = wizard.record_values(view.records[hand - 1])
            ui.overlay, ui.page = "correct", 0  # (not the chooser's page)
        elif name == "r_save_correction" and ui.correct is not None \
                and ui.correct_hand is not None:
            hand, entry = ui.correct_hand, wizard.as_record(ui.correct)
            if ui.correct.trump:  # (set by whoever set it: a frier, else the dealer)
                played = view.records[hand - 1]
                seat = (played.get("trump") or {}).get("seat") or view.history[hand - 1]["dealer"]
                entry["trump"] = {"suit": ui.correct.trump, "seat": seat}
            reason = translator(ui.lang)("ui.note.correction")

            def save(session: Any) -> None:  # (refused: the refusal is said instead)
                session.correct_hand(hand, entry, reason)
                self.runner.notify("table.corrected", hand=hand)

            self.send(save)
            ui.overlay, ui.referee_step = "referee", "menu"
            ui.correct = ui.correct_hand = ui.correct_preview = None
        elif name == "r_new_match":
            self._overlay(None)
            ui.new_match, ui.names = True, {}
        elif name == "r_pconfirm":
            self._ask(Dialog(("ui.confirm.penalty_title", {}),
                             (("ui.confirm.penalty", {"id": arg}),), f"r_do_pconfirm:{arg}",
                             style="primary"))
        elif name == "r_do_pconfirm":
            self.send(lambda s: s.confirm_penalty(arg))
        elif name == "r_mute":
            self.send(lambda s: self.runner.toggle_mute())

    # -- the entry of a hand, and the referee's correction of one ------------------------

    def _entry(self, action: str) -> None:
        ui, view = self.ui, self.view
        if ui.overlay == "correct" and ui.correct is not None:
            self._correct(action)
            return
        if view.phase != Phase.ENTRY:
            return
        if action.startswith("e_del:"):  # a recorded penalty: the referee's to strike out
            self._with_pin(action)
            return
        if action.startswith("e_lose:"):  # a match loss the referee has confirmed
            if view.referee_open:
                self.send(self._entry_command(action.removeprefix("e_lose:")))
            self._overlay(None)
            return
        if wizard.loser_by(wizard.live_values(view), action, view):  # the referee's, asked
            self._with_pin("e_loss:" + action)
            return
        self.send(self._entry_command(action))

    def _entry_command(self, action: str) -> Any:
        """What a tap in the entry of a hand records, as a command for the session."""
        view = self.view
        values = wizard.live_values(view)
        new, facts = wizard.choose(values, action, view)
        if any(fact[0] == "penalty" for fact in facts):
            self.ui.page = 10**6  # the list shows its last page: the penalty just added

        def apply(session: Any) -> None:
            for fact in facts:
                kind = fact[0]
                if kind == "points":
                    session.enter_points(fact[1], fact[2])
                elif kind == "penalty":
                    session.add_penalty(fact[1], fact[2], **fact[3])
                elif kind == "remove":
                    session.remove_penalty(fact[1])
                elif kind == "finish":
                    session.finish_entries()
                    return
                elif kind == "back_to_play":
                    session.undo()
                    return
            if new.saved() != values.saved():
                session.save_entry_step(**new.saved())

        return apply

    def _price_correction(self, hand: int, values: EntryValues) -> None:
        """What each penalty of the correction costs as the hand would count with it (the
        rules core's preview, on the runner's thread), for its list to say as the live
        entry's does: 「南 超时 1.6 秒：警告」."""
        ui, entry = self.ui, wizard.as_record(values)
        ui.correct_costs = ()

        def price(session: Any) -> None:
            try:
                result, _ = session.preview_correction(hand, entry)
            except SessionError:  # refused as it stands: the summary says why, on its step
                return
            applied = result.to_json().get("penalties", ())
            ui.correct_costs = tuple(zip((pid for pid, _ in values.penalties), applied,
                                         strict=False))

        self.send(price)

    def _correction_changed(self) -> bool:
        """Whether the correction under way says anything other than the hand as recorded."""
        ui = self.ui
        assert ui.correct is not None and ui.correct_hand is not None
        was = wizard.record_values(self.view.records[ui.correct_hand - 1])
        return replace(ui.correct, step=was.step, pending={}) != replace(was, pending={})

    def _correct(self, action: str) -> None:
        ui, view = self.ui, self.view
        values = ui.correct
        assert values is not None and ui.correct_hand is not None
        if action == "e_back" and values.step == "points":
            ui.overlay, ui.correct = "referee", None
            ui.referee_step = "correct_pick"
            return
        if action == "e_quit" and self._correction_changed():  # its changes said lost first
            n = {"n": ui.correct_hand}
            self._ask(Dialog(("ui.confirm.quit_correction_title", n),
                             (("ui.confirm.quit_correction", n),), "e_do_quit",
                             ok="ui.correct.quit"))
            return
        if action in ("e_quit", "e_do_quit"):  # back to the menu, from any step at once
            ui.overlay, ui.referee_step = "referee", "menu"
            ui.correct = ui.correct_hand = ui.correct_preview = None
            return
        if ui.correct_preview is not None and action == "e_back":
            ui.correct_preview = None
            return
        new, facts = wizard.choose(values, action, view)
        if len(new.penalties) > len(values.penalties):
            ui.page = 10**6  # the list shows its last page: the penalty just added
        if ("finish",) in facts:  # the trump next; an individual deal has none recorded
            if view.kind == "team":
                new = replace(new, step="trump")
            else:
                facts.append(("summary",))
        ui.correct = new
        if new.step == "penalties" and (values.step != "penalties" or
                                        new.penalties != values.penalties):
            self._price_correction(ui.correct_hand, new)
        if ("summary",) in facts:
            hand, entry = ui.correct_hand, wizard.as_record(new)

            def preview(session: Any) -> None:
                result, changes = session.preview_correction(hand, entry)
                ui.correct_preview = {"result": result.to_json(), "changes": changes,
                                      "before": view.history[hand - 1],
                                      **session.after_correction(hand, entry)}

            self.send(preview)
