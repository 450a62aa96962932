"""Skyline of the World game state: one int64 vector plus the chance stream (engines.core.adapter.State).

Each part of the vector is declared once (engines.core.layout); the offsets the kernels
use are module-level ints derived from those declarations.

    State.data  int64[n_data(P)]
      [0, M_END)          meta: M_* (phase, player to move, start player, turn, per-turn flags, ...)
      [SUP, ...)          the bank's shared supply by stock kind (floors of levels 1..5, then neutral); with a
                          supply per colour (the default) only its neutral entry is used, and
      [CSUP, ...)         the bank's floors of each colour by level (rules.supply_index_nb says which one a
                          player buys from)
      [BH, BH + 49)       height of each building 0..5 (cell = row * width + col)
      [BS, BS + 49 * 5)   the floors: BS + cell * 5 + level (0-based) = piece code (below)
      [TOPV, TOPV + 49)   income value of each building's top floor (0: penthouse, Skyline, neutral, empty)
      [OWN, OWN + 4)      per player: bit mask of the cells whose top floor he owns (floor, penthouse, Skyline)
      [HM, ...)           cell masks derived from the floors (heights, Skyline / neutral tops, presence):
                          kept by build_nb, rebuilt by rules.recompute_tops_nb; the placement rule reads them
      [DECK, ...)         the bonus pile in draw order (card ids), then the mission cards in deal order
      player p block at PBASE + p * PB: P_* (cash, stock by kind, hand, mission, counters)
    State.rng   uint64[4]  the chance stream (xoshiro256**), used only at setup (shuffles, start player)

Hidden: the pile order and the mission deal (everyone), each player's hand and mission (from the
others) and, in the covered variant, each player's cash, stock and money counters (observe_nb).

Piece codes (one per floor on the board; the names below, rules.piece_kind_nb / piece_owner_nb):

    0          EMPTY
    1 + p      FLOOR_CODE + p: a regular floor of player p (its value is its level's value)
    5 + p      PENT_CODE + p: a penthouse of player p (level 5)
    9 + p      SKY_CODE + p: a Skyline floor of player p
    13         NEUTRAL: a neutral floor
    kind = (code - 1) >> 2 (KIND_*), owner = (code - 1) & 3
"""
from __future__ import annotations

import numpy as np

from engines.core.layout import Field, Layout
from engines.skyline_of_the_world.params import LEVELS, MAX_CARDS, MAX_CELLS, MAX_MISSIONS, N_STOCK

