"""Hand analysis: one player's hand at bid time, and what each bid is worth with perfect play.

The player sees what the ruleset shows at bid time (:func:`bid_time`): all 8 cards in
bazar and bazar-blot, 5 cards and the turned card of the talon in belote-fr, 6 of the 8
in bela-hr. The rest is dealt as the real deal would: the seen cards, and the turned card
the taker receives, are fixed cards of the player's seat; every other card is random among
the unseen ones (:class:`~bazarsim.deals.generator.DealGenerator`, with ``--fix`` and
``--where`` for what the auction told). The player is the taker: its hidden cards are
dealt like everybody else's.

Every sample deal is solved double dummy once for every contract kind
(:func:`~bazarsim.dd.batch.dd_tables`, capot flags included), and every bid is scored on
those same deals by the rule of ``table bids`` (:func:`~bazarsim.analysis.bids.declarer_outcome`
and :func:`~bazarsim.analysis.bids.score_bids`): common random numbers, so two bids are
compared deal by deal (paired), with a much smaller error than two independent samples.

:func:`score_sample` takes deals of any size (small positions too, as the reference tests
use); :func:`summarize` turns per-deal results into figures; :func:`analyze` deals in
batches and, with a precision, stops as soon as :func:`stop_reason` says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np

from bazarsim.analysis.bids import (
    Bid,
    check_bid_options,
    declarer_outcome,
    play_key,
    ruleset_bids,
    score_bids,
)
from bazarsim.analysis.stats import wilson_interval
from bazarsim.core.cards import SEATS, format_cards, format_hand, parse_card, parse_hand
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.bidtime import HAND_CARDS, bid_time
from bazarsim.deals.constraints import Constraints, parse_constraints, parse_fix
from bazarsim.deals.generator import DEFAULT_SEED, DealGenerator
from bazarsim.evaluate.hands import evaluate_deals
from bazarsim.players.alphamu import DEFAULT_DEPTH
from bazarsim.players.players import check_depth, check_sd_player
from bazarsim.rules.rulesets import Ruleset

SEVENS = 0x01010101  # the 7 of each suit (bit = suit * 8 + rank, 7 lowest)
BATCH = 200  # deals between two checks of the stop rule (and the smallest sample it stops at)


# --------------------------------------------------------------------------- the question


def seen_at_bid_time(rs: Ruleset) -> tuple[int, bool]:
    """How many of their own cards a player bids on, and whether they also see the turned
    card (:func:`bazarsim.deals.bidtime.bid_time`: 8; belote-fr 5 and the turned card;
    bela-hr 6)."""
    bt = bid_time(rs)
    return (HAND_CARDS, False) if bt is None else (bt.seen, bt.turned)


def describe_bid_time(rs: Ruleset) -> str:
    seen, turned = seen_at_bid_time(rs)
    return f"{seen} cards" + (" and the turned card" if turned else "")


@dataclass(frozen=True)
class HandQuery:
    """One analysis: the ruleset, the player's seat and bid-time cards, the dealer, what is
    known of the other hands (constraints, the player's cards included) and the bids."""

    ruleset: Ruleset
    seat: int
    dealer: int
    hand: int  # the cards seen at bid time
    turned: int  # the turned card's bit (belote-fr), else 0
    constraints: Constraints
    kinds: tuple[int, ...]
    bids: tuple[Bid, ...]
    contra: int = 0
    play: str = "dd"  # the play the bids are judged by: dd, or sd (four PIMC players)
    worlds: int = 20  # with play sd: the worlds of each PIMC decision
    sd_player: str = "pimc"  # with play sd: who plays (pimc or alphamu, sd_depth deep)
    sd_depth: int = DEFAULT_DEPTH

    @property
    def side(self) -> int:
        return self.seat & 1

    def describe(self) -> dict:
        return {"hand": format_hand(self.hand),
                "turned": format_cards(self.turned) if self.turned else None,
                "seat": SEATS[self.seat], "dealer": SEATS[self.dealer],
                "ruleset": self.ruleset.name, "play": self.play,
                **({"worlds": self.worlds} if self.play == "sd" else {}),
                **({"players": self.sd_player, "depth": self.sd_depth}
                   if self.play == "sd" and self.sd_player != "pimc" else {})}


def _parse_hand_text(text: str) -> int:
    text = text.strip()
    if not text:
        raise BazarsimError("empty hand: give the cards seen at bid time, e.g. AJ9.K7.Q.T8")
    return parse_hand(text)


def hand_query(ruleset: Ruleset, hand: str | int, seat: int, dealer: int,
               turned: str | None = None, fix: list[str] | None = None,
               where: list[str] | None = None, kinds: tuple[int, ...] | None = None,
               contra: str = "none", levels: list[int] | None = None, play: str = "dd",
               worlds: int = 20, sd_player: str = "pimc",
               sd_depth: int = DEFAULT_DEPTH) -> HandQuery:
    """Check the hand against the ruleset's bid time and the other constraints (one clear
    error for each mistake) and build the query."""
    rs = ruleset
    seen, with_turned = seen_at_bid_time(rs)
    mask = _parse_hand_text(hand) if isinstance(hand, str) else int(hand)
    size = mask.bit_count()
    if size != seen:
        extra = " (give the turned card apart, with --turned)" if with_turned else ""
        raise BazarsimError(
            f"hand {format_hand(mask)} has {size} cards: in {rs.name} a player bids on "
            f"{describe_bid_time(rs)}{extra}", format_hand(mask))
    if rs.declarations.four_sevens_redeal and mask & SEVENS == SEVENS:
        raise BazarsimError(f"hand {format_hand(mask)} holds four sevens: in {rs.name} the "
                            "deal is void and dealt again, there is nothing to bid",
                            format_hand(mask))
    turned_bit = 0
    if with_turned:
        if not turned:
            raise BazarsimError(f"{rs.name}: give the turned card of the talon with --turned "
                                "(e.g. --turned JH)")
        turned_bit = 1 << parse_card(turned.strip())
        if turned_bit & mask:
            raise BazarsimError(f"turned card {turned.strip()} is also in the hand "
                                f"{format_hand(mask)}", turned.strip())
    elif turned:
        raise BazarsimError(f"{rs.name} has no turned card: drop --turned (a player bids on "
                            f"{describe_bid_time(rs)})", turned)
    fixed = parse_fix(fix)
    mine = mask | turned_bit
    for other in range(4):
        clash = fixed[other] & mine
        if clash:
            card = format_cards(clash).split()[0]
            what = "the turned card" if clash & turned_bit else f"in the hand of {SEATS[seat]}"
            raise BazarsimError(f"card {card} is {what} and also fixed to {SEATS[other]} "
                                "by --fix", card)
    own = f"{SEATS[seat]}:{format_cards(mine)}"
    constraints = parse_constraints([*(fix or []), own], where)
    kinds = tuple(rs.check_kind(k) for k in kinds) if kinds else tuple(rs.kinds)
    constraints.check_kinds(rs)
    contra_code = check_bid_options(rs, contra, levels)
    bids = tuple(ruleset_bids(rs, kinds, levels, capot=levels is None))
    play = play_key(play)
    if int(worlds) < 1:
        raise BazarsimError(f"--worlds {worlds}: must be at least 1", str(worlds))
    return HandQuery(rs, seat, dealer, mask, turned_bit, constraints, kinds, bids, contra_code,
                     play, int(worlds), check_sd_player(sd_player), check_depth(sd_depth))


# --------------------------------------------------------------------------- per deal


@dataclass(frozen=True)
class Sample:
    """Per-deal results, one column per sample deal: for each bid whether it makes and its
    score (declarers minus defenders); for each kind the side's total (cards +
    declarations + bela) and whether the side takes every trick."""

    bids: tuple[Bid, ...]
    kinds: tuple[int, ...]
    made: np.ndarray  # bool [bids, n]
    score: np.ndarray  # int64 [bids, n]
    total: np.ndarray  # int64 [kinds, n]
    capot: np.ndarray  # bool [kinds, n]

    def __len__(self) -> int:
        return int(self.made.shape[1])

    def extend(self, other: Sample) -> Sample:
        """This sample's deals followed by ``other``'s."""
        return replace(self, **{f: np.concatenate([getattr(self, f), getattr(other, f)], 1)
                                for f in ("made", "score", "total", "capot")})


def score_sample(deals: np.ndarray, dealer: int, seat: int, ruleset: Ruleset,
                 kinds: tuple[int, ...], bids: tuple[Bid, ...], contra: int = 0,
                 dd: dict[str, np.ndarray] | None = None) -> Sample:
    """Solve the deals (``uint32[n, 4]``, any equal hand size) for every kind at once and
    score every bid for the declaring side of ``seat``; ``dd``: DD tables already solved
    (the columns of :func:`~bazarsim.dd.batch.dd_tables`)."""
    deals = np.ascontiguousarray(deals, np.uint32).reshape(-1, 4)
    if dd is None:
        from bazarsim.dd.batch import dd_tables

        dd = dd_tables(deals, dealer=dealer, ruleset=ruleset, capot=True, kinds=kinds)
    n = deals.shape[0]
    side = seat & 1
    made = np.zeros((len(bids), n), np.bool_)
    score = np.zeros((len(bids), n), np.int64)
    total = np.zeros((len(kinds), n), np.int64)
    capot = np.zeros((len(kinds), n), np.bool_)
    for j, kind in enumerate(kinds):
        k = KIND_NAMES[kind]
        ev = evaluate_deals(deals, dealer, kind, ruleset)
        cap = dd[f"{k}_capot_ns"].astype(np.int64) + 2 * dd[f"{k}_capot_ew"].astype(np.int64)
        row = declarer_outcome(side, dd[f"{k}_total"], dd[f"{k}_ns_points"], cap,
                               ev["declarations_ns"], ev["declarations_ew"], ev["bela_ns"],
                               ev["bela_ew"])
        total[j] = row["side_total"]
        capot[j] = row["capot_side"] == side
        rows = [i for i, b in enumerate(bids) if b.kind == kind]
        if rows:
            m, s = score_bids(ruleset, row, [bids[i] for i in rows], contra)
            made[rows] = m
            score[rows] = s
    return Sample(tuple(bids), tuple(kinds), made, score, total, capot)


# --------------------------------------------------------------------------- figures


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    n = x.shape[0]
    mean = float(x.mean()) if n else math.nan
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return mean, se


@dataclass(frozen=True)
class Summary:
    """The best bid and how sure it is: its P(make) interval's half-width, and its paired
    lead over the second best. The second best is the best of the bids that score more
    than the best on some sample deal: a bid that never does (in bazar, the same kind one
    level higher, which scores the same when both make) is no alternative worth a margin.
    Only when every bid is such is the second best simply the next one."""

    n: int
    best: int  # index into the bids
    second: int  # -1 when every bid equals the best on every deal
    ties: tuple[int, ...]  # bids equal to the best on every sample deal
    margin: float  # mean over deals of score(best) - score(second)
    se_margin: float
    half_width: float  # of the best bid's P(make) interval
    significant: bool  # margin - z * se_margin > 0


def rank_bids(sample: Sample) -> list[int]:
    """Bid indices, best first: higher expected score, then higher P(make), then the
    ruleset's order (lower levels first)."""
    mean = sample.score.mean(1) if len(sample) else np.zeros(len(sample.bids))
    pm = sample.made.mean(1) if len(sample) else np.zeros(len(sample.bids))
    return sorted(range(len(sample.bids)), key=lambda j: (-mean[j], -pm[j], j))


def summarize(sample: Sample, confidence: float = 0.95) -> Summary:
    """Best bid, second best, paired margin and the best bid's interval half-width."""
    order = rank_bids(sample)
    n = len(sample)
    best = order[0]
    sb = sample.score[best]
    ties = tuple(j for j in order[1:] if np.array_equal(sample.score[j], sb))
    rest = [j for j in order[1:] if j not in ties]
    rivals = [j for j in rest if np.any(sample.score[j] > sb)]
    second = rivals[0] if rivals else rest[0] if rest else -1
    if second >= 0:
        margin, se = _mean_se((sb - sample.score[second]).astype(np.float64))
    else:
        margin, se = math.nan, math.nan
    lo, hi = wilson_interval(int(sample.made[best].sum()), n, confidence)
    z = _z(confidence)
    significant = bool(n > 1 and second >= 0 and margin - z * se > 0)
    return Summary(n, best, second, ties, margin, se, (hi - lo) / 2, significant)


def stop_reason(summary: Summary, precision: float | None, ceiling: int) -> str | None:
    """Why dealing stops now, or ``None`` to deal on: ``precision`` (the best bid's 95 %
    half-width is at most the precision), ``significant`` (its paired lead over the
    second best is significant), ``ceiling`` (``-n`` deals reached), ``deals`` (no
    precision asked: the ``-n`` deals are done)."""
    if precision is None:
        return "deals" if summary.n >= ceiling else None
    if summary.n >= 2 and summary.half_width <= precision:
        return "precision"
    if summary.significant:
        return "significant"
    if summary.n >= ceiling:
        return "ceiling"
    return None


def bid_rows(sample: Sample, summary: Summary, confidence: float = 0.95) -> list[dict]:
    """One record per bid: n, made, P(make) with its Wilson interval, the side's total
    (mean, SE), P(capot), the expected score with its SE, and the paired difference to
    the top bid (``rank`` 1; its row: its lead over the second best). Passing scores 0,
    so the best call is the top bid only where its expected score is above 0: ``best``
    is True on its row then, on no row otherwise, and every row's ``best_call`` names
    the best call, the top bid's label or ``"pass"``."""
    n = len(sample)
    rows = []
    ranks = {j: r + 1 for r, j in enumerate(rank_bids(sample))}
    sb = sample.score[summary.best].astype(np.float64)
    pays = n > 0 and float(sb.mean()) > 0
    best_call = sample.bids[summary.best].label if pays else "pass"
    for j, bid in enumerate(sample.bids):
        kj = sample.kinds.index(bid.kind)
        made = int(sample.made[j].sum())
        lo, hi = wilson_interval(made, n, confidence)
        mean_total, se_total = _mean_se(sample.total[kj].astype(np.float64))
        mean, se = _mean_se(sample.score[j].astype(np.float64))
        behind, se_behind = _mean_se(sb - sample.score[j])
        is_best = j == summary.best
        rows.append({
            "kind": KIND_NAMES[bid.kind], "level": bid.level, "capot": bid.capot,
            "bid": bid.label, "n": n, "made": made, "p_make": made / n if n else math.nan,
            "ci_low": lo, "ci_high": hi, "mean_total": mean_total, "se_total": se_total,
            "p_capot": float(sample.capot[kj].mean()) if n else math.nan,
            "expected_score": mean, "se_score": se, "pass_score": 0.0,
            "rank": ranks[j], "best": is_best and pays, "best_call": best_call,
            "equal_to_best": j in summary.ties,
            "behind_best": behind, "se_behind_best": se_behind,
            "second": sample.bids[summary.second].label if is_best and summary.second >= 0
            else None,
            "margin": summary.margin if is_best else None,
            "se_margin": summary.se_margin if is_best else None,
        })
    return rows


# --------------------------------------------------------------------------- driver


@dataclass(frozen=True)
class HandAnalysis:
    """The answer for one hand: the query, the per-deal sample, the best bid's summary,
    one record per bid, and why dealing stopped."""

    query: HandQuery
    seed: int
    sample: Sample
    summary: Summary
    rows: list[dict]
    stop: str
    precision: float | None
    confidence: float

    @property
    def deals(self) -> int:
        return len(self.sample)


def check_run(deals: int, precision: float | None, confidence: float) -> None:
    """Refuse a sample size, precision or confidence that makes no sense."""
    if deals < 1:
        raise BazarsimError(f"-n {deals}: must be >= 1")
    if precision is not None and not 0 < precision < 0.5:
        raise BazarsimError(f"--precision {precision}: must be between 0 and 0.5")
    if not 0 < confidence < 1:
        raise BazarsimError(f"--confidence {confidence}: must be between 0 and 1")


def deal_generator(query: HandQuery, seed: int) -> DealGenerator:
    """The dealer of the query's completions; constraints that (almost) no deal meets are
    refused here, before any solving (a pilot of candidates, as ``simulate`` does)."""
    gen = DealGenerator(seed, query.constraints, query.ruleset)
    if query.constraints.predicates.shape[0]:
        gen.check_feasible()
    return gen


def analyze(query: HandQuery, deals: int = 2000, seed: int = DEFAULT_SEED,
            precision: float | None = None,
            confidence: float = 0.95, batch: int = BATCH,
            progress: Callable[[int, int], None] | None = None,
            on_batch: Callable[[Summary, str | None], None] | None = None) -> HandAnalysis:
    """Deal ``deals`` completions of the query's hand (deal ``i`` of ``seed``, so the same
    whatever the thread count or batch) and score every bid on them. With ``precision``,
    deal ``batch`` at a time and stop as soon as :func:`stop_reason` says so (``deals`` is
    then the ceiling). ``on_batch`` sees each check's summary and decision."""
    check_run(deals, precision, confidence)
    gen = deal_generator(query, seed)
    # without a precision the batches only pace the progress bar: the deals are the same
    step = batch if precision is not None else max(batch, 500)
    sample = None
    done = 0
    while True:
        n = min(step, deals - done)
        hands = gen.deal(done, n).hands
        results = None
        if query.play == "sd":
            results = single_dummy_results(hands, query, seed, done)
        part = score_sample(hands, query.dealer, query.seat, query.ruleset, query.kinds,
                            query.bids, query.contra, results)
        sample = part if sample is None else sample.extend(part)
        done += n
        summary = summarize(sample, confidence)
        reason = stop_reason(summary, precision, deals)
        if on_batch is not None:
            on_batch(summary, reason)
        if progress is not None:
            progress(done, deals)
        if reason is not None:
            break
    return HandAnalysis(query, int(seed), sample, summary, bid_rows(sample, summary, confidence),
                        reason, precision, confidence)


def single_dummy_results(hands: np.ndarray, query: HandQuery, seed: int,
                         first: int) -> dict[str, np.ndarray]:
    """The deals played out by four hidden-card players, in the layout of the DD tables
    (``{K}_ns_points``, ``{K}_capot_ns`` / ``_ew``: who took every trick, ``{K}_total``)
    that :func:`score_sample` reads. Deal ``first + i`` keys its play, so the results do
    not depend on the batch."""
    from bazarsim.players.batch import sd_tables

    n = len(hands)
    sd = sd_tables(hands, dealer=query.dealer, ruleset=query.ruleset, kinds=query.kinds,
                   worlds=query.worlds, seed=seed,
                   indices=np.arange(first, first + n, dtype=np.int64),
                   player=query.sd_player, depth=query.sd_depth)
    out = {}
    for kind in query.kinds:
        k = KIND_NAMES[kind]
        tricks = sd[f"{k}_sd_tricks_ns"]
        out[f"{k}_ns_points"] = sd[f"{k}_sd_ns"].astype(np.int64)
        out[f"{k}_capot_ns"] = tricks == 8
        out[f"{k}_capot_ew"] = tricks == 0
        out[f"{k}_total"] = np.full(n, query.ruleset.total_points(kind), np.int64)
    return out


def parse_kinds(text: str | list[str] | None, rs: Ruleset) -> tuple[int, ...] | None:
    """``H,BK`` or ``H BK`` (or a list of such) -> kinds of the ruleset (``None``: all)."""
    if not text:
        return None
    if not isinstance(text, str):
        text = " ".join(text)
    return tuple(rs.check_kind(parse_kind(t)) for t in text.replace(",", " ").split())
