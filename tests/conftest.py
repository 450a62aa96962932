"""Suite-wide pytest hooks: which tests form the plain-Python subset.

CI runs `NUMBA_DISABLE_JIT=1 pytest -m jit_off`: every kernel then runs as
plain Python (engines/core/lowlevel.py has the intrinsics' Python twins), which
catches kernel code that only works by accident of compilation. Plain Python
is some 100x slower, so the subset is the rule tests plus the short game tests.

The rule tests are chosen from the registry, not by hand: for every game in
engines.registry, every test of its rule-level modules, tests/<game_id>/ files
matching RULE_MODULES (rules on hand-built positions, scoring, variant and data
validation), is jit_off. A game registered tomorrow, or a test added to one of
those files, joins without an edit here.

The one exception, written down: a rule-level test that takes more than
JIT_OFF_BUDGET_S seconds of CPU in plain Python (it plays many whole games, say)
is too slow for the subset. In plain-Python mode such a test fails, naming the
fix: list it in JIT_OFF_TOO_SLOW (it still runs compiled in the default
suite). CPU time, not wall time, so a busy shared machine does not fail a
test. Today no rule-level test of any game comes near the budget (the
slowest takes 0.8 s in plain Python), so the list is empty.

From the game-play modules, the tests that play a handful of games are listed
by name (JIT_OFF_TESTS). Any other test joins with `@pytest.mark.jit_off`.
"""
from __future__ import annotations

import os
import time
from fnmatch import fnmatch
from pathlib import Path

import pytest

from engines import registry

# a game's rule-level test modules, tests/<game_id>/<pattern>
RULE_MODULES = ("test_*rules*.py", "test_scoring*.py", "test_variants*.py", "test_data*.py",
                "test_fast_paths*.py")
# whole modules outside the games' folders: rule-by-rule tests, a few ms each in plain Python
JIT_OFF_MODULES = {
    "tests/core/test_rng.py",
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
# CPU seconds a rule-level test may take in plain Python (the whole subset should
# stay within a few minutes of CI)
JIT_OFF_BUDGET_S = 10.0
# rule-level tests over that budget: {module path: {test name}} (none today)
JIT_OFF_TOO_SLOW: dict[str, set[str]] = {}

_ROOT = Path(__file__).resolve().parent.parent


def is_rule_module(rel: str, game_ids=None) -> bool:
    """Is tests-relative path `rel` (tests/<game_id>/<file>) a rule-level module of a registered game?"""
    parts = rel.split("/")
    if len(parts) != 3 or parts[0] != "tests":
        return False
    games = registry.game_ids() if game_ids is None else game_ids
    return parts[1] in games and any(fnmatch(parts[2], pat) for pat in RULE_MODULES)


def jit_off_selected(rel: str, name: str, game_ids=None) -> bool:
    """Does test `name` (its name without parameters) of module `rel` belong to the plain-Python subset?"""
    if name in JIT_OFF_TOO_SLOW.get(rel, ()):
        return False
    return rel in JIT_OFF_MODULES or is_rule_module(rel, game_ids) or name in JIT_OFF_TESTS.get(rel, ())


def _rel(item) -> str | None:
    try:
        return Path(item.path).resolve().relative_to(_ROOT).as_posix()
    except ValueError:
        return None


_BY_RULE = pytest.StashKey[bool]()  # the item was selected by the registry rule (a rule-level module)


def pytest_collection_modifyitems(config, items):
    games = registry.game_ids()
    for item in items:
        rel = _rel(item)
        if rel is not None and jit_off_selected(rel, item.originalname, games):
            item.add_marker(pytest.mark.jit_off)
            item.stash[_BY_RULE] = is_rule_module(rel, games)


_PLAIN_PYTHON = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    t0 = time.process_time()
    result = yield
    took = time.process_time() - t0
    if _PLAIN_PYTHON and took > JIT_OFF_BUDGET_S and item.stash.get(_BY_RULE, False):
        pytest.fail(f"{took:.1f} CPU s in plain Python, over the budget of {JIT_OFF_BUDGET_S:.0f} s for a "
                    f"rule-level test: "
                    f"name it in JIT_OFF_TOO_SLOW in tests/conftest.py (it still runs compiled in the "
                    f"default suite), or make it faster", pytrace=False)
    return result
