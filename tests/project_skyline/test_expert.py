"""The learned expert in Project Skyline (engines/core/expert.py, engines/project_skyline/features.py):
a named policy that plays legal, complete games on both maps; its features score a finished game
exactly and read nothing the seat cannot see; its choice is its features' best; the shipped model
beats the untrained one; training is reproducible from its seed, also on a mixture of both maps
and several player counts (--mix, --players 2,3,4), from the command the model records."""
import shlex

import numpy as np
import pytest
from typer.testing import CliRunner

from engines.core.lineup import make_lineup
from engines.core.rng import new_stream
from engines.project_skyline import SPEC, new_game, search, simulate
from engines.project_skyline.features import FEATURES, N_FEATURES, features_nb, progress_nb
from engines.project_skyline.params import (
    BONUS_MONEY, K_MON_AMT, K_MON_KIND, K_N_AREAS, K_N_MON, K_N_SP, VARIANTS, kernel_params,
)
from engines.project_skyline.policies import card_worth_nb, default_weights
from engines.project_skyline.state import (
    B_A_SITE, B_H, END_MONEY, END_STALLED, M_CUR, P_DISC, P_DISC_N, P_DRAW, P_DRAW_N, P_HAND, P_HAND_N, PB, PBASE,
)
from engines.core.expert import load_model
from experiments.cli import app
from experiments.train import TrainError, TrainPlan, _same_plan, play_and_record, train
from tests.project_skyline import hidden

ZERO = "expert(" + ", ".join(f"w_{f}=0" for f in FEATURES) + ")"
IX = {f: i for i, f in enumerate(FEATURES)}


def run(lineup, n_players, count, seed=7, variant=None):
    kp = kernel_params(VARIANTS.load(variant), n_players)
    ln = make_lineup(SPEC, lineup, n_players, True)
    return simulate(kp, ln.policy_ids(), ln.weight_rows(SPEC.max_weights), True, seed, 0, count)


def features(g, p):
    out = np.zeros(N_FEATURES)
    features_nb(g.state.data.copy(), g.kp.cfg, g.kp.cfg, np.int64(p), out)
    return out


@pytest.mark.parametrize("variant, n_players", [(None, 4), (None, 2), ("tokyo", 3)])
def test_expert_plays_legal_complete_games(variant, n_players):
    """The step API checks every action's legality; the game ends by its rules, not the round cap."""
    for gi in range(2):
        g = new_game(VARIANTS.load(variant), n_players, 5, gi)
        while not g.is_over():
            g.apply(g.policy_action("expert"))
        assert max(g.scores()) > 0


@pytest.mark.parametrize("variant, n_players", [(None, 4), (None, 2), ("tokyo", 4), ("tokyo", 2)])
def test_features_of_a_finished_game_add_up_to_its_score(variant, n_players):
    """At the end money, the cards' values and the end condition are the score, to the point."""
    for gi in range(3):
        g = new_game(VARIANTS.load(variant), n_players, 4, gi)
        while not g.is_over():
            g.apply(g.policy_action("heuristic"))
        for p, score in enumerate(g.scores()):
            f = features(g, p)
            assert max(0.0, f[IX["money"]] + f[IX["card_values"]] + f[IX["end_bonus"]]) == score
            assert f[IX["hand_now"]] == 0.0 and f[IX["bias"]] == 1.0


def test_deck_worth_is_the_heuristics_card_worth_summed():
    """deck_worth is card_worth_nb at the heuristic's default weights over the seat's cards."""
    checked = 0
    for g in hidden.states():
        d = g.state.data
        if d[M_CUR] >= 0:
            continue
        p = g.current_player()
        b = PBASE + p * PB
        cards = [*d[b + P_HAND:b + P_HAND + d[b + P_HAND_N]], *d[b + P_DRAW:b + P_DRAW + d[b + P_DRAW_N]],
                 *d[b + P_DISC:b + P_DISC + d[b + P_DISC_N]]]
        w = default_weights("heuristic")
        prog = progress_nb(d, g.kp.cfg)
        want = sum(card_worth_nb(d, g.kp.cfg, np.int64(p), np.int64(t), w, prog) for t in cards)
        assert features(g, p)[IX["deck_worth"]] == pytest.approx(want, rel=1e-9)
        checked += 1
    assert checked > 20


