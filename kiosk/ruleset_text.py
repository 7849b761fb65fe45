"""A ruleset written out for people: `kiosk rules list` and `kiosk rules show`."""

from __future__ import annotations

from collections.abc import Callable

from .i18n import translator
from .rules import Rulesets
from .rules.ruleset import Band, Outcome, Ruleset
from .textfmt import table

Translate = Callable[..., str]


def list_rulesets(rulesets: Rulesets, lang: str) -> str:
    """One line a ruleset: id, name, kind, short hash, file."""
    t = translator(lang)
    rows = [(r.id, r.name(lang), t(f"kind.{r.kind}"), r.sha256[:12], r.file)
            for r in rulesets.values()]
    return table([t("list.id"), t("list.name"), t("list.kind"), t("list.sha256"),
                  t("list.file")], rows, indent="")


def show_ruleset(ruleset: Ruleset, lang: str) -> str:
    """Everything the ruleset says, as readable sections and tables."""
    t = translator(lang)
    out = [f"{ruleset.name(lang)}  ({ruleset.id})", "",
           f"{t('show.summary')}: {ruleset.summary(lang)}",
           f"{t('show.file')}: {ruleset.file}",
           f"{t('show.sha256')}: {ruleset.sha256}"]
    if ruleset.seed:
        out.append(f"{t('show.seed')}: {ruleset.seed}")
    if ruleset.kind == "team":
        out += _team_sections(ruleset, t)
    else:
        out += _individual_sections(ruleset, t)
    out += _section(t("show.kitty"), table([t("col.shape"), t("col.multiplier")],
                                            _kitty_rows(ruleset, t)))
    out.append(f"  {_tractor_growth(ruleset, t)}")
    out += _section(t("show.time"), _timing(ruleset, t))
    out += _section(t("show.penalties"), _penalties(ruleset, lang, t))
    out += _section(t("show.result"), _result(ruleset, t))
    out += _section(t("show.event"), f"  {ruleset.event.text(lang)}")
    if ruleset.readings:
        out += _section(t("show.readings"),
                        "\n".join(f"  · {r.text(lang)}" for r in ruleset.readings))
    return "\n".join(out) + "\n"


def cost_text(outcome: Outcome, t: Translate) -> str:
    """What one penalty outcome costs, in words."""
    effect = outcome.effect
    if effect == "points":
        key = "cost.points_per_card" if outcome.per_card else "cost.points"
        text = t(key, points=outcome.points)
        if outcome.warnings_first:
            text = t("cost.warnings_first", n=outcome.warnings_first, cost=text)
        if outcome.late_refused:
            text = f"{text}; {t('cost.late_refused')}"
        return text
    if effect == "referee-points":
        if outcome.max is None:
            return t("cost.referee_points_open", min=outcome.min)
        return t("cost.referee_points", min=outcome.min, max=outcome.max)
    if effect == "referee-levels":
        return t("cost.referee_levels", min=outcome.min)
    if effect == "fix-total":
        return t("cost.fix-total", defenders=outcome.if_defenders, dealer=outcome.if_dealer_side)
    if effect == "big-points":
        return t("cost.big-points", erring=outcome.erring, other=outcome.other_at_least)
    return t(f"cost.{effect}")


def band_text(band: Band, final: str, t: Translate) -> tuple[str, str, str]:
    """A level-change band as (range of T, result, levels)."""
    span = f"{band.low}+" if band.high is None else (
        str(band.low) if band.high == band.low else f"{band.low}–{band.high}")
    if band.hook == "straight-to-final":
        levels = t("band.straight", final=final)
    elif band.every:
        levels = t("band.every", advance=band.advance, every=band.every)
    else:
        levels = f"+{band.advance}"
    return span, t(f"result.{band.result}"), levels


def _section(title: str, body: str) -> list[str]:
    return ["", title, body]


