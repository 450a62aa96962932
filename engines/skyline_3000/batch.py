"""Skyline 3000 batch kernel: whole games in one jitted loop, filling the
result tables of tables.py.

The loop calls exactly the kernels the step API calls (current player,
legal_actions_nb, choose_action_nb, apply_action_nb; search.search_move_nb for
a search seat): there is one copy of the rules. It counts every decision's legal actions for the
games columns n_choices and sum_legal (rules.n_legal_nb: bids are counted, 2^cards, not listed);
the random player's construction turns still get no list (policy_random_nb counts and picks with
rules.main_kind_counts_nb / main_kind_action_nb, the helpers legal_actions_nb lists with, and
draws what it would draw from the list).

What every game's loop does is the shared harness's (engines.core.harness):
seat rotation, the policy streams, rank / win / shared win / margin into the
required columns, the refcount-free buffers. Game i of a run depends only on
(seed, i): its chance stream and each seat's policy stream are derived from
them (engines.core.rng). Every other column is written by name (the PL_*,
AU_*, GA_* positions below, taken from tables.py at import).
"""
from __future__ import annotations

import numpy as np

from engines.core.lineup import seat_arrays
from engines.core.harness import (
    REQUIRED_GAME_COLUMNS, REQUIRED_PLAYER_COLUMNS, check_tables, columns, keep_alive_all,
    required_columns, seats_for_game_nb, seed_policies_nb, write_game_result_nb, write_seat_results_nb,
)
from engines.core.kernel import ir_inline_kernel, kernel, kernel_named
from engines.core.lowlevel import unowned
from engines.core.search import N_STATS, STAT_SIMULATED
from engines.skyline_3000.policies import RANDOM, SEARCH, choose_action_nb
from engines.skyline_3000.search import search_buffers_nb, search_move_nb
from engines.skyline_3000.rules import apply_action_nb, final_result_nb, n_legal_nb, reset_state_nb
from engines.skyline_3000.state import (
    A_BID, A_BLOCK, A_HIGH, A_ITEM, A_PRICE, A_ROUND, A_STACK, A_TIE, A_WINNER, ALOG, C_CUR,
    C_DECISIONS, C_FIRST_KEY, C_N_AUC, C_PHASE, C_STALLED, C_TURNS_TOTAL, MAX_P, N_ALOG, P_PAID, P_PLAYED,
    N_PROW, P_EV_BILLBOARD, P_EV_BUILDOVER, P_EV_FIRST, P_EV_SECOND, P_NHAND,
    P_ST_BB, P_ST_BB_OVER, P_ST_BUILT, P_ST_EXTRA, P_ST_FLOORS, P_ST_PASS_R1, P_ST_PLACED,
    P_ROUND_SCORE, P_ST_SPENT, P_ST_WON, PH_BID, PH_MAIN, PH_OVER, PLAYERS, PUB_SIZE, SEC_SIZE, K_MAX_ACTIONS, K_N_AUCTIONS, K_N_CARDS, K_N_PLAYERS, K_ROUNDS,
)
from engines.skyline_3000.tables import AUCTIONS, GAMES, TABLES, rounds_table
from engines.skyline_3000.tables import PLAYERS as PLAYERS_TABLE


