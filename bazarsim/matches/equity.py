"""Match equity: the chance to win the match from every score, by dynamic programming.

State ``(a, b, t)``: A's and B's scores and whether A's side deals next (``t`` = 1; the
dealer's side alternates every deal). A deal moves the state by one outcome drawn from
the distribution the play-offs measured (:data:`bazarsim.matches.playoff.
OUTCOME_FIELDS`: both sides' points, who declared, the flags the end rules read),
conditioned on who deals; the match ends by the ruleset's rules, mirrored from
:meth:`bazarsim.rules.match.Match.record` in :func:`winner_after` (and checked against
it in the tests). ``E(a, b, t)`` is the sum over outcomes of their probability times
1 (A wins), 0 (B wins) or ``E`` of the next state; a passed-out deal only hands the deal
on, so the two ``t`` of one score are solved together (a 2x2 system). States are
computed from the highest score sum down, every outcome adding points to someone.

Regimes: a policy's ``[[score]]`` rules make its bidding depend on the score, so the
outcome distribution is measured per regime (which rule each policy has in force; the
state's regime picks the distribution). Approximations, each stated where it is
printed: within a regime, outcomes are independent of the score (exact for threshold
policies, whose calls change with the score only through the rule in force);
scores past ``target + pad`` (``pad``: the largest single-deal gain seen, at most the
target) are held at that bound (only states where the match went on past the target,
after a tie or a failed contract, reach it; every end is judged on the true scores); belote-fr's
carried points on a tie are not modelled.

Thresholds: for a bid with make chance ``p`` at state ``(a, b, t)``, bidding is worth
``p * E_made + (1 - p) * E_failed`` against ``E_pass`` (the outcomes of deals where A did
not declare); the break-even ``p* = (E_pass - E_failed) / (E_made - E_failed)`` is the
threshold that maximises A's equity there, if the made and failed outcomes are those
A's contracts had on average.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from bazarsim.core.errors import BazarsimError
from bazarsim.matches.playoff import (
    F_CAPOT,
    F_CAPOT_CONTRA,
    F_MADE,
    F_REVERSE,
    NONE,
    OUTCOME_FIELDS,
    band_edges,
)
from bazarsim.matches.policy import ScoreRule
from bazarsim.rules.rulesets import Ruleset

R_EIGHT, R_REVERSE, R_CAPOT_BID_CONTRA, R_FAILED = 1, 2, 4, 8
A_WINS, B_WINS, GOES_ON = 0, 1, -1


def end_rules(rs: Ruleset) -> int:
    """The ruleset's match-end options as bits for the kernels."""
    sr = rs.scoring
    return (R_EIGHT * sr.eight_of_a_suit_wins_match | R_REVERSE * sr.reverse_capot_loses_match
            | R_CAPOT_BID_CONTRA * sr.capot_ends_match_only_if_bid_contra_made
            | R_FAILED * sr.failed_bidders_cannot_win)


@nb.njit(cache=True)
def winner_after(a, b, declarer, flags, eight, target, rules):
    """Who wins once a scored deal brought the scores to ``a``, ``b`` (A 0, B 1, or -1:
    the match goes on); ``declarer`` 0 A, 1 B; ``eight`` the side with eight of a suit."""
    if eight >= 0 and rules & R_EIGHT:
        return eight
    if flags & F_REVERSE and rules & R_REVERSE:
        return 1 - declarer
    if flags & F_CAPOT and rules & R_CAPOT_BID_CONTRA:
        if not (flags & F_CAPOT_CONTRA and flags & F_MADE):
            return -1
    for side in range(2):
        own = a if side == 0 else b
        other = b if side == 0 else a
        if own < target or own <= other:
            continue
        if side == declarer and not flags & F_MADE and rules & R_FAILED:
            continue
        return side
    return -1


@nb.njit(cache=True, inline="always")
def _after(eq, a, b, da, db, decl, flags, eight, target, rules, t):
    """One outcome scored at state ``(a, b, t)``: ``(value, stays)``, A's equity after it
    (1 won, 0 lost, else ``eq`` of the next state, scores held at the table's top) and
    whether the score stayed (a passed-out deal: only the dealer moves on)."""
    top = eq.shape[0] - 1
    na = a + da
    nb_ = b + db
    if decl >= 0:
        w = winner_after(na, nb_, decl, flags, eight, target, rules)
        if w == 0:
            return 1.0, False
        if w == 1:
            return 0.0, False
    na = min(na, top)
    nb_ = min(nb_, top)
    return eq[na, nb_, 1 - t], na == a and nb_ == b


