"""Project Skyline: a deckbuilder with map area control (2-4 players), cards and maps as data.

Layout: cards/*.toml and maps/*.toml (validated data, params.py), params.py (variant schema ->
KernelParams), state.py (flat state vector), rules.py (rule kernels, one per decision kind),
policies.py, search.py (how a seat decides, what it cannot see, the final scores), columns.py
(the card events and rounds records and the result columns), render.py, tables.py. The batch
loop, the step API and the search glue are the core's (engines.core.adapter), built from ENGINE
below.
"""
from pathlib import Path

from engines.core import cache_guard

SOURCE_DIGEST = cache_guard.check(Path(__file__).parent)  # before any kernel module is imported

from engines.core.adapter import Engine, Game  # noqa: E402
from engines.core.expert import EXPERT_FILE, ExpertSpec  # noqa: E402
from engines.core.spec import BenchmarkCase, GameSpec, one_search_seat_case  # noqa: E402
from engines.project_skyline import columns, rules, search  # noqa: E402
from engines.project_skyline.features import FEATURES  # noqa: E402
from engines.project_skyline.params import MAP_NAMES, MAX_PLAYERS, VARIANTS, KernelParams, kernel_params  # noqa: E402
from engines.project_skyline.policies import N_WEIGHTS, POLICIES, ROW_WIDTH, SEARCH  # noqa: E402
from engines.project_skyline.render import action_name, render  # noqa: E402
from engines.project_skyline.state import M_NPLAYERS, M_PHASE, PHASE_NAMES, n_data  # noqa: E402
from engines.project_skyline.tables import DTYPES, TABLES  # noqa: E402

ENGINE = Engine(
    name="project_skyline", game_file=__file__, module=__name__, tables=TABLES, dtypes=DTYPES,
    records="card_events", wide=(), side="rounds", side_rows_per_game=columns.rounds_per_game,
    extra_columns=columns.extra_columns, policies=POLICIES, search_id=SEARCH, lookahead_ids=(SEARCH,),
    max_actions=search.MAX_ACTIONS, max_players=MAX_PLAYERS, work_width=search.WORK_WIDTH,
    n_players_slot=M_NPLAYERS, variants=VARIANTS, kernel_params=kernel_params,
    aux="cfg",   # no float table: the policies read the rule vector only
    default_players=4, weight_width=ROW_WIDTH, state_size=n_data, rows_per_game=columns.rows_per_game,
    phase=lambda data: PHASE_NAMES[int(data[M_PHASE])],
    action_name=lambda g, a: action_name(g.state, g.kp, a),
    render=lambda g: render(g.state, g.kp),
    observe=lambda kp, st, p: rules.observe_nb(st.data, kp.cfg, p),
    # the money track during the game (the step API's scores; outcome_nb scores a capped rollout)
    scores=lambda g: [int(rules.score_of_nb(g.state.data, p)) for p in range(g.n_players)],
    kernels=dict(reset_nb=rules.reset_nb, legal_nb=rules.legal_nb, apply_nb=rules.apply_nb,
                 to_move_nb=search.to_move_nb, decide_nb=search.decide_nb, decide_scripted_nb=search.decide_nb,
                 decide_listed_nb=search.decide_listed_nb,
                 search_actions_nb=rules.legal_nb, determinize_nb=search.determinize_nb,
                 outcome_nb=search.outcome_nb, step_nb=columns.step_nb, finish_nb=columns.finish_nb,
                 side_nb=columns.round_nb))
simulate = ENGINE.simulate
new_game = ENGINE.new_game

ENGINE_VERSION = "0.1.0"

def variant_facts(values: dict) -> dict:
    """What the report needs from the variant's card file: the Basic cards' prices by code, and
    every card's name by printed code (an Upgrade card's four sets share one name: "U-17")."""
    from engines.project_skyline.params import load_cards

    cards = load_cards(values.get("cards", "standard"))
    return {"basic_prices": {c.code: c.price for c in cards if c.kind == 1},
            "card_names": {c.base: c.name for c in cards}}


SPEC = GameSpec(
    game_id="project_skyline",
    title="Project Skyline",
    engine_version=ENGINE_VERSION,
    min_players=2,
    max_players=MAX_PLAYERS,
    default_players=4,
    variants=VARIANTS,
    policies=POLICIES,
    tables=TABLES,
    kernel_params=kernel_params,
    simulate=simulate,
    new_game=new_game,
    max_weights=N_WEIGHTS,  # the heuristic's 8 knobs and its jitter
    default_lineup=("heuristic",),
    turn_order=None,  # seat 0 holds the start marker and moves first
    tie_break=None,   # level money goes to the most cards (inside `rank`), then a shared win
    labels={"map": MAP_NAMES},   # games.map: the index in the sorted list of maps/
    benchmark=(BenchmarkCase(4, "random", 5_000), BenchmarkCase(4, "greedy", 5_000),
               BenchmarkCase(4, "heuristic", 5_000), BenchmarkCase(2, "random", 5_000),
               # the learned expert's speed (issue 27; beside the heuristic's: it scores every candidate
               # of a decision on a determinized copy)
               BenchmarkCase(4, "expert", 2_000),
               # the search player's cost per simulated decision, and one search seat against three
               # heuristic players
               BenchmarkCase(4, "search(iterations=100, rollout=heuristic)", 2),
               one_search_seat_case(4)),
    # search rungs roll out the heuristic (sequential halving). Their head-to-head margins were
    # measured on the first maps and cards (77-space NYC, 78-space Tokyo, the first Basic cards)
    # and are not restated here: measure them on today's data with `skyline-lab ladder
    # project_skyline`. The learned expert (trained on both maps at 2-4 players, expert.toml; it scores
    # each candidate once the heuristic has finished the seat's turn in its sample, search.settle_nb)
    # is the strongest rung: at one 4-seat NYC table of heuristic, search(20), expert and search(100),
    # 200 games, ratings -1.51 [-1.74, -1.33], -0.29 [-0.49, -0.06], 1.20 [1.06, 1.37], 0.59
    # [0.43, 0.84] (search(100) ahead of the expert in 0.355 [0.288, 0.422] of games); `skyline-lab
    # ladder project_skyline --rung heuristic --rung "search(iterations=20, rollout=heuristic)" --rung
    # expert --rung "search(iterations=100, rollout=heuristic)" -p 4 -n 200 --findings-games 0 --seed 0`.
    # So the findings' verdicts count it as strong play, with the search rungs (strong_policies).
    ladder=("random", "greedy", "heuristic", "search(iterations=20, rollout=heuristic)",
            "search(iterations=100, rollout=heuristic)", "expert"),
    ladder_players=4,
    ladder_games=80,
    ladder_findings_games=40,
    strong_policies=("expert",),
    source_digest=SOURCE_DIGEST,
    variant_facts=variant_facts,
    expert=ExpertSpec(FEATURES, Path(__file__).parent / EXPERT_FILE, search.afterstate_nb, search.choices_nb,
                      search.MAX_ACTIONS),
)

__all__ = ["SPEC", "ENGINE_VERSION", "SOURCE_DIGEST", "Game", "KernelParams", "new_game", "kernel_params", "simulate"]
