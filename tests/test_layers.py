"""Layers point down (issue 7): experiments -> analysis -> engines, and inside
engines, games -> engines/core. Every import of every product module is read
with `ast` (module level, inside functions, under TYPE_CHECKING alike) and
checked against these rules:

    engines/**            imports nothing from analysis/ or experiments/
    engines/core/**       imports no game package and not engines.registry
    engines/<game>/**     imports no other game and not engines.registry (the
                          registry loads games; a game is found, never finds)
    analysis/**           imports nothing from experiments/; from engines/ only
                          engines.registry and engines.core.* (the contract)
    analysis/<game>.py    a game's analysis module builds on analysis.frames (its
                          public API), never on analysis.report, analysis.metrics
                          or analysis.plugins, the modules that load it
    all product modules   no private name (`_x`) imported from another module;
                          click only in experiments/cli.py (library code takes
                          what the command line typed as arguments, never from
                          click's global context); no import cycle between them

A module that loads modules by name (importlib) is declared in LOADERS with
what it may load, and each of those counts as an import of it: so
report -> plugins -> analysis.<game> -> report is the cycle it is, and an
undeclared loader fails.

The first tests run the checker on synthetic sources, so a checker that
cannot fail would be caught too.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "analysis", "experiments")
# every game package under engines/ (a folder with an __init__.py, not the core)
GAME_IDS = tuple(sorted(p.parent.name for p in (ROOT / "engines").glob("*/__init__.py") if p.parent.name != "core"))
# modules that import modules by name, and which of the product modules they may load
LOADERS = {
    "engines.registry": lambda known: {f"engines.{g}" for g in GAME_IDS} & known,
    "analysis.plugins": lambda known: {f"analysis.{g}" for g in GAME_IDS} & known,
}
# what a game's analysis module must not import: the modules that load it
PLUGIN_LOADERS = ("analysis.report", "analysis.metrics", "analysis.plugins")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def product_modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            out[module_name(path)] = path
    return out


def imports_of(source: str, module: str, is_package: bool = False) -> list[tuple[str, int]]:
    """(imported module name, line) for every import statement in `source`.
    `from a.b import c` gives a.b.c when that names a module, else a.b (decided by the caller)."""
    tree = ast.parse(source)
    base = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                name = ".".join(anchor + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((name, node.lineno))
            found += [(f"{name}.{alias.name}", node.lineno) for alias in node.names]
    return found


def loads_by_name(source: str) -> list[tuple[str, int]]:
    """Calls that import a module by name: importlib.import_module(...), __import__(...)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in ("import_module", "__import__"):
                found.append((f"<{name}(...)>", node.lineno))
    return found


def resolve(name: str, known: set[str]) -> str | None:
    """The product module an imported name refers to: the name itself if it
    is a module, else the longest known prefix (a name imported from it)."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in known:
            return candidate
    return None


def game_of(module: str, package: str) -> str | None:
    """The game id of `package`.<game>[.…], else None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == package and parts[1] in GAME_IDS else None


def within(name: str, module: str) -> bool:
    return name == module or name.startswith(module + ".")


def violation(importer: str, imported: str) -> str | None:
    """Why `importer` may not import `imported` (None: allowed)."""
    top = imported.split(".")[0]
    if importer.startswith("engines"):
        if top in ("analysis", "experiments"):
            return "engines/ imports nothing from analysis/ or experiments/"
        if importer == "engines.core" or importer.startswith("engines.core."):
            if top == "engines" and imported not in ("engines", "engines.core") \
                    and not imported.startswith("engines.core."):
                return "engines/core imports no game and not the registry"
        game = game_of(importer, "engines")
        if game is not None:
            if within(imported, "engines.registry"):
                return "a game imports not engines.registry (the registry loads games)"
            other = game_of(imported, "engines")
            if other is not None and other != game:
                return "a game imports no other game"
    if game_of(importer, "analysis") is not None and any(within(imported, m) for m in PLUGIN_LOADERS):
        return ("a game's analysis module builds on analysis.frames, not on analysis.report, analysis.metrics "
                "or analysis.plugins (they load it)")
    if top == "click" and importer != "experiments.cli":
        return "click only in experiments/cli.py: library code takes what was typed as arguments"
    if importer.startswith("analysis"):
        if top == "experiments":
            return "analysis/ imports nothing from experiments/"
        if top == "engines" and imported not in ("engines", "engines.registry", "engines.core") \
                and not imported.startswith(("engines.core.", "engines.registry.")):
            return "analysis/ uses engines/ only through engines.registry and engines.core (the contract)"
    return None


