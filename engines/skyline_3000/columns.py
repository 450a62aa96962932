"""Skyline 3000's result columns: the hooks the core's batch loop calls (engines.core.adapter).
The auction log becomes the `auctions` records once the game is over (step_nb reserves its rows,
finish_nb writes them), the running scores the `rounds` side table (side_nb), the players' and
games' own columns are written at the end (finish_nb), and card use is summed over the chunk (accumulate_nb, then card_use_table).
Every output column is written by name: the PL_* / AU_* / GA_* / RO_* positions below are
resolved from tables.py at import (a misspelled or removed column fails here)."""
from __future__ import annotations

import numpy as np

from engines.core.harness import columns
from engines.core.kernel import ir_inline_kernel, kernel
from engines.skyline_3000.search import W_HAND_VALUE, apply_nb, pub_hands_nb
from engines.skyline_3000.state import (
    A_BID, A_BLOCK, A_HIGH, A_ITEM, A_PRICE, A_ROUND, A_STACK, A_TIE, A_WINNER, ALOG, C_FIRST_KEY, C_N_AUC, C_PHASE,
    C_STALLED, C_TURNS_TOTAL, K_N_CARDS, K_N_PLAYERS, K_ROUNDS, MAX_P, N_ALOG, N_PROW, P_EV_BILLBOARD,
    P_EV_BUILDOVER, P_EV_FIRST, P_EV_SECOND, P_NHAND, P_PAID, P_PLAYED, P_ROUND_SCORE, P_ST_BB, P_ST_BB_OVER,
    P_ST_BUILT, P_ST_EXTRA, P_ST_FLOORS, P_ST_PASS_R1, P_ST_PLACED, P_ST_SPENT, P_ST_WON, PH_OVER, PLAYERS, TAB, pub_nb,
)
from engines.skyline_3000.tables import AUCTIONS, GAMES, PLAYERS as PLAYERS_TABLE, ROUNDS, TABLES

(PL_KEY_PLAYER, PL_RANK, PL_TIE_BREAK_WIN, PL_CARDS_LEFT, PL_HAND_VALUE_LEFT, PL_BUILT, PL_PLACED, PL_FLOORS,
 PL_BB, PL_BB_OVER, PL_WON, PL_SPENT, PL_FIRST, PL_SECOND, PL_BB_POINTS, PL_EXTRA, PL_PASS_R1) = columns(
    PLAYERS_TABLE, "key_player", "rank", "tie_break_win", "cards_left", "hand_value_left", "buildings_built",
    "buildings_placed", "floors_placed", "billboards_placed", "billboards_built_over", "improvements_won",
    "spent", "points_first", "points_second", "points_billboards", "extra_cards", "passes_round1")
(AU_ROUND, AU_STACK, AU_ITEM, AU_WINNER, AU_WINNER_SLOT, AU_PRICE, AU_TIE_BREAK, AU_BLOCK) = columns(
    AUCTIONS, "round", "stack", "item", "winner", "winner_slot", "price", "tie_break", "block")
# The columns copied as they are, as (column, offset) rows that finish_nb reads in a loop (one
# compiled copy, not one per column: the cold compile): from a player's row of the public buffer,
PL_FROM_PUB = np.array([
    (PL_CARDS_LEFT, P_NHAND), (PL_BUILT, P_ST_BUILT), (PL_PLACED, P_ST_PLACED), (PL_FLOORS, P_ST_FLOORS),
    (PL_BB, P_ST_BB), (PL_BB_OVER, P_ST_BB_OVER), (PL_WON, P_ST_WON), (PL_SPENT, P_ST_SPENT),
    (PL_FIRST, P_EV_FIRST), (PL_SECOND, P_EV_SECOND), (PL_EXTRA, P_ST_EXTRA), (PL_PASS_R1, P_ST_PASS_R1)], np.int64)
# and from an auction's row of the log
AU_FROM_LOG = np.array(
    [(AU_ROUND, A_ROUND), (AU_STACK, A_STACK), (AU_ITEM, A_ITEM), (AU_WINNER, A_WINNER), (AU_PRICE, A_PRICE),
     (AU_TIE_BREAK, A_TIE), (AU_BLOCK, A_BLOCK)]
    + [(c, A_BID + q) for q, c in enumerate(columns(AUCTIONS, *[f"bid_{q}" for q in range(MAX_P)]))]
    + [(c, A_HIGH + q) for q, c in enumerate(columns(AUCTIONS, *[f"high_{q}" for q in range(MAX_P)]))], np.int64)
(GA_FIRST_KEY, GA_N_WINNERS, GA_POINTS_TIED, GA_TIE_BREAK_DECIDED, GA_TURNS, GA_STALLED) = columns(
    GAMES, "first_key", "n_winners", "points_tied", "tie_break_decided", "construction_turns", "stalled")
RO_GAME, RO_ROUND, RO_SEAT, RO_SCORE = columns(ROUNDS, "game", "round", "seat", "score")
# card use per line-up slot and card id (accumulate_nb): acc[slot * n_cards + card, CU_*]
CU_PLAYED, CU_BID, CU_KEPT = 0, 1, 2


def rows_per_game(kp, n_players: int) -> int:
    """Auction rows one game records at most: the log's rows."""
    return int(kp.n_auctions)


def rounds_per_game(kp, n_players: int) -> tuple[int, int]:
    """Rows of the rounds table one game writes (usually and at most): one per seat and round."""
    n = n_players * int(kp.rounds)
    return n, n