def _play_game_kernel(with_search):
    """play_game_nb for line-ups with a search seat (with_search) or without one. `with_search`
    is a constant of the closure: numba prunes the search branch of the scripted kernel before
    typing, so a run of scripted players never compiles the search (most of a cold compile).
    numba copies it into simulate_chunk_nb (ir_inline_kernel; its callees stay compiled kernels):
    as a kernel of its own, the whole game's code was optimised and emitted to machine code once
    for it and once more inside the batch loop, about 2.5 s of a cold start."""
    def play_game_nb(tab, pub, hands, sec, legal, prng, seat_pids, seat_w, run_seed, game_index, sbufs, sstats,
                     choice):
        """Play one whole game into the buffers pub, hands, sec (preallocated;
        reset here from the variant table tab = KernelParams.tab). seat_pids[s]
        and seat_w[s] are the policy id and weight row of the seat s; legal is an
        int64[kp.max_actions] buffer and prng uint64[P, 4] the policy streams; a
        search seat searches with the buffers sbufs (search.search_buffers_nb) and
        adds its counters to sstats (engines.core.search STAT_*). choice int64[2] gets the
        decisions with more than one legal action and the legal actions summed over the
        decisions (rules.n_legal_nb: what the step API lists; a bid counts every subset).
        Returns False if a policy chose an illegal action (the game stops there;
        the caller raises: a raise inside the kernel costs seconds of compile)."""
        reset_state_nb(pub, hands, sec, tab, run_seed, game_index)
        seed_policies_nb(prng, run_seed, game_index)
        choice[0] = 0
        choice[1] = 0
        while pub[C_PHASE] != PH_OVER:
            p = pub[C_CUR]
            pid = seat_pids[p]
            # counted before the policy decides (it may use `legal` as scratch); a policy that
            # does not read the list still gets n = 0, as before
            n_legal = n_legal_nb(pub, hands, legal)
            choice[1] += n_legal
            if n_legal > 1:
                choice[0] += 1
            if with_search and pid == SEARCH:
                a = search_move_nb((pub, hands, sec), sbufs, seat_w[p], prng[p], sstats)
            else:
                # the random player picks a construction action without the list
                # (policy_random_nb), and nobody needs one to bid
                n = 0
                if not (pub[C_PHASE] == PH_BID or (pid == RANDOM and pub[C_PHASE] == PH_MAIN)):
                    n = n_legal
                a = choose_action_nb(pid, pub, hands[p], legal, n, seat_w[p], prng[p])
            if not apply_action_nb(pub, hands, sec, a):
                return False
        return True
    # a name per variant, as kernel_named gives (tests/test_scripted_kernels.py says why)
    play_game_nb.__name__ = play_game_nb.__qualname__ = "play_game_nb" if with_search else "play_game_scripted_nb"
    return ir_inline_kernel(play_game_nb)


play_game_nb = _play_game_kernel(True)
play_game_scripted_nb = _play_game_kernel(False)


# Output columns by name: positions resolved here, at import, from tables.py
# (a misspelled or missing column raises KeyError now, not a mislabelled
# column later); numba freezes these module-level ints into the kernel.
check_tables(TABLES)
PL_REQ = required_columns(PLAYERS_TABLE, REQUIRED_PLAYER_COLUMNS)
GA_REQ = required_columns(GAMES, REQUIRED_GAME_COLUMNS)
(PL_KEY_PLAYER, PL_TIE_BREAK_WIN, PL_CARDS_LEFT, PL_HAND_VALUE_LEFT, PL_BUILT, PL_PLACED, PL_FLOORS,
 PL_BB, PL_BB_OVER, PL_WON, PL_SPENT, PL_FIRST, PL_SECOND, PL_BB_POINTS, PL_EXTRA, PL_PASS_R1) = columns(
    PLAYERS_TABLE, "key_player", "tie_break_win", "cards_left", "hand_value_left", "buildings_built",
    "buildings_placed", "floors_placed", "billboards_placed", "billboards_built_over", "improvements_won",
    "spent", "points_first", "points_second", "points_billboards", "extra_cards", "passes_round1")
(AU_GAME, AU_ROUND, AU_STACK, AU_ITEM, AU_WINNER, AU_WINNER_SLOT, AU_PRICE, AU_TIE_BREAK, AU_BLOCK) = columns(
    AUCTIONS, "game", "round", "stack", "item", "winner", "winner_slot", "price", "tie_break", "block")
AU_BIDS = columns(AUCTIONS, *[f"bid_{q}" for q in range(MAX_P)])
AU_HIGHS = columns(AUCTIONS, *[f"high_{q}" for q in range(MAX_P)])
(GA_FIRST_KEY, GA_POINTS_TIED, GA_TIE_BREAK_DECIDED, GA_TURNS) = columns(
    GAMES, "first_key", "points_tied", "tie_break_decided", "construction_turns")
PL_COLS = PLAYERS_TABLE.names
AU_COLS = AUCTIONS.names
# every games column but the int64 ones comes from the int32 matrix `ga`; search_simulated (a long
# search overflows int32) and sum_legal (a bid counts 2^cards) from their own vector `ga_wide`
GA_WIDE = ("sum_legal", "search_simulated")
GA_COLS = [c for c in GAMES.names if c not in GA_WIDE]
GA_CHOICES = GA_COLS.index("n_choices")


