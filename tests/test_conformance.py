"""Every registered game honours the same contract (OpenSpiel's games_sim_test,
Pgx's api_test): random play through the step API from start to end, and no
policy reads what its seat cannot see."""
import importlib
from pathlib import Path

import numpy as np
import pytest

from engines.core import cache_guard
from engines.core.expert import PRIOR_FEATURE, ExpertError, load_model, model_text, zero_model
from engines.core.harness import CHOICE_COLUMNS
from engines.core.lineup import make_lineup
from engines.core.spec import StepGame
from engines.registry import game_ids, get_game


@pytest.fixture(params=game_ids())
def spec(request):
    return get_game(request.param)


def _player_counts(spec):
    return sorted({spec.min_players, spec.default_players, min(spec.max_players, 4)})


@pytest.mark.jit_off   # every registered game's step play in plain Python too (~10 s for the four)
def test_random_play_through_step_api(spec):
    for players in _player_counts(spec):
        for game_index in range(3):
            game = spec.new_game(n_players=players, seed=5, game_index=game_index)
            replay = spec.new_game(n_players=players, seed=5, game_index=game_index)
            assert isinstance(game, StepGame)
            steps = 0
            while not game.is_over():   # the StepGame names only (plus policy_action and clone)
                player = game.current_player()
                assert 0 <= player < players
                assert isinstance(game.phase(), str) and game.phase()
                action = game.policy_action("random")
                assert action in game.legal_actions()
                assert isinstance(game.action_name(action), str)
                game.observation(player)
                if steps == 10:
                    snapshot = game.clone()
                game.apply(action)
                replay.apply(action)
                steps += 1
                assert steps < 100_000, "game does not end"
            assert game.current_player() == -1
            scores = np.asarray(game.scores())
            assert scores.shape == (players,)
            assert np.array_equal(scores, np.asarray(replay.scores()))
            assert not snapshot.is_over(), "a clone must not follow the original"
            assert isinstance(game.render(), str) and game.render()


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


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_choice_columns_count_what_the_step_api_lists(spec, policy):
    # a game that declares the optional choice columns (engines.core.harness CHOICE_COLUMNS) counts in
    # its batch loop exactly what a step-API replay of the same games lists: len(legal_actions()) at
    # every decision, and the decisions with more than one
    names = [c.name for c in CHOICE_COLUMNS]
    if not set(names) <= set(spec.tables["games"].names):
        assert not set(names) & set(spec.tables["games"].names), "declare both choice columns or neither"
        return
    players = min(3, spec.max_players)
    lineup = make_lineup(spec, [policy], players, True)
    variant = spec.variants.load(None)
    kp = spec.kernel_params(variant, players)
    games = spec.simulate(kp, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 4, 0, 3)["games"]
    for i in range(3):
        game = spec.new_game(variant, players, seed=4, game_index=i)
        decisions = choices = total = 0
        while not game.is_over():
            n = len(game.legal_actions())
            decisions, choices, total = decisions + 1, choices + (n > 1), total + n
            game.apply(game.policy_action(policy))
        assert (decisions, choices, total) == (games["decisions"][i], games["n_choices"][i], games["sum_legal"][i])
        assert 0 < choices <= decisions <= total


def test_every_policy_plays(spec):
    players = spec.default_players
    kp = spec.kernel_params(spec.variants.load(None), players)
    for name in spec.policies:
        n = 2 if name == "strong" else 20
        if name == "search":  # its default budget costs seconds a game in the longer games
            name, n = "search(iterations=4)", 2
        lineup = make_lineup(spec, [name], players, True)
        tables = spec.simulate(kp, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 1, 0, n)
        assert tables["games"]["game"].size == n


def test_variants_all_load(spec):
    for name in spec.variants.names():
        variant = spec.variants.load(name)
        players = variant.values.get("players") or spec.default_players
        spec.kernel_params(variant, players)


STEP_NAMES = ("phase", "current_player", "legal_actions", "action_name", "apply", "observation", "scores",
              "is_over", "render")


