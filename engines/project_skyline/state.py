"""Project Skyline game state: one int64 vector plus the chance stream.

Rulebook: the Project Skyline rulebook (Course of Play). Each part of the vector is declared
once (engines.core.layout); the offsets below are module-level ints the kernels index with.

    State.data  int64[n_data(P)]
      [0, M_END)          meta: M_* (phase, continuation, player, round, pending effect, ...)
      market              MK_BASIC[4] cards left per Basic pile; MK_UMK[4] Upgrade market slots
                          (card type, -1 empty; slot 0 far left); MK_UPG_N / MK_UPG upgrade draw
                          pile (top = last); MK_REMOVED[t] cards of type t removed from the game
      board               B_H[s] height, B_TOP[s] top-floor owner (-1 none), B_BTAKEN[s] bonus
                          taken; A_SCORED / A_FREE (unbuilt buildable spaces) / A_FLOORS /
                          A_SITE (construction-site tile) per area; Q_* a BFS scratch queue
      events              EV[2 i] card type, EV[2 i + 1] EV_* of the last decision (M_EVN)
      player p at pbase(p) = PBASE + p * PB:  P_* counters, hand, draw pile (top = last),
                          discard pile, floors per area
    State.rng   uint64[4]  the chance stream (xoshiro256**)

Hidden from other players: a player's hand (its size is public) and every draw pile's order
(the Upgrade draw pile entirely), see rules.observe_nb.
"""
from __future__ import annotations

import numpy as np

from engines.core.adapter import State
from engines.core.layout import Field, Layout
from engines.project_skyline.params import MAX_AREAS, MAX_SP, MAX_T, MAX_UPG, N_COLOURS

MAX_HAND = 16
MAX_PILE = 48
EV_MAX = 16
MAX_HEIGHT = 7
FLOORS = 30

META = Layout("meta", [
    Field("phase", 1, "PH_*: the decision asked for"),
    Field("cont", 1, "C_*: where the turn continues after the decision"),
    Field("player", 1, "seat to decide (-1 when over)"),
    Field("turn", 1, "turns completed, all players"),
    Field("round", 1, "0-based round (seat 0 starts each round)"),
    Field("e_money", 1, "last round once someone reached the end money (-1 not yet)"),
    Field("e_floor", 1, "last round once someone placed the last floor (-1 not yet)"),
    Field("ending", 1, "END_* once over"),
    Field("decisions", 1, "decisions taken"),
    Field("nplayers", 1, "players"),
    Field("symbol", 1, "symbol chosen this turn (-1 none)"),
    Field("extra", 1, "extra plays of any symbol left (U-13)"),
    Field("drew", 1, "1 once a draw card (U-17) resolved this turn"),
    Field("cur", 1, "card being resolved (-1 none)"),
    Field("eff", 1, "its next effect index"),
    Field("pend_op", 1, "build effect in progress: OP_BUILD / OP_STACK"),
    Field("pend_n", 1, "floors still to place (sell: money)"),
    Field("pend_arg", 1, "target kind TG_*"),
    Field("mon_i", 1, "next monument to score"),
    Field("areas_pend", 1, "bit a: area a completed this turn, not scored yet"),
    Field("site_left", 1, "setup construction-site tiles still to place"),
    Field("evn", 1, "events of the last decision"),
])
# --- META's constants, prefix M_ (python -m engines.core.layout FILE writes them: edit META) ---
M_PHASE = 0        # PH_*: the decision asked for
M_CONT = 1         # C_*: where the turn continues after the decision
M_PLAYER = 2       # seat to decide (-1 when over)
M_TURN = 3         # turns completed, all players
M_ROUND = 4        # 0-based round (seat 0 starts each round)
M_E_MONEY = 5      # last round once someone reached the end money (-1 not yet)
M_E_FLOOR = 6      # last round once someone placed the last floor (-1 not yet)
M_ENDING = 7       # END_* once over
M_DECISIONS = 8    # decisions taken
M_NPLAYERS = 9     # players
M_SYMBOL = 10      # symbol chosen this turn (-1 none)
M_EXTRA = 11       # extra plays of any symbol left (U-13)
M_DREW = 12        # 1 once a draw card (U-17) resolved this turn
M_CUR = 13         # card being resolved (-1 none)
M_EFF = 14         # its next effect index
M_PEND_OP = 15     # build effect in progress: OP_BUILD / OP_STACK
M_PEND_N = 16      # floors still to place (sell: money)
M_PEND_ARG = 17    # target kind TG_*
M_MON_I = 18       # next monument to score
M_AREAS_PEND = 19  # bit a: area a completed this turn, not scored yet
M_SITE_LEFT = 20   # setup construction-site tiles still to place
M_EVN = 21         # events of the last decision
M_SIZE = 22        # the layout's size (meta)
M_END = 22         # the first index after it
META.check(globals(), "M_")

