"""Rulesets as data: card order and points, legal-play flags, declarations, auction, scoring.

Each ruleset is a frozen :class:`Ruleset` built from four named parts. Every point where
the sources disagree or are silent is a named field marked ambiguous, with a documented
default; change one with :meth:`Ruleset.with_options` (CLI: ``--option part.field=value``).
Kernels never look at the ruleset's name: :mod:`bazarsim.rules.compiled` turns a ruleset
into the compiled rules (arrays and flags) that kernels read.

The rules, the sources and every option are written up in docs/rules.md; the sources, as
the option docs name them: the Ukrainian house code (of bazar belot), the Armenian club
rules (of Bazar Blot), the values table (card and declaration values for Bazar-Belot),
the article on belote variants (French four-player belote) and the Bela description
(Croatian Bela).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from bazarsim.core.contracts import BK, KIND_NAMES, VK
from bazarsim.core.errors import RulesetError

DEFAULT_RULESET = "bazar"


def opt(default, doc: str, choices: tuple | None = None, ambiguous: bool = False):
    """A ruleset field with its documentation (shown by ``bazarsim rules``)."""
    meta = {"doc": doc, "choices": choices, "ambiguous": ambiguous}
    if isinstance(default, dict):
        return field(default_factory=lambda d=default: dict(d), metadata=meta)
    return field(default=default, metadata=meta)


def option_choices(part: type, name: str) -> tuple:
    """The allowed values of an option: the one list that validation (``with_options``)
    checks and that the kernels' integer codes index."""
    for f in dataclasses.fields(part):
        if f.name == name:
            return f.metadata["choices"]
    raise KeyError(name)


# Orders are strings of ranks, strongest first; points are per rank.
TRUMP_ORDER = "J9ATKQ87"
PLAIN_ORDER = "ATKQJ987"


@dataclass(frozen=True)
class CardRules:
    trump_order: str = opt(TRUMP_ORDER, "trump (and VK) strength, high to low")
    plain_order: str = opt(PLAIN_ORDER, "plain-suit and BK strength, high to low")
    trump_points: dict = opt(
        {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0},
        "card points of a trump (every suit in VK)",
    )
    plain_points: dict = opt(
        {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0},
        "card points of a plain suit in a suit contract",
    )
    bk_points: dict = opt(
        {"A": 19, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0},
        "card points in BK (no trump)",
    )
    last_trick_bonus: int = opt(10, "points for the last trick ('ostan')")


@dataclass(frozen=True)
class PlayRules:
    """Legal-play duties (docs/rules.md, Legal play). VK: every lead counts as a trump lead."""

    overtake_on_trump_lead: bool = opt(
        True,
        "following a trump lead (any lead in VK), play higher than the trick's best if able. "
        "true: the Ukrainian house code ('при ході в козирну масть треба класти старше'); "
        "false: the Armenian club rules' 'кладёт её (не обязательно старшую)' (not "
        "necessarily the highest) read as covering trump leads",
    )
    overtake_on_plain_lead: bool = opt(
        False, "following a plain-suit lead, play higher than the trick's best if able (bela-hr)"
    )
    trump_when_partner_winning: bool = opt(
        False, "void in the led suit, must trump even when partner holds the trick"
    )
    overtrump_required: bool = opt(True, "when trumping, beat the trumps already played if able")
    undertrump_required: bool = opt(
        False,
        "void and unable to beat an opponent's trump: must still play a trump",
        ambiguous=True,
    )
    direction: str = opt(
        "clockwise", "order of play (only seat naming changes)", ("clockwise", "counterclockwise")
    )


