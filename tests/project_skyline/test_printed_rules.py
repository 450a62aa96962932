"""Project Skyline rules written down as tests, each stated from the rulebook (or GAPS.md's
default) rather than read back from the data files or a recorded playthrough: a regenerated
golden file cannot bake a wrong rule in past these.

Spaces are found from the map data (which spaces carry an upgrade bonus, which area is which
colour), so the tests hold for any map design; the rules themselves are written here.
"""
import pytest

from engines.project_skyline.rules import final_scoring_nb, score_area_nb
from engines.project_skyline.state import (
    A_SPACE, A_STOP, B_A_FLOORS, B_BTAKEN, B_H, B_TOP, P_DISC, P_DISC_N, P_DRAW_N, P_UPOS, fields,
)
from tests.project_skyline.ps_helpers import (
    build, game, hand_codes, money, pb, play, set_draw, set_money, targets, to_play, type_of,
)

pytestmark = pytest.mark.jit_off   # rule by rule, fast in plain Python too (NUMBA_DISABLE_JIT=1)

# Tokyo's end condition as printed ("Areas with at least 1 of your floors": 12+ 22, 10+ 15,
# 8+ 9, 6+ 4; "floors built in 7 different areas ... 4 money"). Our 16-area board
# (maps/tokyo.toml) plays it; its comment names a raised table (the same money at thresholds
# one higher) a designer can try, and the kernel must pay whatever table the map gives.
TOKYO_PRINTED = [(12, 22), (10, 15), (8, 9), (6, 4)]
TOKYO_RAISED = [(13, 22), (11, 15), (9, 9), (7, 4)]


def end_money(table, k: int) -> int:
    for need, money_ in table:
        if k >= need:
            return money_
    return 0


def tokyo_printed_money(k: int) -> int:
    return end_money(TOKYO_PRINTED, k)


# ---------------------------------------------------------------- Tokyo end-of-game table

def test_tokyo_map_carries_the_printed_end_table():
    g = game(4, "tokyo")
    assert [tuple(x) for x in g.kp.map.end_table] == TOKYO_PRINTED


@pytest.mark.parametrize("board", ["raised", "printed"])
@pytest.mark.parametrize("k", range(0, 15))
def test_tokyo_end_money_by_areas_holding_a_floor_every_boundary(k, board):
    """Seat 0 has floors in k different areas (two floors in one area count once; built over
    by seat 1 still counts: the top floor is not needed). The kernel pays the map's table:
    the printed one, and the raised one a designer can put in the map file."""
    import numpy as np

    from engines.project_skyline.params import K_ETAB
    g = game(4, "tokyo")
    kp = g.kp
    table = TOKYO_RAISED if board == "raised" else TOKYO_PRINTED
    cfg = np.array(kp.cfg, copy=True)
    for i, (need, money_) in enumerate(table):
        cfg[K_ETAB + 2 * i], cfg[K_ETAB + 2 * i + 1] = need, money_
    n_areas = len(kp.map.area_names)
    assert n_areas >= 14, "every boundary tested here (0-14 areas) must be reachable on the map"
    d = g.state.data
    first_space = {}
    for s in range(kp.n_sp):
        first_space.setdefault(int(kp.sp_area[s]), []).append(s)
    for a in range(k):
        r, c, _ = kp.map.cells[first_space[a][0]]
        build(g, 0, r, c)
        build(g, 1, r, c)               # built over: seat 0 keeps its floor in the area
    if k:
        r, c, _ = kp.map.cells[first_space[0][-1]]
        build(g, 0, r, c)               # a second floor in area 0: still one area
    final_scoring_nb(d, cfg)
    assert int(fields(g.state, 0)["final_end"][0]) == end_money(table, k)
    assert int(fields(g.state, 1)["final_end"][0]) == end_money(table, k)
    assert int(fields(g.state, 2)["final_end"][0]) == 0


def test_tokyo_example_seven_areas_pay_four():
    assert tokyo_printed_money(7) == 4 and tokyo_printed_money(5) == 0 and tokyo_printed_money(11) == 15
    assert end_money(TOKYO_RAISED, 7) == 4   # the printed example holds under the raised table too


# ---------------------------------------------------------------- one-time bonus spaces

def _bonus_spaces(g, field):
    return [s for s in range(g.kp.n_sp) if int(getattr(g.kp, field)[s]) > 0]


