"""Registers the toy game `coin` (tests/experiments/coingame.py) for these tests only,
the way a shipped game is registered: one `register` line, plus its analysis
module under analysis.<game_id>."""
import importlib
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture(scope="module", autouse=True)
def coin_game():
    from engines import registry

    registry.register("coin", "coingame")
    sys.modules["analysis.coin"] = importlib.import_module("coin_analysis")
    yield
    registry.unregister("coin")
    sys.modules.pop("analysis.coin", None)
