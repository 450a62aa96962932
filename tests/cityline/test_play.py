"""Whole games: invariants under random play, step API vs batch parity, determinism, shared dice."""
import numpy as np
import pytest

from engines.cityline import SPEC, simulate
from engines.cityline import new_game
from engines.cityline.params import VARIANTS, kernel_params
from engines.cityline.policies import POLICIES, default_weights
from engines.cityline.state import DR, P_SKY, S_FILLED, S_H, S_OCC, S_ROOF, S_X, dice_of, views
from cityline_helpers import score_parts


def run(policies, n_players=1, start=0, count=200, seed=11, rotate=False, variant=None, record=True):
    kp = kernel_params(VARIANTS.load(variant), n_players).with_slot("record_decisions", record)
    ids = np.array([POLICIES[p].policy_id for p in policies])
    w = np.stack([default_weights(p, 16) for p in policies])  # one width for rows of any policy
    return simulate(kp, ids, w, rotate, seed, start, count)


def test_random_play_invariants_step_by_step():
    for i in range(1500):
        g = new_game(n_players=1 + i % 3, seed=3, game_index=i)
        while not g.is_over():
            legal = g.legal_actions()
            assert legal
            a = g.policy_action("random")
            assert a in legal
            g.apply(a)
        for p in range(g.n_players):
            v = views(g.state, p)
            sh = v.sheet
            assert (sh[S_ROOF, :6] > 0).all()                 # every column got exactly one roof
            assert sorted(x for x in v.aside[0] if x) == sorted(sh[S_ROOF, :6].tolist())
            assert (sh[S_H, :6] <= 5).all()
            filled = sh[S_FILLED, :6] == 1
            assert (sh[S_OCC, :6][filled] + sh[S_X, :6][filled] == sh[S_H, :6][filled]).all()
            assert (sh[S_OCC, :6] <= sh[S_H, :6]).all()
            # every building with room ends full (6 buildings, 6 occupancy turns)
            assert ((sh[S_OCC, :6] + sh[S_X, :6] == sh[S_H, :6])).all()
            s = score_parts(g, p)
            assert s["score"] == sum(s["cols"]) - s["xpen"] + s["bonus"] == g.scores()[p]
            assert v.stat[P_SKY] in (0, 1, 2)


def test_tables_contract_and_parts():
    for policies in (["random"], ["random", "heuristic", "greedy"]):
        out = run(policies, n_players=len(policies), count=2000, rotate=True)
        for name, spec in SPEC.tables.items():
            assert set(out[name]) == set(spec.names), name
            lens = {len(c) for c in out[name].values()}
            assert len(lens) == 1
        pl_, ga = out["players"], out["games"]
        assert len(ga["game"]) == 2000 and len(pl_["game"]) == 2000 * len(policies)
        assert (pl_["score"] == pl_["building_points"] - pl_["x_penalty"] + pl_["sky_bonus"]).all()
        btypes = sum(pl_[f"buildings_type{r}"].astype(int) for r in range(1, 7))
        assert (btypes + pl_["dead_roofs"] == 6).all()
        assert (sum(pl_[f"points_type{r}"].astype(int) for r in range(1, 7)) == pl_["building_points"]).all()
        if len(policies) == 1:
            assert (pl_["win"] == 1).all() and (pl_["rank"] == 1).all() and (ga["margin"] == 0).all()
        else:
            P = len(policies)
            score = pl_["score"].reshape(-1, P).astype(int)
            top = score.max(1)
            nwin = (score == top[:, None]).sum(1)
            assert (ga["n_winners"] == nwin).all()
            assert (ga["winner"][nwin > 1] == -1).all()
            assert (pl_["win"].reshape(-1, P) == (score == top[:, None])).all()
            second = np.where(score == top[:, None], -999, score).max(1)
            assert (ga["margin"][nwin == 1] == (top - second)[nwin == 1]).all()
            assert (pl_["lineup_slot"].reshape(-1, P)[:, 0] == np.arange(2000) % P).all()  # rotation
        dec = out["decisions"]
        assert set(np.unique(dec["phase"])) <= {0, 1}
        assert (dec["die"] >= 1).all() and (dec["die"] <= 6).all()


