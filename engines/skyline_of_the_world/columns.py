"""Skyline of the World's result columns: the per-decision record hook and the end-of-game column
writer the core's batch loop calls (engines.core.adapter). Every output column is written by name:
the PL_* / GA_* / IN_* / RS_* positions below are resolved from tables.py at import (a misspelled
or removed column fails here).

Two record tables: `income` (the adapter's records: a row per turn, the income the player to move
earned, while recording) and `rounds` (its side table, written by round_nb after each step: each seat's running score after every
round, what the game-quality metrics read).
"""
from __future__ import annotations

from engines.core.harness import columns
from engines.core.kernel import inline_kernel, kernel
from engines.core.lowlevel import popcount
from engines.skyline_of_the_world.params import K_N_CELLS, K_RECORD_INCOME, N_STOCK
from engines.skyline_of_the_world.rules import apply_nb, income_nb, pb_nb, score_parts_nb
from engines.skyline_of_the_world.search import W_MISSION, W_PENTHOUSES, W_STRATEGIC
from engines.skyline_of_the_world.state import (
    BH, M_BANK_NET, M_DECISIONS, M_INCOME, M_INCOME_GROUP, M_NPLAYERS, M_PHASE, M_PLAYER, M_STALLED, M_START,
    M_TRIGGER, M_TURN, P_BLOCKS, P_BOUGHT, P_BUILT, P_CAP_HITS, P_CAP_LOST, P_CAP_LOST_OTHER, P_CASH, P_CASHED_N,
    P_CASHED_VALUE, P_FEES_BANK, P_FEES_PAID, P_FEES_RECV, P_GOT_SELL, P_HAND, P_INCOME_MAX, P_INCOME_SUM,
    P_SKY_PLACED, P_SOLD, P_SPENT_BUY, P_TRADED_N, P_TURNS, PH_OVER,
)
from engines.skyline_of_the_world.tables import GAMES, INCOME, KIND_SUFFIX, PLAYERS, ROUNDS

(PL_RANK, PL_ORDER, PL_PENT, PL_STRAT, PL_MISSION, PL_TRIG, PL_CASH, PL_INC_TOT, PL_INC_MAX, PL_INC_FIN, PL_TURNS,
 PL_BCASHED, PL_BVALUE, PL_BTRADED, PL_BHELD, PL_FPAID, PL_FRECV, PL_FBANK, PL_CAPH, PL_CAPL, PL_SKY,
 PL_BLOCKS, PL_SPENT, PL_GOT, PL_CAPO) = columns(
    PLAYERS, "rank", "turn_order", "penthouses", "strategic", "mission_done", "triggered_end", "cash",
    "income_total", "income_max", "income_final", "turns", "bonus_cashed", "bonus_value", "bonus_traded",
    "bonus_held", "fees_paid", "fees_received", "fees_bank", "cap_hits", "cap_lost", "skyline_built", "blocks",
    "spent_buying", "got_selling", "cap_lost_other")
PL_BOUGHT = columns(PLAYERS, *(f"bought_{s}" for s in KIND_SUFFIX))
PL_SOLD = columns(PLAYERS, *(f"sold_{s}" for s in KIND_SUFFIX))
PL_BUILT = columns(PLAYERS, *(f"built_{s}" for s in KIND_SUFFIX))
(GA_STALLED, GA_TURNS, GA_START, GA_TSEAT, GA_TORDER, GA_TWON, GA_TOP, GA_PENT, GA_FLOORS, GA_BANK) = columns(
    GAMES, "stalled", "turns", "start_player", "trigger_seat", "trigger_order", "trigger_won", "top_score",
    "penthouses", "floors", "bank_net")
(IN_SEAT, IN_SLOT, IN_TURN, IN_ROUND, IN_INC, IN_GROUP, IN_CASH) = columns(
    INCOME, "seat", "lineup_slot", "turn", "round", "income", "group", "cash")
(RS_GAME, RS_ROUND, RS_SEAT, RS_SCORE) = columns(ROUNDS, "game", "round", "seat", "score")
WIDE = ()
ROUNDS_PER_GAME = 32   # a first guess of a game's rounds, for the pool's first allocation


def rows_per_game(kp, n_players: int) -> int:
    """Income rows one game records at most: one a turn, and the turn cap ends every game."""
    return int(kp.turn_cap) if kp.record_income else 0


