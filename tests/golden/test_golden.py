"""Golden playthroughs and batch tables (tests/golden/regenerate.py): replay each
recipe and compare with its file exactly, showing a unified diff on a change.

Run compiled by the default suite; the recipes marked `jit_off` run again in
plain Python in CI (`NUMBA_DISABLE_JIT=1 pytest -m jit_off`), so the Python
twins of the kernels must replay the compiled games move for move.
"""
from __future__ import annotations

import difflib
import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("golden_regenerate", HERE / "regenerate.py")
regen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = regen  # dataclasses look their module up there
_spec.loader.exec_module(regen)

MAX_DIFF_LINES = 120
MAX_TOTAL_BYTES = 300_000   # four games' files (some 250 kB)


def _param(r):
    marks = [pytest.mark.jit_off] if r.jit_off else []
    return pytest.param(r, id=f"{r.game}/{r.name}", marks=marks)


@pytest.mark.parametrize("recipe", [_param(r) for r in regen.RECIPES])
def test_replay_matches_golden_file(recipe):
    assert recipe.path.exists(), f"missing golden file {recipe.path}: run tests/golden/regenerate.py"
    expected = recipe.path.read_text()
    actual = regen.text(recipe)
    if actual != expected:
        rel = recipe.path.relative_to(HERE.parents[1])
        diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                         f"{rel} (golden)", f"{rel} (this code)", lineterm="", n=2))
        shown = diff[:MAX_DIFF_LINES]
        if len(diff) > MAX_DIFF_LINES:
            shown.append(f"... {len(diff) - MAX_DIFF_LINES} more diff lines")
        pytest.fail(f"{recipe.game}/{recipe.name} no longer replays its golden file (if the change is "
                    "meant, run tests/golden/regenerate.py and review the diff):\n" + "\n".join(shown),
                    pytrace=False)


@pytest.mark.jit_off
def test_golden_folder_holds_exactly_the_recipes_files_and_stays_small():
    # a renamed recipe must not leave a stale file that nothing checks any more
    on_disk = {p for p in HERE.glob("*/*.txt")}
    recipes = {r.path for r in regen.RECIPES}
    assert on_disk == recipes, (f"not made by a recipe: {sorted(map(str, on_disk - recipes))}; "
                                f"missing: {sorted(map(str, recipes - on_disk))}")
    assert len({(r.game, r.name) for r in regen.RECIPES}) == len(regen.RECIPES)
    total = sum(p.stat().st_size for p in on_disk)
    assert total < MAX_TOTAL_BYTES, f"golden files take {total} bytes"


@pytest.mark.jit_off
def test_every_registered_game_has_golden_files_of_one_convention():
    """Built from the registry, not picked by hand: every shipped game (a registered game whose
    engine package is engines/<game_id>/) has a played game at its fewest players and one at 3 or
    more (when it seats 3), a batch, and a played game replayed in plain Python (CI's jit_off subset)."""
    from engines.registry import game_ids, get_game

    shipped = [g for g in game_ids() if (HERE.parents[1] / "engines" / g / "__init__.py").exists()]
    assert {"skyline_3000", "cityline", "skyline_of_the_world", "project_skyline"} <= set(shipped)
    for game in shipped:
        spec = get_game(game)
        recipes = [r for r in regen.RECIPES if r.game == game]
        played = {r.n_players for r in recipes if isinstance(r, regen.Play)}
        assert spec.min_players in played and max(played) >= min(spec.max_players, 3), \
            f"{game}: played games at {sorted(played)} players"
        assert any(isinstance(r, regen.Batch) for r in recipes), f"{game}: no batch recipe"
        assert any(r.jit_off and isinstance(r, regen.Play) for r in recipes), f"{game}: no plain-Python replay"
    assert not (set(r.game for r in regen.RECIPES) - set(shipped)), "a recipe for a game that is not registered"
