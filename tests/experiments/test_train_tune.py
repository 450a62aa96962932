"""The trainer's tuning by play (experiments/train.py, step 3): optuna moves the fitted weights to
raise the expert's margin over the heuristic on games of their own, and the tuned weights are kept
only when they beat the fit on the evaluation games too. Checked in worlds of known truth (a stand-in
for the games whose margin is a known function of the weights) and once on real games."""
from dataclasses import replace

import numpy as np
import pytest

from engines.registry import get_game
from experiments.train import (
    EVAL_SEED_OFFSET, MAX_TUNE_RANGE, TUNE_RANGE, TUNE_SEED_OFFSET, TrainError, TrainPlan, train, tune_by_play,
    tune_text,
)

SPEC = get_game("cityline")
N = len(SPEC.expert.features)
PLAN = TrainPlan("cityline", players=2, seed=5, iterations=1, games=2, budget=2, eval_games=20, tune_trials=40)


def two_features():
    """Scales moving only features 3 and 4 (a constant feature, scale 0, is never moved): a search
    space TPE explores in the trials a test affords."""
    scales = np.zeros(N)
    scales[[3, 4]] = 1.0
    return scales


def world(best: np.ndarray, eval_penalty: float = 0.0, calls: list | None = None):
    """A stand-in for evaluate(): the margin is highest at weights `best`; on the evaluation games
    (the plan's own seed) it is lowered by `eval_penalty` times the distance moved from the fit, a
    tuning that does not carry over."""
    def evaluate(spec, plan, model):
        w = np.asarray(model.weights)
        if calls is not None:
            calls.append(plan.seed)
        margin = -float(((w - best) ** 2).sum())
        if plan.seed == PLAN.seed:
            margin -= eval_penalty * float(np.abs(w - np.zeros(N)).sum())
        return {"margin": margin}
    return evaluate


def test_tuning_moves_towards_better_play_and_keeps_it_when_it_carries_over():
    best = np.zeros(N)
    best[3] = 0.8      # the margin's peak: one weight moved
    calls = []
    w, tuned, _ = tune_by_play(SPEC, PLAN, np.zeros(N), two_features(), 0, evaluate_fn=world(best, calls=calls))
    assert tuned["kept"] and tuned["tuned_margin"] > tuned["fitted_margin"]
    assert abs(w[3] - 0.8) < 0.4 and abs(w[4]) < 0.4
    assert np.count_nonzero(w) <= 2                 # nothing else moved
    assert np.all(np.abs(w) <= TUNE_RANGE + 1e-9)   # scale 1: at most TUNE_RANGE
    # the tuning games are not the evaluation games; the last two calls judge fit and tuned there
    assert set(calls[:-2]) == {PLAN.seed + TUNE_SEED_OFFSET} and calls[-2:] == [PLAN.seed, PLAN.seed]
    assert PLAN.seed + TUNE_SEED_OFFSET + EVAL_SEED_OFFSET != PLAN.seed + EVAL_SEED_OFFSET


def test_a_tuning_that_does_not_carry_over_to_the_evaluation_games_is_not_kept():
    best = np.zeros(N)
    best[3] = 0.8
    fit = np.zeros(N)
    w, tuned, _ = tune_by_play(SPEC, PLAN, fit, two_features(), 0, evaluate_fn=world(best, eval_penalty=10.0))
    assert tuned["tuning_margin"] > tuned["tuning_margin_of_the_fit"]   # it did find better weights there
    assert not tuned["kept"] and np.array_equal(w, fit)


def test_weights_move_in_units_of_their_features_spread():
    """A feature with a spread of 10 moves its weight a tenth as far; the bias and a constant
    feature not at all."""
    best = np.full(N, 10.0)
    scales = two_features()
    scales[0] = 1.0
    scales[4] = 10.0
    w, tuned, _ = tune_by_play(SPEC, PLAN, np.zeros(N), scales, 0, evaluate_fn=world(best))
    assert tuned["kept"] and w[0] == 0.0 and w[5] == 0.0
    assert TUNE_RANGE / 2 < w[3] <= TUNE_RANGE + 1e-9 and 0 < w[4] <= TUNE_RANGE / 10 + 1e-9