def round_rows_per_game(kp, n_players: int) -> tuple[int, int]:
    """Rounds rows: the first allocation per game (P a round, ROUNDS_PER_GAME rounds: the pool
    grows when a game needs more) and the most one game writes (at most ceil(turn cap / P) rounds)."""
    return n_players * ROUNDS_PER_GAME, n_players * ((int(kp.turn_cap) + n_players - 1) // n_players)


@inline_kernel
def record_income_nb(d, inc, row):
    """The income row of the turn the player to move has just begun (lineup_slot: finish_nb)."""
    p = d[M_PLAYER]
    t = d[M_TURN]
    inc[IN_SEAT, row] = p
    inc[IN_TURN, row] = t
    inc[IN_ROUND, row] = t // d[M_NPLAYERS]
    inc[IN_INC, row] = d[M_INCOME]
    inc[IN_GROUP, row] = d[M_INCOME_GROUP]
    inc[IN_CASH, row] = d[pb_nb(p) + P_CASH]
    return row + 1


@kernel
def record_round_nb(d, cfg, rs, rrow, rnd, P, k):
    """Each seat's prestige after round rnd (1-based), into rs[:, rrow:rrow + P], scored by the
    end's own kernel (score_parts_nb); returns the next free row."""
    for s in range(P):
        prestige, _, _, _ = score_parts_nb(d, cfg, s)
        rs[RS_GAME, rrow] = k
        rs[RS_ROUND, rrow] = rnd
        rs[RS_SEAT, rrow] = s
        rs[RS_SCORE, rrow] = prestige
        rrow += 1
    return rrow


@inline_kernel
def step_nb(d, rng, cfg, a, inc, wide, row):
    """Apply `a`. While recording, a turn's income row is written when the turn begins (before
    the game's first decision, then after each decision that starts a new turn)."""
    record = cfg[K_RECORD_INCOME] == 1
    if record and d[M_DECISIONS] == 0:
        row = record_income_nb(d, inc, row)
    t0 = d[M_TURN]
    apply_nb(d, rng, cfg, a)
    if record and d[M_TURN] != t0 and d[M_PHASE] != PH_OVER:
        row = record_income_nb(d, inc, row)
    return row


@inline_kernel
def round_nb(d, cfg, rs, rrow, r0, k):
    """After each step: once a round's last turn is over (or the game ends part-way through one),
    each seat's score after it into rs[:, rrow:]; game k's rounds start at row r0. Turns advance
    one at a time, so at most one round ends per step."""
    P = d[M_NPLAYERS]
    done = (rrow - r0) // P   # rounds recorded
    t = d[M_TURN]
    if t >= (done + 1) * P or (d[M_PHASE] == PH_OVER and t > done * P):
        rrow = record_round_nb(d, cfg, rs, rrow, done + 1, P, k)
    return rrow


@kernel
def write_seat_columns_nb(d, cfg, s, row, pl, ws, P):
    """Seat s's own columns (the required ones are the core's); ws: its work row."""
    b = pb_nb(s)
    pl[PL_ORDER, row] = (s - d[M_START] + P) % P
    pl[PL_PENT, row] = ws[W_PENTHOUSES]
    pl[PL_STRAT, row] = ws[W_STRATEGIC]
    pl[PL_MISSION, row] = ws[W_MISSION]
    pl[PL_TRIG, row] = 1 if d[M_TRIGGER] == s else 0
    pl[PL_CASH, row] = d[b + P_CASH]
    pl[PL_INC_TOT, row] = d[b + P_INCOME_SUM]
    pl[PL_INC_MAX, row] = d[b + P_INCOME_MAX]
    fin, _ = income_nb(d, cfg, s)
    pl[PL_INC_FIN, row] = fin
    pl[PL_TURNS, row] = d[b + P_TURNS]
    pl[PL_BCASHED, row] = d[b + P_CASHED_N]
    pl[PL_BVALUE, row] = d[b + P_CASHED_VALUE]
    pl[PL_BTRADED, row] = d[b + P_TRADED_N]
    pl[PL_BHELD, row] = popcount(d[b + P_HAND])
    pl[PL_FPAID, row] = d[b + P_FEES_PAID]
    pl[PL_FRECV, row] = d[b + P_FEES_RECV]
    pl[PL_FBANK, row] = d[b + P_FEES_BANK]
    pl[PL_CAPH, row] = d[b + P_CAP_HITS]
    pl[PL_CAPL, row] = d[b + P_CAP_LOST]
    pl[PL_CAPO, row] = d[b + P_CAP_LOST_OTHER]
    pl[PL_SKY, row] = d[b + P_SKY_PLACED]
    pl[PL_BLOCKS, row] = d[b + P_BLOCKS]
    pl[PL_SPENT, row] = d[b + P_SPENT_BUY]
    pl[PL_GOT, row] = d[b + P_GOT_SELL]
    for k in range(N_STOCK):
        pl[PL_BOUGHT[k], row] = d[b + P_BOUGHT + k]
        pl[PL_SOLD[k], row] = d[b + P_SOLD + k]
        pl[PL_BUILT[k], row] = d[b + P_BUILT + k]


@kernel
def finish_nb(d, cfg, work, score, k, row0, players, games, inc, wide, r0, r1, slots):
    """Game k's own columns: each seat's, the game's (the stall flag is the rules': the turn cap
    ending a game with no third penthouse), and its income rows' line-up slots."""
    P = slots.shape[0]
    pent_total = 0
    top = -1
    for s in range(P):
        pent_total += work[s, W_PENTHOUSES]
        if score[s] > top:
            top = score[s]
        write_seat_columns_nb(d, cfg, s, row0 + s, players, work[s], P)
    games[GA_STALLED, k] = d[M_STALLED]
    games[GA_TURNS, k] = d[M_TURN]
    games[GA_START, k] = d[M_START]
    t = d[M_TRIGGER]
    games[GA_TSEAT, k] = t
    games[GA_TORDER, k] = (t - d[M_START] + P) % P if t >= 0 else -1
    games[GA_TWON, k] = (1 if players[PL_RANK, row0 + t] == 1 else 0) if t >= 0 else -1
    games[GA_TOP, k] = top
    games[GA_PENT, k] = pent_total
    fl = 0
    for c in range(cfg[K_N_CELLS]):
        fl += d[BH + c]
    games[GA_FLOORS, k] = fl
    games[GA_BANK, k] = d[M_BANK_NET]
    for r in range(r0, r1):
        inc[IN_SLOT, r] = slots[inc[IN_SEAT, r]]