@dataclass(frozen=True)
class DeclarationRules:
    """Declarations (docs/rules.md, Declarations)."""

    sequence_values: tuple = opt((20, 50, 100), "terz (3), fifty (4), quint (5 or more) values")
    eight_card_sequence: str = opt(
        "quint",
        "an 8-card run: one quint (100, ranked as 8 long) or quint + terz "
        "(120, ranked as a 5-card quint) - the values table",
        ("quint", "quint_plus_terz"),
        ambiguous=True,
    )
    four_values: dict = opt(
        {"J": 200, "9": 140, "A": 110, "T": 100, "K": 100, "Q": 100},
        "four of a kind values in suit contracts and VK",
    )
    four_values_bk: dict = opt(
        {"J": 100, "A": 190, "T": 100, "K": 100, "Q": 100},
        "four of a kind values in BK (four 9s are no declaration)",
    )
    four_order: str = opt("J9ATKQ", "fours, high to low, in suit contracts and VK")
    four_order_bk: str = opt("ATKQJ", "fours, high to low, in BK")
    four_eights_cancel: bool = opt(
        True, "four 8s cancel every declaration of every player (bela stays)", ambiguous=True
    )
    four_sevens_redeal: bool = opt(
        True, "four 7s void the deal; the next dealer deals again", ambiguous=True
    )
    bela_value: int = opt(20, "K+Q of trump in one hand")
    bela_every_suit_in_vk: bool = opt(True, "in VK each suit's K+Q is a bela")
    vk_bela_only_when_led: bool = opt(
        False,
        "VK bela counts only when its suit is led or its holder leads it (the values table)",
        ambiguous=True,
    )
    count_all_of_winner: bool = opt(
        True, "the side with the best declaration scores all its declarations, the other none"
    )


@dataclass(frozen=True)
class AuctionRules:
    """The auction (docs/rules.md, The auction)."""

    style: str = opt(
        "bazar",
        "bazar: numeric bids from 8; belote: name a game, double/redouble; "
        "bela: each speaks once, dealer must name a suit",
        ("bazar", "belote", "bela"),
    )
    min_level: int = opt(8, "lowest bid level (promises 10 x level points)")
    max_level: int = opt(0, "highest bid level (0: no limit)")
    both_passed_first_round_only_contra: bool = opt(
        True, "a side whose both players passed in the first round may later only contra"
    )
    dealer_must_name_after_three_passes: bool = opt(
        False, "after three opening passes the dealer must name a game (else four passes redeal)",
        ambiguous=True,
    )
    contra: bool = opt(True, "contra / recontra exist")
    capot_bids: bool = opt(True, "capot may be bid")
    last_word_raise_reopens: bool = opt(
        False,
        "last word (bid, then three passes): a raise in the same kind reopens the bidding "
        "(true) or closes it, leaving the others only contra or pass (false)",
        ambiguous=True,
    )
    last_word_change_min_raise: int = opt(
        1,
        "levels a last-word change of kind must add over the player's own bid "
        "(0: the same level in another kind is allowed)",
        ambiguous=True,
    )
    belote_game_order: str = opt(
        "suit<BK<VK",
        "belote auction: order of games, lowest first; a new game must be higher "
        "(suits are equal to each other)",
        ("suit<BK<VK", "suit<VK<BK"),
        ambiguous=True,
    )
    belote_games_after_redouble: bool = opt(
        False,
        "belote auction: after a redouble a player who has not passed, doubled or "
        "redoubled may still name a higher game (true: the article on belote variants read "
        "literally, 'a player who has not said pass, double or redouble may name a higher "
        "game'; false: a redouble closes the naming of games, as recontra does in bazar; "
        "the article is silent)",
        ambiguous=True,
    )


