"""Project Skyline: a deckbuilder with map area control (2-4 players), cards and maps as data.

Layout: cards/*.toml and maps/*.toml (validated data, params.py), params.py (variant schema ->
KernelParams), state.py (flat state vector), rules.py (rule kernels, one per decision kind),
policies.py, batch.py (simulate), game.py (step API), render.py, tables.py.
"""
from pathlib import Path

from engines.core import cache_guard

cache_guard.check(Path(__file__).parent)  # before any kernel module is imported

from engines.core.spec import GameSpec  # noqa: E402
from engines.project_skyline.batch import simulate  # noqa: E402
from engines.project_skyline.game import Game, new_game  # noqa: E402
from engines.project_skyline.params import MAX_PLAYERS, VARIANTS, KernelParams, kernel_params  # noqa: E402
from engines.project_skyline.policies import POLICIES  # noqa: E402
from engines.project_skyline.tables import TABLES  # noqa: E402

ENGINE_VERSION = "0.1.0"

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
    report="analysis.project_skyline",
)

__all__ = ["SPEC", "ENGINE_VERSION", "Game", "KernelParams", "new_game", "kernel_params", "simulate"]