def _simulate_chunk_kernel(with_search):
    """simulate_chunk_nb over play_game_nb (with_search) or play_game_scripted_nb: two cached
    kernels, chosen by simulate from the line-up."""
    @kernel_named("simulate_chunk_nb" if with_search else "simulate_chunk_scripted_nb", allocates=True)
    def simulate_chunk_nb(tab, slot_pids, slot_w, rotate, run_seed, start, count, pl, au, au_n, ga, ga_wide, cu, rs):
        """Play games [start, start + count). Fills the column-major matrices
        pl int32[len(PL_COLS), count * P], au int32[len(AU_COLS), count * n_auctions]
        (au_n[g] rows used by game g) and ga int32[len(GA_COLS), count], the
        int64 columns GA_WIDE per game in ga_wide int64[2, count], and
        cu int32[P slots, n_cards, 3] (played, bid, kept) summed over the chunk.
        Returns -1, or the index of a game where a policy chose an illegal action."""
        P = tab[K_N_PLAYERS]
        NC = tab[K_N_CARDS]
        NA = tab[K_N_AUCTIONS]
        pub = np.zeros(PUB_SIZE, np.int32)
        hands = np.zeros((P, NC), np.int32)
        sec = np.zeros(SEC_SIZE, np.uint64)
        legal = np.zeros(tab[K_MAX_ACTIONS], np.int64)
        prng = np.zeros((P, 4), np.uint64)
        seat_pids = np.zeros(P, np.int64)
        seat_w = np.zeros((P, slot_w.shape[1]), np.float64)
        slot_of = np.zeros(P, np.int64)
        score = np.zeros(P, np.int64)
        rank = np.zeros(P, np.int64)
        hv = np.zeros(P, np.int64)
        sbufs = search_buffers_nb()
        sstats = np.zeros(N_STATS, np.int64)
        choice = np.zeros(2, np.int64)
        # the game loop runs on borrowed views (no reference counting); the
        # arrays above stay alive to the end of this kernel (keep_alive_all);
        # views: engines/core/lowlevel.py
        pub_b = unowned(pub)
        hands_b = unowned(hands)
        sec_b = unowned(sec)
        legal_b = unowned(legal)
        prng_b = unowned(prng)
        pids_b = unowned(seat_pids)
        w_b = unowned(seat_w)
        for g in range(count):
            gi = start + g
            seats_for_game_nb(gi, rotate, slot_pids, slot_w, slot_of, seat_pids, seat_w)
            sstats[STAT_SIMULATED] = 0
            if with_search:
                ok = play_game_nb(tab, pub_b, hands_b, sec_b, legal_b, prng_b, pids_b, w_b, run_seed, gi, sbufs, sstats,
                                  choice)
            else:
                ok = play_game_scripted_nb(tab, pub_b, hands_b, sec_b, legal_b, prng_b, pids_b, w_b, run_seed, gi,
                                           sbufs, sstats, choice)
            if not ok:
                keep_alive_all(pub, hands, sec, legal, prng, seat_pids, seat_w)
                return gi
            n_win, n_top, winner, margin, tb = final_result_nb(pub, hands, score, rank, hv)
            write_seat_results_nb(pl, g * P, PL_REQ, gi, slot_of, score, rank, n_win)
            for s in range(P):
                r = g * P + s
                o = PLAYERS + s * N_PROW
                pl[PL_KEY_PLAYER, r] = 1 if pub[C_FIRST_KEY] == s else 0
                pl[PL_TIE_BREAK_WIN, r] = 1 if rank[s] == 1 and n_win == 1 and tb else 0
                pl[PL_CARDS_LEFT, r] = pub[o + P_NHAND]
                pl[PL_HAND_VALUE_LEFT, r] = hv[s]
                pl[PL_BUILT, r] = pub[o + P_ST_BUILT]
                pl[PL_PLACED, r] = pub[o + P_ST_PLACED]
                pl[PL_FLOORS, r] = pub[o + P_ST_FLOORS]
                pl[PL_BB, r] = pub[o + P_ST_BB]
                pl[PL_BB_OVER, r] = pub[o + P_ST_BB_OVER]
                pl[PL_WON, r] = pub[o + P_ST_WON]
                pl[PL_SPENT, r] = pub[o + P_ST_SPENT]
                pl[PL_FIRST, r] = pub[o + P_EV_FIRST]
                pl[PL_SECOND, r] = pub[o + P_EV_SECOND]
                pl[PL_BB_POINTS, r] = pub[o + P_EV_BILLBOARD] + pub[o + P_EV_BUILDOVER]
                pl[PL_EXTRA, r] = pub[o + P_ST_EXTRA]
                pl[PL_PASS_R1, r] = pub[o + P_ST_PASS_R1]
                for k in range(tab[K_ROUNDS]):  # rs int32[count, P, rounds]: the rounds table
                    rs[g, s, k] = pub[o + P_ROUND_SCORE + k]
                slot = slot_of[s]
                for c in range(NC):
                    cu[slot, c, 0] += pub[o + P_PLAYED + c]
                    cu[slot, c, 1] += pub[o + P_PAID + c]
                for i in range(pub[o + P_NHAND]):
                    cu[slot, hands[s, i], 2] += 1
            na = pub[C_N_AUC]
            au_n[g] = na
            for j in range(na):
                r = g * NA + j
                a = ALOG + j * N_ALOG
                au[AU_GAME, r] = gi
                au[AU_ROUND, r] = pub[a + A_ROUND]
                au[AU_STACK, r] = pub[a + A_STACK]
                au[AU_ITEM, r] = pub[a + A_ITEM]
                for q in range(MAX_P):
                    au[AU_BIDS[q], r] = pub[a + A_BID + q]
                    au[AU_HIGHS[q], r] = pub[a + A_HIGH + q]
                w = pub[a + A_WINNER]
                au[AU_WINNER, r] = w
                au[AU_WINNER_SLOT, r] = slot_of[w] if w >= 0 else -1
                au[AU_PRICE, r] = pub[a + A_PRICE]
                au[AU_TIE_BREAK, r] = pub[a + A_TIE]
                au[AU_BLOCK, r] = pub[a + A_BLOCK]
            write_game_result_nb(ga, g, GA_REQ, gi, winner, n_win, margin, pub[C_DECISIONS], pub[C_STALLED])
            ga[GA_FIRST_KEY, g] = pub[C_FIRST_KEY]
            ga[GA_POINTS_TIED, g] = 1 if n_top > 1 else 0
            ga[GA_TIE_BREAK_DECIDED, g] = 1 if tb else 0
            ga[GA_TURNS, g] = pub[C_TURNS_TOTAL]
            ga[GA_CHOICES, g] = choice[0]
            ga_wide[0, g] = choice[1]
            ga_wide[1, g] = sstats[STAT_SIMULATED]
        keep_alive_all(pub, hands, sec, legal, prng, seat_pids, seat_w)
        return -1
    return simulate_chunk_nb


