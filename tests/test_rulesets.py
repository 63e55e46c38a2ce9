"""Rulesets as data: registry, options, tables."""

from __future__ import annotations

import pytest

from bazarsim.rules.compiled import F_OVERTAKE_TRUMP, F_UNDERTRUMP, compiled_rules
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
    """The rules' ambiguous points (docs/rules.md, Options) are documented, named options."""
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


def test_issue_33_options_documented_and_ambiguous():
    """The club rules' open points (docs/rules.md, Options): each a documented, ambiguous option
    saying which source reading each value stands for."""
    blot = {o["option"]: o for o in RULESETS["bazar-blot"].option_docs()}
    level = blot["scoring.capot_bonus_counts_for_level"]
    assert level["value"] is False and level["ambiguous"] and "Armenian club rules" in level["doc"]
    base = blot["scoring.failed_capot_base"]
    assert base["value"] == 25 and base["choices"] == (25, 16) and base["ambiguous"]
    assert "25: the capot base" in base["doc"] and "16: the plain deal base" in base["doc"]
    rs = get_ruleset("bazar-blot", **parse_option_assignments(["scoring.failed_capot_base=16"]))
    assert rs.scoring.failed_capot_base == 16
    with pytest.raises(ValueError, match="choose from 25, 16"):
        get_ruleset("bazar-blot", **{"scoring.failed_capot_base": "20"})


def test_overtake_on_trump_lead_ambiguous_in_bazar_blot_only():
    """Ambiguity per ruleset: the field is settled in bazar (the house code) but open in the
    club rules, whose words the help quotes; the default stays true and the flag still
    compiles."""
    blot = {o["option"]: o for o in RULESETS["bazar-blot"].option_docs()}
    bazar = {o["option"]: o for o in RULESETS["bazar"].option_docs()}
    name = "play.overtake_on_trump_lead"
    assert blot[name]["value"] is True and blot[name]["ambiguous"]
    assert "не обязательно старшую" in blot[name]["note"] + blot[name]["doc"]
    assert not bazar[name]["ambiguous"] and bazar[name]["note"] == ""
    relaxed = get_ruleset("bazar-blot", **{name: "false"})
    assert compiled_rules(relaxed).flags[F_OVERTAKE_TRUMP] == 0
    assert compiled_rules(RULESETS["bazar-blot"]).flags[F_OVERTAKE_TRUMP] == 1
    assert compiled_rules(relaxed).flags[F_UNDERTRUMP] == 1  # the rest of bazar-blot stays


@pytest.mark.parametrize("name", list(RULESETS))
def test_notes_name_existing_options(name):
    rs = RULESETS[name]
    options = rs.options()
    for option, note in rs.notes:
        assert option in options and note, option