def test_features_read_only_what_the_seat_sees():
    """Other hands, every draw pile's order, the Upgrade draw pile and the chance stream changed
    (the conformance suite's scramble): the seat to move's features do not change."""
    rng = np.random.default_rng(1)
    for g in hidden.states():
        p = g.current_player()
        h = g.clone()
        hidden.scramble(h, rng)
        np.testing.assert_allclose(features(h, p), features(g, p), rtol=1e-12, atol=1e-12)


def test_expert_plays_its_features_best_candidate():
    """expert_nb with one sample picks the candidate whose features (choices_nb, the same
    determinized sample) score best under the shipped weights; the first listed on a tie."""
    row = SPEC.policies["expert"]
    w = np.array([1.0] + [row.weights[f"w_{f}"] for f in FEATURES])
    checked = 0
    for g in hidden.states():
        legal = np.empty(search.MAX_ACTIONS, np.int64)
        prng = new_stream(np.uint64(3), np.int64(checked), 5)
        a = search.expert_nb(g.state.data.copy(), g.kp.cfg, g.kp.cfg, w, prng.copy(), legal,
                             np.zeros(search.MAX_ACTIONS))
        cands, feats = SPEC.expert.choices(g, prng.copy())
        # summed in expert_nb's order (a BLAS product may split exact ties by an ulp)
        values = [sum((wj * fj for wj, fj in zip(w[1:], f)), 0.0) for f in feats]
        assert a == cands[int(np.argmax(values))]
        checked += len(cands) > 1
    assert checked > 20


def test_mon_open_counts_the_monuments_a_site_tile_opens():
    """Tokyo at the start (an empty board): with 2 players a monument counts in mon_open only
    while a construction-site tile lies in an area beside it (none: 0; every area: every
    monument's money); with 3 players, who have no sites, every monument counts."""
    g = new_game(VARIANTS.load("tokyo"), 2, 5, 0)
    cfg = g.kp.cfg
    assert g.state.data[B_H:B_H + cfg[K_N_SP]].max() == 0
    every = sum(cfg[K_MON_AMT + m] if cfg[K_MON_KIND + m] == BONUS_MONEY else 2 for m in range(cfg[K_N_MON]))
    assert 0 < features(g, 0)[IX["mon_open"]] < every
    g.state.data[B_A_SITE:B_A_SITE + cfg[K_N_AREAS]] = 0
    assert features(g, 0)[IX["mon_open"]] == 0
    g.state.data[B_A_SITE:B_A_SITE + cfg[K_N_AREAS]] = 1
    assert features(g, 0)[IX["mon_open"]] == every
    g3 = new_game(VARIANTS.load("tokyo"), 3, 5, 0)
    assert features(g3, 0)[IX["mon_open"]] == every


@pytest.mark.parametrize("variant", [None, "tokyo"])
def test_shipped_model_ends_two_player_games_by_money(variant):
    """Two shipped experts play the rulebook's game: it ends by money, the last floor the rare
    case (without mon_open they ran 80-98% of 2-player games to the last floor)."""
    games = run(["expert"] * 2, 2, 100, variant=variant)["games"]
    assert (np.asarray(games["ending"]) == END_MONEY).mean() > 0.8


def test_shipped_model_beats_the_untrained_one():
    """Two shipped experts against two zero-weight experts (which play the first listed action)."""
    t = run(["expert", ZERO, "expert", ZERO], 4, 200)["players"]
    slot, score = np.asarray(t["lineup_slot"]), np.asarray(t["score"], float)
    trained, untrained = score[slot % 2 == 0].mean(), score[slot % 2 == 1].mean()
    assert trained > untrained + 10.0, (trained, untrained)


def test_shipped_model_finishes_its_games():
    """Four shipped experts end their games by the rules (money or the last floor), not stalled."""
    games = run(["expert"] * 4, 4, 100)["games"]
    assert (np.asarray(games["ending"]) != END_STALLED).mean() > 0.95