def test_step_protocol_names_every_method():
    # the Protocol is what the conformance test checks: it must list exactly the contract's names
    assert set(STEP_NAMES) <= set(dir(StepGame)) | set(StepGame.__annotations__)

    class Partial:  # a step object missing `render` is not a StepGame
        phase = 0
        current_player = legal_actions = action_name = apply = observation = scores = is_over = \
            (lambda self, *a: None)

    assert not isinstance(Partial(), StepGame)
    Partial.render = lambda self: ""
    assert isinstance(Partial(), StepGame)


def test_new_game_satisfies_step_protocol(spec):
    game = spec.new_game(n_players=spec.default_players, seed=1)
    assert isinstance(game, StepGame)
    for name in STEP_NAMES[1:]:
        assert callable(getattr(game, name)), name


def test_declarations_are_consistent(spec):
    """What generic code reads from the GameSpec must name real columns, policies and seats."""
    lineup = make_lineup(spec, spec.default_policies(spec.default_players), spec.default_players, True)
    assert len(lineup.seats) == spec.default_players
    if spec.turn_order is not None:
        assert spec.turn_order.table in ("players", "games")
        assert spec.turn_order.name in spec.tables[spec.turn_order.table].names
    if spec.tie_break is not None:
        assert {spec.tie_break.level_on_points, spec.tie_break.decided} <= set(spec.tables["games"].names)
    for case in spec.benchmark:
        assert spec.min_players <= case.players <= spec.max_players
        if case.lineup:   # a mixed table: `policy` is its label
            assert len(case.lineup) == case.players
            make_lineup(spec, list(case.lineup), case.players, True)
        else:             # one policy (with weights written as in a line-up) in every seat
            make_lineup(spec, [case.policy], case.players, True)
    if spec.ladder:       # every rung is a policy, the table size a legal one
        p = spec.ladder_players or spec.default_players
        assert 2 <= p <= spec.max_players
        make_lineup(spec, list(spec.ladder), len(spec.ladder), True) if len(spec.ladder) <= spec.max_players \
            else [make_lineup(spec, [r], p, True) for r in spec.ladder]
    for kind, names in spec.labels.items():
        assert names and all(isinstance(n, str) for n in names), kind


def test_source_digest_is_the_cache_guards(spec):
    # run folders are keyed on it: it must be the digest of the engine package's source, not a constant
    game = spec.new_game(n_players=spec.default_players)
    module = game.engine.module if hasattr(game, "engine") else type(game).__module__   # engines.core.adapter
    package = Path(importlib.import_module(module).__file__)
    assert spec.source_digest == cache_guard.source_digest(package.parent)


# --- hidden information: every shipped game, every declared policy ------------------------
# Each shipped game (engines/<game_id>/) says in tests/<game_id>/hidden.py what its seats cannot
# see: `scramble` changes exactly that (written from the rulebook, not from the engine's
# determinization), and every policy must then see the same observation and choose the same move.

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [g for g in game_ids() if (ROOT / "engines" / g / "__init__.py").exists()]


def _hidden(game_id):
    return importlib.import_module(f"tests.{game_id}.hidden")


