"""What a replayed match says to a person, in the ruleset's own words: seats as 北/东/南/西 (or
the player's name), results, the kitty, each penalty with its direction (「罚80分（计入抓分方）」,
never a bare "+80"), the end of the match and the signatures in table order.

The score sheet (`kiosk.words.sheet`) and the printed slip (`kiosk.hw.slip`) both speak through this
module; the kiosk's screens may too. Every function takes the replay lines of docs/rules.md §9
and the record they came from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..i18n import translator
from ..rules import Ruleset
from ..rules.seats import PLAY_ORDER
from ..rules.seats import TEAMS as TEAM_IDS

Translate = Callable[..., str]


class Vocabulary(Protocol):
    """What has a ruleset's own words for the sides: the ruleset, or a kiosk's view of it."""

    @property
    def terms(self) -> Mapping[str, Any]: ...


def terms(ruleset: Vocabulary, lang: str) -> dict[str, str]:
    """The ruleset's own words in `lang`: dealer, dealer_side, defenders (and their aliases)."""
    return {name: text(lang) for name, text in ruleset.terms.items()}


def table_order(ruleset: Ruleset) -> tuple[str, ...]:
    """The seats (or, individually, the players' letters) in the order they sit and play: from
    北 in the ruleset's direction; shuangsheng in its drawn order 东 北 西 南."""
    if ruleset.deals is not None:
        return ruleset.deals.dealer_order
    return PLAY_ORDER[ruleset.dealer.direction]


def seat_name(seat: str, lang: str, players: Mapping[str, Any] | None = None) -> str:
    """北, 东, 南 or 西 (N, E, S, W in English), with the player's name when known."""
    name = translator(lang)(f"seat.{seat}")
    player = (players or {}).get(seat)
    return f"{name} {player}" if player else name


def signers(ruleset: Ruleset, record: Mapping[str, Any], lang: str) -> list[str]:
    """Who signs, in table order, then the referee."""
    players = record.get("players") or {}
    return [*(seat_name(s, lang, players) for s in table_order(ruleset)),
            translator(lang)("words.referee")]


def team_line(team: str, teams: Mapping[str, Any], players: Mapping[str, Any],
              lang: str) -> str | None:
    """「南北：市购销公司（北 张三，南 李四）」, or None when neither name is known."""
    t = translator(lang)
    who = t("words.list_sep").join(seat_name(s, lang, players) for s in team if s in players)
    name = teams.get(team)
    if name and who:
        return t("words.team_line", team=t(f"team.{team}"), name=name, players=who)
    if name or who:
        return t("words.team_line_one", team=t(f"team.{team}"), name=name or who)
    return None


def signed(value: int) -> str:
    """A number of big points or levels with its sign: +2, -2, 0 (never "+-2")."""
    return f"{value:+d}" if value else "0"


def result_words(line: Mapping[str, Any], ruleset: Vocabulary, lang: str) -> str:
    """What the hand did, in the ruleset's words: 「庄家方守庄」, 「抓分方上台」,
    「革命（东提出）」."""
    t = translator(lang)
    result = line["result"]
    if result == "redeal" and line.get("called_by"):
        return t("words.result.redeal_by", seat=seat_name(line["called_by"], lang))
    if result in ("hold", "take-over"):
        return t(f"words.result.{result}", **terms(ruleset, lang))
    return t(f"result.{result}")


def shape_words(shape: str, lang: str) -> str:
    """A kitty shape (single, pair, pairsN, tractorN) in words."""
    t = translator(lang)
    if shape in ("single", "pair"):
        return t(f"kitty.{shape}")
    kind, pairs = shape.rstrip("0123456789"), shape[len(shape.rstrip("0123456789")):]
    return t("kitty.pairs_n" if kind == "pairs" else "kitty.tractor", n=pairs)


def kitty_words(entry: Mapping[str, Any] | None, ruleset: Ruleset, lang: str) -> str | None:
    """「抠底：底牌10分×8（2连对）＝80分」 for a hand whose kitty the defenders won (「抠底：底牌
    无分」 where it held none: 「0分×2＝0分」 is a sum with nothing to add), else None."""
    kitty = (entry or {}).get("kitty")
    if not kitty:
        return None
    if not kitty["points"]:
        return translator(lang)("words.kitty_empty")
    shape = kitty.get("shape")  # (not asked where every shape multiplies the same)
    multiplier = ruleset.kitty.multiplier(shape)
    return translator(lang)("words.kitty" if shape else "words.kitty_any", points=kitty["points"],
                            multiplier=multiplier, shape=shape_words(shape, lang) if shape else "",
                            bonus=kitty["points"] * multiplier)