@dataclass(frozen=True)
class ScoringRules:
    """Deal scoring and match end (docs/rules.md, Scoring). ``scheme`` names the formula family."""

    scheme: str = opt(
        "bazar", "formula family", ("bazar", "bazar-blot", "belote-fr", "bela-hr")
    )
    unit: str = opt(
        "small",
        "bazar: score in small points (cards) or big points (deal = 16)",
        ("small", "big"),
        ambiguous=True,
    )
    deal_value: int = opt(16, "big points for a deal (162 small points)")
    vk_deal_value: int = opt(26, "big points for a VK deal (258 small points)")
    capot_value: int = opt(25, "big points for a capot deal (instead of 16)")
    vk_capot_value: int = opt(
        35, "big points for a VK capot: 26 + the capot's 9 (the sources are silent)",
        ambiguous=True,
    )
    capot_bonus: int = opt(
        90, "small points the side taking every trick adds (162 -> 252; belote-fr 100)"
    )
    capot_bonus_counts_for_level: bool = opt(
        False,
        "bazar, bazar-blot: bidders who take every trick count the capot bonus toward the "
        "bid's 10 x level (a capot counts 252). false: as the bid promises, the level is "
        "met by cards + last trick + declarations + bela; true: the Armenian club rules' "
        "'вместо 16-и в базе 25 (то есть +90 очков бонуса)' read as 90 points the bidders "
        "took",
        ambiguous=True,
    )
    failed_capot_base: int = opt(
        25,
        "bazar, bazar-blot: base of a failed capot bid when no side took every trick. "
        "25: the capot base (capot_value, VK vk_capot_value; small points: + capot_bonus), "
        "as the bid was a capot (the Armenian club rules: 'вместо 16-и в базе используется "
        "25'); 16: the plain "
        "deal base (deal_value, VK vk_deal_value; small points: the deal's 162/258), as "
        "no capot was taken (bazar-blot, 9H-CAPOT failed: defenders 9 + 25 = 34, or 9 + 16 = 25)",
        (25, 16),
        ambiguous=True,
    )
    contra_multiplier: int = opt(2, "contra multiplies the deal's scores")
    recontra_multiplier: int = opt(4, "recontra multiplies the deal's scores")
    made_with_contra: str = opt(
        "multiply_each",
        "bazar, belote-fr: contract made under contra: each side writes its own points x "
        "multiplier, or the bidders write everything x multiplier (defenders 0)",
        ("multiply_each", "all_to_bidders"),
        ambiguous=True,
    )
    bela_on_failure: str = opt(
        "holder",
        "failed contract: bela stays with its holder's side, or goes to the defenders "
        "with everything else",
        ("holder", "defenders"),
        ambiguous=True,
    )
    trickless_declarations: str = opt(
        "keep",
        "declarations (and bela) of a side that took no trick: kept, void (belote-fr, the "
        "article on belote variants), or given to the side that took every trick (bela-hr, "
        "the Bela description)",
        ("keep", "void", "to_capot_side"),
        ambiguous=True,
    )
    sai_rounding: str = opt(
        "down_1_5",
        "small points -> sai (tens): remainder 1-5 down, 6-9 up; half_up; "
        "or the two sides sum to 16",
        ("down_1_5", "half_up", "sum_to_total"),
        ambiguous=True,
    )
    bid_multipliers: dict = opt(
        {"suit": (1, 2, 4), "BK": (2, 3, 5), "VK": (2, 3, 5)},
        "bazar-blot: level multiplier by kind for (none, contra, recontra) - Blot Star club",
        ambiguous=True,
    )
    contra_style: str = opt(
        "multiplier_table",
        "bazar-blot: contra via the multiplier table, or the no-contra multiplier and the "
        "whole score x contra/recontra multiplier",
        ("multiplier_table", "double_whole_score"),
        ambiguous=True,
    )
    target: int = opt(301, "match target", ambiguous=True)
    targets: tuple = opt(
        (301, 101),
        "targets a match may use (bazar: 301, or 101 in big points as clubs do); empty: any",
    )
    failed_bidders_cannot_win: bool = opt(
        False,
        "a side that reaches the target on a deal where it failed its contract does not "
        "win on that deal (the Armenian club rules)",
    )
    capot_ends_match_only_if_bid_contra_made: bool = opt(
        False, "a deal with a capot ends the match only if the capot was bid, contra'd and made"
    )
    reverse_capot_loses_match: bool = opt(
        False, "bidders who take no trick lose the match at once (the Armenian club rules)"
    )
    eight_of_a_suit_wins_match: bool = opt(
        False,
        "all 8 cards of one suit in one hand win the match at the end of the deal (the Bela "
        "description)",
    )


