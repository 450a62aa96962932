"""Random-play invariants, step/batch parity, determinism, hidden information (the golden
playthroughs are tests/golden/skyline_of_the_world/, tests/golden/regenerate.py)."""
import numpy as np
import pytest

from engines.skyline_of_the_world import SPEC, kernel_params, new_game, simulate
from engines.skyline_of_the_world.params import LEVELS, N_STOCK, VARIANTS
from engines.skyline_of_the_world.policies import default_weights
from engines.skyline_of_the_world.render import render
from engines.skyline_of_the_world.rules import recompute_tops_nb
from engines.skyline_of_the_world.state import (
    BH, BS, DECK, M_BANK_NET, M_DECISIONS, M_STALLED, M_TURN, OWN, P_CASH, P_HAND, P_MISSION, P_SKY_STOCK, P_STOCK, PB,
    PBASE, SUP, CSUP, TOPV,
)



def check_invariants(g, start_cash, supply0, cap=30):
    d = g.state.data
    P = g.n_players
    cash = sum(int(d[PBASE + p * PB + P_CASH]) for p in range(P))
    assert cash + int(d[M_BANK_NET]) == P * start_cash          # money only moves between players and the bank
    per_colour = int(g.kp.pool) == 0
    for k in range(N_STOCK):
        held = sum(int(d[PBASE + p * PB + P_STOCK + k]) for p in range(P))
        assert d[SUP + k] >= 0 and held >= 0
        if k < LEVELS and per_colour:
            # each colour's floors in its supply, in its player's stock and on the board add up to one
            # colour's components (8 x 1M, 6 x 2M, 4 x 4M, 3 x 6M, 3 penthouses); the shared pool stays empty
            assert d[SUP + k] == 0
            for p in range(P):
                built = sum(1 for c in range(49) for lv in range(int(d[BH + c]))
                            if d[BS + c * 5 + lv] in (1 + p, 5 + p) and lv == k)
                sup = int(d[CSUP + p * LEVELS + k])
                assert sup >= 0
                assert sup + int(d[PBASE + p * PB + P_STOCK + k]) + built == supply0[k]
        elif k < LEVELS:  # floors in the supply, in stocks and on the board add up to the components list
            built = sum(1 for c in range(49) for lv in range(int(d[BH + c]))
                        if 1 <= d[BS + c * 5 + lv] <= 8 and lv == k)
            assert d[SUP + k] + held + built == supply0[k]
    for p in range(P):
        b = PBASE + p * PB
        assert d[b + P_CASH] >= 0 and d[b + P_SKY_STOCK] >= 0
        assert d[b + P_CASH] <= cap                              # cap_rule "always": cash never above the cap
    for c in range(49):
        h = int(d[BH + c])
        assert 0 <= h <= 5
        for lv in range(h):
            code = int(d[BS + c * 5 + lv])
            assert code != 0
            if 5 <= code <= 8:
                assert lv == h - 1 == LEVELS - 1                 # a penthouse is the fifth level and the top
        for lv in range(h, 5):
            assert d[BS + c * 5 + lv] == 0
    copy = d.copy()
    recompute_tops_nb(copy, g.kp.cfg)
    # the derived masks build_nb keeps (top values, owners, heights, Skyline/neutral tops, presence)
    # equal a rebuild from the floors on the board
    assert np.array_equal(copy[TOPV:DECK], d[TOPV:DECK])


def play_out_checking(variant, overrides, players, seed, games):
    """Play `games` games to the end, random and heuristic moves mixed, checking the invariants at
    every decision."""
    kp = kernel_params(VARIANTS.load(variant, overrides), players)
    supply0 = [int(x) for x in kp.supply]
    for gi in range(games):
        g = new_game(variant, n_players=players, seed=seed, game_index=gi, overrides=overrides)
        steps = 0
        while not g.is_over():
            check_invariants(g, int(kp.start_cash), supply0)
            g.apply(g.policy_action("random" if steps % 3 else "heuristic"))
            steps += 1
        check_invariants(g, int(kp.start_cash), supply0)
        assert g.legal_actions() == [] and g.current_player() == -1