@nb.njit(cache=True, inline="always")
def _step(eq, da, db, decl, flags, eight, prob, target, rules, a, b, t, r):
    """``(c, q)`` of state ``(a, b, t)`` under regime ``r``: what its outcomes are worth
    given ``eq`` of the next states, and the probability that the score stays (the deal
    passes on)."""
    c = 0.0
    q = 0.0
    for k in range(da.shape[2]):
        p = prob[r, t, k]
        if p == 0.0:
            continue
        v, stays = _after(eq, a, b, da[r, t, k], db[r, t, k], decl[r, t, k], flags[r, t, k],
                          eight[r, t, k], target, rules, t)
        if stays:
            q += p  # the deal passes on: same score, the other side deals
        else:
            c += p * v
    return c, q


@nb.njit(cache=True)
def equity_kernel(da, db, decl, flags, eight, prob, regime, target, rules, size):
    """``E[a, b, t]`` for every score below ``size`` from outcome arrays per regime and
    ``t`` (``da[r, t]`` .. ``prob[r, t]``, each ``[outcomes]``, padded with zero
    probability); ``regime[a, b]``: which distribution holds at that score."""
    eq = np.zeros((size, size, 2))
    top = size - 1
    for s in range(2 * top, -1, -1):
        for a in range(max(0, s - top), min(top, s) + 1):
            b = s - a
            r = regime[a, b]
            c0, q0 = _step(eq, da, db, decl, flags, eight, prob, target, rules, a, b, 0, r)
            c1, q1 = _step(eq, da, db, decl, flags, eight, prob, target, rules, a, b, 1, r)
            den = 1.0 - q0 * q1
            if den <= 0.0:  # nothing but passed-out deals: never decided
                eq[a, b, 0] = 0.5
                eq[a, b, 1] = 0.5
                continue
            eq[a, b, 0] = (c0 + q0 * c1) / den
            eq[a, b, 1] = c1 + q1 * eq[a, b, 0]
    return eq


@nb.njit(cache=True)
def expected_kernel(eq, da, db, decl, flags, eight, prob, target, rules, a, b, t):
    """Sum of ``prob`` times A's equity after each outcome, from state ``(a, b, t)``."""
    total = 0.0
    for k in range(da.shape[0]):
        p = prob[k]
        if p == 0.0:
            continue
        total += p * _after(eq, a, b, da[k], db[k], decl[k], flags[k], eight[k], target,
                            rules, t)[0]
    return total


def _field(outcomes: np.ndarray, name: str) -> np.ndarray:
    return outcomes[:, OUTCOME_FIELDS.index(name)]


def distribution(outcomes: np.ndarray, mask: np.ndarray | None = None):
    """The outcomes' distinct ``(da, db, declarer, flags, eight)`` with probabilities,
    per ``t`` (padded arrays ``[2, m]``) and the count of deals behind each ``t``."""
    cols = ("a_points", "b_points", "declarer", "flags", "eight")
    keep = np.ones(len(outcomes), bool) if mask is None else mask
    per_t, counts = [], []
    for t in (0, 1):
        m = keep & (_field(outcomes, "a_deals") == t)
        counts.append(int(m.sum()))
        rows = np.stack([_field(outcomes, c)[m] for c in cols], 1)
        if len(rows) == 0:
            per_t.append((np.zeros((0, 5), np.int64), np.zeros(0)))
            continue
        uniq, count = np.unique(rows, axis=0, return_counts=True)
        per_t.append((uniq, count / count.sum()))
    width = max(1, max(len(u) for u, _ in per_t))
    arrays = np.zeros((5, 2, width), np.int64)
    arrays[2:5] = NONE
    prob = np.zeros((2, width))
    for t, (u, p) in enumerate(per_t):
        arrays[:, t, : len(u)] = u.T
        prob[t, : len(u)] = p
    return arrays, prob, counts