def test_tuned_training_is_reproducible_and_its_command_says_so(tmp_path):
    plan = TrainPlan("cityline", players=2, seed=3, iterations=1, games=2, budget=2, eval_games=20, tune_trials=3)
    a = train(plan, tmp_path / "a", log=lambda *_: None)
    b = train(plan, tmp_path / "b", log=lambda *_: None)
    assert a == b
    entry = a["iterations"][0]
    assert entry["tuned"]["trials"] == 3 and "tuned by play" in entry["fit"]
    assert "--tune-trials 3" in plan.command()
    assert "--tune-trials" not in TrainPlan("cityline").command()   # an untuned plan's command is unchanged
    assert (tmp_path / "a" / "expert.toml").read_bytes() == (tmp_path / "b" / "expert.toml").read_bytes()


def test_a_wider_tune_range_reaches_a_weight_the_default_cannot():
    """The best weight lies 2.5 standard deviations from the fit (a rarely nonzero feature, e.g.
    Skyline 3000's exposed, whose useful weight the default range of 1.5 cannot reach): the
    default stops at its edge, --tune-range 3 gets near the peak."""
    best = np.zeros(N)
    best[3] = 2.5
    _, narrow, _ = tune_by_play(SPEC, PLAN, np.zeros(N), two_features(), 0, evaluate_fn=world(best))
    wide_plan = replace(PLAN, tune_range=3.0)
    w, wide, _ = tune_by_play(SPEC, wide_plan, np.zeros(N), two_features(), 0, evaluate_fn=world(best))
    assert max(abs(x) for x in narrow["tuned_weights"]) <= TUNE_RANGE + 1e-9
    assert wide["kept"] and abs(w[3] - 2.5) < 0.4 and np.all(np.abs(w) <= 3.0 + 1e-9)
    assert wide["tuned_margin"] > narrow["tuned_margin"]
    assert "within 3 standard deviations" in tune_text(wide_plan, wide)
    assert "within 1.5 standard deviations" in tune_text(PLAN, narrow)


def test_the_tune_range_is_in_the_command_and_checked():
    plan = replace(PLAN, tune_range=3.0)
    plan.check()
    assert plan.command().endswith("--tune-trials 40 --tune-range 3")
    assert "--tune-range" not in PLAN.command()   # the default's command is unchanged
    for bad in (0.0, -1.0, float("nan"), float("inf"), MAX_TUNE_RANGE + 1):
        with pytest.raises(TrainError, match="tune_range must be above 0"):
            replace(PLAN, tune_range=bad).check()
    with pytest.raises(TrainError, match="give tune_trials or self_tune_trials too"):   # a no-op option
        replace(PLAN, tune_trials=0, tune_range=3.0).check()
    replace(PLAN, tune_trials=0, self_tune_trials=2, tune_range=3.0).check()


def test_a_bad_trial_count_is_refused():
    with pytest.raises(TrainError, match="tune_trials"):
        TrainPlan("cityline", tune_trials=-1).check()


def test_the_tuning_games_seed_stays_a_run_seed_at_the_largest_plan_seed():
    calls = []
    plan = TrainPlan("cityline", players=2, seed=2**63 - 1, iterations=1, games=2, budget=2, eval_games=20,
                     tune_trials=2)
    plan.check()
    tune_by_play(SPEC, plan, np.zeros(N), two_features(), 0, evaluate_fn=world(np.zeros(N), calls=calls))
    tuning = set(calls[:-2])
    assert len(tuning) == 1 and 0 <= tuning.pop() + EVAL_SEED_OFFSET < 2**63


def self_world(best: np.ndarray, calls: list):
    """A stand-in for evaluate() with an opponent: a weight row's strength is highest at `best`, and
    the margin is the tuned row's strength minus its opponent's (the heuristic's is 0)."""
    def strength(w):
        return -float(((np.asarray(w) - best) ** 2).sum())

    def evaluate(spec, plan, model, against=None):
        calls.append((plan.seed, None if against is None else tuple(against.weights)))
        return {"margin": strength(model.weights) - (0.0 if against is None else strength(against.weights))}
    return evaluate


