"""A slow, literal transcription of docs/rules.md (Scoring), to check bazarsim.rules.scoring.

Plain Python on plain numbers; it reads the ruleset's option fields by name and shares
no code with :mod:`bazarsim.rules.scoring`. ``score(...)`` returns
``(made, margin, ns, ew, carry)``.
"""

from __future__ import annotations

SUIT_TOTAL, VK_TOTAL = 162, 258


def round_tens(x, how):
    """Small points to tens the way a scorer does it by hand, digit by digit."""
    tens, units = x // 10, x % 10
    if how == "half_up":
        return tens + 1 if units >= 5 else tens
    return tens + 1 if units in (6, 7, 8, 9) else tens


def score(rs, level, kind, bidders, contra, capot_bid, points, tricks, decl, bela):
    sr = rs.scoring
    B, D = bidders, 1 - bidders
    vk = kind == 5
    total = VK_TOTAL if vk else SUIT_TOTAL
    assert points[0] + points[1] == total
    decl, bela = list(decl), list(bela)
    if kind == 4:  # section 4: "No bela in BK"
        bela = [0, 0]

    all_tricks = None
    if tricks[0] == 8:
        all_tricks = 0
    if tricks[1] == 8:
        all_tricks = 1
    if all_tricks is not None:
        other = 1 - all_tricks
        if sr.trickless_declarations == "void":
            decl[other] = 0
            bela[other] = 0
        if sr.trickless_declarations == "to_capot_side":
            decl[all_tricks] = decl[all_tricks] + decl[other]
            bela[all_tricks] = bela[all_tricks] + bela[other]
            decl[other] = 0
            bela[other] = 0

    factor = 1
    if contra == 1:
        factor = sr.contra_multiplier
    if contra == 2:
        factor = sr.recontra_multiplier

    def write(bid_score, def_score):
        return (bid_score, def_score) if B == 0 else (def_score, bid_score)

    if sr.scheme == "bela-hr" or sr.scheme == "belote-fr":
        mine = points[B] + decl[B] + bela[B]
        theirs = points[D] + decl[D] + bela[D]
        if all_tricks == B:
            mine += sr.capot_bonus
        if all_tricks == D:
            theirs += sr.capot_bonus
        everything = mine + theirs
        if sr.scheme == "bela-hr":
            made = mine * 2 > everything
            need = everything // 2 + 1
        else:
            made = mine > theirs
            need = theirs + 1
        carry = 0
        if made:
            if contra > 0 and sr.made_with_contra == "all_to_bidders":
                ns, ew = write(everything * factor, 0)
            else:
                ns, ew = write(mine * factor, theirs * factor)
        elif sr.scheme == "belote-fr" and mine == theirs:
            ns, ew = write(0, theirs * factor)
            carry = mine * factor
        else:
            kept = bela[B] if sr.bela_on_failure == "holder" else 0
            ns, ew = write(kept * factor, (everything - kept) * factor)
        return made, mine - need, ns, ew, carry

    # bazar and bazar-blot: the promise is 10 x level
    promised = 10 * level
    counted = points[B] + decl[B] + bela[B]
    if sr.capot_bonus_counts_for_level and tricks[B] == 8:
        counted += sr.capot_bonus  # option: the capot's +90 counts toward the level
    made = counted >= promised
    if tricks[B] == 0:
        made = False
    if capot_bid and tricks[B] < 8:
        made = False
    margin = counted - promised
    if not made and margin >= 0:
        margin = -1
    # a failed capot bid is a capot deal with base 25; with base 16 it is a plain one
    capot_deal = all_tricks is not None or (capot_bid and sr.failed_capot_base == 25)

    if sr.scheme == "bazar-blot":
        if vk:
            base = sr.vk_capot_value if capot_deal else sr.vk_deal_value
        else:
            base = sr.capot_value if capot_deal else sr.deal_value
        row = "BK" if kind == 4 else ("VK" if vk else "suit")
        if sr.contra_style == "double_whole_score":
            mult = sr.bid_multipliers[row][0]
            whole = factor
        else:
            mult = sr.bid_multipliers[row][contra]
            whole = 1
        bonus_b = decl[B] // 10 + bela[B] // 10
        bonus_d = decl[D] // 10 + bela[D] // 10
        if made and contra == 0:
            how = "half_up" if sr.sai_rounding == "half_up" else "down"
            sai_d = round_tens(points[D], how)
            bid_score = level * mult + base - sai_d + bonus_b
            def_score = sai_d + bonus_d
        elif made:
            bid_score = level * mult + base + bonus_b + bonus_d
            def_score = 0
        else:
            kept = bela[B] // 10 if sr.bela_on_failure == "holder" else 0
            bid_score = kept
            def_score = level * mult + base + bonus_b + bonus_d - kept
        ns, ew = write(bid_score * whole, def_score * whole)
        return made, margin, ns, ew, 0

    # bazar (the house code)
    if sr.unit == "small":
        value = [points[0], points[1]]
        extra = sr.capot_bonus
        deal_value = total
        dv, bv = list(decl), list(bela)
    else:
        deal_value = sr.vk_deal_value if vk else sr.deal_value
        extra = (sr.vk_capot_value if vk else sr.capot_value) - deal_value
        if sr.sai_rounding == "sum_to_total":
            value = [0, 0]
            value[D] = round_tens(points[D], "down")
            value[B] = deal_value - value[D]
        else:
            value = [round_tens(points[0], sr.sai_rounding), round_tens(points[1], sr.sai_rounding)]
        dv = [decl[0] // 10, decl[1] // 10]
        bv = [bela[0] // 10, bela[1] // 10]
    if made:
        own = [value[s] + dv[s] + bv[s] for s in (0, 1)]
        if all_tricks is not None:
            own[all_tricks] += extra
        if contra > 0 and sr.made_with_contra == "all_to_bidders":
            ns, ew = write((own[0] + own[1]) * factor, 0)
        else:
            ns, ew = own[0] * factor, own[1] * factor
        return made, margin, ns, ew, 0
    everything = deal_value + dv[0] + dv[1] + bv[0] + bv[1]
    if capot_deal:
        everything += extra
    kept = bv[B] if sr.bela_on_failure == "holder" else 0
    ns, ew = write(kept * factor, (everything - kept) * factor)
    return made, margin, ns, ew, 0