def check(sources: dict[str, tuple[str, bool]]) -> tuple[list[str], dict[str, set[str]]]:
    """Check {module: (source, is_package)}; return (wrong-way imports, import graph between them)."""
    known = set(sources)
    problems, graph = {}, {m: set() for m in sources}
    for module, (source, is_package) in sources.items():
        for name, line in loads_by_name(source):
            if module not in LOADERS:
                problems.setdefault(f"{module}:{line}", f"{module}:{line} imports {name}: a module loaded by "
                                    "name is an import the checker cannot see; declare the loader in LOADERS")
        graph[module] |= LOADERS[module](known) if module in LOADERS else set()
        for name, line in imports_of(source, module, is_package):
            if name.split(".")[0] not in PACKAGES + ("click",):
                continue  # the standard library and third-party packages
            why = violation(module, name)
            target = resolve(name, known)
            leaf = name.rpartition(".")[2]
            if not why and target is not None and target != module and leaf.startswith("_") \
                    and not leaf.startswith("__") and target != name:
                why = f"'{leaf}' is private to {target}: import a public name (analysis.frames for a game's module)"
            if why:  # one report per import statement
                problems.setdefault(f"{module}:{line}", f"{module}:{line} imports {name}: {why}")
            if target is not None and target != module and not module.startswith(target + "."):
                graph[module].add(target)  # a module importing its own package's __init__ is not a cycle
    return sorted(problems.values()), graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# --- the checker itself can fail ------------------------------------------------------

def test_checker_flags_every_wrong_way_import():
    bad = {
        "engines.core.runner": ("from analysis.run import Run\nfrom engines.registry import get_game\n", False),
        "engines.core.kernel": ("def f():\n    import engines.skyline_3000.tables\n", False),
        "engines.skyline_3000.batch": ("from experiments import cli\n", False),
        "analysis.skyline_3000": ("from engines.skyline_3000.tables import ITEM_NAMES\n", False),
        "analysis.metrics": ("from experiments.experiment import Plan\n", False),
        "engines.registry": ("", False), "engines.skyline_3000": ("", True), "engines.skyline_3000.tables": ("", False),
        "analysis.run": ("", False), "experiments.cli": ("", False), "experiments.experiment": ("", False),
    }
    problems, _ = check(bad)
    assert [p.split(" imports ")[0] for p in problems] == [
        "analysis.metrics:1", "analysis.skyline_3000:1", "engines.core.kernel:2", "engines.core.runner:1",
        "engines.core.runner:2", "engines.skyline_3000.batch:1"]


def test_checker_allows_the_downward_imports():
    good = {
        "experiments.runner": ("from analysis import runfolder\nfrom engines.registry import get_game\n", False),
        "analysis.report": ("from engines.core.spec import GameSpec\nfrom engines.registry import get_game\n", False),
        "engines.skyline_3000": ("from engines.core import cache_guard\nfrom .params import VARIANTS\n", True),
        "engines.skyline_3000.params": ("", False), "engines.core": ("", True), "engines.core.cache_guard": ("", False),
        "analysis.runfolder": ("", False), "engines.registry": ("", False), "engines.core.spec": ("", False),
    }
    problems, graph = check(good)
    assert problems == [] and cycles(graph) == []
    assert "engines.skyline_3000.params" in graph["engines.skyline_3000"]  # the relative import was resolved


def test_checker_finds_an_import_cycle():
    sources = {
        "experiments.experiment": ("def f():\n    from experiments import experiment_report\n", False),
        "experiments.experiment_report": ("from experiments.experiment import power_table\n", False),
        "experiments.cli": ("from experiments import experiment\n", False),
    }
    _, graph = check(sources)
    assert cycles(graph) == [["experiments.experiment", "experiments.experiment_report"]]


def test_checker_flags_game_to_game_registry_private_and_click_imports():
    bad = {
        "engines.cityline.rules": ("from engines.skyline_3000.tables import ITEM_NAMES\n", False),
        "engines.cityline.game": ("def f():\n    from engines.registry import get_game\n", False),
        "analysis.cityline": ("from analysis.metrics import Metric\nfrom analysis.frames import _select\n", False),
        "analysis.skyline_3000": ("from analysis.report import pct\n", False),
        "experiments.experiment": ("import click\n", False),
        "analysis.report": ("", False), "analysis.metrics": ("", False), "analysis.frames": ("", False),
        "engines.skyline_3000.tables": ("", False), "engines.registry": ("", False),
        "engines.cityline": ("", True), "engines.skyline_3000": ("", True),
    }
    problems, _ = check(bad)
    assert [p.split(" imports ")[0] for p in problems] == [
        "analysis.cityline:1", "analysis.cityline:2", "analysis.skyline_3000:1", "engines.cityline.game:2",
        "engines.cityline.rules:1", "experiments.experiment:1"]
    assert "private" in problems[1] and "other game" in problems[4] and "registry" in problems[3]


