"""Skyline 3000 game state: three flat buffers in one state vector.

Rulebook: Skyline 3000; its open points are rule choices in variants/default.toml.

Hidden information is kept physically apart, and the kernels receive whole
buffers (one reference count each), never tuples of arrays:

    pub    int32[PUB_SIZE]   public: ctrl, the variant table, board, players,
                             piles, auction log, plants (everyone sees it)
    hands  int32[P, NC]      private: hands[p, :n] seat p's cards
    sec    uint64[SEC_SIZE]  hidden: chance stream, sealed bids, deck order

Every section sits at a fixed offset computed from the MAX_* sizes below, so
offsets are compile-time constants; the variant's own sizes (players, blocks,
cards) are read from the table section at run time (pub[TAB + K_*]).
The Python `State` offers the old 2-D views (ctrl, board, plants, players,
piles, alog, decks, secret) over these buffers, for tests and rendering.

The core's engine adapter (engines.core.adapter) holds a game as one int64
state vector `d` (and a chance stream it does not read here: the chance
stream is sec's). The buffers live in `d` side by side (D_* below) and each
adapter kernel takes them as views (pub_nb, sec_nb, hands_nb): the rules
still see int32 pub / hands and uint64 sec, and compile as before.

All codes below are module-level ints so kernels can use them as constants.
"""
from __future__ import annotations

import numpy as np

from engines.core.kernel import ir_inline_kernel
from engines.core.layout import Field, Layout, Param, ParamLayout
from engines.core.lowlevel import matrix_view, section_view
from engines.core.variant import Rule
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

# Each row / section below is declared once as a Layout (engines.core.layout):
# name, size, meaning. Its offsets are exported as module-level ints (C_*,
# B_*, P_*, PI_*, A_*, S_*, section starts), which numba freezes into the
# kernels as constants; State's views come from the same declarations.
MAX_P = 4
MAX_STACKS = 4
MAX_SMALL = 12
MAX_CARDS = 62
MAX_ROUNDS = 16  # game.rounds' schema maximum

# ---------------------------------------------------------------- ctrl: pub[CTRL + C_*]
CTRL_ROW = Layout("ctrl", [
    Field("phase", 1, "PH_*"),
    Field("round", 1, "0-based round"),
    Field("key", 1, "Key Player seat"),
    Field("cur", 1, "seat to decide (-1 when over)"),
    Field("passed", 1, "bit mask of seats that passed this construction phase"),
    Field("turn", 1, "construction turns this round (passes included)"),
    Field("turns_total", 1, "construction turns, all rounds"),
    Field("sub", 1, "PH_FLOOR: floors still to place"),
    Field("pcard", 1, "PH_INSTALL: the Contract card just played"),
    Field("stack", 1, "improvement phase: stack being auctioned"),
    Field("bidder", 1, "improvement phase: offset from the Key of the seat bidding"),
    Field("winner", 1, "PH_PLACE: auction winner"),
    Field("item", 1, "item on auction / to place"),
    Field("drawer", 1, "PH_DRAW: offset from the Key of the seat drawing"),
    Field("draw_left", 1, "PH_DRAW: cards the drawer still draws"),
    Field("drawn", 1, "PH_DRAW: cards the drawer drew so far"),
    Field("stock", 1, "floors left in the shared stock"),
    Field("decisions", 1, "decisions taken"),
    Field("stalled", 1, "1 if the turn cap ended the game"),
    Field("first_key", 1, "Key Player in round 1"),
    Field("n_auc", 1, "rows written to alog"),
    Field("stack_pos", MAX_STACKS, "[C_STACK_POS + s]: items already taken from auction stack s"),
])
# --- CTRL_ROW's constants, prefix C_ (python -m engines.core.layout FILE writes them: edit CTRL_ROW) ---
C_PHASE = 0        # PH_*
C_ROUND = 1        # 0-based round
C_KEY = 2          # Key Player seat
C_CUR = 3          # seat to decide (-1 when over)
C_PASSED = 4       # bit mask of seats that passed this construction phase
C_TURN = 5         # construction turns this round (passes included)
C_TURNS_TOTAL = 6  # construction turns, all rounds
C_SUB = 7          # PH_FLOOR: floors still to place
C_PCARD = 8        # PH_INSTALL: the Contract card just played
C_STACK = 9        # improvement phase: stack being auctioned
C_BIDDER = 10      # improvement phase: offset from the Key of the seat bidding
C_WINNER = 11      # PH_PLACE: auction winner
C_ITEM = 12        # item on auction / to place
C_DRAWER = 13      # PH_DRAW: offset from the Key of the seat drawing
C_DRAW_LEFT = 14   # PH_DRAW: cards the drawer still draws
C_DRAWN = 15       # PH_DRAW: cards the drawer drew so far
C_STOCK = 16       # floors left in the shared stock
C_DECISIONS = 17   # decisions taken
C_STALLED = 18     # 1 if the turn cap ended the game
C_FIRST_KEY = 19   # Key Player in round 1
C_N_AUC = 20       # rows written to alog
C_STACK_POS = 21   # [C_STACK_POS + s]: items already taken from auction stack s
C_SIZE = 25        # the layout's size (ctrl)
C_END = 25         # the first index after it
CTRL_ROW.check(globals(), "C_")
N_CTRL = CTRL_ROW.size