MARKET = Layout("market", [
    Field("basic", N_COLOURS, "cards left per Basic pile"),
    Field("umk", 4, "Upgrade market slots, 0 = far left; -1 empty"),
    Field("upg_n", 1, "upgrade draw pile size"),
    Field("upg", MAX_UPG, "upgrade draw pile, top = last"),
    Field("removed", MAX_T, "removed from the game, per card type"),
], start=META.end)
# --- MARKET's constants, prefix MK_ (python -m engines.core.layout FILE writes them: edit MARKET) ---
MK_BASIC = 22    # cards left per Basic pile
MK_UMK = 26      # Upgrade market slots, 0 = far left; -1 empty
MK_UPG_N = 30    # upgrade draw pile size
MK_UPG = 31      # upgrade draw pile, top = last
MK_REMOVED = 71  # removed from the game, per card type
MK_SIZE = 113    # the layout's size (market)
MK_END = 135     # the first index after it
MARKET.check(globals(), "MK_")

BOARD = Layout("board", [
    Field("h", MAX_SP, "building height"),
    Field("top", MAX_SP, "seat of the top floor, -1 unbuilt"),
    Field("btaken", MAX_SP, "1: one-time bonus taken"),
    Field("a_scored", MAX_AREAS, "1: area scored"),
    Field("a_free", MAX_AREAS, "unbuilt buildable spaces"),
    Field("a_floors", MAX_AREAS, "floors in the area, any colour"),
    Field("a_site", MAX_AREAS, "1: a construction-site tile lies here"),
    Field("queue", MAX_SP, "scratch: BFS queue"),
    Field("counts", 4, "scratch: top floors per seat in one area"),
    Field("lohi", 2, "scratch: a chain's spaces as two 64-bit masks"),
], start=MARKET.end)
# --- BOARD's constants, prefix B_ (python -m engines.core.layout FILE writes them: edit BOARD) ---
B_H = 135         # building height
B_TOP = 231       # seat of the top floor, -1 unbuilt
B_BTAKEN = 327    # 1: one-time bonus taken
B_A_SCORED = 423  # 1: area scored
B_A_FREE = 447    # unbuilt buildable spaces
B_A_FLOORS = 471  # floors in the area, any colour
B_A_SITE = 495    # 1: a construction-site tile lies here
B_QUEUE = 519     # scratch: BFS queue
B_COUNTS = 615    # scratch: top floors per seat in one area
B_LOHI = 619      # scratch: a chain's spaces as two 64-bit masks
B_SIZE = 486      # the layout's size (board)
B_END = 621       # the first index after it
BOARD.check(globals(), "B_")

EVENTS = Layout("events", [Field("ev", 2 * EV_MAX, "card, EV_* pairs of the last decision")], start=BOARD.end)
EV0 = EVENTS["ev"]
PBASE = EVENTS.end