META = Layout("meta", [
    Field("phase", 1, "PH_*"),
    Field("player", 1, "seat to move (-1 when over)"),
    Field("start", 1, "start player (random at setup)"),
    Field("turn", 1, "player turns completed"),
    Field("decisions", 1, "decisions taken so far"),
    Field("built", 1, "floors built this turn"),
    Field("sky_built", 1, "Skyline floors built this turn"),
    Field("cashed", 1, "bonus cards cashed this turn"),
    Field("cashed_paths", 1, "bit mask of the path ids cashed this turn"),
    Field("neutral_bought", 1, "neutral floors bought this turn"),
    Field("bought", 1, "floors bought this turn"),
    Field("must_buy", 1, "1: no floor could be built this turn, a floor must be bought if possible"),
    Field("trigger", 1, "seat that built the ending penthouse, -1 before"),
    Field("end_left", 1, "turns still to play after the triggering one"),
    Field("stalled", 1, "1 if the turn cap ended the game"),
    Field("trade_n", 1, "cards set aside for a trade-in this turn (PH_TRADE)"),
    Field("traded", 1, "trade-ins completed this turn"),
    Field("trade_ret", 1, "phase to return to after the trade-in"),
    Field("nplayers", 1, "players at the table"),
    Field("deck_pos", 1, "bonus cards drawn from the pile"),
    Field("discard", 1, "bit mask of the cards handed to the bank in trade-ins (bonus.empty_pile 'reshuffle_traded' "
                        "shuffles them into a new pile)"),
    Field("bank_net", 1, "money paid to the bank minus money paid by it"),
    Field("income", 1, "income the player to move earned at the start of this turn"),
    Field("income_group", 1, "buildings in that income group"),
    Field("built_regular", 1, "regular floors and penthouses built this turn (build.forced 'regular')"),
])
# --- META's constants, prefix M_ (python -m engines.core.layout FILE writes them: edit META) ---
M_PHASE = 0           # PH_*
M_PLAYER = 1          # seat to move (-1 when over)
M_START = 2           # start player (random at setup)
M_TURN = 3            # player turns completed
M_DECISIONS = 4       # decisions taken so far
M_BUILT = 5           # floors built this turn
M_SKY_BUILT = 6       # Skyline floors built this turn
M_CASHED = 7          # bonus cards cashed this turn
M_CASHED_PATHS = 8    # bit mask of the path ids cashed this turn
M_NEUTRAL_BOUGHT = 9  # neutral floors bought this turn
M_BOUGHT = 10         # floors bought this turn
M_MUST_BUY = 11       # 1: no floor could be built this turn, a floor must be bought if possible
M_TRIGGER = 12        # seat that built the ending penthouse, -1 before
M_END_LEFT = 13       # turns still to play after the triggering one
M_STALLED = 14        # 1 if the turn cap ended the game
M_TRADE_N = 15        # cards set aside for a trade-in this turn (PH_TRADE)
M_TRADED = 16         # trade-ins completed this turn
M_TRADE_RET = 17      # phase to return to after the trade-in
M_NPLAYERS = 18       # players at the table
M_DECK_POS = 19       # bonus cards drawn from the pile
M_DISCARD = 20        # bit mask of the cards handed to the bank in trade-ins (bonus.empty_pile 'reshuffle_traded' shuffles them into a new pile)
M_BANK_NET = 21       # money paid to the bank minus money paid by it
M_INCOME = 22         # income the player to move earned at the start of this turn
M_INCOME_GROUP = 23   # buildings in that income group
M_BUILT_REGULAR = 24  # regular floors and penthouses built this turn (build.forced 'regular')
M_SIZE = 25           # the layout's size (meta)
M_END = 25            # the first index after it
META.check(globals(), "M_")

BOARD = Layout("board", [
    Field("sup", N_STOCK, "the bank's shared supply by stock kind (levels 1..5: pool 'shared' only; neutral always)"),
    Field("csup", 4 * LEVELS, "+ p * 5 + l: the bank's floors of level l + 1 in player p's colour (pool 'per_colour')"),
    Field("bh", MAX_CELLS, "building heights"),
    Field("bs", MAX_CELLS * LEVELS, "piece codes, cell * 5 + level"),
    Field("topv", MAX_CELLS, "income value of the top floor"),
    Field("own", 4, "per player: cells whose top floor he owns (bit mask)"),
    Field("hm", LEVELS + 1, "+ h: cells whose building has height h (bit mask)"),
    Field("top_sky", 1, "cells whose top floor is a Skyline floor"),
    Field("top_neutral", 1, "cells whose top floor is a neutral floor"),
    Field("present", 4, "per player: cells whose building holds a regular or Skyline floor of his"),
    Field("skyin", 4, "per player: cells whose building holds his Skyline floor"),
    Field("deck", MAX_CARDS, "bonus pile, draw order"),
    Field("missions", MAX_MISSIONS, "mission cards, deal order"),
], start=META.end)
# --- BOARD's constants, prefix (none) (python -m engines.core.layout FILE writes them: edit BOARD) ---
SUP = 25           # the bank's shared supply by stock kind (levels 1..5: pool 'shared' only; neutral always)
CSUP = 31          # + p * 5 + l: the bank's floors of level l + 1 in player p's colour (pool 'per_colour')
BH = 51            # building heights
BS = 100           # piece codes, cell * 5 + level
TOPV = 345         # income value of the top floor
OWN = 394          # per player: cells whose top floor he owns (bit mask)
HM = 398           # + h: cells whose building has height h (bit mask)
TOP_SKY = 404      # cells whose top floor is a Skyline floor
TOP_NEUTRAL = 405  # cells whose top floor is a neutral floor
PRESENT = 406      # per player: cells whose building holds a regular or Skyline floor of his
SKYIN = 410        # per player: cells whose building holds his Skyline floor
DECK = 414         # bonus pile, draw order
MISSIONS = 462     # mission cards, deal order
BOARD.check(globals(), "")
PBASE = BOARD.end

