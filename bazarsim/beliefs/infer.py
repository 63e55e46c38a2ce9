"""``bazarsim infer``: what the calls (and the cards played) say about the hidden hands.

From one seat's point of view, over the auction-weighted worlds
(:mod:`bazarsim.beliefs.worlds`), for each other seat: its expected card points and
strength (the hand model's measure: card points, declarations and bela) under a contract
kind, on the hand it was dealt (the one its calls were made on); the distribution of its
length in each suit and the probability that it holds each card, for the cards it holds
now (the same before any card is played); P(bela) in the kind's trump suit. Every figure
is a weighted mean over the worlds, so its sampling error follows from the effective
sample size (ESS), which is reported with the draws it took.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bazarsim.beliefs.evidence import Evidence, WeightedWorlds, weighted_sample
from bazarsim.core.cards import SEATS, SUITS, format_card, parse_card
from bazarsim.core.contracts import BK, KIND_NAMES, VK
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import seed_key
from bazarsim.evaluate.hands import evaluate_hands
from bazarsim.players.pimc import I_LIMITS, I_VOIDS
from bazarsim.players.view import PlayerView, next_seat, winner_seat
from bazarsim.rules.auction import run_auction
from bazarsim.rules.play import contract_play, legal_cards
from bazarsim.rules.rulesets import Ruleset

# what infer reads from the cards played: voids and trump or suit limits (declarations and
# bela announcements are not inputs of the command)
INFER_PLAY = I_VOIDS | I_LIMITS
SHOWN_CARDS = ("J", "9")  # the cards the summaries name in every suit


@dataclass
class SeatBelief:
    """One other seat's hand as the weighted worlds see it."""

    seat: int
    policy: str
    calls: list[str]
    points: float  # expected card points (dealt hand, under ``kind``)
    points_se: float
    strength: float  # card points + declarations + 20 per bela (the model's measure)
    strength_se: float
    length: np.ndarray  # [4 suits, 9]: P(length = 0..8), cards held now
    card: np.ndarray  # [32]: P(holds the card now)
    bela: float | None  # P(K+Q of the trump suit, dealt), None without one

    def as_dict(self) -> dict:
        return {
            "seat": SEATS[self.seat], "policy": self.policy, "calls": self.calls,
            "points": round(self.points, 2), "points_se": round(self.points_se, 2),
            "strength": round(self.strength, 2), "strength_se": round(self.strength_se, 2),
            "length": {SUITS[s]: [round(float(p), 4) for p in self.length[s]]
                       for s in range(4)},
            "expected_length": {SUITS[s]: round(float(self.length[s] @ np.arange(9)), 3)
                                for s in range(4)},
            "card": {format_card(c): round(float(self.card[c]), 4) for c in range(32)},
            "bela": None if self.bela is None else round(self.bela, 4),
        }


@dataclass
class Inference:
    ruleset: Ruleset
    seat: int
    dealer: int
    auction: str
    played: list[tuple[int, int]]
    kind: int
    worlds: WeightedWorlds
    seats: list[SeatBelief] = field(default_factory=list)
    seed: int = 7
    ess_asked: float = 0.0
    silent: list[str] = field(default_factory=list)  # calls the policies never make here

    @property
    def known(self) -> int:
        """The cards no other seat holds: this seat's hand now and every card played."""
        out = int(self.worlds.hands[0, self.seat])
        for _s, c in self.played:
            out |= 1 << c
        return out

    def as_dict(self) -> dict:
        w = self.worlds
        return {"ruleset": self.ruleset.name, "seat": SEATS[self.seat],
                "dealer": SEATS[self.dealer], "auction": self.auction,
                "played": [format_card(c) for _s, c in self.played],
                "kind": KIND_NAMES[self.kind], "seed": self.seed,
                "ess": round(w.ess, 1), "ess_asked": self.ess_asked, "draws": w.draws,
                "exhaustive": w.exhaustive, "capped": w.capped,
                "silent_calls": self.silent,
                "seats": [s.as_dict() for s in self.seats]}