def _same_observation(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("game_id", SHIPPED)
def test_every_game_says_what_its_seats_cannot_see_for_every_policy(game_id):
    hidden = _hidden(game_id)   # fails for a game without tests/<game_id>/hidden.py
    declared = set(get_game(game_id).policies)
    checked = {name.split("(")[0] for name in hidden.POLICIES}
    assert declared <= checked, f"{game_id}: policies never checked for hidden information: {declared - checked}"
    hidden.check_states(hidden.states())


@pytest.mark.parametrize("game_id, policy", [(g, p) for g in SHIPPED for p in _hidden(g).POLICIES])
def test_no_policy_reads_what_its_seat_cannot_see(game_id, policy):
    hidden = _hidden(game_id)
    rng = np.random.default_rng(0)
    for g in hidden.states():
        p = g.current_player()
        a = g.clone().policy_action(policy)
        h = g.clone()
        hidden.scramble(h, rng)
        assert _same_observation(h.observation(p), g.observation(p)), (policy, g.phase())
        assert h.policy_action(policy) == a, (policy, g.phase())


@pytest.mark.parametrize("game_id", [g for g in SHIPPED if get_game(g).expert is not None])
def test_expert_model_is_the_games_own_and_its_file_refuses_other_features(game_id, tmp_path):
    """A game's shipped expert (engines/<game>/expert.toml): made by `skyline-lab train`, trained
    (not all zero), its weights the policy's weight row, its features the game's in order; a
    model file whose features are not the game's, in the game's order, is refused."""
    spec = get_game(game_id)
    features = tuple(spec.expert.features)
    shipped = load_model(spec.expert.model_file, features)
    assert shipped.command.startswith(f"skyline-lab train {game_id} ") and any(shipped.weights)
    assert spec.policies["expert"].weights == {
        "samples": float(shipped.samples), **{f"w_{f}": w for f, w in zip(features, shipped.weights)}}
    model = zero_model(features)
    path = tmp_path / "expert.toml"
    path.write_text(model_text(model))
    assert load_model(path, features) == model
    for other in (features[:-1], features[1:] + features[:1]):
        with pytest.raises(ExpertError, match="features"):
            load_model(path, other)


@pytest.mark.parametrize("game_id", [g for g in SHIPPED if get_game(g).expert is not None
                                     and PRIOR_FEATURE in get_game(g).expert.features])
def test_expert_prior_marks_one_candidate_the_scripts_pick(game_id):
    """An expert with a prior (engines.core.expert's prior_nb): its feature is 0 or 1, 1 for one
    candidate at most, and the script's pick is among the candidates at most decisions (a game
    may list a stand-in for it elsewhere: Skyline 3000's test checks which candidate is marked)."""
    spec = get_game(game_id)
    j = spec.expert.features.index(PRIOR_FEATURE)
    marked = choices = 0
    for g in _hidden(game_id).states():
        legal, feats = spec.expert.choices(g, np.array([1, 2, 3, 4], np.uint64))
        col = feats[:, j]
        assert set(np.unique(col)) <= {0.0, 1.0} and col.sum() <= 1, g.phase()
        if len(legal) > 1:
            choices += 1
            marked += col.sum() == 1
    assert choices > 10 and marked >= 0.75 * choices, (marked, choices)


@pytest.mark.parametrize("game_id", [g for g in SHIPPED if get_game(g).expert is not None
                                     and PRIOR_FEATURE in get_game(g).expert.features])
def test_an_expert_that_plays_the_rules_forward_is_a_look_ahead_policy(game_id):
    """An expert with a prior compiles a script inside it and plays the rules forward for every
    candidate: it belongs to the look-ahead loop, never to the scripted one, so that a line-up of
    scripts (the main job's) compiles none of it on its first run."""
    engine = importlib.import_module(f"engines.{game_id}").ENGINE
    expert = get_game(game_id).policies["expert"].policy_id
    assert expert in engine.lookahead_ids
    for name in ("decide_scripted_nb", "decide_scripted_listed_nb"):
        kernel = engine.kernels.get(name)
        assert kernel is not None, name
        assert "expert_nb" not in getattr(kernel, "py_func", kernel).__code__.co_names, name


@pytest.mark.parametrize("game_id", [g for g in SHIPPED if get_game(g).expert is not None])
def test_training_records_the_games_tables_reproducibly(game_id, tmp_path):
    """`skyline-lab train GAME`'s tables for every game with an expert: the same seed writes the
    same bytes, one row of features per decision and the candidates' rows of the decisions with a
    choice."""
    from experiments.train import TrainPlan, train

    plan = TrainPlan(game_id, players=2, seed=3, iterations=1, games=1, budget=2, eval_games=10)
    a = train(plan, tmp_path / "a", log=lambda *_: None)
    b = train(plan, tmp_path / "b", log=lambda *_: None)
    assert a == b and len(a["iterations"]) == 1
    for name in ("data_000.npz", "model_000.toml", "expert.toml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    data = np.load(tmp_path / "a" / "data_000.npz")
    nf = len(get_game(game_id).expert.features)
    assert data["X"].shape[1] == nf and len(data["X"]) == a["iterations"][0]["decisions"] > 20
    assert len(data["chosen"]) > 0 and data["C"].shape[1] == nf