SUITS = {"♠": "spades", "♥": "hearts", "♣": "clubs", "♦": "diamonds"}


def fry_words(entry: Mapping[str, Any] | None, lang: str,
              players: Mapping[str, Any] | None = None) -> str | None:
    """「东炒底，主红桃」 for a hand whose kitty another seat than the dealer buried last
    (chaodipi frying: the frier's trump is the hand's), else None. The suit in words: a
    thermal printer's GB2312 font has no ♠♥♣♦."""
    entry = entry or {}
    frier, trump = entry.get("buried_by"), entry.get("trump") or {}
    if frier not in ("N", "E", "S", "W") or frier == entry.get("dealer"):
        return None
    t = translator(lang)
    suit = trump.get("suit")
    seat = seat_name(frier, lang, players)
    if lang != "en" and seat[-1:].isascii() and seat[-1:].isalnum():
        seat += " "  # 「东 Li Wei 炒底」, not 「Li Wei炒底」 (Chinese puts no space before 炒底)
    if suit == "NT":
        return t("words.fried_nt", seat=seat)
    return t("words.fried", seat=seat, trump=t("words.suit." + SUITS[suit])
             if suit in SUITS else suit or "—")


def penalty_words(p: Mapping[str, Any], ruleset: Ruleset, lang: str, total: int | None,
                  players: Mapping[str, Any] | None = None) -> str:
    """One penalty of a replay line: who, what, and what it did, with its direction:
    「东 王五 翻看上一轮的牌 罚10分（从旁家得分中扣除）」."""
    t = translator(lang)
    name, cost = penalty_name(p, ruleset, lang), cost_words(p, ruleset, lang, total)
    seat = seat_name(p["seat"], lang, players)
    if cost in name:  # a choice named with its cost (「出牌超时：警告」): said once
        return t("words.penalty_named", seat=seat, name=name)
    return t("words.penalty", seat=seat, name=name, cost=cost)


def penalty_name(p: Mapping[str, Any], ruleset: Ruleset, lang: str) -> str:
    """The penalty's name, its choice where one was made, and the card count."""
    t = translator(lang)
    penalty = ruleset.penalties.get(p["code"])
    base = penalty.name(lang) if penalty else p["code"]
    name = base
    over = p.get("over_seconds")
    if over is not None:  # an overrun: by how much, as the kiosk said it, after the offence
        # The kiosk keeps tenths: a press 0.04 s late is over, and recorded as 0.0 s.
        under = isinstance(over, int | float) and over < 0.1
        name = t("words.with_seconds_under", name=base) if under else \
            t("words.with_seconds", name=base, s=over)
    choice = penalty.choices.get(p["choice"]) if penalty and p.get("choice") else None
    if choice is not None:
        picked = choice.name(lang)
        if p.get("effect") == "referee-points" and p.get("points"):
            picked = without_range(picked)
        # (a choice named with the offence, 「出牌超时：警告」: the seconds go after the
        # offence in it, 「出牌超时 4.0 秒：警告」, as they do before any other cost)
        name = picked.replace(base, name, 1) if base.lower() in picked.lower() else \
            t("words.penalty_choice", name=name, choice=picked)
    if p.get("cards"):
        name = t("words.with_cards", name=name, n=p["cards"])
    return name


def without_range(choice: str) -> str:
    """A choice named with the range of points the referee may give (出牌超时：罚10至80分),
    once the referee gave them: its name alone, the points given being said after it."""
    return choice.partition("：")[0].partition(": ")[0] or choice


