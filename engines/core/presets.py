"""Named weight presets: a scripted policy with other default weights, kept as data.

A game keeps its presets in `presets.toml` beside its policies (written by
`skyline-lab tune`, editable by hand), one table per preset:

    # tuned against search(iterations=100), 2 players, 40 trials x 200 games, seed 3
    [heuristic_tuned]
    base = "heuristic"                      # the policy whose kernel plays it
    description = "heuristic with weights tuned against the search player"
    weights = { value = 1.31, growth = 0.42 }   # the weights that differ from the base's defaults

A preset is an ordinary named policy (`--policy heuristic_tuned`, a ladder rung, an
experiment's line-up); its weights can still be changed in a line-up like any other's. The
search player may roll it out: `search(rollout=heuristic_tuned)` plays its rollouts with the
base's kernel and the preset's weights (add_presets).
A file with an unknown base, an unknown weight or a bad value is refused with the file,
the preset and the reason.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import replace
from pathlib import Path

from engines.core.spec import PolicyInfo

PRESETS_FILE = "presets.toml"


class PresetError(ValueError):
    pass


def load_presets(policies: dict[str, PolicyInfo], path: str | Path) -> dict[str, PolicyInfo]:
    """The presets of `path` as PolicyInfo entries (empty when the file does not exist)."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{path}: not valid TOML ({exc})") from None
    out = {}
    for name, table in data.items():
        where = f"{path.name} [{name}]"
        if not isinstance(table, dict):
            raise PresetError(f"{where}: must be a table with base, description and weights")
        unknown = set(table) - {"base", "description", "weights"}
        if unknown:
            raise PresetError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        if name in policies:
            raise PresetError(f"{where}: '{name}' is already a policy of this game")
        base = policies.get(table.get("base", ""))
        if base is None or base.follow:
            raise PresetError(f"{where}: base must be one of the scripted policies "
                              f"({', '.join(p for p, i in policies.items() if not i.follow)}), "
                              f"not {table.get('base')!r}")
        weights = dict(base.weights)
        for key, value in (table.get("weights") or {}).items():
            if key not in weights:
                raise PresetError(f"{where}: {base.name} has no weight '{key}' (its weights: {', '.join(weights)})")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise PresetError(f"{where}: weight {key} must be a finite number, not {value!r}")
            weights[key] = float(value)
        description = str(table.get("description") or f"{base.name} with preset weights")
        out[name] = PolicyInfo(name, base.policy_id, description, weights, weight_ranges=dict(base.weight_ranges))
    return out


def add_presets(policies: dict[str, PolicyInfo], path: str | Path) -> None:
    """Add the presets of `path` to a game's policy table, in place (each game's policies.py
    calls it last). A policy that follows a choice (the search player's `rollout`) may then
    choose a preset as well: its row carries the preset's weights for the base's kernel."""
    presets = load_presets(policies, path)
    policies.update(presets)
    for name, info in list(policies.items()):
        if not info.follow or not presets:
            continue
        options = dict(info.choices[info.follow])
        for preset in presets.values():
            if preset.policy_id in options.values():
                options[preset.name] = preset.policy_id
        policies[name] = replace(info, choices={**info.choices, info.follow: options})


def write_preset(path: str | Path, name: str, base: str, description: str, weights: dict[str, float],
                 comment: str, digits: int = 6) -> None:
    """Add or replace one preset in `path`, keeping the others (and their comments); each weight
    written to `digits` significant digits."""
    path = Path(path)
    text = path.read_text() if path.is_file() else ""
    blocks = _blocks(text)
    body = "\n".join(f"# {line}" for line in comment.splitlines())
    inner = ", ".join(f"{k} = {v:.{digits}g}" for k, v in weights.items())
    blocks[name] = (f"{body}\n[{name}]\nbase = \"{base}\"\ndescription = \"{description}\"\n"
                    f"weights = {{ {inner} }}\n")
    path.write_text("\n".join(blocks.values()))


def _blocks(text: str) -> dict[str, str]:
    """The file cut into presets, each with the comment lines above its header."""
    blocks: dict[str, str] = {}
    pending: list[str] = []
    current = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            current = stripped[1:-1].strip()
            blocks[current] = "\n".join(pending + [line]) + "\n"
            pending = []
        elif current is None or stripped.startswith("#"):
            pending.append(line)
        else:
            blocks[current] += line + "\n"
    return blocks
