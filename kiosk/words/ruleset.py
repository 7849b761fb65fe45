"""A ruleset written out for people: `kiosk rules list` and `kiosk rules show`."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..i18n import render, translator
from ..rules import Rulesets
from ..rules.ruleset import GATHER_SECONDS, Band, DealerRules, Outcome, Ruleset
from .hand import seat_name, signed, terms
from .textfmt import table

Translate = Callable[..., str]


def list_rulesets(rulesets: Rulesets, lang: str) -> str:
    """One line a ruleset: id, name, kind, short hash, file."""
    t = translator(lang)
    rows = [(r.id, r.name(lang), t(f"kind.{r.kind}"), r.version, r.file)
            for r in rulesets.values()]
    return table([t("list.id"), t("list.name"), t("list.kind"), t("list.sha256"),
                  t("list.file")], rows, indent="")


def show_ruleset(ruleset: Ruleset, lang: str) -> str:
    """Everything the ruleset says, as readable sections and tables, in its own words."""
    t = translator(lang)
    out = [f"{ruleset.name(lang)}  ({ruleset.id})", "",
           f"{t('show.summary')}: {ruleset.summary(lang)}",
           f"{t('show.file')}: {ruleset.file}",
           f"{t('show.sha256')}: {ruleset.sha256}"]
    if ruleset.seed:
        out.append(f"{t('show.seed')}: {ruleset.seed}")
    out += _section(t("show.terms"), _terms(ruleset, lang, t))
    if ruleset.kind == "team":
        out += _team_sections(ruleset, lang, t)
    else:
        out += _individual_sections(ruleset, lang, t)
    out += _section(t("show.kitty", **terms(ruleset, lang)), _kitty(ruleset, lang, t))
    out += _section(t("show.time"), _timing(ruleset, t))
    out += _section(t("show.penalties"), _penalties(ruleset, lang, t))
    out += _section(t("show.result"), _result(ruleset, lang, t))
    out += _section(t("show.event"), f"  {ruleset.event.text(lang)}")
    if ruleset.readings:
        out += _section(t("show.readings"),
                        "\n".join(f"  · {r.text(lang)}" for r in ruleset.readings))
    return "\n".join(out) + "\n"


def cost_text(outcome: Outcome, t: Translate, words: Mapping[str, str],
              counts: str | None = None) -> str:
    """What one penalty outcome costs, in the ruleset's `words` (`terms`); `counts` says which
    cards a per-card cost counts."""
    effect = outcome.effect
    if effect == "points":
        if outcome.per_card:
            text = (t("cost.points_per_card_counts", points=outcome.points, counts=counts)
                    if counts else t("cost.points_per_card", points=outcome.points))
        else:
            text = t("cost.points", points=outcome.points)
        first = outcome.warnings_first
        if first:
            kind = "free" if outcome.first_free else "warning"
            key = f"cost.first_{kind}" if first == 1 else f"cost.firsts_{kind}"
            text = t(key, n=first, next=first + 1, cost=text)
        if outcome.late_refused:
            text = f"{text}{t('cost.sep')}{t('cost.late_refused')}"
    elif effect == "referee-points":
        text = (t("cost.referee_points_open", min=outcome.min) if outcome.max is None
                else t("cost.referee_points", min=outcome.min, max=outcome.max))
    elif effect == "referee-levels":
        text = t("cost.referee_levels", min=outcome.min)
    elif effect == "fix-total":
        text = t("cost.fix-total", if_defenders=outcome.if_defenders,
                 if_dealer_side=outcome.if_dealer_side, **words)
    elif effect == "big-points":
        text = t("cost.big-points", erring=signed(outcome.erring), other=outcome.other_at_least)
    else:
        text = t(f"cost.{effect}", **words)
    if outcome.referee_confirms:
        text = f"{text}{t('cost.sep')}{t('cost.referee_confirms')}"
    return text


def band_text(band: Band, final: str, t: Translate, words: dict[str, str] | None = None
              ) -> tuple[str, str, str]:
    """A level-change band as (range of T, result, levels)."""
    span = f"{band.low}+" if band.high is None else (
        str(band.low) if band.high == band.low else f"{band.low}–{band.high}")
    if band.hook == "straight-to-final":
        levels = t("band.straight", final=final)
    elif band.every:
        levels = t("band.every", advance=band.advance, every=band.every)
    else:
        levels = f"+{band.advance}"
    result = (t(f"words.result.{band.result}", **words) if words
              else t(f"result.{band.result}"))
    return span, result, levels


def _section(title: str, body: str) -> list[str]:
    return ["", title, body]


def _terms(ruleset: Ruleset, lang: str, t: Translate) -> str:
    words = terms(ruleset, lang)
    lines = []
    for name in ("dealer", "dealer_side", "defenders"):
        term = words[name]
        also = words.get(f"{name}_also")
        shown = t("terms.also", term=term, also=also) if also else term
        lines.append(f"  {t(f'terms.{name}', term=shown, **words)}")
    return "\n".join(lines)


def _team_sections(ruleset: Ruleset, lang: str, t: Translate) -> list[str]:
    words = terms(ruleset, lang)
    must_play = " ".join(level for level in ruleset.ladder if level in ruleset.must_play)
    ladder = "\n".join([f"  {' '.join(ruleset.ladder)}",
                        f"  {t('show.final')}: {ruleset.final}",
                        f"  {t('show.must_play')}: {must_play or t('show.must_play_none')}"])
    bands = table([t("col.total", **words), t("col.result"), t("col.advance")],
                  [band_text(b, ruleset.final, t, words) for b in ruleset.bands])
    dealer = ruleset.dealer
    dealer_lines = [
        f"  {t('dealer.first')}: {t('dealer.first.' + dealer.first)}",
        f"  {t('dealer.hold', **words)}: {t('dealer.hold.' + dealer.hold, **words)}",
        f"  {t('dealer.take_over', **words)}: "
        f"{t('dealer.take_over.' + dealer.take_over, **words)}",
        f"  {t('dealer.direction')}: {_direction(dealer, t)}",
        *([] if ruleset.plays_no_trump else [f"  {t('show.no_no_trump')}"]),
    ]
    redeal, condition = ruleset.redeal, ruleset.redeal_condition()
    if redeal is None or condition is None:
        redeal_lines = [f"  {t('redeal.none')}"]
    else:
        redeal_lines = [
            f"  {render(condition.key, condition.params, lang)}",
            f"  {t('redeal.before_first')}: {t('redeal.' + redeal.dealer_before_first_hand)}",
            f"  {t('redeal.after')}: {t('redeal.' + redeal.dealer_after)}",
        ]
    frying = f"  {t('frying.yes' if ruleset.frying else 'frying.no')}"
    return [*_section(t("show.ladder"), ladder),
            *_section(t("show.bands", **words), bands),
            *_section(t("show.dealer"), "\n".join(dealer_lines)),
            *_section(t("show.redeal"), "\n".join(redeal_lines)),
            *_section(t("show.frying"), frying)]


def _direction(dealer: DealerRules, t: Translate) -> str:
    """The play direction, said to be the project's reading where the seed is silent."""
    shown = t("direction." + dealer.direction)
    return t("direction.read", direction=shown) if dealer.direction_read else shown


