"""Layouts declared once: offsets, exported constants, views, the variant schema and the rule vector."""
import numpy as np
import pytest

from engines.core.layout import CHECK_LINE, Field, Layout, Param, ParamLayout, rewrite_files, rewritten_source
from engines.core.variant import Rule


def test_offsets_constants_and_views():
    lay = Layout("meta", [Field("phase"), Field("dice", 4, "rolled dice"), ("turn", 1, "turn")], start=2)
    assert lay.offset("phase", "dice", "turn") == (2, 3, 7)
    assert (lay.size, lay.end) == (6, 8)
    assert lay.constants("M_") == {"M_PHASE": 2, "M_DICE": 3, "M_TURN": 7, "M_SIZE": 6, "M_END": 8}
    vec = np.zeros(8, np.int64)
    lay.views(vec)["dice"][:] = 5
    assert list(vec) == [0, 0, 0, 5, 5, 5, 5, 0]
    with pytest.raises(KeyError, match="dcie"):
        lay["dcie"]
    with pytest.raises(ValueError, match="twice"):
        Layout("x", [Field("a"), Field("a")])


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


# ---------------------------------------------------------------- constants written out, checked at import
GAME_MODULE = """from engines.core.layout import Field, Layout
META = Layout("meta", [Field("phase", 1, "PH_*"), Field("dice", 4, "rolled  dice")])
META.check(globals(), "M_")
AFTER = M_DICE + 1
"""


def test_constants_are_written_out_checked_and_rewritten(tmp_path, monkeypatch):
    import importlib.util
    import sys

    path = tmp_path / "game_state.py"
    path.write_text(GAME_MODULE)

    def load():
        spec = importlib.util.spec_from_file_location("game_state", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    with pytest.raises(ValueError, match=r"M_PHASE is missing.*run  python -m engines.core.layout .*game_state.py"):
        load()
    assert rewrite_files([path]) == [str(path.resolve())]
    text = path.read_text()
    assert ("# --- META's constants, prefix M_ (python -m engines.core.layout FILE writes them: edit META) ---\n"
            "M_PHASE = 0  # PH_*\nM_DICE = 1   # rolled dice\nM_SIZE = 5   # the layout's size (meta)\n"
            "M_END = 5    # the first index after it\nMETA.check(globals(), \"M_\")\n") in text
    assert load().AFTER == 2
    assert rewrite_files([path]) == []   # written once: nothing to do the second time
    # a stale value stops the import, naming the constant and the command
    path.write_text(text.replace("M_DICE = 1", "M_DICE = 2"))
    with pytest.raises(ValueError, match="M_DICE is 2, not 1"):
        load()
    # a field removed: the whole old block goes, not just as many lines as the new one has
    path.write_text(text.replace('Field("dice", 4, "rolled  dice")', ""))
    rewrite_files([path])
    assert "M_DICE" not in path.read_text().split("META.check")[0].split("---\n", 1)[1]
    assert path.read_text().count("# --- META's constants") == 1
    # a prefix renamed: the old block goes with its old marker
    path.write_text(text.replace('"M_"', '"N_"').replace("M_DICE + 1", "N_DICE + 1"))
    rewrite_files([path])
    assert "M_PHASE" not in path.read_text() and path.read_text().count("# --- META's constants") == 1
    assert load().AFTER == 2


def _modules_with_written_constants():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = sorted(p for folder in ("engines", "tests") for p in (root / folder).rglob("*.py")
                   if p != Path(__file__).resolve()   # this file's sample module is a string
                   and any(CHECK_LINE.match(line) for line in p.read_text().splitlines()))
    return root, files


def test_every_written_out_block_is_up_to_date_and_final():
    """Every module's blocks are what the command writes (no stale or extra line), and each constant
    keeps its layout's value to the end of the import (no later block or assignment reuses a name)."""
    import importlib

    root, files = _modules_with_written_constants()
    games = {p.parts[len(root.parts) + 1] for p in files if p.parts[len(root.parts)] == "engines"}
    assert {"cityline", "skyline_3000", "skyline_of_the_world", "project_skyline"} <= games
    for path in files:
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        module = importlib.import_module(name)
        text = path.read_text()
        assert rewritten_source(text, module) == text, f"{path}: run python -m engines.core.layout {path}"
        for line in text.splitlines():
            found = CHECK_LINE.match(line)
            if found:
                for k, v in getattr(module, found["var"]).constants(found["prefix"]).items():
                    assert getattr(module, k) == v, f"{name}.{k} is reassigned after its block"


# One prefix scheme across games: K_ names a slot of the game's rule vector (its ParamLayout) and
# B_ a board layout's offset, in every game, and nothing else.
SCHEME = {"K_": "the rule vector (a ParamLayout)", "B_": "a board Layout"}


def _module_level_names(path) -> set[str]:
    import ast

    names = set()
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name):
                    names.add(leaf.id)
    return names


def test_one_prefix_scheme_across_games():
    import importlib

    root, files = _modules_with_written_constants()
    games = sorted({p.parts[len(root.parts) + 1] for p in files if p.parts[len(root.parts)] == "engines"})
    for game in games:
        declared = {"K_": set(), "B_": set()}
        slot_values = {"K_": set(), "B_": set()}
        for path in files:
            if path.parts[len(root.parts):len(root.parts) + 2] != ("engines", game):
                continue
            module = importlib.import_module(".".join(path.relative_to(root).with_suffix("").parts))
            for line in path.read_text().splitlines():
                found = CHECK_LINE.match(line)
                if found and found["prefix"] in declared:
                    layout = getattr(module, found["var"])
                    assert (found["prefix"] == "K_") == isinstance(layout, ParamLayout), (
                        f"{game}: {found['var']} written with prefix {found['prefix']}: that prefix is for "
                        f"{SCHEME[found['prefix']]}")
                    declared[found["prefix"]] |= set(layout.constants(found["prefix"]))
                    slot_values[found["prefix"]] |= set(layout.offsets.values())
        assert declared["K_"], f"{game}: its rule vector is not written with the prefix K_"
        for path in sorted((root / "engines" / game).rglob("*.py")):
            module = importlib.import_module(".".join(path.relative_to(root).with_suffix("").parts))
            for prefix, meaning in SCHEME.items():
                # a name built from the layout's offsets (Skyline 3000's K_DEAL, one slot per card type) is one
                slots = set(slot_values[prefix])
                stray = sorted(n for n in _module_level_names(path) if n.startswith(prefix) and n not in declared[prefix]
                               and not (isinstance(getattr(module, n), tuple) and set(getattr(module, n)) <= slots))
                assert stray == [], f"{path.relative_to(root)}: {stray} use the prefix {prefix}, which is {meaning}"
