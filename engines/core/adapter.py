"""The engine adapter: a game supplies its rule kernels and its tables, the core builds the rest.

A vector-state game (one int64 state vector `d` plus its chance stream `rng`, rule numbers in
`cfg`, an optional float table `aux` its policies read) declares an `Engine`:

    ENGINE = Engine(
        game_file=__file__, name="cityline", tables=TABLES, dtypes=DTYPES, records="decisions",
        wide=("dice_code",), kernels=dict(reset_nb=..., legal_nb=..., ...), ...)

and gets from it, with no loop, view or lifetime of its own:

    ENGINE.simulate(kp, seat_policy_ids, seat_weights, rotate, seed, start, count)
        the batch run (spec.simulate): a scripted loop and, for line-ups with a look-ahead seat,
        a loop that also compiles the search; both cached kernels in the game's own __pycache__
    ENGINE.new_game(variant, n_players, seed, game_index, overrides) -> Game
        the step API with the contract's names only (engines.core.spec.StepGame)
    ENGINE.search_nb(st, ctx, w, prng, stats)
        the search player (engines.core.search) over the game's kernels

The kernels a game supplies (all compiled with engines.core.kernel's decorators):

    reset_nb(d, rng, cfg, seed, gi)            set up game gi of run `seed` (its chance stream too)
    legal_nb(d, cfg, out) -> n                 the legal actions (the step API's list)
    apply_nb(d, rng, cfg, a)                   apply a legal action and run the automatic steps
    to_move_nb(d) -> seat                      -1 once the game is over
    decide_nb(d, cfg, aux, pid, w, prng, legal, scratch) -> a
                                               scripted policy `pid` decides for the seat to move
                                               (the search's rollouts and every non-search seat);
                                               scratch: float64[SCRATCH_SIZE] (Engine.scratch_size:
                                               MAX_ACTIONS, and room for two states and a word),
                                               zeroed when its owner (a batch chunk, a step-API
                                               game, a search context) allocates it and kept for
                                               that owner's decisions, so a policy may keep data
                                               in it from one decision to the next (the learned
                                               expert's kept states, engines.core.expert)
    decide_scripted_nb(...)                    the same without the look-ahead policies (the
                                               scripted loop: compiles no rollouts)
    search_actions_nb(d, cfg, out) -> n        the actions the search tries (>= 1 while running)
    determinize_nb(d, rng, cfg, p, prng, buf)  redraw in place what seat p cannot see
    outcome_nb(d, cfg, work, score, key) -> use_key
                                               score and tie-break key per seat (work[s] keeps
                                               the parts the column writer reports)
    step_nb(d, rng, cfg, a, rec, wide, row) -> row
                                               the per-decision record hook: apply `a` (apply_nb)
                                               and write the rows it records into rec[:, row:]
                                               (narrow columns) and wide[:, row:] (the `wide`
                                               ones, int64); returns the next free row
    finish_nb(d, cfg, work, score, k, row0, players, games, rec, wide, r0, r1, slots)
                                               the end-of-game column writer: game k's own
                                               players rows row0.., games row k, and its record
                                               rows r0..r1 (the required columns are the core's)

Optional, for a game that records a second table as it plays (Engine.side, e.g. the running
score per round):

    side_nb(d, cfg, side, srow, s0, k) -> srow  after each step: write rows of game k (its first
                                               row s0) into side[:, srow:]; returns the next free
                                               row. The pool grows before a game when fewer than
                                               side_rows_per_game(kp, P)[1] rows are free (a game
                                               whose side rows are always the same number declares
                                               Engine.side_grows=False: allocated once, the growth
                                               is compiled out).

Optional, for a game that keeps a table summed over a chunk's games (Engine.chunk_tables, e.g.
card use per line-up slot):

    accumulate_nb(d, cfg, acc, slots)          after each game's finish_nb: add the finished game
                                               into acc (int64, zeroed per chunk, of the shape
                                               Engine.acc_shape(kp, P)); Engine.chunk_tables(kp,
                                               start, acc) turns it into tables after the chunk

Optional, for a game whose search tries stand-ins for actions it cannot list (e.g. a rule that
names a sealed bid, played as that rule's bid on the hand of the moment):

    chosen_nb(d, cfg, a) -> a                  the legal action the search's choice stands for
                                               (the step API's policy_action answers with it);
                                               the search's own apply and the batch loop's search
                                               seat translate through it, so apply_nb takes legal
                                               actions only and the scripted loop compiles none of it

Optional, for a game whose state vector is mostly room it seldom uses:

    copy_state_nb(dst, src)                    the search's copy of one state vector into another
                                               of the same game (the default copies it whole)

The record pool is shared by the chunk's games: step_nb may check `row < rec.shape[1]` and
drop what does not fit (a game may use what another left).

The loop stops a game still running after Engine.max_decisions decisions and simulate raises,
naming the game and the seat to move: an action the rules refuse leaves the state as it was, so a
policy that chose one would loop for ever (apply_nb is not asked to report it).

The loop writes games.search_simulated (engines.core.search SEARCH_SIMULATED: what the search
seats simulated); a game that offers no search player may leave the column out (its search_id is
then an id no policy has).

A game whose `games` table declares the optional choice columns (engines.core.harness
CHOICE_COLUMNS: n_choices, sum_legal) gets them counted by the loop: one legal_nb listing per
decision, compiled out for a game that does not declare them. So that a decision is not listed
twice (once to count, once to decide), such a game may also supply

    decide_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch) -> a
                                               decide_nb over the n legal actions already listed
                                               in legal (it stands for both decide kernels unless
                                               the game also supplies the next one)
    decide_scripted_listed_nb(...)             decide_scripted_nb over the listed actions (a game
                                               with look-ahead scripted policies: the scripted
                                               loop compiles no rollouts)

The numba discipline lives here. The batch loop owns every working array, plays on views
without reference counts (engines.core.lowlevel.unowned) and keeps the owners alive to the
end; the entry points convert every scalar to int64 / uint64 / bool before any kernel sees it,
so no game wraps a literal for the loop's sake. The loops are one source (below) compiled per
game: `_rebind` gives the template the game's kernels as globals and files it under the game's
own source file, so numba caches it in the game's __pycache__ (which engines.core.cache_guard
clears when the game's or the core's source changes).
"""
from __future__ import annotations

