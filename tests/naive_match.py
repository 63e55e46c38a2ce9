"""A slow, obvious referee of matches, written from docs/rules.md (Scoring) and its sources.

It shares no code with :mod:`bazarsim.rules.match`: deals are plain dicts and the whole
score sheet is re-added from the first deal after every deal. A deal:

* ``ns``, ``ew``: the points each side writes for the deal;
* ``bidders``: the side of the contract (0 = NS, 1 = EW); ``made``: the contract was made;
* ``all_tricks``: the side that took every trick, or ``None``;
* ``capot_bid``, ``contra`` (0, 1 contra, 2 recontra): the contract's capot flag and doubling;
* ``tie``, ``carried``: belote-fr (the article on belote variants), equal totals: the
  bidders write nothing and ``carried`` points go to "the side that scores more in the
  next deal";
* ``eight``: the side with all eight cards of one suit in one hand (bela-hr), or ``None``.

``rules``: ``target``; ``failed_cannot_win`` (the Armenian club rules: "the leading team
cannot win the match by losing the last round ... if the opponent overtook it, the
opponent wins, otherwise play goes on"); ``capot_needs_bid_contra_made`` (the club rules:
"the match does not end on a capot unless it was bid with contra and made");
``reverse_capot_loses`` (the club rules: the bidders who take no trick lose the match at
once, whatever the score); ``eight_wins`` (the Bela description: eight cards of one suit
in one hand win the match at the end of the deal, whatever the score).

The match is won after a deal by the side with more points once it has at least the target
(the Bela description: "the team with the higher score wins; on equal scores play goes
on"; the other sources name no rule for equal scores and this one is the project's).
"""

from __future__ import annotations


def sheet(deals):
    """(ns, ew, carried pot) after the last of ``deals``, re-added from the first deal."""
    ns = ew = pot = 0
    for d in deals:
        ns += d["ns"]
        ew += d["ew"]
        if d["tie"]:
            pot += d["carried"]  # a tie is no deal that one side "scores more" in
        elif pot and d["ns"] != d["ew"]:
            if d["ns"] > d["ew"]:
                ns += pot
            else:
                ew += pot
            pot = 0
    return ns, ew, pot


def verdict(deals, rules):
    """Whether the match ends on the last of ``deals``: (winning side, why) or None.

    ``why`` is ``"eight"``, ``"reverse capot"`` or ``"target"``.
    """
    d = deals[-1]
    if rules["eight_wins"] and d["eight"] is not None:
        return d["eight"], "eight"
    if rules["reverse_capot_loses"] and d["all_tricks"] == 1 - d["bidders"]:
        return 1 - d["bidders"], "reverse capot"
    if rules["capot_needs_bid_contra_made"] and d["all_tricks"] == d["bidders"]:
        if not (d["capot_bid"] and d["contra"] > 0 and d["made"]):
            return None
    ns, ew, _ = sheet(deals)
    if ns == ew:
        return None
    leader = 0 if ns > ew else 1
    if max(ns, ew) < rules["target"]:
        return None
    if rules["failed_cannot_win"] and leader == d["bidders"] and not d["made"]:
        return None
    return leader, "target"


def play(deals, rules):
    """Play ``deals`` until the match ends: (winner or None, deals played, why, sheets)."""
    sheets = []
    for n in range(1, len(deals) + 1):
        sheets.append(sheet(deals[:n]))
        v = verdict(deals[:n], rules)
        if v is not None:
            return v[0], n, v[1], sheets
    return None, len(deals), "", sheets
