"""Skyline 3000 variant files: loading, overrides and refusals."""
import pytest

from engines.core.variant import VariantError
from engines.skyline_3000.params import VARIANTS, kernel_params
from engines.skyline_3000.state import GREEN_PLATFORMS


def test_default_loads_with_the_printed_numbers():
    kp = kernel_params(VARIANTS.load(None))
    # GAPS.md: 7 open small platforms per block, each pre-placed Greenspace on an extra marked one
    assert (kp.n_players, kp.n_blocks, kp.small_platforms, kp.n_cards) == (4, 9, 7, 62)
    assert kp.green_platform == GREEN_PLATFORMS.index("extra")
    assert sorted(kp.card_values()[:24].tolist()) == sorted(list(range(1, 9)) * 3)
    assert kp.megamall_mult == 2 and kp.start_score == 5 and kp.rounds == 4


def test_every_shipped_variant_loads_and_overrides_only_its_keys():
    default = VARIANTS.load(None).flat()
    for name in VARIANTS.names():
        v = VARIANTS.load(name)
        kernel_params(v)
        changed = {k for k, x in v.flat().items() if default[k] != x}
        assert name == "default" or changed, name
    assert kernel_params(VARIANTS.load("megamall_triple")).megamall_mult == 3
    kp3 = kernel_params(VARIANTS.load("three_player_5_platforms"))
    assert (kp3.n_players, kp3.small_platforms) == (3, 5)


def test_six_platforms_is_the_old_default_board_and_nothing_else():
    """variants/six_platforms.toml keeps the board played before issue 12: 6 small
    platforms per block, the pre-placed Greenspaces on 4 of them."""
    old, new = VARIANTS.load("six_platforms").flat(), VARIANTS.load(None).flat()
    assert {k for k in new if old[k] != new[k]} == {"board.small_platforms", "board.greenspace_platform"}
    assert (old["board.small_platforms"], old["board.greenspace_platform"]) == (6, "shared")
    kp = kernel_params(VARIANTS.load("six_platforms"))
    assert (kp.small_platforms, kp.green_platform) == (6, GREEN_PLATFORMS.index("shared"))


def test_command_line_override_applies():
    kp = kernel_params(VARIANTS.load(None, {"scoring.first_base": 3}))
    assert kp.first_base == 3


@pytest.mark.parametrize("key, value, words", [
    ("scoring.megamal_multiplier", 3, "unknown key"),
    ("scoring.megamall_multiplier", 0, "at least"),
    ("cards.floor_values", [1, 16], "at most"),
    ("cards.roof_values", [], "at least 1 items"),
    ("max_players", 5, "at most"),
    ("auction.tie", "coin", "must be one of"),
    ("board.greenspace_platform", "beside", "must be one of"),
    ("board.small_platforms", 13, "at most"),
    ("auction.unplaceable_item", "returned", "must be one of"),
    ("scoring.megamall_stacking", "twice", "must be one of"),
    ("scoring.spaceport_stacking", "never", "must be one of"),
    ("construction.short_floor_stock", "none", "must be one of"),
    ("cards.hand_limit", -1, "at least"),
    ("construction.billboard_costs_card", 1, "must be true or false"),
    ("construction.billboard_costs_card", "yes", "must be true or false"),
])
def test_bad_values_are_refused_naming_the_key(key, value, words):
    with pytest.raises(VariantError) as err:
        VARIANTS.load(None, {key: value})
    assert key in str(err.value) and words in str(err.value)


@pytest.mark.parametrize("overrides, key", [
    ({"board.greenspace_blocks": [1, 3, 9]}, "board.greenspace_blocks"),           # block outside the board
    # "shared": pre-placed Greenspaces sit on the block's own platforms, which must be enough
    ({"board.small_platforms": 1, "board.greenspace_blocks": [1, 1], "board.greenspace_platform": "shared"},
     "board.greenspace_blocks"),
    ({"supply.curved_roofs": 1}, "supply.curved_roofs"),                            # setup needs 2 per player
    ({"cards.roof_values": [1, 2, 3]}, "cards.deal_roof"),                          # 4 players x 2 > 3 cards
    ({"supply.floor_stock": 20}, "supply.floor_stock"),                             # setup needs 24 floors
    ({"players": 4, "max_players": 3}, "players"),
    ({"cards.contract_values": list(range(1, 15))}, "cards.contract_values"),       # > 62 cards
    ({"cards.hand_limit": 7}, "cards.hand_limit"),                                  # the deal gives 8
])
def test_inconsistent_setups_are_refused(overrides, key):
    with pytest.raises(VariantError) as err:
        VARIANTS.load(None, overrides)
    assert err.value.key == key


def test_extra_marked_platforms_fit_any_number_of_pre_placed_greenspaces():
    # "extra": each pre-placed Greenspace brings its own marked platform, so a block with
    # one open small platform may still hold two of them (and no platform at all is fine)
    for small in (0, 1):
        kp = kernel_params(VARIANTS.load(None, {"board.small_platforms": small, "board.greenspace_blocks": [1, 1]}))
        assert (kp.small_platforms, kp.n_green) == (small, 2)
    with pytest.raises(VariantError) as err:
        VARIANTS.load("six_platforms", {"board.greenspace_blocks": [1] * 7})
    assert err.value.key == "board.greenspace_blocks" and "only 6 small platforms" in str(err.value)


def test_player_count_outside_the_variant_is_refused():
    with pytest.raises(VariantError):
        kernel_params(VARIANTS.load(None), 5)
    with pytest.raises(VariantError):
        kernel_params(VARIANTS.load(None), 1)


def test_rule_table_comes_from_the_one_declaration():
    """Each variant key's kernel slot holds its value (a choice as its index),
    read back by name through KernelParams; every key of the default variant
    is declared in state.PARAMS (the schema is PARAMS.schema())."""
    from engines.core.variant import flatten
    from engines.skyline_3000.params import SCHEMA
    from engines.skyline_3000.state import PARAMS

    v = VARIANTS.load("megamall_triple")
    kp = kernel_params(v, 3)
    slots = PARAMS.slot_of_key()
    assert len(slots) > 25
    for key, slot in slots.items():
        rule = SCHEMA[key]
        val = v.get(key)
        expected = rule.choices.index(val) if rule.kind == "str" else int(val)
        assert kp.tab[slot] == expected, key
        name = next(p.name for p in PARAMS.params if p.key == key)
        assert getattr(kp, name) == expected
    assert kp.n_players == 3 and kp.megamall_mult == 3
    assert set(flatten(v.values)) == set(SCHEMA)


def test_billboard_costs_card_is_a_key_and_its_actions_fit_the_buffer():
    # default false (GAPS.md: no card); true lists a billboard per block and hand card, and a hand
    # may hold every card: the legal-action buffer grows for it and only for it
    off = kernel_params(VARIANTS.load(None))
    on = kernel_params(VARIANTS.load(None, {"construction.billboard_costs_card": True}))
    assert off.bb_card == 0 and on.bb_card == 1
    assert on.max_actions >= 1 + 2 * on.n_cards + on.n_blocks * on.n_cards
    assert off.max_actions == max(2 * off.n_cards + off.n_blocks + 2, 2 * off.max_buildings + 2,
                                  off.max_buildings * off.bpd * 2 + 2)
