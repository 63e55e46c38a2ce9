"""Slow, stateless judges of the three auction styles of docs/rules.md (The auction): bazar,
belote (belote-fr) and bela (bela-hr).

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


# --------------------------------------------------------------------------- belote
# Written from the article on belote variants (belote-fr, docs/rules.md): the player to the
# dealer's left speaks first, then each in turn; a call is a game (a suit, BK or VK, no
# level), pass, double (of the opponents' game) or redouble (of a double of one's own
# side's game); a player who has not yet passed, doubled or redoubled may name a game
# higher than the last one; the game is the last one named. The sources do not say how the
# auction ends: here, like every auction of the project, four opening passes redeal and
# three passes in a row after the last game, double or redouble end it. ``rules`` (a dict):
# kinds, contra, order ("suit<BK<VK" or "suit<VK<BK": games from the lowest; the four suits
# rank alike), no_game_after_redouble (the project's choice; the article is silent).
#
# A verdict is the *set* of every rule a call breaks (empty: legal), so that it need not
# agree with the machine on which of two broken rules to name first.


def _game_rank(kind, order):
    name = "BK" if kind == 4 else "VK" if kind == 5 else "suit"
    return order.split("<").index(name)


def belote_outcome(history, dealer):
    """A legal belote history: 'open', 'redeal' or (0, kind, seat, contra level, False)."""
    games = [(i, c) for i, c in enumerate(history) if c[0] == "B"]
    if not games:
        # only passes can precede the first game (a double needs a game)
        return "redeal" if len(history) >= 4 else "open"
    trailing = 0
    for c in reversed(history):
        if c[0] != "P":
            break
        trailing += 1
    if trailing < 3:
        return "open"
    i, game = games[-1]
    after = [c[0] for c in history[i + 1 :]]
    contra = 2 if "XX" in after else 1 if "X" in after else 0
    return (0, game[2], _seat(dealer, i), contra, False)


def belote_violations(prior, call, dealer, rules):
    """Every rule that ``call``, made after the legal history ``prior``, breaks."""
    if belote_outcome(prior, dealer) != "open":
        return {"over"}
    seat = _seat(dealer, len(prior))
    games = [(i, _seat(dealer, i), c) for i, c in enumerate(prior) if c[0] == "B"]
    last = games[-1] if games else None
    after = [c[0] for c in prior[last[0] + 1 :]] if last else []
    broken = set()
    if call[0] == "P":
        return broken
    if call[0] in ("X", "XX") and not rules["contra"]:
        broken.add("no_contra_rule")
    if call[0] == "X":
        if last is None:
            broken.add("nothing_to_contra")
        else:
            if "X" in after:
                broken.add("already_contra")
            if last[1] % 2 == seat % 2:
                broken.add("contra_own_side")
        return broken
    if call[0] == "XX":
        if last is None or "X" not in after:
            broken.add("recontra_no_contra")
        else:
            if "XX" in after:
                broken.add("already_recontra")
            if last[1] % 2 != seat % 2:
                broken.add("recontra_wrong_side")
        return broken
    _, level, kind, capot = call
    if kind not in rules["kinds"]:
        broken.add("kind")
    if level or capot:
        broken.add("game_has_level")
    mine = [c[0] for j, c in enumerate(prior) if _seat(dealer, j) == seat]
    if "P" in mine or "X" in mine or "XX" in mine:
        broken.add("spoke_out")
    if last is not None:
        if rules["no_game_after_redouble"] and "XX" in after:
            broken.add("after_redouble")
        if kind in rules["kinds"] and _game_rank(kind, rules["order"]) <= _game_rank(
            last[2][2], rules["order"]
        ):
            broken.add("not_higher")
    return broken


# --------------------------------------------------------------------------- bela
# Written from the Bela description (bela-hr, docs/rules.md): starting next to the dealer, each
# player speaks once, naming a suit or passing; the dealer may not pass; the first suit
# named is trump; no BK, VK, levels, capot bids, contra or recontra. ``rules``: kinds.


def bela_outcome(history, dealer):
    """A legal bela history: 'open' or (0, suit, seat, 0, False)."""
    for i, c in enumerate(history):
        if c[0] == "B":
            return (0, c[2], _seat(dealer, i), 0, False)
    return "open"


def bela_violations(prior, call, dealer, rules):
    """Every rule that ``call``, made after the legal history ``prior``, breaks."""
    if bela_outcome(prior, dealer) != "open" or len(prior) >= 4:
        return {"over"}
    seat = _seat(dealer, len(prior))
    if call[0] in ("X", "XX"):
        return {"no_contra_rule"}
    if call[0] == "P":
        return {"dealer_must_name"} if seat == dealer else set()
    _, level, kind, capot = call
    broken = set()
    if kind not in rules["kinds"]:
        broken.add("kind")
    if level or capot:
        broken.add("suit_only")
    return broken