# ---------------------------------------------------------------- board: pub[BOARD + k * N_BOARD + B_*]
# one row per block k (district k // blocks_per_district)
BOARD_ROW = Layout("board row", [
    Field("vac", 1, "vacant small platforms"),
    Field("green", 1, "greenspaces"),
    Field("bbtot", 1, "billboards (all players)"),
    Field("top", 1, "tallest building height"),
    Field("roof", 1, "roof type of the block (0 = none yet)"),
    Field("lvac", 1, "vacant large platforms"),
    Field("nspace", 1, "spaceports"),
    Field("nmall", 1, "megamalls"),
    Field("nbld", 1, "buildings installed"),
    Field("floors", MAX_P, "[B_FLOORS + p]: floors of seat p"),
    Field("tall", MAX_P, "[B_TALL + p]: tallest building of seat p"),
    Field("bb", MAX_P, "[B_BB + p]: billboards of seat p"),
    Field("bldh", MAX_SMALL, "[B_BLDH + j]: height of the j-th building installed (in order)"),
    Field("bldo", MAX_SMALL, "[B_BLDO + j]: its owner"),
])
# --- BOARD_ROW's constants, prefix B_ (python -m engines.core.layout FILE writes them: edit BOARD_ROW) ---
B_VAC = 0     # vacant small platforms
B_GREEN = 1   # greenspaces
B_BBTOT = 2   # billboards (all players)
B_TOP = 3     # tallest building height
B_ROOF = 4    # roof type of the block (0 = none yet)
B_LVAC = 5    # vacant large platforms
B_NSPACE = 6  # spaceports
B_NMALL = 7   # megamalls
B_NBLD = 8    # buildings installed
B_FLOORS = 9  # [B_FLOORS + p]: floors of seat p
B_TALL = 13   # [B_TALL + p]: tallest building of seat p
B_BB = 17     # [B_BB + p]: billboards of seat p
B_BLDH = 21   # [B_BLDH + j]: height of the j-th building installed (in order)
B_BLDO = 33   # [B_BLDO + j]: its owner
B_SIZE = 45   # the layout's size (board row)
B_END = 45    # the first index after it
BOARD_ROW.check(globals(), "B_")
N_BOARD = BOARD_ROW.size

# ---------------------------------------------------------------- plants: pub[PLH / PLR + p * N_PLROW + i]
# plants[p, 0, i] height of building i in seat p's Plant, plants[p, 1, i] its
# roof (0 = incomplete). players[p, P_NBUILD] buildings are in use; an
# installed building leaves by swapping the last one into its place.
PL_H, PL_R = 0, 1