def test_tuning_against_itself_plays_the_weights_it_starts_from_and_keeps_a_gain():
    best = np.zeros(N)
    best[3] = 0.8
    start = np.zeros(N)
    start[4] = 0.5      # where the first tuning left the weights
    calls = []
    plan = TrainPlan("cityline", players=2, seed=5, iterations=1, games=2, budget=2, eval_games=20, tune_trials=40,
                     self_tune_trials=40)
    w, tuned, ev = tune_by_play(SPEC, plan, start, two_features(), 0, evaluate_fn=self_world(best, calls),
                                against_self=True)
    assert tuned["against"] == "itself" and tuned["trials"] == 40
    # every game was played against the start's weights, none against the heuristic
    assert {a for _, a in calls} == {tuple(start)}
    # on tuning games of their own (not the first tuning's), then judged once on the evaluation games
    assert set(s for s, _ in calls[:-1]) == {plan.seed + TUNE_SEED_OFFSET + 1} and calls[-1][0] == plan.seed
    assert tuned["fitted_margin"] == 0.0 and tuned["kept"] and tuned["tuned_margin"] > 0
    assert abs(w[3] - 0.8) < 0.4 and abs(w[4]) < 0.3   # moved towards the better play
    assert ev["margin"] == tuned["tuned_margin"]         # the kept row's evaluation: against the start


def test_tuning_against_itself_keeps_the_start_when_nothing_beats_it():
    calls = []
    start = np.zeros(N)    # already the best row
    plan = TrainPlan("cityline", players=2, seed=5, iterations=1, games=2, budget=2, eval_games=20, tune_trials=1,
                     self_tune_trials=10)
    w, tuned, _ = tune_by_play(SPEC, plan, start, two_features(), 0, evaluate_fn=self_world(np.zeros(N), calls),
                               against_self=True)
    assert not tuned["kept"] and np.array_equal(w, start)


def test_tuning_against_itself_keeps_a_gain_only_when_its_interval_is_above_zero():
    """The best of many rows looks better than its start by chance: a gain on the evaluation games
    inside its own noise (low end below 0) is not kept, the same gain measured more precisely is."""
    best = np.zeros(N)
    best[3] = 0.8
    plan = TrainPlan("cityline", players=2, seed=5, iterations=1, games=2, budget=2, eval_games=20, tune_trials=1,
                     self_tune_trials=20)
    for se, kept in ((10.0, False), (1e-3, True)):
        judge = self_world(best, [])

        def noisy(spec, plan, model, against=None):
            return {**judge(spec, plan, model, against=against), "margin_se": se}
        w, tuned, _ = tune_by_play(SPEC, plan, np.zeros(N), two_features(), 0, evaluate_fn=noisy, against_self=True)
        assert tuned["tuned_margin"] > 0 and tuned["kept"] is kept
        assert np.array_equal(w, np.zeros(N)) is not kept
        assert tuned["tuned_margin_low"] == pytest.approx(tuned["tuned_margin"] - 1.96 * se)


def test_an_expert_against_a_given_opponent_plays_that_opponents_weights():
    """evaluate(..., against=M): the other half of the seats play M, not the heuristic. The trained
    expert beats the untrained one (every weight 0: the first listed move); the untrained one loses
    to it by the same games' margin."""
    from engines.core.expert import load_model, zero_model
    from experiments.train import evaluate
    plan = TrainPlan("cityline", players=2, seed=11, iterations=1, games=2, budget=2, eval_games=300)
    shipped = load_model(SPEC.expert.model_file, SPEC.expert.features)
    zero = zero_model(SPEC.expert.features)
    up = evaluate(SPEC, plan, shipped, against=zero)
    down = evaluate(SPEC, plan, zero, against=shipped)
    assert up["margin"] - 1.96 * up["margin_se"] > 0
    assert down["margin"] + 1.96 * down["margin_se"] < 0
    heuristic = evaluate(SPEC, plan, zero)
    assert heuristic["margin"] != down["margin"]   # against=None is the heuristic, another opponent


