"""experiments.benchmark times games as a run plays them: in calls of the runner's chunk size,
the same games as one call would play."""
import dataclasses

import numpy as np

import engines.registry
from engines.core.lineup import make_lineup
from engines.registry import get_game
from experiments import benchmark
from experiments.runner import default_chunk_size


def test_the_timer_plays_the_games_of_one_call_in_run_sized_chunks(monkeypatch):
    spec = get_game("cityline")
    n = 5_000   # default_chunk_size: 312 games a call, the last one shorter
    calls = []
    simulate = spec.simulate

    def recording(kp, ids, w, rotate, seed, start, count):
        calls.append((seed, start, count))
        return simulate(kp, ids, w, rotate, seed, start, count)

    recorded = dataclasses.replace(spec, simulate=recording)
    monkeypatch.setattr(engines.registry, "get_game", lambda game: recorded)
    timed_call = benchmark.simulation_timer("cityline", 1, "random", n, warm_full_size=False)
    calls.clear()
    seconds, decisions, simulated = timed_call()
    chunk = default_chunk_size(n)
    assert chunk < n
    assert [c[2] for c in calls] == [chunk] * (n // chunk) + [n % chunk]
    assert [c[1] for c in calls] == list(range(0, n, chunk)) and {c[0] for c in calls} == {1}
    assert seconds > 0 and simulated == 0
    lineup = make_lineup(spec, ["random"], 1, True)
    whole = simulate(spec.kernel_params(spec.variants.load(None), 1), lineup.policy_ids(),
                     lineup.weight_rows(spec.max_weights), True, 1, 0, n)["games"]
    assert decisions == np.mean(whole["decisions"])
    calls.clear()
    timed_call()   # the next call plays the next n games
    assert calls[0][1] == n and sum(c[2] for c in calls) == n


def test_the_plan_can_be_narrowed_to_games_and_policies():
    """`--game` and `--policy` keep only the named cases: every game's learned expert has one."""
    experts = benchmark.plan(policies=["expert"])
    shipping = [g for g in engines.registry.game_ids() if get_game(g).expert is not None]
    assert len(shipping) >= 4 and sorted(g for g, _ in experts) == sorted(shipping)
    assert all(case.policy == "expert" for _, case in experts)
    assert {g for g, _ in benchmark.plan(games=["cityline"])} == {"cityline"}
    assert benchmark.plan(games=["cityline"], policies=["search"]) == [
        ("cityline", c) for c in get_game("cityline").benchmark if c.policy.startswith("search")]
    assert len(benchmark.plan()) > len(experts)
