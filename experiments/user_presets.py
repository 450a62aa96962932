"""Users' presets: named weight rows a user keeps (`skyline-lab tune --preset NAME`), as data.

The presets a game ships (`engines/<game>/presets.toml`) are engine data: part of the engine's
source digest, so editing one is a new engine. A user's presets are not: they live in a presets
folder of the user's, one file per game (`<folder>/<game>.toml`, the format of
engines/core/presets.py), outside every engine digest. Adding one therefore never changes a
digest, never invalidates a run folder or a cached experiment batch.

The folder is `$SKYLINE_LAB_PRESETS` when set, else `results/presets/` (beside the runs, in the
git-ignored results folder). A run that seats a user's preset (as a policy, or as a search
player's rollout) records it by value: its base and weights go into the run's config key (a
preset edited under the same name is another run, never mixed into the old one's games) and
into the manifest's `user_presets`, with the file it came from.
"""
from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from engines.core.presets import PresetError, load_presets
from engines.core.spec import GameSpec, PolicyInfo

ENV = "SKYLINE_LAB_PRESETS"
PRESET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DEFAULT_FOLDER = Path("results") / "presets"


def presets_folder() -> Path:
    return Path(os.environ[ENV]) if os.environ.get(ENV) else DEFAULT_FOLDER


def presets_file(game: str) -> Path:
    return presets_folder() / f"{game}.toml"


def user_presets(spec: GameSpec) -> dict[str, PolicyInfo]:
    """The user's presets for this game (PresetError names the file and the preset)."""
    return load_presets(spec.policies, presets_file(spec.game_id))


def with_user_presets(spec: GameSpec) -> GameSpec:
    """The game's spec with the user's presets added to its policies (and as rollout choices
    of a search player); the spec itself when there are none."""
    presets = user_presets(spec)
    if not presets:
        return spec
    policies = dict(spec.policies)
    policies.update(presets)
    for name, info in list(policies.items()):
        if not info.follow:
            continue
        options = dict(info.choices[info.follow])
        for preset in presets.values():
            if preset.policy_id in options.values():
                options[preset.name] = preset.policy_id
        policies[name] = dataclasses.replace(info, choices={**info.choices, info.follow: options})
    return dataclasses.replace(spec, policies=policies)


def check_preset_name(name: str) -> None:
    """A preset's name is a name: letters, digits and _ (PresetError otherwise)."""
    if not PRESET_NAME.match(name):
        raise PresetError(f"--preset '{name}' must be a name of letters, digits and _ (not starting with a digit)")


def check_new_preset(spec: GameSpec, name: str) -> None:
    """Refuse a new user preset's name (PresetError) before any work is done: not a name, a
    shipped policy's name, or one of the user's presets already (never replaced behind their back)."""
    check_preset_name(name)
    if name in spec.policies:
        raise PresetError(f"--preset '{name}' is already a policy of {spec.game_id}; choose another name")
    if name in user_presets(spec):
        raise PresetError(f"--preset '{name}' is already one of your presets ({presets_file(spec.game_id)}); "
                          "choose another name, or remove it from that file first")


def used_presets(spec: GameSpec, lineup) -> dict[str, dict]:
    """The user's presets a line-up seats, by value: {name: {base, weights, file}} ({} for none).
    `spec` may be the game's own or with_user_presets'."""
    from engines.registry import get_game

    spec = get_game(spec.game_id)
    presets = user_presets(spec)
    if not presets:
        return {}
    used = {}
    for seat in lineup.seats:
        for name in (seat.info.name, seat.followed):
            if name in presets:
                info = presets[name]
                base = next(p for p in spec.policies.values() if p.policy_id == info.policy_id and not p.follow)
                used[name] = {"base": base.name, "weights": dict(info.weights),
                              "file": str(presets_file(spec.game_id))}
    return dict(sorted(used.items()))
