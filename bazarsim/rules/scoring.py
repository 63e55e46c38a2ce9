"""Contract result and deal scoring for every ruleset (docs/rules.md, Scoring).

What a deal produced is given per side (index 0 = NS, 1 = EW):

* ``points``: card points + last trick taken (they sum to 162, or 258 in VK);
* ``tricks``: tricks taken (sum 8);
* ``declarations``: scoring declaration points (after the comparison of docs/rules.md,
  Declarations: the losing side passes 0);
* ``bela``: bela points.

:func:`score_deal` is the scalar version, written to follow the rules text step by step;
:func:`score_deals` does the same over arrays with a Numba kernel for studies of many
deals. The tests cross-check the two on random inputs.

Scheme summaries (every ambiguity is a :class:`~bazarsim.rules.rulesets.ScoringRules` option):

* ``bazar``: made iff the bidders' points + declarations + bela >= 10 x level (a capot
  bid also needs every trick; no trick at all always fails). Made: each side writes its
  own; failed: the defenders write everything. Small points (162/258, capot +90) or big
  points (16 / 26 VK / 25 capot / 35 VK capot, sides' points rounded to tens).
  Contra x2, recontra x4.
* ``bazar-blot``: the sai formulas of the Armenian club rules with the level multiplier table.

Rounding small points to sai (``sai_rounding``): ``down_1_5`` remainder 1-5 down, 6-9
up (85 -> 8, 86 -> 9; 86 + 76 then gives 9 + 8 = 17); ``half_up`` 85 -> 9;
``sum_to_total`` rounds the defenders' share by ``down_1_5`` and gives the bidders the
rest of the deal's 16 (26 in VK), so the two always sum to the deal value.
No bela in BK (docs/rules.md, Declarations): :func:`validate` and the bulk check refuse one, and
the bulk kernel never counts it. Both bazar schemes: with
``capot_bonus_counts_for_level`` bidders who take every trick add the capot bonus (+90)
toward the level; a failed capot bid is scored on the capot base
(``failed_capot_base=25``) or the plain one (``16``).
* ``belote-fr``: the bidders must score more than the defenders; a tie carries the
  bidders' points to the next deal's winner.
* ``bela-hr``: the callers must take more than half of all points of the deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from bazarsim.core.cards import SIDES
from bazarsim.core.contracts import BK, VK, Contract
from bazarsim.core.errors import BazarsimError
from bazarsim.rules.rulesets import Ruleset, ScoringRules, get_ruleset, option_choices

TRICKS = 8
# Integer codes of the scoring options for the bulk kernel: their index in the option's
# choices, as declared (and validated) in the ruleset.
SCHEMES = option_choices(ScoringRules, "scheme")
ROUNDINGS = option_choices(ScoringRules, "sai_rounding")
TRICKLESS = option_choices(ScoringRules, "trickless_declarations")
FAILED_CAPOT_BASES = option_choices(ScoringRules, "failed_capot_base")  # (capot, plain)


class ScoringError(BazarsimError):
    """Inconsistent deal outcome or contract for scoring."""


@dataclass(frozen=True)
class DealOutcome:
    """What happened in play, per side (NS, EW)."""

    points: tuple[int, int]
    tricks: tuple[int, int]
    declarations: tuple[int, int] = (0, 0)
    bela: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class DealScore:
    """The contract's result and what each side writes on the score sheet."""

    contract: Contract
    made: bool
    margin: int  # bidders_total - required: >= 0 exactly when made
    bidders_total: int  # small points counted for the contract
    required: int
    scores: tuple[int, int]  # written by NS, EW
    capot_side: int = -1  # side that took every trick, -1 if none
    tie: bool = False  # belote-fr: equal totals, the bidders' points are carried
    carry: int = 0  # points carried to the next deal's winner (belote-fr tie)

    @property
    def ns(self) -> int:
        return self.scores[0]

    @property
    def ew(self) -> int:
        return self.scores[1]

    @property
    def capot(self) -> bool:
        """The bidders took every trick."""
        return self.capot_side == self.contract.side

    @property
    def reverse_capot(self) -> bool:
        """The bidders took no trick."""
        return self.capot_side == 1 - self.contract.side

    def as_dict(self) -> dict:
        return {
            "contract": self.contract.label,
            "made": self.made,
            "margin": self.margin,
            "bidders_total": self.bidders_total,
            "required": self.required,
            "ns": self.ns,
            "ew": self.ew,
            "capot": self.capot,
            "reverse_capot": self.reverse_capot,
            "tie": self.tie,
            "carry": self.carry,
        }


