"""Small builders for hand-made Skyline 3000 positions (tests only).

Blocks are numbered 0-8, district = block // 3 (Red 0-2, Yellow 3-5, Blue 6-8).
Seats in the rulebook's examples: 0 Orange, 1 Purple, 2 Green, 3 White.
"""
from __future__ import annotations

import numpy as np

from engines.skyline_3000 import rules as R
from engines.skyline_3000.params import VARIANTS, kernel_params
from engines.skyline_3000.state import (
    B_BB, B_BBTOT, B_BLDH, B_BLDO, B_FLOORS, B_GREEN, B_LVAC, B_NBLD, B_NMALL, B_NSPACE,
    B_ROOF, B_TALL, B_TOP, B_VAC, CURVED, N_PROW, P_NHAND, TAB, K_SIZE, State,
)

ORANGE, PURPLE, GREEN, WHITE = 0, 1, 2, 3


def kp_for(n_players=4, variant=None, **overrides):
    return kernel_params(VARIANTS.load(variant, overrides or None), n_players)


def empty_board(kp):
    """A board with no pieces at all (not even the pre-placed Greenspaces)."""
    board = np.zeros((kp.n_blocks, R.N_BOARD), np.int32)
    board[:, B_VAC] = kp.small_platforms
    board[:, B_LVAC] = kp.large_platforms
    return board


def build(board, k, owner, h, roof=CURVED, platform=True):
    """Install a building as the rules would (no legality check)."""
    j = board[k, B_NBLD]
    board[k, B_BLDH + j] = h
    board[k, B_BLDO + j] = owner
    board[k, B_NBLD] += 1
    board[k, B_FLOORS + owner] += h
    board[k, B_TALL + owner] = max(board[k, B_TALL + owner], h)
    board[k, B_TOP] = max(board[k, B_TOP], h)
    board[k, B_ROOF] = roof
    if platform:
        board[k, B_VAC] -= 1


def green(board, k, n=1):
    board[k, B_GREEN] += n
    board[k, B_VAC] -= n


def billboard(board, k, owner):
    board[k, B_BB + owner] += 1
    board[k, B_BBTOT] += 1
    board[k, B_VAC] -= 1


def spaceport(board, k):
    board[k, B_NSPACE] += 1
    board[k, B_LVAC] -= 1


def megamall(board, k):
    board[k, B_NMALL] += 1
    board[k, B_LVAC] -= 1


def players_array(kp, scores=0):
    pl = np.zeros((kp.n_players, N_PROW), np.int32)
    pl[:, 0] = scores
    return pl


def position(kp, board=None, players=None):
    """A fresh State for variant kp (its table loaded) holding copies of these
    hand-built board / players rows: what the kernels take (st.pub)."""
    st = State.empty(kp)
    st.pub[TAB:TAB + K_SIZE] = kp.tab
    if board is not None:
        st.board[:] = board
    if players is not None:
        st.players[:] = players
    return st


def set_hand(st, p, cards):
    """Give seat p exactly these card ids (taken from wherever they were: tests only)."""
    st.hands[p, :] = 0
    st.hands[p, : len(cards)] = cards
    st.players[p, P_NHAND] = len(cards)


def card_id(kp, ctype, value, district=-1, skip=()):
    """First card id of this type/value (/district) not in `skip`."""
    for c in range(kp.n_cards):
        if c in skip:
            continue
        if kp.card_types()[c] == ctype and kp.card_values()[c] == value and (
                district < 0 or kp.card_districts()[c] == district):
            return c
    raise LookupError((ctype, value, district))
