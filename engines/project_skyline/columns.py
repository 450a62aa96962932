"""Project Skyline's result columns: the per-decision record hook (card events), the rounds hook
(each seat's running score once a round ends) and the end-of-game column writer the core's batch
loop calls (engines.core.adapter). Every output column is written by name: the PL_* / GA_* / CE_*
/ RS_* positions below are resolved from tables.py at import."""
from __future__ import annotations

import numpy as np

from engines.core.harness import columns
from engines.core.kernel import inline_kernel, kernel
from engines.project_skyline.params import K_EXTRA_ROUND, K_N_AREAS, K_N_SP, MAP_NAMES
from engines.project_skyline.rules import apply_nb, card_count_nb, pb_nb, score_of_nb
from engines.project_skyline.state import (
    B_A_SCORED, B_H, B_TOP, END_STALLED, EV0, MAX_HEIGHT, M_E_FLOOR, M_E_MONEY, M_ENDING, M_EVN, M_NPLAYERS,
    M_PHASE, M_PLAYER, M_ROUND, M_TURN, PH_OVER, P_BOUGHT, P_BUILT, P_FINAL_CARDS, P_FINAL_END, P_FORFEIT,
    P_MONEY, P_PA, P_PLAYED, P_SOLD, P_SPENT_BUY, P_SPENT_UPG, P_SRC_AREA, P_SRC_BONUS, P_SRC_CARDS, P_SRC_MON,
    P_SRC_SELL, P_TAKEN, P_UPGRADES, P_UPOS,
)
from engines.project_skyline.tables import CARD_EVENTS, GAMES, PLAYERS, ROUNDS

(PL_ORDER, PL_MONEY, PL_M_CARDS, PL_M_MON, PL_M_AREA, PL_M_BONUS, PL_M_SELL, PL_M_VALUES, PL_M_END, PL_S_BUY,
 PL_S_UPG, PL_DECK, PL_UPGS, PL_UPOS, PL_BOUGHT, PL_TAKEN, PL_SOLD, PL_PLAYED, PL_BUILT, PL_FORFEIT, PL_TOWERS,
 PL_AREAS) = columns(
    PLAYERS, "turn_order", "money", "money_cards", "money_monuments", "money_areas", "money_bonuses", "money_sell",
    "money_card_values", "money_end", "spent_buy", "spent_upgrade", "deck_size", "upgrades", "upgrade_pos",
    "bought", "taken", "sold", "played", "floors_built", "floors_forfeited", "towers", "areas_present")
GA_STALLED, GA_TURNS, GA_ROUNDS, GA_ENDING, GA_MROUND, GA_FROUND, GA_AREAS, GA_TOP, GA_DROPPED = columns(
    GAMES, "stalled", "turns", "rounds", "ending", "money_round", "floor_round", "areas_scored", "top_score",
    "events_dropped")
CE_SEAT, CE_SLOT, CE_TURN, CE_CARD, CE_EVENT = columns(CARD_EVENTS, "seat", "lineup_slot", "turn", "card", "event")
RS_GAME, RS_ROUND, RS_SEAT, RS_SCORE = columns(ROUNDS, "game", "round", "seat", "score")
EVENTS_PER_GAME = 400  # card events budget per game, pooled over the chunk
# the rounds table's first allocation per game (heuristic play lasts about 20 rounds); the core grows
# it when the next game could overrun it (round_cap rounds at most), so memory follows the rounds played
ROUNDS_PER_GAME = 32


def rows_per_game(kp, n_players: int) -> int:
    return EVENTS_PER_GAME


def rounds_per_game(kp, n_players: int) -> tuple[int, int]:
    """Rounds rows: the first allocation per game and the most one game writes."""
    return n_players * ROUNDS_PER_GAME, n_players * kp.round_cap


@inline_kernel
def step_nb(d, rng, cfg, a, ce, wide, row):
    """Apply `a` and record its card events while the chunk's pool lasts (finish_nb counts what
    did not fit)."""
    p = d[M_PLAYER]
    turn = d[M_ROUND] + 1
    apply_nb(d, rng, cfg, a)
    cap = ce.shape[1]
    for e in range(d[M_EVN]):
        if row < cap:
            ce[CE_SEAT, row] = p
            ce[CE_TURN, row] = turn
            ce[CE_CARD, row] = d[EV0 + 2 * e]
            ce[CE_EVENT, row] = d[EV0 + 2 * e + 1]
            row += 1
    return row


@inline_kernel
def round_nb(d, cfg, rs, rrow, r0, k):
    """Once a round ended (the last one ends the game), each seat's score after it (score_of_nb:
    the money track until final scoring) into rs[:, rrow:]; game k's rounds start at r0."""
    P = d[M_NPLAYERS]
    done = (rrow - r0) // P   # rounds recorded
    if d[M_ROUND] > done or d[M_PHASE] == PH_OVER:
        for s in range(P):
            rs[RS_GAME, rrow] = k
            rs[RS_ROUND, rrow] = done + 1
            rs[RS_SEAT, rrow] = s
            rs[RS_SCORE, rrow] = score_of_nb(d, s)
            rrow += 1
    return rrow