PLAYER = Layout("player", [
    Field("money", 1, "money track"),
    Field("upos", 1, "upgrade marker: 0 lowest .. n_costs top"),
    Field("floors", 1, "floors left in the supply"),
    Field("upgrades", 1, "upgrades made"),
    Field("bought", 1, "cards bought"),
    Field("taken", 1, "cards taken free (U-16, monuments)"),
    Field("sold", 1, "cards sold (U-14)"),
    Field("played", 1, "cards played"),
    Field("src_cards", 1, "money from card effects"),
    Field("src_mon", 1, "money from monuments"),
    Field("src_area", 1, "money from area scorings"),
    Field("src_bonus", 1, "money from bonus spaces"),
    Field("src_sell", 1, "money from selling"),
    Field("spent_buy", 1, "money paid for Basic cards"),
    Field("spent_upg", 1, "money paid for upgrades"),
    Field("built", 1, "floors placed"),
    Field("forfeit", 1, "floors forfeited (7-floor cap, no space)"),
    Field("final_cards", 1, "final scoring: card money values"),
    Field("final_end", 1, "final scoring: the map's end condition"),
    Field("hand_n", 1, "cards in hand"),
    Field("hand", MAX_HAND, "hand card types"),
    Field("draw_n", 1, "draw pile size"),
    Field("draw", MAX_PILE, "draw pile, top = last"),
    Field("disc_n", 1, "discard pile size"),
    Field("disc", MAX_PILE, "discard pile"),
    Field("pa", MAX_AREAS, "own floors per area (built over included)"),
])
# --- PLAYER's constants, prefix P_ (python -m engines.core.layout FILE writes them: edit PLAYER) ---
P_MONEY = 0         # money track
P_UPOS = 1          # upgrade marker: 0 lowest .. n_costs top
P_FLOORS = 2        # floors left in the supply
P_UPGRADES = 3      # upgrades made
P_BOUGHT = 4        # cards bought
P_TAKEN = 5         # cards taken free (U-16, monuments)
P_SOLD = 6          # cards sold (U-14)
P_PLAYED = 7        # cards played
P_SRC_CARDS = 8     # money from card effects
P_SRC_MON = 9       # money from monuments
P_SRC_AREA = 10     # money from area scorings
P_SRC_BONUS = 11    # money from bonus spaces
P_SRC_SELL = 12     # money from selling
P_SPENT_BUY = 13    # money paid for Basic cards
P_SPENT_UPG = 14    # money paid for upgrades
P_BUILT = 15        # floors placed
P_FORFEIT = 16      # floors forfeited (7-floor cap, no space)
P_FINAL_CARDS = 17  # final scoring: card money values
P_FINAL_END = 18    # final scoring: the map's end condition
P_HAND_N = 19       # cards in hand
P_HAND = 20         # hand card types
P_DRAW_N = 36       # draw pile size
P_DRAW = 37         # draw pile, top = last
P_DISC_N = 85       # discard pile size
P_DISC = 86         # discard pile
P_PA = 134          # own floors per area (built over included)
P_SIZE = 158        # the layout's size (player)
P_END = 158         # the first index after it
PLAYER.check(globals(), "P_")
PB = PLAYER.size

# phases (decision kinds)
PH_BUY, PH_SYMBOL, PH_PLAY, PH_TARGET, PH_TAKE, PH_SELL, PH_SITE, PH_DISCARD, PH_OVER = range(9)
PHASE_NAMES = ("buy", "symbol", "play", "target", "take", "sell", "site", "discard", "over")
# continuations
C_BUY, C_SYMBOL, C_PLAY, C_EFFECTS, C_MON, C_AREAS, C_DISCARD, C_END, C_SETUP = range(9)
# endings
END_NONE, END_MONEY, END_FLOOR, END_STALLED = 0, 1, 2, 3
ENDING_NAMES = ("none", "money", "last_floor", "stalled")
# card events
EV_BOUGHT, EV_UPGRADED, EV_PLAYED, EV_TRASHED, EV_TAKEN = range(5)
EVENT_NAMES = ("bought", "upgraded_into", "played", "trashed", "taken")

# actions (int ids)
A_SKIP = 0                 # buy step: neither buy nor upgrade
A_BUY = 1                  # + colour: buy from that Basic pile
A_UPG = 5                  # + h * 4 + slot: upgrade hand card h into Upgrade market slot
A_SYM = 40                 # + colour: the symbol played this turn
A_PLAY = 48                # + h: play hand card h
A_STOP = 64                # stop playing
A_SPACE = 100              # + space: build target
A_TAKE = 230               # + colour: take from that Basic pile
A_SELL_HAND = 240          # + h: sell hand card h
A_SELL_DISC = 256          # + type: sell a discard card of that type
A_SELL_SKIP = 320          # sell nothing
A_SITE = 330               # + area: construction-site tile
A_DISC = 370               # + h: discard hand card h
A_DONE = 386               # draw
N_ACTIONS = 400


def n_data(n_players: int) -> int:
    return PBASE + n_players * PB


def n_players_of(st: State) -> int:
    return (len(st.data) - PBASE) // PB


def fields(st: State, p: int | None = None) -> dict[str, np.ndarray]:
    """Every declared field by name as a view: meta, market, board (p None) or player p's."""
    if p is None:
        return {**META.views(st.data), **MARKET.views(st.data), **BOARD.views(st.data)}
    return PLAYER.views(st.data, PBASE + p * PB)