def _individual_sections(ruleset: Ruleset, lang: str, t: Translate) -> list[str]:
    deals = ruleset.deals
    assert deals is not None
    words = terms(ruleset, lang)
    order = deals.dealer_order
    rows = [(i, level, seat_name(order[(i - 1) % len(order)], lang))
            for i, level in enumerate(deals.levels, 1)]
    deal_table = table([t("col.deal"), t("col.level"), t("col.dealer")], rows)
    partner_rows = [(" ".join(r for r, w in deals.partner_by_card.items() if w == where),
                     t(f"partner.{where}")) for where in ("right", "opposite", "left")]
    partner = table([t("col.card"), t("col.partner")], partner_rows)
    big = table([t("col.total", **words), t("col.dealer_side", **words),
                 t("col.defenders", **words)],
                [(band_text(Band(b.low, b.high, "hold", 0), "", t)[0], b.dealer_side, b.defenders)
                 for b in ruleset.big_points])
    direction = f"  {t('dealer.direction')}: {_direction(ruleset.dealer, t)}"
    seats = " ".join(seat_name(p, lang) for p in order)
    return [*_section(t("show.deals"), f"{deal_table}\n  {t('deals.order')}: {seats}"),
            *_section(t("show.partner"), f"{partner}\n{direction}"),
            *_section(t("show.big_points", **words), big)]


