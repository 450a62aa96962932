"""Project Skyline's features for the learned expert (engines.core.expert): what a seat's position
is worth, read from what that seat sees (its own hand and piles as multisets, the board, the
markets and every money track; never another hand or a draw pile's order).

`features_nb(d, cfg, aux, p, out)` describes seat p after its own decision. The terms are the
heuristic's building blocks (policies.py) turned from the value of one action into the value of
a state, so that weights near the heuristic's reproduce its choices: money now (bonus spaces,
area scorings, card effects), the deck's worth (card_worth_nb summed over the seat's cards: its
`deck` and `endgame` terms; a buy or an upgrade changes it by the heuristic's card_worth, the
price or track cost leaves the money), the hand (the symbol whose cards do the most: the
heuristic's symbol choice), area majorities, monument connections, the map's end condition and
the 6-floor buildings it avoids. Beside them, what the search weighs that the heuristic does
not: the lead over the best other seat, what the others would get from the areas, the game's
progress, and the monuments its next new building could still reach (`mon_open`). That last one
is what two players need: new buildings go only where a construction-site tile lies, so a tile's
place decides who can reach a monument; without it the expert played the 2-player game for
area money alone and ran it to the last floor (money end 1.5% NYC, 20% Tokyo; search 100%).

A turn is several decisions (buy, symbol, play, targets, ..., discard), so each feature reads
alike wherever in the turn the state is: what the hand still does this turn (`hand_now`, in
the play step) and what it can do at its next symbol choice (`hand_next`, otherwise) are apart,
and a card in resolution counts as the seat's card with the effects it still has to do. The
expert itself scores a candidate only once the heuristic has finished the seat's turn in the
sample (search.settle_nb), so what it scores is always a turn's end (`hand_now` 0, its weight
fitted to 0); a mid-turn state is read only by a caller of features_nb of its own.
"""
from __future__ import annotations

import numpy as np

from engines.core.kernel import kernel
from engines.project_skyline.params import (
    BONUS_MONEY, END_TOWERS, K_CARD_EFF, K_CARD_SYM, K_CARD_VALUE, K_END_KIND, K_END_MONEY, K_ETAB, K_LAND_SP,
    K_MON_AMT, K_MON_KIND, K_MON_NN, K_MON_REQ, K_MON_RULE, K_MON_SP, K_N_AREAS, K_N_COSTS, K_N_LAND, K_N_MON,
    K_N_SP, K_SITES, K_SP_AREA, K_SP_MDIST, K_SP_NB, K_SP_NN, K_TOWER_MONEY, MAX_EFF, MAX_MON_NB, MAX_NB, MON_CHAIN,
    N_COLOURS, OP_BUILD, OP_DRAW, OP_EXTRA, OP_MONEY, OP_SELL, OP_STACK, OP_TAKE,
)
from engines.project_skyline.rules import (
    area_payout_nb, area_places_nb, area_tops_nb, area_value_nb, card_count_nb, in_mask_nb, monuments_held_nb,
    pb_nb, playable_nb,
)
from engines.project_skyline.state import (
    B_A_FLOORS, B_A_FREE, B_A_SCORED, B_A_SITE, B_COUNTS, B_H, B_LOHI, B_TOP, C_EFFECTS, C_PLAY, MAX_HEIGHT,
    M_CONT, M_CUR, M_EFF, M_EXTRA, M_NPLAYERS, M_PEND_N, M_PEND_OP, M_PLAYER, M_SYMBOL, P_DISC, P_DISC_N, P_DRAW,
    P_DRAW_N, P_FLOORS, P_HAND, P_HAND_N, P_MONEY, P_PA, P_UPOS,
)

# the features, in the model's order (the names of engines/project_skyline/expert.toml's weights)
FEATURES = (
    "bias",           # 1
    "money",          # the seat's money track
    "lead",           # its money minus the richest other seat's
    "card_values",    # its cards' end-game money values (final scoring, as it stands)
    "end_bonus",      # the map's end condition as it stands (NYC: own 7-floor tops; Tokyo: areas reached)
    "deck_worth",     # the heuristic's card_worth summed over its cards (power per draw over the turns left + end value)
    "deck_quality",   # mean power of its cards x the turns left
    "hand_now",       # in its play step: power of the hand cards still playable, + what the card in resolution still does
    "hand_next",      # otherwise: power of the hand's best symbol (the heuristic's symbol choice)
    "areas_now",      # what it would get from the unscored areas if each were scored now
    "areas_near",     # the same, each area over 1 + its free spaces (the areas about to be scored)
    "areas_others",   # the best other seat's take of each unscored area, summed
    "mon_income",     # the monuments it holds: money a turn (an upgrade or a take counts 2)
    "mon_future",     # mon_income x the turns left
    "mon_reach",      # the heuristic's monument terms: NYC chain spaces near monuments, Tokyo partial adjacency
    "six_high",       # 6-floor buildings (one floor short of a tower anyone can top)
    "areas_reached",  # areas holding one of its floors
    "upgrades_left",  # steps left on its upgrade track
    "floors_left",    # floors left in its supply
    "progress",       # the heuristic's progress (the richest money over the end money, 0 .. 1)
    "mon_open",       # money a turn of the monuments it lacks beside a space its next new building may take (open_for_nb)
)
N_FEATURES = len(FEATURES)
TURNS = 14.0   # the heuristic's turns in a game (policies.card_worth_nb: TURNS x (1 - progress) + 1 left)