import types
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, NamedTuple

import numba
import numpy as np

from engines.core.harness import (
    CHOICE_COLUMNS, REQUIRED_GAME_COLUMNS, REQUIRED_PLAYER_COLUMNS, check_tables, column_arrays, columns, keep_alive_all,
    rank_nb, required_columns, seats_for_game_nb, seed_policies_nb, write_game_result_nb, write_seat_results_nb,
)
from engines.core.kernel import INLINE, KERNEL_OPTIONS, allocating_kernel, kernel
from engines.core.lineup import policy_row, seat_arrays
from engines.core.lowlevel import unowned
from engines.core.rng import POLICY_STREAM, new_stream
from engines.core.search import N_STATS, SEARCH_SIMULATED, STAT_SIMULATED, clone_pair_nb, copy_pair_into_nb, make_search
from engines.core.spec import TableSpec

KERNEL_NAMES = ("reset_nb", "legal_nb", "apply_nb", "to_move_nb", "decide_nb", "decide_scripted_nb",
                "search_actions_nb", "determinize_nb", "outcome_nb", "step_nb", "finish_nb")


class State(NamedTuple):
    """A vector-state game's state: the state vector and its chance stream (xoshiro256**)."""

    data: np.ndarray   # int64[state_size(P)]
    rng: np.ndarray    # uint64[4]


def copy_state(st: State) -> State:
    return State(st.data.copy(), st.rng.copy())


# ---------------------------------------------------------------- the loops, one source for every game
# Names in capitals are the game's, bound per game by `_rebind`: RESET_NB ... FINISH_NB (its
# kernels), SEARCH_NB, SEARCH_ID, MAX_ACTIONS, SCRATCH_SIZE, WORK_WIDTH, MAX_PLAYERS, the table sizes and dtypes,
# HAS_SIDE (a constant: without a side table its branches fold away) and, per loop variant, PLAY_NB
# (the game loop the chunk calls) and SEARCH_CONTEXT_NB.