def _team_sections(ruleset: Ruleset, t: Translate) -> list[str]:
    must_play = " ".join(level for level in ruleset.ladder if level in ruleset.must_play)
    ladder = "\n".join([f"  {' '.join(ruleset.ladder)}",
                        f"  {t('show.final')}: {ruleset.final}",
                        f"  {t('show.must_play')}: {must_play or t('none')}"])
    bands = table([t("col.total"), t("col.result"), t("col.advance")],
                  [band_text(b, ruleset.final, t) for b in ruleset.bands])
    dealer = ruleset.dealer
    dealer_lines = [
        f"  {t('dealer.first')}: {t('dealer.first.' + dealer.first)}",
        f"  {t('dealer.hold')}: {t('dealer.hold.' + dealer.hold)}",
        f"  {t('dealer.take_over')}: {t('dealer.take_over.' + dealer.take_over)}",
        f"  {t('dealer.direction')}: {t('direction.' + dealer.direction)}",
    ]
    redeal = ruleset.redeal
    if redeal is None:
        redeal_lines = [f"  {t('redeal.none')}"]
    else:
        redeal_lines = [
            f"  {t('redeal.rule', points=redeal.max_hand_points)}",
            f"  {t('redeal.before_first')}: {t('redeal.' + redeal.dealer_before_first_hand)}",
            f"  {t('redeal.after')}: {t('redeal.' + redeal.dealer_after)}",
        ]
    frying = f"  {t('frying.yes' if ruleset.frying else 'frying.no')}"
    return [*_section(t("show.ladder"), ladder), *_section(t("show.bands"), bands),
            *_section(t("show.dealer"), "\n".join(dealer_lines)),
            *_section(t("show.redeal"), "\n".join(redeal_lines)),
            *_section(t("show.frying"), frying)]


def _individual_sections(ruleset: Ruleset, t: Translate) -> list[str]:
    deals = ruleset.deals
    assert deals is not None
    order = deals.dealer_order
    rows = [(i, level, order[(i - 1) % len(order)]) for i, level in enumerate(deals.levels, 1)]
    deal_table = table([t("col.deal"), t("col.level"), t("col.dealer")], rows)
    partner_rows = [(" ".join(r for r, w in deals.partner_by_card.items() if w == where),
                     t(f"partner.{where}")) for where in ("right", "opposite", "left")]
    partner = table([t("col.card"), t("col.partner")], partner_rows)
    big = table([t("col.total"), t("col.dealer_side"), t("col.defenders")],
                [(band_text(Band(b.low, b.high, "hold", 0), "", t)[0], b.dealer_side, b.defenders)
                 for b in ruleset.big_points])
    direction = f"  {t('dealer.direction')}: {t('direction.' + ruleset.dealer.direction)}"
    return [*_section(t("show.deals"), f"{deal_table}\n  {t('deals.order')}: "
                      f"{' '.join(order)}"),
            *_section(t("show.partner"), f"{partner}\n{direction}"),
            *_section(t("show.big_points"), big)]


def _kitty_rows(ruleset: Ruleset, t: Translate) -> list[tuple[str, int]]:
    kitty = ruleset.kitty
    rows = [(t("kitty.single"), kitty.single), (t("kitty.pair"), kitty.pair),
            (t("kitty.pairs"), kitty.pairs)]
    rows += [(t("kitty.tractor", n=n), kitty.multiplier(f"tractor{n}")) for n in (2, 3, 4)]
    return rows


def _tractor_growth(ruleset: Ruleset, t: Translate) -> str:
    kitty = ruleset.kitty
    return t(f"kitty.tractor_n.{kitty.tractor_growth}", step=kitty.tractor_step)


def _timing(ruleset: Ruleset, t: Translate) -> str:
    timing = ruleset.time

    def seconds(value: float) -> str:
        return t("time.seconds", n=_number(value))

    lines = [f"  {t('time.play')}: {seconds(timing.play_seconds)}",
             f"  {t('time.bury')}: {seconds(timing.bury_seconds)}"]
    if timing.rebury_seconds is not None:
        lines.append(f"  {t('time.rebury')}: {seconds(timing.rebury_seconds)}")
    match = (t("time.minutes", n=_number(timing.match_minutes)) if timing.match_minutes
             else t("time.no_limit"))
    lines.append(f"  {t('time.match')}: {match}")
    if ruleset.kind == "team":
        lines.append(f"  {t('time.up')}: {t('time_up.' + timing.time_up)}")
    return "\n".join(lines)


def _penalties(ruleset: Ruleset, lang: str, t: Translate) -> str:
    rows: list[tuple[str, str, str]] = []
    for penalty in ruleset.penalties.values():
        default = cost_text(penalty.default, t) if penalty.default else t("cost.needs_choice")
        rows.append((penalty.code, penalty.name(lang), default))
        for key, choice in penalty.choices.items():
            rows.append((f"  · {key}", choice.name(lang), cost_text(choice.outcome, t)))
    return table([t("col.code"), t("col.name"), t("col.cost")], rows)


def _result(ruleset: Ruleset, t: Translate) -> str:
    scoring = ruleset.result
    first = (t("big_points_sum") if ruleset.kind == "individual"
             else t("result.win", win=scoring.win_points, loss=scoring.loss_points))
    return f"  {first}\n  {t('tie_break.' + scoring.tie_break)}"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"