# --------------------------------------------------------------------------- helpers


def to_sai(points: int, rounding: str) -> int:
    """Small points -> tens: remainder 1-5 down, 6-9 up (``half_up``: 5 up as well)."""
    q, r = divmod(points, 10)
    return q + (r >= (5 if rounding == "half_up" else 6))


def failed_capot_on_capot_base(rules) -> bool:
    """A failed capot bid (no side took every trick) is scored on the capot base (25),
    not the plain one (16): option ``failed_capot_base``."""
    return FAILED_CAPOT_BASES.index(rules.failed_capot_base) == 0


def contra_multiplier(rules, contra: int) -> int:
    return (1, rules.contra_multiplier, rules.recontra_multiplier)[contra]


def bid_multiplier(rules, kind: int, contra: int) -> int:
    """bazar-blot: the level multiplier for the kind and contra level."""
    key = "BK" if kind == BK else "VK" if kind == VK else "suit"
    table = rules.bid_multipliers[key]
    if rules.contra_style == "double_whole_score":
        return int(table[0])
    return int(table[contra])


def _check_shares(v: tuple[int, int], total: int, what: str) -> None:
    """Both sides' shares of the deal's ``total``, or an error naming each side's value."""
    for s in (0, 1):
        if v[s] < 0:
            raise ScoringError(f"{SIDE_NAMES[s]} {v[s]} {what}: a side has 0 or more", str(v[s]))
    if sum(v) != total:
        raise ScoringError(f"{SIDE_NAMES[0]} {v[0]} + {SIDE_NAMES[1]} {v[1]} = {sum(v)} {what}, "
                           f"but a deal has {total}", str(v))


SIDE_NAMES = ("N-S", "E-W")


def validate(contract: Contract, outcome: DealOutcome, rs: Ruleset) -> None:
    """Raise :class:`ScoringError` for an outcome that cannot happen."""
    rs.check_kind(contract.kind)
    total = rs.total_points(contract.kind)
    p, t = outcome.points, outcome.tricks
    _check_shares(p, total, "card points (last trick included)")
    _check_shares(t, TRICKS, "tricks")
    for s in (0, 1):
        if t[s] == 0 and p[s] != 0:
            raise ScoringError(f"{SIDES[s]} took no trick but has {p[s]} points", str(p[s]))
    if contract.kind == BK and any(outcome.bela):
        b = outcome.bela
        raise ScoringError(
            f"no bela in BK (bela NS={b[0]} EW={b[1]}): BK has no trump",
            str(max(b)),
        )
    for name, vals in (("declarations", outcome.declarations), ("bela", outcome.bela)):
        for s in (0, 1):
            if vals[s] < 0 or vals[s] % 10:
                raise ScoringError(
                    f"{name} of {SIDES[s]} = {vals[s]}: must be >= 0 and a multiple of 10",
                    str(vals[s]),
                )
    if rs.scoring.scheme in ("bazar", "bazar-blot") and contract.level < 1:
        raise ScoringError(f"contract {contract.label} needs a level", str(contract.level))


# --------------------------------------------------------------------------- scalar