def cost_words(p: Mapping[str, Any], ruleset: Ruleset, lang: str, total: int | None) -> str:
    """What the penalty did this time, in words with its direction."""
    t = translator(lang)
    words = terms(ruleset, lang)
    effect = p["effect"]
    if p.get("not_counted"):
        return t("words.cost.not_counted", points=abs(p["not_counted"]), total=total)
    if effect in ("points", "referee-points"):
        key = "words.cost.to_defenders" if p["points"] > 0 else "words.cost.from_defenders"
        return t(key, points=abs(p["points"]), **words)
    if effect == "fix-total":
        return t("words.cost.fix-total", total=total)
    if effect == "referee-levels":
        return t("words.cost.referee-levels", levels=p.get("levels", 0))
    if effect == "big-points":
        penalty = ruleset.penalties[p["code"]]
        outcome = penalty.outcome(p.get("choice"))
        return t("words.cost.big-points", erring=signed(outcome.erring),
                 other=outcome.other_at_least)
    return t(f"words.cost.{effect}", **words)


def level_words(line: Mapping[str, Any], team: str, lang: str) -> str:
    """A team's level after a hand: 「过A」 for the team that won by passing the final level,
    in the hands' last row as in the final levels under them."""
    level = line["levels"][team]
    past = line.get("winner") == team and line.get("by") == "ladder"
    return translator(lang)("words.past", level=level) if past else level


def final_levels_words(last: Mapping[str, Any], ruleset: Ruleset, lang: str) -> str:
    """「最终级数：南北 过10  东西 10」: a team that passed the final level shows 过."""
    t = translator(lang)
    return t("words.final_levels", levels="  ".join(
        t("words.team_level", team=t(f"team.{team}"), level=level_words(last, team, lang))
        for team in TEAM_IDS))


def tie_ending(decided: Mapping[str, Any]) -> str:
    """The ending of a time-up message's key that says what broke a tie of levels, if one
    did (a result's `tie`: ".reached-first", ".last-hand"), else ""."""
    return f".{decided['tie']}" if decided.get("tie") else ""


def winner_words(last: Mapping[str, Any], ruleset: Ruleset, lang: str) -> str:
    """Who won and how: 「胜方：东西（打过A）」, 「东西被判负，南北获胜」,
    「东西弃权，南北获胜」."""
    t = translator(lang)
    winner = last["winner"]
    loser = "EW" if winner == "NS" else "NS"
    return t(f"words.winner.{last['by']}{tie_ending(last)}", team=t(f"team.{winner}"),
             loser=t(f"team.{loser}"), final=ruleset.final if ruleset.ladder else "",
             level=(last.get("levels") or {}).get("NS", ""))


def net_levels_words(net: Mapping[str, int], lang: str) -> str:
    """「净胜级数：南北 净负9级  东西 净胜9级」 as the seed's score sheet writes it."""
    t = translator(lang)
    parts = []
    for team in TEAM_IDS:
        value = net[team]
        key = ("words.net_win" if value > 0 else "words.net_loss" if value < 0
               else "words.net_even")
        parts.append(t("words.team_level", team=t(f"team.{team}"), level=t(key, n=abs(value))))
    return t("words.net_levels", levels="  ".join(parts))


def big_points_words(points: Mapping[str, int], lang: str) -> str:
    t = translator(lang)
    return t("words.big_points", levels="  ".join(
        t("words.team_level", team=t(f"team.{team}"), level=points[team]) for team in TEAM_IDS))


def called_words(end: Mapping[str, Any] | None, lang: str) -> list[str]:
    """Who called time, as the record's `end` says (「时间到：裁判长宣布全场时间到」), if anyone
    did."""
    called = end.get("called_by") if end else None
    return [translator(lang)(f"words.time_up_by.{called}")] if called else []


def ending_words(last: Mapping[str, Any] | None, ruleset: Ruleset, lang: str,
                 end: Mapping[str, Any] | None = None) -> list[str]:
    """The end of a team match: winner, who called time (the record's `end`), reason, final
    levels, big points, net levels."""
    t = translator(lang)
    called = called_words(end, lang)
    if last is None or not last.get("winner"):
        return [t("sheet.no_winner"), *called]
    out = [winner_words(last, ruleset, lang), *called]
    if last.get("reason"):
        out.append(t("words.reason", reason=last["reason"]))
    out.append(final_levels_words(last, ruleset, lang))
    if "big_points" in last:
        out.append(big_points_words(last["big_points"], lang))
    if "net_levels" in last:
        out.append(net_levels_words(last["net_levels"], lang))
    return out