PLAYER = Layout("player", [
    Field("cash", 1, "cash in millions"),
    Field("stock", N_STOCK, "floors in stock by kind (levels 1..5, then neutral)"),
    Field("sky_stock", 1, "Skyline floors received, not yet built"),
    Field("sky_got", 1, "Skyline floors received in the game"),
    Field("penthouses", 1, "penthouses built"),
    Field("mission", 1, "mission card id"),
    Field("hand", 1, "bonus cards held (bit mask of card ids)"),
    Field("trade_mask", 1, "cards set aside for a trade-in in progress"),
    Field("cashed_n", 1, "bonus cards cashed"),
    Field("cashed_value", 1, "money from bonus cards"),
    Field("traded_n", 1, "trade-ins made"),
    Field("income_sum", 1, "income received (after the cap)"),
    Field("income_max", 1, "largest income in one turn (before the cap)"),
    Field("turns", 1, "turns played"),
    Field("fees_paid", 1, "fees paid to other players"),
    Field("fees_recv", 1, "fees received from other players"),
    Field("fees_bank", 1, "fees paid to the bank"),
    Field("cap_hits", 1, "turns whose income the cap cut"),
    Field("cap_lost", 1, "income lost to the cap"),
    Field("cap_lost_other", 1, "other gains lost to the cap (fees received, sales, bonus cards, trade-ins)"),
    Field("bought", N_STOCK, "floors bought by kind"),
    Field("sold", N_STOCK, "floors sold by kind"),
    Field("built", N_STOCK, "floors built by kind (penthouses at index 4, neutral at 5)"),
    Field("sky_placed", 1, "Skyline floors built"),
    Field("blocks", 1, "neutral floors placed on another player's top floor"),
    Field("spent_buy", 1, "money spent buying floors"),
    Field("got_sell", 1, "money from selling floors"),
])
# --- PLAYER's constants, prefix P_ (python -m engines.core.layout FILE writes them: edit PLAYER) ---
P_CASH = 0             # cash in millions
P_STOCK = 1            # floors in stock by kind (levels 1..5, then neutral)
P_SKY_STOCK = 7        # Skyline floors received, not yet built
P_SKY_GOT = 8          # Skyline floors received in the game
P_PENTHOUSES = 9       # penthouses built
P_MISSION = 10         # mission card id
P_HAND = 11            # bonus cards held (bit mask of card ids)
P_TRADE_MASK = 12      # cards set aside for a trade-in in progress
P_CASHED_N = 13        # bonus cards cashed
P_CASHED_VALUE = 14    # money from bonus cards
P_TRADED_N = 15        # trade-ins made
P_INCOME_SUM = 16      # income received (after the cap)
P_INCOME_MAX = 17      # largest income in one turn (before the cap)
P_TURNS = 18           # turns played
P_FEES_PAID = 19       # fees paid to other players
P_FEES_RECV = 20       # fees received from other players
P_FEES_BANK = 21       # fees paid to the bank
P_CAP_HITS = 22        # turns whose income the cap cut
P_CAP_LOST = 23        # income lost to the cap
P_CAP_LOST_OTHER = 24  # other gains lost to the cap (fees received, sales, bonus cards, trade-ins)
P_BOUGHT = 25          # floors bought by kind
P_SOLD = 31            # floors sold by kind
P_BUILT = 37           # floors built by kind (penthouses at index 4, neutral at 5)
P_SKY_PLACED = 43      # Skyline floors built
P_BLOCKS = 44          # neutral floors placed on another player's top floor
P_SPENT_BUY = 45       # money spent buying floors
P_GOT_SELL = 46        # money from selling floors
P_SIZE = 47            # the layout's size (player)
P_END = 47             # the first index after it
PLAYER.check(globals(), "P_")
PB = PLAYER.size

