"""Skyline 3000 batch kernel: whole games in one jitted loop, filling the
result tables of tables.py.

The loop calls exactly the kernels the step API calls (current player,
legal_actions_nb, choose_action_nb, apply_action_nb): there is one copy of
the rules. It skips the listing where no policy reads it: bids, and the
random player's construction turns (policy_random_nb counts and picks with
rules.main_kind_counts_nb / main_kind_action_nb, the helpers
legal_actions_nb lists with, and draws what it would draw from the list). Game i of a run depends only on (seed, i): its chance stream and
each seat's policy stream are derived from them (engines.core.rng).
"""
from __future__ import annotations

import numpy as np

from engines.core.kernel import kernel
from engines.core.lowlevel import unowned
from engines.core.rng import POLICY_STREAM, derive_seed, seed_into
from engines.skyline_3000.policies import RANDOM, choose_action_nb
from engines.skyline_3000.rules import apply_action_nb, final_result_nb, legal_actions_nb, reset_state_nb
from engines.skyline_3000.state import (
    A_BID, A_BLOCK, A_HIGH, A_ITEM, A_PRICE, A_ROUND, A_STACK, A_TIE, A_WINNER, ALOG, C_CUR,
    C_DECISIONS, C_FIRST_KEY, C_N_AUC, C_PHASE, C_STALLED, C_TURNS_TOTAL, MAX_CARDS, N_ALOG,
    N_PLAYER, N_PROW, P_EV_BILLBOARD, P_EV_BUILDOVER, P_EV_FIRST, P_EV_SECOND, P_NHAND, P_SCORE,
    P_ST_BB, P_ST_BB_OVER, P_ST_BUILT, P_ST_EXTRA, P_ST_FLOORS, P_ST_PASS_R1, P_ST_PLACED,
    P_ST_SPENT, P_ST_WON, PH_BID, PH_MAIN, PH_OVER, PLAYERS, PUB_SIZE, SEC_SIZE, T_MAXACT, T_NAUC, T_NC, T_NP,
)
from engines.skyline_3000.tables import TABLES


@kernel
def _keep_alive(a, b, c, d, e, f, g):
    return a.size + b.size + c.size + d.size + e.size + f.size + g.size


@kernel
def seed_policy_streams_nb(prng, run_seed, game_index):
    """prng[s] = seat s's policy stream for game `game_index`."""
    for s in range(prng.shape[0]):
        seed_into(prng[s], derive_seed(run_seed, game_index, POLICY_STREAM + s))


@kernel
def play_game_nb(tab, pub, hands, sec, legal, prng, seat_pids, seat_w, run_seed, game_index):
    """Play one whole game into the buffers pub, hands, sec (preallocated;
    reset here from the variant table tab = KernelParams.tab). seat_pids[s]
    and seat_w[s] are the policy id and weight row of the seat s; legal is an
    int64[kp.max_actions] buffer and prng uint64[P, 4] the policy streams."""
    reset_state_nb(pub, hands, sec, tab, run_seed, game_index)
    seed_policy_streams_nb(prng, run_seed, game_index)
    while pub[C_PHASE] != PH_OVER:
        p = pub[C_CUR]
        pid = seat_pids[p]
        # the random player picks a construction action without the list
        # (policy_random_nb), and nobody needs one to bid
        n = 0
        if not (pub[C_PHASE] == PH_BID or (pid == RANDOM and pub[C_PHASE] == PH_MAIN)):
            n = legal_actions_nb(pub, hands, legal)
        a = choose_action_nb(pid, pub, hands[p], legal, n, seat_w[p], prng[p])
        if not apply_action_nb(pub, hands, sec, a):
            raise ValueError("a policy chose an illegal action")


# players table columns, in tables.py order (after game, seat, lineup_slot)
PL_COLS = TABLES["players"].names
AU_COLS = TABLES["auctions"].names
GA_COLS = TABLES["games"].names