@kernel
def events_of_nb(d, P):
    """Card events the game produced: every purchase, take, play and sale is one, an upgrade two
    (the card upgraded away and the card upgraded into)."""
    n = 0
    for s in range(P):
        b = pb_nb(s)
        n += d[b + P_BOUGHT] + d[b + P_TAKEN] + d[b + P_PLAYED] + d[b + P_SOLD] + 2 * d[b + P_UPGRADES]
    return n


@kernel
def write_seat_columns_nb(d, cfg, s, row, pl):
    b = pb_nb(s)
    pl[PL_ORDER, row] = s
    pl[PL_MONEY, row] = d[b + P_MONEY]
    pl[PL_M_CARDS, row] = d[b + P_SRC_CARDS]
    pl[PL_M_MON, row] = d[b + P_SRC_MON]
    pl[PL_M_AREA, row] = d[b + P_SRC_AREA]
    pl[PL_M_BONUS, row] = d[b + P_SRC_BONUS]
    pl[PL_M_SELL, row] = d[b + P_SRC_SELL]
    pl[PL_M_VALUES, row] = d[b + P_FINAL_CARDS]
    pl[PL_M_END, row] = d[b + P_FINAL_END]
    pl[PL_S_BUY, row] = d[b + P_SPENT_BUY]
    pl[PL_S_UPG, row] = d[b + P_SPENT_UPG]
    pl[PL_DECK, row] = card_count_nb(d, s)
    pl[PL_UPGS, row] = d[b + P_UPGRADES]
    pl[PL_UPOS, row] = d[b + P_UPOS]
    pl[PL_BOUGHT, row] = d[b + P_BOUGHT]
    pl[PL_TAKEN, row] = d[b + P_TAKEN]
    pl[PL_SOLD, row] = d[b + P_SOLD]
    pl[PL_PLAYED, row] = d[b + P_PLAYED]
    pl[PL_BUILT, row] = d[b + P_BUILT]
    pl[PL_FORFEIT, row] = d[b + P_FORFEIT]
    towers = 0
    for sp in range(cfg[K_N_SP]):
        if d[B_H + sp] == MAX_HEIGHT and d[B_TOP + sp] == s:
            towers += 1
    pl[PL_TOWERS, row] = towers
    areas = 0
    for a in range(cfg[K_N_AREAS]):
        if d[b + P_PA + a] > 0:
            areas += 1
    pl[PL_AREAS, row] = areas


@kernel
def finish_nb(d, cfg, work, score, k, row0, pl, ga, ce, wide, r0, r1, slots):
    """Game k's own columns: each seat's, the game's (how and when it ended, the events that did
    not fit the pool), and its card events' line-up slots."""
    P = slots.shape[0]
    top = 0
    for s in range(P):
        if score[s] > top:
            top = score[s]
        write_seat_columns_nb(d, cfg, s, row0 + s, pl)
    ga[GA_STALLED, k] = 1 if d[M_ENDING] == END_STALLED else 0
    ga[GA_TURNS, k] = d[M_TURN]
    ga[GA_ROUNDS, k] = d[M_ROUND] + 1
    ga[GA_ENDING, k] = d[M_ENDING]
    # M_E_MONEY holds the money end's last round (the trigger round + the extra round)
    ga[GA_MROUND, k] = 0 if d[M_E_MONEY] < 0 else d[M_E_MONEY] + 1 - cfg[K_EXTRA_ROUND]
    ga[GA_FROUND, k] = d[M_E_FLOOR] + 1
    scored = 0
    for a in range(cfg[K_N_AREAS]):
        scored += d[B_A_SCORED + a]
    ga[GA_AREAS, k] = scored
    ga[GA_TOP, k] = top
    ga[GA_DROPPED, k] = events_of_nb(d, P) - (r1 - r0)
    for r in range(r0, r1):
        ce[CE_SLOT, r] = slots[ce[CE_SEAT, r]]


def extra_columns(kp, count: int, raw: dict) -> dict:
    """games.map (the map's index in MAP_NAMES, -1 for a map file elsewhere) and card_events.code."""
    map_code = np.full(count, MAP_NAMES.index(kp.map_id) if kp.map_id in MAP_NAMES else -1, np.int64)
    codes = np.array([c.code for c in kp.cards], dtype=object)
    ce = raw["card_events"]
    return {"games": {"map": map_code},
            "card_events": {"code": codes[ce[CE_CARD]] if ce.shape[1] else np.array([], object)}}