# ---------------------------------------------------------------- players: pub[PLAYERS + p * N_PROW + P_*]
PLAYER_ROW = Layout("player row", [
    Field("score", 1),
    Field("nhand", 1, "hand size (public)"),
    Field("billboards", 1, "billboards left in supply"),
    Field("roof_supply", 2, "roofs left: [P_ROOFS + roof type] (1 curved, 2 pointed)"),
    Field("nbuild", 1, "buildings in the Plant"),
    Field("bonus", 1, "extra cards for the next Draw Phase (Spaceports)"),
    # scoring events, summed by kind: score == start + sum of these four
    Field("ev_first", 1),
    Field("ev_second", 1),
    Field("ev_billboard", 1, "negative: billboards placed"),
    Field("ev_buildover", 1, "negative: building installed on own billboard"),
    # statistics for the result tables
    Field("st_built", 1),
    Field("st_placed", 1),
    Field("st_floors", 1),
    Field("st_bb", 1),
    Field("st_bb_over", 1),
    Field("st_won", 1),
    Field("st_spent", 1),
    Field("st_extra", 1),
    Field("st_pass_r1", 1, "own construction turn (0-based) of the pass in round 1"),
    Field("turns_round", 1, "own construction turns this round"),
    Field("round_score", MAX_ROUNDS, "[P_ROUND_SCORE + r]: score after round r's Scoring Phase (the rounds table)"),
    Field("played", MAX_CARDS, "[P_PLAYED + c]: times card c was played in construction by this seat"),
    Field("paid", MAX_CARDS, "[P_PAID + c]: times card c was paid in a won auction"),
])
# --- PLAYER_ROW's constants, prefix P_ (python -m engines.core.layout FILE writes them: edit PLAYER_ROW) ---
P_SCORE = 0
P_NHAND = 1          # hand size (public)
P_BILLBOARDS = 2     # billboards left in supply
P_ROOF_SUPPLY = 3    # roofs left: [P_ROOFS + roof type] (1 curved, 2 pointed)
P_NBUILD = 5         # buildings in the Plant
P_BONUS = 6          # extra cards for the next Draw Phase (Spaceports)
P_EV_FIRST = 7
P_EV_SECOND = 8
P_EV_BILLBOARD = 9   # negative: billboards placed
P_EV_BUILDOVER = 10  # negative: building installed on own billboard
P_ST_BUILT = 11
P_ST_PLACED = 12
P_ST_FLOORS = 13
P_ST_BB = 14
P_ST_BB_OVER = 15
P_ST_WON = 16
P_ST_SPENT = 17
P_ST_EXTRA = 18
P_ST_PASS_R1 = 19    # own construction turn (0-based) of the pass in round 1
P_TURNS_ROUND = 20   # own construction turns this round
P_ROUND_SCORE = 21   # [P_ROUND_SCORE + r]: score after round r's Scoring Phase (the rounds table)
P_PLAYED = 37        # [P_PLAYED + c]: times card c was played in construction by this seat
P_PAID = 99          # [P_PAID + c]: times card c was paid in a won auction
P_SIZE = 161         # the layout's size (player row)
P_END = 161          # the first index after it
PLAYER_ROW.check(globals(), "P_")
P_ROOFS = PLAYER_ROW["roof_supply"] - 1  # roof type r (1 curved, 2 pointed) at P_ROOFS + r
N_PROW = PLAYER_ROW.size

# ---------------------------------------------------------------- piles: pub[PILES + t * N_PIROW + PI_*]
PILE_ROW = Layout("pile row", [
    Field("deck", 1, "cards in deck t"),
    Field("disc", 1, "cards in its discard pile"),
    Field("top", 1, "the visible top card id (-1: deck empty)"),
    Field("discards", MAX_CARDS, "[PI_DISCARDS + j]: the discards"),
])
# --- PILE_ROW's constants, prefix PI_ (python -m engines.core.layout FILE writes them: edit PILE_ROW) ---
PI_DECK = 0      # cards in deck t
PI_DISC = 1      # cards in its discard pile
PI_TOP = 2       # the visible top card id (-1: deck empty)
PI_DISCARDS = 3  # [PI_DISCARDS + j]: the discards
PI_SIZE = 65     # the layout's size (pile row)
PI_END = 65      # the first index after it
PILE_ROW.check(globals(), "PI_")
N_PIROW = PILE_ROW.size

# ---------------------------------------------------------------- alog: pub[ALOG + row * N_ALOG + A_*]
# one row per auction held (ctrl[C_N_AUC] rows used)
ALOG_ROW = Layout("auction log row", [
    Field("round", 1), Field("stack", 1), Field("item", 1),
    Field("bid", MAX_P, "[A_BID + seat], -1 for a seat not in the game"),
    Field("high", MAX_P, "[A_HIGH + seat]"),
    Field("winner", 1), Field("price", 1), Field("tie", 1), Field("block", 1),
])
# --- ALOG_ROW's constants, prefix A_ (python -m engines.core.layout FILE writes them: edit ALOG_ROW) ---
A_ROUND = 0
A_STACK = 1
A_ITEM = 2
A_BID = 3      # [A_BID + seat], -1 for a seat not in the game
A_HIGH = 7     # [A_HIGH + seat]
A_WINNER = 11
A_PRICE = 12
A_TIE = 13
A_BLOCK = 14
A_SIZE = 15    # the layout's size (auction log row)
A_END = 15     # the first index after it
ALOG_ROW.check(globals(), "A_")
N_ALOG = ALOG_ROW.size

