"""Cityline: the roll-and-write city builder (solo, or 2-6 players sharing the dice).

Rulebook: Cityline; its open points and our defaults are rule choices in
variants/default.toml (one comment each). Layout: params.py (variant schema -> KernelParams), state.py
(flat state vector), rules.py (rule kernels), policies.py, search.py (how a seat decides, what it
cannot see, the final scores), columns.py (the decisions record and the result columns),
render.py, tables.py. The batch loop, the step API and the search glue are the core's
(engines.core.adapter), built from ENGINE below.
"""
from pathlib import Path

from engines.core import cache_guard

SOURCE_DIGEST = cache_guard.check(Path(__file__).parent)  # before any kernel module is imported

from engines.cityline import columns, rules, search  # noqa: E402
from engines.cityline.params import MAX_PLAYERS, VARIANTS, KernelParams, kernel_params, roof_names
from engines.cityline.policies import EXPERT, POLICIES, SEARCH, STRONG
from engines.cityline.render import action_name, render
from engines.cityline.state import M_NPLAYERS, PHASE_NAMES, M_PHASE, n_data
from engines.cityline.tables import DTYPES, SKY_NAMES, TABLES
from engines.cityline.features import FEATURES
from engines.core.adapter import Engine, Game
from engines.core.expert import EXPERT_FILE, ExpertSpec
from engines.core.spec import BenchmarkCase, GameSpec, one_search_seat_case

ENGINE = Engine(
    name="cityline", game_file=__file__, module=__name__, tables=TABLES, dtypes=DTYPES, records="decisions",
    wide=columns.WIDE, policies=POLICIES, search_id=SEARCH, lookahead_ids=(SEARCH, STRONG, EXPERT),
    max_actions=search.MAX_ACTIONS, max_players=MAX_PLAYERS, work_width=search.WORK_WIDTH,
    n_players_slot=M_NPLAYERS, variants=VARIANTS, kernel_params=kernel_params, aux="fill", default_players=1,
    state_size=n_data, rows_per_game=columns.rows_per_game,
    phase=lambda data: PHASE_NAMES[int(data[M_PHASE])],
    action_name=lambda g, a: action_name(g.state, a, roof_names(g.variant)),
    render=lambda g: render(g.state, g.kp, roof_names(g.variant)),
    observe=lambda kp, st, p: rules.observe_nb(st, kp, p),
    kernels=dict(reset_nb=rules.reset_nb, legal_nb=rules.legal_nb, apply_nb=rules.apply_nb,
                 to_move_nb=search.to_move_nb, decide_nb=search.decide_nb,
                 decide_scripted_nb=search.decide_scripted_nb, decide_listed_nb=search.decide_listed_nb,
                 decide_scripted_listed_nb=search.decide_scripted_listed_nb, search_actions_nb=search.search_actions_nb,
                 determinize_nb=search.determinize_nb, outcome_nb=search.outcome_nb, step_nb=columns.step_nb,
                 finish_nb=columns.finish_nb))
simulate = ENGINE.simulate
new_game = ENGINE.new_game

ENGINE_VERSION = "1.0.0"

SPEC = GameSpec(
    game_id="cityline",
    title="Cityline",
    engine_version=ENGINE_VERSION,
    min_players=1,
    max_players=MAX_PLAYERS,
    default_players=4,
    variants=VARIANTS,
    policies=POLICIES,
    tables=TABLES,
    kernel_params=kernel_params,
    simulate=simulate,
    new_game=new_game,
    # a real table by default (a solo random player's report had one finding: a stall rate of 0)
    default_lineup=("heuristic", "greedy", "random", "random"),
    turn_order=None,   # seat 0 is the starting player
    tie_break=None,    # no tie-break columns: a level top score is shared, or ordered by scoring.tie_break
    labels={"sky": SKY_NAMES},
    benchmark=(BenchmarkCase(1, "random", 400_000, c_reference="cityline",
                             c_games=2_000_000), BenchmarkCase(1, "greedy", 100_000),
               BenchmarkCase(1, "heuristic", 100_000), BenchmarkCase(1, "strong", 200),
               BenchmarkCase(4, "random", 100_000),
               # the learned expert's speed (issue 27's goal: 1,000 four-player games/s per core)
               BenchmarkCase(4, "expert", 20_000),
               # the search player's cost (experiments/benchmark.py prints ns per simulated decision)
               BenchmarkCase(1, "search(iterations=400)", 40),
               one_search_seat_case(8)),
    source_digest=SOURCE_DIGEST,
    # shared dice and no interaction between sheets: one five-seat table holds every rung, each
    # game is one full finishing order of the five. The search rungs roll out the heuristic
    # (sequential halving). Its strength flattens out: measured over the heuristic (Plackett-Luce,
    # 800-1,300 games of mixed five-seat tables) about +0.0 at 25 play-outs a decision, +0.1 at 50
    # to 150, +0.26 at 200, +0.35 at 1,000, and no more beyond (3,200 against 400: head to head
    # 0.49 [0.44, 0.54] over 400 games). 200 and 1,000 were too close to tell apart in 2,000 games
    # (0.081 [-0.004, 0.154]); 100 and 1,000 split the climb in two, 3,000 games pin each step
    ladder=("random", "greedy", "heuristic", "search(iterations=100, rollout=heuristic)",
            "search(iterations=1000, rollout=heuristic)"),
    ladder_players=5,
    ladder_games=3000,
    ladder_findings_games=200,
    expert=ExpertSpec(FEATURES, Path(__file__).parent / EXPERT_FILE, search.afterstate_nb, search.choices_nb,
                      search.MAX_ACTIONS),
)

__all__ = ["SPEC", "ENGINE_VERSION", "SOURCE_DIGEST", "Game", "KernelParams", "new_game", "kernel_params", "simulate"]
