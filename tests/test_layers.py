"""Layers point down (issue 7): experiments -> analysis -> engines, and inside
engines, games -> engines/core. Every import of every product module is read
with `ast` (module level, inside functions, under TYPE_CHECKING alike) and
checked against these rules:

    engines/**            imports nothing from analysis/ or experiments/
    engines/core/**       imports no game package and not engines.registry
    analysis/**           imports nothing from experiments/; from engines/ only
                          engines.registry and engines.core.* (the contract)
    all product modules   no import cycle between them

The first tests run the checker on synthetic sources, so a checker that
cannot fail would be caught too.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "analysis", "experiments")


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


def resolve(name: str, known: set[str]) -> str | None:
    """The product module an imported name refers to: the name itself if it
    is a module, else the longest known prefix (a name imported from it)."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in known:
            return candidate
    return None


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
        for name, line in imports_of(source, module, is_package):
            if name.split(".")[0] not in PACKAGES:
                continue  # the standard library and third-party packages
            why = violation(module, name)
            if why:  # one report per import statement
                problems.setdefault(f"{module}:{line}", f"{module}:{line} imports {name}: {why}")
            target = resolve(name, known)
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


# --- the product ----------------------------------------------------------------------

def _product():
    return {m: (p.read_text(), p.name == "__init__.py") for m, p in product_modules().items()}


def test_every_import_points_down():
    modules = product_modules()
    assert {"experiments.runner", "analysis.runfolder", "engines.core.spec", "engines.registry"} <= set(modules)
    problems, _ = check(_product())
    assert problems == [], "\n".join(problems)


def test_no_import_cycles():
    _, graph = check(_product())
    found = cycles(graph)
    assert found == [], "\n".join(" <-> ".join(c) for c in found)