# ---------------------------------------------------------------- actions (int64)
# action = kind << 16 | detail, or BID_FLAG | card-id mask for a bid
A_SHIFT = 16
DETAIL_MASK = (1 << A_SHIFT) - 1
ACT_PASS = 0          # detail 0
ACT_FLOOR = 1         # play Floor card (detail = card id), then place floors
ACT_ROOF = 2          # play Roof card, then roof a building
ACT_CONTRACT = 3      # play Contract card, then install a building
ACT_BILLBOARD = 4     # detail = block | (card id + 1) << BB_CARD_SHIFT (card field 0: no card)
ACT_NOACT = 5         # play card, no action (not a pass)
ACT_FLOOR_TARGET = 6  # detail = plant building index; index == n_build: new building
ACT_ROOF_TARGET = 7   # detail = building * 2 + (roof type - 1)
ACT_INSTALL = 8       # detail = (building * n_blocks + block) * 2 + on_own_billboard
ACT_PLACE = 9         # detail = block
ACT_DRAW = 10         # detail = deck type
ACT_BID = 11          # only as a kind; the action is BID_FLAG | mask
BID_FLAG = 1 << 62
# A billboard's detail carries the card it costs (construction.billboard_costs_card) above the
# block: field 0 = no card, so with the key off a billboard's action is the block alone, as it
# always was. 6 bits hold any block (MAX_BLOCKS = 36).
BB_CARD_SHIFT = 6
BB_BLOCK_MASK = (1 << BB_CARD_SHIFT) - 1


# ---------------------------------------------------------------- variant table: pub[TAB + K_*]
# The rule vector, declared once (engines.core.layout.ParamLayout): each entry
# names its kernel slot (exported below as T_<NAME>, and read in Python as
# KernelParams.<name>), its variant key with its schema rule, and its meaning.
# Entries with a key and kernel=False are schema only (params.py turns them
# into derived slots); entries without a key are derived slots.
# Tables: [K_TYPE + c] card type, [K_VALUE + c] card value, [K_DIST + c]
# Contract district (-1), [K_GREEN + g] pre-placed Greenspace blocks,
# [K_START_H + i], [K_START_R + i] starting buildings, [K_STACK_LEN + s]
# items in auction stack s, [K_STACK_ITEMS + s * MAX_STACK_ITEMS + j] its
# j-th item from the top.
MAX_GREEN = 40
MAX_START = 20
MAX_STACK_ITEMS = 16
AUCTION_TIES = ("highest_card_then_key", "key")
BLOCK_TIES = ("tallest_then_share", "share")
FINAL_TIES = ("hand_value_then_shared", "shared")
# Where a pre-placed Greenspace sits: "extra" = on a marked platform of its own,
# added to the block's small platforms (so the block keeps all of them open);
# "shared" = on one of the block's small platforms (one fewer stays open).
GREEN_PLATFORMS = ("extra", "shared")
# An auction won for an item with no legal place: "lost_paid" = the item is lost, the winner
# still discards his bid; "lost_refunded" = the item is lost, the winner takes his bid back.
UNPLACEABLE = ("lost_paid", "lost_refunded")
# Several Megamalls in one block (only with board.large_platforms > 1): "once" = the block's
# points are multiplied once; "each" = once per Megamall.
MALL_STACKING = ("once", "each")
# Several Spaceports in one block: "each" = the extra cards per Spaceport; "once" = per block.
PORT_STACKING = ("each", "once")
# A Floor card when the stock holds fewer floors than a card places: "place_what_is_left" = the
# card places the floors left; "needs_full_card" = it may not be played to act.
SHORT_STOCK = ("place_what_is_left", "needs_full_card")

