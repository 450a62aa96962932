"""Layouts declared once: offsets, exported constants, views, the variant schema and the rule vector."""
import numpy as np
import pytest

from engines.core.layout import Field, Layout, Param, ParamLayout
from engines.core.variant import Rule


def test_offsets_constants_and_views():
    lay = Layout("meta", [Field("phase"), Field("dice", 4, "rolled dice"), ("turn", 1, "turn")], start=2)
    assert lay.offset("phase", "dice", "turn") == (2, 3, 7)
    assert (lay.size, lay.end) == (6, 8)
    ns = {}
    lay.export(ns, "M_")
    assert ns == {"M_PHASE": 2, "M_DICE": 3, "M_TURN": 7, "M_SIZE": 6, "M_END": 8}
    vec = np.zeros(8, np.int64)
    lay.views(vec)["dice"][:] = 5
    assert list(vec) == [0, 0, 0, 5, 5, 5, 5, 0]
    with pytest.raises(KeyError, match="dcie"):
        lay["dcie"]
    with pytest.raises(ValueError, match="twice"):
        Layout("x", [Field("a"), Field("a")])
    with pytest.raises(ValueError, match="already defined"):
        Layout("y", [Field("phase")]).export(ns, "M_")


PARAMS = ParamLayout([
    Param("n_players", meaning="players"),
    Param("columns", key="game.columns", rule=Rule("int", 1, 6, doc="columns")),
    Param("reroll", key="game.reroll", rule=Rule("str", choices=("none", "first", "all"), doc="who re-rolls")),
    Param("solo", key="game.solo", rule=Rule("bool", doc="solo re-roll")),
    Param("table", size=3, meaning="points"),
    Param(key="roof.name", rule=Rule("str", doc="display name"), kernel=False),
])


def test_param_layout_schema_and_fill():
    assert set(PARAMS.schema()) == {"game.columns", "game.reroll", "game.solo", "roof.name"}
    assert PARAMS.slot_of_key() == {"game.columns": 1, "game.reroll": 2, "game.solo": 3}
    values = {"game": {"columns": 5, "reroll": "all", "solo": True}, "roof": {"name": "x"}}
    cfg = PARAMS.fill(values, n_players=2, table=[7, 8, 9])
    assert list(cfg) == [2, 5, 2, 1, 7, 8, 9]
    assert PARAMS.get(cfg, "columns") == 5 and list(PARAMS.get(cfg, "table")) == [7, 8, 9]
    with pytest.raises(KeyError, match="table"):
        PARAMS.fill(values, n_players=2)          # a derived slot left unfilled
    with pytest.raises(KeyError, match="nplayers"):
        PARAMS.fill(values, nplayers=2, table=[1, 2, 3])
    with pytest.raises(ValueError, match="holds 3"):
        PARAMS.fill(values, n_players=2, table=[1, 2])
    with pytest.raises(ValueError, match="needs a rule"):
        Param("x", key="a.b")
