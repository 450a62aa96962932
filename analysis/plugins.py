"""Loads a game's analysis module, analysis/<game_id>.py, found by the game id
(its sections and METRICS; analysis/sections.py says what it holds). Only the
modules above the game modules load them (analysis.report, analysis.metrics,
experiments); a game module builds on analysis.frames, never on its loader
(tests/test_layers.py counts this import as an edge to every game module)."""
from __future__ import annotations

import importlib
from types import ModuleType


def game_module_name(game_id: str) -> str:
    return f"analysis.{game_id}"


def game_module(game_id: str) -> ModuleType | None:
    """The game's analysis module, or None when the game has none."""
    name = game_module_name(game_id)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is None or not (name == error.name or name.startswith(error.name + ".")):
            raise  # the module exists but something it imports is missing: a real bug
        return None