@dataclass(frozen=True)
class Ruleset:
    name: str
    description: str
    sources: tuple
    kinds: tuple = (0, 1, 2, 3, BK, VK)
    deal_pattern: str = "8"
    cards: CardRules = field(default_factory=CardRules)
    play: PlayRules = field(default_factory=PlayRules)
    declarations: DeclarationRules = field(default_factory=DeclarationRules)
    auction: AuctionRules = field(default_factory=AuctionRules)
    scoring: ScoringRules = field(default_factory=ScoringRules)
    # Options this ruleset's sources leave open though the field is settled elsewhere:
    # ``(("part.field", note), ...)``; :meth:`option_docs` marks them ambiguous and adds
    # the note (a tuple of pairs, so that the ruleset stays immutable data).
    notes: tuple = ()

    PARTS = ("cards", "play", "declarations", "auction", "scoring")

    # ------------------------------------------------------------------ options
    def options(self) -> dict[str, Any]:
        """Every option as ``{"part.field": value}``."""
        out = {}
        for part in self.PARTS:
            obj = getattr(self, part)
            for f in dataclasses.fields(obj):
                out[f"{part}.{f.name}"] = getattr(obj, f.name)
        return out

    def option_docs(self) -> list[dict]:
        """Every option with its value, doc, choices and whether it is ambiguous (for
        every ruleset, or for this one by a :attr:`notes` entry, whose text is ``note``)."""
        notes = dict(self.notes)
        rows = []
        for part in self.PARTS:
            obj = getattr(self, part)
            for f in dataclasses.fields(obj):
                name = f"{part}.{f.name}"
                rows.append(
                    {
                        "option": name,
                        "value": getattr(obj, f.name),
                        "doc": f.metadata.get("doc", ""),
                        "choices": f.metadata.get("choices"),
                        "ambiguous": f.metadata.get("ambiguous", False) or name in notes,
                        "note": notes.get(name, ""),
                    }
                )
        return rows

    def with_options(self, **changes: Any) -> Ruleset:
        """A copy with options changed; keys are ``part.field`` or ``part__field``."""
        parts = {p: {} for p in self.PARTS}
        for key, value in changes.items():
            part, _, name = key.replace("__", ".").partition(".")
            if part not in parts:
                raise RulesetError(f"unknown option {key!r}: parts are {', '.join(self.PARTS)}")
            obj = getattr(self, part)
            fmap = {f.name: f for f in dataclasses.fields(obj)}
            if name not in fmap:
                raise RulesetError(
                    f"unknown option {key!r}: {part} has {', '.join(sorted(fmap))}", key
                )
            value = _coerce(value, getattr(obj, name), key)
            choices = fmap[name].metadata.get("choices")
            if choices and value not in choices:
                raise RulesetError(
                    f"bad value {value!r} for {key}: choose from "
                    f"{', '.join(str(c) for c in choices)}",
                    str(value),
                )
            parts[part][name] = value
        new = {p: dataclasses.replace(getattr(self, p), **kw) for p, kw in parts.items() if kw}
        return dataclasses.replace(self, **new)

    def check_kind(self, kind: int) -> int:
        if kind not in self.kinds:
            have = " ".join(KIND_NAMES[k] for k in self.kinds)
            raise RulesetError(
                f"contract kind {KIND_NAMES[kind]} does not exist in ruleset {self.name} "
                f"(it has {have})",
                KIND_NAMES[kind],
            )
        return kind

    def total_points(self, kind: int) -> int:
        """Card points + last trick of a deal under ``kind`` (162, or 258 in VK), straight
        from the card values: cheap enough for per-deal scalar scoring."""
        cr = self.cards
        trump, plain, bk = (sum(d.values()) for d in (cr.trump_points, cr.plain_points,
                                                       cr.bk_points))
        if kind == VK:
            cards = 4 * trump
        elif kind == BK:
            cards = 4 * bk
        else:
            cards = trump + 3 * plain
        return cards + cr.last_trick_bonus

    @property
    def deal_total(self) -> dict[int, int]:
        """:meth:`total_points` for every contract kind of the ruleset."""
        return {k: self.total_points(k) for k in self.kinds}


def _coerce(value: Any, current: Any, key: str) -> Any:
    """Turn CLI strings into the option's type."""
    if not isinstance(value, str) or isinstance(current, str):
        return value
    text = value.strip()
    try:
        if isinstance(current, bool):
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(current, int):
            return int(text)
        if isinstance(current, tuple):  # "101,301"; "" (or "none"): the empty tuple
            if text.lower() in ("", "none"):
                return ()
            return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise RulesetError(
            f"bad value {value!r} for {key}: expected {type(current).__name__}", value
        ) from None
    raise RulesetError(f"option {key} cannot be set from the command line", key)


# --------------------------------------------------------------------------- registry