def ranking_words(totals: Mapping[str, int], order: Sequence[str], lang: str,
                  players: Mapping[str, Any] | None = None) -> str:
    """Players from the highest total down: 「东 19 > 北 17 = 西 17 > 南 12」; equal totals are
    joined by "=" and keep the table order (the head referee orders ties)."""
    ranked = sorted(order, key=lambda p: -totals[p])  # stable: table order within a tie
    out = ""
    for i, player in enumerate(ranked):
        if i:
            out += " = " if totals[player] == totals[ranked[i - 1]] else " > "
        out += f"{seat_name(player, lang, players)} {totals[player]}"
    return out


def hand_entry(record: Mapping[str, Any], line: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The record's entry for a replay line (the hand or deal it came from)."""
    if line.get("deal") is not None:
        entries, number = record.get("deals") or [], line["deal"]
    else:
        entries, number = record.get("hands") or [], line.get("hand")
    if not isinstance(number, int) or not 0 < number <= len(entries):
        return None
    entry = entries[number - 1]
    return entry if isinstance(entry, Mapping) else None


def notes(record: Mapping[str, Any], line: Mapping[str, Any], ruleset: Ruleset, lang: str,
          players: Mapping[str, Any] | None = None) -> list[str]:
    """A fry, the kitty, every penalty of one hand, a must-play level that stopped its
    advance, a straight climb to the final level and a dispute the table's referee ruled on,
    one note each."""
    out = []
    entry = hand_entry(record, line)
    fried = fry_words(entry, lang, players)
    if fried:
        out.append(fried)
    kitty = kitty_words(entry, ruleset, lang)
    if kitty:
        out.append(kitty)
    # each applied penalty with what only its entry says (an overrun's seconds), paired by
    # position: the rules core applies them in the entry's order
    entered = (entry or {}).get("penalties") or []
    for i, p in enumerate(line.get("penalties", [])):
        said = entered[i] if i < len(entered) and isinstance(entered[i], Mapping) else {}
        if "over_seconds" in said:
            p = {**p, "over_seconds": said["over_seconds"]}
        out.append(penalty_words(p, ruleset, lang, line.get("total"), players))
    if line.get("stopped_at"):
        out.append(stopped_words(line, lang))
    straight = straight_words(line, ruleset, lang)
    if straight:
        out.append(straight)
    if entry and entry.get("disputed_by"):
        out.append(disputed_words(entry["disputed_by"], ruleset, lang))
    return out


def corrected_words(was: int | None, reason: str, now: int | None, lang: str) -> str:
    """「裁判已更正：30→50分（记错了底牌）」: a hand the referee corrected once it was
    confirmed, with its total as first confirmed where it changed, and the reason."""
    t = translator(lang)
    if not reason:
        return t("words.corrected")
    if was is not None and now is not None and was != now:
        return t("words.corrected_total", was=was, now=now, reason=reason)
    return t("words.corrected_why", reason=reason)


def disputed_words(side: str, ruleset: Vocabulary, lang: str) -> str:
    """「东西有异议，裁判维持原结果」: a hand whose result a side disputed, and the
    referee upheld as entered (a result changed on a dispute is confirmed by both sides)."""
    t = translator(lang)
    said = terms(ruleset, lang).get("dealer_side" if side == "dealer" else "defenders") \
        if side in ("dealer", "defenders") else t(f"team.{side}")
    return t("words.disputed", side=said)


def straight_words(line: Mapping[str, Any], ruleset: Ruleset, lang: str) -> str | None:
    """「庄家方直升 A」 for a hand whose total sends the dealer side straight to the final level
    (chaodipi's 大光, 0): its advance counts the same levels, but the rule is what the players
    check, and the kiosk says it so. None for any other hand."""
    total = line.get("total")
    if ruleset.kind != "team" or line.get("result") != "hold" or line.get("winner") or \
            not isinstance(total, int) or ruleset.band_for(total).hook != "straight-to-final":
        return None
    level = line["levels"]["NS" if line["dealer"] in "NS" else "EW"]
    return translator(lang)("words.straight", level=level)


def stopped_words(line: Mapping[str, Any], lang: str) -> str:
    """Why a hand advanced fewer levels than its total gave: 「10 是必打级：升到此为止，…」."""
    return translator(lang)("words.stopped_at", level=line["stopped_at"])
