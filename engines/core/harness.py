"""The compiled harness every game's batch loop shares.

A game's `simulate_chunk_nb` keeps only what is its own (playing one game,
reading its state into its own columns); the steps every game repeats are
here, once, as kernels the game's loop calls (never passed as arguments:
numba's on-disk cache does not survive functions passed as arguments):

    seats_for_game_nb(gi, rotate, slot_pids, slot_w, slots, pids, w)
        seat rotation: game gi seats line-up slot (s + gi) % P at seat s when
        `rotate` (spec.seat_slot is the same rule in Python), and copies that
        slot's policy id and weight row to the seat
    seed_chance_nb(rng, seed, gi) / seed_policies_nb(prngs, seed, gi)
        the game's streams from (run seed, game index, stream): chance stream
        CHANCE_STREAM, seat s's policy stream POLICY_STREAM + s (engines.core.rng)
    rank_nb(score, key, use_key, rank) -> (n_winners, n_top, winner, margin)
        ranks from a per-seat score (and an optional tie-break key)
    write_seat_results_nb(pl, row0, PL_REQ, game, slots, score, rank, n_win)
    write_game_result_nb(ga, row, GA_REQ, game, winner, n_win, margin, decisions, stalled)
        the toolkit's required columns (REQUIRED_PLAYER_COLUMNS,
        REQUIRED_GAME_COLUMNS), written by name
    keep_alive_all(*owners)
        the end of the refcount-free buffer pattern (below)

Output columns by name. A kernel writes into a column-major matrix
`out[column, row]` (one contiguous row per table column: the Python side
converts each column with one cast; a game with row-major `pl[row, column]`
passes `pl.T`). Column positions come from the table declaration, resolved
once at import into module-level ints, which numba freezes into the
compiled code as constants:

    from engines.core.harness import columns, required_columns, check_tables
    PL_SKY, PL_X = columns(PLAYERS, "sky", "x_count")   # KeyError at import if misspelled
    PL_REQ = required_columns(PLAYERS, REQUIRED_PLAYER_COLUMNS)
    GA_REQ = required_columns(GAMES, REQUIRED_GAME_COLUMNS)

Reordering tables.py then moves every write with it; a missing required
column fails at import (check_tables). The required columns may sit
anywhere in a table: the toolkit checks presence, never position (Parquet
files keep today's column order).

The refcount-free buffer pattern (engines.core.lowlevel): the batch loop is
an allocating kernel, so numba counts references to the arrays it handles
(a runtime call on each use that hands one on; the rule kernels it calls have
no counts at all, engines.core.kernel). The loop allocates its working arrays
once per chunk, takes views without a count, plays every game on the views,
and mentions each owner once after the loop so numba cannot free it early:

    d_own = np.zeros(n, np.int64)
    d = unowned(d_own)
    for k in range(count):
        ...play on d...
    keep_alive_all(d_own, rng_own, ...)

A new game's loop, whole:

    for k in range(count):
        gi = start + k
        seats_for_game_nb(gi, rotate, slot_pids, slot_w, slots, pids, w)
        seed_chance_nb(rng, seed, gi); seed_policies_nb(prngs, seed, gi)
        ...play the game, fill score[s] (and a tie-break key)...
        n_win, n_top, winner, margin = rank_nb(score, key, use_key, rank)
        write_seat_results_nb(pl, k * P, PL_REQ, k, slots, score, rank, n_win)
        write_game_result_nb(ga, k, GA_REQ, k, winner, n_win, margin, decisions, 0)
        ...the game's own columns, by name...
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from engines.core.kernel import inline_kernel, kernel
from engines.core.lowlevel import keep_alive_all  # noqa: F401 (the loop pattern's end, below)
from engines.core.rng import CHANCE_STREAM, POLICY_STREAM, derive_seed, seed_into
from engines.core.spec import Column, TableSpec

# ---------------------------------------------------------------- required columns (the toolkit's)
# order here is the order of the index tuples the writers take, not the table's order
REQUIRED_PLAYER_COLUMNS = ("game", "seat", "lineup_slot", "score", "rank", "win", "shared_win")
REQUIRED_GAME_COLUMNS = ("game", "winner", "n_winners", "margin", "decisions", "stalled")
REQUIRED = {"players": REQUIRED_PLAYER_COLUMNS, "games": REQUIRED_GAME_COLUMNS}

# Optional `games` columns: how much choice the game offered (analysis.quality's real_choice and
# branching_factor). A game whose games table declares both gets them counted by its batch loop
# (the core adapter's does it for any game that declares them); a game without them is reported as
# "not measured", never as no choice. Counted over every decision the loop asks a policy for, with
# the legal actions the step API would list (legal_actions()).
N_CHOICES = Column("n_choices", "decisions with more than one legal action (a real choice)")
SUM_LEGAL = Column("sum_legal", "legal actions summed over the game's decisions (/ decisions: the mean "
                   "branching factor)")
CHOICE_COLUMNS = (N_CHOICES, SUM_LEGAL)


def columns(table: TableSpec, *names: str):
    """Positions of `names` in `table` (one int for one name, else a tuple), for module-level
    constants. A name the table does not declare raises KeyError, so a misspelled or removed
    column fails when the batch module is imported, not as a silently mislabelled column."""
    known = table.names
    if len(set(known)) != len(known):
        dup = sorted({n for n in known if known.count(n) > 1})
        raise ValueError(f"table '{table.name}' declares column(s) {dup} twice")
    out = []
    for n in names:
        if n not in known:
            raise KeyError(f"table '{table.name}' has no column '{n}' (columns: {', '.join(known)})")
        out.append(known.index(n))
    return out[0] if len(out) == 1 else tuple(out)


def required_columns(table: TableSpec, required: Iterable[str]) -> tuple[int, ...]:
    """Positions of the required columns in `table`, in `required`'s order (for the writers)."""
    idx = columns(table, *required)
    return idx if isinstance(idx, tuple) else (idx,)


