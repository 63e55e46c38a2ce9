"""Rulesets as data: registry, options, tables."""

from __future__ import annotations

import pytest

from bazarsim.rules.compiled import F_UNDERTRUMP, compiled_rules
from bazarsim.rules.rulesets import RULESETS, get_ruleset, parse_option_assignments


def test_registry_and_defaults():
    assert list(RULESETS) == ["bazar", "bazar-blot", "belote-fr", "bela-hr"]
    assert get_ruleset().name == "bazar"
    assert 5 not in RULESETS["bazar-blot"].kinds
    assert RULESETS["bela-hr"].kinds == (0, 1, 2, 3)


def test_unknown_ruleset_lists_valid():
    with pytest.raises(ValueError, match="choose from bazar, bazar-blot, belote-fr, bela-hr"):
        get_ruleset("preferans")


def test_options_change_tables():
    rs = get_ruleset("bazar", **parse_option_assignments(["play.undertrump_required=yes"]))
    assert rs.play.undertrump_required and not RULESETS["bazar"].play.undertrump_required
    assert compiled_rules(rs).flags[F_UNDERTRUMP] == 1
    assert compiled_rules(RULESETS["bazar"]).flags[F_UNDERTRUMP] == 0


@pytest.mark.parametrize(
    "item,needle",
    [
        ("play.nothing=1", "unknown option"),
        ("nopart.x=1", "unknown option"),
        ("play.undertrump_required=maybe", "expected bool"),
        ("declarations.eight_card_sequence=two_terz", "choose from"),
        ("noequals", "expected part.field=value"),
    ],
)
def test_bad_options(item, needle):
    with pytest.raises(ValueError, match=needle):
        get_ruleset("bazar", **parse_option_assignments([item]))


def test_every_ambiguity_is_an_option():
    """RULES.md's ambiguous points are documented, named options."""
    docs = {o["option"]: o for o in RULESETS["bazar"].option_docs()}
    for name in (
        "play.undertrump_required",
        "declarations.eight_card_sequence",
        "declarations.four_eights_cancel",
        "declarations.four_sevens_redeal",
        "declarations.vk_bela_only_when_led",
        "auction.dealer_must_name_after_three_passes",
        "scoring.sai_rounding",
    ):
        assert docs[name]["ambiguous"] and docs[name]["doc"], name


def test_card_tables_follow_rules():
    t = compiled_rules(RULESETS["bazar"])
    # trump hearts: J 20, 9 14; plain J 2; BK ace 19; strength order J 9 A T K Q 8 7.
    jh, nh, ah = 8 + 4, 8 + 2, 8 + 7
    assert (t.card_points[1, jh], t.card_points[1, nh], t.card_points[0, jh]) == (20, 14, 2)
    assert t.card_points[4, ah] == 19 and t.card_points[5, jh] == 20
    order = sorted(range(8, 16), key=lambda c: -t.strength[1, c])
    assert [("789TJQKA")[c - 8] for c in order] == list("J9ATKQ87")
    order = sorted(range(8, 16), key=lambda c: -t.strength[0, c])
    assert [("789TJQKA")[c - 8] for c in order] == list("ATKQJ987")