@pytest.mark.parametrize("variant", [None, "tokyo"])
def test_upgrade_bonus_space_moves_the_marker_down_once(variant):
    """One-time Bonus: the FIRST floor on an unbuilt upgrade-bonus space moves the builder's
    upgrade marker down one space; later floors there (anyone's) give nothing."""
    g = game(4, variant)
    spaces = _bonus_spaces(g, "sp_bupg")
    assert spaces, "the map has upgrade-bonus spaces"
    d = g.state.data
    for s in spaces:
        r, c, _ = g.kp.map.cells[s]
        d[pb(0) + P_UPOS] = 3
        d[pb(1) + P_UPOS] = 3
        assert build(g, 0, r, c, 2) == 2           # a stack of 2: still one bonus
        assert d[pb(0) + P_UPOS] == 2 and d[B_BTAKEN + s] == 1
        build(g, 1, r, c)                          # built on: no bonus left
        build(g, 0, r, c)
        assert d[pb(1) + P_UPOS] == 3 and d[pb(0) + P_UPOS] == 2


@pytest.mark.parametrize("variant", [None, "tokyo"])
def test_upgrade_bonus_at_the_lowest_space_is_spent_and_lost(variant):
    g = game(4, variant)
    s = _bonus_spaces(g, "sp_bupg")[0]
    r, c, _ = g.kp.map.cells[s]
    d = g.state.data
    build(g, 0, r, c)
    assert d[pb(0) + P_UPOS] == 0 and d[B_BTAKEN + s] == 1   # nothing below the lowest space
    d[pb(1) + P_UPOS] = 2
    build(g, 1, r, c)
    assert d[pb(1) + P_UPOS] == 2                             # gone all the same


@pytest.mark.parametrize("variant", [None, "tokyo"])
def test_money_bonus_space_pays_once(variant):
    g = game(4, variant)
    for s in _bonus_spaces(g, "sp_bmoney"):
        r, c, _ = g.kp.map.cells[s]
        before0, before1 = money(g, 0), money(g, 1)
        build(g, 0, r, c)
        assert money(g, 0) == before0 + int(g.kp.sp_bmoney[s])
        build(g, 1, r, c)
        assert money(g, 1) == before1


# ---------------------------------------------------------------- B-03 and S-03

def test_b03_stacks_two_floors_on_one_space_in_any_area():
    """Glossary: "S-03/B-03: Build 2 floors on the same space" -- no area named (GAPS.md: B-03
    follows the glossary; S-03 the start-deck list)."""
    g = game(4)
    kp = g.kp
    to_play(g, 0, ["B-03"], "white")
    play(g)
    assert g.phase() == "target"
    everywhere = {tuple(kp.map.cells[s][:2]) for s in range(kp.n_sp)}   # 4 players: nothing restricted
    assert targets(g) == everywhere
    colours = {int(kp.area_colour[kp.sp_area[s]]) for s in range(kp.n_sp)}
    assert colours == {0, 1, 2, 3}
    green = next(s for s in range(kp.n_sp) if kp.area_colour[kp.sp_area[s]] == 0)
    g.apply(A_SPACE + green)
    d = g.state.data
    assert d[B_H + green] == 2 and d[B_TOP + green] == 0


def test_b03_near_the_top_builds_only_one():
    g = game(4)
    kp = g.kp
    red = next(s for s in range(kp.n_sp) if kp.area_colour[kp.sp_area[s]] == 3)
    r, c, _ = kp.map.cells[red]
    build(g, 1, r, c, 6)
    to_play(g, 0, ["B-03"], "white")
    play(g)
    g.apply(A_SPACE + red)
    assert g.state.data[B_H + red] == 7 and g.state.data[B_TOP + red] == 0


def test_s03_builds_one_floor_in_a_residential_area_only():
    g = game(4)
    kp = g.kp
    to_play(g, 0, ["S-03"], "white")
    play(g)
    white = {tuple(kp.map.cells[s][:2]) for s in range(kp.n_sp) if kp.area_colour[kp.sp_area[s]] == 2}
    assert targets(g) == white
    s = next(s for s in range(kp.n_sp) if kp.area_colour[kp.sp_area[s]] == 2)
    g.apply(A_SPACE + s)
    assert g.state.data[B_H + s] == 1


# ---------------------------------------------------------------- area scoring ties

def _score(counts, value_floors, tie):
    """Score one area whose top floors are held `counts[q]` times by seat q, with
    `value_floors` floors in it; returns each seat's money."""
    g = game(4, overrides=None if tie is None else {"scoring.area_tie": tie})
    kp = g.kp
    d = g.state.data
    area = max(range(len(kp.map.area_names)), key=lambda a: int(kp.area_n[a]))
    cells = [s for s in range(kp.n_sp) if kp.sp_area[s] == area]
    assert len(cells) >= sum(counts)
    i = 0
    for q, n in enumerate(counts):
        for _ in range(n):
            d[B_H + cells[i]] = 1
            d[B_TOP + cells[i]] = q
            i += 1
    d[B_A_FLOORS + area] = value_floors
    for q in range(4):
        set_money(g, q, 0)
    score_area_nb(d, kp.cfg, area)
    return [money(g, q) for q in range(4)]