# The source documents, by what they are (docs/rules.md, Sources).
SOURCES = {
    "house": "a Ukrainian house code of bazar belot",
    "club": "an Armenian club's rules of Bazar Blot",
    "values": "a Russian table of card and declaration values for Bazar-Belot",
    "belote": "a Russian article on belote variants (French four-player belote)",
    "bela": "a description of Croatian Bela",
}

_BAZAR = Ruleset(
    name="bazar",
    description="Bazar belot, Ukrainian house code: 8 cards at once, numeric bazar, 301.",
    sources=(SOURCES["house"], SOURCES["values"]),
)

_BAZAR_BLOT = dataclasses.replace(
    _BAZAR,
    name="bazar-blot",
    description="Bazar Blot, Armenian club rules: no VK, scores in sai (tens), to 101.",
    sources=(SOURCES["club"], SOURCES["values"]),
    kinds=(0, 1, 2, 3, BK),
    play=PlayRules(undertrump_required=True),
    notes=(
        (
            "play.overtake_on_trump_lead",
            "open in the Armenian club rules, which only says the led suit is played "
            "'не обязательно старшую' (not necessarily the highest); default true, as the "
            "Ukrainian house code and the club engines (docs/rules.md, Legal play)",
        ),
    ),
    scoring=ScoringRules(
        scheme="bazar-blot",
        unit="big",
        target=101,
        targets=(101, 151, 201, 301),
        bela_on_failure="defenders",
        failed_bidders_cannot_win=True,
        capot_ends_match_only_if_bid_contra_made=True,
        reverse_capot_loses_match=True,
    ),
)

_BELOTE_FR = dataclasses.replace(
    _BAZAR,
    name="belote-fr",
    description="French four-player belote: 5+3 deal, name a game, double/redouble, 1001.",
    sources=(SOURCES["belote"],),
    deal_pattern="5+3",
    play=PlayRules(undertrump_required=True),
    declarations=DeclarationRules(
        four_values={"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100},
        four_eights_cancel=False,
        four_sevens_redeal=False,
    ),
    auction=AuctionRules(style="belote", min_level=8, capot_bids=False),
    scoring=ScoringRules(
        scheme="belote-fr",
        capot_bonus=100,
        target=1001,
        targets=(1001,),
        unit="small",
        bela_on_failure="defenders",
        trickless_declarations="void",
    ),
)

_BELA_HR = dataclasses.replace(
    _BAZAR,
    name="bela-hr",
    description="Croatian Bela: 6 seen + 2 hidden, one call each, suits only, 1001.",
    sources=(SOURCES["bela"],),
    kinds=(0, 1, 2, 3),
    deal_pattern="6+2",
    play=PlayRules(
        overtake_on_plain_lead=True,
        trump_when_partner_winning=True,
        undertrump_required=True,
        direction="counterclockwise",
    ),
    declarations=DeclarationRules(
        four_values={"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100},
        four_eights_cancel=False,
        four_sevens_redeal=False,
    ),
    auction=AuctionRules(style="bela", contra=False, capot_bids=False),
    scoring=ScoringRules(
        scheme="bela-hr",
        capot_bonus=90,
        target=1001,
        targets=(1001,),
        bela_on_failure="defenders",
        trickless_declarations="to_capot_side",
        eight_of_a_suit_wins_match=True,
    ),
)

RULESETS: dict[str, Ruleset] = {r.name: r for r in (_BAZAR, _BAZAR_BLOT, _BELOTE_FR, _BELA_HR)}


def get_ruleset(name: str | Ruleset | None = None, **options: Any) -> Ruleset:
    """Look a ruleset up by name (default ``bazar``), optionally changing options."""
    if isinstance(name, Ruleset):
        rs = name
    else:
        key = (name or DEFAULT_RULESET).strip().lower()
        if key not in RULESETS:
            raise RulesetError(
                f"unknown ruleset {name!r}: choose from {', '.join(RULESETS)}", name
            )
        rs = RULESETS[key]
    return rs.with_options(**options) if options else rs


def parse_option_assignments(items: list[str] | None) -> dict[str, str]:
    """``["play.undertrump_required=true", ...]`` -> dict, with clear errors."""
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RulesetError(f"bad option {item!r}: expected part.field=value", item)
        out[key.strip()] = value.strip()
    return out
