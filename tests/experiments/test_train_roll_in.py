"""`skyline-lab train --roll-in expert` (DAgger): after the first iteration the best expert so far
plays the recorded games and the search, rolling out the heuristic, only labels each decision."""
from __future__ import annotations

import shlex

import numpy as np
import pytest
from typer.testing import CliRunner

from engines.core.expert import load_model
from engines.registry import get_game
from experiments.cli import app
from experiments.train import TrainError, TrainPlan, _same_plan, play_and_record, train

SPEC = get_game("cityline")


class _SpyGame:
    """A game that notes every policy asked (its text, its answer) and every action applied."""

    def __init__(self, game, log):
        self.game, self.log = game, log

    def __getattr__(self, name):
        return getattr(self.game, name)

    def policy_action(self, name, weights=None):
        a = self.game.policy_action(name, weights=weights)
        self.log.append(("ask", name, a))
        return a

    def apply(self, a):
        self.log.append(("apply", None, a))
        self.game.apply(a)


class _SpySpec:
    def __init__(self, spec):
        self.spec, self.log = spec, []

    def __getattr__(self, name):
        return getattr(self.spec, name)

    def new_game(self, variant, n_players, seed, game_index):
        return _SpyGame(self.spec.new_game(variant, n_players, seed, game_index), self.log)


def _trained_model(tmp_path):
    plan = TrainPlan("cityline", players=2, seed=3, iterations=1, games=2, budget=2, eval_games=10)
    train(plan, tmp_path / "m", log=lambda *_: None)
    return load_model(tmp_path / "m" / "expert.toml", SPEC.expert.features)


def test_the_expert_plays_and_the_search_rolling_out_the_heuristic_labels(tmp_path):
    model = _trained_model(tmp_path)
    plan = TrainPlan("cityline", players=2, seed=3, iterations=2, games=2, budget=2, eval_games=10, roll_in="expert")
    spy = _SpySpec(SPEC)
    tables = play_and_record(spy, plan, 1, model)
    asks = [e for e in spy.log if e[0] == "ask"]
    applied = [e[2] for e in spy.log if e[0] == "apply"]
    # two questions a decision: the search (the label), then the expert (the move played)
    assert len(asks) == 2 * len(applied) > 0
    searches, experts = asks[0::2], asks[1::2]
    assert {name for _, name, _ in searches} == {"search(iterations=2, rollout=heuristic)"}
    assert {name for _, name, _ in experts} == {SPEC.expert.policy}
    assert [a for _, _, a in experts] == applied
    # the choice tables mark the search's label, which differs from the move played somewhere
    # (else this test could not tell the two apart)
    labels = np.array([a for _, _, a in searches])
    assert (labels != np.array(applied)).any()
    assert len(tables["y"]) == len(applied)


class _NotingExpert:
    """The game's expert spec, noting the candidates of every decision the trainer tabulates."""

    def __init__(self, expert):
        self.expert, self.seen = expert, []

    def __getattr__(self, name):
        return getattr(self.expert, name)

    def choices(self, g, rec):
        legal, feats = self.expert.choices(g, rec)
        self.seen.append(legal.copy())
        return legal, feats


def test_the_choice_rows_mark_the_search_label_not_the_move_played(tmp_path):
    """Replayed, every recorded decision's chosen row is the candidate the search picked."""
    model = _trained_model(tmp_path)
    plan = TrainPlan("cityline", players=2, seed=3, iterations=2, games=1, budget=2, eval_games=10, roll_in="expert")
    spy = _SpySpec(SPEC)
    spy.expert = _NotingExpert(SPEC.expert)
    seen = spy.expert.seen
    tables = play_and_record(spy, plan, 1, model)
    labels = [a for kind, name, a in spy.log if kind == "ask" and name.startswith("search")]
    marked = []
    for legal, label in zip(seen, labels):
        hit = np.flatnonzero(legal == label)
        if len(legal) > 1 and len(hit) == 1:
            marked.append(int(hit[0]))
    assert len(marked) == len(tables["chosen"]) > 0
    assert (tables["chosen"] - tables["start"] == np.array(marked)).all()


def test_the_first_iteration_is_the_search_games_either_way(tmp_path):
    """Iteration 0 has no expert yet: its tables are the plain training's, to the byte, and so is
    its model (the shipped models' commands still reproduce them)."""
    kw = dict(players=2, seed=3, iterations=1, games=2, budget=2, eval_games=10)
    train(TrainPlan("cityline", **kw), tmp_path / "a", log=lambda *_: None)
    train(TrainPlan("cityline", **kw, roll_in="expert"), tmp_path / "b", log=lambda *_: None)
    for name in ("data_000.npz",):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_rolled_in_training_is_reproducible_from_its_command(tmp_path):
    plan = TrainPlan("cityline", players=2, seed=3, iterations=2, games=2, budget=2, eval_games=10, roll_in="expert")
    a = train(plan, tmp_path / "a", log=lambda *_: None)
    assert [e["played_by"] for e in a["iterations"]] == ["search", "expert of iteration 0"]
    assert [e["rollout"] for e in a["iterations"]] == ["heuristic", "heuristic"]
    assert "of 2 search games" in a["iterations"][0]["fit"]
    assert "of 4 games (2 of them played by the expert, the search labelling)" in a["iterations"][1]["fit"]
    command = load_model(tmp_path / "a" / "model_000.toml", SPEC.expert.features).command
    assert command == plan.command() and command.endswith("--roll-in expert")
    result = CliRunner().invoke(app, shlex.split(command)[1:] + ["--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "a").iterdir() if p.suffix in (".npz", ".toml", ".json"))
    assert "data_001.npz" in names
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_a_folder_of_search_roll_ins_is_another_plan(tmp_path):
    kw = dict(players=2, seed=3, iterations=1, games=1, budget=2, eval_games=10)
    train(TrainPlan("cityline", **kw), tmp_path / "a", log=lambda *_: None)
    with pytest.raises(TrainError, match="another plan"):
        train(TrainPlan("cityline", **kw, roll_in="expert"), tmp_path / "a", log=lambda *_: None)
    # a manifest written before the option is the default plan
    old = {"game": "cityline", "players": [2], "seed": 3, "iterations": 1, "games": 1, "budget": 2,
           "eval_games": 10, "ridge": 0.001, "target": "choice"}
    assert _same_plan(old, TrainPlan("cityline", **kw))


def test_an_unknown_roll_in_is_refused():
    """(The command line's refusal: tests/core/test_cli_strict.py.)"""
    with pytest.raises(TrainError, match="roll_in must be one of search, expert"):
        TrainPlan("cityline", players=2, roll_in="greedy").check()