PARAMS = ParamLayout([
    Param(key="players", rule=Rule("int", 1, MAX_P, doc="players when none is asked for"), kernel=False),
    Param(key="min_players", rule=Rule("int", 1, MAX_P), kernel=False),
    Param(key="max_players", rule=Rule("int", 1, MAX_P, doc="at most 4: four colours of pieces"), kernel=False),
    Param("n_players", meaning="players at the table"),
    Param("n_districts", key="board.districts", rule=Rule("int", 1, 6)),
    Param("bpd", key="board.blocks_per_district", rule=Rule("int", 2, 6)),  # blocks per district
    Param("n_blocks", meaning="districts x blocks per district"),
    Param("small_platforms", key="board.small_platforms",
          rule=Rule("int", 0, MAX_SMALL, doc="small platforms per block, not counting the extra marked platforms")),
    Param("large_platforms", key="board.large_platforms", rule=Rule("int", 0, 3)),
    Param(key="board.greenspace_blocks", rule=Rule("int_list", 0, 35, max_length=MAX_GREEN), kernel=False),
    Param("green_platform", key="board.greenspace_platform", rule=Rule("str", choices=GREEN_PLATFORMS)),
    Param("n_green", meaning="pre-placed Greenspaces (blocks at K_GREEN)"),
    Param(key="auction.stacks", rule=Rule("int_table", 0, 2, max_length=MAX_STACK_ITEMS), kernel=False),
    Param("n_stacks", meaning="auction stacks (K_STACK_LEN, K_STACK_ITEMS)"),
    Param("n_auctions", meaning="rows reserved for the auction log"),
    Param("auction_tie", key="auction.tie", rule=Rule("str", choices=AUCTION_TIES)),
    Param(key="cards.floor_values", rule=Rule("int_list", 1, 15, min_length=1, max_length=MAX_CARDS), kernel=False),
    Param(key="cards.roof_values", rule=Rule("int_list", 1, 15, min_length=1, max_length=MAX_CARDS), kernel=False),
    Param(key="cards.contract_values", rule=Rule("int_list", 1, 15, min_length=1, max_length=MAX_CARDS),
          kernel=False),
    Param("n_cards", meaning="card ids 0..n_cards-1 (K_TYPE, K_VALUE, K_DIST)"),
    Param("deal_roof", key="cards.deal_roof", rule=Rule("int", 0, 20)),
    Param("deal_floor", key="cards.deal_floor", rule=Rule("int", 0, 20)),
    Param("deal_contract", key="cards.deal_contract", rule=Rule("int", 0, 20)),
    Param("draw_per_round", key="cards.draw_per_round", rule=Rule("int", 0, 30)),
    Param("curved_roofs", key="supply.curved_roofs", rule=Rule("int", 0, 30)),
    Param("pointed_roofs", key="supply.pointed_roofs", rule=Rule("int", 0, 30)),
    Param("billboards", key="supply.billboards", rule=Rule("int", 0, 30)),
    Param("floor_stock", key="supply.floor_stock", rule=Rule("int", 1, 400)),
    Param(key="supply.starting_buildings", rule=Rule("int_table", 0, 20, length=2), kernel=False),
    Param("n_start", meaning="starting buildings (K_START_H, K_START_R)"),
    Param("start_score", key="supply.starting_score", rule=Rule("int", -100, 100)),
    Param("rounds", key="game.rounds", rule=Rule("int", 1, MAX_ROUNDS)),
    Param("turn_cap", key="game.construction_turn_cap", rule=Rule("int", 1, 100_000)),
    Param("floors_per_card", key="construction.floors_per_card", rule=Rule("int", 1, 10)),
    Param("first_floors", key="construction.first_building_floors", rule=Rule("int", 1, 10)),
    Param("first_base", key="scoring.first_base", rule=Rule("int", 0, 50)),
    Param("first_per_green", key="scoring.first_per_greenspace", rule=Rule("int", 0, 50)),
    Param("first_per_bb", key="scoring.first_per_billboard", rule=Rule("int", 0, 50)),
    Param("second_base", key="scoring.second_base", rule=Rule("int", 0, 50)),
    Param("second_per_green", key="scoring.second_per_greenspace", rule=Rule("int", 0, 50)),
    Param("second_per_bb", key="scoring.second_per_billboard", rule=Rule("int", 0, 50)),
    Param("megamall_mult", key="scoring.megamall_multiplier", rule=Rule("int", 1, 10)),
    Param("spaceport_first", key="scoring.spaceport_first_cards", rule=Rule("int", 0, 10)),
    Param("spaceport_second", key="scoring.spaceport_second_cards", rule=Rule("int", 0, 10)),
    Param("billboard_cost", key="scoring.billboard_cost", rule=Rule("int", 0, 10)),
    Param("buildover_cost", key="scoring.buildover_cost", rule=Rule("int", 0, 10)),
    Param("block_tie", key="scoring.block_tie", rule=Rule("str", choices=BLOCK_TIES)),
    Param("final_tie", key="scoring.final_tie", rule=Rule("str", choices=FINAL_TIES)),
    Param("max_buildings", meaning="plant capacity (every building has a floor)"),
    Param("max_actions", meaning="size of a legal-action buffer"),
    Param("type", size=MAX_CARDS, meaning="card type of each card id"),
    Param("value", size=MAX_CARDS, meaning="card value of each card id"),
    Param("dist", size=MAX_CARDS, meaning="district of each Contract card, -1 for the others"),
    Param("green", size=MAX_GREEN, meaning="blocks of the pre-placed Greenspaces"),
    Param("start_h", size=MAX_START, meaning="floors of each starting building"),
    Param("start_r", size=MAX_START, meaning="roof of each starting building"),
    Param("stack_len", size=MAX_STACKS, meaning="items in each auction stack"),
    Param("stack_items", size=MAX_STACKS * MAX_STACK_ITEMS, meaning="items of each stack, top first"),
    # rule choices the rulebook leaves open, made keys by issue 23 (at the end: the slots above keep
    # their offsets)
    Param("unplaceable", key="auction.unplaceable_item", rule=Rule("str", choices=UNPLACEABLE)),
    Param("mall_stacking", key="scoring.megamall_stacking", rule=Rule("str", choices=MALL_STACKING)),
    Param("port_stacking", key="scoring.spaceport_stacking", rule=Rule("str", choices=PORT_STACKING)),
    Param("short_stock", key="construction.short_floor_stock", rule=Rule("str", choices=SHORT_STOCK)),
    Param("hand_limit", key="cards.hand_limit",
          rule=Rule("int", 0, MAX_CARDS, doc="cards a hand holds at most (0: no limit); draws stop there")),
    Param("bb_card", key="construction.billboard_costs_card",
          rule=Rule("bool", doc="placing a billboard also discards one hand card of the player's choice")),
], name="skyline_3000 rule table")
# --- PARAMS's constants, prefix K_ (python -m engines.core.layout FILE writes them: edit PARAMS) ---
K_N_PLAYERS = 0          # players at the table
K_N_DISTRICTS = 1
K_BPD = 2
K_N_BLOCKS = 3           # districts x blocks per district
K_SMALL_PLATFORMS = 4    # small platforms per block, not counting the extra marked platforms
K_LARGE_PLATFORMS = 5
K_GREEN_PLATFORM = 6
K_N_GREEN = 7            # pre-placed Greenspaces (blocks at K_GREEN)
K_N_STACKS = 8           # auction stacks (K_STACK_LEN, K_STACK_ITEMS)
K_N_AUCTIONS = 9         # rows reserved for the auction log
K_AUCTION_TIE = 10
K_N_CARDS = 11           # card ids 0..n_cards-1 (K_TYPE, K_VALUE, K_DIST)
K_DEAL_ROOF = 12
K_DEAL_FLOOR = 13
K_DEAL_CONTRACT = 14
K_DRAW_PER_ROUND = 15
K_CURVED_ROOFS = 16
K_POINTED_ROOFS = 17
K_BILLBOARDS = 18
K_FLOOR_STOCK = 19
K_N_START = 20           # starting buildings (K_START_H, K_START_R)
K_START_SCORE = 21
K_ROUNDS = 22
K_TURN_CAP = 23
K_FLOORS_PER_CARD = 24
K_FIRST_FLOORS = 25
K_FIRST_BASE = 26
K_FIRST_PER_GREEN = 27
K_FIRST_PER_BB = 28
K_SECOND_BASE = 29
K_SECOND_PER_GREEN = 30
K_SECOND_PER_BB = 31
K_MEGAMALL_MULT = 32
K_SPACEPORT_FIRST = 33
K_SPACEPORT_SECOND = 34
K_BILLBOARD_COST = 35
K_BUILDOVER_COST = 36
K_BLOCK_TIE = 37
K_FINAL_TIE = 38
K_MAX_BUILDINGS = 39     # plant capacity (every building has a floor)
K_MAX_ACTIONS = 40       # size of a legal-action buffer
K_TYPE = 41              # card type of each card id
K_VALUE = 103            # card value of each card id
K_DIST = 165             # district of each Contract card, -1 for the others
K_GREEN = 227            # blocks of the pre-placed Greenspaces
K_START_H = 267          # floors of each starting building
K_START_R = 287          # roof of each starting building
K_STACK_LEN = 307        # items in each auction stack
K_STACK_ITEMS = 311      # items of each stack, top first
K_UNPLACEABLE = 375
K_MALL_STACKING = 376
K_PORT_STACKING = 377
K_SHORT_STOCK = 378
K_HAND_LIMIT = 379       # cards a hand holds at most (0: no limit); draws stop there
K_BB_CARD = 380          # placing a billboard also discards one hand card of the player's choice
K_SIZE = 381             # the layout's size (skyline_3000 rule table)
K_END = 381              # the first index after it
PARAMS.check(globals(), "K_")
K_SIZE = PARAMS.size
K_DEAL = (PARAMS["deal_floor"], PARAMS["deal_roof"], PARAMS["deal_contract"])  # K_DEAL[card type]