@kernel
def simulate_chunk_nb(tab, slot_pids, slot_w, rotate, run_seed, start, count, pl, au, au_n, ga, cu):
    """Play games [start, start + count). Fills
    pl int32[count * P, len(PL_COLS)], au int32[count * n_auctions, len(AU_COLS)]
    (au_n[g] rows used by game g), ga int32[count, len(GA_COLS)] and
    cu int32[P slots, n_cards, 3] (played, bid, kept) summed over the chunk."""
    P = tab[T_NP]
    NC = tab[T_NC]
    NA = tab[T_NAUC]
    pub = np.zeros(PUB_SIZE, np.int32)
    hands = np.zeros((P, NC), np.int32)
    sec = np.zeros(SEC_SIZE, np.uint64)
    legal = np.zeros(tab[T_MAXACT], np.int64)
    prng = np.zeros((P, 4), np.uint64)
    seat_pids = np.zeros(P, np.int64)
    seat_w = np.zeros((P, slot_w.shape[1]), np.float64)
    slot_of = np.zeros(P, np.int64)
    rank = np.zeros(P, np.int64)
    hv = np.zeros(P, np.int64)
    # the game loop runs on borrowed views (no reference counting); the
    # arrays above stay alive to the end of this kernel (_keep_alive); views: engines/core/lowlevel.py
    pub_b = unowned(pub)
    hands_b = unowned(hands)
    sec_b = unowned(sec)
    legal_b = unowned(legal)
    prng_b = unowned(prng)
    pids_b = unowned(seat_pids)
    w_b = unowned(seat_w)
    for g in range(count):
        gi = start + g
        for s in range(P):
            slot = (s + gi) % P if rotate else s
            slot_of[s] = slot
            seat_pids[s] = slot_pids[slot]
            seat_w[s, :] = slot_w[slot, :]
        play_game_nb(tab, pub_b, hands_b, sec_b, legal_b, prng_b, pids_b, w_b, run_seed, gi)
        n_win, tied, tb = final_result_nb(pub, hands, rank, hv)
        best = -(1 << 30)
        winner = -1
        for s in range(P):
            if rank[s] == 1:
                winner = s
        for s in range(P):
            if s != winner and pub[PLAYERS + s * N_PROW + P_SCORE] > best:
                best = pub[PLAYERS + s * N_PROW + P_SCORE]
        for s in range(P):
            r = g * P + s
            o = PLAYERS + s * N_PROW
            pl[r, 0] = gi
            pl[r, 1] = s
            pl[r, 2] = slot_of[s]
            pl[r, 3] = 1 if pub[C_FIRST_KEY] == s else 0
            pl[r, 4] = pub[o + P_SCORE]
            pl[r, 5] = rank[s]
            pl[r, 6] = 1 if rank[s] == 1 else 0
            pl[r, 7] = 1 if rank[s] == 1 and n_win > 1 else 0
            pl[r, 8] = 1 if rank[s] == 1 and n_win == 1 and tb else 0
            pl[r, 9] = pub[o + P_NHAND]
            pl[r, 10] = hv[s]
            pl[r, 11] = pub[o + P_ST_BUILT]
            pl[r, 12] = pub[o + P_ST_PLACED]
            pl[r, 13] = pub[o + P_ST_FLOORS]
            pl[r, 14] = pub[o + P_ST_BB]
            pl[r, 15] = pub[o + P_ST_BB_OVER]
            pl[r, 16] = pub[o + P_ST_WON]
            pl[r, 17] = pub[o + P_ST_SPENT]
            pl[r, 18] = pub[o + P_EV_FIRST]
            pl[r, 19] = pub[o + P_EV_SECOND]
            pl[r, 20] = pub[o + P_EV_BILLBOARD] + pub[o + P_EV_BUILDOVER]
            pl[r, 21] = pub[o + P_ST_EXTRA]
            pl[r, 22] = pub[o + P_ST_PASS_R1]
            slot = slot_of[s]
            for c in range(NC):
                cu[slot, c, 0] += pub[o + N_PLAYER + c]
                cu[slot, c, 1] += pub[o + N_PLAYER + MAX_CARDS + c]
            for i in range(pub[o + P_NHAND]):
                cu[slot, hands[s, i], 2] += 1
        na = pub[C_N_AUC]
        au_n[g] = na
        for j in range(na):
            r = g * NA + j
            a = ALOG + j * N_ALOG
            au[r, 0] = gi
            au[r, 1] = pub[a + A_ROUND]
            au[r, 2] = pub[a + A_STACK]
            au[r, 3] = pub[a + A_ITEM]
            for q in range(4):
                au[r, 4 + q] = pub[a + A_BID + q]
                au[r, 8 + q] = pub[a + A_HIGH + q]
            w = pub[a + A_WINNER]
            au[r, 12] = w
            au[r, 13] = slot_of[w] if w >= 0 else -1
            au[r, 14] = pub[a + A_PRICE]
            au[r, 15] = pub[a + A_TIE]
            au[r, 16] = pub[a + A_BLOCK]
        ga[g, 0] = gi
        ga[g, 1] = pub[C_FIRST_KEY]
        ga[g, 2] = winner if n_win == 1 else -1
        ga[g, 3] = n_win
        ga[g, 4] = pub[PLAYERS + winner * N_PROW + P_SCORE] - best if n_win == 1 else 0
        ga[g, 5] = 1 if tied else 0
        ga[g, 6] = 1 if tb else 0
        ga[g, 7] = pub[C_DECISIONS]
        ga[g, 8] = pub[C_TURNS_TOTAL]
        ga[g, 9] = pub[C_STALLED]
    _keep_alive(pub, hands, sec, legal, prng, seat_pids, seat_w)


def simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count):
    """Play games [start, start + count) of run `seed`.

    seat_policy_ids int64[P] and seat_weights float64[P, W] are per line-up
    slot; with `rotate`, game i seats slot (seat + i) % P at seat `seat`.
    Returns {table: {column: 1-D array}} with the columns of tables.py, in order.
    """
    kp = kparams
    P = kp.n_players
    ids = np.ascontiguousarray(seat_policy_ids, dtype=np.int64)
    w = np.ascontiguousarray(seat_weights, dtype=np.float64)
    if w.ndim == 1:
        w = w.reshape(P, -1)
    if ids.shape[0] != P or w.shape[0] != P:
        raise ValueError(f"need one policy and one weight row per seat ({P}), got {ids.shape[0]} and {w.shape[0]}")
    if w.shape[1] == 0:
        w = np.zeros((P, 1))
    count = int(count)
    pl = np.zeros((count * P, len(PL_COLS)), np.int32)
    au = np.zeros((count * kp.n_auctions, len(AU_COLS)), np.int32)
    au_n = np.zeros(count, np.int32)
    ga = np.zeros((count, len(GA_COLS)), np.int32)
    cu = np.zeros((P, kp.n_cards, 3), np.int32)
    simulate_chunk_nb(kp.tab, ids, w, bool(rotate), np.uint64(seed), np.int64(start), np.int64(count),
                      pl, au, au_n, ga, cu)
    keep = (np.arange(kp.n_auctions)[None, :] < au_n[:, None]).reshape(-1)
    au = au[keep]
    out = {
        "players": {c: pl[:, j].copy() for j, c in enumerate(PL_COLS)},
        "auctions": {c: au[:, j].copy() for j, c in enumerate(AU_COLS)},
        "games": {c: ga[:, j].copy() for j, c in enumerate(GA_COLS)},
        "card_use": _card_use(kp, cu, int(start)),
    }
    for name in ("players", "auctions", "games"):
        for c in ("seat", "lineup_slot", "round", "stack", "item", "winner", "winner_slot", "tie_break",
                  "block", "key_player", "rank", "win", "shared_win", "tie_break_win", "first_key",
                  "n_winners", "points_tied", "tie_break_decided", "stalled"):
            if c in out[name]:
                out[name][c] = out[name][c].astype(np.int8)
    return out


def _card_use(kp, cu, start):
    """Sum per (slot, card type, value) over the card ids."""
    types = kp.card_types()
    values = kp.card_values()
    keys = sorted({(int(t), int(v)) for t, v in zip(types, values)})
    rows = {c: [] for c in TABLES["card_use"].names}
    for slot in range(cu.shape[0]):
        for t, v in keys:
            sel = (types == t) & (values == v)
            rows["game"].append(start)
            rows["lineup_slot"].append(slot)
            rows["card_type"].append(t)
            rows["value"].append(v)
            rows["played"].append(int(cu[slot, sel, 0].sum()))
            rows["bid"].append(int(cu[slot, sel, 1].sum()))
            rows["kept"].append(int(cu[slot, sel, 2].sum()))
    dt = {"game": np.int32, "lineup_slot": np.int8, "card_type": np.int8, "value": np.int8}
    return {c: np.asarray(vals, dtype=dt.get(c, np.int32)) for c, vals in rows.items()}