def _kitty(ruleset: Ruleset, lang: str, t: Translate) -> str:
    kitty = ruleset.kitty
    rows = [(t("kitty.single"), kitty.single), (t("kitty.pair"), kitty.pair),
            (t("kitty.pairs"), kitty.pairs)]
    rows += [(t("kitty.tractor", n=n), kitty.multiplier(f"tractor{n}")) for n in (2, 3, 4)]
    tractors = f"  {t('kitty.tractors')}: {kitty.tractors(lang)}"
    if len({m for _, m in rows}) == 1:  # standard-80fen: every shape counts the same
        return f"  {t('kitty.flat', n=kitty.single)}\n{tractors}"
    growth = t(f"kitty.tractor_n.{kitty.tractor_growth}", step=kitty.tractor_step)
    return "\n".join([table([t("col.shape"), t("col.multiplier")], rows), f"  {growth}",
                      tractors])


def _timing(ruleset: Ruleset, t: Translate) -> str:
    timing = ruleset.time

    def seconds(value: float) -> str:
        text = t("time.seconds", n=_number(value))
        return t("time.kiosk_default", value=text) if timing.kiosk_default else text

    lines = [f"  {t('time.play')}: {seconds(timing.play_seconds)}",
             f"  {t('time.bury')}: {seconds(timing.bury_seconds)}"]
    if timing.rebury_seconds is not None:
        lines.append(f"  {t('time.rebury')}: {seconds(timing.rebury_seconds)}")
    gather = (t("time.seconds", n=_number(timing.gather_seconds))
              if timing.gather_seconds is not None else
              t("time.kiosk_default", value=t("time.seconds", n=_number(GATHER_SECONDS))))
    lines.append(f"  {t('time.gather')}: {gather}")
    match = (t("time.minutes", n=_number(timing.match_minutes)) if timing.match_minutes
             else t("time.no_limit"))
    lines.append(f"  {t('time.match')}: {match}")
    if ruleset.kind == "team":
        lines.append(f"  {t('time.up')}: {t('time_up.' + timing.time_up)}")
    return "\n".join(lines)


def _penalties(ruleset: Ruleset, lang: str, t: Translate) -> str:
    words = terms(ruleset, lang)
    rows: list[tuple[str, str, str, str]] = []
    for penalty in ruleset.penalties.values():
        counts = penalty.counts(lang) if penalty.counts else None
        cost = (cost_text(penalty.default, t, words, counts) if penalty.default
                else t("cost.needs_choice"))
        rows.append((penalty.code, penalty.name(lang), _who(penalty.committed_by, ruleset, lang),
                     cost))
        for key, choice in penalty.choices.items():
            rows.append((f"  · {key}", choice.name(lang), "",
                         cost_text(choice.outcome, t, words, counts)))
    direction = f"  {t('show.penalty_direction', **words)}"
    incident = [f"  {t('show.one_penalty_per_incident')}"] if (
        ruleset.one_penalty_per_incident) else []
    return "\n".join([direction, *incident, table(
        [t("col.code"), t("col.name"), t("col.who"), t("col.cost")], rows)])


def _who(committed_by: tuple[str, ...], ruleset: Ruleset, lang: str) -> str:
    """Who can commit an offence, in the ruleset's words (without seats: no hand is dealt)."""
    words = terms(ruleset, lang)
    t = translator(lang)
    parts = []
    for who in committed_by:
        if who in ("dealer-side", "defenders", "dealer"):
            parts.append(words[who.replace("-", "_")])
        else:
            parts.append(t(f"rules.who.{who}", dealer=words["dealer"]))
    return parts[0] if len(parts) == 1 else t("rules.who.either", a=parts[0], b=parts[1])


def _result(ruleset: Ruleset, lang: str, t: Translate) -> str:
    scoring = ruleset.result
    if not scoring.big_points:  # (standard-80fen: single matches, no points at all)
        return f"  {t('result.no_points')}"
    first = (t("big_points_sum") if ruleset.kind == "individual"
             else t("result.win", win=scoring.win_points, loss=scoring.loss_points))
    tie_break = t("tie_break." + scoring.tie_break)
    lines = [f"  {first}", f"  {tie_break}"]
    if scoring.further_tie_breaks:
        order = t("cost.list_sep").join(t(f"tie_break.more.{name}")
                                        for name in scoring.further_tie_breaks)
        lines.append(f"  {t('tie_break.further', order=order)}")
    return "\n".join(lines)


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"
