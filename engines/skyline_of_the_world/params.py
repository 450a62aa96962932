"""Skyline of the World rule parameters: the variant schema, its consistency checks,
and the conversion of a validated variant into the int64 rule vector the kernels read.

Every rule choice lives in `variants/default.toml`, one comment per key; the other
variant files only override keys. Paths (bonus cards, missions) are written in the
file as flat [row, col, row, col, ...] lists; the kernels see cell indices
row * width + col.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from engines.core.layout import Param, ParamLayout
from engines.core.variant import Rule, Variant, VariantLoader

# hard limits of the array layout (state.py); a variant stays within them
MAX_SIDE = 7                # 49 cells: a set of cells is one int64 bit mask
MAX_CELLS = MAX_SIDE * MAX_SIDE
LEVELS = 5                 # a building has at most five levels; the fifth is the penthouse
MAX_CARDS = 48             # bonus cards (a hand is a 64-bit mask)
MAX_MISSIONS = 8
MAX_PATH = 4               # cells on a bonus or mission path
MAX_PLAYERS = 4            # four colours
N_STOCK = LEVELS + 1       # stock kinds: floors of levels 1..5, then the neutral floor (index LEVELS)

FEE_RULES = ("placed", "below")
CAP_RULES = ("after_income", "always")
POOLS = ("per_colour", "shared")
TIEBREAKS = ("rulebook", "tournament")
LAST_ROUNDS = ("finish_round", "everyone_once")
FORCED_BUYS = ("any_floor", "own_colour")
EMPTY_PILES = ("nothing", "reshuffle_traded")
FEES_OVER_CAP = ("bank", "unpaid")
FORCED_BUILDS = ("any_floor", "regular")
OTHER_SKYLINES = ("building", "directly_on")
DRAW_ORDERS = ("left", "right")
CARD_PHASES = ("build_invest", "build")

def _choice(name: str, key: str, choices: tuple[str, ...], doc: str) -> Param:
    """A rule choice between named readings (the kernels see the reading's index)."""
    return Param(name, key=key, rule=Rule("str", choices=choices, doc=doc))


PARAMS = ParamLayout(
    [
        Param("n_players", meaning="players at the table (derived)"),
        Param("width", key="board.width", rule=Rule("int", 2, MAX_SIDE, doc="columns of the grid")),
        Param("height", key="board.height", rule=Rule("int", 2, MAX_SIDE, doc="rows of the grid")),
        Param(key="board.strategic", rule=Rule("int_table", 0, MAX_SIDE - 1, length=2,
                                               doc="strategic cells [row, col]"), kernel=False),
        Param(key="levels.values", rule=Rule("int_list", 1, 99, doc="value of a regular floor by level 1..5"),
              kernel=False),
        _choice("pool", "supply.pool", POOLS, "one supply per colour, or one shared pool"),
        Param(key="supply.colour", rule=Rule("int_list", 0, 99, doc="floors of one colour by level 1..5 (per_colour)"),
              kernel=False),
        Param(key="supply.floors", rule=Rule("int_list", 0, 99, doc="floors in the shared pool by level 1..5 (shared)"),
              kernel=False),
        Param("supply_neutral", key="supply.neutral", rule=Rule("int", 0, 99, doc="neutral floors in the bank")),
        Param("skyline_max", key="supply.skyline_per_player", rule=Rule("int", 0, 2, doc="Skyline floors a player may gain")),
        Param("start_cash", key="start.cash", rule=Rule("int", 0, 99, doc="starting cash")),
        Param(key="start.stock", rule=Rule("int_list", 0, 9, doc="floors in stock at the start by level"), kernel=False),
        Param("start_cards", key="start.bonus_cards", rule=Rule("int", 0, 8, doc="bonus cards dealt each")),
        Param("cap", key="cash.cap", rule=Rule("int", 1, 999, doc="most cash a player may hold")),
        _choice("cap_rule", "cash.cap_rule", CAP_RULES, "when the cap applies"),
        _choice("fee_over_cap", "cash.fee_over_cap", FEES_OVER_CAP, "a fee its owner cannot hold (cap_rule always)"),
        _choice("forced_buy", "invest.forced_buy", FORCED_BUYS, "which floors the forced buy counts"),
        _choice("empty_pile", "bonus.empty_pile", EMPTY_PILES, "a draw from an empty bonus pile"),
        _choice("fee_rule", "fees.rule", FEE_RULES, "which floor's value is the fee"),
        Param("neutral_value", key="fees.neutral", rule=Rule("int", 0, 99, doc="value of a neutral floor")),
        Param("skyline_value", key="fees.skyline", rule=Rule("int", 0, 99, doc="value of a Skyline floor")),
        Param("neutral_price", key="neutral.price", rule=Rule("int", 0, 99, doc="price of a neutral floor")),
        Param("neutral_per_turn", key="neutral.per_turn", rule=Rule("int", 0, 9, doc="neutral floors bought per turn")),
        Param("sky_open", key="skyline.others_may_build_on", rule=Rule("bool", doc="others may build on a Skyline floor")),
        Param("pent_sky", key="penthouse.skyline_counts", rule=Rule("bool", doc="an own Skyline floor lower in the building allows a penthouse")),
        Param("trades_per_turn", key="bonus.trades_per_turn", rule=Rule("int", 0, 9, doc="trade-ins per turn (0: no limit)")),
        Param("neutral_sellable", key="neutral.sellable", rule=Rule("bool", doc="neutral floors may be sold back")),
        Param("sky_per_turn", key="skyline.per_turn", rule=Rule("int", 1, 2, doc="Skyline floors built per turn")),
        Param("pay3", key="bonus.pay3", rule=Rule("int", 0, 99, doc="pay of a three-cell bonus path")),
        Param("pay4", key="bonus.pay4", rule=Rule("int", 0, 99, doc="pay of a four-cell bonus path")),
        Param("bonus_per_turn", key="bonus.per_turn", rule=Rule("int", 1, 9, doc="bonus cards cashed per turn")),
        Param("trade_in", key="bonus.trade_in", rule=Rule("int", 1, 9, doc="cards traded in together")),
        Param("trade_value", key="bonus.trade_value", rule=Rule("int", 0, 99, doc="money for a trade-in")),
        Param(key="bonus.paths", rule=Rule("int_table", 0, MAX_SIDE - 1, min_length=6, max_length=8,
                                           doc="bonus card paths"), kernel=False),
        Param("mission_points", key="mission.points", rule=Rule("int", 0, 99, doc="points of a held mission")),
        Param(key="mission.paths", rule=Rule("int_table", 0, MAX_SIDE - 1, min_length=8, max_length=8,
                                             doc="mission paths"), kernel=False),
        Param("pt_penthouse", key="scoring.penthouse", rule=Rule("int", 0, 99, doc="points per penthouse")),
        Param("pt_strategic", key="scoring.strategic", rule=Rule("int", 0, 99, doc="points per strategic area held")),
        _choice("tiebreak", "scoring.tiebreak", TIEBREAKS, "tie chain"),
        Param("end_penthouses", key="end.penthouses", rule=Rule("int", 1, 12, doc="penthouses that end the game")),
        _choice("last_round", "end.last_round", LAST_ROUNDS, "who plays after the trigger"),
        Param("turn_cap", key="end.turn_cap", rule=Rule("int", 1, 5000, doc="turns before a stalled end")),
        Param("covered", key="rules.covered", rule=Rule("bool", doc="stock and cash hidden")),
        _choice("forced_build", "build.forced", FORCED_BUILDS, "which floors the forced build counts"),
        _choice("other_sky", "skyline.other_skyline", OTHER_SKYLINES, "where another player's Skyline floor bars one"),
        _choice("draw_order", "bonus.draw_order", DRAW_ORDERS, "order of the penthouse draws"),
        _choice("card_phases", "bonus.phases", CARD_PHASES, "phases in which bonus cards are cashed or traded in"),
        Param("record_income", meaning="1: fill the `income` table (derived)"),
        Param("n_cells", meaning="width * height (derived)"),
        Param("n_cards", meaning="bonus cards in the deck (derived)"),
        Param("n_missions", meaning="mission cards (derived)"),
        Param("level_values", size=LEVELS, meaning="+ l: value of a regular floor on level l + 1"),
        Param("supply", size=LEVELS, meaning="+ l: floors of level l + 1 in the bank at the start (before dealing): "
                                             "per colour (pool per_colour) or for the table (shared)"),
        Param("start_stock", size=LEVELS, meaning="+ l: floors of level l + 1 each player starts with"),
        Param("strategic", size=MAX_CELLS, meaning="+ cell: 1 if strategic"),
        Param("card_cells", size=MAX_CARDS * MAX_PATH, meaning="+ card * 4 + i: cell i of the card's path, -1 past its end"),
        Param("card_len", size=MAX_CARDS, meaning="+ card: cells on its path"),
        Param("card_path", size=MAX_CARDS, meaning="+ card: path id (cards with the same path share it)"),
        Param("mission_cells", size=MAX_MISSIONS * MAX_PATH, meaning="+ m * 4 + i: cell i of mission m"),
        Param("card_mask", size=MAX_CARDS, meaning="+ card: its path as a cell bit mask"),
        Param("mission_mask", size=MAX_MISSIONS, meaning="+ m: mission m's path as a cell bit mask"),
        Param("board_mask", meaning="every cell of the board as a bit mask"),
        Param("not_first_col", meaning="cells not in column 0 (bit mask)"),
        Param("not_last_col", meaning="cells not in the last column (bit mask)"),
        Param("strategic_mask", meaning="the strategic cells as a bit mask"),
        Param("max_fee", meaning="the largest fee any placement can cost (a shortcut for the money check)"),
    ],
    name="skyline of the world rules",
)
SCHEMA: dict[str, Rule] = PARAMS.schema()
# --- PARAMS's constants, prefix K_ (python -m engines.core.layout FILE writes them: edit PARAMS) ---
K_N_PLAYERS = 0          # players at the table (derived)
K_WIDTH = 1              # columns of the grid
K_HEIGHT = 2             # rows of the grid
K_POOL = 3               # one supply per colour, or one shared pool
K_SUPPLY_NEUTRAL = 4     # neutral floors in the bank
K_SKYLINE_MAX = 5        # Skyline floors a player may gain
K_START_CASH = 6         # starting cash
K_START_CARDS = 7        # bonus cards dealt each
K_CAP = 8                # most cash a player may hold
K_CAP_RULE = 9           # when the cap applies
K_FEE_OVER_CAP = 10      # a fee its owner cannot hold (cap_rule always)
K_FORCED_BUY = 11        # which floors the forced buy counts
K_EMPTY_PILE = 12        # a draw from an empty bonus pile
K_FEE_RULE = 13          # which floor's value is the fee
K_NEUTRAL_VALUE = 14     # value of a neutral floor
K_SKYLINE_VALUE = 15     # value of a Skyline floor
K_NEUTRAL_PRICE = 16     # price of a neutral floor
K_NEUTRAL_PER_TURN = 17  # neutral floors bought per turn
K_SKY_OPEN = 18          # others may build on a Skyline floor
K_PENT_SKY = 19          # an own Skyline floor lower in the building allows a penthouse
K_TRADES_PER_TURN = 20   # trade-ins per turn (0: no limit)
K_NEUTRAL_SELLABLE = 21  # neutral floors may be sold back
K_SKY_PER_TURN = 22      # Skyline floors built per turn
K_PAY3 = 23              # pay of a three-cell bonus path
K_PAY4 = 24              # pay of a four-cell bonus path
K_BONUS_PER_TURN = 25    # bonus cards cashed per turn
K_TRADE_IN = 26          # cards traded in together
K_TRADE_VALUE = 27       # money for a trade-in
K_MISSION_POINTS = 28    # points of a held mission
K_PT_PENTHOUSE = 29      # points per penthouse
K_PT_STRATEGIC = 30      # points per strategic area held
K_TIEBREAK = 31          # tie chain
K_END_PENTHOUSES = 32    # penthouses that end the game
K_LAST_ROUND = 33        # who plays after the trigger
K_TURN_CAP = 34          # turns before a stalled end
K_COVERED = 35           # stock and cash hidden
K_FORCED_BUILD = 36      # which floors the forced build counts
K_OTHER_SKY = 37         # where another player's Skyline floor bars one
K_DRAW_ORDER = 38        # order of the penthouse draws
K_CARD_PHASES = 39       # phases in which bonus cards are cashed or traded in
K_RECORD_INCOME = 40     # 1: fill the `income` table (derived)
K_N_CELLS = 41           # width * height (derived)
K_N_CARDS = 42           # bonus cards in the deck (derived)
K_N_MISSIONS = 43        # mission cards (derived)
K_LEVEL_VALUES = 44      # + l: value of a regular floor on level l + 1
K_SUPPLY = 49            # + l: floors of level l + 1 in the bank at the start (before dealing): per colour (pool per_colour) or for the table (shared)
K_START_STOCK = 54       # + l: floors of level l + 1 each player starts with
K_STRATEGIC = 59         # + cell: 1 if strategic
K_CARD_CELLS = 108       # + card * 4 + i: cell i of the card's path, -1 past its end
K_CARD_LEN = 300         # + card: cells on its path
K_CARD_PATH = 348        # + card: path id (cards with the same path share it)
K_MISSION_CELLS = 396    # + m * 4 + i: cell i of mission m
K_CARD_MASK = 428        # + card: its path as a cell bit mask
K_MISSION_MASK = 476     # + m: mission m's path as a cell bit mask
K_BOARD_MASK = 484       # every cell of the board as a bit mask
K_NOT_FIRST_COL = 485    # cells not in column 0 (bit mask)
K_NOT_LAST_COL = 486     # cells not in the last column (bit mask)
K_STRATEGIC_MASK = 487   # the strategic cells as a bit mask
K_MAX_FEE = 488          # the largest fee any placement can cost (a shortcut for the money check)
K_SIZE = 489             # the layout's size (skyline of the world rules)
K_END = 489              # the first index after it
PARAMS.check(globals(), "K_")
N_CFG = PARAMS.end


def _path_problem(path: list[int], width: int, height: int) -> str | None:
    if len(path) % 2:
        return f"needs [row, col] pairs, got {len(path)} numbers"
    cells = [(path[i], path[i + 1]) for i in range(0, len(path), 2)]
    for r, c in cells:
        if not (0 <= r < height and 0 <= c < width):
            return f"cell [{r}, {c}] is off the {height} x {width} board"
    if len(set(cells)) != len(cells):
        return "lists a cell twice"
    for (r0, c0), (r1, c1) in zip(cells, cells[1:]):
        if abs(r0 - r1) + abs(c0 - c1) != 1:
            return f"cells [{r0}, {c0}] and [{r1}, {c1}] are not orthogonally adjacent"
    return None


def consistency(values: dict[str, Any]) -> list[tuple[str, str]]:
    """Setups the schema's ranges cannot catch; (key, reason) pairs."""
    out: list[tuple[str, str]] = []
    w, h = values["board"]["width"], values["board"]["height"]
    strategic = [tuple(x) for x in values["board"]["strategic"]]
    for r, c in strategic:
        if not (0 <= r < h and 0 <= c < w):
            out.append(("board.strategic", f"cell [{r}, {c}] is off the {h} x {w} board"))
    if len(set(strategic)) != len(strategic):
        out.append(("board.strategic", "a strategic cell is listed twice"))
    for key in ("levels.values", "supply.colour", "supply.floors", "start.stock"):
        sec, name = key.split(".")
        if len(values[sec][name]) != LEVELS:
            out.append((key, f"needs {LEVELS} numbers (one per level 1..{LEVELS}), got {len(values[sec][name])}"))
    if not out and values["supply"]["pool"] == "shared" and \
            any(values["start"]["stock"][i] * MAX_PLAYERS > values["supply"]["floors"][i] for i in range(LEVELS)):
        out.append(("start.stock", f"{MAX_PLAYERS} players' starting stock exceeds the shared pool (supply.floors)"))
    if not out and values["supply"]["pool"] == "per_colour" and \
            any(values["start"]["stock"][i] > values["supply"]["colour"][i] for i in range(LEVELS)):
        out.append(("start.stock", "the starting stock exceeds one colour's supply (supply.colour)"))
    if values["cash"]["fee_over_cap"] == "unpaid" and values["cash"]["cap_rule"] != "always":
        out.append(("cash.fee_over_cap", "'unpaid' needs cash.cap_rule 'always' (under 'after_income' a fee is "
                                         "never cut by the cap, so nothing is left unpaid)"))
    bonus = values["bonus"]["paths"]
    if len(bonus) > MAX_CARDS:
        out.append(("bonus.paths", f"at most {MAX_CARDS} cards, got {len(bonus)}"))
    for i, p in enumerate(bonus):
        why = _path_problem(list(p), w, h)
        if why or len(p) not in (6, 8):
            out.append(("bonus.paths", f"card {i}: {why or 'a bonus path has 3 or 4 cells'}"))
    missions = values["mission"]["paths"]
    if len(missions) > MAX_MISSIONS:
        out.append(("mission.paths", f"at most {MAX_MISSIONS} missions, got {len(missions)}"))
    if len(missions) < MAX_PLAYERS:
        out.append(("mission.paths", f"needs at least {MAX_PLAYERS} missions (one per player)"))
    for i, p in enumerate(missions):
        why = _path_problem(list(p), w, h)
        if why:
            out.append(("mission.paths", f"mission {i}: {why}"))
    if values["start"]["bonus_cards"] * MAX_PLAYERS > len(bonus):
        out.append(("start.bonus_cards", f"{MAX_PLAYERS} players need more than the {len(bonus)} cards"))
    return out


VARIANTS = VariantLoader("skyline_of_the_world", Path(__file__).parent / "variants", SCHEMA, consistency)


class KernelParams(NamedTuple):
    """Every rule number in one int64 vector (layout K_* above). Python reads them by name:
    `kp.width`, `kp.values` (an int64 view)."""

    cfg: np.ndarray

    def __getattr__(self, name: str):
        if name not in PARAMS.sizes:
            raise AttributeError(name)
        return PARAMS.get(self.cfg, name)

    def with_record_income(self, on: bool) -> "KernelParams":
        cfg = self.cfg.copy()
        cfg[PARAMS["record_income"]] = int(on)
        return KernelParams(cfg)


def _cells(path: list[int], width: int) -> list[int]:
    return [path[i] * width + path[i + 1] for i in range(0, len(path), 2)]


def kernel_params(variant: Variant | None = None, n_players: int = 4, record_income: bool = True) -> KernelParams:
    """Validated variant + player count -> KernelParams."""
    if variant is None:
        variant = VARIANTS.load("default")
    if not 2 <= n_players <= MAX_PLAYERS:
        raise ValueError(f"skyline_of_the_world plays 2-{MAX_PLAYERS} players, not {n_players}")
    v = variant.values
    w, h = v["board"]["width"], v["board"]["height"]
    strategic = np.zeros(MAX_CELLS, np.int64)
    for r, c in v["board"]["strategic"]:
        strategic[r * w + c] = 1
    cards = v["bonus"]["paths"]
    card_cells = np.full(MAX_CARDS * MAX_PATH, -1, np.int64)
    card_len = np.zeros(MAX_CARDS, np.int64)
    card_path = np.zeros(MAX_CARDS, np.int64)
    ids: dict[tuple, int] = {}
    for i, p in enumerate(cards):
        cells = _cells(list(p), w)
        card_cells[i * MAX_PATH:i * MAX_PATH + len(cells)] = cells
        card_len[i] = len(cells)
        card_path[i] = ids.setdefault(tuple(sorted(cells)), len(ids))
    missions = v["mission"]["paths"]
    mission_cells = np.full(MAX_MISSIONS * MAX_PATH, -1, np.int64)
    for i, p in enumerate(missions):
        cells = _cells(list(p), w)
        mission_cells[i * MAX_PATH:i * MAX_PATH + len(cells)] = cells
    card_mask = np.zeros(MAX_CARDS, np.int64)
    for i in range(len(cards)):
        card_mask[i] = sum(1 << int(x) for x in card_cells[i * MAX_PATH:(i + 1) * MAX_PATH] if x >= 0)
    mission_mask = np.zeros(MAX_MISSIONS, np.int64)
    for i in range(len(missions)):
        mission_mask[i] = sum(1 << int(x) for x in mission_cells[i * MAX_PATH:(i + 1) * MAX_PATH] if x >= 0)
    cells = range(w * h)
    cfg = PARAMS.fill(v, card_mask=card_mask, mission_mask=mission_mask,
                      board_mask=sum(1 << i for i in cells), not_first_col=sum(1 << i for i in cells if i % w),
                      not_last_col=sum(1 << i for i in cells if i % w != w - 1),
                      max_fee=max(list(v["levels"]["values"]) + [v["fees"]["neutral"], v["fees"]["skyline"]]),
                      strategic_mask=sum(1 << i for i in cells if strategic[i]), n_players=n_players, record_income=int(record_income), n_cells=w * h,
                      n_cards=len(cards), n_missions=len(missions), level_values=v["levels"]["values"],
                      supply=v["supply"]["colour" if v["supply"]["pool"] == "per_colour" else "floors"],
                      start_stock=v["start"]["stock"], strategic=strategic,
                      card_cells=card_cells, card_len=card_len, card_path=card_path, mission_cells=mission_cells)
    return KernelParams(cfg)
