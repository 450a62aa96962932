"""Every game the toolkit knows: game id -> the engine package that defines
`SPEC` (an engines.core.spec.GameSpec). Registering a game is one line here;
the runner, the CLI, the benchmark, the report and the metrics need nothing
else (the game's report sections and metrics are found by its id, in
analysis/<game_id>.py). Each package is imported only when first used, so the
CLI starts without compiling engines it does not run.
"""
from __future__ import annotations

import importlib

from engines.core.spec import GameSpec

# game id -> module that defines SPEC
_GAMES: dict[str, str] = {}

# what `skyline-lab run` plays when no game is named
DEFAULT_GAME = "skyline_3000"


def register(game_id: str, module: str) -> None:
    """Make `module`'s SPEC known as `game_id` (its analysis module is analysis.<game_id>)."""
    _GAMES[game_id] = module


def unregister(game_id: str) -> None:
    _GAMES.pop(game_id, None)


register("skyline_3000", "engines.skyline_3000")
register("cityline", "engines.cityline")
register("skyline_of_the_world", "engines.skyline_of_the_world")
register("project_skyline", "engines.project_skyline")


def game_ids() -> list[str]:
    return list(_GAMES)


def get_game(game_id: str) -> GameSpec:
    try:
        module = _GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game '{game_id}' (known: {', '.join(_GAMES)})") from None
    spec = importlib.import_module(module).SPEC
    if spec.game_id != game_id:
        raise KeyError(f"{module} declares game '{spec.game_id}', registered as '{game_id}'")
    return spec