# ---------------------------------------------------------------- pub sections
MAX_DISTRICTS = 6             # PARAMS: board.districts
MAX_BLOCKS = 36               # 6 districts x 6 blocks
assert MAX_BLOCKS <= BB_BLOCK_MASK + 1 and (MAX_CARDS + 1) << BB_CARD_SHIFT <= DETAIL_MASK  # a billboard's detail
MAX_AUC = 16 * MAX_STACKS     # rounds x stacks
MAX_BUILD = 400 + MAX_START + 1   # plant capacity: floor stock + starting buildings + 1
# every variant's legal list fits (params.kernel_params: max_actions <= this, 6 blocks a district;
# billboards that cost a card: one per block and hand card)
MAX_ACTIONS = max(2 * MAX_CARDS + MAX_BLOCKS * MAX_CARDS + 2, 2 * MAX_BUILD + 2, MAX_BUILD * 6 * 2 + 2)
N_PLROW = 2 * MAX_BUILD
# reset_state_nb relies on the order: everything before PLANTS is zeroed,
# ALOG..PLANTS set to -1
PUB_LAYOUT = Layout("pub", [
    Field("ctrl", N_CTRL, "control scalars (C_*)"),
    Field("tab", K_SIZE, "the variant's rule table (K_*), copied at reset"),
    Field("board", MAX_BLOCKS * N_BOARD, "pub[BOARD + k * N_BOARD + B_*]"),
    Field("players", MAX_P * N_PROW, "pub[PLAYERS + p * N_PROW + P_*]"),
    Field("piles", N_TYPES * N_PIROW, "pub[PILES + t * N_PIROW + PI_*]"),
    Field("alog", MAX_AUC * N_ALOG, "pub[ALOG + row * N_ALOG + A_*]"),
    Field("plants", MAX_P * N_PLROW, "pub[PLANTS + p * N_PLROW + PL_* * MAX_BUILD + i]"),
])
CTRL, TAB, BOARD, PLAYERS, PILES, ALOG, PLANTS = PUB_LAYOUT.offset(
    "ctrl", "tab", "board", "players", "piles", "alog", "plants")
