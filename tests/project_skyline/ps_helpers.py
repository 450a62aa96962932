"""Builders for hand-made Project Skyline positions (tests only)."""
from __future__ import annotations


from engines.project_skyline import new_game
from engines.project_skyline.rules import advance_nb, place_floors_nb
from engines.project_skyline.state import (
    A_PLAY, B_TOP, C_PLAY, M_CONT, M_DREW, M_EXTRA, M_PHASE, M_PLAYER, M_SYMBOL, P_DISC_N, P_DRAW, P_DRAW_N,
    P_HAND, P_HAND_N, P_MONEY, PB, PBASE, PH_PLAY, fields,
)


def game(players=4, variant=None, seed=0, overrides=None):
    return new_game(variant, players, seed, 0, overrides)


def pb(p):
    return PBASE + p * PB


def type_of(g, code):
    return [c.code for c in g.kp.cards].index(code)


def space(g, r, c):
    return g.kp.map.space_of[(r, c)]


def set_hand(g, p, codes):
    d = g.state.data
    d[pb(p) + P_HAND_N] = len(codes)
    for i, code in enumerate(codes):
        d[pb(p) + P_HAND + i] = type_of(g, code)


def set_draw(g, p, codes):
    """Draw pile, top = last of `codes`."""
    d = g.state.data
    d[pb(p) + P_DRAW_N] = len(codes)
    for i, code in enumerate(codes):
        d[pb(p) + P_DRAW + i] = type_of(g, code)


def build(g, p, r, c, floors=1):
    """Put p's floors on (r, c) directly (bonus and area bookkeeping as in play)."""
    return place_floors_nb(g.state.data, g.kp.cfg, p, space(g, r, c), floors)


def top(g, r, c):
    return int(g.state.data[B_TOP + space(g, r, c)])


def money(g, p):
    return int(g.state.data[pb(p) + P_MONEY])


def set_money(g, p, m):
    g.state.data[pb(p) + P_MONEY] = m


def to_play(g, p, hand, symbol):
    """Seat p to move in step II with this hand and symbol chosen (nothing else pending)."""
    d = g.state.data
    d[M_PLAYER] = p
    set_hand(g, p, hand)
    d[M_SYMBOL] = ["green", "grey", "white", "red"].index(symbol)
    d[M_EXTRA] = 0
    d[M_DREW] = 0
    d[M_CONT] = C_PLAY
    d[M_PHASE] = PH_PLAY
    advance_nb(d, g.state.rng, g.kp.cfg)


def play(g, h=0):
    g.apply(A_PLAY + h)


def hand_codes(g, p):
    d = g.state.data
    return [g.kp.cards[int(d[pb(p) + P_HAND + i])].code for i in range(int(d[pb(p) + P_HAND_N]))]


def targets(g):
    """Legal build targets as (row, col)."""
    from engines.project_skyline.state import A_SPACE, A_TAKE
    return {tuple(g.kp.map.cells[a - A_SPACE][:2]) for a in g.legal_actions() if A_SPACE <= a < A_TAKE}


def clear_board(g):
    f = fields(g.state)
    f["h"][:] = 0
    f["top"][:] = -1


def total_cards(g):
    """Every card's location counted: hands, draw and discard piles, in resolution, markets,
    Upgrade draw pile, removed."""
    f = fields(g.state)
    d = g.state.data
    n = 0
    for p in range(g.n_players):
        b = pb(p)
        n += d[b + P_HAND_N] + d[b + P_DRAW_N] + d[b + P_DISC_N]
    n += int(f["basic"].sum()) + int((f["umk"] >= 0).sum()) + int(f["upg_n"][0]) + int(f["removed"].sum())
    n += 1 if f["cur"][0] >= 0 else 0
    return n


def expected_cards(g):
    kp = g.kp
    return g.n_players * int(kp.n_start) + int(kp.basic_copies.sum()) + int(kp.n_upg)