def regime_map(policies, own, other, target: int) -> tuple[np.ndarray, int]:
    """The regime at each score: which ``[[score]]`` rule each policy has in force (A's
    rule index times B's rule count plus one, plus B's); and the number of regimes."""
    if policies is None:
        return np.zeros(np.shape(own), np.int64), 1
    pa, pb = policies
    nb_ = len(pb.score) + 1
    return (pa.rule_index(own, other, target) * nb_ + pb.rule_index(other, own, target),
            (len(pa.score) + 1) * nb_)


def match_equity(outcomes: np.ndarray, rs: Ruleset, target: int, policies=None) -> dict:
    """The equity table from play-off outcomes. With ``policies`` (A's and B's), deal
    outcomes are taken from the deals played under the same score rules in force as the
    state's (a regime with no deal of its own borrows every deal's), so policies that
    change with the score are modelled; without, from every deal."""
    if len(outcomes) == 0:
        raise BazarsimError("no deal outcomes to build the equity table from")
    pooled, _p, counts = distribution(outcomes)
    if min(counts) == 0:
        raise BazarsimError("the outcomes need deals dealt by both sides")
    pad = min(int(max(pooled[0].max(), pooled[1].max(), 0)), target)
    size = target + pad + 1
    rules = end_rules(rs)
    row_regime, n_regimes = regime_map(policies, _field(outcomes, "a_score"),
                                       _field(outcomes, "b_score"), target)
    grid = np.arange(size)
    regime, _n = regime_map(policies, grid[:, None], grid[None, :], target)
    regime = np.ascontiguousarray(np.broadcast_to(regime, (size, size)), np.int64)
    parts, regime_deals = [], []
    for r in range(n_regimes):
        mask = row_regime == r
        arrays, prob, c = distribution(outcomes, mask)
        if min(c) == 0:  # never played under these rules: every deal's outcomes
            arrays, prob, c = distribution(outcomes)
            c = [0, 0]
        parts.append((arrays, prob))
        regime_deals.append(sum(c))
    width = max(p[1].shape[1] for p in parts)
    arr = np.zeros((5, n_regimes, 2, width), np.int64)
    arr[2:5] = NONE
    prob = np.zeros((n_regimes, 2, width))
    for r, (arrays, p) in enumerate(parts):
        arr[:, r, :, : arrays.shape[2]] = arrays
        prob[r, :, : p.shape[1]] = p
    da, db, decl, flags, eight = (np.ascontiguousarray(x) for x in arr)
    eq = equity_kernel(da, db, decl, flags, eight, prob, regime, target, rules, size)
    return {"eq": eq, "size": size, "pad": pad, "deals": counts, "target": target,
            "rules": rules, "outcomes": outcomes, "ruleset": rs, "regimes": n_regimes,
            "regime_deals": regime_deals}


def start_equity(result: dict, first_dealer_a: np.ndarray) -> float:
    """The DP's win chance for A over matches starting 0:0, A dealing first or not."""
    eq = result["eq"]
    return float(np.mean(np.where(first_dealer_a, eq[0, 0, 1], eq[0, 0, 0])))


def thresholds(result: dict, step: int) -> dict:
    """Break-even P(make) for A's bids at every ``step``-point score bin and dealer."""
    out = result["outcomes"]
    decl = _field(out, "declarer")
    made = (_field(out, "flags") & F_MADE) > 0
    parts = {"made": (decl == 0) & made, "failed": (decl == 0) & ~made, "pass": decl != 0}
    dists = {k: distribution(out, m) for k, m in parts.items()}
    eq = result["eq"]
    target = result["target"]
    grid = list(range(0, target, step))
    table = np.full((2, len(grid), len(grid)), np.nan)
    for t in (0, 1):
        if min(d[2][t] for d in dists.values()) == 0:
            continue
        for i, a in enumerate(grid):
            for j, b in enumerate(grid):
                e = {}
                for k, (arrays, prob, _c) in dists.items():
                    e[k] = expected_kernel(eq, *(np.ascontiguousarray(x[t]) for x in arrays),
                                           np.ascontiguousarray(prob[t]), target,
                                           result["rules"], a, b, t)
                spread = e["made"] - e["failed"]
                if spread > 1e-9:
                    table[t, i, j] = min(1.0, max(0.0, (e["pass"] - e["failed"]) / spread))
    return {"grid": grid, "thresholds": table, "deals": {k: d[2] for k, d in dists.items()}}