def _templates(with_search):
    """play_game_nb / simulate_chunk_nb for line-ups with a look-ahead seat (with_search) or
    without one. `with_search` is a constant of the closure: numba prunes the look-ahead branches
    before typing, so a run of scripted players never compiles the search nor the rollouts."""

    def play_game_nb(d, rng, cfg, aux, seed, gi, pol, wts, prngs, legal, scratch, rec, wide, row, sctx, sstats,
                     side, srow, k):
        """Play game gi of run `seed` (chunk game k) to the end; returns (next free record row,
        decisions, next free side row, decisions with more than one legal action, legal actions
        summed over the decisions); the last two are counted only for a game that declares the
        choice columns (COUNT_CHOICES), else 0."""
        s0 = srow
        RESET_NB(d, rng, cfg, seed, gi)
        seed_policies_nb(prngs, seed, gi)
        decisions = 0
        choices = 0
        sum_legal = 0
        while True:
            p = TO_MOVE_NB(d)
            if p < 0 or decisions == MAX_DECISIONS:   # the cap: the chunk loop stops the run (below)
                break
            n = 0
            if COUNT_CHOICES:   # a constant: the listing is compiled out for a game without the columns
                n = LEGAL_NB(d, cfg, legal)
                sum_legal += n
                if n > 1:
                    choices += 1
            if with_search and pol[p] == SEARCH_ID:
                a = CHOSEN_NB(d, cfg, SEARCH_NB((d, rng), sctx, wts[p], prngs[p], sstats))
            elif DECIDE_LISTED:   # a constant: the listing above serves the decision too
                if with_search:
                    a = DECIDE_LISTED_NB(d, cfg, aux, pol[p], wts[p], prngs[p], legal, n, scratch)
                else:
                    a = DECIDE_SCRIPTED_LISTED_NB(d, cfg, aux, pol[p], wts[p], prngs[p], legal, n, scratch)
            elif with_search:
                a = DECIDE_NB(d, cfg, aux, pol[p], wts[p], prngs[p], legal, scratch)
            else:
                a = DECIDE_SCRIPTED_NB(d, cfg, aux, pol[p], wts[p], prngs[p], legal, scratch)
            row = STEP_NB(d, rng, cfg, a, rec, wide, row)
            if HAS_SIDE:
                srow = SIDE_NB(d, cfg, side, srow, s0, k)
            decisions += 1
        return row, decisions, srow, choices, sum_legal

    def simulate_chunk_nb(cfg, aux, seat_policy_ids, seat_weights, rotate, seed, start, count, state_size,
                          per_game, side_first, side_most, acc, stuck):
        """Games [start, start + count): (players[N_PL, count*P], games[N_GA, count], records[N_REC,
        >= rows], wide records int64[N_WIDE, >= rows], record game numbers int64[>= rows], side[N_SIDE,
        >= side rows], rows, side rows): the pools whole, their first `rows` / `side rows` columns
        used; matrix row j is table column j. `acc` (the caller's, zeroed) gets the chunk's
        sums (ACCUMULATE_NB). A game still running after MAX_DECISIONS decisions stops the chunk:
        `stuck` (the caller's, int64[2] of -1) gets its game number and the seat to move."""
        P = seat_policy_ids.shape[0]
        rec_own = np.empty((N_REC, count * per_game), REC_DTYPE)
        wide_own = np.empty((N_WIDE, count * per_game), np.int64)
        rgame_own = np.empty(count * per_game, np.int64)
        players = np.zeros((N_PL, count * P), PL_DTYPE)
        games = np.zeros((N_GA, count), GA_DTYPE)
        side_own = np.empty((N_SIDE, count * side_first), SIDE_DTYPE)
        srow = np.int64(0)
        # working arrays, allocated once per chunk; the hot loop uses views without reference counts
        # (engines.core.lowlevel), the owners are kept alive at the end
        d_own = np.zeros(state_size, np.int64)
        rng_own = np.zeros(4, np.uint64)
        prngs_own = np.zeros((P, 4), np.uint64)
        legal_own = np.empty(MAX_ACTIONS, np.int64)
        scratch_own = np.zeros(SCRATCH_SIZE)   # zeroed: a policy may keep data in it (decide_nb's contract)
        pol_own = np.empty(P, np.int64)
        wts_own = np.empty((P, seat_weights.shape[1]))
        work_own = np.zeros((P, WORK_WIDTH), np.int64)
        slots_own = np.empty(P, np.int64)
        score_own = np.zeros(P, np.int64)
        rank_own = np.zeros(P, np.int64)
        key_own = np.zeros(P, np.int64)
        d, rng, prngs, legal, scratch = unowned(d_own), unowned(rng_own), unowned(prngs_own), unowned(legal_own), \
            unowned(scratch_own)
        pol, wts, work = unowned(pol_own), unowned(wts_own), unowned(work_own)
        rec, wide, rgame = unowned(rec_own), unowned(wide_own), unowned(rgame_own)
        slots, score, rank, key = unowned(slots_own), unowned(score_own), unowned(rank_own), unowned(key_own)
        cfg = unowned(cfg)
        aux = unowned(aux)
        if with_search:
            sctx = SEARCH_CONTEXT_NB(cfg, aux)
        else:   # the scripted loop types no search context (its arrays would be compiled for nothing)
            sctx = 0
        sstats = np.zeros(N_STATS, np.int64)
        pl_b, ga_b, acc_b = unowned(players), unowned(games), unowned(acc)
        ids_b, sw_b = unowned(seat_policy_ids), unowned(seat_weights)
        row = np.int64(0)
        for k in range(count):
            gi = start + k
            seats_for_game_nb(gi, rotate, ids_b, sw_b, slots, pol, wts)
            r0 = row
            sstats[STAT_SIMULATED] = 0
            if HAS_SIDE and SIDE_GROWS:   # constants: a fixed-size side table is allocated whole above
                side_own = room_for_rows_nb(side_own, srow, side_most)
            side = unowned(side_own)   # this game's view (side_own keeps the pool alive)
            row, decisions, srow, choices, sum_legal = PLAY_NB(d, rng, cfg, aux, seed, gi, pol, wts, prngs, legal,
                                                               scratch, rec, wide, row, sctx, sstats, side, srow, k)
            if decisions == MAX_DECISIONS and TO_MOVE_NB(d) >= 0:
                # not over after the game's most decisions: a policy's action that the rules refused
                # (left the state as it was) would loop for ever. The caller raises (a raise here
                # would compile numba's exception machinery into every loop)
                stuck[0] = gi
                stuck[1] = TO_MOVE_NB(d)
                break
            use_key = OUTCOME_NB(d, cfg, work, score, key)
            n_win, n_top, winner, margin = rank_nb(score, key, use_key, rank)
            write_seat_results_nb(pl_b, k * P, PL_REQ, k, slots, score, rank, n_win)
            # np.int64: with the game loop inlined, numba also types `decisions` as the literal 0 of
            # its first assignment, and would compile the writer once more for it (engines.core.kernel)
            write_game_result_nb(ga_b, k, GA_REQ, k, winner, n_win, margin, np.int64(decisions), 0)
            if HAS_SEARCH:   # a constant: a game without the search player has no such column
                ga_b[GA_SEARCH, k] = sstats[STAT_SIMULATED]
            if COUNT_CHOICES:
                ga_b[GA_CHOICES, k] = choices
                ga_b[GA_SUM_LEGAL, k] = sum_legal
            for r in range(r0, row):
                rgame[r] = gi   # the run's game number: no conversion on the Python side
            FINISH_NB(d, cfg, work, score, k, k * P, pl_b, ga_b, rec, wide, r0, row, slots)
            if HAS_ACC:   # a constant: folded away for a game without a chunk table
                ACCUMULATE_NB(d, cfg, acc_b, slots)
        keep_alive_all(d_own, rng_own, prngs_own, legal_own, scratch_own, pol_own, wts_own, work_own,
                       slots_own, score_own, rank_own, key_own, seat_policy_ids, seat_weights, side_own)
        # whole pools and their used lengths: the caller slices (numba's 2-D slicing is IR that
        # every game's loop would type again)
        return players, games, rec_own, wide_own, rgame_own, side_own, row, srow

    return play_game_nb, simulate_chunk_nb