simulate_chunk_nb = _simulate_chunk_kernel(True)
simulate_chunk_scripted_nb = _simulate_chunk_kernel(False)


def simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count):
    """Play games [start, start + count) of run `seed`.

    seat_policy_ids int64[P] and seat_weights float64[P, W] are per line-up
    slot; with `rotate`, game i seats slot (seat + i) % P at seat `seat`.
    Returns {table: {column: 1-D array}} with the columns of tables.py, in order.
    """
    kp = kparams
    P = kp.n_players
    ids, w = seat_arrays(seat_policy_ids, seat_weights, P, min_width=1)
    count = int(count)
    pl = np.zeros((len(PL_COLS), count * P), np.int32)
    au = np.zeros((len(AU_COLS), count * kp.n_auctions), np.int32)
    au_n = np.zeros(count, np.int32)
    ga = np.zeros((len(GA_COLS), count), np.int32)
    ga_wide = np.zeros((len(GA_WIDE), count), np.int64)
    cu = np.zeros((P, kp.n_cards, 3), np.int32)
    rs = np.zeros((count, P, kp.rounds), np.int32)
    chunk = simulate_chunk_nb if (ids == SEARCH).any() else simulate_chunk_scripted_nb
    bad = chunk(kp.tab, ids, w, bool(rotate), np.uint64(seed), np.int64(start), np.int64(count),
                pl, au, au_n, ga, ga_wide, cu, rs)
    if bad >= 0:
        raise ValueError(f"a policy chose an illegal action in game {bad} of run {seed}")
    keep = (np.arange(kp.n_auctions)[None, :] < au_n[:, None]).reshape(-1)
    au = au[:, keep]
    out = {
        "players": {c: pl[j].copy() for j, c in enumerate(PL_COLS)},
        "auctions": {c: au[j].copy() for j, c in enumerate(AU_COLS)},
        "games": _games_columns(ga, ga_wide),
        "card_use": _card_use(kp, cu, int(start)),
        "rounds": rounds_table(rs, int(start)),
    }
    for name in ("players", "auctions", "games"):
        for c in ("seat", "lineup_slot", "round", "stack", "item", "winner", "winner_slot", "tie_break",
                  "block", "key_player", "rank", "win", "shared_win", "tie_break_win", "first_key",
                  "n_winners", "points_tied", "tie_break_decided", "stalled"):
            if c in out[name]:
                out[name][c] = out[name][c].astype(np.int8)
    return out


def _games_columns(ga, ga_wide):
    """The games table in tables.py's column order, from the int32 matrix and the int64 vectors."""
    narrow = {c: ga[j].copy() for j, c in enumerate(GA_COLS)}
    wide = {c: ga_wide[j].copy() for j, c in enumerate(GA_WIDE)}
    return {c: narrow[c] if c in narrow else wide[c] for c in GAMES.names}


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
