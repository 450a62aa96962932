"""The contract between a game engine and the rest of the toolkit.

A game registers one `GameSpec` in `engines/registry.py`. The runner, the
CLI, the benchmark, the report and the metrics use nothing else, so a new
game touches none of them. Everything generic code needs about a game is
declared here, never sniffed from column names:

    spec.variants        validated variant files (engines.core.variant)
    spec.policies        name -> PolicyInfo (integer id for the kernels,
                         named tunable weights with defaults)
    spec.tables          the result tables `simulate` returns, with a
                         one-line meaning for each column
    spec.kernel_params   Variant + player count -> the NamedTuple of ints and
                         arrays the kernels read (cheap; done once per batch)
    spec.simulate        play games [start, start + count) of a run; game i
                         depends only on (seed, i), never on the chunking
    spec.new_game        the step-by-step API over the same kernels: returns an
                         object satisfying `StepGame`
    spec.default_lineup  the line-up played when none is given (CLI, run_batch, experiment files)
    spec.turn_order      where the seat that moves first is written (None: seat 0)
    spec.tie_break       the games columns that record a tie-break (None: no tie-break)
    spec.labels          names of coded values in the tables (e.g. item 0 = "greenspace")
    spec.benchmark       the line-ups experiments/benchmark.py measures
    spec.source_digest   digest of the engine's source (engines.core.cache_guard): run
                         folders and cached batches are keyed on it
    spec.variant_facts   optional: a resolved variant's values -> facts the report shows
                         (Project Skyline: the card prices of the variant's card file)
    spec.ladder          the skill ladder's rungs, weakest first (with ladder_players,
                         ladder_games, ladder_findings_games: experiments/ladder.py)
    spec.strong_policies policies besides the search that count as strong play in the
                         findings' verdicts (measured at or above search(20))

The game's own report sections and experiment metrics live in the module
`analysis.<game_id>` (found by the game id; without one the game gets the
generic sections and metrics only).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from engines.core.variant import VariantLoader


@dataclass(frozen=True)
class PolicyInfo:
    """A scripted player. `weights` are its named, tunable knobs with defaults,
    in the order the kernel reads them from its weight row.

    `choices[w]` names the values weight w may take (a line-up writes the name:
    rollout=heuristic); `follow` names the choice weight whose chosen policy's own
    default weights are appended to this policy's row (the search player's rollout
    policy reads its weights from there)."""

    name: str
    policy_id: int
    description: str
    weights: dict[str, float] = field(default_factory=dict)
    choices: dict[str, dict[str, int]] = field(default_factory=dict)
    follow: str = ""
    weight_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)


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


@runtime_checkable
class StepGame(Protocol):
    """The step-by-step API every game's `new_game()` returns (same names in
    every game). Actions are ints; `legal_actions()` may return any container
    of them with len() (Skyline 3000 returns a BidSpace for bids); a container
    too large to list offers sample(numpy Generator) -> a legal action."""

    def phase(self) -> str: ...               # the current phase's name

    def current_player(self) -> int: ...      # seat to decide (-1 when over)

    def legal_actions(self) -> Any: ...

    def action_name(self, action: int) -> str: ...

    def apply(self, action: int) -> None: ...  # ValueError if illegal

    def observation(self, player: int) -> Any: ...  # what `player` may see

    def scores(self) -> Any: ...              # per seat

    def is_over(self) -> bool: ...

    def render(self) -> str: ...


@dataclass(frozen=True)
class TurnOrder:
    """Who moves first, so that generic code can count seats in turn order
    ("1st" = the seat that moves first, then clockwise).

    `column` is "table.column": a `games` column holds the seat that moves
    first (e.g. "games.first_key"); a `players` column is 1 on the row of
    the seat that moves first and 0 elsewhere (e.g. "players.key_player")."""

    column: str
    meaning: str = ""

    @property
    def table(self) -> str:
        return self.column.split(".", 1)[0]

    @property
    def name(self) -> str:
        return self.column.split(".", 1)[1]


@dataclass(frozen=True)
class TieBreak:
    """The `games` columns (0/1) that say how a level top score was settled."""

    level_on_points: str     # 1: the top score was level on points
    decided: str             # 1: a tie-break (not a shared win) picked the single winner


@dataclass(frozen=True)
class BenchmarkCase:
    """One line of experiments/benchmark.py: `games` games per repeat of
    `players` seats all played by `policy`. `c_reference` names the program
    of the C reference (benchmark --c-reference DIR) that plays the same
    games, for a speed ratio in the same run ("" for none), and `c_games`
    how many games it plays (C is faster: more games for the same time)."""

    players: int
    policy: str
    games: int
    c_reference: str = ""
    c_games: int = 0
    lineup: tuple[str, ...] = ()   # a mixed line-up instead of `policy` in every seat (the label is `policy`)
    variant: str = ""              # a named variant instead of the default (e.g. the C program's board)


def one_search_seat_case(games: int, players: int = 4) -> BenchmarkCase:
    """The search player's headline cost, the same line in every game: one
    search(iterations=400, rollout=heuristic) seat against heuristic players."""
    search = "search(iterations=400, rollout=heuristic)"
    return BenchmarkCase(players, f"{search} vs {players - 1} heuristic", games,
                         lineup=(search,) + ("heuristic",) * (players - 1))


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
    new_game: Callable[..., Any]          # -> StepGame
    max_weights: int = 8
    default_lineup: tuple[str, ...] = ("random",)
    turn_order: TurnOrder | None = None   # None: seat 0 moves first
    tie_break: TieBreak | None = None     # None: the game has no tie-break columns
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    benchmark: tuple[BenchmarkCase, ...] = ()
    source_digest: str = ""               # engines.core.cache_guard.check(package folder)
    # facts a report may show that follow from a resolved variant's values (e.g. card prices
    # read from the variant's card file): values dict -> {name: value}; None: no such facts
    variant_facts: Callable[[dict], dict] | None = None
    # the skill ladder (`skyline-lab ladder GAME`, experiments/ladder.py): rungs weakest first,
    # the table size, games per rating table and games per rung in self-play (findings)
    ladder: tuple[str, ...] = ()
    ladder_players: int = 0               # 0: default_players
    ladder_games: int = 200
    ladder_findings_games: int = 200
    # policies besides the search that count as strong play in the findings' verdicts ("appears only
    # for weak play": analysis.ladder.is_strong), each one measured at or above search(20) in this
    # game's ladder; () : only the search rungs
    strong_policies: tuple[str, ...] = ()
    # the learned expert (engines.core.expert.ExpertSpec: its features, model file and the trainer's
    # afterstate kernel); None: the game has no expert yet (`skyline-lab train` refuses it)
    expert: Any = None

    def policy(self, name: str) -> PolicyInfo:
        try:
            return self.policies[name]
        except KeyError:
            raise KeyError(f"unknown policy '{name}' for {self.game_id} "
                           f"(known: {', '.join(self.policies)})") from None

    def default_policies(self, players: int | None) -> list[str]:
        """The CLI's line-up: `default_lineup` for its own length (players
        None); for `players` seats its first `players` entries (one entry
        stands for every seat)."""
        lineup = list(self.default_lineup)
        if players is None or len(lineup) == 1:
            return lineup
        return [lineup[i % len(lineup)] for i in range(players)]


def seat_slot(game_index: int, seat: int, n_players: int, rotate: bool) -> int:
    """Which lineup slot sits at `seat` in game `game_index` (kernels inline the same rule)."""
    return (seat + game_index) % n_players if rotate else seat