@allocating_kernel
def room_for_rows_nb(m, row, need):
    """m, or a copy twice as large (or enough) when fewer than `need` columns are free after `row`."""
    if row + need <= m.shape[1]:
        return m
    grown = np.empty((m.shape[0], max(2 * m.shape[1], row + need)), m.dtype)
    # a loop, not grown[:, :row] = m[:, :row]: the slice assignment compiles numba's shape-mismatch
    # error with its message formatting (~5 s of a cold scripted compile, measured on Skyline 3000)
    for i in range(m.shape[0]):
        for j in range(row):
            grown[i, j] = m[i, j]
    return grown


@kernel
def no_side_nb(d, cfg, side, srow, s0, k):
    """The side hook of a game without a side table (never called: HAS_SIDE folds it away)."""
    return srow


@kernel
def same_action_nb(d, cfg, a):
    """The search's choice of a game whose search lists legal actions only: itself."""
    return a


@kernel
def no_accumulate_nb(d, cfg, acc, slots):
    """The chunk sums of a game without a chunk table (never called: HAS_ACC folds it away)."""
    return 0


@kernel
def no_decide_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch):
    """The listed decision of a game without one (never called: DECIDE_LISTED folds it away)."""
    return np.int64(-1)


def search_context_nb(cfg, aux):
    """The ctx tuple the search glue reads: (cfg, aux, int buffer, float scratch, work)."""
    return (cfg, aux, np.empty(MAX_ACTIONS, np.int64), np.zeros(SCRATCH_SIZE),
            np.zeros((MAX_PLAYERS, WORK_WIDTH), np.int64))


def search_action_nb(d, rng, cfg, aux, w, prng, stats):
    """The search player's action for the seat to move (the step API's entry; cached)."""
    return CHOSEN_NB(d, cfg, SEARCH_NB((d, rng), SEARCH_CONTEXT_NB(cfg, aux), w, prng, stats))


def outcome_of_nb(d, cfg, work, score, key):
    """The step API's scores (a cached entry from Python)."""
    return OUTCOME_NB(d, cfg, work, score, key)


def _rebind(fn, glb: dict, game_file: str, module: str, name: str):
    """`fn`'s code with the game's globals, under `name`, filed under the game's source file: numba
    keys its cache on that file (its stamp and folder), so the compiled loop lives and dies with
    the game's own cache. Plain Python (NUMBA_DISABLE_JIT) keeps the core's file for debuggers."""
    code = fn.__code__
    if not numba.config.DISABLE_JIT:
        code = code.replace(co_filename=game_file)
    out = types.FunctionType(code, glb, name, fn.__defaults__, fn.__closure__)
    out.__qualname__ = name
    out.__module__ = module
    out.__doc__ = fn.__doc__
    return out


_GLUE = dict({k: v for k, v in KERNEL_OPTIONS.items() if k != "cache"}, **INLINE)


