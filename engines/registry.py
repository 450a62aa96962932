"""Every game the toolkit knows. Registering a game here is all the runner,
the CLI and the report need; each entry is imported only when first used, so
the CLI starts without compiling engines it does not run."""
from __future__ import annotations

import importlib

from engines.core.spec import GameSpec

# game id -> module that defines SPEC
_GAMES = {
    "skyline_3000": "engines.skyline_3000",
    "cityline": "engines.cityline",
    "project_skyline": "engines.project_skyline",
}


def game_ids() -> list[str]:
    return list(_GAMES)


def get_game(game_id: str) -> GameSpec:
    try:
        module = _GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game '{game_id}' (known: {', '.join(_GAMES)})") from None
    return importlib.import_module(module).SPEC
