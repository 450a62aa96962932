"""Skyline of the World: build floors on a shared grid, earn income from your largest connected
group of top floors, pay fees to the owner below, build penthouses for prestige; the third
penthouse ends the game after the round.

Layout: params.py (variant schema -> KernelParams), state.py (flat state vector), rules.py
(rule kernels, one per decision kind), policies.py, batch.py (simulate), game.py (step API),
render.py, tables.py, variants/ (default.toml documents every rule choice), gen_paths.py (the
one-off generator of the default bonus and mission paths).
"""
from pathlib import Path

from engines.core import cache_guard

cache_guard.check(Path(__file__).parent)  # before any kernel module is imported

from engines.core.spec import GameSpec  # noqa: E402
from engines.skyline_of_the_world.batch import simulate
from engines.skyline_of_the_world.game import Game, new_game
from engines.skyline_of_the_world.params import MAX_PLAYERS, VARIANTS, KernelParams, kernel_params
from engines.skyline_of_the_world.policies import POLICIES
from engines.skyline_of_the_world.tables import TABLES

ENGINE_VERSION = "1.0.0"

SPEC = GameSpec(
    game_id="skyline_of_the_world",
    title="Skyline of the World",
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
    report="analysis.skyline_of_the_world",
)

__all__ = ["SPEC", "ENGINE_VERSION", "Game", "KernelParams", "new_game", "kernel_params", "simulate"]
