"""Duplicate match play-offs: which bidding policy wins more matches to the target.

Pair ``m`` is two matches on one deal sequence (:func:`~bazarsim.matches.deals.
match_deals`; the first dealer is ``m mod 4``): A at N-S and B at E-W, then the other
way round. Deal ``j`` of both is the same cards dealt by the same seat, so the luck of
the cards falls on both teams alike and what differs is the bidding. A's match-win
chance is the mean over pairs of ``(win1 + win2) / 2``, its standard error the pairs'
spread over ``sqrt(pairs)``; the same matches counted as independent give the unpaired
error, and the ratio of the two variances is the pairing's variance reduction.

Every deal played is recorded from A's seat (:data:`OUTCOME_FIELDS`): who dealt, the
score before it, who declared and the result, both sides' points and the flags the
match-end rules read. :mod:`bazarsim.matches.equity` builds its deal-outcome
distribution from these records.

Deal outcomes come from the dataset's DD (or SD) results of the final contract's kind,
scored by :func:`bazarsim.rules.scoring.score_deal` and refereed by
:class:`bazarsim.rules.match.Match`: contra, recontra, declarations, bela, capot and the
ruleset's end rules. A passed-out deal, and a deal with four 7s where the ruleset voids
it, is redealt by the next dealer and scores nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bazarsim.core.errors import BazarsimError
from bazarsim.matches.bidding import SeatView, deal_key, policy_auction
from bazarsim.matches.deals import MAX_DEALS_BLOCK, DealTable, match_deals, seat_rates
from bazarsim.matches.model import HandModel
from bazarsim.rules.match import Match, eight_of_a_suit_side
from bazarsim.rules.scoring import TRICKS, DealOutcome, score_deal

# Flags of a deal outcome (bits), as the match-end rules read them.
F_MADE, F_CAPOT, F_REVERSE, F_CAPOT_CONTRA = 1, 2, 4, 8
OUTCOME_FIELDS = ("pair", "a_side", "deal", "a_deals", "a_score", "b_score", "declarer",
                  "kind", "level", "contra", "flags", "a_points", "b_points", "eight")
NONE = -1  # no declarer (redeal) / no eight-of-a-suit side
A, B = 0, 1


@dataclass
class PairResult:
    """Both matches of a pair: A's wins, deals played and every deal's outcome rows."""

    wins: tuple[int, int]
    deals: tuple[int, int]
    outcomes: list[tuple]


def _outcome(table: DealTable, i: int, r: int, contract) -> tuple[DealOutcome, int | None]:
    """The deal's result for N-S and E-W under ``contract``'s kind, turned by ``r``."""
    rs = table.ruleset
    k = contract.kind
    total = rs.total_points(k)
    ns = int(table.ns[i, k])
    cap = int(table.capot[i, k])
    decl = (int(table.decl[i, k, 0]), int(table.decl[i, k, 1]))
    bela = (int(table.bela[i, k, 0]), int(table.bela[i, k, 1]))
    points = (ns, total - ns)
    tricks = (TRICKS, 0) if cap == 1 else (0, TRICKS) if cap == 2 else (TRICKS // 2,) * 2
    if r % 2:
        points, tricks, decl, bela = points[::-1], tricks[::-1], decl[::-1], bela[::-1]
    eight = None
    if rs.scoring.eight_of_a_suit_wins_match:
        hands = [int(table.hands[i, (s - r) % 4]) for s in range(4)]
        eight = eight_of_a_suit_side(hands)
    return DealOutcome(points, tricks, decl, bela), eight


def play_match(model: HandModel, table: DealTable, bidders, seed: int, match: int,
               target: int, a_side: int, pair: int = 0) -> tuple[int, int, list[tuple]]:
    """One match: ``bidders`` per seat; returns the winning side, the deals dealt and the
    outcome rows (from the seat of the team on ``a_side``)."""
    rs = table.ruleset
    game = Match(rs, target)
    dealer = match % 4
    rows: list[tuple] = []
    block = 0
    seq = match_deals(seed, match, table.n, block)
    j = 0
    while not game.over:
        if j == (block + 1) * MAX_DEALS_BLOCK:
            block += 1
            seq = match_deals(seed, match, table.n, block)
            if block > 64:
                raise BazarsimError(f"match {match} did not end in {j} deals (target "
                                    f"{target}): the policies never score")
        i = int(seq[j - block * MAX_DEALS_BLOCK])
        r = table.rotation(i, dealer)
        a_score, b_score = game.totals[a_side], game.totals[1 - a_side]
        a_deals = int(dealer % 2 == a_side)
        contract = None
        if not table.void[i]:
            views = []
            key = deal_key(seed, match, j)
            for s in range(4):
                make, opp = seat_rates(model, table, i, r, s)
                views.append(SeatView(s, make, opp, game.totals[s % 2],
                                      game.totals[1 - s % 2], target, table.kinds,
                                      int(table.hands[i, (s - r) % 4]), key))
            auction = policy_auction(bidders, views, dealer, rs)
            contract = auction.contract
        if contract is None:
            rows.append((pair, a_side, j, a_deals, a_score, b_score, NONE, NONE, 0, 0, 0, 0, 0,
                         NONE))
        else:
            outcome, eight = _outcome(table, i, r, contract)
            deal = score_deal(contract, outcome, rs)
            game.record(deal, eight)
            flags = (F_MADE * deal.made | F_CAPOT * deal.capot | F_REVERSE * deal.reverse_capot
                     | F_CAPOT_CONTRA * bool(contract.capot and contract.contra))
            decl_side = A if contract.side == a_side else B
            eight_ab = NONE if eight is None else A if eight == a_side else B
            rows.append((pair, a_side, j, a_deals, a_score, b_score, decl_side, contract.kind,
                         contract.level, contract.contra, flags, deal.scores[a_side],
                         deal.scores[1 - a_side], eight_ab))
        dealer = (dealer + 1) % 4
        j += 1
    return game.winner, j, rows


def play_pair(model, table, a, b, seed: int, pair: int, target: int) -> PairResult:
    """Pair ``pair``: A at N-S then A at E-W, on the same deals."""
    w1, n1, r1 = play_match(model, table, [a, b, a, b], seed, pair, target, 0, pair)
    w2, n2, r2 = play_match(model, table, [b, a, b, a], seed, pair, target, 1, pair)
    return PairResult((int(w1 == 0), int(w2 == 1)), (n1, n2), r1 + r2)


def play_pairs(model, table, a, b, seed: int, first: int, count: int, target: int,
               progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``first .. first+count-1``: ``wins`` [count, 2] (A's), and the outcome rows
    as a structured table ``[deals, len(OUTCOME_FIELDS)]`` (int64)."""
    wins = np.zeros((count, 2), np.int64)
    rows: list[tuple] = []
    for k in range(count):
        res = play_pair(model, table, a, b, seed, first + k, target)
        wins[k] = res.wins
        rows.extend(res.outcomes)
        if progress:
            progress(1)
    return wins, np.asarray(rows, np.int64).reshape(-1, len(OUTCOME_FIELDS))