def test_checker_allows_public_names_from_the_frames_and_a_game_own_modules():
    good = {
        "analysis.cityline": ("from analysis.frames import Metric, select\nfrom analysis import stats\n", False),
        "engines.cityline.game": ("from engines.cityline.rules import apply_nb\nfrom engines.core.kernel import kernel\n"
                                  "from engines.cityline import _jit\n", False),
        "experiments.cli": ("import click\n", False),
        "analysis.frames": ("", False), "analysis.stats": ("", False), "engines.cityline.rules": ("", False),
        "engines.cityline._jit": ("", False), "engines.core.kernel": ("", False), "engines.cityline": ("", True),
    }
    problems, graph = check(good)
    assert problems == [] and cycles(graph) == []


def test_checker_sees_the_cycle_through_a_loader():
    """report -> plugins loads analysis.<game> by name -> report: the hidden cycle issue 26 found."""
    sources = {
        "analysis.plugins": ("import importlib\ndef load(g):\n    return importlib.import_module(g)\n", False),
        "analysis.report": ("from analysis.plugins import load\n", False),
        "analysis.skyline_3000": ("def f():\n    from analysis.frames import pct\n", False),
        "analysis.frames": ("", False),
    }
    _, graph = check(sources)
    assert cycles(graph) == []
    sources["analysis.skyline_3000"] = ("def f():\n    from analysis.frames import pct\n    import analysis.report\n", False)
    _, graph = check(sources)
    assert cycles(graph) == [["analysis.plugins", "analysis.report", "analysis.skyline_3000"]]


def test_checker_refuses_an_undeclared_loader():
    problems, _ = check({"analysis.sections": ("import importlib\nm = importlib.import_module('analysis.x')\n", False)})
    assert [p.split(" imports ")[0] for p in problems] == ["analysis.sections:2"]


# --- the product ----------------------------------------------------------------------

def _product():
    return {m: (p.read_text(), p.name == "__init__.py") for m, p in product_modules().items()}


def test_every_import_points_down():
    modules = product_modules()
    assert {"experiments.runner", "analysis.runfolder", "engines.core.spec", "engines.registry"} <= set(modules)
    assert {"cityline", "skyline_3000", "skyline_of_the_world", "project_skyline"} <= set(GAME_IDS)
    problems, _ = check(_product())
    assert problems == [], "\n".join(problems)


def test_no_import_cycles():
    _, graph = check(_product())
    found = cycles(graph)
    assert found == [], "\n".join(" <-> ".join(c) for c in found)


# The reference-count-free views (engines.core.lowlevel.unowned) and the owners they need kept
# alive are the core's business: the adapter's loops own every working array. A game's kernels
# take arrays and pass them on. Games whose loops are still their own are named here, with why.
LOWLEVEL_LIFETIMES = {"engines.core.lowlevel.unowned", "engines.core.lowlevel.keep_alive",
                      "engines.core.harness.keep_alive_all"}
OWN_LOOPS: dict[str, str] = {}   # none left: Skyline 3000 moved onto engines.core.adapter last


def lifetime_imports(sources: dict[str, tuple[str, bool]]) -> dict[str, list[str]]:
    """Per game package: where its modules import a view-lifetime helper ('module:line name')."""
    found: dict[str, list[str]] = {}
    for module, (source, is_package) in sources.items():
        parts = module.split(".")
        if parts[0] != "engines" or len(parts) < 2 or parts[1] == "core" or parts[1] not in GAME_IDS:
            continue
        for name, line in imports_of(source, module, is_package):
            if name in LOWLEVEL_LIFETIMES:
                found.setdefault(parts[1], []).append(f"{module}:{line} {name}")
    return found


def test_lifetime_checker_sees_a_game_taking_unowned_views():
    sources = {"engines.cityline.policies": ("from engines.core.lowlevel import popcount, unowned\n", False),
               "engines.cityline.batch": ("from engines.core.harness import keep_alive_all\n", False),
               "engines.core.adapter": ("from engines.core.lowlevel import unowned\n", False)}
    assert lifetime_imports(sources) == {"cityline": ["engines.cityline.policies:1 engines.core.lowlevel.unowned",
                                                     "engines.cityline.batch:1 engines.core.harness.keep_alive_all"]}


def test_games_on_the_adapter_keep_no_view_lifetimes():
    found = lifetime_imports(_product())
    wrong = {game: where for game, where in found.items() if game not in OWN_LOOPS}
    assert wrong == {}, f"unowned views / keep_alive in game code (the adapter owns them): {wrong}"
    stale = sorted(set(OWN_LOOPS) - set(found))
    assert stale == [], f"{stale} no longer keep(s) view lifetimes: remove from OWN_LOOPS"
