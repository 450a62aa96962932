"""Every shipped variant loads; bad variants are refused naming the key and the reason."""
import pytest

from engines.core.variant import VariantError
from engines.skyline_of_the_world.params import VARIANTS, kernel_params


def test_shipped_variants_load():
    names = VARIANTS.names()
    assert {"default", "fee_floor_below", "tournament", "covered", "everyone_once", "shared_pool"} <= set(names)
    for n in names:
        for players in (2, 3, 4):
            kernel_params(VARIANTS.load(n), players)


@pytest.mark.parametrize("key,value,reason", [
    ("bonus.paths", [[0, 0, 0, 1, 0, 6]] * 42, "off the 6 x 6 board"),
    ("bonus.paths", [[0, 0, 0, 1, 2, 2]] * 42, "not orthogonally adjacent"),
    ("mission.paths", [[5, 5, 5, 4, 5, 3, 5, 6]] * 6, "off the 6 x 6 board"),
    ("board.strategic", [[1, 1], [1, 1], [4, 1]], "listed twice"),
    ("board.strategic", [[1, 1], [6, 1], [4, 1]], "off the"),
    ("levels.values", [1, 2, 4, 6], "needs 5 numbers"),
    ("supply.floors", [32, 24, 16, 12, 12, 4], "needs 5 numbers"),
    ("supply.colour", [8, 6, 4, 3], "needs 5 numbers"),
    ("supply.pool", "per_player", "must be one of"),
    ("cash.cap_rule", "sometimes", "must be one of"),
    ("fees.rule", "floor", "must be one of"),
    ("cash.fee_over_cap", "owner", "must be one of"),
    ("invest.forced_buy", "neutral", "must be one of"),
    ("bonus.empty_pile", "reshuffle", "must be one of"),
    ("build.forced", "own_colour", "must be one of"),
    ("skyline.other_skyline", "allowed", "must be one of"),
    ("bonus.draw_order", "builder_first", "must be one of"),
    ("bonus.phases", "invest", "must be one of"),
])
def test_bad_variants_refused(key, value, reason):
    with pytest.raises(VariantError) as err:
        VARIANTS.load(None, {key: value})
    assert err.value.key == key and reason in err.value.reason


def test_unpaid_fee_needs_the_cap_on_every_gain():
    with pytest.raises(VariantError) as err:
        VARIANTS.load(None, {"cash.fee_over_cap": "unpaid", "cash.cap_rule": "after_income"})
    assert err.value.key == "cash.fee_over_cap" and "needs cash.cap_rule 'always'" in err.value.reason
    VARIANTS.load(None, {"cash.fee_over_cap": "unpaid"})


def test_setup_stock_beyond_a_colours_supply_refused():
    with pytest.raises(VariantError) as err:
        VARIANTS.load(None, {"supply.colour": [1, 6, 4, 3, 3]})   # the setup's two 1M floors
    assert err.value.key == "start.stock" and "exceeds one colour's supply" in err.value.reason


def test_too_few_bonus_cards_for_the_deal_refused():
    with pytest.raises(VariantError) as err:
        VARIANTS.load(None, {"bonus.paths": [[0, 0, 0, 1, 0, 2]] * 10})   # 4 players x 3 cards > 10
    assert err.value.key == "start.bonus_cards" and "need more than" in err.value.reason


def test_unknown_key_refused():
    with pytest.raises(VariantError):
        VARIANTS.load(None, {"board.depth": 3})


def test_fee_variant_changes_kernel_numbers_only():
    a = kernel_params(VARIANTS.load("default"), 4)
    b = kernel_params(VARIANTS.load("fee_floor_below"), 4)
    assert a.fee_rule == 0 and b.fee_rule == 1
    assert (a.cfg != b.cfg).sum() == 1


def test_supply_and_cap_defaults_are_the_printed_game():
    """GAPS.md: a supply per colour (8/6/4/3/3) at every player count, cash capped on every gain; the
    engine's first reading (one shared pool) is the named variant shared_pool."""
    d = VARIANTS.load("default").values
    assert d["supply"]["pool"] == "per_colour" and d["supply"]["colour"] == [8, 6, 4, 3, 3]
    assert d["supply"]["neutral"] == 6 and d["supply"]["skyline_per_player"] == 2
    assert d["cash"]["cap"] == 30 and d["cash"]["cap_rule"] == "always"
    for players in (2, 3, 4):
        kp = kernel_params(VARIANTS.load("default"), players)
        assert kp.pool == 0 and list(kp.supply) == [8, 6, 4, 3, 3]
        kp = kernel_params(VARIANTS.load("shared_pool"), players)
        assert kp.pool == 1 and list(kp.supply) == [32, 24, 16, 12, 12]


def test_default_paths_are_the_generators_output():
    """The bonus and mission paths in default.toml are what gen_paths writes from its fixed seed
    (generated once and written into the file; a hand edit or a generator change shows here)."""
    from engines.skyline_of_the_world.gen_paths import generate
    bonus, missions = generate()
    flat = lambda p: [x for cell in p for x in cell]  # noqa: E731
    values = VARIANTS.load("default").values
    assert values["bonus"]["paths"] == [flat(p) for p in bonus for _ in range(2)]
    assert values["mission"]["paths"] == [flat(p) for p in missions]


def test_rule_choices_once_in_code_default_to_the_old_play():
    """Issue 23: three choices the engine made in code are keys; the defaults are the play before."""
    d = VARIANTS.load("default").values
    assert d["invest"]["forced_buy"] == "any_floor"
    assert d["bonus"]["empty_pile"] == "nothing"
    assert d["cash"]["fee_over_cap"] == "bank"
    assert d["build"]["forced"] == "any_floor"
    assert d["skyline"]["other_skyline"] == "building"
    assert d["bonus"]["draw_order"] == "left"
    assert d["bonus"]["phases"] == "build_invest"