def equity_grid(result: dict, step: int) -> tuple[list[int], np.ndarray]:
    """``E`` at ``step``-point bins below the target, averaged over who deals next."""
    grid = list(range(0, result["target"], step))
    eq = result["eq"]
    sub = eq[np.ix_(grid, grid)]
    return grid, sub.mean(axis=2)


def simulated_vs_dp(result: dict, wins: np.ndarray) -> dict:
    """A's simulated win share against the DP's, over the same matches' first dealers."""
    pairs = len(wins)
    m = np.arange(pairs)
    first = m % 4
    a_first = np.stack([(first % 2) == 0, (first % 2) == 1], 1)  # A at N-S, then at E-W
    dp = start_equity(result, a_first.ravel())
    sim = float(wins.mean())
    # paired, as bazarsim match prints it: a pair's two matches share their deals
    paired = float(wins.mean(axis=1).std(ddof=1) / math.sqrt(pairs)) if pairs > 1 else 0.0
    unpaired = math.sqrt(max(sim * (1 - sim), 1e-12) / wins.size)
    return {"matches": int(wins.size), "simulated": sim, "simulated_se": paired,
            "simulated_se_unpaired": unpaired, "dp": dp, "difference": sim - dp}


def equity_maps(outcomes: np.ndarray, wins: np.ndarray, rs: Ruleset, target: int, policies,
                step: int, threshold_step: int) -> dict:
    """What ``bazarsim equity`` prints and the play-off page draws from a play-off's
    outcomes: the DP (``result``), its check against the simulated matches, the equity at
    ``step``-point bins and the break-even map at ``threshold_step``-point bins (both
    averaged over who deals next)."""
    result = match_equity(outcomes, rs, target, policies)
    grid, eq = equity_grid(result, step)
    th = thresholds(result, threshold_step)
    return {"result": result, "check": simulated_vs_dp(result, wins), "grid": grid,
            "equity": eq, "threshold_grid": th["grid"],
            "thresholds": th["thresholds"].mean(axis=0)}


def derived_rules(result: dict, step: int, policy) -> tuple[list, dict]:
    """``[[score]]`` rules for ``policy`` (A's) read off the break-even map: for each band
    of A's lead (behind or ahead by a tenth / a third of the target, and those near the
    end: the leader within a third of the target), the shift is the mean break-even there
    minus the mean where no band applies, weighted by how often the matches reached each
    score. Only the score-dependence is derived; the base thresholds stay the policy's."""
    target = result["target"]
    th = thresholds(result, step)
    grid = np.asarray(th["grid"])
    p = th["thresholds"]  # [t, a, b]
    out = result["outcomes"]
    ai = np.minimum(_field(out, "a_score") // step, len(grid) - 1)
    bi = np.minimum(_field(out, "b_score") // step, len(grid) - 1)
    visits = np.zeros((2, len(grid), len(grid)))
    np.add.at(visits, (_field(out, "a_deals"), ai, bi), 1.0)  # t = 1: A deals next
    small, big = band_edges(target)
    near = target // 3
    candidates = [ScoreRule("behind", big, near), ScoreRule("ahead", big, near),
                  ScoreRule("behind", small), ScoreRule("ahead", small)]
    a, b = np.meshgrid(grid, grid, indexing="ij")
    taken = np.zeros(a.shape, bool)
    masks = []
    for rule in candidates:
        m = rule.applies_array(a, b, target) & ~taken
        taken |= m
        masks.append(m)
    ok = ~np.isnan(p)

    def mean(mask):
        w = visits * (mask[None] & ok)
        return float((np.nan_to_num(p) * w).sum() / w.sum()) if w.sum() > 0 else None

    base = mean(~taken)
    rules, report = [], {"base_break_even": base, "bands": []}
    for rule, m in zip(candidates, masks, strict=True):
        v = mean(m)
        if v is None or base is None:
            continue
        shift = round(float(np.clip(v - base, -0.5, 0.5)), 2)
        report["bands"].append({**rule.__dict__, "break_even": v, "shift": shift,
                                "visits": float((visits * m[None]).sum())})
        if shift:
            rules.append(ScoreRule(rule.when, rule.by, rule.near, shift))
    return rules, report
