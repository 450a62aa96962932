"""The learned expert in Cityline (engines/core/expert.py, engines/cityline/features.py): a named
policy, its features score a finished sheet exactly, the shipped model beats the untrained one,
and training is reproducible from its seed and refuses another plan's folder."""
import json

import numpy as np
import pytest

from engines.cityline import SPEC, new_game, simulate
from engines.cityline.features import FEATURES, N_FEATURES, features_nb
from engines.cityline.params import VARIANTS, kernel_params
from engines.core.lineup import make_lineup
from experiments.train import TrainError, TrainPlan, train

ZERO = "expert(" + ", ".join(f"w_{f}=0" for f in FEATURES) + ")"


def run(lineup, n_players, count, seed=7):
    kp = kernel_params(VARIANTS.load(None), n_players)
    ln = make_lineup(SPEC, lineup, n_players, True)
    return simulate(kp, ln.policy_ids(), ln.weight_rows(SPEC.max_weights), True, seed, 0, count)["players"]


def test_features_of_a_finished_sheet_add_up_to_its_score():
    """At the end the sure points, the X penalty and the sky are the score, to the point."""
    kp = kernel_params(VARIANTS.load(None), 3)
    out = np.zeros(N_FEATURES)
    ix = {f: i for i, f in enumerate(FEATURES)}
    for gi in range(5):
        g = new_game(n_players=3, seed=4, game_index=gi)
        while not g.is_over():
            g.apply(g.policy_action("heuristic"))
        for p, score in enumerate(g.scores()):
            features_nb(g.state.data, kp.cfg, kp.fill, np.int64(p), out)
            assert out[ix["sure"]] - out[ix["x_penalty"]] + out[ix["sky"]] == pytest.approx(score)
            assert out[ix["n_open"]] == 0 and out[ix["n_unroofed"]] == 0 and out[ix["progress"]] == 1.0


def test_shipped_model_beats_the_untrained_one():
    """Two shipped experts against two zero-weight experts (which play the first listed action)."""
    t = run(["expert", ZERO, "expert", ZERO], 4, 400)
    slot, score = np.asarray(t["lineup_slot"]), np.asarray(t["score"], float)
    trained, untrained = score[slot % 2 == 0].mean(), score[slot % 2 == 1].mean()
    assert trained > untrained + 3.0, (trained, untrained)


def test_training_is_reproducible_from_its_seed_and_keeps_its_folder(tmp_path):
    plan = TrainPlan("cityline", players=2, seed=3, iterations=1, games=3, budget=2, eval_games=20)
    a = train(plan, tmp_path / "a", log=lambda *_: None)
    b = train(plan, tmp_path / "b", log=lambda *_: None)
    assert a == b and len(a["iterations"]) == 1
    for name in ("data_000.npz", "model_000.toml", "expert.toml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    # resumed: nothing to do, nothing rewritten
    before = (tmp_path / "a" / "train.json").read_text()
    assert train(plan, tmp_path / "a", log=lambda *_: None) == a
    assert (tmp_path / "a" / "train.json").read_text() == before
    assert json.loads(before)["plan"]["seed"] == 3
    with pytest.raises(TrainError, match="another plan"):
        train(TrainPlan("cityline", players=2, seed=4, iterations=1, games=3, budget=2, eval_games=20),
              tmp_path / "a", log=lambda *_: None)
