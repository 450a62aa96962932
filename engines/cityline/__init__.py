"""Cityline: the roll-and-write city builder (solo, or 2-6 players sharing the dice).

Rulebook: shared/rules/cityline.txt; open points and our defaults: shared/rules/GAPS.md
and variants/default.toml. Layout: params.py (variant schema -> KernelParams), state.py
(flat state vector), rules.py (rule kernels), policies.py, batch.py (simulate), game.py
(step API), render.py, tables.py.
"""
from pathlib import Path

from engines.core import cache_guard

cache_guard.check(Path(__file__).parent)  # before any kernel module is imported

from engines.cityline.batch import simulate  # noqa: E402
from engines.cityline.game import Game, new_game
from engines.cityline.params import MAX_PLAYERS, VARIANTS, KernelParams, kernel_params
from engines.cityline.policies import POLICIES
from engines.cityline.tables import TABLES
from engines.core.spec import GameSpec

ENGINE_VERSION = "1.0.0"

SPEC = GameSpec(
    game_id="cityline",
    title="Cityline",
    engine_version=ENGINE_VERSION,
    min_players=1,
    max_players=MAX_PLAYERS,
    default_players=1,
    variants=VARIANTS,
    policies=POLICIES,
    tables=TABLES,
    kernel_params=kernel_params,
    simulate=simulate,
    new_game=new_game,
    report="analysis.cityline",
)

__all__ = ["SPEC", "ENGINE_VERSION", "Game", "KernelParams", "new_game", "kernel_params", "simulate"]
