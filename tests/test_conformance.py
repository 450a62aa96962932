"""Every registered game honours the same contract (OpenSpiel's games_sim_test,
Pgx's api_test): random play through the step API from start to end."""
import numpy as np
import pytest

from engines.core.lineup import make_lineup
from engines.registry import game_ids, get_game


@pytest.fixture(params=game_ids())
def spec(request):
    return get_game(request.param)


def _player_counts(spec):
    return sorted({spec.min_players, spec.default_players, min(spec.max_players, 4)})


def test_random_play_through_step_api(spec):
    for players in _player_counts(spec):
        for game_index in range(3):
            game = spec.new_game(n_players=players, seed=5, game_index=game_index)
            replay = spec.new_game(n_players=players, seed=5, game_index=game_index)
            steps = 0
            while not game.is_terminal():
                player = game.current_player()
                assert 0 <= player < players
                action = game.policy_action("random")
                assert action in game.legal_actions()
                assert isinstance(game.action_to_string(action), str)
                if steps == 10:
                    snapshot = game.clone()
                game.apply_action(action)
                replay.apply_action(action)
                steps += 1
                assert steps < 100_000, "game does not end"
            assert game.current_player() == -1
            scores = np.asarray(game.scores())
            assert scores.shape == (players,)
            assert np.array_equal(scores, np.asarray(replay.scores()))
            assert not snapshot.is_terminal(), "a clone must not follow the original"
            assert str(game)


def test_simulate_matches_declared_tables_and_is_chunk_independent(spec):
    players = spec.default_players
    lineup = make_lineup(spec, ["random"], players, True)
    kp = spec.kernel_params(spec.variants.load(None), players)
    ids, weights = lineup.policy_ids(), lineup.weight_rows(spec.max_weights)
    whole = spec.simulate(kp, ids, weights, True, 9, 0, 40)
    first = spec.simulate(kp, ids, weights, True, 9, 0, 20)
    second = spec.simulate(kp, ids, weights, True, 9, 20, 20)
    assert set(whole) <= set(spec.tables)
    for required in ("players", "games"):
        assert required in whole
    for name, columns in whole.items():
        assert list(columns) == spec.tables[name].names, name
        if name in ("players", "games"):
            for col in columns:
                joined = np.concatenate([first[name][col], second[name][col]])
                assert np.array_equal(columns[col], joined), (name, col)
    assert np.array_equal(np.unique(whole["games"]["game"]), np.arange(40))
    for col in ("game", "seat", "lineup_slot", "score", "rank", "win", "shared_win"):
        assert col in whole["players"]
    for col in ("game", "winner", "n_winners", "margin", "decisions", "stalled"):
        assert col in whole["games"]


def test_every_policy_plays(spec):
    players = spec.default_players
    kp = spec.kernel_params(spec.variants.load(None), players)
    for name in spec.policies:
        n = 2 if name == "strong" else 20
        lineup = make_lineup(spec, [name], players, True)
        tables = spec.simulate(kp, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 1, 0, n)
        assert tables["games"]["game"].size == n


def test_variants_all_load(spec):
    for name in spec.variants.names():
        variant = spec.variants.load(name)
        players = variant.values.get("players") or spec.default_players
        spec.kernel_params(variant, players)