def playoff_summary(wins: np.ndarray, outcomes: np.ndarray, target: int,
                    confidence_z: float = 1.959964) -> dict:
    """A's match-win chance with paired and unpaired errors, points per deal, match
    length and the results by score band."""
    pairs = len(wins)
    if pairs < 2:
        raise BazarsimError("a play-off needs at least 2 match pairs")
    x = wins.mean(axis=1)
    p = float(x.mean())
    se_paired = float(x.std(ddof=1) / math.sqrt(pairs))
    se_unpaired = math.sqrt(max(p * (1 - p), 1e-12) / (2 * pairs))
    o = {f: outcomes[:, i] for i, f in enumerate(OUTCOME_FIELDS)}
    diff = (o["a_points"] - o["b_points"]).astype(np.float64)
    pair = o["pair"] - o["pair"].min()
    per_pair = np.bincount(pair, diff, pairs) / np.maximum(
        np.bincount(pair, minlength=pairs), 1)  # clustered by pair
    lengths = np.bincount(pair * 2 + o["a_side"], minlength=2 * pairs)
    return {
        "pairs": pairs, "matches": 2 * pairs, "target": target,
        "a_win": p, "se_paired": se_paired, "se_unpaired": se_unpaired,
        "ci95": [p - confidence_z * se_paired, p + confidence_z * se_paired],
        "half_width_paired": confidence_z * se_paired,
        "half_width_unpaired": confidence_z * se_unpaired,
        # None where every pair split its two matches 1-1 (self-play): no paired variance
        "variance_reduction": (se_unpaired / se_paired) ** 2 if se_paired > 0 else None,
        "a_points_per_deal": float(diff.mean()),
        "se_points_per_deal": float(per_pair.std(ddof=1) / math.sqrt(pairs)),
        "deals_per_match": float(lengths.mean()),
        "match_length_quartiles": [float(q) for q in np.percentile(lengths, [25, 50, 75])],
        "deals": len(outcomes),
        "contracts": _contract_shares(o),
        "bands": score_bands(o, target),
    }


def _contract_shares(o: dict) -> dict:
    """Per side: the share of deals it declared, and of its own contracts the share made
    and the share contra'd (by the other side); the share of deals passed out."""
    n = len(o["deal"])
    d = o["declarer"]
    made = (o["flags"] & F_MADE) > 0
    out = {"redeal": float((d == NONE).mean()) if n else 0.0}
    for name, side in (("a", A), ("b", B)):
        mine = d == side
        out[f"{name}_declares"] = float(mine.mean()) if n else 0.0
        out[f"{name}_made"] = float(made[mine].mean()) if mine.any() else None
        out[f"{name}_contra"] = float((o["contra"][mine] > 0).mean()) if mine.any() else None
    return out


def band_edges(target: int) -> tuple[int, int]:
    """Score gaps that split the bands: about a tenth and a third of the target."""
    return max(1, round(target / 10)), max(2, round(target / 3))


def score_bands(o: dict, target: int) -> list[dict]:
    """Per band of A's lead at the deal's start: deals, A's points per deal minus B's,
    how often each side declared and A made."""
    small, big = band_edges(target)
    gap = o["a_score"] - o["b_score"]
    names = [(f"A behind by {big}+", gap <= -big),
             (f"A behind by {small}-{big - 1}", (gap > -big) & (gap <= -small)),
             (f"level (within {small - 1})", (gap > -small) & (gap < small)),
             (f"A ahead by {small}-{big - 1}", (gap >= small) & (gap < big)),
             (f"A ahead by {big}+", gap >= big)]
    out = []
    made = (o["flags"] & F_MADE) > 0
    for name, m in names:
        n = int(m.sum())
        a_decl = m & (o["declarer"] == A)
        out.append({
            "band": name, "deals": n,
            "a_points_per_deal": float((o["a_points"][m] - o["b_points"][m]).mean()) if n
            else None,
            "a_declares": float(a_decl.sum() / n) if n else None,
            "b_declares": float((m & (o["declarer"] == B)).sum() / n) if n else None,
            "a_made": float(made[a_decl].mean()) if a_decl.any() else None,
        })
    return out