@pytest.mark.parametrize("variant", ["default", "shared_pool"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play_invariants(players, variant):
    play_out_checking(variant, None, players, seed=11, games=4)


# every value of a rule key other than the default (issue 23)
NON_DEFAULT = [{"build.forced": "regular"}, {"skyline.other_skyline": "directly_on"},
               {"bonus.draw_order": "right"}, {"bonus.phases": "build"}]


@pytest.mark.parametrize("overrides", NON_DEFAULT, ids=lambda o: next(iter(o.items()))[1])
@pytest.mark.parametrize("players", [2, 4])
def test_random_play_invariants_under_each_non_default_key(players, overrides):
    play_out_checking(None, overrides, players, seed=13, games=3)


@pytest.mark.parametrize("lineup", [["random"] * 4, ["heuristic", "greedy", "random", "heuristic"]])
def test_step_batch_parity(lineup):
    """The step API with policy_action replays the batch games exactly (seats rotate)."""
    ids = np.array([SPEC.policies[n].policy_id for n in lineup])
    w = np.array([default_weights(n) for n in lineup])
    kp = kernel_params(None, 4)
    out = simulate(kp, ids, w, True, 21, 0, 3)
    for gi in range(3):
        g = new_game(n_players=4, seed=21, game_index=gi)
        seat_policy = [lineup[(s + gi) % 4] for s in range(4)]
        while not g.is_over():
            g.apply(g.policy_action(seat_policy[g.current_player()]))
        rows = out["players"]["game"] == gi
        assert list(out["players"]["score"][rows]) == g.scores()
        assert out["games"]["decisions"][gi] == g.state.data[M_DECISIONS]
        assert out["games"]["turns"][gi] == g.state.data[M_TURN]
        assert (out["income"]["game"] == gi).sum() == g.state.data[M_TURN]   # one income row per turn


@pytest.mark.parametrize("players, lineup", [(4, ["heuristic", "greedy", "random", "heuristic"]),
                                             (3, ["random", "heuristic", "greedy"])])
def test_rounds_table_is_the_prestige_after_each_turn_cycle(players, lineup):
    """The rounds table holds, after every P turns (a full cycle from the start player) and at the
    end, each seat's prestige as the step API scores that state; its last round is players.score.
    Prestige is not monotone (a strategic area's top floor can be built over, a mission path broken):
    only the rounds are. A 3-player game capped at 11 turns ends mid-cycle: a partial last round."""
    ids = np.array([SPEC.policies[n].policy_id for n in lineup])
    w = np.array([default_weights(n) for n in lineup])
    over = {"end.turn_cap": 11} if players == 3 else None
    kp = kernel_params(VARIANTS.load(None, over) if over else None, players)
    out = simulate(kp, ids, w, True, 9, 0, 3)
    rs = out["rounds"]
    for gi in range(3):
        g = new_game(n_players=players, seed=9, game_index=gi, overrides=over)
        seat_policy = [lineup[(s + gi) % players] for s in range(players)]
        want = []
        while not g.is_over():
            g.apply(g.policy_action(seat_policy[g.current_player()]))
            t = int(g.state.data[M_TURN])
            if t == (len(want) + 1) * players or (g.is_over() and t > len(want) * players):
                want.append(g.scores())
        rows = rs["game"] == gi
        n = len(want)
        assert n == -(-int(out["games"]["turns"][gi]) // players)
        assert rs["round"][rows].tolist() == [r for r in range(1, n + 1) for _ in range(players)]
        assert rs["seat"][rows].tolist() == list(range(players)) * n
        assert rs["score"][rows].reshape(n, players).tolist() == want
        assert want[-1] == out["players"]["score"][out["players"]["game"] == gi].tolist()
    if players == 3:
        assert (out["games"]["turns"] == 11).all() and len(rs["game"]) == 3 * 4 * 3   # rounds 1-3 full, 4 partial


def test_determinism_and_chunks():
    kp = kernel_params(None, 3)
    ids = np.array([2, 1, 0])
    w = np.array([default_weights("heuristic"), default_weights("greedy"), default_weights("random")])
    a = simulate(kp, ids, w, True, 5, 0, 12)
    b = simulate(kp, ids, w, True, 5, 0, 12)
    c = simulate(kp, ids, w, True, 5, 6, 6)
    for t in a:
        for col in a[t]:
            assert np.array_equal(a[t][col], b[t][col])
    for col in a["players"]:
        assert np.array_equal(a["players"][col][18:], c["players"][col])
    other = simulate(kp, ids, w, True, 6, 0, 12)
    assert not np.array_equal(a["games"]["decisions"], other["games"]["decisions"])


def test_income_table_rows_match_turns():
    kp = kernel_params(None, 2)
    out = simulate(kp, np.array([0, 0]), np.zeros((2, 8)), True, 3, 0, 5)
    for gi in range(5):
        n = int((out["income"]["game"] == gi).sum())
        assert n == out["games"]["turns"][gi]          # one row per turn played
    totals = {}
    for g, s, i in zip(out["income"]["game"], out["income"]["seat"], out["income"]["income"]):
        totals[(g, s)] = totals.get((g, s), 0) + int(i)
    pl = out["players"]
    for g, s, tot, lost in zip(pl["game"], pl["seat"], pl["income_total"], pl["cap_lost"]):
        assert totals.get((g, s), 0) == tot + lost     # income received + lost to the cap


@pytest.mark.parametrize("covered", [False, True])
def test_observation_hides_private_parts(covered):
    """Two states that differ only in what player 0 may not see give player 0 the same observation."""
    over = {"rules.covered": covered}
    g = new_game(n_players=3, seed=4, overrides=over)
    for _ in range(25):
        g.apply(g.policy_action("random"))
    h = g.clone()
    d = h.state.data
    b1 = PBASE + 1 * PB
    d[b1 + P_HAND] ^= 0b1011
    d[b1 + P_MISSION] = (d[b1 + P_MISSION] + 1) % 6
    from engines.skyline_of_the_world.state import DECK
    d[DECK:DECK + 5] = d[DECK:DECK + 5][::-1]
    if covered:
        d[b1 + P_CASH] += 3
        d[M_BANK_NET] -= 3
        d[b1 + P_STOCK + 1] += 1
    assert np.array_equal(g.observation(0), h.observation(0))
    assert not np.array_equal(g.observation(1), h.observation(1))   # player 1 sees his own hand
    if not covered:  # cash and stock are open information in the normal game
        d[b1 + P_CASH] += 3
        assert not np.array_equal(g.observation(0), h.observation(0))
    text = render(g.observation(0), g.kp, viewer=0)
    assert "hidden" in text


def test_no_jitter_plays_the_noiseless_policies():
    """jitter=0 draws nothing and keeps the first of equal candidates (the game written before
    greedy and heuristic had a jitter weight, move for move, is the golden
    play_4p_heuristic_vs_greedy_jitter0): a row written before the jitter weight (8 wide) reads a
    zero there, the noiseless heuristic."""
    g = new_game(n_players=4, seed=2026, game_index=0)
    old_row = default_weights("heuristic")[:8]
    for _ in range(40):
        a = g.clone().policy_action("heuristic(jitter=0)")
        assert g.policy_action("heuristic", weights=old_row) == a
        g.apply(a)


def test_jitter_breaks_self_play_ties_reproducibly():
    """Identical players: the default jitter changes some games of noiseless self-play, and the
    same seed still replays the same games (the noise comes from the seats' policy streams)."""
    kp = kernel_params(None, 4)
    for name in ("greedy", "heuristic"):
        ids = np.full(4, SPEC.policies[name].policy_id)
        still = simulate(kp, ids, np.array([default_weights(f"{name}(jitter=0)")] * 4), True, 8, 0, 6)
        noisy = simulate(kp, ids, np.array([default_weights(name)] * 4), True, 8, 0, 6)
        again = simulate(kp, ids, np.array([default_weights(name)] * 4), True, 8, 0, 6)
        assert not np.array_equal(still["games"]["decisions"], noisy["games"]["decisions"]) or \
            not np.array_equal(still["players"]["score"], noisy["players"]["score"]), name
        for col in noisy["players"]:
            assert np.array_equal(noisy["players"][col], again["players"][col])