def weighted_mean_se(x: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Weighted mean and its standard error (the ESS-based delta method:
    ``sqrt(sum w^2 (x - mean)^2)`` for weights summing to 1)."""
    m = float(w @ x)
    return m, float(np.sqrt(np.sum(w * w * (x - m) ** 2)))


def play_view(rs: Ruleset, hand: int, seat: int, dealer: int, contract,
              cards: list[int]) -> PlayerView:
    """The seat's view after ``cards`` (in play order from the first leader, who sits at
    the dealer's left): each card's seat follows from the tricks' winners; checked: no
    card twice, no card of the seat's hand played by another, the seat's own cards legal."""
    leader = (dealer + 1) % 4
    play = contract_play(rs, contract.kind)
    history: list[tuple[int, int]] = []
    own = hand
    trick: list[int] = []
    to_lead = leader
    for i, c in enumerate(cards):
        who = next_seat(to_lead, len(trick), rs)
        name = format_card(c)
        if any(c == x for _s, x in history):
            raise BazarsimError(f"--played: {name} is played twice (card {i + 1})", name)
        if who != seat and (hand >> c) & 1:
            raise BazarsimError(f"--played: card {i + 1} is {SEATS[who]}'s, but {name} is in "
                                f"{SEATS[seat]}'s hand", name)
        if who == seat:
            tr = np.zeros(4, np.int64)
            tr[: len(trick)] = trick
            legal = int(legal_cards(np.int64(own), tr, len(trick), play.strength, play.above,
                                    play.rules))
            if not (own >> c) & 1:
                raise BazarsimError(f"--played: card {i + 1} is {SEATS[seat]}'s, who does not "
                                    f"hold {name}", name)
            if not (legal >> c) & 1:
                raise BazarsimError(f"--played: {SEATS[seat]} may not play {name} as card "
                                    f"{i + 1}", name)
            own &= ~(1 << c)
        history.append((who, c))
        trick.append(c)
        if len(trick) == 4:
            to_lead = winner_seat(trick, to_lead, rs, contract.kind)
            trick = []
    return PlayerView(rs, contract, dealer, leader, seat, own, history)


def parse_played(text: str | None) -> list[int]:
    """``--played``: cards in play order from the first leader."""
    if not text:
        return []
    return [parse_card(t) for t in text.replace(",", " ").split()]


def infer(rs: Ruleset, hand: int, seat: int, dealer: int, auction: str,
          evidence: Evidence, played_text: str | None = None, kind: int | None = None,
          ess: float = 1000.0, seed: int = 7) -> Inference:
    """The beliefs of seat ``seat`` holding ``hand`` (its dealt 8 cards) after the calls
    of ``evidence`` (``auction``: their text, as shown) and the cards ``played_text``, in
    play order from the first leader."""
    state = run_auction([c for _s, c in evidence.calls], dealer, rs)
    cards = parse_played(played_text)
    played: list[tuple[int, int]] = []
    fixed = np.zeros(4, np.int64)
    forbid = np.zeros(4, np.int64)
    counts = np.full(4, 8, np.int64)
    gone = 0
    own_now = hand
    if cards:
        if state.contract is None:
            raise BazarsimError("--played needs a finished auction with a contract (the "
                                "play's rules depend on it)")
        view = play_view(rs, hand, seat, dealer, state.contract, cards)
        played = view.history
        fixed, forbid, counts, _gone = view.constraints(INFER_PLAY)
        own_now = view.hand
        for _s, c in played:
            gone |= 1 << c
        if view.world_count(INFER_PLAY) == 0:
            raise BazarsimError("no deal is consistent with the cards played and this hand")
    played_by = np.zeros(4, np.int64)
    for s, c in played:
        played_by[s] |= 1 << c
    if kind is None:
        kind = state.last_bid[1].kind if state.last_bid is not None else BK
    rs.check_kind(kind)
    key = int(seed_key(np.uint64(seed))) ^ 0x1F3D5B79A2C4E6F8
    worlds = weighted_sample(evidence, own_now, fixed, forbid, counts, gone, played_by, ess,
                             key)
    beliefs = [_seat_belief(rs, worlds, s, evidence, played_by, kind)
               for s in range(4) if s != seat]
    return Inference(rs, seat, dealer, auction, played, kind, worlds, beliefs, seed, ess,
                     silent_calls(evidence, worlds, played_by))


def silent_calls(evidence: Evidence, worlds: WeightedWorlds, played_by) -> list[str]:
    """The other seats' calls that the policy assumed for them makes with none of the
    worlds' hands (soft probability below 1e-3 in every world): only the floor weighs
    them, so they say nothing of the hands (e.g. a jump the policy never makes)."""
    cm = evidence.model
    out = []
    heaviest = np.argsort(worlds.weights)[::-1][:64]  # where a call that counts is likely
    for row, (s, call) in enumerate(cm.contexts.calls):
        dealt = worlds.hands[:, s] | played_by[s]
        if cm.soft_of_row(row, dealt[heaviest]).max() >= 1e-3:
            continue
        if cm.soft_of_row(row, dealt).max() < 1e-3:
            out.append(f"{SEATS[s]} {call}")
    return out


def _seat_belief(rs: Ruleset, worlds: WeightedWorlds, s: int, evidence: Evidence,
                 played_by: np.ndarray, kind: int) -> SeatBelief:
    w = worlds.weights
    now = worlds.hands[:, s].astype(np.int64)
    dealt = (now | played_by[s]).astype(np.uint32)
    ev = evaluate_hands(dealt, kind, rs)
    points = ev["points"].astype(np.float64)
    strength = points + ev["declaration_points"] + 20.0 * ev["belas"]
    pts, pts_se = weighted_mean_se(points, w)
    st, st_se = weighted_mean_se(strength, w)
    card = np.array([float(w @ ((now >> c) & 1)) for c in range(32)])
    length = np.zeros((4, 9))
    for suit in range(4):
        n = np.bitwise_count((now >> (8 * suit)) & 0xFF)
        length[suit] = np.bincount(n, w, 9)
    bela = None
    if kind != BK:
        k_bit, q_bit = 1 << 6, 1 << 5  # K and Q in a suit byte
        suits = range(4) if kind == VK else (kind,)
        has = np.zeros(len(dealt), bool)
        for suit in suits:
            b = (dealt.astype(np.int64) >> (8 * suit)) & 0xFF
            has |= (b & (k_bit | q_bit)) == (k_bit | q_bit)
        bela = float(w @ has)
    calls = [str(c) for seat, c in evidence.calls if seat == s]
    return SeatBelief(s, evidence.policies[s].name, calls, pts, pts_se, st, st_se, length,
                      card, bela)


def summary_rows(res: Inference) -> list[dict]:
    """The first table of ``infer``: one row per other seat."""
    rows = []
    for b in res.seats:
        row = {"seat": SEATS[b.seat], "policy": b.policy, "calls": " ".join(b.calls) or "-",
               f"points {KIND_NAMES[res.kind]}": f"{b.points:.1f} ± {b.points_se:.1f}",
               "strength": f"{b.strength:.1f} ± {b.strength_se:.1f}",
               "length S H D C": " ".join(f"{b.length[s] @ np.arange(9):.1f}"
                                          for s in range(4))}
        if b.bela is not None:
            row["bela"] = f"{100 * b.bela:.0f}%"
        rows.append(row)
    return rows


def key_card_rows(res: Inference) -> list[dict]:
    """The second table: P(each other seat holds the jack and nine of each suit now), "-"
    for the cards this seat holds or that were played."""
    known = res.known
    rows = []
    for b in res.seats:
        row = {"seat": SEATS[b.seat]}
        for suit in range(4):
            for r in SHOWN_CARDS:
                c = parse_card(r + SUITS[suit])
                row[f"{r}{SUITS[suit]}"] = "-" if known >> c & 1 else f"{100 * b.card[c]:.0f}%"
        rows.append(row)
    return rows


def card_records(res: Inference) -> list[dict]:
    """One row per other seat and card: P(it holds the card now)."""
    return [{"seat": SEATS[b.seat], "card": format_card(c), "p_holds": round(float(b.card[c]), 4)}
            for b in res.seats for c in range(32)]
