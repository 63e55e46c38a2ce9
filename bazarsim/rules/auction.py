"""The auction as a state machine: which calls are legal, and the contract it ends in.

Three auction styles are data of the ruleset (``ruleset.auction.style``):

* ``bazar`` (the Ukrainian house code, the Armenian club rules): numeric bids from 8
  (level + kind), capot bids, contra and recontra, the last word after three passes,
  redeal after four opening passes.
* ``belote`` (the article on belote variants): name a game (a suit, BK or VK) higher than
  the last one, double, redouble; a player who passed, doubled or redoubled may not name
  a game any more; after a redouble no game may be named (option
  ``belote_games_after_redouble``).
* ``bela`` (the Bela description): each player speaks once, the first named suit is
  trump, the dealer may not pass.

Speaking order is always the next seat in :data:`bazarsim.core.cards.SEATS` order from the
dealer (dealer N -> E speaks first). Bela's counter-clockwise play only renames seats.

Call notation (also the CLI's): ``8H`` ``9S`` ``8BK`` (``NT`` accepted) ``10VK`` (``AT``
accepted); ``P`` pass; ``X`` contra; ``XX`` recontra; a capot bid is a bid with the suffix
``-CAPOT`` (``9H-CAPOT``; ``-KAPOT``, ``-CAPUT``, ``-KAPUT``, ``-CAP`` and the prefix form
``CAPOT-9H`` are accepted). Belote and bela games carry no level: ``H``, ``BK``, ``VK``.
An out-of-turn contra (the house code allows one) is written at the contra-er's next turn.
The rules and their sources: docs/rules.md (The auction).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bazarsim.core.cards import SEATS, SIDES, parse_seat, side_of
from bazarsim.core.contracts import BK, KIND_NAMES, VK, Contract, bid_text, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.rules.rulesets import Ruleset, get_ruleset

PASS, BID, CONTRA, RECONTRA = 0, 1, 2, 3


class AuctionError(BazarsimError):
    """An illegal or unreadable call; the message names the call and the reason."""


@dataclass(frozen=True)
class Call:
    """One call: pass, a bid (level 0 for belote/bela games), contra or recontra."""

    type: int
    level: int = 0
    kind: int = -1
    capot: bool = False

    def __str__(self) -> str:
        if self.type == PASS:
            return "P"
        if self.type == CONTRA:
            return "X"
        if self.type == RECONTRA:
            return "XX"
        return bid_text(self.level, self.kind, self.capot)


_PASS_WORDS = {"P", "PASS", "PAS", "ПАС"}
_CONTRA_WORDS = {"X", "CONTRA", "KONTRA", "D", "DOUBLE", "DBL", "КОНТРА"}
_RECONTRA_WORDS = {"XX", "RECONTRA", "REKONTRA", "RD", "REDOUBLE", "RDBL", "РЕКОНТРА"}
_CAPOT_WORDS = ("CAPOT", "KAPOT", "CAPUT", "KAPUT", "CAP", "КАПО")
_BID_RE = re.compile(r"^(\d*)([^\d].*)$")


def parse_call(token: str) -> Call:
    """Read one call in the notation of the module docstring."""
    text = token.strip().upper()
    if text in _PASS_WORDS:
        return Call(PASS)
    if text in _CONTRA_WORDS:
        return Call(CONTRA)
    if text in _RECONTRA_WORDS:
        return Call(RECONTRA)
    capot = False
    for word in _CAPOT_WORDS:
        for form in (f"-{word}", f"_{word}", f"/{word}"):
            if text.endswith(form):
                text, capot = text[: -len(form)], True
                break
        else:
            for form in (f"{word}-", f"{word}_"):
                if text.startswith(form):
                    text, capot = text[len(form) :], True
                    break
        if capot:
            break
    expected = "expected P, X, XX or a bid such as 8H, 9S, 8BK, 10VK, 9H-CAPOT"
    m = _BID_RE.match(text)
    if not text or not m:
        raise AuctionError(f"bad call {token!r}: {expected}", token)
    level_text, kind_text = m.groups()
    try:
        kind = parse_kind(kind_text)
    except BazarsimError:
        raise AuctionError(
            f"bad call {token!r}: {expected} ({kind_text!r} is not a contract kind: "
            "S H D C BK VK, NT = BK, AT = VK)",
            token,
        ) from None
    level = int(level_text) if level_text else 0
    return Call(BID, level, kind, capot)


def parse_calls(text: str) -> list[Call]:
    """A whole call sequence separated by spaces or commas: ``"8H P 9S X P"``."""
    return [parse_call(t) for t in re.split(r"[\s,;]+", text.strip()) if t]


def parse_contract(
    text: str, declarer: str | int, contra: int = 0, ruleset: Ruleset | str | None = None
) -> Contract:
    """``"9H"``, ``"8BK"``, ``"9H-CAPOT"`` (bela/belote: ``"H"``) + declaring seat."""
    rs = get_ruleset(ruleset)
    call = parse_call(text)
    if call.type != BID:
        raise AuctionError(f"bad contract {text!r}: expected a bid such as 9H or 8BK", text)
    rs.check_kind(call.kind)
    seat = declarer if isinstance(declarer, int) else parse_seat(declarer)
    if rs.auction.style == "bazar" and call.level < rs.auction.min_level:
        raise AuctionError(
            f"bad contract {text!r}: level must be at least {rs.auction.min_level}", text
        )
    if contra not in (0, 1, 2):
        raise AuctionError(f"bad contra level {contra!r}: 0, 1 (contra) or 2 (recontra)")
    if contra and not rs.auction.contra:
        raise AuctionError(f"ruleset {rs.name} has no contra", text)
    if call.capot and not rs.auction.capot_bids:
        raise AuctionError(f"bad contract {text!r}: ruleset {rs.name} has no capot bids", text)
    return Contract(call.level, call.kind, seat, contra, call.capot)


@dataclass
class Auction:
    """A bazar, belote or bela auction in progress.

    ``why_illegal(call)`` says why the player to speak may not make ``call`` (``None`` if
    they may); ``call(call)`` makes it or raises :class:`AuctionError` naming the reason.
    """

    dealer: int = 0
    ruleset: Ruleset = field(default_factory=get_ruleset)
    history: list[tuple[int, Call]] = field(default_factory=list)
    finished: bool = False
    redeal: bool = False
    last_bid: tuple[int, Call] | None = None
    contra: int = 0
    closed: bool = False  # last-word raise made: only contra or pass may follow
    passes: int = 0  # passes in a row since the last other call
    out: set = field(default_factory=set)  # belote: seats that may no longer name a game

    def __post_init__(self) -> None:
        self.ruleset = get_ruleset(self.ruleset)
        if isinstance(self.dealer, str):
            self.dealer = parse_seat(self.dealer)
        if self.dealer not in (0, 1, 2, 3):
            raise AuctionError(f"bad dealer {self.dealer!r}: a seat 0..3 or N E S W")

    @property
    def style(self) -> str:
        return self.ruleset.auction.style

    @property
    def to_speak(self) -> int:
        return (self.dealer + 1 + len(self.history)) % 4

    # ------------------------------------------------------------------ rules
    def first_round_passed(self, side: int) -> bool:
        """Both players of ``side`` passed on their first call."""
        firsts = self.history[:4]
        seats = [s for s, _ in firsts if side_of(s) == side]
        return len(seats) == 2 and all(c.type == PASS for s, c in firsts if side_of(s) == side)

    def why_illegal(self, call: Call) -> str | None:
        """The reason ``call`` is illegal for the player to speak, or ``None``."""
        if self.finished:
            return "the auction is over"
        seat = self.to_speak
        if self.style == "bela":
            return self._bela_rule(seat, call)
        if self.style == "belote":
            return self._belote_rule(seat, call)
        return self._bazar_rule(seat, call)

    def _kind_rule(self, call: Call) -> str | None:
        if call.kind not in self.ruleset.kinds:
            have = " ".join(KIND_NAMES[k] for k in self.ruleset.kinds)
            name = KIND_NAMES[call.kind]
            return f"kind {name} does not exist in ruleset {self.ruleset.name} ({have})"
        return None

    def _contra_rule(self, seat: int, call: Call) -> str | None:
        if not self.ruleset.auction.contra:
            return f"ruleset {self.ruleset.name} has no contra or recontra"
        if self.last_bid is None:
            if call.type == CONTRA:
                return "there is no bid to contra"
            return "recontra answers a contra (there is no bid yet)"
        bid_side = side_of(self.last_bid[0])
        if call.type == CONTRA:
            if self.contra:
                return "the contract is already contra'd"
            if side_of(seat) == bid_side:
                return "contra is called by an opponent of the last bidder"
            return None
        if self.contra != 1:
            return "recontra answers a contra" if self.contra == 0 else "already recontra'd"
        if side_of(seat) != bid_side:
            return "recontra is called by the contracted side"
        return None

    def _bazar_rule(self, seat: int, call: Call) -> str | None:
        ar = self.ruleset.auction
        if call.type == PASS:
            if (
                self.last_bid is None
                and self.passes == 3
                and ar.dealer_must_name_after_three_passes
            ):
                return "after three passes the dealer must name a game"
            return None
        if call.type in (CONTRA, RECONTRA):
            return self._contra_rule(seat, call)
        # a bid
        if self.contra:
            return "no bids after a contra (only recontra or pass)"
        if self.closed:
            return "bidding closed after the last-word raise (only contra or pass)"
        if (msg := self._kind_rule(call)) is not None:
            return msg
        if call.capot and not ar.capot_bids:
            return f"ruleset {self.ruleset.name} has no capot bids"
        side = side_of(seat)
        if ar.both_passed_first_round_only_contra and self.first_round_passed(side):
            return f"both {SIDES[side]} players passed in the first round: they may only contra"
        if call.level < ar.min_level:
            return f"the lowest bid is {ar.min_level}"
        if ar.max_level and call.level > ar.max_level:
            return f"the highest bid is {ar.max_level}"
        if self.last_bid is None:
            return None
        last_seat, last = self.last_bid
        if last.capot and not call.capot:
            return f"after the capot bid {last} only a higher capot bid may follow"
        need = last.level + 1
        what = f"one level above {last}"
        if last_seat == seat and (call.kind != last.kind or call.capot != last.capot):
            need = last.level + ar.last_word_change_min_raise
            what = f"{ar.last_word_change_min_raise} level(s) above {last} to change the contract"
        if call.level < need:
            return f"a bid must be at least {need} ({what})"
        return None

    def _bela_rule(self, seat: int, call: Call) -> str | None:
        if call.type in (CONTRA, RECONTRA):
            return f"ruleset {self.ruleset.name} has no contra or recontra"
        if call.type == PASS:
            return "the dealer must name a suit" if seat == self.dealer else None
        if (msg := self._kind_rule(call)) is not None:
            return msg
        if call.level or call.capot:
            return "a bela call names a suit only (no level, no capot): e.g. H"
        return None

    def _game_rank(self, kind: int) -> int:
        order = self.ruleset.auction.belote_game_order.split("<")
        return order.index("BK" if kind == BK else "VK" if kind == VK else "suit")

    def _belote_rule(self, seat: int, call: Call) -> str | None:
        if call.type == PASS:
            return None
        if call.type in (CONTRA, RECONTRA):
            return self._contra_rule(seat, call)
        if (msg := self._kind_rule(call)) is not None:
            return msg
        if call.level or call.capot:
            return "a belote game is named without level or capot: e.g. H, BK, VK"
        if self.contra == 2 and not self.ruleset.auction.belote_games_after_redouble:
            return "no games after a redouble"
        if seat in self.out:
            return f"{SEATS[seat]} passed, doubled or redoubled before and may not name a game"
        if self.last_bid is not None:
            last = self.last_bid[1]
            if self._game_rank(call.kind) <= self._game_rank(last.kind):
                return f"a game must rank above {last} ({self.ruleset.auction.belote_game_order})"
        return None

    # ------------------------------------------------------------------ moves
    def legal_calls(self, max_level: int | None = None) -> list[Call]:
        """Every legal call, bids enumerated up to ``max_level`` (default: lowest + 8)."""
        if self.finished:
            return []
        cands = [Call(PASS), Call(CONTRA), Call(RECONTRA)]
        if self.style == "bazar":
            lo = self.ruleset.auction.min_level
            if self.last_bid is not None:
                lo = max(
                    lo,
                    self.last_bid[1].level
                    + min(1, self.ruleset.auction.last_word_change_min_raise),
                )
            hi = max_level if max_level is not None else lo + 8
            if self.ruleset.auction.max_level:
                hi = min(hi, self.ruleset.auction.max_level)
            for level in range(lo, hi + 1):
                for kind in self.ruleset.kinds:
                    cands.append(Call(BID, level, kind))
                    cands.append(Call(BID, level, kind, True))
        else:
            cands += [Call(BID, 0, k) for k in self.ruleset.kinds]
        return [c for c in cands if self.why_illegal(c) is None]

    def call(self, call: Call | str) -> None:
        """Make the next call, or raise :class:`AuctionError` saying why it is illegal."""
        if isinstance(call, str):
            call = parse_call(call)
        seat = self.to_speak
        reason = self.why_illegal(call)
        if reason is not None:
            n = len(self.history) + 1
            raise AuctionError(
                f"call {n} ({call} by {SEATS[seat]}) is illegal: {reason}", str(call)
            )
        self.history.append((seat, call))
        if call.type == PASS:
            self.passes += 1
            if self.style == "belote":
                self.out.add(seat)
        else:
            self.passes = 0
        if call.type == BID:
            if (
                self.style == "bazar"
                and self.last_bid is not None
                and self.last_bid[0] == seat
                and call.kind == self.last_bid[1].kind
                and call.capot == self.last_bid[1].capot
                and not self.ruleset.auction.last_word_raise_reopens
            ):
                self.closed = True
            self.last_bid = (seat, call)
            self.contra = 0
        elif call.type == CONTRA:
            self.contra = 1
            if self.style == "belote":
                self.out.add(seat)
        elif call.type == RECONTRA:
            self.contra = 2
            if self.style == "belote":
                self.out.add(seat)
        self._check_end()

    def _check_end(self) -> None:
        if self.style == "bela":
            self.finished = self.last_bid is not None
            return
        if self.last_bid is None:
            if self.passes == 4:
                self.finished = self.redeal = True
            return
        if self.contra == 2 and self.style == "bazar":
            self.finished = True
        elif self.style == "belote" or self.contra or self.closed:
            self.finished = self.passes == 3
        else:  # bid, three passes, and the bidder's own pass on the last word
            self.finished = self.passes == 4

    # ------------------------------------------------------------------ result
    @property
    def contract(self) -> Contract | None:
        """The final contract once the auction is over (``None`` on a redeal)."""
        if not self.finished or self.redeal or self.last_bid is None:
            return None
        seat, bid = self.last_bid
        return Contract(bid.level, bid.kind, seat, self.contra, bid.capot)

    def as_dict(self) -> dict:
        out = {
            "dealer": SEATS[self.dealer],
            "ruleset": self.ruleset.name,
            "calls": [{"seat": SEATS[s], "call": str(c)} for s, c in self.history],
            "finished": self.finished,
            "redeal": self.redeal,
            "contract": self.contract.as_dict() if self.contract else None,
        }
        if not self.finished:
            out["to_speak"] = SEATS[self.to_speak]
            out["legal"] = summarize_calls(self.legal_calls())
        return out


def summarize_calls(calls: list[Call]) -> list[str]:
    """Group legal calls for display: ``["P", "X", "9+ S H D C BK VK", "9+ capot"]``."""
    simple = [str(c) for c in calls if c.type != BID]
    bids = [c for c in calls if c.type == BID]
    plain = [c for c in bids if not c.capot]
    capots = [c for c in bids if c.capot]
    out = simple
    for group, suffix in ((plain, ""), (capots, "-CAPOT")):
        if not group:
            continue
        lo = min(c.level for c in group)
        kinds = " ".join(KIND_NAMES[k] for k in sorted({c.kind for c in group if c.level == lo}))
        if lo == 0:
            out.append(kinds)
        else:
            out.append(f"{lo}+ {kinds}" + (" with -CAPOT" if suffix else ""))
    return out


def run_auction(
    calls: str | list, dealer: int | str = 0, ruleset: Ruleset | str | None = None
) -> Auction:
    """Validate a call sequence from the player to the dealer's left; return the state."""
    rs = get_ruleset(ruleset)
    seat = dealer if isinstance(dealer, int) else parse_seat(dealer)
    auction = Auction(dealer=seat, ruleset=rs)
    items = parse_calls(calls) if isinstance(calls, str) else calls
    for i, c in enumerate(items):
        if auction.finished:
            raise AuctionError(f"call {i + 1} ({c}) comes after the end of the auction", str(c))
        auction.call(c)
    return auction
