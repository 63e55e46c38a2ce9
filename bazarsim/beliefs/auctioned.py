"""Deals bid by policies, their final contracts played out: ``simulate --auction``.

Every deal of a run is bid by four policies (each seat with the hand model's estimates for
its own hand, as in a match at 0-0 of 301: :func:`~bazarsim.beliefs.evidence.bid_deal`),
and its final contract is solved double dummy and, with ``sd`` worlds, played out twice
by hidden-card players: four plain PIMC players, then four PIMC players that listen to the
auction (:class:`~bazarsim.beliefs.listener.ListeningPimcPlayer`), each assuming that the
other seats bid with the policies they did. Both play for card points with the first
lead from the dealer's left, as every DD and SD column does, so the plain play-out is the
``{K}_sd_ns`` of the contract's kind, bit for bit, and the two differ only by what the
players heard.

The columns (:data:`AUCTION_COLUMNS`): ``auction`` (the calls from the dealer's left, in
the notation of ``bazarsim auction``; empty when the deal is redealt before any call:
four sevens), ``declarer`` (seat 0..3, -1: no contract), ``contract_kind`` (-1: none),
``contract_level``, ``contract_capot`` (1 a capot bid), ``contract_contra`` (0, 1 contra,
2 recontra), ``contract_dd_ns`` and ``contract_dd_capot`` (the ``{K}_dd_*`` layout; -1
without a contract) and, with ``sd``, ``contract_sd_ns``, ``contract_sd_capot``,
``contract_listen_ns``, ``contract_listen_capot`` (``listen``: the listening players). Each
deal's columns depend on the seed, its index and its cards only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bazarsim.beliefs.calls import check_listenable
from bazarsim.beliefs.evidence import (
    bid_deal,
    load_hand_model,
    seat_policy_names,
    shipped_model_path,
)
from bazarsim.beliefs.listener import ListeningPimcPlayer
from bazarsim.core.cards import SEATS, parse_seat
from bazarsim.core.contracts import KIND_NAMES, Contract
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.simulation import ruleset_from_params
from bazarsim.matches.bidding import deal_key
from bazarsim.matches.model import HandModel
from bazarsim.matches.policy import Policy, load_policy, policy_doc
from bazarsim.matches.run import policy_from_dict
from bazarsim.players.players import PimcPlayer, trick_tally
from bazarsim.players.view import PlayerView
from bazarsim.rules.auction import Call
from bazarsim.rules.rulesets import Ruleset

KEY = "auction"  # the manifest's entry
AUCTION_COLUMNS = ("auction", "declarer", "contract_kind", "contract_level", "contract_capot",
                   "contract_contra", "contract_dd_ns", "contract_dd_capot")
SD_COLUMNS = ("contract_sd_ns", "contract_sd_capot", "contract_listen_ns", "contract_listen_capot")


def parse_table_policies(spec: str) -> dict[int, Policy]:
    """``simulate --auction``: one policy for every seat (``careful``), or per seat after
    it (``careful,E=bold,W=my.toml``)."""
    default, per_seat = seat_policy_names(spec, "--auction")
    missing = [SEATS[s] for s in range(4) if s not in per_seat and default is None]
    if missing:
        raise BazarsimError(f"--auction {spec!r}: no policy for seat {' '.join(missing)} "
                            "(name one for every seat first: careful,E=bold)", spec)
    return {s: load_policy(per_seat.get(s, default)) for s in range(4)}


@dataclass
class AuctionColumns:
    """The column source of ``simulate --auction`` (see the module docstring)."""

    ruleset: Ruleset
    policies: dict[int, Policy]  # the policy each seat bids with, N E S W
    model_path: str | None = None  # a ``bazarsim fit`` file; None: the ruleset's shipped
    sd: int = 0  # worlds (ESS for the listeners) of the two play-outs; 0: none
    key: str = KEY
    # the bidder of a policy that simulates (see matches.bidding.policy_bidder); not recorded
    bidders: Callable | None = field(default=None, repr=False)
    model: HandModel = field(init=False, repr=False)

    def __post_init__(self):
        check_listenable(self.ruleset)
        if sorted(self.policies) != [0, 1, 2, 3]:
            raise BazarsimError("simulate --auction needs a policy for each of the four seats")
        self.model = load_hand_model(self.model_path, self.ruleset)

    def __getstate__(self):  # sent to Dask workers without the model: they load it
        return {k: v for k, v in self.__dict__.items() if k != "model"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.model = load_hand_model(self.model_path, self.ruleset)

    def params(self) -> dict:
        path = Path(self.model_path) if self.model_path else shipped_model_path(self.ruleset)
        doc = {"policies": {SEATS[s]: policy_doc(self.policies[s]) for s in range(4)},
               "model": self.model_path or f"shipped:{path.name}",
               # the model's content: another file at the same path is another run
               "model_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
               **({"sd": {"players": "pimc", "worlds": self.sd}} if self.sd else {})}
        return json.loads(json.dumps(doc))  # as the manifest reads it back

    @classmethod
    def from_params(cls, doc: dict, ruleset: Ruleset, bidders: Callable | None = None
                    ) -> AuctionColumns:
        """The source a manifest's ``auction`` entry describes (``bidders``: for policies
        that simulate)."""
        try:
            model = doc["model"]
            policies = {parse_seat(s): policy_from_dict(p) for s, p in doc["policies"].items()}
            worlds = doc.get("sd", {}).get("worlds", 0)
        except (KeyError, TypeError, AttributeError, BazarsimError) as exc:
            raise BazarsimError(f"the manifest's auction entry is not one this bazarsim "
                                f"reads ({exc})") from None
        return cls(ruleset, policies, None if model.startswith("shipped:") else model, worlds,
                   bidders=bidders)

    def columns(self, sim, hands, dealers, index, cols) -> dict[str, np.ndarray]:
        rs = self.ruleset
        n = len(hands)
        out = {"auction": np.empty(n, object),
               "declarer": np.full(n, -1, np.int8), "contract_kind": np.full(n, -1, np.int8),
               "contract_level": np.zeros(n, np.int16),
               "contract_capot": np.zeros(n, np.int8),
               "contract_contra": np.zeros(n, np.int8),
               "contract_dd_ns": np.full(n, -1, np.int16),
               "contract_dd_capot": np.full(n, -1, np.int8)}
        if self.sd:
            for name in SD_COLUMNS:
                out[name] = np.full(n, -1, np.int16 if name.endswith("_ns") else np.int8)
        redeal = cols["redeal"]
        histories: list[list[tuple[int, Call]]] = [[] for _ in range(n)]
        contracts: list[Contract | None] = [None] * n
        for i in range(n):
            if redeal[i]:
                out["auction"][i] = ""
                continue
            auction = bid_deal(hands[i], int(dealers[i]), rs, self.policies, self.model,
                               key=deal_key(sim.seed, 0, int(index[i])), bidders=self.bidders,
                               seed=sim.seed)
            out["auction"][i] = " ".join(str(c) for _s, c in auction.history)
            histories[i] = list(auction.history)
            con = contracts[i] = auction.contract
            if con is not None:
                out["declarer"][i] = con.declarer
                out["contract_kind"][i] = con.kind
                out["contract_level"][i] = con.level
                out["contract_capot"][i] = con.capot
                out["contract_contra"][i] = con.contra
        for kind in sorted({c.kind for c in contracts if c is not None}):
            sel = np.flatnonzero(out["contract_kind"] == kind)
            self._dd(kind, sel, hands, dealers, cols, out)
            if self.sd:
                self._sd(sim, kind, sel, hands, dealers, index, out)
                for i in sel:
                    ns, tricks = listening_playout(hands[i], contracts[i], int(dealers[i]),
                                                   histories[i], self.policies, self.model,
                                                   self.sd, sim.seed, int(index[i]), rs)
                    out["contract_listen_ns"][i] = ns
                    out["contract_listen_capot"][i] = capot_code(tricks)
        return out

    def _dd(self, kind, sel, hands, dealers, cols, out) -> None:
        k = KIND_NAMES[kind]
        if f"{k}_dd_ns" in cols:  # --dd solved every kind already
            out["contract_dd_ns"][sel] = cols[f"{k}_dd_ns"][sel]
            out["contract_dd_capot"][sel] = cols[f"{k}_dd_capot"][sel]
            return
        from bazarsim.dd.batch import dd_tables

        dd = dd_tables(hands[sel], dealer=dealers[sel], ruleset=self.ruleset, kinds=[kind])
        out["contract_dd_ns"][sel] = dd[f"{k}_ns_points"]
        out["contract_dd_capot"][sel] = (dd[f"{k}_capot_ns"].astype(np.int8)
                                         + 2 * dd[f"{k}_capot_ew"].astype(np.int8))

    def _sd(self, sim, kind, sel, hands, dealers, index, out) -> None:
        from bazarsim.players.batch import sd_tables

        k = KIND_NAMES[kind]
        sd = sd_tables(hands[sel], dealer=dealers[sel], ruleset=self.ruleset, kinds=[kind],
                       worlds=self.sd, seed=sim.seed, indices=index[sel])
        out["contract_sd_ns"][sel] = sd[f"{k}_sd_ns"]
        out["contract_sd_capot"][sel] = capot_code(sd[f"{k}_sd_tricks_ns"])


def column_source(params: dict, bidders: Callable | None = None) -> AuctionColumns | None:
    """The column source of a dataset's manifest (``None``: it was not bid by policies):
    what ``verify --repair`` and the Dask workers rebuild the run with."""
    if KEY not in params:
        return None
    return AuctionColumns.from_params(params[KEY], ruleset_from_params(params), bidders)


def row_contract(row) -> Contract:
    """The final contract of a row of these columns (one with a declarer)."""
    return Contract(int(row["contract_level"]), int(row["contract_kind"]), int(row["declarer"]),
                    int(row["contract_contra"]), bool(row["contract_capot"]))


def capot_code(tricks_ns):
    """1 where N-S took every trick, 2 where E-W did, else 0 (the ``_capot`` columns)."""
    t = np.asarray(tricks_ns)
    return ((t == 8).astype(np.int8) + 2 * (t == 0).astype(np.int8))


def listening_playout(hands, contract: Contract, dealer: int, calls, policies, model,
                      worlds: int, seed: int, deal_index: int, rs: Ruleset,
                      players=None, decisions: list | None = None) -> tuple[int, int]:
    """N-S's card points and tricks when ``contract`` is played out by four listening PIMC
    players (``worlds``: the ESS a decision asks), each assuming the others bid with
    ``policies``; ``players``: four player objects instead (e.g. some plain, for the
    listeners' play-offs). First lead from the dealer's left; the decisions' streams are
    the plain players' (seed, deal index, card, seat). ``decisions``: gets ``(ess,
    draws, capped)`` of every weighted decision."""
    if players is None:
        players = [ListeningPimcPlayer(policies, model, worlds, seed=seed) for _ in range(4)]
    hands = [int(h) for h in hands]
    leader = (dealer + 1) % 4
    history: list[tuple[int, int]] = []
    for _ in range(32):
        seat = PlayerView(rs, contract, dealer, leader, 0, 0, list(history)).to_play()
        view = PlayerView.from_deal(hands, contract, history, seat, dealer, rs,
                                    deal_index=deal_index, auction=calls)
        d = players[seat].decide(view)
        history.append((seat, int(d.card)))
        if decisions is not None and d.ess is not None:
            decisions.append((d.ess, d.draws, d.capped))
    end = PlayerView(rs, contract, dealer, leader, 0, 0, history)
    taken, tricks = trick_tally(end)
    return taken[0], tricks[0]


def plain_players(worlds: int, seed: int) -> list[PimcPlayer]:
    """Four plain PIMC players (for play-offs beside the listeners)."""
    return [PimcPlayer(worlds, "points", seed) for _ in range(4)]
