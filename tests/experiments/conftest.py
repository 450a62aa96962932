"""Registers the toy game `coin` (tests/experiments/coingame.py) for these tests."""
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture(autouse=True)
def coin_game(monkeypatch):
    from engines import registry

    monkeypatch.setitem(registry._GAMES, "coin", "coingame")
    yield