def score_deal(
    contract: Contract, outcome: DealOutcome, ruleset: Ruleset | str | None = None
) -> DealScore:
    """Score one deal: made or failed, by how much, and what each side writes."""
    rs = get_ruleset(ruleset)
    validate(contract, outcome, rs)
    sr = rs.scoring
    b = contract.side
    d = 1 - b
    points = list(outcome.points)
    tricks = outcome.tricks
    decl = list(outcome.declarations)
    bela = list(outcome.bela)
    capot_side = 0 if tricks[0] == TRICKS else 1 if tricks[1] == TRICKS else -1

    # a side that took no trick: its declarations and bela are kept, void or handed over
    if capot_side >= 0 and sr.trickless_declarations != "keep":
        loser = 1 - capot_side
        if sr.trickless_declarations == "to_capot_side":
            decl[capot_side] += decl[loser]
            bela[capot_side] += bela[loser]
        decl[loser] = bela[loser] = 0

    mult = contra_multiplier(sr, contract.contra)
    scheme = sr.scheme
    if scheme in ("bazar", "bazar-blot"):
        total = points[b] + decl[b] + bela[b]
        if sr.capot_bonus_counts_for_level and capot_side == b:
            total += sr.capot_bonus  # the club rules read as: a capot counts 252
        required = 10 * contract.level
        made = total >= required and tricks[b] > 0
        if contract.capot and tricks[b] != TRICKS:
            made = False
        margin = total - required
        if not made and margin >= 0:
            margin = -1  # met the points but missed the capot or took no trick
        if scheme == "bazar":
            scores = _score_bazar(contract, points, decl, bela, capot_side, made, mult, rs)
        else:
            scores = _score_bazar_blot(contract, points, decl, bela, capot_side, made, rs)
        return DealScore(contract, made, margin, total, required, scores, capot_side)

    own = [
        points[s] + decl[s] + bela[s] + (sr.capot_bonus if capot_side == s else 0) for s in (0, 1)
    ]
    if scheme == "belote-fr":
        required = own[d] + 1
        made = own[b] > own[d]
        tie = own[b] == own[d]
    else:  # bela-hr: more than half of everything
        required = (own[0] + own[1]) // 2 + 1
        made = own[b] >= required
        tie = False
    scores = [0, 0]
    carry = 0
    if made:
        if contract.contra and sr.made_with_contra == "all_to_bidders":
            scores[b] = (own[0] + own[1]) * mult
        else:
            scores = [own[0] * mult, own[1] * mult]
    elif tie:
        scores[d] = own[d] * mult
        carry = own[b] * mult
    else:
        keep = bela[b] if sr.bela_on_failure == "holder" else 0
        scores[b] = keep * mult
        scores[d] = (own[0] + own[1] - keep) * mult
    return DealScore(
        contract, made, own[b] - required, own[b], required, tuple(scores), capot_side, tie, carry
    )