PUB_SIZE = PUB_LAYOUT.size
PLH = PLANTS                      # pub[PLH + p * N_PLROW + i]: height of building i
PLR = PLANTS + MAX_BUILD          # pub[PLR + p * N_PLROW + i]: its roof

# ---------------------------------------------------------------- sec: uint64[SEC_SIZE]
SEC_LAYOUT = Layout("sec", [
    Field("chance", 4, "chance stream (xoshiro256**): every shuffle, deal and the Key draw"),
    Field("bids", MAX_P, "[S_BIDS + p]: seat p's sealed bid"),
    Field("decks", N_TYPES * MAX_CARDS, "[S_DECKS + t * MAX_CARDS + j]: deck t's draw order, top last"),
])
# --- SEC_LAYOUT's constants, prefix S_ (python -m engines.core.layout FILE writes them: edit SEC_LAYOUT) ---
S_CHANCE = 0  # chance stream (xoshiro256**): every shuffle, deal and the Key draw
S_BIDS = 4    # [S_BIDS + p]: seat p's sealed bid
S_DECKS = 8   # [S_DECKS + t * MAX_CARDS + j]: deck t's draw order, top last
S_SIZE = 194  # the layout's size (sec)
S_END = 194   # the first index after it
SEC_LAYOUT.check(globals(), "S_")
SEC_SIZE = SEC_LAYOUT.size