# ---------------------------------------------------------------- phases
PH_BUILD = 0     # build floors (one per decision), cash a bonus card, trade in cards, or stop building
PH_INVEST = 1    # buy or sell floors, cash a bonus card, trade in cards, or end the turn
PH_TRADE = 2     # choose the remaining cards of a trade-in
PH_OVER = 3
PHASE_NAMES = ("build", "invest", "trade", "over")

# ---------------------------------------------------------------- pieces
# a piece code is FLOOR_CODE + (kind << OWNER_BITS) + owner: one code per kind (KIND_*) and seat
KIND_FLOOR, KIND_PENT, KIND_SKY, KIND_NEUTRAL = 0, 1, 2, 3
OWNER_BITS = 2                                     # a code's owner field: seats 0..3
OWNER_MASK = (1 << OWNER_BITS) - 1
EMPTY = 0                                          # no floor: the ground
FLOOR_CODE = 1 + (KIND_FLOOR << OWNER_BITS)        # + p: a regular floor of player p
PENT_CODE = 1 + (KIND_PENT << OWNER_BITS)          # + p: a penthouse of player p
SKY_CODE = 1 + (KIND_SKY << OWNER_BITS)            # + p: a Skyline floor of player p
NEUTRAL = 1 + (KIND_NEUTRAL << OWNER_BITS)         # the neutral floor (no owner)
assert (FLOOR_CODE, PENT_CODE, SKY_CODE, NEUTRAL) == (1, 5, 9, 13)
NEUTRAL_STOCK = LEVELS     # the neutral floor's stock index

# ---------------------------------------------------------------- actions (int ids)
# BUILD_BASE + what * MAX_CELLS + cell   build on `cell`: what 0 own floor (its level's value), 1 neutral, 2 Skyline
# STOP                                   stop building, go to invest or divest
# CASH_BASE + card                       cash bonus card `card` (its path is complete)
# TRADE_BASE + card                      give card `card` to the bank towards a trade-in
# BUY_BASE + k / SELL_BASE + k           buy / sell a floor of stock kind k (0..4 levels 1..5, 5 neutral)
# END                                    end the turn
BUILD_FLOOR, BUILD_NEUTRAL, BUILD_SKY = 0, 1, 2
BUILD_BASE = 0
STOP = 3 * MAX_CELLS
CASH_BASE = STOP + 1
TRADE_BASE = CASH_BASE + MAX_CARDS
BUY_BASE = TRADE_BASE + MAX_CARDS
SELL_BASE = BUY_BASE + N_STOCK
END = SELL_BASE + N_STOCK
N_ACTIONS = END + 1
# action kinds (the random policy picks a kind, then its details)
AK_FLOOR, AK_NEUTRAL, AK_SKY, AK_STOP, AK_CASH, AK_TRADE, AK_BUY, AK_SELL, AK_END = range(9)
N_KINDS = 9
KIND_NAMES = ("floor", "neutral", "skyline", "stop", "cash", "trade", "buy", "sell", "end")


def n_data(n_players: int) -> int:
    return PBASE + n_players * PB


def fields(data: np.ndarray, p: int | None = None) -> dict[str, np.ndarray]:
    """Every declared field by name as a view: meta and board (p None) or player p's block."""
    if p is None:
        return {**META.views(data), **BOARD.views(data)}
    return PLAYER.views(data, PBASE + p * PB)