def _score_bazar(contract, points, decl, bela, capot_side, made, mult, rs) -> tuple[int, int]:
    """bazar (the house code): own points each when made, all to the defenders when failed."""
    sr = rs.scoring
    b, d = contract.side, 1 - contract.side
    vk = contract.kind == VK
    is_capot = capot_side >= 0 or (contract.capot and failed_capot_on_capot_base(sr))
    big = sr.unit == "big"
    if big:
        base = sr.vk_deal_value if vk else sr.deal_value
        capot_extra = (sr.vk_capot_value if vk else sr.capot_value) - base
        if sr.sai_rounding == "sum_to_total":
            share = [0, 0]
            share[d] = to_sai(points[d], "down_1_5")
            share[b] = base - share[d]
        else:
            share = [to_sai(points[s], sr.sai_rounding) for s in (0, 1)]
        dec = [decl[s] // 10 for s in (0, 1)]
        bel = [bela[s] // 10 for s in (0, 1)]
    else:
        base = rs.total_points(contract.kind)
        capot_extra = sr.capot_bonus
        share = list(points)
        dec, bel = list(decl), list(bela)
    if made:
        own = [share[s] + dec[s] + bel[s] + (capot_extra if capot_side == s else 0) for s in (0, 1)]
        if contract.contra and sr.made_with_contra == "all_to_bidders":
            return _side_pair(b, (own[0] + own[1]) * mult, 0)
        return (own[0] * mult, own[1] * mult)
    keep = bel[b] if sr.bela_on_failure == "holder" else 0
    everything = base + (capot_extra if is_capot else 0) + dec[0] + dec[1] + bel[0] + bel[1]
    return _side_pair(b, keep * mult, (everything - keep) * mult)


def _score_bazar_blot(contract, points, decl, bela, capot_side, made, rs) -> tuple[int, int]:
    """bazar-blot (the club rules): level x mult + 16 (25 capot) against the defenders' sai."""
    sr = rs.scoring
    b, d = contract.side, 1 - contract.side
    vk = contract.kind == VK
    is_capot = capot_side >= 0 or (contract.capot and failed_capot_on_capot_base(sr))
    if is_capot:
        base = sr.vk_capot_value if vk else sr.capot_value
    else:
        base = sr.vk_deal_value if vk else sr.deal_value
    m = bid_multiplier(sr, contract.kind, contract.contra)
    whole = contra_multiplier(sr, contract.contra) if sr.contra_style == "double_whole_score" else 1
    bonus = [(decl[s] + bela[s]) // 10 for s in (0, 1)]
    value = contract.level * m + base
    if made:
        if contract.contra == 0:
            rounding = "down_1_5" if sr.sai_rounding == "sum_to_total" else sr.sai_rounding
            def_sai = to_sai(points[d], rounding)
            bid_score = value - def_sai + bonus[b]
            def_score = def_sai + bonus[d]
        else:
            bid_score = value + bonus[0] + bonus[1]
            def_score = 0
        return _side_pair(b, bid_score * whole, def_score * whole)
    keep = bela[b] // 10 if sr.bela_on_failure == "holder" else 0
    return _side_pair(b, keep * whole, (value + bonus[0] + bonus[1] - keep) * whole)


def _side_pair(bidders: int, bid_score: int, def_score: int) -> tuple[int, int]:
    return (bid_score, def_score) if bidders == 0 else (def_score, bid_score)


# --------------------------------------------------------------------------- bulk

P_SCHEME, P_BIG, P_DEAL, P_VK_DEAL, P_CAPOT, P_VK_CAPOT, P_CAPOT_BONUS = range(7)
P_CONTRA, P_RECONTRA, P_ALL_TO_BIDDERS, P_BELA_DEF, P_TRICKLESS, P_ROUNDING = range(7, 13)
P_DOUBLE_WHOLE, P_CAPOT_LEVEL, P_FAILED_CAPOT_CAPOT = 13, 14, 15
P_MULT = 16  # 9 entries, [suit, BK, VK] x [none, X, XX]
N_PARAMS = P_MULT + 9


def scoring_params(ruleset: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """The ruleset's scoring options as an int64 vector, and deal totals per kind."""
    sr = ruleset.scoring
    p = np.zeros(N_PARAMS, dtype=np.int64)
    p[P_SCHEME] = SCHEMES.index(sr.scheme)
    p[P_BIG] = sr.unit == "big"
    p[P_DEAL], p[P_VK_DEAL] = sr.deal_value, sr.vk_deal_value
    p[P_CAPOT], p[P_VK_CAPOT] = sr.capot_value, sr.vk_capot_value
    p[P_CAPOT_BONUS] = sr.capot_bonus
    p[P_CONTRA], p[P_RECONTRA] = sr.contra_multiplier, sr.recontra_multiplier
    p[P_ALL_TO_BIDDERS] = sr.made_with_contra == "all_to_bidders"
    p[P_BELA_DEF] = sr.bela_on_failure == "defenders"
    p[P_TRICKLESS] = TRICKLESS.index(sr.trickless_declarations)
    p[P_ROUNDING] = ROUNDINGS.index(sr.sai_rounding)
    p[P_DOUBLE_WHOLE] = sr.contra_style == "double_whole_score"
    p[P_CAPOT_LEVEL] = sr.capot_bonus_counts_for_level
    p[P_FAILED_CAPOT_CAPOT] = failed_capot_on_capot_base(sr)
    for i, key in enumerate(("suit", "BK", "VK")):
        for c in range(3):
            p[P_MULT + 3 * i + c] = sr.bid_multipliers[key][c]
    totals = np.zeros(6, dtype=np.int64)
    for k, v in ruleset.deal_total.items():
        totals[k] = v
    return p, totals


@nb.njit(cache=True, inline="always")
def _sai(points, up_from):
    q = points // 10
    return q + (1 if points - 10 * q >= up_from else 0)


@nb.njit(cache=True, inline="always")
def score_row(params, totals, level, kind, side, contra, capot_bid, points0, points1, tricks0,
              tricks1, decl0, decl1, bela0, bela1):
    """The contract rule and the score of one deal: ``(made, margin, score NS, score EW,
    capot side, carry)``; the one implementation behind :func:`score_deals` and the bid
    tables' aggregation."""
    scheme = params[P_SCHEME]
    mg = 0
    cy = 0
    b = side
    d = 1 - b
    k = kind
    c = contra
    vk = k == VK
    p0 = points0
    p1 = points1
    d0 = decl0
    d1 = decl1
    e0 = bela0
    e1 = bela1
    if k == BK:  # no bela in BK (the bulk check refuses one; unchecked, it never counts)
        e0 = 0
        e1 = 0
    cs = -1
    if tricks0 == TRICKS:
        cs = 0
    elif tricks1 == TRICKS:
        cs = 1
    if cs >= 0 and params[P_TRICKLESS] != 0:
        if params[P_TRICKLESS] == 2:
            if cs == 0:
                d0 += d1
                e0 += e1
            else:
                d1 += d0
                e1 += e0
        if cs == 0:
            d1 = 0
            e1 = 0
        else:
            d0 = 0
            e0 = 0
    pb = p0 if b == 0 else p1
    pd = p1 if b == 0 else p0
    db = d0 if b == 0 else d1
    dd = d1 if b == 0 else d0
    eb = e0 if b == 0 else e1
    ed = e1 if b == 0 else e0
    mult = 1
    if c == 1:
        mult = params[P_CONTRA]
    elif c == 2:
        mult = params[P_RECONTRA]
    bid_score = 0
    def_score = 0
    if scheme <= 1:
        tot = pb + db + eb
        if params[P_CAPOT_LEVEL] and cs == b:
            tot += params[P_CAPOT_BONUS]
        req = 10 * level
        ok = tot >= req and (tricks0 if b == 0 else tricks1) > 0
        if capot_bid and (tricks0 if b == 0 else tricks1) != TRICKS:
            ok = False
        mg = tot - req
        if not ok and mg >= 0:
            mg = -1
        any_capot = cs >= 0 or (capot_bid and params[P_FAILED_CAPOT_CAPOT] != 0)
        if scheme == 0:  # bazar
            if params[P_BIG]:
                base = params[P_VK_DEAL] if vk else params[P_DEAL]
                extra = (params[P_VK_CAPOT] if vk else params[P_CAPOT]) - base
                if params[P_ROUNDING] == 2:
                    sd = _sai(pd, 6)
                    sb = base - sd
                else:
                    up = 5 if params[P_ROUNDING] == 1 else 6
                    sb = _sai(pb, up)
                    sd = _sai(pd, up)
                db //= 10
                dd //= 10
                eb //= 10
                ed //= 10
            else:
                base = totals[k]
                extra = params[P_CAPOT_BONUS]
                sb = pb
                sd = pd
            if ok:
                ob = sb + db + eb + (extra if cs == b else 0)
                od = sd + dd + ed + (extra if cs == d else 0)
                if c > 0 and params[P_ALL_TO_BIDDERS]:
                    bid_score = (ob + od) * mult
                else:
                    bid_score = ob * mult
                    def_score = od * mult
            else:
                keep = 0 if params[P_BELA_DEF] else eb
                allv = base + (extra if any_capot else 0) + db + dd + eb + ed
                bid_score = keep * mult
                def_score = (allv - keep) * mult
        else:  # bazar-blot
            if any_capot:
                base = params[P_VK_CAPOT] if vk else params[P_CAPOT]
            else:
                base = params[P_VK_DEAL] if vk else params[P_DEAL]
            row = 0
            if k == BK:
                row = 1
            elif vk:
                row = 2
            whole = 1
            if params[P_DOUBLE_WHOLE]:
                m = params[P_MULT + 3 * row]
                whole = mult
            else:
                m = params[P_MULT + 3 * row + c]
            value = level * m + base
            bb = (db + eb) // 10
            bd = (dd + ed) // 10
            if ok:
                if c == 0:
                    up = 5 if params[P_ROUNDING] == 1 else 6
                    sd = _sai(pd, up)
                    bid_score = (value - sd + bb) * whole
                    def_score = (sd + bd) * whole
                else:
                    bid_score = (value + bb + bd) * whole
            else:
                keep = 0 if params[P_BELA_DEF] else eb // 10
                bid_score = keep * whole
                def_score = (value + bb + bd - keep) * whole
    else:
        bonus = params[P_CAPOT_BONUS]
        ob = pb + db + eb + (bonus if cs == b else 0)
        od = pd + dd + ed + (bonus if cs == d else 0)
        if scheme == 2:  # belote-fr
            req = od + 1
        else:  # bela-hr
            req = (ob + od) // 2 + 1
        ok = ob >= req
        mg = ob - req
        if ok:
            if c > 0 and params[P_ALL_TO_BIDDERS]:
                bid_score = (ob + od) * mult
            else:
                bid_score = ob * mult
                def_score = od * mult
        elif scheme == 2 and ob == od:
            def_score = od * mult
            cy = ob * mult
        else:
            keep = 0 if params[P_BELA_DEF] else eb
            bid_score = keep * mult
            def_score = (ob + od - keep) * mult
    if b == 0:
        return ok, mg, bid_score, def_score, cs, cy
    return ok, mg, def_score, bid_score, cs, cy


@nb.njit(cache=True)
def score_deals_kernel(
    params,
    totals,
    level,
    kind,
    side,
    contra,
    capot_bid,
    points,
    tricks,
    decl,
    bela,
    made,
    margin,
    scores,
    capot_side,
    carry,
):
    """Score n deals; outputs are written in place (see :func:`score_deals`).

    Serial on purpose: a few dozen integer operations a deal run at 20M+ deals/s on one
    core, and ``parallel=True`` measured slower on 2 cores (benchmarks/bench_scoring.py).
    """
    n = level.shape[0]
    for i in range(n):
        ok, mg, s0, s1, cs, cy = score_row(
            params, totals, level[i], kind[i], side[i], contra[i], capot_bid[i], points[i, 0],
            points[i, 1], tricks[i, 0], tricks[i, 1], decl[i, 0], decl[i, 1], bela[i, 0],
            bela[i, 1],
        )
        made[i] = ok
        margin[i] = mg
        scores[i, 0] = s0
        scores[i, 1] = s1
        capot_side[i] = cs
        carry[i] = cy


def score_deals(
    ruleset: Ruleset | str | None,
    level,
    kind,
    declarer_side,
    points,
    tricks,
    declarations=None,
    bela=None,
    contra=None,
    capot_bid=None,
    check: bool = True,
) -> dict[str, np.ndarray]:
    """Score many deals at once.

    Per-deal arrays (length n): ``level``, ``kind`` (0..5), ``declarer_side`` (0 NS,
    1 EW), ``contra`` (0/1/2), ``capot_bid`` (bool); per-side arrays (n, 2):
    ``points``, ``tricks``, ``declarations``, ``bela``. Scalars broadcast.
    Returns ``made`` (bool), ``margin``, ``scores`` (n, 2: NS, EW), ``capot_side``
    (-1/0/1), ``carry`` (belote-fr ties). ``check`` validates inputs like the scalar.
    Declarations and bela per side come straight from
    :func:`bazarsim.evaluate.hands.evaluate_deals` (``declarations_ns``/``_ew``,
    ``bela_ns``/``_ew``).
    """
    rs = get_ruleset(ruleset)
    pts = np.ascontiguousarray(points, dtype=np.int64)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ScoringError(f"points must have shape (n, 2), got {pts.shape}")
    n = pts.shape[0]

    def shaped(x, default, shape, name):
        try:
            a = np.broadcast_to(np.asarray(default if x is None else x, dtype=np.int64), shape)
        except ValueError:
            raise ScoringError(
                f"{name} has shape {np.shape(x)}: expected {shape} (or broadcastable)", name
            ) from None
        # writable C arrays always: a read-only view (broadcast_to of a full-length array)
        # is another type for Numba, and each type is a compile of its own
        return np.require(a, np.int64, ["C_CONTIGUOUS", "WRITEABLE"])

    def per_deal(x, default, name):
        return shaped(x, default, (n,), name)

    def per_side(x, name):
        return shaped(x, 0, (n, 2), name)

    lv = per_deal(level, 0, "level")
    kd = per_deal(kind, 0, "kind")
    sd = per_deal(declarer_side, 0, "declarer_side")
    ct = per_deal(contra, 0, "contra")
    cp = per_deal(capot_bid, 0, "capot_bid")
    tr = per_side(tricks, "tricks")
    dc = per_side(declarations, "declarations")
    bl = per_side(bela, "bela")
    params, totals = scoring_params(rs)
    if check:
        _check_bulk(rs, totals, lv, kd, sd, ct, pts, tr, dc, bl)
    made = np.empty(n, dtype=np.bool_)
    margin = np.empty(n, dtype=np.int64)
    scores = np.empty((n, 2), dtype=np.int64)
    capot_side = np.empty(n, dtype=np.int64)
    carry = np.empty(n, dtype=np.int64)
    score_deals_kernel(
        params,
        totals,
        lv,
        kd,
        sd,
        ct,
        cp.astype(np.bool_),
        pts,
        tr,
        dc,
        bl,
        made,
        margin,
        scores,
        capot_side,
        carry,
    )
    return {
        "made": made,
        "margin": margin,
        "scores": scores,
        "capot_side": capot_side,
        "carry": carry,
    }


@nb.njit(cache=True)
def first_bad_row(allowed, needs_level, totals, lv, kd, sd, ct, pts, tr, dc, bl):
    """Index of the first row :func:`validate` would reject, or -1 (serial: stops early)."""
    for i in range(lv.shape[0]):
        k = kd[i]
        if k < 0 or k > 5 or not allowed[k]:
            return i
        if sd[i] < 0 or sd[i] > 1 or ct[i] < 0 or ct[i] > 2 or (needs_level and lv[i] < 1):
            return i
        if pts[i, 0] + pts[i, 1] != totals[k] or tr[i, 0] + tr[i, 1] != TRICKS:
            return i
        for s in range(2):
            if pts[i, s] < 0 or tr[i, s] < 0 or (tr[i, s] == 0 and pts[i, s] != 0):
                return i
            if dc[i, s] < 0 or bl[i, s] < 0 or dc[i, s] % 10 != 0 or bl[i, s] % 10 != 0:
                return i
            if k == BK and bl[i, s] != 0:  # no bela in BK
                return i
    return -1


def _check_bulk(rs, totals, lv, kd, sd, ct, pts, tr, dc, bl) -> None:
    """Bulk version of :func:`validate`; names the first bad row."""
    allowed = np.zeros(6, dtype=np.bool_)
    allowed[list(rs.kinds)] = True
    needs_level = rs.scoring.scheme in ("bazar", "bazar-blot")
    i = first_bad_row(allowed, needs_level, totals, lv, kd, sd, ct, pts, tr, dc, bl)
    if i >= 0:
        why = "; no bela in BK" if kd[i] == BK and bl[i].any() else ""
        raise ScoringError(
            f"deal {i}: inconsistent input (level {lv[i]}, kind {kd[i]}, side {sd[i]}, "
            f"contra {ct[i]}, points {pts[i].tolist()}, tricks {tr[i].tolist()}, "
            f"declarations {dc[i].tolist()}, bela {bl[i].tolist()}){why}",
            str(i),
        )