# ---------------------------------------------------------------- the state vector d: int64[state_size(P)]
# d[D_NPLAYERS] the player count (the search reads it as an int64 word); pub, sec, the bid
# candidates' two small buffers (search.py: an action buffer and a stream greedy's and
# heuristic's bids are asked with, which they never draw from), the item memo and the hands, in
# that order: everything from D_SEC on is copied whole by the search (search.copy_state_nb).
# The item memo (search.item_value_memo_nb), float64 words: [0] the auction it holds values for
# (0: none), then per seat q the heuristic's value of that auction's item, (block, value) at
# [1 + 2q], [2 + 2q] (block -2: not worked out yet). Only the expert's and the search's own
# copies of a state write it (rules and policies never read it; reset_nb empties it).
D_NPLAYERS = 0
D_PUB = 1
D_SEC = D_PUB + (PUB_SIZE + 1) // 2
D_BID_BUF = D_SEC + SEC_SIZE
N_BID_BUF = 8
D_BID_RNG = D_BID_BUF + N_BID_BUF
D_ITEM_MEMO = D_BID_RNG + 4
N_ITEM_MEMO = 1 + 2 * MAX_P
D_HANDS = D_ITEM_MEMO + N_ITEM_MEMO


def state_size(n_players: int) -> int:
    """Length of the state vector for n_players seats (hands of up to MAX_CARDS int32 each)."""
    return D_HANDS + (n_players * MAX_CARDS + 1) // 2


# pub_nb(d): the public buffer, int32[>= PUB_SIZE], a view of d; sec_nb(d): the hidden buffer,
# uint64[SEC_SIZE] (one call each: the game loop takes these views at every step)
pub_nb = section_view(D_PUB, D_SEC, np.int32)
sec_nb = section_view(D_SEC, D_BID_BUF, np.uint64)
_hands_section_nb = section_view(D_HANDS, None, np.int32)


@ir_inline_kernel
def hands_nb(d, n_players, n_cards):
    """The hands, int32[n_players, n_cards], a view of d (the sizes: the variant's)."""
    return matrix_view(_hands_section_nb(d), n_players, n_cards)


class State:
    """One game's state vector (`data`, and the adapter's chance stream `rng`, unused) with its
    buffers and 2-D views of their sections (all share memory with `data`: writing a view writes
    the state)."""

    __slots__ = ("data", "rng", "pub", "hands", "sec", "dims", "ctrl", "board", "plants", "players", "piles",
                 "alog", "decks", "secret")

    def __init__(self, data: np.ndarray, rng: np.ndarray, dims: tuple[int, int, int, int]):
        P, NB, NC, MAXB = dims
        pub = data[D_PUB:D_SEC].view(np.int32)
        hands = data[D_HANDS:].view(np.int32)[:P * NC].reshape(P, NC)
        sec = data[D_SEC:D_BID_BUF].view(np.uint64)
        self.data, self.rng = data, rng
        self.pub, self.hands, self.sec, self.dims = pub, hands, sec, dims
        v = PUB_LAYOUT.views(pub)
        self.ctrl = v["ctrl"]
        self.board = v["board"][:NB * N_BOARD].reshape(NB, N_BOARD)
        self.players = v["players"][:P * N_PROW].reshape(P, N_PROW)
        self.piles = v["piles"].reshape(N_TYPES, N_PIROW)
        self.alog = v["alog"].reshape(MAX_AUC, N_ALOG)
        self.plants = v["plants"][:P * N_PLROW].reshape(P, 2, MAX_BUILD)[:, :, :MAXB]
        self.decks = SEC_LAYOUT.views(sec)["decks"].reshape(N_TYPES, MAX_CARDS)[:, :NC]
        self.secret = sec[:S_BIDS + P]

    @property
    def phase(self) -> int:
        """The phase as the kernels code it (PH_*)."""
        return int(self.ctrl[C_PHASE])

    @classmethod
    def of(cls, kp, data: np.ndarray, rng: np.ndarray) -> "State":
        """The state over a state vector of game kp (the core step API's state: engine.py)."""
        return cls(data, rng, (kp.n_players, kp.n_blocks, kp.n_cards, kp.max_buildings))

    @classmethod
    def empty(cls, kp) -> "State":
        return cls(np.zeros(state_size(kp.n_players), np.int64), np.zeros(4, np.uint64),
                   (kp.n_players, kp.n_blocks, kp.n_cards, kp.max_buildings))


def copy_state(s: State) -> State:
    return State(s.data.copy(), s.rng.copy(), s.dims)