def test_area_scoring_printed_cases_hold_in_both_readings():
    for tie in (None, "second_stays", "no_second"):
        assert _score([2, 1, 1, 0], 5, tie) == [6, 3, 3, 0]   # second place tied: each half
        assert _score([3, 0, 0, 0], 9, tie) == [12, 0, 0, 0]  # alone: second place does not apply
        assert _score([1, 0, 2, 0], 1, tie) == [2, 0, 3, 0]   # half of 3 rounded up


def test_area_tie_default_the_next_lower_count_still_takes_half():
    """GAPS.md default: every player tied for the most top floors gets the full value, and the
    next lower count still gets half."""
    assert _score([2, 2, 1, 0], 5, None) == [6, 6, 3, 0]
    assert _score([2, 2, 1, 0], 5, "second_stays") == [6, 6, 3, 0]
    assert _score([1, 1, 1, 0], 9, None) == [12, 12, 12, 0]


def test_area_tie_variant_a_tie_for_first_leaves_no_second_place():
    assert _score([2, 2, 1, 0], 5, "no_second") == [6, 6, 0, 0]
    assert _score([2, 2, 1, 0], 9, "no_second") == [12, 12, 0, 0]
    assert _score([1, 1, 1, 0], 9, "no_second") == [12, 12, 12, 0]


def test_area_tie_key_refuses_an_unknown_reading():
    from engines.core.variant import VariantError
    with pytest.raises(VariantError, match="scoring.area_tie"):
        game(4, overrides={"scoring.area_tie": "third_place"})


# ---------------------------------------------------------------- draw effects and an empty pile

@pytest.mark.parametrize("reshuffle, drawn", [(True, 2), (False, 1)])
def test_u17_with_a_short_draw_pile(reshuffle, drawn):
    g = game(4, overrides={"turn.draw_reshuffle": reshuffle})
    d = g.state.data
    for p in range(4):
        set_money(g, p, 3)
    set_money(g, 0, 9)                 # not the poorest: draws 2
    set_draw(g, 0, ["S-05"])
    b = pb(0)
    d[b + P_DISC_N] = 3
    for i, code in enumerate(["S-06", "S-07", "S-08"]):
        d[b + P_DISC + i] = type_of(g, code)
    to_play(g, 0, ["U-17g"], "green")
    play(g)
    assert len(hand_codes(g, 0)) == drawn
    assert d[b + P_DRAW_N] == (2 if reshuffle else 0)
    g.apply(A_STOP)


# ---------------------------------------------------------------- which end ended the game

def _finish_randomly(g):
    while not g.is_over():
        g.apply(g.policy_action("random"))


def _last_floor(g, p):
    from engines.project_skyline.state import P_FLOORS
    g.state.data[pb(p) + P_FLOORS] = 1
    to_play(g, p, ["S-01"], "green")
    play(g)
    g.apply(g.legal_actions()[0])
    assert g.state.data[pb(p) + P_FLOORS] == 0


def test_a_last_floor_in_the_money_ends_last_round_is_a_money_end():
    """50 money reached in round 1 makes round 2 the last; a last floor placed in round 2
    changes nothing ("the game ends at the end of the current round"): a money end. The games
    table's floor_round still records it."""
    from engines.project_skyline.state import END_MONEY, M_ENDING, M_PLAYER, M_ROUND
    g = game(4)
    d = g.state.data
    set_money(g, 2, 49)
    to_play(g, 2, ["S-05"], "green")
    play(g)
    while not (d[M_ROUND] == 1 and d[M_PLAYER] == 1):
        g.apply(g.policy_action("random"))
    _last_floor(g, 1)
    _finish_randomly(g)
    assert d[M_ROUND] == 1 and d[M_ENDING] == END_MONEY


def test_a_last_floor_before_the_money_ends_last_round_is_a_last_floor_end():
    """The last floor placed in the round the money was reached: the game ends with that round,
    no additional round -- the last floor ended it."""
    from engines.project_skyline.state import END_FLOOR, M_ENDING, M_ROUND
    g = game(4)
    d = g.state.data
    set_money(g, 2, 49)
    to_play(g, 2, ["S-05"], "green")
    play(g)
    _last_floor(g, 3)
    _finish_randomly(g)
    assert d[M_ROUND] == 0 and d[M_ENDING] == END_FLOOR



# ---------------------------------------------------------------- U-17: who is furthest behind