def test_determinism_chunking():
    for policies in (["random"], ["heuristic", "random"]):
        a = run(policies, n_players=len(policies), start=0, count=100, rotate=True)
        b = run(policies, n_players=len(policies), start=0, count=50, rotate=True)
        c = run(policies, n_players=len(policies), start=50, count=50, rotate=True)
        for t in a:
            for col in a[t]:
                np.testing.assert_array_equal(a[t][col], np.concatenate([b[t][col], c[t][col]]), f"{t}.{col}")


@pytest.mark.parametrize("policies", [["random"], ["greedy"], ["heuristic"], ["random", "heuristic", "greedy"]])
def test_step_api_replays_batch_games(policies):
    P = len(policies)
    out = run(policies, n_players=P, count=40, seed=99)
    for i in range(40):
        g = new_game(n_players=P, seed=99, game_index=i)
        while not g.is_over():
            g.apply(g.policy_action(policies[g.current_player()]))
        assert g.scores() == out["players"]["score"][i * P:(i + 1) * P].tolist()


def test_strong_policy_plays_legal_moves_in_step_and_batch():
    w = default_weights("strong")
    w[0], w[1], w[2] = 2, 3, 1
    g = new_game(n_players=2, seed=5)
    while not g.is_over():
        a = g.policy_action("strong", w)
        assert a in g.legal_actions()
        g.apply(a)
    kp = kernel_params(VARIANTS.load(), 1)
    out = simulate(kp, np.array([POLICIES["strong"].policy_id]), w[None, :], False, 1, 0, 3)
    assert len(out["players"]["score"]) == 3


def test_multiplayer_players_share_the_dice():
    g = new_game(n_players=3, seed=8)
    # no re-roll with 2+ players by default: turn 1 walls are on every sheet, identical
    hs = [views(g.state, p).sheet[S_H, :6].tolist() for p in range(3)]
    assert hs[0] == hs[1] == hs[2] and sum(hs[0]) == 6
    while not g.is_over():
        obs = [g.observation(p) for p in range(3)]
        assert all(np.array_equal(obs[0][8:16], o[8:16]) for o in obs)  # same dice for everyone
        assert all((o[DR:DR + 8] == 0).all() for o in obs)                 # the re-roll reserve is hidden
        g.apply(g.policy_action("random"))


def test_starting_player_rerolls_for_the_table():
    g = new_game("starting_player_reroll", n_players=2, seed=8)
    assert g.phase() == "reroll" and g.current_player() == 0
    g.apply(g.legal_actions()[-1])  # re-roll everything
    hs = [views(g.state, p).sheet[S_H, :6].tolist() for p in range(2)]
    assert hs[0] == hs[1]


def test_common_random_numbers_across_choices():
    """The same game index rolls the same dice whatever is re-rolled or roofed."""
    a, b = new_game(seed=4), new_game(seed=4)
    a.apply(0)
    b.apply(63)
    a.apply(a.legal_actions()[0])
    b.apply(b.legal_actions()[-1])
    assert dice_of(a.state) == dice_of(b.state) and a.phase() == b.phase() == "reroll"


def test_observation_hides_pending_choices_of_others():
    g = new_game(n_players=2, seed=1)
    g.apply(g.legal_actions()[0])  # seat 0 roofs; seat 1 to choose
    from engines.cityline.state import P_PEND_V, PB, PBASE, PS
    assert g.observation(1)[PBASE + PS + P_PEND_V] == 0
    assert g.observation(0)[PBASE + PS + P_PEND_V] != 0


def test_random_choice_without_list_matches_the_legal_list():
    """The batch loop's random policy samples the choice bit set; the step API's picks from
    legal_nb's list: the same draw must give the same action in every position."""
    from engines.cityline.policies import random_action_nb, random_choice_nb
    from engines.cityline.rules import legal_nb
    legal = np.empty(256, np.int64)
    for i in range(300):
        g = new_game(n_players=1 + i % 3, seed=12, game_index=i)
        while not g.is_over():
            p = g.current_player()
            n = legal_nb(g.state.data, g.kp.cfg, legal)
            r1, r2 = g._prngs[p].copy(), g._prngs[p].copy()
            n_draw = 0 if g.phase() == "reroll" else n
            a = random_action_nb(g.state.data, r1, legal, n_draw)
            assert random_choice_nb(g.state.data, g.kp.cfg, r2) == a and (r1 == r2).all()
            g.apply(g.policy_action("random"))
