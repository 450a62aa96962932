"""Suite-wide pytest hooks: which existing tests form the plain-Python subset.

CI runs `NUMBA_DISABLE_JIT=1 pytest -m jit_off`: every kernel then runs as
plain Python (engines/core/lowlevel.py has the intrinsics' Python twins), which
catches kernel code that only works by accident of compilation. Plain Python
is some 100x slower, so the subset is the rule tests plus the short game tests,
listed here by module (and by test name for the game-play modules) rather than
by a marker in each file. New tests join with `@pytest.mark.jit_off`.
"""
from __future__ import annotations

from pathlib import Path

import pytest

# whole modules: rule-by-rule tests, a few ms each in plain Python
JIT_OFF_MODULES = {
    "tests/core/test_rng.py",
    "tests/skyline_3000/test_rules.py",
    "tests/skyline_3000/test_fast_paths.py",
    "tests/skyline_3000/test_variants.py",
    "tests/cityline/test_rules.py",
    "tests/cityline/test_scoring.py",
    "tests/cityline/test_variants.py",
}
# from the game-play modules, the tests that play a handful of games (not hundreds)
JIT_OFF_TESTS = {
    "tests/skyline_3000/test_play.py": {
        "test_step_api_reproduces_the_batch_game",
        "test_policies_never_see_deck_order_or_other_hands",
        "test_the_same_seed_deals_the_same_cards_whatever_the_policies",
        "test_python_function_policies_and_readable_strings",
        "test_observation_hides_other_hands_deck_order_and_pending_bids",
    },
    "tests/cityline/test_play.py": {
        "test_step_api_replays_batch_games",
        "test_strong_policy_plays_legal_moves_in_step_and_batch",
        "test_determinism_chunking",
        "test_multiplayer_players_share_the_dice",
    },
}

_ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            rel = Path(item.path).resolve().relative_to(_ROOT).as_posix()
        except ValueError:
            continue
        if rel in JIT_OFF_MODULES or item.originalname in JIT_OFF_TESTS.get(rel, ()):
            item.add_marker(pytest.mark.jit_off)
