"""The auction as evidence, from one seat: the model of the other players it assumes (a
policy per seat and the hand model behind them) and the weighted worlds it implies.

:class:`Evidence` holds an auction's calls turned into the kernels' arrays
(:class:`~bazarsim.beliefs.calls.CallModel`); :func:`weighted_sample` draws the worlds of a
view with their posterior weights (:mod:`bazarsim.beliefs.worlds`).

The hand model shipped with bazarsim (one per ruleset that can be listened to) is fitted
by ``make models`` on the solved dataset ``bazarsim simulate -n 40000 --seed 7 --dd
--columns lean -r RULESET`` (the match study's); ``--model`` takes another.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bazarsim.beliefs.calls import CallModel, call_contexts, check_listenable
from bazarsim.beliefs.worlds import (
    ENUMERATE,
    MAX_DRAWS_PER_ESS,
    MIN_CAP,
    MIN_PILOT,
    PILOT,
    PILOT_ROUNDS,
    SHRINK,
    new_cache,
    weighted_worlds,
)
from bazarsim.core.cards import SEATS, parse_seat
from bazarsim.core.errors import BazarsimError
from bazarsim.matches.model import HandModel
from bazarsim.matches.policy import Policy, load_policy
from bazarsim.rules.auction import Call, run_auction
from bazarsim.rules.rulesets import Ruleset

MODELS_DIR = Path(__file__).parent / "models"
DEFAULT_POLICY = "careful"
MAX_ESS = 100_000


def shipped_model_path(rs: Ruleset) -> Path:
    return MODELS_DIR / f"{rs.name}.json.gz"


def load_hand_model(spec: str | Path | None, rs: Ruleset) -> HandModel:
    """The hand model at ``spec`` (a ``bazarsim fit`` file), or the one shipped for the
    ruleset."""
    check_listenable(rs)
    if spec is None:
        path = shipped_model_path(rs)
        if not path.exists():
            raise BazarsimError(f"no hand model ships for ruleset {rs.name}: fit one with "
                                "bazarsim fit and give it with --model")
        doc = json.loads(gzip.decompress(path.read_bytes()))
        return HandModel.from_doc(doc, rs, str(path))
    return HandModel.load(spec, rs)


def seat_policy_names(spec: str | None, option: str) -> tuple[str | None, dict[int, str]]:
    """A policy option's text: the policy named for every seat (``None``: none) and those
    named per seat (``bold,E=careful,W=my.toml``); ``option`` names it in errors."""
    default = None
    per_seat: dict[int, str] = {}
    for item in [t.strip() for t in re.split(r"[,;]", spec or "") if t.strip()]:
        if "=" in item:
            seat_text, _, name = item.partition("=")
            try:
                seat = parse_seat(seat_text.strip())
            except BazarsimError:
                raise BazarsimError(f"{option} {item!r}: {seat_text.strip()!r} is not a seat "
                                    "(N E S W)", item) from None
            if not name.strip():
                raise BazarsimError(f"{option} {item!r}: no policy after '='", item)
            per_seat[seat] = name.strip()
        else:
            default = item
    return default, per_seat


def parse_seat_policies(spec: str | None, me: int) -> dict[int, Policy]:
    """``--policy``: one policy for every other seat (``bold``), or per seat
    (``E=bold,W=my.toml``), or both (``bold,N=careful``); unnamed seats: careful."""
    default, per_seat = seat_policy_names(spec, "--policy")
    return {s: load_policy(per_seat.get(s, default or DEFAULT_POLICY))
            for s in range(4) if s != me}


@dataclass
class WeightedWorlds:
    """Worlds (``hands[k, 4]``, the view's seats) with posterior weights (sum 1)."""

    hands: np.ndarray
    weights: np.ndarray
    draws: int
    ess: float
    exhaustive: bool  # every consistent world, exactly weighted
    capped: bool  # the draws stopped at the cap before the ESS asked for

    @property
    def n(self) -> int:
        return len(self.weights)


class Evidence:
    """An auction seen from seat ``me``: the other seats' calls with their policies."""

    def __init__(self, rs: Ruleset, dealer: int, calls: list[tuple[int, Call]], me: int,
                 policies: dict[int, Policy], model: HandModel,
                 score: tuple[int, int] = (0, 0), target: int = 301):
        check_listenable(rs)
        self.ruleset, self.dealer, self.calls, self.me = rs, dealer, list(calls), me
        self.policies = policies
        others = tuple(s for s in range(4) if s != me)
        for s in others:
            if s not in policies:
                raise BazarsimError(f"no policy for seat {SEATS[s]}")
        contexts = call_contexts(self.calls, dealer, rs, policies, others, score, target)
        self.model = CallModel(rs, contexts, model, policies)
        rows = np.zeros((4, max(1, len(self.calls))), np.int64)
        n_rows = np.zeros(4, np.int64)
        for s in others:
            r = self.model.rows(s)
            rows[s, : len(r)] = r
            n_rows[s] = len(r)
        self.rows, self.n_rows = rows, n_rows

    @classmethod
    def from_text(cls, rs: Ruleset, dealer: int, auction: str, me: int, policy: str | None,
                  model: str | Path | None = None, **kw) -> Evidence:
        check_listenable(rs)  # before the calls: their notation differs in those rulesets
        state = run_auction(auction, dealer, rs)
        return cls(rs, dealer, state.history, me, parse_seat_policies(policy, me),
                   load_hand_model(model, rs), **kw)

    @property
    def listened(self) -> bool:
        """Any call by another seat to weigh."""
        return bool(self.n_rows.sum())

    def kernel_args(self) -> tuple:
        m, c = self.model, self.model.contexts
        return (self.rows, self.n_rows, m.ints, c.low, c.cap_low, c.need, c.thresholds,
                m.floats, m.model.rates, m.T, m.trump_masks, m.kinds, m.lvl0, m.n_levels)


def draw_cap(ess: float) -> int:
    return int(max(MIN_CAP, MAX_DRAWS_PER_ESS * ess))


def weighted_sample(evidence: Evidence, own: int, fixed, forbid, counts, played: int,
                    played_by, ess: float, key: int, max_draws: int | None = None,
                    enumerate_max: int = ENUMERATE, pilot: int | None = None,
                    pilot_rounds: int = PILOT_ROUNDS, shrink: float = SHRINK,
                    theta: np.ndarray | None = None,
                    cache: tuple[np.ndarray, np.ndarray] | None = None) -> WeightedWorlds:
    """The worlds of a view (the kernels' seats) weighted by the auction: draws until the
    effective sample size reaches ``ess`` or the cap (:func:`draw_cap`). ``theta``
    (``[4, 32]``, NaN before the first use): the card weights to start from, updated.
    ``pilot``: draws a pilot round (default: half the ESS asked, 64 to 256). ``cache``
    (:func:`~bazarsim.beliefs.worlds.new_cache`): the likelihoods of hands seen before,
    for this evidence only."""
    if pilot is None:
        pilot = int(min(PILOT, max(MIN_PILOT, ess // 2)))
    if not 1 <= ess <= MAX_ESS:
        raise BazarsimError(f"effective sample size {ess}: use 1 .. {MAX_ESS:,}", str(ess))
    cap = draw_cap(ess) if max_draws is None else int(max_draws)
    size = max(cap, 2000)
    out_h = np.zeros((size, 4), np.int64)
    out_w = np.zeros(size)
    warm = theta is not None and not np.isnan(theta).any()
    if theta is None:
        theta = np.ones((4, 32))
    elif not warm:
        theta[:] = 1.0
    k, draws, got, exhaustive = weighted_worlds(
        np.int64(evidence.me), np.int64(own), np.asarray(fixed, np.int64),
        np.asarray(forbid, np.int64), np.asarray(counts, np.int64), np.int64(played),
        np.asarray(played_by, np.int64), float(ess), np.int64(cap), np.int64(enumerate_max),
        np.int64(pilot), np.int64(pilot_rounds), float(shrink), warm, theta, np.uint64(key),
        *evidence.kernel_args(), *(cache if cache is not None else new_cache()), out_h, out_w)
    if k == 0:
        raise BazarsimError("no deal is consistent with the cards seen and played")
    w = out_w[:k]
    total = w.sum()
    if total <= 0.0:
        raise BazarsimError("no drawn deal fits the auction (every weight 0: the policies' "
                            "softness and floor are 0 and the calls are very unlikely)")
    return WeightedWorlds(out_h[:k].copy(), w / total, int(draws), float(got), bool(exhaustive),
                          bool(not exhaustive and got < ess))


def bid_deal(hands, dealer: int, rs: Ruleset, policies: dict[int, Policy], model: HandModel,
             score: tuple[int, int] = (0, 0), target: int = 301, key: int = 0,
             bidders=None, seed: int = 7):
    """The auction of a deal (four whole hands, N E S W) when every seat bids by its policy
    with the hand model's estimates for its own hand: the auctions the listeners assume.
    ``key``: the deal's random key, and ``bidders``, ``seed``: for policies that simulate
    (:func:`~bazarsim.matches.bidding.policy_bidder`)."""
    from bazarsim.beliefs.calls import seat_cells
    from bazarsim.matches.bidding import SeatView, policy_auction, policy_bidder

    check_listenable(rs)
    cm = CallModel(rs, call_contexts([], dealer, rs, {}, ()), model, {})
    cells = np.zeros(len(cm.trump_masks), np.int64)
    views = []
    for s in range(4):
        seat_cells(np.int64(hands[s]), (s - dealer - 1) % 4 + 1, cm.T, cm.trump_masks,
                   cm.kinds, cells)
        views.append(SeatView(s, model.rates[0, cells].copy(), model.rates[1, cells].copy(),
                              score[s & 1], score[1 - (s & 1)], target, hand=int(hands[s]),
                              key=key))
    return policy_auction([policy_bidder(policies[s], model, seed, bidders) for s in range(4)],
                          views, dealer, rs)
