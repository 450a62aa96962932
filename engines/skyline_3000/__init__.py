"""Skyline 3000 (Moon & Weissblum): rule engine, variants, policies, search
adapter, result columns and render; the batch loop, the step-by-step API and the
search glue are the core's (engines.core.adapter), built from ENGINE (engine.py). What the rulebook leaves
open is played as data: variants/default.toml, one comment per rule choice.

Importing this package loads the jitted kernels lazily: `SPEC` is cheap to
build; `simulate` and `new_game` import the kernels on first call.
"""
from __future__ import annotations

from pathlib import Path

from engines.core import cache_guard

SOURCE_DIGEST = cache_guard.check(Path(__file__).parent)

from engines.core.expert import EXPERT_FILE, ExpertSpec  # noqa: E402
from engines.core.spec import BenchmarkCase, GameSpec, TieBreak, TurnOrder, one_search_seat_case  # noqa: E402
from engines.skyline_3000.features import FEATURES  # noqa: E402
from engines.skyline_3000.state import MAX_ACTIONS  # noqa: E402
from engines.skyline_3000.params import VARIANTS, kernel_params  # noqa: E402
from engines.skyline_3000.tables import CARD_TYPE_NAMES, ITEM_NAMES, TABLES, TIE_BREAK_NAMES  # noqa: E402

ENGINE_VERSION = "1.0.0"


def simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count):
    """The core's batch run (engines.core.adapter Engine.simulate) over ENGINE (imported on first use)."""
    from engines.skyline_3000.engine import ENGINE
    return ENGINE.simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count)


def __getattr__(name):
    """ENGINE (engines.skyline_3000.engine), imported on first use."""
    if name == "ENGINE":
        from engines.skyline_3000.engine import ENGINE
        return ENGINE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def new_game(variant=None, n_players=None, seed=0, game_index=0, overrides=None):
    """The core's step API (engines.core.adapter Engine.new_game) over ENGINE (imported on first
    use): game `game_index` of run `seed`, at the variant's player count unless n_players."""
    from engines.skyline_3000.engine import ENGINE
    return ENGINE.new_game(variant, n_players, seed, game_index, overrides)


def _policies():
    from engines.skyline_3000.policies import POLICIES
    return POLICIES


def _afterstate_nb(d, cfg, aux, a, prng, out):
    """search.afterstate_nb (the expert's kernels), imported on first use: SPEC stays cheap."""
    from engines.skyline_3000.search import afterstate_nb
    return afterstate_nb(d, cfg, aux, a, prng, out)


def _choices_nb(d, cfg, aux, prng, legal, out):
    """search.choices_nb, imported on first use."""
    from engines.skyline_3000.search import choices_nb
    return choices_nb(d, cfg, aux, prng, legal, out)


SPEC = GameSpec(
    game_id="skyline_3000",
    title="Skyline 3000",
    engine_version=ENGINE_VERSION,
    min_players=2,
    max_players=4,
    default_players=4,
    variants=VARIANTS,
    policies=_policies(),
    tables=TABLES,
    kernel_params=kernel_params,
    simulate=simulate,
    new_game=new_game,
    # heuristic's 10 weights (jitter and billboard_card_points included); a search player's row is as wide as it needs
    max_weights=10,
    default_lineup=("heuristic", "greedy", "random", "random"),
    # the round-1 Key Player builds first in round 1 (rulebook: the Key Player starts the Construction
    # Phase; the Key passes clockwise after each round, so position k builds first in round k + 1)
    turn_order=TurnOrder("games.first_key", "the round-1 Key Player builds first in round 1"),
    tie_break=TieBreak(level_on_points="points_tied", decided="tie_break_decided"),
    labels={"item": ITEM_NAMES, "tie_break": TIE_BREAK_NAMES, "card_type": CARD_TYPE_NAMES},
    # the C program plays the six-platform board: the ratio to C is measured on that board
    benchmark=(BenchmarkCase(4, "random", 20_000, c_reference="skyline", c_games=200_000, variant="six_platforms"),
               BenchmarkCase(4, "random", 20_000), BenchmarkCase(4, "greedy", 10_000),
               BenchmarkCase(4, "heuristic", 10_000), BenchmarkCase(2, "random", 20_000),
               # the learned expert's speed (issue 27's goal: 1,000 four-player games/s per core)
               BenchmarkCase(4, "expert", 2_000),
               # the search player's cost, and issue 12's goal: one search(400) seat vs three heuristic
               BenchmarkCase(4, "search(iterations=100)", 4),
               one_search_seat_case(8)),
    # search rungs roll out the heuristic (sequential halving); 40 games a table: heuristic over
    # greedy 0.82, search(20) over heuristic 0.75, search(100) over search(20) 0.65 head to head.
    # The learned expert sits between the heuristic and search(20): one 4-seat table of greedy,
    # heuristic, expert and search(20), 400 games, ratings -1.66, -0.04, 0.26 [0.17, 0.39] and 1.44,
    # the expert ahead of the heuristic in 0.586 [0.538, 0.635] of games (skyline-lab ladder
    # skyline_3000 --rung greedy --rung heuristic --rung expert --rung "search(iterations=20,
    # rollout=heuristic)" -n 400 --findings-games 100 -j 1). It takes random's place (greedy stays
    # the weak end): five rungs keep the default ladder at 5 tables of 4 seats, not 15.
    ladder=("greedy", "heuristic", "expert", "search(iterations=20, rollout=heuristic)",
            "search(iterations=100, rollout=heuristic)"),
    ladder_players=4,
    ladder_games=160,
    ladder_findings_games=80,
    source_digest=SOURCE_DIGEST,
    expert=ExpertSpec(FEATURES, Path(__file__).parent / EXPERT_FILE, _afterstate_nb, _choices_nb, MAX_ACTIONS),
)
