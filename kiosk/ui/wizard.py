"""The entry of a finished hand, one decision per screen: the defenders' points, who won the
last trick, the kitty's points and shape, the penalties (seat, kind, then what the ruleset asks),
and for a referee's correction the trump. Plain Python: the same steps serve the table's live
entry (each choice journaled, so that a restart resumes it) and the referee's correction of a
confirmed hand (kept here until it is saved).

`screen` draws a step; `choose` takes a tap and returns the new values and the facts to record.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from ..rules.hand import card_point_values, kitty_point_values
from ..rules.seats import TEAM_OF
from ..table.kinds import EventKind
from ..table.view import PenaltyOption, TableView
from ..words.hand import without_range
from .model import Btn, Grid, Row

SEATS = ("N", "E", "S", "W")
#: The shape recorded for a kitty of 0 points, whose shape changes nothing.
NO_KITTY_SHAPE = "single"
#: The kitty's shape where it is not asked: every shape multiplies the same (standard-80fen).
ANY_SHAPE = ""
#: Penalties the clock charges: each is an incident of its own, never "the same" as another.
CLOCK_PENALTIES = ("time-overrun",)
#: Where Back goes from each step.
BACK = {"last_trick": "points", "kitty_points": "last_trick", "kitty_shape": "kitty_points",
        "penalty_seat": "penalties", "penalty_kind": "penalty_seat",
        "penalty_option": "penalty_kind", "penalty_value": "penalty_kind",
        "penalty_incident": "penalty_kind",
        "trump": "penalties"}


@dataclass(frozen=True)
class EntryValues:
    """A hand's entry as far as it has gone. `pending`: the penalty being added (seat, code,
    option)."""

    step: str = "points"
    points: int | None = None
    last_trick: str | None = None  # "defenders" or "dealer"
    kitty_points: int | None = None
    kitty_shape: str | None = None
    penalties: tuple[tuple[str, dict[str, Any]], ...] = ()
    pending: dict[str, Any] = field(default_factory=dict)
    trump: str | None = None

    @property
    def kitty(self) -> dict[str, Any] | None:
        if self.last_trick == "defenders" and self.kitty_points is not None and \
                self.kitty_shape is not None:
            if self.kitty_shape == ANY_SHAPE:
                return {"points": self.kitty_points}
            return {"points": self.kitty_points, "shape": self.kitty_shape}
        return None

    def saved(self) -> dict[str, Any]:
        """What the journal keeps of the table's position in the entry."""
        out: dict[str, Any] = {"step": self.step}
        for key in ("last_trick", "kitty_points"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.pending:
            out["pending"] = dict(self.pending)
        return out


def live_values(view: TableView) -> EntryValues:
    """The table's entry of the hand in progress, as the journal has it."""
    step = dict(view.entry_step)
    kitty = view.kitty or {}
    # a step past the question answered it; at the question nothing is chosen yet
    last = step.get("last_trick") or ("defenders" if kitty else
                                      "dealer" if view.points is not None and
                                      step.get("step", "points") not in ("points", "last_trick")
                                      else None)
    return EntryValues(step=step.get("step", "points"), points=view.points, last_trick=last,
                       kitty_points=step.get("kitty_points", kitty.get("points")),
                       kitty_shape=_shape_of(kitty), penalties=view.penalties,
                       pending=dict(step.get("pending") or {}), trump=view.trump)


def record_values(record: dict[str, Any]) -> EntryValues:
    """A confirmed hand's record, for a correction."""
    kitty = record.get("kitty") or {}
    penalties = tuple((f"c{i}", {k: v for k, v in p.items() if k != "entered_by"})
                      for i, p in enumerate(record.get("penalties", ()), 1))
    return EntryValues(points=record.get("points"),
                       last_trick="defenders" if kitty else "dealer",
                       kitty_points=kitty.get("points"), kitty_shape=_shape_of(kitty),
                       penalties=penalties, trump=(record.get("trump") or {}).get("suit"))


def _shape_of(kitty: dict[str, Any]) -> str | None:
    """A kitty's shape as the entry keeps it: ANY_SHAPE where none was asked; no kitty, None."""
    return kitty.get("shape", ANY_SHAPE) if kitty else None


def as_record(values: EntryValues) -> dict[str, Any]:
    """A correction's entry in record form (points, kitty, penalties, trump)."""
    entry: dict[str, Any] = {}
    if values.points is not None:
        entry["points"] = values.points
    if values.kitty:
        entry["kitty"] = values.kitty
    if values.penalties:
        entry["penalties"] = [dict(p) for _, p in values.penalties]
    return entry


# -- drawing a step -----------------------------------------------------------------------


@dataclass(frozen=True)
class StepModel:
    name: str
    title: str
    lines: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    grids: tuple[Grid, ...] = ()
    nav: tuple[Btn, ...] = ()


def screen(values: EntryValues, view: TableView, t: Any, lang: str, dealer: str | None,
           correcting: bool = False, costs: tuple[tuple[str, dict[str, Any]], ...] = ()
           ) -> StepModel:
    """The step `values` is at. `dealer`: the dealer of the hand being entered; `costs`: what
    each of its penalties costs as the hand counts now (id, applied penalty as JSON)."""
    step = values.step
    terms = side_terms(view, t, lang, dealer)
    back = Btn("e_back", t("ui.back"), "quiet")
    if step == "points":
        nav = (back,) if correcting else (
            (Btn("e_back_to_play", t("ui.back_to_play"), "quiet"),)
            if view.undo and view.undo[0] == EventKind.PLAY_END else ())
        return StepModel("entry.points", t("ui.q.points", defenders=terms["defenders"]),
                         grids=(_values("e_points", card_point_values(), values.points,
                                         9, 6),),
                         nav=nav)
    if step == "last_trick":
        sides = (("defenders", terms["defenders_seats"]), ("dealer", terms["dealer_seats"]))
        return StepModel("entry.last_trick", t("ui.q.last_trick"), lines=(
            t("ui.points_so_far", points=values.points),),
            grids=(Grid(tuple(Btn(f"e_last:{key}", text, _sel(values.last_trick == key))
                              for key, text in sides), 2, 1),), nav=(back,))
    if step == "kitty_points":
        return StepModel("entry.kitty_points", t("ui.q.kitty_points"),
                         lines=(t("ui.points_so_far", points=values.points),),
                         grids=(_values("e_kitty", kitty_point_values(values.points),
                                        values.kitty_points, 9, 6),),
                         nav=(back,))
    if step == "kitty_shape":
        kp = values.kitty_points or 0
        buttons = tuple(
            Btn(f"e_shape:{shape}", t("ui.shape_times", shape=t("ui.shape." + shape), times=m,
                                      bonus=kp * m),
                _sel(values.kitty_shape == shape))
            for shape, m in view.multipliers.items())
        # the points so far, as on the steps before (after a restart it is the first step shown)
        return StepModel("entry.kitty_shape", t("ui.q.kitty_shape", points=kp),
                         lines=(t("ui.points_so_far", points=values.points),),
                         grids=(Grid(buttons, 4, 2),), nav=(back,))  # (eight: rows of 4)
    if step == "penalties":
        texts = priced_texts(values.penalties, costs, view, t, lang)
        rows = tuple(Row(text, Btn(f"e_del:{pid}", t("ui.delete"), "danger"))
                     for (pid, _), text in zip(values.penalties, texts, strict=True))
        lines = () if rows else (t("ui.no_penalties"),)
        back_to = Btn("e_back", t("ui.back"), "quiet")
        # (a correction asks the trump next; an individual deal's trump is not recorded)
        trump_next = correcting and view.kind == "team"
        finish = Btn("e_finish", t("ui.next_trump" if trump_next else "ui.next_summary"),
                     "primary")
        return StepModel("entry.penalties", t("ui.q.penalties"), lines=lines, rows=rows,
                         grids=(Grid((Btn("e_add", t("ui.add_penalty")),), 1, 1),),
                         nav=(back_to, finish))
    if step == "penalty_seat":
        seats = tuple(s for s in SEATS if any(s in who for who in _seats(view, dealer).values()))
        return StepModel("entry.penalty_seat", t("ui.q.penalty_seat"),
                         grids=(seat_grid("e_pseat", seats, view, t,
                                          values.pending.get("seat")),), nav=(back,))
    if step == "penalty_kind":
        seat = values.pending.get("seat", "")
        names = dict(view.penalty_names)
        codes = [code for code, who in _seats(view, dealer).items() if seat in who]
        buttons = tuple(Btn(f"e_pkind:{code}", names[code](lang),
                            _sel(values.pending.get("code") == code)) for code in codes)
        return StepModel("entry.penalty_kind", t("ui.q.penalty_kind",
                                                 seat=seat_label(view, seat, t)),
                         grids=(Grid(buttons, 4, 2),), nav=(back,))
    code = values.pending.get("code", "")
    name = dict(view.penalty_names)[code](lang) if code in dict(view.penalty_names) else ""
    options = view.penalty_forms.get(code, ())
    if step == "penalty_option":
        buttons = tuple(Btn(f"e_popt:{i}", option_label(o, t, lang))
                        for i, o in enumerate(options))
        return StepModel("entry.penalty_option", t("ui.q.penalty_option", name=name),
                         grids=(Grid(buttons, 2, 1),), nav=(back,))
    if step == "penalty_value":
        option = options[values.pending.get("option", 0)]
        return StepModel("entry.penalty_value", t(f"ui.q.penalty_{option.asks}", name=name),
                         grids=(_values("e_pval", option.values, None, 8, 4),), nav=(back,))
    if step == "penalty_incident":
        seat = values.pending.get("seat", "")
        earlier = _same_incident_candidates(values, seat)
        # one penalty an incident: the same incident adds nothing, and the answer says so
        same, rule = ("ui.same_incident_once", (t("show.one_penalty_per_incident"),)) \
            if view.one_penalty_per_incident else ("ui.same_incident", ())
        buttons = tuple(Btn(f"e_pinc:{pid}", t(same, penalty=penalty_text(p, view, t, lang)))
                        for pid, p in earlier)
        # (the title short enough for a portrait window; the new offence named under it)
        return StepModel("entry.penalty_incident", t("ui.q.penalty_incident",
                                                     seat=seat_label(view, seat, t)),
                         lines=(t("ui.incident_new", seat=seat_label(view, seat, t),
                                  name=name), *rule),
                         grids=(Grid((*buttons, Btn("e_pinc:new", t("ui.new_incident"))),
                                     1, 1),), nav=(back,))
    if step == "trump":
        buttons = tuple(Btn(f"e_trump:{suit}", trump_label(suit, t), _sel(values.trump == suit))
                        for suit in view.trumps)
        return StepModel("entry.trump", t("ui.q.trump"), grids=(Grid(buttons, 5, 3, 2.0),),
                         nav=(back, Btn("e_summary", t("ui.next_summary"), "primary")))
    raise ValueError(f"no entry step {step!r}")


#: The seats as they sit at the table: N at the top, W left, E right, S at the bottom.
TABLE_ORDER = (None, "N", None, "W", None, "E", None, "S", None)


def seat_grid(prefix: str, seats: tuple[str, ...], view: TableView, t: Any,
              selected: str | None = None) -> Grid:
    """A seat picker laid out as the table: each player where they sit this deal (a referee
    points at the chair), a seat that cannot be chosen a gap."""
    def button(chair: str | None) -> Btn:
        player = view.seated.get(chair, chair) if chair else None
        if player not in seats or chair is None:
            return Btn("", "")
        return Btn(f"{prefix}:{player}", chair_label(view, chair, t), _sel(player == selected))

    return Grid(tuple(button(chair) for chair in TABLE_ORDER), 3, 3, 1.4)


def _values(prefix: str, values: tuple[int, ...], chosen: int | None, cols: int,
            cols_portrait: int) -> Grid:
    return Grid(tuple(Btn(f"{prefix}:{v}", str(v), _sel(v == chosen)) for v in values), cols,
                cols_portrait)


def _sel(selected: bool) -> str:
    return "selected" if selected else "normal"


def _seats(view: TableView, dealer: str | None) -> dict[str, tuple[str, ...]]:
    """Who can commit each penalty, in the hand being entered."""
    if dealer and dealer in view.penalty_seats_by_dealer:
        return view.penalty_seats_by_dealer[dealer]
    return view.penalty_seats or {code: SEATS for code, _ in view.penalty_names}


# -- taking a tap -------------------------------------------------------------------------


def choose(values: EntryValues, action: str, view: TableView) -> tuple[EntryValues, list[Any]]:
    """The values after a tap, and the facts it records: ("points", points, kitty),
    ("penalty", code, seat, details), ("remove", id), ("finish",), ("back_to_play",),
    ("summary",)."""
    name, _, arg = action.partition(":")
    v = values
    if name == "e_back":
        return replace(v, step=_back(v), pending={} if v.step == "penalty_seat"
                       else v.pending), []
    if name == "e_back_to_play":
        return v, [("back_to_play",)]
    if name == "e_points":
        v = replace(v, points=int(arg), step="last_trick")
        if (v.kitty_points or 0) not in kitty_point_values(v.points):  # no longer possible
            v = replace(v, kitty_points=None, kitty_shape=None)
        return v, [("points", v.points, v.kitty)]
    if name == "e_last":
        if arg == "dealer":
            v = replace(v, last_trick="dealer", step="penalties")
            return v, [("points", v.points, None)]
        return replace(v, last_trick="defenders", step="kitty_points"), []
    if name == "e_kitty" and (int(arg) == 0 or view.kitty_times is not None):
        # nothing to multiply, or every shape multiplies the same: the shape is not asked
        shape = ANY_SHAPE if view.kitty_times is not None else NO_KITTY_SHAPE
        v = replace(v, kitty_points=int(arg), kitty_shape=shape, step="penalties")
        return v, [("points", v.points, v.kitty)]
    if name == "e_kitty":
        return replace(v, kitty_points=int(arg), step="kitty_shape"), []
    if name == "e_shape":
        v = replace(v, kitty_shape=arg, step="penalties")
        return v, [("points", v.points, v.kitty)]
    if name == "e_add":
        return replace(v, step="penalty_seat", pending={}), []
    if name == "e_del":
        return replace(v, penalties=tuple(p for p in v.penalties if p[0] != arg)), \
            [("remove", arg)]
    if name == "e_pseat":
        return replace(v, step="penalty_kind", pending={"seat": arg}), []
    if name == "e_pkind":
        pending = {**v.pending, "code": arg}
        options = view.penalty_forms.get(arg, ())
        if len(options) > 1:
            return replace(v, step="penalty_option", pending=pending), []
        pending["option"] = 0
        if options and options[0].asks:
            return replace(v, step="penalty_value", pending=pending), []
        return _add(v, pending, view, None)
    if name == "e_popt":
        pending = {**v.pending, "option": int(arg)}
        option = view.penalty_forms[pending["code"]][int(arg)]
        if option.asks:
            return replace(v, step="penalty_value", pending=pending), []
        return _add(v, pending, view, None)
    if name == "e_pval":
        return _add(v, v.pending, view, int(arg))
    if name == "e_pinc" and arg != "new" and view.one_penalty_per_incident:
        return replace(v, step="penalties", pending={}), []  # already penalised: nothing added
    if name == "e_pinc":  # "new", or the id of the earlier penalty of the same incident
        earlier = dict(v.penalties).get(arg, {})
        incident = True if arg == "new" else earlier.get("incident", arg)
        return _add(v, {**v.pending, "incident": incident}, view, None)
    if name == "e_finish":
        return v, [("finish",)]
    if name == "e_trump":
        return replace(v, trump=arg), []
    if name == "e_summary":
        return v, [("summary",)]
    raise ValueError(f"not an entry action: {action!r}")


def loser_by(values: EntryValues, action: str, view: TableView) -> str | None:
    """The team (NS or EW) a tap would make lose the match, by the penalty it adds (a
    ruleset's 判负): the referee's to decide, behind the PIN and a question. None: it adds
    no such penalty."""
    penalty = losing_penalty(values, action, view)
    return TEAM_OF[penalty["seat"]] if penalty else None


def losing_penalty(values: EntryValues, action: str, view: TableView
                   ) -> dict[str, Any] | None:
    """The offence of the penalty a tap would add that loses the match (its code, seat and
    details but the choice, which is the loss), to name it before the PIN and in the
    question; None: it adds no such penalty."""
    try:
        facts = choose(values, action, view)[1]
    except (KeyError, IndexError, ValueError):  # not a tap of this step: it adds nothing
        return None
    for fact in facts:
        if fact[0] == "penalty":
            _, code, seat, details = fact
            option = next(o for o in view.penalty_forms[code]
                          if o.choice == details.get("choice"))
            if option.effect == "match-loss":
                return {"code": code, "seat": seat,
                        **{k: v for k, v in details.items() if k != "choice"}}
    return None


def _back(values: EntryValues) -> str:
    if values.step == "penalties":  # back to the kitty, or to who won the last trick
        if values.last_trick != "defenders":
            return "last_trick"
        asked = values.kitty_points != 0 and values.kitty_shape != ANY_SHAPE
        return "kitty_shape" if asked else "kitty_points"
    if values.step == "penalty_value" and values.pending.get("code"):
        return "penalty_kind"
    return BACK.get(values.step, "points")


def _same_incident_candidates(values: EntryValues, seat: str
                              ) -> list[tuple[str, dict[str, Any]]]:
    """The seat's earlier penalties of this hand a new one may be the same incident as (an
    overrun the clock charged is not: it is an incident of its own)."""
    return [(pid, p) for pid, p in values.penalties
            if p["seat"] == seat and p["code"] not in CLOCK_PENALTIES]


def _add(values: EntryValues, pending: dict[str, Any], view: TableView, value: int | None
         ) -> tuple[EntryValues, list[Any]]:
    """Add the penalty `pending` describes; first ask, when the seat already has one this hand,
    whether it is the same incident (a ruleset may give one penalty per incident)."""
    if value is not None:
        pending = {**pending, "value": value}
    if "incident" not in pending and _same_incident_candidates(values, pending["seat"]):
        return replace(values, step="penalty_incident", pending=pending), []
    code, seat = pending["code"], pending["seat"]
    option = view.penalty_forms[code][pending.get("option", 0)]
    details: dict[str, Any] = {"incident": pending.get("incident", True)}
    if option.choice is not None:
        details["choice"] = option.choice
    if option.asks and "value" in pending:
        details[option.asks] = pending["value"]
    penalty = {"code": code, "seat": seat, **details}
    ids = {pid for pid, _ in values.penalties}
    new_id = next(f"c{i}" for i in range(1, len(ids) + 2) if f"c{i}" not in ids)
    if penalty["incident"] is True:  # an incident of its own, named by the penalty
        penalty["incident"] = new_id
    return (replace(values, step="penalties", pending={},
                    penalties=(*values.penalties, (new_id, penalty))),
            [("penalty", code, seat, details)])


# -- words --------------------------------------------------------------------------------


def side_terms(view: TableView, t: Any, lang: str, dealer: str | None) -> dict[str, str]:
    """The ruleset's own words for the two sides, and each with its seats."""
    own = view.terms  # (a ruleset's own words, each a Texts: its words in a language)
    defenders = own["defenders"](lang) if own.get("defenders") else t("term.defenders")
    dealer_side = own["dealer_side"](lang) if own.get("dealer_side") else t("term.dealer_side")
    out = {"defenders": defenders, "dealer_side": dealer_side,
           "defenders_seats": defenders, "dealer_seats": dealer_side}
    if dealer and view.kind == "team":
        ours = TEAM_OF[dealer]
        theirs = "EW" if ours == "NS" else "NS"
        out["defenders_seats"] = t("ui.side_with_team", side=defenders,
                                   team=team_label(view, theirs, t))
        out["dealer_seats"] = t("ui.side_with_team", side=dealer_side,
                                team=team_label(view, ours, t))
    elif dealer and view.partner:  # shuangsheng: the players on each side this deal
        sides: dict[str, tuple[str, ...]] = {"dealer_seats": (dealer, view.partner)}
        sides["defenders_seats"] = tuple(s for s in SEATS if s not in sides["dealer_seats"])
        for key, side in (("dealer_seats", dealer_side), ("defenders_seats", defenders)):
            out[key] = t("ui.side_players", side=side, players=t("ui.and").join(
                player_label(view, s, t) for s in sides[key]))
    return out


def seat_label(view: TableView, seat: str, t: Any) -> str:
    name = view.players.get(seat, "")
    return f"{t('seat.' + seat)} {name}".strip() if seat in SEATS else ""


def player_label(view: TableView, player: str, t: Any) -> str:
    """A player, and the chair they sit in this deal if it is not their own (shuangsheng)."""
    chair = next((c for c, p in view.seated.items() if p == player), player)
    return _seated_label(view, player, chair, t)


def chair_label(view: TableView, chair: str, t: Any) -> str:
    """Who sits in `chair`: its own player, or in shuangsheng the one who moved there for the
    deal, said with the chair (「西 张三（坐北）」)."""
    return _seated_label(view, view.seated.get(chair, chair), chair, t)


def _seated_label(view: TableView, player: str, chair: str, t: Any) -> str:
    label = seat_label(view, player, t)
    return label if player == chair else t("ui.in_chair", player=label,
                                          chair=t("seat." + chair))


def team_label(view: TableView, team: str, t: Any) -> str:
    return view.teams.get(team) or t("team." + team)


def trump_label(suit: str | None, t: Any) -> str:
    if suit is None:
        return "—"
    return t("ui.trump.NT") if suit == "NT" else suit


def has(t: Any, key: str) -> bool:
    """Whether the catalog has `key`."""
    try:
        t(key)
    except KeyError:
        return False
    except (IndexError, ValueError):  # it has, with placeholders
        return True
    return True


def option_label(option: PenaltyOption, t: Any, lang: str) -> str:
    """A penalty's way on its button: the default way by what it does (超时：怎样处理？
    「警告」 or 「裁判罚分」; 底牌放错: 「庄家下台」), a choice by its own name."""
    if option.effect == "big-points":  # what it costs, before it is chosen
        return str(t("ui.penalty_row", what=option.name(lang), cost=_big_points(option, t)))
    if option.choice is None and option.effect != "fix-total" and \
            has(t, f"ui.cost.{option.effect}"):  # (a fixed total depends on who is at fault)
        said = str(t(f"ui.cost.{option.effect}"))
        return said[:1].upper() + said[1:]  # (English: a label's capital)
    return str(option.name(lang))


def _big_points(option: PenaltyOption, t: Any) -> str:
    """An individual round's penalty in big points: 错方每人记-2大分，对方每人至少记2大分."""
    erring, other = option.big_points
    return str(t("ui.cost.big-points", erring=erring, other=other))


def penalty_name(view: TableView, p: dict[str, Any], lang: str) -> str:
    names = dict(view.penalty_names)
    return names[p["code"]](lang) if p.get("code") in names else ""


def cost_text(view: TableView, p: dict[str, Any], t: Any, lang: str) -> str:
    """What a penalty costs as it counted this hand (an applied penalty, as JSON): 罚10分（计入
    旁家得分）, 警告, 待裁判确认…"""
    effect = p.get("effect", "")
    amount = int(p.get("points") or 0)
    option = _option(p, view)
    if effect == "big-points" and option is not None:
        return _big_points(option, t)
    if effect == "fix-total":  # 本副按0分计: the total it fixes, by the side at fault
        fixes = dict(option.fixes) if option is not None else {}
        if p.get("side") in fixes:
            return str(t("ui.cost.fix-total", total=fixes[p["side"]]))
    key = ("ui.cost.points_add" if amount > 0 else "ui.cost.points_sub" if amount < 0
           else f"ui.cost.{effect}" if has(t, f"ui.cost.{effect}") and
           effect not in ("fix-total", "big-points") else "ui.cost.record")
    return str(t(key, n=abs(amount), defenders=side_terms(view, t, lang, None)["defenders"]))


def applied_text(view: TableView, p: dict[str, Any], t: Any, lang: str) -> str:
    """One penalty as it counted this hand: 北 跟错牌：罚10分（计入旁家得分）."""
    return str(t("ui.applied", seat=seat_label(view, p.get("seat", ""), t),
                 name=penalty_name(view, p, lang), cost=cost_text(view, p, t, lang)))


def _option(p: dict[str, Any], view: TableView) -> PenaltyOption | None:
    """The way a penalty was entered (its choice, or the default)."""
    return next((o for o in view.penalty_forms.get(p.get("code", ""), ())
                 if o.choice == p.get("choice")), None)


def _choice(p: dict[str, Any], view: TableView, lang: str) -> str:
    """The name of the penalty's choice, if it has one (出牌超时：警告)."""
    option = _option(p, view)
    return option.name(lang) if option is not None and option.choice is not None else ""


def priced_text(p: dict[str, Any], applied: dict[str, Any], view: TableView, t: Any,
                lang: str) -> str:
    """A penalty with what it costs as the hand counts it (`applied`): 东 超时 2.5 秒：警告. A
    choice that names its cost already (出牌超时：警告) is not followed by it again."""
    if applied.get("points"):  # the points the referee gave are said once, in the cost
        p = {k: v for k, v in p.items() if k != "points"}
    what, cost = penalty_text(p, view, t, lang), cost_text(view, applied, t, lang)
    choice = _choice(p, view, lang)
    option = _option(p, view)
    if applied.get("points") and option is not None and option.effect == "referee-points":
        # (「出牌超时：罚20分」, not 「出牌超时：罚10至80分：罚20分」)
        what = what.replace(choice, without_range(choice))
    if choice.endswith(cost):  # a choice that is its cost: 「暗示、干扰：判负」, said once
        if choice in what and penalty_name(view, p, lang) not in choice:
            bare = penalty_text({k: v for k, v in p.items() if k != "choice"}, view, t, lang)
            return str(t("ui.penalty_row", what=bare, cost=choice))
        return what
    return str(t("ui.penalty_row", what=what, cost=cost))


def priced_texts(penalties: tuple[tuple[str, dict[str, Any]], ...],
                 costs: tuple[tuple[str, dict[str, Any]], ...], view: TableView, t: Any,
                 lang: str) -> tuple[str, ...]:
    """Each penalty (id, as entered) with what it costs where `costs` (id, applied) says: the
    list, the result and a correction's summary in the same words (「北 超时 4.0 秒：警告」: the
    seconds over are the entry's, the rules core's applied penalty has none)."""
    priced = dict(costs)
    return tuple(priced_text(p, priced[pid], view, t, lang) if pid in priced
                 else penalty_text(p, view, t, lang, pid) for pid, p in penalties)


def counted_texts(penalties: tuple[tuple[str, dict[str, Any]], ...],
                  costs: tuple[tuple[str, dict[str, Any]], ...], view: TableView, t: Any,
                  lang: str) -> tuple[str, ...]:
    """The penalties as `priced_texts` says them, for a screen with room for a few (the result,
    a correction's summary): the same offence at the same seat for the same cost said once
    with its count (「东 超时：警告 ×9」); one entered once keeps its details (2.0 秒)."""
    full = priced_texts(penalties, costs, view, t, lang)
    bare = priced_texts(tuple((pid, {k: v for k, v in p.items() if k != "over_seconds"})
                              for pid, p in penalties), costs, view, t, lang)
    counts = Counter(bare)
    said: dict[str, str] = {}
    for short, long in zip(bare, full, strict=True):
        if short not in said:
            said[short] = long if counts[short] == 1 else \
                str(t("ui.penalty_times", text=short, n=counts[short]))
    return tuple(said.values())


def penalty_text(p: dict[str, Any], view: TableView, t: Any, lang: str,
                 pid: str | None = None) -> str:
    """A penalty as the table reads it: the seat, the offence and its details, and whether its
    cost waits for the referee (`pid`: its id in the hand in progress). A choice that names
    the offence itself (超时 → 出牌超时：警告) stands for it."""
    names = dict(view.penalty_names)
    name = names[p["code"]](lang) if p["code"] in names else p["code"]
    choice = _choice(p, view, lang)
    # an overrun's seconds follow the offence, inside a choice that names it too
    # (「出牌超时 5.0 秒：警告」, as the slip and the priced texts say it)
    named = f"{name} {t('ui.over_seconds', s=p['over_seconds'])}" if "over_seconds" in p \
        else name
    parts = [seat_label(view, p["seat"], t), named]
    if choice:
        parts[-1:] = [choice.replace(name, named, 1)] if name in choice else [named, choice]
    for key in ("cards", "points", "levels"):
        if key in p:
            parts.append(t(f"ui.penalty_{key}_n", n=p[key]))
    if p.get("confirmed"):
        parts.append(t("ui.penalty_confirmed"))
    elif pid is not None and pid in dict(view.unconfirmed):
        parts.append(t("ui.penalty_waiting"))
    return " ".join(x for x in parts if x)
