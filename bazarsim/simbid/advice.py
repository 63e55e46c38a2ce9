"""What each call is worth now, in this auction: ``analyze HAND --auction``.

From one seat's view (its 8 cards, the calls so far), the hidden hands are the
auction-weighted worlds (:mod:`bazarsim.beliefs.worlds`: every other seat's calls weigh
each world by how likely they were under the policy assumed for it), resampled to ``n``
equally weighted worlds (systematic resampling: each world drawn about ``n`` times its
weight; ``n`` is the ESS asked for). Every world is solved once per contract kind
(:mod:`.outcomes`). The candidates are the calls legal now: pass, contra and recontra
where legal, and per kind the bids from the lowest legal level up while the seat's side
makes that bid in at least ``min_make`` of the worlds (5 %), and the lowest legal capot
bid where it makes as often; when the seat may not pass (the dealer after three passes)
every kind's lowest legal bid is a candidate too. P(make) for this cut is double dummy
(cheap), whatever the play that scores the candidates.

For each candidate the auction is played on in every world by a policy per seat
(:mod:`.continuation`: partner's, the opponents', and this seat's own later calls) to a
final contract, which is scored by the ruleset's full scoring (:mod:`.outcomes`): our
side's score minus theirs (0 when the deal is passed out). All candidates are judged on
the same worlds, so two calls are compared world by world (paired). With the match score,
each world's result also gives our side's match-win chance after the deal, from an
equity table (:mod:`bazarsim.matches.equity`), and the calls are ranked by it.

Every mean is over the worlds with their weights, its standard error
``sqrt(sum w^2 (x - mean)^2)`` (the ESS-based delta method; ``sd / sqrt(n)`` for ``n``
equal weights): the difference of two calls is the mean of the per-world differences,
its SE theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bazarsim.analysis.bids import play_key
from bazarsim.beliefs.calls import lowest_bids
from bazarsim.beliefs.evidence import Evidence, load_hand_model, weighted_sample
from bazarsim.beliefs.infer import weighted_mean_se
from bazarsim.core.cards import SEATS, format_hand, parse_hand
from bazarsim.core.contracts import Contract
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import seed_key
from bazarsim.matches.model import HandModel, bid_levels
from bazarsim.matches.policy import Policy, load_policy
from bazarsim.rules.auction import BID, CONTRA, PASS, RECONTRA, Auction, Call, run_auction
from bazarsim.rules.rulesets import Ruleset
from bazarsim.simbid.continuation import (
    F_CAPOT,
    F_CONTRA,
    F_DECLARER,
    F_KIND,
    F_LEVEL,
    SeatRates,
    branch,
    play_on,
)
from bazarsim.simbid.outcomes import (
    WorldResults,
    equity_after,
    score_contracts,
    solve_worlds,
)

MIN_MAKE = 0.05  # a bid is a candidate while its side makes it this often in the worlds
DEFAULT_POLICY = "careful"
ENDS_SHOWN = 3  # final contracts named per call in the table
SEVENS = 0x01010101


@dataclass(frozen=True)
class AuctionQuery:
    """One question: a seat's hand and the calls so far; the policies the auction is
    played on with (every seat's: the others', and this seat's own later calls); the
    hand model behind them; the play; the match score (ours, theirs) and target."""

    ruleset: Ruleset
    seat: int
    dealer: int
    hand: int
    calls: tuple[tuple[int, Call], ...]
    policies: dict[int, Policy]
    model: HandModel
    play: str = "dd"
    sd_worlds: int = 20
    score: tuple[int, int] | None = None
    target: int = 301
    kinds: tuple[int, ...] | None = None  # the kinds bid as candidates (None: all)

    @property
    def side(self) -> int:
        return self.seat & 1

    @property
    def ns_ew(self) -> tuple[int, int]:
        """The match score as N-S, E-W (the policies' score rules read it so)."""
        s = self.score or (0, 0)
        return s if self.side == 0 else (s[1], s[0])

    def auction(self) -> Auction:
        return run_auction(list(c for _s, c in self.calls), self.dealer, self.ruleset)

    @property
    def auction_text(self) -> str:
        return " ".join(str(c) for _s, c in self.calls)


def auction_query(rs: Ruleset, hand: str | int, seat: int, dealer: int, auction: str,
                  partner: str | Policy = DEFAULT_POLICY,
                  opponents: str | Policy = DEFAULT_POLICY, me: str | Policy | None = None,
                  model: str | HandModel | None = None, play: str = "dd",
                  sd_worlds: int = 20, score: tuple[int, int] | None = None,
                  target: int = 301, kinds: tuple[int, ...] | None = None) -> AuctionQuery:
    """Check everything (one clear error for each mistake) and build the query."""
    from bazarsim.beliefs.calls import check_listenable

    check_listenable(rs)
    mask = parse_hand(hand) if isinstance(hand, str) else int(hand)
    if mask.bit_count() != 8:
        raise BazarsimError(f"hand {format_hand(mask)} has {mask.bit_count()} cards: give the 8 "
                            "cards the seat was dealt", format_hand(mask))
    if rs.declarations.four_sevens_redeal and mask & SEVENS == SEVENS:
        raise BazarsimError(f"hand {format_hand(mask)} holds four sevens: in {rs.name} the "
                            "deal is void and dealt again, there is nothing to call",
                            format_hand(mask))
    state = run_auction(auction, dealer, rs)
    if state.finished:
        raise BazarsimError(f"--auction {auction!r}: the auction is over (" + (
            f"{state.contract.label}" if state.contract else "passed out") + "): nothing "
            "is left to call", auction)
    if state.to_speak != seat:
        n = len(state.history)
        raise BazarsimError(f"--auction {auction!r}: after {n} call{'s' * (n != 1)} from "
                            f"dealer {SEATS[dealer]}'s left it is {SEATS[state.to_speak]}'s "
                            f"turn, not {SEATS[seat]}'s", auction)
    pol = {}
    for name, spec in (("partner", partner), ("opponents", opponents), ("me", me or partner)):
        pol[name] = spec if isinstance(spec, Policy) else load_policy(spec)
    policies = {s: pol["me"] if s == seat else pol["partner"] if s == (seat + 2) % 4
                else pol["opponents"] for s in range(4)}
    if score is not None:
        if target <= 0:
            raise BazarsimError(f"--to {target}: the match target must be positive", str(target))
        beyond = [s for s in score if not 0 <= s < target]
        if beyond:
            raise BazarsimError(f"--score {score[0]}-{score[1]}: a score of {beyond[0]} is "
                                f"not below the target {target} (the match would be over)",
                                f"{score[0]}-{score[1]}")
    hm = model if isinstance(model, HandModel) else load_hand_model(model, rs)
    play = play_key(play)
    if int(sd_worlds) < 1:
        raise BazarsimError(f"--worlds {sd_worlds}: must be at least 1", str(sd_worlds))
    if kinds is not None:
        kinds = tuple(rs.check_kind(k) for k in kinds)
    return AuctionQuery(rs, seat, dealer, mask, tuple(state.history), policies, hm, play,
                        int(sd_worlds), score, target, kinds)


# --------------------------------------------------------------------------- worlds


@dataclass
class Worlds:
    """``n`` equally weighted worlds (``hands[n, 4]``, N E S W; repeats allowed), resampled
    from the auction-weighted draws, with what the draws were worth."""

    hands: np.ndarray
    ess: float  # of the weighted draws
    draws: int
    capped: bool  # the draws stopped at their cap before the ESS asked for
    exhaustive: bool

    @property
    def n(self) -> int:
        return len(self.hands)


def worlds_key(seed: int, salt: int = 0) -> int:
    """The random key of a query's worlds (the same seed, the same worlds)."""
    return int(seed_key(np.uint64(seed))) ^ 0x5B1D0C3A7E92F461 ^ (int(salt) & (2**63 - 1))


def draw_worlds(query: AuctionQuery, n: int, seed: int = 7, salt: int = 0) -> Worlds:
    """The auction-weighted worlds of the query (ESS ``n``), resampled to ``n`` worlds.
    Worlds in which a hand holds four sevens (a voided deal in rulesets that void it:
    the auction would not have happened) weigh nothing."""
    rs = query.ruleset
    others = {s: query.policies[s] for s in range(4) if s != query.seat}
    evidence = Evidence(rs, query.dealer, list(query.calls), query.seat, others, query.model,
                        score=query.ns_ew, target=query.target)
    key = worlds_key(seed, salt)
    z = np.zeros(4, np.int64)
    ww = weighted_sample(evidence, query.hand, z, z, np.full(4, 8, np.int64), 0, z,
                         float(n), key)
    w = ww.weights.copy()
    if rs.declarations.four_sevens_redeal:
        h = ww.hands.astype(np.int64)
        w[((h & SEVENS) == SEVENS).any(1)] = 0.0
        if w.sum() <= 0:
            raise BazarsimError("no drawn world is a deal that is played (every one holds "
                                "four sevens)")
    w /= w.sum()
    u = (np.arange(n) + (key >> 11) / float(1 << 53)) / n  # systematic resampling
    pick = np.minimum(np.searchsorted(np.cumsum(w), u, side="right"), len(w) - 1)
    return Worlds(ww.hands[pick].astype(np.uint32), ww.ess, ww.draws, ww.capped,
                  ww.exhaustive)


# --------------------------------------------------------------------------- candidates


def legal(auction: Auction, call: Call) -> bool:
    return auction.why_illegal(call) is None


def candidate_calls(query: AuctionQuery, auction: Auction, dd: WorldResults,
                    weights: np.ndarray, min_make: float = MIN_MAKE) -> list[Call]:
    """The calls to judge (see the module docstring), each legal now: ``dd`` the worlds'
    double-dummy results (one row per distinct world, ``weights`` their weights)."""
    rs = query.ruleset
    out = [Call(t) for t in (PASS, CONTRA, RECONTRA) if legal(auction, Call(t))]
    forced = not legal(auction, Call(PASS))
    kinds = query.kinds or rs.kinds
    levels = bid_levels(rs)
    low, cap = lowest_bids(auction, levels)  # a bid is legal from its kind's lowest up
    n = dd.n
    world = np.arange(n)
    for kind in kinds:
        bids = [Call(BID, lv, kind) for lv in levels if 0 <= low[kind] <= lv]
        if cap[kind] >= 0:
            bids.append(Call(BID, int(cap[kind]), kind, True))
        if not bids:
            continue
        rows = np.array([(query.seat, kind, b.level, int(b.capot), 0) for b in bids], np.int64)
        contracts = np.repeat(rows, n, axis=0)
        made = score_contracts(dd, np.tile(world, len(bids)), contracts, rs).made
        p = made.reshape(len(bids), n) @ weights
        plain = [b for b in bids if not b.capot]
        for b, pm in zip(bids, p, strict=True):
            if pm >= min_make or (forced and plain and b == plain[0]):
                out.append(b)
            elif not b.capot:
                plain = []  # higher levels make no more often: stop this kind's bids
    return out


# --------------------------------------------------------------------------- judging


@dataclass
class CallResult:
    """One candidate over the worlds: per world its final contract, whether it makes, our
    side's net score and (with a match score) our match-win chance after the deal."""

    call: Call
    contracts: np.ndarray  # [n, 5]
    made: np.ndarray  # bool [n]
    net: np.ndarray  # int64 [n]
    equity: np.ndarray | None  # float [n]
    states: int  # auction states the play-on visited


@dataclass
class Advice:
    """The answer: the query, the worlds, every candidate's per-world results and the
    table rows (best first)."""

    query: AuctionQuery
    seed: int
    worlds: Worlds
    weights: np.ndarray
    results: list[CallResult]
    rows: list[dict] = field(default_factory=list)

    @property
    def best(self) -> Call:
        return self.results[0].call


def judge_calls(query: AuctionQuery, hands: np.ndarray, weights: np.ndarray | None = None,
                seed: int = 7, equity: dict | None = None, calls: list[Call] | None = None,
                min_make: float = MIN_MAKE, include: Call | None = None,
                progress: Callable[[str], None] | None = None) -> list[CallResult]:
    """Every candidate call judged on the fixed worlds ``hands`` (``[n, 4]``, with
    ``weights``, default equal), ranked best first; ``calls``: these candidates instead of
    :func:`candidate_calls`'; ``include``: a call judged too if it is not among them.
    ``equity``: a :func:`~bazarsim.matches.equity.match_equity` result, used with the
    query's score."""
    rs = query.ruleset
    hands = np.ascontiguousarray(hands, np.uint32).reshape(-1, 4)
    n = len(hands)
    if weights is None:
        weights = np.full(n, 1.0 / n)
    weights = np.asarray(weights, np.float64)
    if np.any(hands[:, query.seat] != query.hand):
        raise BazarsimError("the worlds must give the seat its own hand")
    distinct, inverse = np.unique(hands, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    dw = np.bincount(inverse, weights, len(distinct))  # each distinct world's weight
    auction = query.auction()
    kinds = query.kinds or rs.kinds
    dd = solve_worlds(distinct, query.dealer, rs, kinds, "dd")
    if progress:
        progress("solved")
    cands = calls if calls is not None else candidate_calls(query, auction, dd, dw, min_make)
    if include is not None and include not in cands:
        cands = [*cands, include]
    for c in cands:
        if not legal(auction, c):
            raise BazarsimError(f"{c} is not a legal call now: {auction.why_illegal(c)}", str(c))
    rates = SeatRates.of(distinct, query.dealer, rs, query.model, query.kinds)
    every = np.arange(len(distinct))
    played = []
    for c in cands:
        con, states = play_on(branch(auction, c), every, rates, query.policies, query.ns_ew,
                              query.target)
        played.append((c, con, states))
    res = dd
    if query.play == "sd":
        needed = sorted({int(k) for _c, con, _s in played for k in con[:, F_KIND] if k >= 0})
        res = solve_worlds(distinct, query.dealer, rs, needed, "sd", query.sd_worlds, seed)
    out = []
    for c, con, states in played:
        sc = score_contracts(res, every, con, rs)
        net = sc.side_net(query.side)
        eq = None
        if equity is not None and query.score is not None:
            eq = deal_equity(query, con, sc, res, equity)[inverse]
        out.append(CallResult(c, con[inverse], sc.made[inverse], net[inverse], eq, states))
    return rank_results(out, weights)


def deal_equity(query: AuctionQuery, contracts: np.ndarray, scored, res: WorldResults,
                equity: dict) -> np.ndarray:
    """Our side's match-win chance after each world's deal (the equity table's ``A`` is
    our side)."""
    side = query.side
    decl = contracts[:, F_DECLARER]
    who = np.where(decl < 0, -1, np.where((decl & 1) == side, 0, 1))
    eight = np.where(res.eight < 0, -1, np.where(res.eight == side, 0, 1))
    eight = np.where(decl < 0, -1, eight)  # a passed-out deal ends nothing
    own, other = query.score
    out = np.empty(len(contracts))
    equity_after(equity["eq"], own, other, scored.scores[:, side].copy(),
                 scored.scores[:, 1 - side].copy(), who.astype(np.int64),
                 scored.flags.astype(np.int64), eight.astype(np.int64), query.target,
                 equity["rules"], (query.dealer & 1) == side, out)
    return out


def rank_results(results: list[CallResult], weights: np.ndarray) -> list[CallResult]:
    """Best first: the higher match-win chance when there is one, else the higher expected
    score; ties by the order given (pass, contra, recontra, then bids low to high)."""
    def key(item):
        i, r = item
        v = r.equity if r.equity is not None else r.net
        return (-float(weights @ v), i)

    return [r for _i, r in sorted(enumerate(results), key=key)]


def contract_label(row: np.ndarray) -> str:
    """A final contract of the play-on's columns, e.g. ``10H X by E``; ``passed out``."""
    if row[F_DECLARER] < 0:
        return "passed out"
    return Contract(int(row[F_LEVEL]), int(row[F_KIND]), int(row[F_DECLARER]),
                    int(row[F_CONTRA]), bool(row[F_CAPOT])).label


def ends(r: CallResult, weights: np.ndarray, top: int = ENDS_SHOWN) -> list[tuple[str, float]]:
    """The most frequent final contracts of a call, with their weights."""
    keys, inv = np.unique(r.contracts, axis=0, return_inverse=True)
    share = np.bincount(inv.reshape(-1), weights, len(keys))
    order = np.argsort(-share, kind="stable")[:top]
    return [(contract_label(keys[i]), float(share[i])) for i in order]


def advice_rows(query: AuctionQuery, results: list[CallResult], weights: np.ndarray,
                ess: float) -> list[dict]:
    """One record per call, best first: where the auction ends, P(our side declares),
    P(make) of our contract when we declare, E[score] (ours minus theirs) with its SE, the
    paired difference to the best call with its SE, and with a match score the match-win
    chance after the deal (and its difference to the best)."""
    rows = []
    best = results[0]
    for rank, r in enumerate(results, 1):
        ours = (r.contracts[:, F_DECLARER] >= 0) & ((r.contracts[:, F_DECLARER] & 1)
                                                    == query.side)
        p_declare = float(weights @ ours)
        p_make = float(weights @ (ours & r.made)) / p_declare if p_declare > 0 else None
        mean, se = weighted_mean_se(r.net.astype(np.float64), weights)
        diff, se_diff = weighted_mean_se((best.net - r.net).astype(np.float64), weights)
        row = {"rank": rank, "call": str(r.call),
               "ends": [{"contract": c, "share": s} for c, s in ends(r, weights)],
               "p_declare": p_declare, "p_make": p_make,
               "p_final_make": float(weights @ (r.made & (r.contracts[:, F_DECLARER] >= 0))),
               "expected_score": mean, "se_score": se,
               "behind_best": diff, "se_behind_best": se_diff, "ess": ess,
               "states": r.states}
        if r.equity is not None:
            eq, eq_se = weighted_mean_se(r.equity, weights)
            d, d_se = weighted_mean_se(best.equity - r.equity, weights)
            row.update({"equity": eq, "se_equity": eq_se, "equity_behind_best": d,
                        "se_equity_behind_best": d_se})
        rows.append(row)
    return rows


def check_worlds(n: int) -> None:
    """Refuse a number of worlds too small for a mean and its error."""
    if n < 2:
        raise BazarsimError(f"-n {n}: give at least 2 worlds (the ESS of the auction-weighted "
                            "worlds)", str(n))


def analyze_auction(query: AuctionQuery, n: int = 1000, seed: int = 7,
                    equity: dict | None = None, min_make: float = MIN_MAKE,
                    progress: Callable[[str], None] | None = None) -> Advice:
    """Draw the worlds (ESS ``n``) and judge every candidate on them."""
    check_worlds(n)
    worlds = draw_worlds(query, n, seed)
    if progress:
        progress("worlds")
    weights = np.full(worlds.n, 1.0 / worlds.n)
    results = judge_calls(query, worlds.hands, weights, seed, equity, None, min_make,
                          progress=progress)
    adv = Advice(query, seed, worlds, weights, results)
    adv.rows = advice_rows(query, results, weights, worlds.ess)
    return adv


def equity_table(eq: dict, target: int) -> dict:
    """Check that an equity result fits the target asked for."""
    if eq["target"] != target:
        raise BazarsimError(f"the equity table is for matches to {eq['target']}, not "
                            f"--to {target}", str(target))
    return {"eq": np.ascontiguousarray(eq["eq"]), "rules": int(eq["rules"]),
            "target": eq["target"]}