def _search_glue(k: SimpleNamespace, max_actions: int) -> SimpleNamespace:
    """engines.core.search's adapter over the game's kernels, for the (vector, stream) state and
    the ctx of search_context_nb. Closures over the game's kernels: compiled into the cached
    kernels that call the search, never cached on their own."""
    to_move, apply, decide, actions, determinize, outcome = (
        k.to_move_nb, k.apply_nb, k.decide_nb, k.search_actions_nb, k.determinize_nb, k.outcome_nb)
    copy_state = getattr(k, "copy_state_nb", None)
    chosen = getattr(k, "chosen_nb", None)
    jit = numba.njit(**_GLUE) if not numba.config.DISABLE_JIT else (lambda f: f)
    if copy_state is None:
        copy_into_nb = copy_pair_into_nb
    else:
        @jit
        def copy_into_nb(dst, src):
            copy_state(dst[0], src[0])
            to, fro = dst[1], src[1]
            for i in range(to.shape[0]):   # (a slice assignment would need reference counts)
                to[i] = fro[i]

    @jit
    def n_players_nb(st):
        return st[0][N_PLAYERS_SLOT]

    @jit
    def determinize_nb(st, ctx, p, prng):
        determinize(st[0], st[1], ctx[0], p, prng, ctx[2])

    @jit
    def to_move_nb(st):
        return to_move(st[0])

    @jit
    def actions_nb(st, ctx, out):
        return actions(st[0], ctx[0], out)

    if chosen is None:
        @jit
        def apply_nb(st, ctx, a):
            apply(st[0], st[1], ctx[0], a)
    else:   # the search plays its stand-ins as the actions they stand for; the game's apply_nb sees only those
        @jit
        def apply_nb(st, ctx, a):
            apply(st[0], st[1], ctx[0], chosen(st[0], ctx[0], a))

    @jit
    def rollout_nb(st, ctx, pid, w, prng, buf):
        return decide(st[0], ctx[0], ctx[1], pid, w, prng, buf, ctx[3])

    @jit
    def outcome_nb(st, ctx, score, key):
        return outcome(st[0], ctx[0], ctx[4], score, key)

    N_PLAYERS_SLOT = k.n_players_slot
    return SimpleNamespace(MAX_ACTIONS=max_actions, n_players_nb=n_players_nb, clone_nb=clone_pair_nb,
                           copy_into_nb=copy_into_nb, determinize_nb=determinize_nb, to_move_nb=to_move_nb,
                           actions_nb=actions_nb, apply_nb=apply_nb, rollout_nb=rollout_nb, outcome_nb=outcome_nb)