@ir_inline_kernel
def step_nb(d, rng, cfg, a, au, wide, row):
    """Apply `a`; once the game is over, reserve its auction log's rows au[:, row:] (as many as
    fit): finish_nb writes them. Writing them here would copy that loop into the game loop, which
    LLVM then optimises with the whole game's code (the cold compile)."""
    apply_nb(d, rng, cfg, a)
    pub = pub_nb(d)
    if pub[C_PHASE] != PH_OVER:
        return row
    return min(row + np.int64(pub[C_N_AUC]), np.int64(au.shape[1]))


@ir_inline_kernel
def side_nb(d, cfg, side, srow, s0, k):
    """Once the game is over: its rounds rows (seat by seat, round by round) into side[:, srow:]."""
    pub = pub_nb(d)
    if pub[C_PHASE] != PH_OVER:
        return srow
    for s in range(pub[TAB + K_N_PLAYERS]):
        o = PLAYERS + s * N_PROW + P_ROUND_SCORE
        for r in range(pub[TAB + K_ROUNDS]):
            side[RO_GAME, srow] = k
            side[RO_ROUND, srow] = r + 1
            side[RO_SEAT, srow] = s
            side[RO_SCORE, srow] = pub[o + r]
            srow += 1
    return srow


@kernel
def finish_nb(d, cfg, work, score, k, row0, pl, ga, au, wide, r0, r1, slots):
    """Game k's own columns: its players rows row0.., games row k and its auction rows r0..r1
    (the log's first r1 - r0 auctions, with the winner's line-up slot; the required columns are
    the core's)."""
    pub = pub_nb(d)
    P = pub[TAB + K_N_PLAYERS]
    n_win = ga[GA_N_WINNERS, k]
    top = score[0]
    for s in range(1, P):
        if score[s] > top:
            top = score[s]
    n_top = 0
    for s in range(P):
        if score[s] == top:
            n_top += 1
    tb = n_top > 1 and n_win == 1     # the hand value (the tie-break) picked the single winner
    for s in range(P):
        r = row0 + s
        o = PLAYERS + s * N_PROW
        for i in range(PL_FROM_PUB.shape[0]):
            pl[PL_FROM_PUB[i, 0], r] = pub[o + PL_FROM_PUB[i, 1]]
        pl[PL_KEY_PLAYER, r] = 1 if pub[C_FIRST_KEY] == s else 0
        pl[PL_TIE_BREAK_WIN, r] = 1 if pl[PL_RANK, r] == 1 and n_win == 1 and tb else 0
        pl[PL_HAND_VALUE_LEFT, r] = work[s, W_HAND_VALUE]
        pl[PL_BB_POINTS, r] = pub[o + P_EV_BILLBOARD] + pub[o + P_EV_BUILDOVER]
    for j in range(r1 - r0):          # the auction log, in the rows step_nb reserved
        r = r0 + j
        o = ALOG + j * N_ALOG
        for i in range(AU_FROM_LOG.shape[0]):
            au[AU_FROM_LOG[i, 0], r] = pub[o + AU_FROM_LOG[i, 1]]
        w = pub[o + A_WINNER]
        au[AU_WINNER_SLOT, r] = slots[w] if w >= 0 else -1
    ga[GA_FIRST_KEY, k] = pub[C_FIRST_KEY]
    ga[GA_POINTS_TIED, k] = 1 if n_top > 1 else 0
    ga[GA_TIE_BREAK_DECIDED, k] = 1 if tb else 0
    ga[GA_TURNS, k] = pub[C_TURNS_TOTAL]
    ga[GA_STALLED, k] = pub[C_STALLED]


@kernel
def accumulate_nb(d, cfg, acc, slots):
    """Card use of the finished game, by line-up slot and card id, into acc (CU_*)."""
    pub, hands = pub_hands_nb(d)
    NC = pub[TAB + K_N_CARDS]
    for s in range(pub[TAB + K_N_PLAYERS]):
        o = PLAYERS + s * N_PROW
        base = slots[s] * NC
        for c in range(NC):
            acc[base + c, CU_PLAYED] += pub[o + P_PLAYED + c]
            acc[base + c, CU_BID] += pub[o + P_PAID + c]
        for i in range(pub[o + P_NHAND]):
            acc[base + hands[s, i], CU_KEPT] += 1


def card_use_shape(kp, n_players: int) -> tuple[int, int]:
    return n_players * int(kp.n_cards), 3


def card_use_table(kp, start: int, acc: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
    """The card_use table of a chunk: its sums per (slot, card type, value) over the card ids."""
    types = kp.card_types()
    values = kp.card_values()
    cu = acc.reshape(-1, int(kp.n_cards), 3)
    keys = sorted({(int(t), int(v)) for t, v in zip(types, values)})
    rows = {c: [] for c in TABLES["card_use"].names}
    for slot in range(cu.shape[0]):
        for t, v in keys:
            sel = (types == t) & (values == v)
            rows["game"].append(start)
            rows["lineup_slot"].append(slot)
            rows["card_type"].append(t)
            rows["value"].append(v)
            rows["played"].append(int(cu[slot, sel, CU_PLAYED].sum()))
            rows["bid"].append(int(cu[slot, sel, CU_BID].sum()))
            rows["kept"].append(int(cu[slot, sel, CU_KEPT].sum()))
    dt = {"game": np.int32, "lineup_slot": np.int8, "card_type": np.int8, "value": np.int8}
    return {"card_use": {c: np.asarray(vals, dtype=dt.get(c, np.int32)) for c, vals in rows.items()}}