def test_training_is_reproducible_from_its_seed(tmp_path):
    plan = TrainPlan("project_skyline", players=2, seed=3, iterations=1, games=2, budget=2, eval_games=10)
    a = train(plan, tmp_path / "a", log=lambda *_: None)
    b = train(plan, tmp_path / "b", log=lambda *_: None)
    assert a == b and len(a["iterations"]) == 1
    for name in ("data_000.npz", "model_000.toml", "expert.toml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


class _RecordingSpec:
    """The game's spec, noting which rules, player count and game number each search game gets."""

    def __init__(self, spec):
        self.spec, self.games = spec, []

    def __getattr__(self, name):
        return getattr(self.spec, name)

    def new_game(self, variant, n_players, seed, game_index):
        self.games.append((variant.get("map"), n_players, game_index))
        return self.spec.new_game(variant, n_players, seed, game_index)


def test_a_mixture_deals_its_games_to_every_map_and_player_count_in_turn():
    """--mix map=nyc --mix map=tokyo --players 2,3: game i plays cell i mod 4, mixes outer, in
    every iteration; --set applies to every cell under the mix."""
    plan = TrainPlan("project_skyline", players=(2, 3), seed=3, iterations=2, games=4, budget=1, eval_games=8,
                     sets=("end.money=30",), mixes=("map=nyc", "map=tokyo"))
    cells = plan.cells()
    assert [c.label for c in cells] == ["map=nyc 2p", "map=nyc 3p", "map=tokyo 2p", "map=tokyo 3p"]
    assert all(c.variant.get("end.money") == 30 for c in cells)
    spy = _RecordingSpec(SPEC)
    play_and_record(spy, plan, 1, None)
    assert spy.games == [("nyc", 2, 4), ("nyc", 3, 5), ("tokyo", 2, 6), ("tokyo", 3, 7)]


def test_a_one_cell_plan_is_the_plan_it_was_before_mixes():
    """The default plan's command is unchanged (the shipped models' commands still reproduce them),
    and a folder written before mixes (players a single count, no variant keys) resumes."""
    plan = TrainPlan("project_skyline", players=4)
    assert plan.command() == ("skyline-lab train project_skyline --players 4 --seed 0 --iterations 3 --games 100 "
                              "--budget 20 --eval-games 2000 --ridge 0.001 --target choice")
    old = {"game": "project_skyline", "players": 4, "seed": 0, "iterations": 3, "games": 100, "budget": 20,
           "eval_games": 2000, "ridge": 0.001, "target": "choice"}
    assert _same_plan(old, plan)
    assert not _same_plan(old, TrainPlan("project_skyline", players=4, mixes=("map=tokyo",)))
    assert not _same_plan({**old, "colour": "red"}, plan)


def test_a_mixed_training_is_reproducible_from_its_command(tmp_path):
    """Both maps at 2 and 3 players: the evaluation is split over the four cells (the remainder to
    the first), and the model's recorded command, typed again, makes the same files byte for byte."""
    plan = TrainPlan("project_skyline", players=(2, 3), seed=5, iterations=1, games=4, budget=1, eval_games=9,
                     mixes=("map=nyc", "map=tokyo"))
    a = train(plan, tmp_path / "a", log=lambda *_: None)
    ev = a["iterations"][0]["eval"]
    assert [(c["cell"], c["games"]) for c in ev["cells"]] == [
        ("map=nyc 2p", 3), ("map=nyc 3p", 2), ("map=tokyo 2p", 2), ("map=tokyo 3p", 2)]
    assert ev["margin"] == pytest.approx(np.mean([c["margin"] for c in ev["cells"]]))
    command = load_model(tmp_path / "a" / "expert.toml", FEATURES).command
    assert command == plan.command() and "--players 2,3" in command and "--mix map=tokyo" in command
    args = shlex.split(command)
    assert args[:2] == ["skyline-lab", "train"]
    result = CliRunner().invoke(app, args[1:] + ["--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    for name in ("train.json", "data_000.npz", "model_000.toml", "expert.toml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    with pytest.raises(TrainError, match="another plan"):
        train(TrainPlan("project_skyline", players=(2, 3), seed=5, iterations=1, games=4, budget=1, eval_games=9,
                        mixes=("map=tokyo", "map=nyc")), tmp_path / "a", log=lambda *_: None)


def test_a_decision_is_scored_once_the_seats_turn_is_over():
    """settle_nb (the expert's settle hook) plays the rest of the seat's turn with the heuristic:
    after a candidate and the settle, another seat is to move or the game is over; a candidate
    that leaves the turn open (most of them: a turn is several decisions) is played on."""
    played_on = 0
    checked = 0
    for g in hidden.states():
        me = g.current_player()
        for a in g.legal_actions()[:3]:
            h = g.clone()
            h.apply(a)
            open_turn = h.current_player() == me
            buf = np.zeros(search.MAX_ACTIONS, np.int64)
            search.settle_nb(h.state.data, h.state.rng, h.kp.cfg, h.kp.cfg, np.int64(me), buf, np.empty(0))
            assert h.current_player() != me
            played_on += open_turn
            checked += 1
    assert checked > 20 and played_on > checked // 2, (checked, played_on)
