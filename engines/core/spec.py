"""The contract between a game engine and the rest of the toolkit.

A game registers one `GameSpec` in `engines/registry.py`. The runner, the
CLI and the report use nothing else, so a new game touches none of them:

    spec.variants        validated variant files (engines.core.variant)
    spec.policies        name -> PolicyInfo (integer id for the kernels,
                         named tunable weights with defaults)
    spec.tables          the result tables `simulate` returns, with a
                         one-line meaning for each column
    spec.kernel_params   Variant + player count -> the NamedTuple of ints and
                         arrays the kernels read (cheap; done once per batch)
    spec.simulate        play games [start, start + count) of a run; game i
                         depends only on (seed, i), never on the chunking
    spec.new_game        the step-by-step API over the same kernels
    spec.report          module with `sections(run) -> list[Section]`, the
                         game's own report pages (analysis/<game>.py)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from engines.core.variant import VariantLoader


@dataclass(frozen=True)
class PolicyInfo:
    """A scripted player. `weights` are its named, tunable knobs with defaults,
    in the order the kernel reads them from its weight row."""

    name: str
    policy_id: int
    description: str
    weights: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Column:
    name: str
    meaning: str


@dataclass(frozen=True)
class TableSpec:
    """One result table. Every table has `game` (the game index in the run);
    a table with a `lineup_slot` column gets a `policy` label column added by
    the runner."""

    name: str
    meaning: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


# simulate(kernel_params, seat_policy_ids, seat_weights, rotate, seed, start, count)
#   seat_policy_ids: int64[P]  policy id per lineup slot
#   seat_weights:    float64[P, W]  weight row per lineup slot
#   rotate: bool     game i seats lineup slot (seat + i) % P at seat `seat`
# -> {table name: {column: 1-D numpy array}}
SimulateFn = Callable[[Any, np.ndarray, np.ndarray, bool, int, int, int], dict[str, dict[str, np.ndarray]]]


@dataclass(frozen=True)
class GameSpec:
    game_id: str
    title: str
    engine_version: str
    min_players: int
    max_players: int
    default_players: int
    variants: VariantLoader
    policies: dict[str, PolicyInfo]
    tables: dict[str, TableSpec]
    kernel_params: Callable[[Any, int], Any]
    simulate: SimulateFn
    new_game: Callable[..., Any]
    report: str  # importable module with sections(run) for the report
    max_weights: int = 8

    def policy(self, name: str) -> PolicyInfo:
        try:
            return self.policies[name]
        except KeyError:
            raise KeyError(f"unknown policy '{name}' for {self.game_id} "
                           f"(known: {', '.join(self.policies)})") from None


def seat_slot(game_index: int, seat: int, n_players: int, rotate: bool) -> int:
    """Which lineup slot sits at `seat` in game `game_index` (kernels inline the same rule)."""
    return (seat + game_index) % n_players if rotate else seat