@dataclass
class Engine:
    """A vector-state game's declaration (module docstring). Python-side hooks:

    kernel_params(variant, n_players) -> kp    kp.cfg (int64) and kp.<aux> (float64) are what the
                                               kernels read; `aux` names that field
    state_size(P) -> int                       the state vector's length
    rows_per_game(kp, P) -> int                record rows one game writes at most
    phase(data) -> str, action_name(game, a) -> str, render(game) -> str,
    observe(kp, state, player) -> array        the step API's game-specific answers
    step_state(kp, data, rng) -> state         optional: the step API's state object over the
                                               vector (a game's own views; it keeps .data, .rng)
    legal_space(game) -> container | None      optional: the legal actions where they are too many
                                               to list (StepGame: len, `in`, sample), else None
    """

    name: str
    game_file: str
    module: str
    kernels: dict[str, Callable]
    tables: dict[str, TableSpec]
    dtypes: dict[str, dict[str, type]]
    records: str                      # the table the record hook writes
    wide: tuple[str, ...]             # its columns kept in int64 beside the narrow matrix
    policies: dict
    search_id: int                    # the search player's policy id (a game without one: an id no policy has)
    lookahead_ids: tuple[int, ...]    # policies that need the search loop (search and rollout players)
    max_actions: int
    max_players: int
    work_width: int
    n_players_slot: int               # the state vector's slot holding the player count
    variants: Any
    kernel_params: Callable
    state_size: Callable[[int], int]
    rows_per_game: Callable[[Any, int], int]
    phase: Callable
    action_name: Callable
    render: Callable
    observe: Callable
    default_players: int | None = 1   # None: the variant's own (kernel_params(variant, None))
    aux: str = "aux"
    weight_width: int = 8
    max_decisions: int = 1_000_000    # a game's decisions at most: the batch loop stops a game past it
    #                                   (a policy whose action the rules refuse would loop for ever)
    side: str | None = None           # a second record table, written by side_nb as the game goes
    side_rows_per_game: Callable | None = None   # (kp, P) -> (rows a game usually writes, at most)
    side_grows: bool = True           # False: a game writes the same side rows every time (usually ==
    #                                   at most), the pool is allocated whole and the loop never grows it
    extra_columns: Callable | None = None        # (kp, count, {table: matrix}) -> {table: {column:
    #                                              array}}: columns kept outside the kernels' matrices
    scores: Callable | None = None    # (game) -> scores: the step API's, when outcome_nb's differ
    step_state: Callable | None = None    # (kp, data, rng) -> the step API's state (default State)
    legal_space: Callable | None = None   # (game) -> a container too large to list, or None
    acc_shape: Callable | None = None     # (kp, P) -> the int64 chunk sums' shape (2-D), for accumulate_nb
    chunk_tables: Callable | None = None  # (kp, start, acc) -> {table: {column: array}}: tables of a chunk
    built: SimpleNamespace = field(default=None, repr=False)

    @property
    def scratch_size(self) -> int:
        """The decision scratch's length (decide_nb): MAX_ACTIONS, and room for two states of the
        most seats and a word (the learned expert keeps its sample and its candidates' state there)."""
        widest = max(int(self.state_size(p)) for p in range(1, self.max_players + 1))
        return max(int(self.max_actions), 2 * widest + 1)

    def __post_init__(self):
        missing = [n for n in KERNEL_NAMES if n not in self.kernels]
        if self.side is not None and "side_nb" not in self.kernels:
            missing.append("side_nb")
        if self.chunk_tables is not None and "accumulate_nb" not in self.kernels:
            missing.append("accumulate_nb")
        if "decide_scripted_listed_nb" in self.kernels and "decide_listed_nb" not in self.kernels:
            missing.append("decide_listed_nb (beside decide_scripted_listed_nb)")
        if missing:
            raise KeyError(f"engine {self.name}: no kernel(s) {', '.join(missing)}")
        check_tables(self.tables)
        rec = self.tables[self.records]
        k = SimpleNamespace(**self.kernels, n_players_slot=self.n_players_slot)
        players, games = self.tables["players"], self.tables["games"]
        # the search player writes games.search_simulated; a game that offers none may leave it out
        has_search = SEARCH_SIMULATED.name in games.names
        if not has_search and self.search_id in {p.policy_id for p in self.policies.values()}:
            raise KeyError(f"engine {self.name}: a game with the search player declares games.{SEARCH_SIMULATED.name}")
        glb = dict(globals())
        glb.update({n.upper(): f for n, f in self.kernels.items()})
        side = self.tables[self.side] if self.side is not None else None
        glb.setdefault("SIDE_NB", no_side_nb)
        glb.setdefault("ACCUMULATE_NB", no_accumulate_nb)
        glb.setdefault("CHOSEN_NB", same_action_nb)
        glb.setdefault("DECIDE_LISTED_NB", no_decide_listed_nb)
        glb.setdefault("DECIDE_SCRIPTED_LISTED_NB", glb["DECIDE_LISTED_NB"])
        glb.update(
            SEARCH_ID=int(self.search_id), MAX_ACTIONS=int(self.max_actions), SCRATCH_SIZE=self.scratch_size,
            WORK_WIDTH=int(self.work_width),
            MAX_PLAYERS=int(self.max_players),
            N_PL=len(players.names), N_GA=len(games.names), N_REC=len(rec.names), N_WIDE=max(1, len(self.wide)),
            PL_DTYPE=_matrix_dtype(self.dtypes["players"], players, ()),
            GA_DTYPE=_matrix_dtype(self.dtypes["games"], games, ()),
            REC_DTYPE=_matrix_dtype(self.dtypes[self.records], rec, ("game",) + tuple(self.wide)),
            PL_REQ=required_columns(players, REQUIRED_PLAYER_COLUMNS),
            GA_REQ=required_columns(games, REQUIRED_GAME_COLUMNS),
            HAS_SEARCH=has_search, GA_SEARCH=columns(games, SEARCH_SIMULATED.name) if has_search else 0,
            **_choice_columns(games),
            DECIDE_LISTED=bool(_choice_columns(games)["COUNT_CHOICES"] and "decide_listed_nb" in self.kernels),
            HAS_SIDE=side is not None, N_SIDE=len(side.names) if side is not None else 1,
            HAS_ACC=self.chunk_tables is not None, MAX_DECISIONS=int(self.max_decisions), SIDE_GROWS=bool(self.side_grows),
            SIDE_DTYPE=_matrix_dtype(self.dtypes[self.side], side, ()) if side is not None else np.int64)
        glue = _search_glue(k, self.max_actions)
        glb["SEARCH_NB"] = make_search(glue)

        def compiled(fn, name, allocates):
            f = _rebind(fn, glb, self.game_file, self.module, f"{self.name}_{name}")
            return allocating_kernel(f) if allocates else kernel(f)

        def compiled_in(fn, g, name):
            return allocating_kernel(_rebind(fn, g, self.game_file, self.module, f"{self.name}_{name}"))

        def bound(fn, name):   # the search context: numba's inlining, typed in each caller
            f = _rebind(fn, glb, self.game_file, self.module, f"{self.name}_{name}")
            return f if numba.config.DISABLE_JIT else numba.njit(inline="always", **KERNEL_OPTIONS)(f)

        glb["SEARCH_CONTEXT_NB"] = bound(search_context_nb, "search_context_nb")
        built = {}
        for with_search in (True, False):
            play, chunk = _templates(with_search)
            tag = "" if with_search else "_scripted"
            g = dict(glb)
            # the game loop is copied into its only caller (numba's inlining, as engines.core.kernel
            # allows for a thin loop): as a kernel of its own, LLVM optimised and emitted the whole
            # game's code once for it and once more when linking it into the chunk loop
            g["PLAY_NB"] = built[f"play_game{tag}_nb"] = bound(play, f"play_game{tag}_nb")
            built[f"simulate_chunk{tag}_nb"] = compiled_in(chunk, g, f"simulate_chunk{tag}_nb")
        # the compiled kernels under their names (tests and benchmarks look them up here)
        self.built = SimpleNamespace(
            **built, glue=glue, search_nb=glb["SEARCH_NB"], search_context_nb=glb["SEARCH_CONTEXT_NB"],
            search_action_nb=compiled(search_action_nb, "search_action_nb", True),
            outcome_nb=compiled(outcome_of_nb, "outcome_nb", False))

    # ------------------------------------------------------------ batch
    def simulate(self, kparams, seat_policy_ids, seat_weights, rotate: bool, seed: int, start: int,
                 count: int) -> dict[str, dict[str, np.ndarray]]:
        """Play games [start, start + count) of run `seed` -> {table: {column: array}}."""
        P = int(kparams.n_players)
        ids, w = seat_arrays(seat_policy_ids, seat_weights, P, min_width=self.weight_width)
        b = self.built
        chunk = b.simulate_chunk_nb if np.isin(ids, self.lookahead_ids).any() else b.simulate_chunk_scripted_nb
        side_first, side_most = self.side_rows_per_game(kparams, P) if self.side is not None else (0, 0)
        if not self.side_grows and side_first != side_most:
            raise ValueError(f"engine {self.name}: side_grows=False but a game writes {side_first} to {side_most} side rows")
        acc = np.zeros(self.acc_shape(kparams, P) if self.chunk_tables is not None else (1, 1), np.int64)
        stuck = np.full(2, -1, np.int64)
        players, games, rec, wide, rgame, side, rows, side_rows = chunk(
            kparams.cfg, getattr(kparams, self.aux), ids, w, bool(rotate), np.uint64(seed), np.int64(start),
            np.int64(count), np.int64(self.state_size(P)), np.int64(self.rows_per_game(kparams, P)),
            np.int64(side_first), np.int64(side_most), acc, stuck)
        if stuck[0] >= 0:
            g, seat = int(stuck[0]), int(stuck[1])
            pid = int(ids[(seat + g) % P if rotate else seat])   # harness.seats_for_game_nb
            name = next((n for n, info in self.policies.items() if info.policy_id == pid), pid)
            raise RuntimeError(
                f"{self.name}: game {g} of run {seed} still running after {self.max_decisions} decisions, seat "
                f"{seat} ({name}) to move: its policy chose an action the rules refuse (the state did not change)?")
        rec, wide, rgame, side = rec[:, :rows], wide[:, :rows], rgame[:rows], side[:, :side_rows]
        raw = {"players": players, "games": games, self.records: rec}
        if self.side is not None:
            raw[self.side] = side
        extra = self.extra_columns(kparams, count, raw) if self.extra_columns is not None else {}
        special = {"game": rgame, **{name: wide[i] for i, name in enumerate(self.wide)}}
        extra[self.records] = {**extra.get(self.records, {}), **special}
        out = {t: column_arrays(m, self.tables[t], self.dtypes[t], start, extra.get(t)) for t, m in raw.items()}
        if self.chunk_tables is not None:
            out.update(self.chunk_tables(kparams, int(start), acc))
        return out

    # ------------------------------------------------------------ step API
    def state_of(self, kp, data: np.ndarray, rng: np.ndarray):
        """The step API's state over a state vector and its chance stream (step_state's or State)."""
        return State(data, rng) if self.step_state is None else self.step_state(kp, data, rng)

    def new_game(self, variant=None, n_players: int | None = None, seed: int = 0, game_index: int = 0,
                 overrides: dict | None = None) -> "Game":
        """Game `game_index` of run `seed` (variant name, path or loaded Variant)."""
        from engines.core.variant import Variant
        if not isinstance(variant, Variant):
            variant = self.variants.load(variant, overrides)
        kp = self.kernel_params(variant, self.default_players if n_players is None else int(n_players))
        P = int(kp.n_players)
        st = self.state_of(kp, np.zeros(self.state_size(P), np.int64), np.zeros(4, np.uint64))
        self.kernels["reset_nb"](st.data, st.rng, kp.cfg, np.uint64(seed), np.int64(game_index))
        prngs = [new_stream(np.uint64(seed), np.int64(game_index), POLICY_STREAM + s) for s in range(P)]
        return Game(self, kp, variant, st, seed, game_index, prngs)