def check_tables(tables: dict[str, TableSpec]) -> None:
    """Every table the toolkit requires is there with its required columns (any position)."""
    for name, req in REQUIRED.items():
        if name not in tables:
            raise KeyError(f"a game must declare a '{name}' table (required columns: {', '.join(req)})")
        missing = [c for c in req if c not in tables[name].names]
        if missing:
            raise KeyError(f"table '{name}' lacks the required column(s) {', '.join(missing)}")
        columns(tables[name], *tables[name].names)  # duplicate check
    for t in tables.values():
        if "game" not in t.names:
            raise KeyError(f"table '{t.name}' lacks the required column 'game'")


def column_arrays(matrix: np.ndarray, table: TableSpec, dtypes: dict[str, type], game_offset: int = 0,
                  special: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Column-major kernel output -> {column: array} in the table's order. matrix[j] is column
    j, cast to dtypes[name]; the matrix's `game` row is a chunk-local index to which
    `game_offset` is added (as int64, then cast to dtypes["game"]). `special[name]` replaces a
    column kept outside the matrix and is taken as final (cast to dtypes[name] only if it
    differs; a special `game` column holds the run's game numbers already)."""
    missing = [n for n in table.names if n not in dtypes]
    if missing:
        raise KeyError(f"no dtype for column(s) {missing} of table '{table.name}'")
    out = {}
    for j, name in enumerate(table.names):
        if special is not None and name in special:
            out[name] = special[name].astype(dtypes[name], copy=False)
        elif name == "game":
            out[name] = (matrix[j].astype(np.int64) + game_offset).astype(dtypes[name], copy=False)
        else:
            out[name] = matrix[j].astype(dtypes[name], copy=False)
    return out


# ---------------------------------------------------------------- seats and streams

@inline_kernel
def seat_slot_nb(gi, s, n_players, rotate):
    """Line-up slot of seat s in game gi (spec.seat_slot is the same rule in Python)."""
    return (s + gi) % n_players if rotate else s


@inline_kernel
def seats_for_game_nb(gi, rotate, slot_pids, slot_w, slots, pids, w):
    """Seat the line-up for game gi: slots[s] = slot at seat s, pids[s] / w[s] = its policy id
    and weight row (P = len(slots))."""
    P = slots.shape[0]
    for s in range(P):
        slot = (s + gi) % P if rotate else s
        slots[s] = slot
        pids[s] = slot_pids[slot]
        for k in range(w.shape[1]):
            w[s, k] = slot_w[slot, k]


@inline_kernel
def seed_chance_nb(rng, seed, gi):
    """The chance stream of game gi of run `seed`."""
    seed_into(rng, derive_seed(seed, gi, np.int64(CHANCE_STREAM)))


@inline_kernel
def seed_policies_nb(prngs, seed, gi):
    """prngs[s] = seat s's policy stream of game gi of run `seed`."""
    for s in range(prngs.shape[0]):
        seed_into(prngs[s], derive_seed(seed, gi, np.int64(POLICY_STREAM + s)))


# ---------------------------------------------------------------- results

@inline_kernel
def rank_nb(score, key, use_key, rank):
    """rank[s] = 1 + seats strictly ahead of s: a higher score, or (use_key) the same score and a
    higher key. Returns (n_winners: seats ranked 1, n_top: seats on the top score, winner: the
    last seat ranked 1, margin: its score minus the best other seat's score if it wins alone
    and P > 1, else 0)."""
    P = score.shape[0]
    n_win = 0
    n_top = 0
    top = score[0]
    for s in range(1, P):
        if score[s] > top:
            top = score[s]
    winner = -1
    for s in range(P):
        r = 1
        for q in range(P):
            if score[q] > score[s] or (use_key and score[q] == score[s] and key[q] > key[s]):
                r += 1
        rank[s] = r
        if r == 1:
            n_win += 1
            winner = s
        if score[s] == top:
            n_top += 1
    margin = 0
    if n_win == 1 and P > 1:
        best = -(1 << 62)
        for s in range(P):
            if s != winner and score[s] > best:
                best = score[s]
        margin = score[winner] - best
    return n_win, n_top, winner, margin


@inline_kernel
def write_seat_results_nb(pl, row0, req, game, slots, score, rank, n_win):
    """Rows row0 .. row0 + P - 1 of a column-major players matrix: the required columns, `req`
    = required_columns(PLAYERS, REQUIRED_PLAYER_COLUMNS). win = ranked 1 (a shared win counts for
    each sharer), shared_win = ranked 1 with others."""
    P = score.shape[0]
    for s in range(P):
        r = row0 + s
        pl[req[0], r] = game
        pl[req[1], r] = s
        pl[req[2], r] = slots[s]
        pl[req[3], r] = score[s]
        pl[req[4], r] = rank[s]
        pl[req[5], r] = 1 if rank[s] == 1 else 0
        pl[req[6], r] = 1 if rank[s] == 1 and n_win > 1 else 0


@inline_kernel
def write_game_result_nb(ga, row, req, game, winner, n_win, margin, decisions, stalled):
    """Row `row` of a column-major games matrix: the required columns, `req` =
    required_columns(GAMES, REQUIRED_GAME_COLUMNS); winner is -1 unless one seat wins alone."""
    ga[req[0], row] = game
    ga[req[1], row] = winner if n_win == 1 else -1
    ga[req[2], row] = n_win
    ga[req[3], row] = margin
    ga[req[4], row] = decisions
    ga[req[5], row] = stalled