# ---------------------------------------------------------------- shared estimates (the heuristic's too)

@kernel
def progress_nb(d, cfg):
    """How near the end: the richest player's money over the end money (0..1)."""
    m = 0
    for q in range(d[M_NPLAYERS]):
        if d[pb_nb(q) + P_MONEY] > m:
            m = d[pb_nb(q) + P_MONEY]
    x = m / cfg[K_END_MONEY]
    return x if x < 1.0 else 1.0


@kernel
def card_power_nb(cfg, t):
    """Money-equivalent of playing card t once (build floors ~1.2 each, flexible places more)."""
    return effects_power_nb(cfg, t, np.int64(0))


@kernel
def effects_power_nb(cfg, t, e0):
    """card_power_nb of card t's effects from effect e0 on (a card half resolved: the expert's
    features)."""
    v = 0.0
    for e in range(e0, MAX_EFF):
        o = K_CARD_EFF + (t * MAX_EFF + e) * 3
        op = cfg[o]
        n = cfg[o + 1]
        if op == OP_BUILD:
            v += n * (1.2 if cfg[o + 2] < N_COLOURS else 1.5)
        elif op == OP_STACK:
            v += n * 1.0
        elif op == OP_MONEY:
            v += n
        elif op == OP_DRAW:
            v += 1.2 * n
        elif op == OP_TAKE:
            v += 2.5
        elif op == OP_SELL:
            v += n * 0.8
        elif op == OP_EXTRA:
            v += 1.5
    return v


# ---------------------------------------------------------------- the features

@kernel
def own_card_nb(d, p, i):
    """Seat p's i-th card (hand, draw pile, discard pile, then the card in resolution), -1 past
    the last: the seat's cards as a multiset, in an order that does not matter here."""
    b = pb_nb(p)
    nh = d[b + P_HAND_N]
    if i < nh:
        return d[b + P_HAND + i]
    i -= nh
    nd = d[b + P_DRAW_N]
    if i < nd:
        return d[b + P_DRAW + i]
    i -= nd
    nc = d[b + P_DISC_N]
    if i < nc:
        return d[b + P_DISC + i]
    if i == nc and d[M_PLAYER] == p and d[M_CUR] >= 0:
        return d[M_CUR]
    return -1


@kernel
def upgrades_left_nb(d, cfg, p):
    """Steps left on p's upgrade track."""
    from_top = cfg[K_N_COSTS] - d[pb_nb(p) + P_UPOS]
    return from_top if from_top > 0 else 0


@kernel
def open_for_nb(d, cfg, s, sites, chain):
    """Space s can take the seat's next new building and count for a monument: empty, in an
    area open to new buildings (2 players: holding a construction-site tile), and on a chain map
    (NYC) joining the seat's chain (d[B_LOHI], monuments_held_nb's) -- a landmark space or beside
    the chain."""
    if d[B_H + s] != 0 or (sites and d[B_A_SITE + cfg[K_SP_AREA + s]] != 1):
        return False
    if not chain:
        return True
    for i in range(cfg[K_N_LAND]):
        if cfg[K_LAND_SP + i] == s:
            return True
    for k in range(cfg[K_SP_NN + s]):
        if in_mask_nb(d[B_LOHI], d[B_LOHI + 1], cfg[K_SP_NB + s * MAX_NB + k]):
            return True
    return False


