"""The Swiss round's matching: the cheapest perfect matching of a field in standings order.

A pair's cost has four tiers, each outweighing everything below it: a rematch, then two teams
of one unit (单位), then two teams that would leave one of them sitting one side three times
more than the other (both already sat it twice more), then how far apart they stand
((place a − place b)²) with 1 more where both teams sat one side more often (one of them sits
it once more again). Any two matchings' closeness differs by 2 at least (its sums are all
even or all odd), so the sides only choose between matchings about as close. The seed pairs
by the standings, strong against strong (xiamen art. 26 「按积分顺序强对强、弱对弱」), and NS
and EW play the same game: so the sides give way to the standings, except that no team sits
one side more than twice more than the other (FIDE's absolute colour rule allows a
difference of two, and no more). After an odd number of rounds every team has then sat one
side at most once more than the other. rustworkx's compiled blossom algorithm finds the
cheapest matching.

A complete graph of 800 teams has 320,000 edges; the cheapest matching almost only uses pairs
a few places apart. So the matching is first found on a sparse graph (each team's nearest
candidates on each side) and then proved optimal for the complete graph by a lower bound:

    every pair (u, v) of any perfect matching costs at least (m(u) + m(v)) / 2, where m(v) is
    v's cheapest pair in the complete graph; so a matching that uses a pair e = (a, b) outside
    the sparse graph costs at least  cost(e) − (m(a) + m(b)) / 2 + Σ m(v) / 2.

The same bound on the closeness tier alone, plus the unit pairs every perfect matching has (a
unit with more than half the field must pair the excess among itself), is the second bound. If
the sparse optimum costs no more than the larger of the two, no matching that leaves the sparse
graph is cheaper, and the sparse optimum is the optimum. If the bound does not prove it,
or the sparse graph has no perfect matching, the complete graph is solved instead: the answer
is always the complete graph's optimum cost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import rustworkx as rx

NEAREST = 12  # candidates on each side of a team in the sparse graph (and as many of other units)
WIDER = 5  # the second try's candidates, as a multiple of NEAREST


@dataclass(frozen=True)
class Tiers:
    """The cost of each tier for a field of `n` teams: each is worth more than the largest
    possible total of the tiers below it (a perfect matching has n // 2 pairs). Kept small: a
    field of 3,000 teams' rematch tier is 1.3e16 (int64 holds 9.2e18)."""

    n: int

    @property
    def closeness_max(self) -> int:  # (with a side preference on every pair)
        return (self.n // 2) * ((self.n - 1) ** 2 + 1)

    @property
    def side_clash(self) -> int:
        return self.closeness_max + 1

    @property
    def same_unit(self) -> int:
        return (self.n // 2) * self.side_clash + self.closeness_max + 1

    @property
    def rematch(self) -> int:
        return (self.n // 2) * self.same_unit + self.closeness_max + 1


def closeness(n: int) -> np.ndarray:
    """How far apart each two places stand: (place a − place b)²."""
    place = np.arange(n, dtype=np.int64)
    return (place[:, None] - place[None, :]) ** 2


@dataclass(frozen=True)
class Matching:
    pairs: tuple[tuple[int, int], ...]  # places (i < j), in order of i
    cost: int
    proved_sparse: bool  # found on the sparse graph and proved optimal by the bound


def costs(order: Sequence[str], played: Collection[frozenset[str]],
          unit: Mapping[str, str], lean: Mapping[str, int] | None = None) -> np.ndarray:
    """The field's cost matrix by place (int64); the diagonal is never a pair. `lean`: each
    team's NS rounds minus its EW rounds so far."""
    n = len(order)
    tiers = Tiers(n)
    matrix = closeness(n)
    if lean:  # the one leaning less takes the other side (director.rounds._balance_sides)
        leans = np.array([lean.get(t, 0) for t in order], dtype=np.int64)
        sign = np.sign(leans)
        one_way = (sign[:, None] == sign[None, :]) & (sign != 0)[:, None]
        less = np.minimum(np.abs(leans)[:, None], np.abs(leans)[None, :])
        matrix += np.where(one_way & (less >= 2), tiers.side_clash, one_way.astype(np.int64))
    units = [unit.get(t, "") for t in order]
    codes = {u: k for k, u in enumerate(sorted(set(units)))}
    code = np.array([codes[u] for u in units])
    named = np.array([bool(u) for u in units])
    matrix += tiers.same_unit * ((code[:, None] == code[None, :]) & named[:, None])
    index = {t: i for i, t in enumerate(order)}
    for pair in played:
        a, b = tuple(pair)
        if a in index and b in index:
            matrix[index[a], index[b]] += tiers.rematch
            matrix[index[b], index[a]] += tiers.rematch
    return matrix


def cheapest(order: Sequence[str], played: Collection[frozenset[str]],
             unit: Mapping[str, str], nearest: int = NEAREST,
             lean: Mapping[str, int] | None = None) -> Matching:
    """The cheapest perfect matching of an even field `order` (the standings order). Rematches
    are used only when no perfect matching avoids them, and then as few as possible."""
    n = len(order)
    if n % 2:
        raise ValueError("an odd field: give the bye first")
    if n == 0:
        return Matching((), 0, True)
    matrix = costs(order, played, unit, lean)
    rematch = Tiers(n).rematch
    allowed = matrix < rematch
    np.fill_diagonal(allowed, False)
    unit_pairs = _unit_pairs_needed(order, unit)
    for width in (nearest, WIDER * nearest):  # a wider graph proves what a narrow one cannot
        sparse = _candidates(matrix, allowed, width)
        if sparse.sum() >= allowed.sum():
            break  # the sparse graph is the complete one
        found = _solve(matrix, sparse)
        if found is not None and found.cost <= _bound(matrix, allowed, sparse, unit_pairs):
            return Matching(found.pairs, found.cost, True)
    found = _solve(matrix, allowed)
    if found is None:  # no rematch-free pairing exists: allow rematches, as few as possible
        every = np.ones_like(allowed)
        np.fill_diagonal(every, False)
        found = _solve(matrix, every)
    assert found is not None  # a complete graph on an even field always has one
    return found


def _candidates(matrix: np.ndarray, allowed: np.ndarray, nearest: int) -> np.ndarray:
    """Each team's `nearest` allowed partners above and below it, and its `nearest` nearest
    allowed partners of another unit on each side (symmetric)."""
    n = len(matrix)
    chosen = np.zeros_like(allowed)
    clean = allowed & (matrix < Tiers(n).same_unit)
    for i in range(n):
        for mask in (allowed[i], clean[i]):
            below = np.flatnonzero(mask[i + 1:])[:nearest] + i + 1
            above = np.flatnonzero(mask[:i])[::-1][:nearest]
            chosen[i, below] = chosen[i, above] = True
    return chosen | chosen.T


def _solve(matrix: np.ndarray, edges: np.ndarray) -> Matching | None:
    """The cheapest perfect matching using only `edges`, or None when there is none."""
    n = len(matrix)
    rows, cols = np.nonzero(np.triu(edges, 1))
    weights = matrix[rows, cols]
    base = int(weights.max()) + 1 if len(weights) else 1
    graph = rx.PyGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(list(zip(rows.tolist(), cols.tolist(), (base - weights).tolist(),
                                  strict=True)))
    matched = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    if 2 * len(matched) != n:
        return None
    pairs = tuple(sorted((min(a, b), max(a, b)) for a, b in matched))
    return Matching(pairs, int(sum(int(matrix[a, b]) for a, b in pairs)), False)


def _unit_pairs_needed(order: Sequence[str], unit: Mapping[str, str]) -> int:
    """Unit pairs in every perfect matching: a unit with more than half the field pairs its
    excess among itself."""
    n, sizes = len(order), Counter(unit.get(t, "") for t in order)
    return sum(max(0, 2 * c - n) // 2 for u, c in sizes.items() if u)


def _bound(matrix: np.ndarray, allowed: np.ndarray, sparse: np.ndarray,
           unit_pairs: int) -> float:
    """The least a perfect matching of allowed pairs costs if it uses a pair outside
    `sparse` (see the module's docstring); infinite when there is no such pair."""
    outside = allowed & ~sparse
    if not outside.any():
        return float("inf")
    n = len(matrix)
    whole = _least_with(matrix, allowed, outside)
    close = Tiers(n).same_unit * unit_pairs + _least_with(closeness(n), allowed, outside)
    return max(whole, close)


def _least_with(matrix: np.ndarray, allowed: np.ndarray, outside: np.ndarray) -> float:
    """Σ over any perfect matching of `matrix`'s allowed pairs that uses an `outside` pair is
    at least this: that pair's cost, and half of each other team's cheapest pair."""
    big = np.iinfo(np.int64).max // 4
    cheapest_pair = np.where(allowed, matrix, big).min(axis=1)  # m(v)
    excess = np.where(outside, 2 * matrix - cheapest_pair[:, None] - cheapest_pair[None, :],
                      big)
    return (int(excess.min()) + int(cheapest_pair.sum())) / 2