@pytest.mark.parametrize("rule, monies, drawn", [
    # seat 0 plays U-17 with 3 money; the others' money decides whether it is furthest behind
    ("any_tie", [3, 9, 9, 9], 3), ("any_tie", [3, 3, 9, 9], 3), ("any_tie", [3, 3, 3, 9], 3),
    ("any_tie", [3, 2, 9, 9], 2),
    ("one_other", [3, 9, 9, 9], 3), ("one_other", [3, 3, 9, 9], 3), ("one_other", [3, 3, 3, 9], 2),
    ("alone", [3, 9, 9, 9], 3), ("alone", [3, 3, 9, 9], 2), ("alone", [3, 2, 9, 9], 2),
])
def test_u17_furthest_behind_reading(rule, monies, drawn):
    """U-17 draws 3 "if you are currently (alone or together with another person) furthest
    behind": turn.behind_ties says who counts in a tie (default any_tie)."""
    g = game(4, overrides=None if rule == "any_tie" else {"turn.behind_ties": rule})
    for p, m in enumerate(monies):
        set_money(g, p, m)
    set_draw(g, 0, ["S-05", "S-06", "S-07", "S-08"])
    to_play(g, 0, ["U-17g"], "green")
    play(g)
    assert len(hand_codes(g, 0)) == drawn


def test_the_defaults_are_any_tie_and_last_free():
    from engines.project_skyline.params import VARIANTS
    v = VARIANTS.load("default").values
    assert v["turn"]["behind_ties"] == "any_tie" and v["scoring"]["complete_at"] == "last_free"


# ---------------------------------------------------------------- when is an area complete

def _restricted_area(g):
    """An area holding a restricted space at this player count, and its spaces."""
    kp = g.kp
    for a in range(kp.n_areas):
        sps = [s for s in range(kp.n_sp) if int(kp.sp_area[s]) == a]
        if any(int(kp.sp_restricted[s]) for s in sps):
            return a, sps
    raise AssertionError("the map has a restricted space at 3 players")


@pytest.mark.parametrize("rule", ["last_free", "every_space"])
def test_an_area_completes_at_its_last_free_space_or_when_every_space_is_built(rule):
    """IV: "the last free space in an area" -- a restricted space (2-3 players) may not be built
    on. last_free (default): building the last unrestricted space scores the area;
    every_space: an area holding a restricted space never completes."""
    from engines.project_skyline.state import B_A_SCORED, M_AREAS_PEND
    g = game(3, overrides=None if rule == "last_free" else {"scoring.complete_at": rule})
    d = g.state.data
    a, sps = _restricted_area(g)
    free = [s for s in sps if not int(g.kp.sp_restricted[s])]
    for s in free:
        r, c, _ = g.kp.map.cells[s]
        build(g, 0, r, c)
    assert bool(d[M_AREAS_PEND] >> a & 1) == (rule == "last_free")
    # an area without a restricted space completes under both readings
    kp = g.kp
    b = next(b for b in range(kp.n_areas)
             if not any(int(kp.sp_restricted[s]) for s in range(kp.n_sp) if int(kp.sp_area[s]) == b)
             and d[B_A_SCORED + b] == 0 and b != a)
    for s in range(kp.n_sp):
        if int(kp.sp_area[s]) == b:
            r, c, _ = kp.map.cells[s]
            build(g, 1, r, c)
    assert d[M_AREAS_PEND] >> b & 1


def test_complete_at_key_refuses_an_unknown_reading():
    with pytest.raises(ValueError, match="complete_at"):
        game(3, overrides={"scoring.complete_at": "half"})
    with pytest.raises(ValueError, match="behind_ties"):
        game(3, overrides={"turn.behind_ties": "richest"})


# ---------------------------------------------------------------- several areas in one turn

@pytest.mark.parametrize("variant", [None, "tokyo"])
def test_the_order_of_several_area_scorings_changes_nothing(variant):
    """IV: "If you trigger several area scorings in your turn, you decide in which order you
    carry them out." The engine scores them in area order; this states that no order can
    change the outcome (same payouts, the same Upgrade-market refresh per scoring), so the
    choice is no variant key: two areas scored in either order leave the same position."""
    import numpy as np

    g = game(4, variant)
    kp = g.kp
    areas = {}
    for s in range(kp.n_sp):
        areas.setdefault(int(kp.sp_area[s]), []).append(s)
    a, b = 0, len(areas) - 1
    for i, s in enumerate(areas[a] + areas[b]):
        r, c, _ = kp.map.cells[s]
        build(g, i % 3, r, c, 1 + i % 2)            # three seats, uneven heights
    h1, h2 = g.clone(), g.clone()
    score_area_nb(h1.state.data, kp.cfg, a)
    score_area_nb(h1.state.data, kp.cfg, b)
    score_area_nb(h2.state.data, kp.cfg, b)
    score_area_nb(h2.state.data, kp.cfg, a)
    f1, f2 = fields(h1.state), fields(h2.state)
    scratch = {"counts", "lohi", "queue"}          # the kernels' work space, not the position
    assert [k for k in f1 if k not in scratch and not np.array_equal(np.asarray(f1[k]), np.asarray(f2[k]))] == []
    assert [money(h1, p) for p in range(4)] != [money(g, p) for p in range(4)]   # something was paid
