"""Registers the toy game `coin` (tests/experiments/coingame.py) for these tests only."""
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture(scope="module", autouse=True)
def coin_game():
    from engines import registry

    registry._GAMES["coin"] = "coingame"
    yield
    registry._GAMES.pop("coin", None)