@pytest.mark.parametrize("table", ["self", "mixed"])
def test_a_self_tuned_training_is_reproducible_and_its_command_says_so(tmp_path, table):
    plan = TrainPlan("cityline", players=2, seed=3, iterations=1, games=2, budget=2, eval_games=20, tune_trials=2,
                     self_tune_trials=3, self_tune_table=table)
    a = train(plan, tmp_path / "a", log=lambda *_: None)
    b = train(plan, tmp_path / "b", log=lambda *_: None)
    assert a == b
    entry = a["iterations"][0]
    assert entry["self_tuned"]["trials"] == 3
    assert entry["self_tuned"]["against"] == {"self": "itself", "mixed": "itself and the heuristic"}[table]
    assert "tuned again against itself" in entry["fit"]
    assert plan.command().endswith("--tune-trials 2 --self-tune-trials 3"
                                   + {"self": "", "mixed": " --self-tune-table mixed"}[table])
    assert "--self-tune-trials" not in TrainPlan("cityline", tune_trials=2).command()
    # the model's recorded command, typed again, makes the same files
    import shlex

    from typer.testing import CliRunner

    from engines.core.expert import load_model
    from experiments.cli import app
    command = load_model(tmp_path / "a" / "expert.toml", SPEC.expert.features).command
    assert command == plan.command()
    result = CliRunner().invoke(app, shlex.split(command)[1:] + ["--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    for name in ("train.json", "model_000.toml", "expert.toml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "c" / name).read_bytes(), name
    with pytest.raises(TrainError, match="self_tune_trials"):
        TrainPlan("cityline", self_tune_trials=-1).check()
    with pytest.raises(TrainError, match="self_tune_table must be one of self, mixed, not 'field'"):
        TrainPlan("cityline", self_tune_trials=1, self_tune_table="field").check()
    with pytest.raises(TrainError, match="give self_tune_trials too"):   # else a command with a no-op option
        TrainPlan("cityline", self_tune_table="mixed").check()


def exploit_world(best: np.ndarray, calls: list, se: float = 0.0):
    """A stand-in for evaluate() where a row can learn to exploit one opponent: its strength is
    highest at `best`, and weight 4 is a trick that wins 2 points a unit against the weights it
    starts from (which fall for it) and loses 3 a unit against the heuristic (which punishes it).
    `mixed`: the two opponents in equal share."""
    def strength(w):
        return -float(((np.asarray(w) - best) ** 2).sum())

    def evaluate(spec, plan, model, against=None, mixed=False):
        calls.append((plan.seed, None if against is None else tuple(against.weights), mixed))
        w = np.asarray(model.weights)
        vs_start = strength(w) - strength(against.weights) + 2.0 * (w[4] - against.weights[4])
        vs_heuristic = strength(w) - 3.0 * w[4]
        margin = 0.5 * (vs_start + vs_heuristic) if mixed else vs_start
        return {"margin": margin, "margin_se": se}
    return evaluate


def test_tuning_against_itself_alone_learns_an_exploit_that_the_mixed_table_refuses():
    """Against its start only, the tuning learns the trick its start falls for (weight 4 up); with
    the heuristic at half the opponents' seats the trick loses, and the row moves towards the
    better play instead (weight 3 towards 0.8, weight 4 not up)."""
    best = np.zeros(N)
    best[3] = 0.8
    moved = {}
    for table in ("self", "mixed"):
        calls = []
        plan = TrainPlan("cityline", players=2, seed=5, iterations=1, games=2, budget=2, eval_games=20, tune_trials=1,
                         self_tune_trials=60, self_tune_table=table)
        w, tuned, ev = tune_by_play(SPEC, plan, np.zeros(N), two_features(), 0, evaluate_fn=exploit_world(best, calls),
                                    against_self=True)
        assert {(a, m) for _, a, m in calls} == {(tuple(np.zeros(N)), table == "mixed")}
        assert tuned["kept"]
        moved[table] = w
        if table == "mixed":
            assert tuned["against"] == "itself and the heuristic"
            # the start is judged against the same table, not taken as 0
            assert tuned["fitted_margin"] == exploit_world(best, [])(SPEC, plan, _zero_model(), _zero_model(), True)["margin"]
            assert ev["margin"] == tuned["tuned_margin"]
    assert moved["self"][4] > 0.5                                        # the exploit
    assert moved["mixed"][4] <= 0.1 and abs(moved["mixed"][3] - 0.8) < 0.4   # the better play


def _zero_model():
    from engines.core.expert import zero_model
    return zero_model(SPEC.expert.features)


def test_the_mixed_table_keeps_a_gain_only_when_the_difference_is_outside_its_noise():
    best = np.zeros(N)
    best[3] = 0.8
    plan = TrainPlan("cityline", players=2, seed=5, iterations=1, games=2, budget=2, eval_games=20, tune_trials=1,
                     self_tune_trials=20, self_tune_table="mixed")
    rows = []
    for se, kept in ((10.0, False), (1e-3, True)):
        w, tuned, _ = tune_by_play(SPEC, plan, np.zeros(N), two_features(), 0,
                                   evaluate_fn=exploit_world(best, [], se), against_self=True)
        gain = tuned["tuned_margin"] - tuned["fitted_margin"]
        assert gain > 0 and tuned["kept"] is kept
        assert tuned["tuned_margin_low"] == pytest.approx(gain - 1.96 * np.hypot(se, se))
        assert np.array_equal(w, np.zeros(N)) is not kept
        rows.append(tuned["tuned_weights"])
    # the best row is recorded whether kept or not (to be laddered): the same row both times
    assert rows[0] == rows[1] == list(w)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_mixed_table_seats_the_start_and_the_heuristic_in_every_cell(players, monkeypatch):
    """Real games: at every player count both opponents play (4 players: in one line-up, the two
    swapped in the second half of the games; 2 and 3: one in each half), and the cell's margin is
    the margin over all its games."""
    import experiments.train as tr
    from engines.core.expert import load_model
    model = load_model(SPEC.expert.model_file, SPEC.expert.features)
    start = _zero_model()
    cell = TrainPlan("cityline", players=players).cells()[0]
    seen = []
    play = tr._play_seats

    def spy(spec, cell, seat_models, seed, first, n):
        seen.append(([("expert" if m is model else "start" if m is start else "heuristic") for m in seat_models],
                     first, n))
        return play(spec, cell, seat_models, seed, first, n)
    monkeypatch.setattr(tr, "_play_seats", spy)
    mixed = tr._evaluate_cell(SPEC, cell, model, 7, 100, 41, start, mixed=True)
    assert [(f, n) for _, f, n in seen] == [(100, 21), (121, 20)]
    first, second = seen[0][0], seen[1][0]
    assert first[0::2] == second[0::2] == ["expert"] * len(first[0::2])
    opponents = first[1::2] + second[1::2]
    assert opponents.count("start") == opponents.count("heuristic") >= 1
    # the same games played one half at a time: the margin is the games' mean over both halves
    a = tr._evaluate_cell(SPEC, cell, model, 7, 100, 21, start) if players < 4 else None
    if a is not None:
        b = tr._evaluate_cell(SPEC, cell, model, 7, 121, 20, None)
        assert mixed["margin"] == pytest.approx((21 * a["margin"] + 20 * b["margin"]) / 41)
    # and without `mixed` nothing changes: one line-up, every game
    seen.clear()
    tr._evaluate_cell(SPEC, cell, model, 7, 100, 41, start)
    assert [(f, n) for _, f, n in seen] == [(100, 41)] and "heuristic" not in seen[0][0]


def test_the_tuning_against_itself_may_play_some_player_counts_only():
    """--self-tune-players 4: step 3b's tuning and its judging at 4 players only; the plan keeps
    its counts (step 4 judges at all), and the command says so."""
    seen = []

    def judge(spec, plan, model, against=None, mixed=False):
        seen.append(plan.players)
        return {"margin": 0.0, "margin_se": 1.0}
    plan = TrainPlan("cityline", players=(2, 3, 4), seed=5, iterations=1, games=2, budget=2, eval_games=20,
                     tune_trials=1, self_tune_trials=3, self_tune_table="mixed", self_tune_players=[4])
    plan.check()
    tune_by_play(SPEC, plan, np.zeros(N), two_features(), 0, evaluate_fn=judge, against_self=True)
    assert set(seen) == {(4,)} and len(seen) == 3 + 2
    assert plan.players == (2, 3, 4)
    assert plan.command().endswith("--self-tune-table mixed --self-tune-players 4")
    seen.clear()
    tune_by_play(SPEC, replace(plan, self_tune_players=()), np.zeros(N), two_features(), 0, evaluate_fn=judge,
                 against_self=True)
    assert set(seen) == {(2, 3, 4)}
    with pytest.raises(TrainError, match=r"self_tune_players must be some of the players \(2,3,4\), not 5"):
        replace(plan, self_tune_players=(5,)).check()


def _noisy_world(gain: float, se: float, rng: np.random.Generator):
    """A world of known truth for step 3b's keep rule: a row's true margin is `gain` over its start
    when its weight 3 is above 0.2 (most rows TPE tries), else the start's; every evaluation adds
    its own noise of standard error `se` (the tuning's best row is the luckiest of its trials)."""
    def true(w):
        return gain if w[3] > 0.2 else 0.0

    def evaluate(spec, plan, model, against=None, mixed=False):
        w = np.asarray(model.weights)
        if mixed:   # the row against the table: its own strength (the table's is the same for all)
            margin = true(w)
        else:       # against its start: the difference
            margin = true(w) - true(np.asarray(against.weights))
        return {"margin": margin + rng.normal(0.0, se), "margin_se": se}
    return evaluate


@pytest.mark.parametrize("table", ["self", "mixed"])
def test_step_3b_keeps_a_row_that_is_no_better_at_most_5_percent_of_the_time(table):
    """'kept' is a claim that the row beats its start. Where no row does (gain 0), it is made in at
    most 5% of trainings (the rule's 95% interval on evaluation games the tuning never saw: about
    2.5% expected); where the best rows are better by 4 standard errors, most of the time."""
    plan = TrainPlan("cityline", players=2, seed=5, iterations=1, games=2, budget=2, eval_games=20, tune_trials=1,
                     self_tune_trials=4, self_tune_table=table)
    rng = np.random.default_rng(2026)
    reps = 300
    rates = {}
    for gain in (0.0, 4.0):
        kept = 0
        for _ in range(reps):
            _, tuned, _ = tune_by_play(SPEC, plan, np.zeros(N), two_features(), 0,
                                       evaluate_fn=_noisy_world(gain, 1.0, rng), against_self=True)
            kept += tuned["kept"]
        rates[gain] = kept / reps
    assert rates[0.0] <= 0.05, rates
    assert rates[4.0] >= (0.9 if table == "self" else 0.6), rates


# one rule change per game for the ladder commands' test: a --set, or (Project Skyline) a --mix
RULE_CHANGE = {"skyline_3000": ("set", "scoring.megamall_multiplier=3"), "cityline": ("set", "sky.sun_bonus=4"),
               "skyline_of_the_world": ("set", 'supply.pool="shared"'), "project_skyline": ("mix", "map=tokyo")}


@pytest.mark.parametrize("game", sorted(RULE_CHANGE))
def test_the_ladders_that_weigh_a_trained_model_are_ladders_of_its_rules(game):
    """train --preset NAME prints one ladder per setting the model learned (every mix at every
    player count, on the plan's --set), and each is a ladder the command plays: its rungs and
    rules pass plan_ladder's checks, the preset and the shipped expert among the rungs."""
    import shlex

    from engines.core.variant import parse_override
    from experiments.ladder import plan_ladder
    from experiments.train import ladder_commands

    kind, change = RULE_CHANGE[game]
    plan = TrainPlan(game, (2, 3), sets=(change,) if kind == "set" else (), mixes=(change,) if kind == "mix" else ())
    commands = ladder_commands(plan, "mine")
    assert [shlex.split(c)[:5] for c in commands] == [["skyline-lab", "ladder", game, "-p", p] for p in ("2", "3")]
    for command in commands:
        words = shlex.split(command)[3:]
        opts: dict[str, list[str]] = {}
        for flag, value in zip(words[::2], words[1::2]):
            opts.setdefault(flag, []).append(value)
        assert opts["--set"] == [change] and opts["--rung"][1:3] == ["expert", "mine"]
        lad = plan_ladder(game, players=int(opts["-p"][0]), rungs=[r for r in opts["--rung"] if r != "mine"],
                          overrides=dict(parse_override(s) for s in opts["--set"]))
        assert lad.overrides == (parse_override(change),)


def test_the_cli_default_tune_range_is_the_trainers():
    """The CLI keeps its defaults as literals (it does not import the trainer at start-up): its
    --tune-range must still be TUNE_RANGE, or a plain `train` would write --tune-range into every
    model's command."""
    import typer.main

    from experiments.cli import app
    train_cmd = typer.main.get_command(app).commands["train"]
    assert {p.name: p.default for p in train_cmd.params}["tune_range"] == TUNE_RANGE
