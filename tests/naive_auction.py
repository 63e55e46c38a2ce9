"""A slow, stateless judge of bazar auctions, written from RULES.md section 5.

It re-reads the whole history for every call instead of keeping state, and works on
plain tuples, so it shares no code with :mod:`bazarsim.rules.auction`. Calls are tuples:
``("P",)``, ``("X",)``, ``("XX",)``, ``("B", level, kind, capot)``.
Kinds are 0..3 suits, 4 BK, 5 VK. Seats 0..3 = N E S W; side = seat % 2.
"""

from __future__ import annotations


def _seat(dealer, i):
    return (dealer + 1 + i) % 4


def _bids(history, dealer):
    return [(i, _seat(dealer, i), c) for i, c in enumerate(history) if c[0] == "B"]


def _ended(history, dealer):
    """Outcome of a history: None (open), 'redeal' or 'contract'."""
    bids = _bids(history, dealer)
    if not bids:
        return "redeal" if len(history) >= 4 and all(c[0] == "P" for c in history[:4]) else None
    if any(c[0] == "XX" for c in history):
        return "contract"
    last_other = max(i for i, c in enumerate(history) if c[0] != "P")
    trailing = len(history) - 1 - last_other
    if any(c[0] == "X" for c in history[bids[-1][0] :]):
        return "contract" if trailing >= 3 else None
    if _closed(history, dealer):
        return "contract" if trailing >= 3 else None
    return "contract" if trailing >= 4 else None


def _closed(history, dealer, reopens=False):
    """The last bid is a same-kind raise of the bidder's own previous bid (last word)."""
    if reopens:
        return False
    bids = _bids(history, dealer)
    if len(bids) < 2:
        return False
    (_, s1, b1), (_, s2, b2) = bids[-2], bids[-1]
    return s1 == s2 and b1[2] == b2[2] and b1[3] == b2[3]


def first_illegal(history, dealer, rules):
    """(index, reason code) of the first illegal call, or None if all are legal.

    ``rules`` is a dict: kinds, min_level, max_level, only_contra, dealer_must_name,
    contra, capot_bids, raise_reopens, change_min.
    """
    for i, call in enumerate(history):
        reason = _judge(history[:i], call, dealer, rules)
        if reason:
            return i, reason
    return None


def _judge(prior, call, dealer, r):
    if _ended_r(prior, dealer, r):
        return "over"
    seat = _seat(dealer, len(prior))
    bids = _bids(prior, dealer)
    last = bids[-1] if bids else None
    contra_after_last = last is not None and any(c[0] == "X" for c in prior[last[0] :])
    if call[0] == "P":
        if not bids and len(prior) == 3 and r["dealer_must_name"]:
            return "dealer_must_name"
        return None
    if call[0] in ("X", "XX"):
        if not r["contra"]:
            return "no_contra_rule"
        if call[0] == "X":
            if last is None:
                return "nothing_to_contra"
            if contra_after_last:
                return "already_contra"
            if seat % 2 == last[1] % 2:
                return "contra_own_side"
            return None
        if last is None or not contra_after_last:
            return "recontra_no_contra"
        if any(c[0] == "XX" for c in prior[last[0] :]):
            return "already_recontra"
        if seat % 2 != last[1] % 2:
            return "recontra_wrong_side"
        return None
    _, level, kind, capot = call
    if contra_after_last:
        return "bid_after_contra"
    if _closed(prior, dealer, r["raise_reopens"]):
        return "closed"
    if kind not in r["kinds"]:
        return "kind"
    if capot and not r["capot_bids"]:
        return "capot_off"
    if r["only_contra"] and len(prior) >= 4:
        mine = [c for j, c in enumerate(prior[:4]) if _seat(dealer, j) % 2 == seat % 2]
        if all(c[0] == "P" for c in mine):
            return "first_round_passed"
    if level < r["min_level"]:
        return "min_level"
    if r["max_level"] and level > r["max_level"]:
        return "max_level"
    if last is None:
        return None
    lb = last[2]
    if lb[3] and not capot:
        return "capot_only"
    step = 1
    if last[1] == seat and (lb[2] != kind or lb[3] != capot):
        step = r["change_min"]
    if level < lb[1] + step:
        return "too_low"
    return None


def _ended_r(prior, dealer, r):
    if r["raise_reopens"]:
        bids = _bids(prior, dealer)
        if bids and not any(c[0] in ("X", "XX") for c in prior[bids[-1][0] :]):
            last_other = max(i for i, c in enumerate(prior) if c[0] != "P")
            return len(prior) - 1 - last_other >= 4
    return _ended(prior, dealer) is not None


def final(history, dealer, rules):
    """'open', 'redeal' or (level, kind, declarer seat, contra level, capot)."""
    if not _ended_r(history, dealer, rules):
        return "open"
    bids = _bids(history, dealer)
    if not bids:
        return "redeal"
    i, seat, b = bids[-1]
    tail = [c[0] for c in history[i:]]
    contra = 2 if "XX" in tail else 1 if "X" in tail else 0
    return (b[1], b[2], seat, contra, b[3])