def _choice_columns(games: TableSpec) -> dict:
    """COUNT_CHOICES and the positions of the optional choice columns (engines.core.harness
    CHOICE_COLUMNS): counted when the games table declares both, a KeyError when only one."""
    names = [c.name for c in CHOICE_COLUMNS]
    declared = [n for n in names if n in games.names]
    if declared and len(declared) < len(names):
        raise KeyError(f"table 'games' declares {declared} but not all of {names}: declare both or neither")
    if not declared:
        return dict(COUNT_CHOICES=False, GA_CHOICES=0, GA_SUM_LEGAL=0)
    at = columns(games, *names)
    return dict(COUNT_CHOICES=True, GA_CHOICES=at[0], GA_SUM_LEGAL=at[1])


def _matrix_dtype(dtypes: dict[str, type], table: TableSpec, outside: tuple[str, ...]):
    """The one dtype a table's kernel matrix holds: its columns' (those kept outside excepted)
    when they agree, else int64 (column_arrays casts each column to its own dtype)."""
    kinds = {np.dtype(dtypes[n]) for n in table.names if n not in outside and n != "game"}
    return kinds.pop().type if len(kinds) == 1 else np.int64


class Game:
    """The step-by-step API over the batch loop's kernels (engines.core.spec.StepGame). Game
    `game_index` of run `seed` rolls the same chance as the batch game, and `policy_action` draws
    from the same per-seat policy stream, so a game played with policy_action for every decision
    replays the batch game exactly."""

    def __init__(self, engine: Engine, kp, variant, state: State, seed: int, game_index: int,
                 prngs: list[np.ndarray]):
        self.engine = engine
        self.kp = kp
        self.variant = variant
        self.state = state
        self.seed = seed
        self.game_index = game_index
        self._prngs = prngs
        self._legal = np.empty(engine.max_actions, np.int64)
        self._scratch = np.zeros(engine.scratch_size)   # zeroed: decide_nb's contract
        self.search_stats = np.zeros(N_STATS, np.int64)  # engines.core.search STAT_*: what searches cost

    @property
    def n_players(self) -> int:
        return len(self._prngs)

    def phase(self) -> str:
        return self.engine.phase(self.state.data)

    def current_player(self) -> int:
        """Seat to decide, -1 when the game is over."""
        return int(self.engine.kernels["to_move_nb"](self.state.data))

    def legal_actions(self):
        """The legal actions: a list, or the game's container where they are too many to list."""
        if self.is_over():
            return []
        if self.engine.legal_space is not None:
            space = self.engine.legal_space(self)
            if space is not None:
                return space
        n = self.engine.kernels["legal_nb"](self.state.data, self.kp.cfg, self._legal)
        return [int(a) for a in self._legal[:n]]

    def action_name(self, action: int) -> str:
        return self.engine.action_name(self, int(action))

    def apply(self, action: int) -> None:
        """Apply a legal action (ValueError otherwise)."""
        if self.is_over():
            raise ValueError("the game is over")
        if int(action) not in self.legal_actions():
            raise ValueError(f"illegal action {action} ({self.action_name(action)}) in phase {self.phase()}")
        self.engine.kernels["apply_nb"](self.state.data, self.state.rng, self.kp.cfg, np.int64(action))

    def policy_action(self, name: str, weights: np.ndarray | dict[str, float] | None = None,
                      stream: np.ndarray | None = None) -> int:
        """The action policy `name` picks for the player to move (draws from that seat's stream).
        `name` may carry weights as in a line-up: "search(iterations=200, rollout=heuristic)";
        `weights` replaces its row, or (a dict, as a line-up seat's) some of its named weights.
        `stream` (a uint64[4] policy stream, engines.core.rng.new_stream) is drawn from instead of
        the seat's, which is left as it was: a policy asked aside, the game still the batch game."""
        e = self.engine
        p = self.current_player()
        prng = self._prngs[p] if stream is None else stream
        info, row = policy_row(e.policies, name, e.weight_width)
        if isinstance(weights, dict):
            names = list(info.weights)
            for k, v in weights.items():
                row[names.index(k)] = v
        elif weights is not None:   # a shorter row reads zeros past its end, as simulate's
            given = np.asarray(weights, np.float64)
            row = np.zeros(max(e.weight_width, len(given)))
            row[:len(given)] = given
        aux = getattr(self.kp, e.aux)
        if info.policy_id == e.search_id:
            return int(e.built.search_action_nb(self.state.data, self.state.rng, self.kp.cfg, aux, row,
                                                prng, self.search_stats))
        return int(e.kernels["decide_nb"](self.state.data, self.kp.cfg, aux, np.int64(info.policy_id), row,
                                          prng, self._legal, self._scratch))

    def observation(self, player: int) -> np.ndarray:
        """The state as `player` sees it."""
        return self.engine.observe(self.kp, self.state, int(player))

    def is_over(self) -> bool:
        return self.current_player() < 0

    def scores(self) -> list[int]:
        """Score per seat (final once the game is over)."""
        if self.engine.scores is not None:
            return self.engine.scores(self)
        P = self.n_players
        score, key = np.zeros(P, np.int64), np.zeros(P, np.int64)
        self.engine.built.outcome_nb(self.state.data, self.kp.cfg, np.zeros((P, self.engine.work_width), np.int64),
                                     score, key)
        return [int(x) for x in score]

    def clone(self) -> "Game":
        st = self.engine.state_of(self.kp, self.state.data.copy(), self.state.rng.copy())
        return Game(self.engine, self.kp, self.variant, st, self.seed, self.game_index,
                    [p.copy() for p in self._prngs])

    def render(self) -> str:
        return self.engine.render(self)

    def __str__(self) -> str:
        return self.render()
