"""Coin: a toy game registered only in the experiment tests, on the engine adapter.

Rules. Each seat is dealt 0-19 points and one seat is drawn as the Key Player; the game lasts
10-19 turns, the Key first, then around the table. On its first two turns the Key Player hands
out two coins of key_bonus * (multiplier - 1) points each, each to a seat of its choice (itself
included) or back to the bank; every later turn is a pass. With fewer than 6 platforms the 2nd seat (the one after
the Key) gets (6 - platforms) points. Highest score wins; a level top score is shared. A game
is recorded as stalled with chance 1/50 (nothing else changes: stalls are chance alone).

Known effects an experiment must find: a skilled player keeps round(2 * skill) of the coins and
returns the others, so the Key Player gets 2 * key_bonus * (multiplier - 1) * skill points, where
skill is 0.5 for greedy and 1 for strong; random hands each coin uniformly to a seat or the bank,
which favours no seat; and the 2nd seat gets (6 - platforms). Chance (the dealt points, the Key, the length, the stall) is drawn when a
game is set up, from (seed, game index) alone: common random numbers across variants.

It is also the proof of the recipe for a new game (README, Layout), in one file: the variant
schema and rule parameters (PARAMS), the state layout (META, SEAT), the rule kernels, the
policies, the result tables and the record hook, and `ENGINE`, from which the core
(engines.core.adapter) builds the batch loop and the step Game. coin_analysis.py is its
analysis module (installed as analysis.coin by conftest.py) and conftest.py's
`registry.register` its registration line; nothing else in the toolkit names it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.core import cache_guard

SOURCE_DIGEST = cache_guard.check(Path(__file__).parent)  # before any kernel is compiled

from engines.core.adapter import Engine  # noqa: E402
from engines.core.harness import columns, seed_chance_nb  # noqa: E402
from engines.core.kernel import kernel  # noqa: E402
from engines.core.layout import Field, Layout, Param, ParamLayout, kernel_params_type  # noqa: E402
from engines.core.rng import below, next_u64, seed_into  # noqa: E402
from engines.core.spec import BenchmarkCase, Column, GameSpec, PolicyInfo, TableSpec, TurnOrder  # noqa: E402
from engines.core.variant import Rule, VariantLoader  # noqa: E402

MAX_PLAYERS = 4
DEALT = 20          # points dealt per seat: 0 .. DEALT - 1
COINS = 2           # coins the Key Player hands out
STALL_ODDS = 50     # a game stalls with chance 1 / STALL_ODDS

# ---------------------------------------------------------------- variant schema and rule parameters
PARAMS = ParamLayout([
    Param("n_players", meaning="players at the table (derived)"),
    Param("multiplier", key="scoring.multiplier", rule=Rule("int", 1, 4, doc="a coin is worth key_bonus x (multiplier - 1)")),
    Param("key_bonus", key="scoring.key_bonus", rule=Rule("int", 0, 5, doc="points per coin, before the multiplier")),
    Param("platforms", key="board.platforms", rule=Rule("int", 3, 6, doc="fewer than 6 give the 2nd seat (6 - platforms)")),
])
SCHEMA = PARAMS.schema()
# --- PARAMS's constants, prefix K_ (python -m engines.core.layout FILE writes them: edit PARAMS) ---
K_N_PLAYERS = 0   # players at the table (derived)
K_MULTIPLIER = 1  # a coin is worth key_bonus x (multiplier - 1)
K_KEY_BONUS = 2   # points per coin, before the multiplier
K_PLATFORMS = 3   # fewer than 6 give the 2nd seat (6 - platforms)
K_SIZE = 4        # the layout's size (params)
K_END = 4         # the first index after it
PARAMS.check(globals(), "K_")
VARIANTS = VariantLoader("coin", Path(__file__).parent / "coin_variants", SCHEMA)
KernelParams = kernel_params_type(PARAMS, __name__, aux="aux")
NO_AUX = np.zeros(1)   # the adapter hands policies a float table; Coin's read none


def kernel_params(variant=None, n_players: int = 3) -> KernelParams:
    if variant is None:
        variant = VARIANTS.load("default")
    if not 1 <= n_players <= MAX_PLAYERS:
        raise ValueError(f"coin plays 1-{MAX_PLAYERS} players, not {n_players}")
    return KernelParams(PARAMS.fill(variant.values, n_players=n_players), NO_AUX)


# ---------------------------------------------------------------- state: one int64 vector
META = Layout("meta", [
    Field("nplayers", 1, "players at the table"),
    Field("key", 1, "the Key Player's seat (moves first)"),
    Field("turns", 1, "turns the game lasts"),
    Field("turn", 1, "turns taken"),
    Field("stalled", 1, "1: the game is recorded as stalled"),
])
# --- META's constants, prefix M_ (python -m engines.core.layout FILE writes them: edit META) ---
M_NPLAYERS = 0  # players at the table
M_KEY = 1       # the Key Player's seat (moves first)
M_TURNS = 2     # turns the game lasts
M_TURN = 3      # turns taken
M_STALLED = 4   # 1: the game is recorded as stalled
M_SIZE = 5      # the layout's size (meta)
M_END = 5       # the first index after it
META.check(globals(), "M_")
SEAT = Layout("seat", [Field("dealt", 1, "points dealt"), Field("coins", 1, "coins received")])
# --- SEAT's constants, prefix S_ (python -m engines.core.layout FILE writes them: edit SEAT) ---
S_DEALT = 0  # points dealt
S_COINS = 1  # coins received
S_SIZE = 2   # the layout's size (seat)
S_END = 2    # the first index after it
SEAT.check(globals(), "S_")    # seat s's block starts at M_END + s * S_SIZE
# actions: 0 .. P-1 hand the coin to that seat, BANK returns it; PASS is every turn after the coins
BANK = MAX_PLAYERS
PASS = MAX_PLAYERS + 1


def state_size(n_players: int) -> int:
    return M_END + n_players * S_SIZE


# ---------------------------------------------------------------- rule kernels

@kernel
def reset_nb(d, rng, cfg, seed, gi):
    """Game gi of run `seed`: every chance draw of the game, before any decision."""
    P = cfg[K_N_PLAYERS]
    d[:] = 0
    d[M_NPLAYERS] = P
    seed_chance_nb(rng, seed, gi)
    for s in range(P):
        d[M_END + s * S_SIZE + S_DEALT] = below(rng, np.int64(DEALT))
    d[M_KEY] = below(rng, P)
    d[M_TURNS] = 10 + below(rng, np.int64(10))
    d[M_STALLED] = 1 if below(rng, np.int64(STALL_ODDS)) == 0 else 0


@kernel
def to_move_nb(d):
    if d[M_TURN] >= d[M_TURNS]:
        return -1
    if d[M_TURN] < COINS:
        return d[M_KEY]
    return (d[M_KEY] + d[M_TURN]) % d[M_NPLAYERS]


@kernel
def legal_nb(d, cfg, out):
    if d[M_TURN] >= d[M_TURNS]:
        return 0
    if d[M_TURN] < COINS:
        for s in range(d[M_NPLAYERS]):
            out[s] = s
        out[d[M_NPLAYERS]] = BANK
        return d[M_NPLAYERS] + 1
    out[0] = PASS
    return 1


@kernel
def apply_nb(d, rng, cfg, a):
    if a < BANK:
        d[M_END + a * S_SIZE + S_COINS] += 1
    d[M_TURN] += 1


@kernel
def outcome_nb(d, cfg, work, score, key):
    """Final scores (no tie-break key: a level top score is shared)."""
    P = d[M_NPLAYERS]
    coin = cfg[K_KEY_BONUS] * (cfg[K_MULTIPLIER] - 1)
    second = (d[M_KEY] + 1) % P
    for s in range(P):
        b = M_END + s * S_SIZE
        score[s] = d[b + S_DEALT] + coin * d[b + S_COINS] + (6 - cfg[K_PLATFORMS] if s == second else 0)
    return False


# ---------------------------------------------------------------- policies
RANDOM, GREEDY, STRONG = 0, 1, 2
SEARCH = 3   # the adapter's search player id: Coin offers none (no policy has this id)
POLICIES = {
    "random": PolicyInfo("random", RANDOM, "uniform over the legal actions (no skill)"),
    "greedy": PolicyInfo("greedy", GREEDY, "some skill", {"skill": 0.5}),
    "strong": PolicyInfo("strong", STRONG, "full skill", {"skill": 1.0}),
}


@kernel
def decide_nb(d, cfg, aux, pid, w, prng, legal, scratch):
    """Random draws a legal action; a skilled player keeps the first round(2 * skill) coins and
    returns the others."""
    n = legal_nb(d, cfg, legal)
    if pid == RANDOM or d[M_TURN] >= COINS:
        return legal[below(prng, n)]
    return d[M_KEY] if d[M_TURN] < np.int64(w[0] * COINS + 0.5) else BANK


@kernel
def determinize_nb(d, rng, cfg, p, prng, buf):
    """Only the chance stream is hidden, and no rule draws from it after the set-up."""
    seed_into(rng, next_u64(prng))


# ---------------------------------------------------------------- result tables and the record hook
PLAYERS = TableSpec("players", "one row per game and seat", (
    Column("game", "game number"), Column("seat", "seat (0 = first listed)"),
    Column("lineup_slot", "line-up slot seated here"), Column("key_player", "1 for the Key Player"),
    Column("score", "final score"), Column("rank", "1 = best"), Column("win", "ranked 1"),
    Column("shared_win", "ranked 1 with others")))
GAMES = TableSpec("games", "one row per game", (
    Column("game", "game number"), Column("first_key", "the Key Player's seat (moves first)"),
    Column("winner", "seat winning alone, else -1"), Column("n_winners", "seats ranked 1"),
    Column("margin", "winner's lead over the next seat"), Column("decisions", "decisions taken"),
    Column("stalled", "1: recorded as stalled")))
COIN_ROWS = TableSpec("coins", "one row per coin the Key Player hands out", (
    Column("game", "game number"), Column("coin", "1 or 2"), Column("seat", "seat receiving it (-1: the bank)")))
TABLES = {"players": PLAYERS, "games": GAMES, "coins": COIN_ROWS}
I8 = np.int8
DTYPES = {
    "players": dict(game=np.int64, seat=I8, lineup_slot=I8, key_player=I8, score=np.int32, rank=I8, win=I8,
                    shared_win=I8),
    "games": dict(game=np.int64, first_key=I8, winner=I8, n_winners=I8, margin=np.int32, decisions=np.int32,
                  stalled=I8),
    "coins": dict(game=np.int64, coin=I8, seat=I8),
}
PL_KEY = columns(PLAYERS, "key_player")
GA_FIRST_KEY, GA_STALLED = columns(GAMES, "first_key", "stalled")
CO_COIN, CO_SEAT = columns(COIN_ROWS, "coin", "seat")


@kernel
def step_nb(d, rng, cfg, a, rec, wide, row):
    """Apply `a`; a coin handed out is recorded first."""
    if a != PASS:
        rec[CO_COIN, row] = d[M_TURN] + 1
        rec[CO_SEAT, row] = a if a < BANK else -1
        row += 1
    apply_nb(d, rng, cfg, a)
    return row


@kernel
def finish_nb(d, cfg, work, score, k, row0, players, games, rec, wide, r0, r1, slots):
    for s in range(d[M_NPLAYERS]):
        players[PL_KEY, row0 + s] = 1 if s == d[M_KEY] else 0
    games[GA_FIRST_KEY, k] = d[M_KEY]
    games[GA_STALLED, k] = d[M_STALLED]


ENGINE = Engine(
    name="coin", game_file=__file__, module=__name__, tables=TABLES, dtypes=DTYPES, records="coins", wide=(),
    policies=POLICIES, search_id=SEARCH, lookahead_ids=(), max_actions=MAX_PLAYERS + 2, max_players=MAX_PLAYERS,
    work_width=1, n_players_slot=M_NPLAYERS, variants=VARIANTS, kernel_params=kernel_params, default_players=3,
    state_size=state_size, rows_per_game=lambda kp, P: COINS,
    phase=lambda data: "over" if data[M_TURN] >= data[M_TURNS] else "coin" if data[M_TURN] < COINS else "pass",
    action_name=lambda g, a: "pass" if a == PASS else "coin to the bank" if a == BANK else f"coin to seat {a}",
    render=lambda g: " ".join(f"seat {s}: {x}" for s, x in enumerate(g.scores())),
    observe=lambda kp, st, p: st.data.copy(),   # nothing is hidden but the chance stream
    kernels=dict(reset_nb=reset_nb, legal_nb=legal_nb, apply_nb=apply_nb, to_move_nb=to_move_nb,
                 decide_nb=decide_nb, decide_scripted_nb=decide_nb, search_actions_nb=legal_nb,
                 determinize_nb=determinize_nb, outcome_nb=outcome_nb, step_nb=step_nb, finish_nb=finish_nb))

SPEC = GameSpec(
    game_id="coin", title="Coin", engine_version="coin-2", min_players=1, max_players=MAX_PLAYERS, default_players=3,
    variants=VARIANTS, policies=POLICIES, tables=TABLES, kernel_params=kernel_params,
    simulate=ENGINE.simulate, new_game=ENGINE.new_game,
    default_lineup=("strong", "greedy", "random"),
    turn_order=TurnOrder("games.first_key", "the Key Player moves first"),
    benchmark=(BenchmarkCase(3, "random", 1000),),
    source_digest=SOURCE_DIGEST,
)
