"""The README's recipe for a new game, proven with the toy game `coin`: an
engine module (coingame.py), an analysis module (coin_analysis.py, installed
as analysis.coin) and one registration line (conftest.py) are all it takes;
the runner, the report, the metrics and the benchmark then work on it with
no other edit."""
import sys

import polars as pl
import pytest

from analysis import metrics as M
from analysis.report import build_report
from engines import registry
from experiments import benchmark
from experiments.runner import run_batch


def test_registered_by_one_line():
    assert "coin" in registry.game_ids()
    assert registry.get_game("coin").title == "Coin"


def test_runner_and_report_work_on_it(tmp_path):
    run = run_batch("coin", players=3, policies=["strong", "random", "random"], n_games=300, seed=4,
                    out=tmp_path / "run", progress=False)
    assert run.manifest["games_done"] == 300
    report = build_report(run.path).read_text()
    for title in ("Win rate by seat", "Victory margin", "Ties and shared wins", "Game length and stalls"):
        assert title in report, title
    # coin declares no tie-break: the tie section has the shared-win row only
    assert "winner decided by tie-break" not in report
    assert "Skipped: no report module `analysis.coin`" in report  # its analysis module has metrics only


def test_metrics_come_from_the_declaration_and_the_analysis_module(tmp_path):
    run = run_batch("coin", players=3, n_games=200, seed=2, out=tmp_path / "run", progress=False)
    names = M.metrics_for("coin")
    assert set(M.GENERIC) < set(names) and {"first_builder_win_rate", "first_builder_edge"} <= set(names)
    data = M.RunData(run.path, 200)
    # turn order is declared (games.first_key): the 1st seat is the Key, so its win rate is the Key Player's
    first = M.seat_win_rate(data).filter(pl.col("key") == "1st").sort("game")["value"]
    key = names["first_builder_win_rate"].compute(data).sort("game")["value"]
    assert first.to_list() == key.to_list()


def test_without_an_analysis_module_the_game_gets_generic_metrics(monkeypatch):
    monkeypatch.delitem(sys.modules, "analysis.coin")
    assert set(M.metrics_for("coin")) == set(M.GENERIC)


def test_the_benchmark_iterates_the_registry():
    cases = [(game, case.players, case.policy) for game, case in benchmark.plan()]
    assert ("coin", 3, "random") in cases
    assert {game for game, *_ in cases} == set(registry.game_ids())


def test_every_benchmark_case_names_a_variant_its_game_ships():
    for game, case in benchmark.plan():
        if case.variant:
            registry.get_game(game).variants.load(case.variant)   # raises when it does not exist
    assert any(case.variant == "six_platforms" and case.c_reference for _, case in benchmark.plan())


def test_default_lineup_is_declared():
    spec = registry.get_game("coin")
    assert spec.default_policies(None) == ["strong", "greedy", "random"]
    assert spec.default_policies(2) == ["strong", "greedy"]
    assert registry.get_game("skyline_3000").default_policies(3) == ["heuristic", "greedy", "random"]
    assert registry.get_game("cityline").default_policies(4) == ["heuristic", "greedy", "random", "random"]


@pytest.mark.parametrize("game_id", ["skyline_3000", "cityline"])
def test_shipped_games_have_their_analysis_module(game_id):
    from analysis.plugins import game_module

    module = game_module(game_id)
    assert module is not None and hasattr(module, "sections") and hasattr(module, "METRICS")


def test_the_toy_game_is_built_on_the_engine_adapter():
    """Coin declares its kernels and tables only: the core's adapter builds its batch loop and its
    step Game, and a step game played with each seat's policy replays the batch game exactly."""
    import coingame
    from engines.core.adapter import Engine
    from engines.core.lineup import make_lineup

    spec = coingame.SPEC
    assert isinstance(coingame.ENGINE, Engine)
    assert spec.simulate == coingame.ENGINE.simulate and spec.new_game == coingame.ENGINE.new_game
    policies = ["strong", "greedy", "random"]
    kp = spec.kernel_params(spec.variants.load("tight"), 3)
    lineup = make_lineup(spec, policies, 3, True)
    tables = spec.simulate(kp, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 7, 0, 6)
    for gi in range(6):
        game = spec.new_game("tight", 3, seed=7, game_index=gi)
        decisions = 0
        while not game.is_over():
            seat = game.current_player()
            game.apply(game.policy_action(policies[(seat + gi) % 3]))
            decisions += 1
        assert game.scores() == tables["players"]["score"][3 * gi:3 * gi + 3].tolist()
        assert decisions == tables["games"]["decisions"][gi]