@kernel
def features_nb(d, cfg, aux, p, out):
    """Seat p's features (FEATURES) into out[:N_FEATURES]. Writes the board's scratch (area
    counts, the chain masks) in d, as the heuristic does."""
    b = pb_nb(p)
    P = d[M_NPLAYERS]
    prog = progress_nb(d, cfg)
    turns_left = TURNS * (1.0 - prog) + 1.0
    # money and the lead
    money = d[b + P_MONEY]
    best_other = -1
    for q in range(P):
        if q != p and d[pb_nb(q) + P_MONEY] > best_other:
            best_other = d[pb_nb(q) + P_MONEY]
    # the seat's cards: end values, the heuristic's worth, mean power
    card_values = 0.0
    deck_worth = 0.0
    power = 0.0
    n_cards = 0
    i = np.int64(0)   # not a literal 0: own_card_nb would compile once more for Literal[int](0)
    while True:
        t = own_card_nb(d, p, i)
        if t < 0:
            break
        card_values += cfg[K_CARD_VALUE + t]
        power += card_power_nb(cfg, t)
        n_cards += 1
        i += 1
    # policies.card_worth_nb at the heuristic's default weights (deck 1, endgame 1) summed over
    # the cards, its common factors taken out of the sum
    per_turn = 4.0 / max(4, card_count_nb(d, p) + 1)
    deck_worth = power * turns_left * per_turn + card_values * (0.3 + 0.7 * prog)
    deck_quality = power / max(1, n_cards) * turns_left
    # the hand: this turn's play step, or the next symbol choice
    hand_now = 0.0
    hand_next = 0.0
    in_play = d[M_PLAYER] == p and d[M_SYMBOL] >= 0 and (d[M_CONT] == C_PLAY or d[M_CONT] == C_EFFECTS)
    if in_play:
        for h in range(d[b + P_HAND_N]):
            t = d[b + P_HAND + h]
            if playable_nb(cfg[K_CARD_SYM + t], d[M_SYMBOL], d[M_EXTRA]):
                hand_now += card_power_nb(cfg, t)
        if d[M_CUR] >= 0:
            hand_now += effects_power_nb(cfg, d[M_CUR], d[M_EFF])
            if d[M_PEND_OP] == OP_BUILD:
                hand_now += 1.2 * d[M_PEND_N]
            elif d[M_PEND_OP] == OP_STACK:
                hand_now += 1.0 * d[M_PEND_N]
    else:
        for c in range(N_COLOURS):
            v = 0.0
            for h in range(d[b + P_HAND_N]):
                t = d[b + P_HAND + h]
                if (cfg[K_CARD_SYM + t] >> c) & 1:
                    v += card_power_nb(cfg, t)
            if v > hand_next:
                hand_next = v
    # area majorities
    areas_now = 0.0
    areas_near = 0.0
    areas_others = 0.0
    areas_reached = 0
    for a in range(cfg[K_N_AREAS]):
        if d[b + P_PA + a] > 0:
            areas_reached += 1
        if d[B_A_SCORED + a] == 1:
            continue
        area_tops_nb(d, cfg, a)
        worth = area_value_nb(cfg, d[B_A_FLOORS + a])
        first, second = area_places_nb(d, cfg, P)
        mine = area_payout_nb(worth, d[B_COUNTS + p], first, second)
        areas_now += mine
        areas_near += mine / (1.0 + d[B_A_FREE + a])
        other = 0
        for q in range(P):
            if q != p:
                v = area_payout_nb(worth, d[B_COUNTS + q], first, second)
                if v > other:
                    other = v
        areas_others += other
    # monuments: held now (monuments_held_nb leaves p's chain in d[B_LOHI] on NYC), and the reach
    held = monuments_held_nb(d, cfg, p)
    chain = cfg[K_MON_RULE] == MON_CHAIN
    mon_income = 0.0
    mon_reach = 0.0
    mon_open = 0.0
    sites = cfg[K_SITES] == 1
    for m in range(cfg[K_N_MON]):
        bonus = cfg[K_MON_AMT + m] if cfg[K_MON_KIND + m] == BONUS_MONEY else 2
        if (held >> m) & 1:
            mon_income += bonus
            continue
        for k in range(cfg[K_MON_NN + m]):
            if open_for_nb(d, cfg, cfg[K_MON_SP + m * MAX_MON_NB + k], sites, chain):
                mon_open += bonus
                break
        if not chain:
            cnt = 0
            for k in range(cfg[K_MON_NN + m]):
                if d[B_TOP + cfg[K_MON_SP + m * MAX_MON_NB + k]] == p:
                    cnt += 1
            mon_reach += bonus * cnt / cfg[K_MON_REQ + m]
    six_high = 0
    towers = 0
    lo = d[B_LOHI]
    hi = d[B_LOHI + 1]
    for s in range(cfg[K_N_SP]):
        h = d[B_H + s]
        if h == MAX_HEIGHT - 1:
            six_high += 1
        elif h == MAX_HEIGHT and d[B_TOP + s] == p:
            towers += 1
        if chain and in_mask_nb(lo, hi, s):
            mon_reach += 2.0 / (1.0 + cfg[K_SP_MDIST + s])
    # the end condition as final_scoring_nb scores it
    end_bonus = 0
    if cfg[K_END_KIND] == END_TOWERS:
        end_bonus = towers * cfg[K_TOWER_MONEY]
    else:
        for k in range(4):
            need = cfg[K_ETAB + 2 * k]
            if need > 0 and areas_reached >= need:
                end_bonus = cfg[K_ETAB + 2 * k + 1]
                break
    out[0] = 1.0
    out[1] = money
    out[2] = money - best_other
    out[3] = card_values
    out[4] = end_bonus
    out[5] = deck_worth
    out[6] = deck_quality
    out[7] = hand_now
    out[8] = hand_next
    out[9] = areas_now
    out[10] = areas_near
    out[11] = areas_others
    out[12] = mon_income
    out[13] = mon_income * turns_left
    out[14] = mon_reach
    out[15] = six_high
    out[16] = areas_reached
    out[17] = upgrades_left_nb(d, cfg, p)
    out[18] = d[b + P_FLOORS]
    out[19] = prog
    out[20] = mon_open
