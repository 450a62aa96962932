"""Skyline 3000 game state: a NamedTuple of nine numpy arrays.

Rulebook: shared/rules/skyline-3000.txt; open points: shared/rules/GAPS.md.

Hidden information is kept physically apart, so an observation is a handful
of views and never a copy:

    public   ctrl, board, plants, players, piles, alog   (everyone sees these)
    private  hands[p]                                     (seat p only)
    hidden   decks, secret                                (no player)

All codes below are module-level ints so kernels can use them as constants.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

# ---------------------------------------------------------------- codes
# card types = deck / pile index
FLOOR, ROOF, CONTRACT = 0, 1, 2
N_TYPES = 3
# roof types (0 = none: incomplete building, or a block with no building yet)
NO_ROOF, CURVED, POINTED = 0, 1, 2
# auction items (same codes as tables.ITEM_NAMES)
GREENSPACE, SPACEPORT, MEGAMALL = 0, 1, 2

# phases: each names the kind of decision the current player takes
PH_MAIN = 0      # construction: pass / play a card / billboard
PH_FLOOR = 1     # place one Floor (after a Floor card; ctrl[SUB] left)
PH_ROOF = 2      # roof one incomplete building (after a Roof card)
PH_INSTALL = 3   # install a complete building (after a Contract card)
PH_BID = 4       # sealed bid (a subset of the hand; not enumerated)
PH_PLACE = 5     # auction winner places the item
PH_DRAW = 6      # draw one card from a chosen deck
PH_OVER = 7      # game over

# ---------------------------------------------------------------- ctrl: int64[N_CTRL]
# public control scalars
C_PHASE = 0         # PH_*
C_ROUND = 1         # 0-based round
C_KEY = 2           # Key Player seat
C_CUR = 3           # seat to decide (-1 when over)
C_PASSED = 4        # bit mask of seats that passed this construction phase
C_TURN = 5          # construction turns this round (passes included)
C_TURNS_TOTAL = 6   # construction turns, all rounds
C_SUB = 7           # PH_FLOOR: floors still to place
C_PCARD = 8         # PH_INSTALL: the Contract card just played
C_STACK = 9         # improvement phase: stack being auctioned
C_BIDDER = 10       # improvement phase: offset from the Key of the seat bidding
C_WINNER = 11       # PH_PLACE: auction winner
C_ITEM = 12         # item on auction / to place
C_DRAWER = 13       # PH_DRAW: offset from the Key of the seat drawing
C_DRAW_LEFT = 14    # PH_DRAW: cards the drawer still draws
C_DRAWN = 15        # PH_DRAW: cards the drawer drew so far
C_STOCK = 16        # floors left in the shared stock
C_DECISIONS = 17    # decisions taken
C_STALLED = 18      # 1 if the turn cap ended the game
C_FIRST_KEY = 19    # Key Player in round 1
C_N_AUC = 20        # rows written to alog
C_STACK_POS = 24    # [24 + s]: items already taken from auction stack s
MAX_STACKS = 4
N_CTRL = C_STACK_POS + MAX_STACKS

# ---------------------------------------------------------------- board: int32[n_blocks, N_BOARD]
# one row per block b (district b // blocks_per_district):
#   0 VAC     vacant small platforms     5 LVAC    vacant large platforms
#   1 GREEN   greenspaces                6 NSPACE  spaceports
#   2 BBTOT   billboards (all players)   7 NMALL   megamalls
#   3 TOP     tallest building height    8 NBLD    buildings installed
#   4 BROOF   roof type of the block (0 = none yet)
#   9+p   FLOORS  floors of seat p        13+p  TALL  tallest building of seat p
#   17+p  BB      billboards of seat p
#   21+j  BLDH    height of the j-th building installed (in order)
#   21+MAX_SMALL+j  BLDO   its owner
B_VAC, B_GREEN, B_BBTOT, B_TOP, B_ROOF, B_LVAC, B_NSPACE, B_NMALL, B_NBLD = range(9)
MAX_P = 4
B_FLOORS = 9
B_TALL = B_FLOORS + MAX_P
B_BB = B_TALL + MAX_P
B_BLDH = B_BB + MAX_P
MAX_SMALL = 12
B_BLDO = B_BLDH + MAX_SMALL
N_BOARD = B_BLDO + MAX_SMALL

# ---------------------------------------------------------------- plants: int32[P, 2, max_buildings]
# plants[p, 0, i] height of building i in seat p's Plant, plants[p, 1, i] its
# roof (0 = incomplete). players[p, P_NBUILD] buildings are in use; an
# installed building leaves by swapping the last one into its place.
PL_H, PL_R = 0, 1

# ---------------------------------------------------------------- players: int32[P, N_PLAYER + 2 * n_cards]
P_SCORE = 0
P_NHAND = 1         # hand size (public)
P_BILLBOARDS = 2    # billboards left in supply
P_ROOFS = 2         # [P_ROOFS + roof type]: roofs left (3 curved, 4 pointed)
P_NBUILD = 5        # buildings in the Plant
P_BONUS = 6         # extra cards for the next Draw Phase (Spaceports)
# scoring events, summed by kind: score == start + sum of these four
P_EV_FIRST = 7
P_EV_SECOND = 8
P_EV_BILLBOARD = 9  # negative: billboards placed
P_EV_BUILDOVER = 10 # negative: building installed on own billboard
# statistics for the result tables
P_ST_BUILT = 11
P_ST_PLACED = 12
P_ST_FLOORS = 13
P_ST_BB = 14
P_ST_BB_OVER = 15
P_ST_WON = 16
P_ST_SPENT = 17
P_ST_EXTRA = 18
P_ST_PASS_R1 = 19   # own construction turn (0-based) of the pass in round 1
P_TURNS_ROUND = 20  # own construction turns this round
N_PLAYER = 24
# [N_PLAYER + c]: times card c was played in construction by this seat
# [N_PLAYER + n_cards + c]: times card c was paid in a won auction

# ---------------------------------------------------------------- piles: int32[3, N_PILE + n_cards]
# piles[t, PI_DECK] cards in deck t, PI_DISC cards in its discard pile,
# PI_TOP the visible top card id (-1: deck empty), [t, N_PILE + j] discards.
PI_DECK, PI_DISC, PI_TOP = 0, 1, 2
N_PILE = 4

# ---------------------------------------------------------------- alog: int32[n_auctions, N_ALOG]
# one row per auction held (ctrl[C_N_AUC] rows used)
A_ROUND, A_STACK, A_ITEM = 0, 1, 2
A_BID = 3           # [A_BID + seat], -1 for a seat not in the game
A_HIGH = 7          # [A_HIGH + seat]
A_WINNER, A_PRICE, A_TIE, A_BLOCK = 11, 12, 13, 14
N_ALOG = 16

# ---------------------------------------------------------------- hidden
# hands: int32[P, n_cards]     hands[p, :players[p, P_NHAND]] card ids (private)
# decks: int32[3, n_cards]     decks[t, :piles[t, PI_DECK]] draw order, top last
# secret: uint64[4 + P]        [0:4] chance stream (xoshiro256**): every shuffle,
#                              deal and the Key draw; [4 + p] seat p's sealed bid
S_BIDS = 4

# ---------------------------------------------------------------- actions (int64)
# action = kind << 16 | detail, or BID_FLAG | card-id mask for a bid
A_SHIFT = 16
DETAIL_MASK = (1 << A_SHIFT) - 1
K_PASS = 0          # detail 0
K_FLOOR = 1         # play Floor card (detail = card id), then place floors
K_ROOF = 2          # play Roof card, then roof a building
K_CONTRACT = 3      # play Contract card, then install a building
K_BILLBOARD = 4     # detail = block
K_NOACT = 5         # play card, no action (not a pass)
K_FLOOR_TARGET = 6  # detail = plant building index; index == n_build: new building
K_ROOF_TARGET = 7   # detail = building * 2 + (roof type - 1)
K_INSTALL = 8       # detail = (building * n_blocks + block) * 2 + on_own_billboard
K_PLACE = 9         # detail = block
K_DRAW = 10         # detail = deck type
K_BID = 11          # only as a kind; the action is BID_FLAG | mask
BID_FLAG = 1 << 62
MAX_CARDS = 62


# ---------------------------------------------------------------- kernel parameter table
# KernelParams.tab: int32[T_SIZE], every per-variant table at a fixed offset
# (one array, so passing KernelParams to a kernel costs one reference count):
#   [T_TYPE + c] card type   [T_VALUE + c] card value   [T_DIST + c] Contract district (-1)
#   [T_GREEN + g] pre-placed Greenspace blocks   [T_DEAL + t] cards dealt of type t
#   [T_START_H + i], [T_START_R + i] starting buildings (floors, roof)
#   [T_STACK_LEN + s] items in auction stack s
#   [T_STACK_ITEMS + s * MAX_STACK_ITEMS + j] its j-th item from the top
MAX_GREEN = 40
MAX_START = 20
MAX_STACK_ITEMS = 16
T_TYPE = 0
T_VALUE = T_TYPE + MAX_CARDS
T_DIST = T_VALUE + MAX_CARDS
T_GREEN = T_DIST + MAX_CARDS
T_DEAL = T_GREEN + MAX_GREEN
T_START_H = T_DEAL + N_TYPES
T_START_R = T_START_H + MAX_START
T_STACK_LEN = T_START_R + MAX_START
T_STACK_ITEMS = T_STACK_LEN + MAX_STACKS
T_SIZE = T_STACK_ITEMS + MAX_STACKS * MAX_STACK_ITEMS


class State(NamedTuple):
    ctrl: np.ndarray     # int64[N_CTRL]                 public
    board: np.ndarray    # int32[n_blocks, N_BOARD]      public
    plants: np.ndarray   # int32[P, 2, max_buildings]    public
    players: np.ndarray  # int32[P, N_PLAYER + 2 * NC]   public
    piles: np.ndarray    # int32[3, N_PILE + NC]         public
    alog: np.ndarray     # int32[n_auctions, N_ALOG]     public
    hands: np.ndarray    # int32[P, NC]                  private per seat
    decks: np.ndarray    # int32[3, NC]                  hidden
    secret: np.ndarray   # uint64[4 + P]                 hidden


class Obs(NamedTuple):
    """What one seat may see: the public arrays and its own hand (views)."""
    ctrl: np.ndarray
    board: np.ndarray
    plants: np.ndarray
    players: np.ndarray
    piles: np.ndarray
    alog: np.ndarray
    hand: np.ndarray     # int32[NC]; hand[:players[seat, P_NHAND]]
    seat: int


def copy_state(s: State) -> State:
    return State(*(a.copy() for a in s))
