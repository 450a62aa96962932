"""Cityline rule parameters: the variant schema, its consistency checks, and
the conversion of a validated variant into the `KernelParams` NamedTuple the
kernels read.

Rulebook: Cityline; its open points are rule choices in variants/default.toml (one comment each).
Every rule choice lives in `variants/default.toml`, one comment per key.

Roof types are data: for each die face v (1..6) a variant gives a
population rule from a small family and a score table, and the kernels only
see two numbers per type -- a bit mask of the faces that may count and the
number of copies a face needs among the rolled dice:

    odd        faces {1,3,5}     copies >= 1
    even       faces {2,4,6}     copies >= 1
    any        all faces         copies >= 1
    range a b  faces a..b        copies >= 1
    pairs k    all faces         copies >= k   (k = 2: "another die shows it too")
    set [..]   the listed faces  copies >= 1
"""
from __future__ import annotations

from functools import lru_cache
from math import comb, factorial
from pathlib import Path
from typing import Any

import numpy as np

from engines.core.layout import Param, ParamLayout, kernel_params_type
from engines.core.variant import Rule, Variant, VariantLoader

# hard limits of the array layout (state.py); a variant stays within them
MAX_DICE = 8
MAX_FACES = 6
MAX_COLUMNS = 6
MAX_FLOORS = 8
MAX_TURNS = 8
MAX_PLAYERS = 6

RULE_NAMES = ("odd", "even", "any", "range", "pairs", "set")
REROLL_NAMES = ("none", "starting_player")
TIE_BREAKS = ("shared", "fewest_x", "most_occupants")

# ---------------------------------------------------------------- the rule parameters, declared once
# Each entry names the variant key, its schema rule and (kernel=True) its slot in KernelParams.cfg;
# derived slots (no key) are computed by kernel_params. Kernels read slot NAME as cfg[K_NAME].
TABLE_STRIDE = MAX_FLOORS + 1
PARAMS = ParamLayout(
    [
        Param("n_players", meaning="players at the table (derived)"),
        Param("columns", key="game.columns",
              rule=Rule("int", 1, MAX_COLUMNS, doc="columns on the sheet (column v is built by dice showing v)")),
        Param("max_floors", key="game.max_floors",
              rule=Rule("int", 1, MAX_FLOORS, doc="floors a building holds at most; walls past it are wasted")),
        Param("dice", key="game.dice", rule=Rule("int", 1, MAX_DICE, doc="dice rolled at the start of each phase")),
        Param("faces", key="game.faces", rule=Rule("int", 2, MAX_FACES, doc="faces per die")),
        Param("construction_turns", key="game.construction_turns",
              rule=Rule("int", 1, MAX_TURNS, doc="construction turns (one roof each)")),
        Param("occupancy_turns", key="game.occupancy_turns",
              rule=Rule("int", 1, MAX_TURNS, doc="occupancy turns at most (one building each)")),
        Param("reroll_solo", key="construction.solo_reroll",
              rule=Rule("bool", doc="solo: one optional re-roll of any subset per construction turn")),
        Param("reroll_multi", key="construction.multiplayer_reroll",
              rule=Rule("str", choices=REROLL_NAMES, doc="2+ players: who re-rolls")),
        Param("sun_min_odd", key="sky.sun_min_odd",
              rule=Rule("int", 0, MAX_TURNS, doc="odd construction set-aside dice needed for a sun")),
        Param("moon_min_even", key="sky.moon_min_even",
              rule=Rule("int", 0, MAX_TURNS, doc="even construction set-aside dice needed for a moon")),
        Param("sun_bonus", key="sky.sun_bonus",
              rule=Rule("int", -50, 50, doc="sun + odd majority of occupancy set-aside dice")),
        Param("moon_bonus", key="sky.moon_bonus", rule=Rule("int", -50, 50, doc="moon + even majority")),
        Param("cloud_bonus", key="sky.cloud_bonus", rule=Rule("int", -50, 50, doc="cloud + a majority of either parity")),
        Param("x_per_penalty", key="scoring.x_per_penalty",
              rule=Rule("int", 1, 50, doc="X's per penalty step (floor division)")),
        Param("x_penalty", key="scoring.x_penalty", rule=Rule("int", 0, 50, doc="points lost per step")),
        Param("same_type_once", key="scoring.same_type_once_per_level",
              rule=Rule("bool", doc="same-type buildings score once per occupancy level")),
        Param("roof_needs_walls", key="construction.roof_needs_walls",
              rule=Rule("bool", doc="a roof goes on a column with walls while an unroofed one has walls")),
        Param("empty_scores", key="scoring.empty_building_scores",
              rule=Rule("bool", doc="a roofed column with no walls scores its table's 0-occupant points")),
        Param("tie_break", key="scoring.tie_break",
              rule=Rule("str", choices=TIE_BREAKS, doc="players level on the top score: shared, or a tie-break")),
        Param("record_decisions", meaning="1: fill the `decisions` table (0 for speed; derived)"),
        Param("roof_faces", size=MAX_FACES + 1,
              meaning="+ r: bit v set if a die showing v may populate roof type r (from roof.r.rule/params)"),
        Param("roof_copies", size=MAX_FACES + 1,
              meaning="+ r: copies of that face needed among the rolled dice (from roof.r.rule/params)"),
        Param("table", size=(MAX_FACES + 1) * TABLE_STRIDE,
              meaning="+ r * TABLE_STRIDE + o: points of roof type r with o occupants (from roof.r.table)"),
    ]
    + [
        p
        for _v in range(1, MAX_FACES + 1)
        for p in (
            Param(key=f"roof.{_v}.name", rule=Rule("str", doc=f"roof type {_v}: display name"), kernel=False),
            Param(key=f"roof.{_v}.rule", rule=Rule("str", choices=RULE_NAMES,
                                                   doc=f"roof type {_v}: population rule family"), kernel=False),
            Param(key=f"roof.{_v}.params", rule=Rule("int_list", 1, MAX_DICE, max_length=MAX_FACES,
                                                     doc=f"roof type {_v}: rule parameters"), kernel=False),
            Param(key=f"roof.{_v}.table", rule=Rule("int_list", -100, 100, min_length=2, max_length=MAX_FLOORS + 1,
                                                    doc=f"roof type {_v}: points by occupants 0..max_floors"),
                  kernel=False),
        )
    ],
    name="cityline rules",
)
SCHEMA: dict[str, Rule] = PARAMS.schema()
# K_N_PLAYERS, K_COLUMNS, ..., K_TABLE: module-level ints, compile-time constants in the kernels
# --- PARAMS's constants, prefix K_ (python -m engines.core.layout FILE writes them: edit PARAMS) ---
K_N_PLAYERS = 0           # players at the table (derived)
K_COLUMNS = 1             # columns on the sheet (column v is built by dice showing v)
K_MAX_FLOORS = 2          # floors a building holds at most; walls past it are wasted
K_DICE = 3                # dice rolled at the start of each phase
K_FACES = 4               # faces per die
K_CONSTRUCTION_TURNS = 5  # construction turns (one roof each)
K_OCCUPANCY_TURNS = 6     # occupancy turns at most (one building each)
K_REROLL_SOLO = 7         # solo: one optional re-roll of any subset per construction turn
K_REROLL_MULTI = 8        # 2+ players: who re-rolls
K_SUN_MIN_ODD = 9         # odd construction set-aside dice needed for a sun
K_MOON_MIN_EVEN = 10      # even construction set-aside dice needed for a moon
K_SUN_BONUS = 11          # sun + odd majority of occupancy set-aside dice
K_MOON_BONUS = 12         # moon + even majority
K_CLOUD_BONUS = 13        # cloud + a majority of either parity
K_X_PER_PENALTY = 14      # X's per penalty step (floor division)
K_X_PENALTY = 15          # points lost per step
K_SAME_TYPE_ONCE = 16     # same-type buildings score once per occupancy level
K_ROOF_NEEDS_WALLS = 17   # a roof goes on a column with walls while an unroofed one has walls
K_EMPTY_SCORES = 18       # a roofed column with no walls scores its table's 0-occupant points
K_TIE_BREAK = 19          # players level on the top score: shared, or a tie-break
K_RECORD_DECISIONS = 20   # 1: fill the `decisions` table (0 for speed; derived)
K_ROOF_FACES = 21         # + r: bit v set if a die showing v may populate roof type r (from roof.r.rule/params)
K_ROOF_COPIES = 28        # + r: copies of that face needed among the rolled dice (from roof.r.rule/params)
K_TABLE = 35              # + r * TABLE_STRIDE + o: points of roof type r with o occupants (from roof.r.table)
K_SIZE = 98               # the layout's size (cityline rules)
K_END = 98                # the first index after it
PARAMS.check(globals(), "K_")
N_CFG = PARAMS.end


def _rule_problem(rule: str, params: list[int], faces: int, dice: int) -> str | None:
    if rule in ("odd", "even", "any"):
        return None if not params else f"rule '{rule}' takes no params, got {params}"
    if rule == "range":
        if len(params) != 2:
            return f"rule 'range' needs params = [lo, hi], got {params}"
        lo, hi = params
        if not (1 <= lo <= hi <= faces):
            return f"rule 'range' needs 1 <= lo <= hi <= faces ({faces}), got {params}"
        return None
    if rule == "pairs":
        if len(params) != 1 or not (1 <= params[0] <= dice):
            return f"rule 'pairs' needs params = [min_copies] with 1 <= min_copies <= dice ({dice}), got {params}"
        return None
    if rule == "set":
        if not params or len(set(params)) != len(params) or max(params) > faces:
            return f"rule 'set' needs distinct faces 1..{faces}, got {params}"
        return None
    return f"unknown rule '{rule}'"


def consistency(values: dict[str, Any]) -> list[tuple[str, str]]:
    """Setups the schema's ranges cannot catch; (key, reason) pairs."""
    g, sky = values["game"], values["sky"]
    out: list[tuple[str, str]] = []
    if g["columns"] > g["faces"]:
        out.append(("game.columns", f"{g['columns']} columns but dice only show 1..{g['faces']}: "
                                    "column v is built by dice showing v"))
    if g["construction_turns"] > g["columns"]:
        out.append(("game.construction_turns", f"{g['construction_turns']} roofs need as many columns "
                                               f"(columns = {g['columns']})"))
    if g["construction_turns"] > g["dice"]:
        out.append(("game.construction_turns", f"one die is set aside per turn: at most dice = {g['dice']} turns"))
    if g["occupancy_turns"] > g["dice"]:
        out.append(("game.occupancy_turns", f"one die is set aside per turn: at most dice = {g['dice']} turns"))
    if sky["sun_min_odd"] + sky["moon_min_even"] <= g["construction_turns"]:
        out.append(("sky.moon_min_even", "sun and moon could both hold: sun_min_odd + moon_min_even "
                                         f"must exceed construction_turns ({g['construction_turns']})"))
    for v in range(1, MAX_FACES + 1):
        roof = values["roof"][str(v)]
        why = _rule_problem(roof["rule"], list(roof["params"]), g["faces"], g["dice"])
        if why:
            out.append((f"roof.{v}.params", why))
        if len(roof["table"]) != g["max_floors"] + 1:
            out.append((f"roof.{v}.table", f"needs max_floors + 1 = {g['max_floors'] + 1} numbers "
                                           f"(points for 0..{g['max_floors']} occupants), got {len(roof['table'])}"))
    return out


VARIANTS = VariantLoader("cityline", Path(__file__).parent / "variants", SCHEMA, consistency)


# What the kernels read: every rule number in one int64 vector (layout K_* above; one array,
# because numba passes each array argument as a dozen words), plus `fill`, the policies'
# precomputed expectations: float64[2, MAX_FACES + 1, occ, height, dice], [0] expected points,
# [1] expected X's of populating a building (type, occupants, height) in one go with that many dice.
# Python reads the rule numbers by name: `kp.columns`, `kp.table` (int64[MAX_FACES + 1, MAX_FLOORS + 1]).
KernelParams = kernel_params_type(PARAMS, __name__, aux="fill", shapes={"table": (MAX_FACES + 1, TABLE_STRIDE)})


def _rule_to_mask(rule: str, params: list[int], faces: int) -> tuple[int, int]:
    allf = range(1, faces + 1)
    if rule == "odd":
        sel, k = [f for f in allf if f % 2 == 1], 1
    elif rule == "even":
        sel, k = [f for f in allf if f % 2 == 0], 1
    elif rule == "any":
        sel, k = list(allf), 1
    elif rule == "range":
        sel, k = list(range(params[0], params[1] + 1)), 1
    elif rule == "pairs":
        sel, k = list(allf), params[0]
    else:  # set
        sel, k = list(params), 1
    return sum(1 << f for f in sel), k


def _compositions(n: int, k: int):
    """All count vectors of n dice over k faces."""
    if k == 1:
        yield (n,)
        return
    for i in range(n + 1):
        for rest in _compositions(n - i, k - 1):
            yield (i,) + rest


@lru_cache(maxsize=64)
def _fill_tables(faces: int, masks: tuple[int, ...], copies: tuple[int, ...],
                 tables: tuple[tuple[int, ...], ...], max_floors: int) -> tuple[np.ndarray, np.ndarray]:
    """Expected points and X's of populating a building (type r, occ, height) with n fresh dice."""
    shape = (MAX_FACES + 1, MAX_FLOORS + 1, MAX_FLOORS + 1, MAX_DICE + 1)
    pts = np.zeros(shape)
    xs = np.zeros(shape)
    for n in range(MAX_DICE + 1):
        # distribution of matches m for each roof type
        dist = np.zeros((MAX_FACES + 1, n + 1))
        for cnt in _compositions(n, faces):
            p = factorial(n) / np.prod([factorial(c) for c in cnt]) / faces ** n
            for r in range(1, MAX_FACES + 1):
                m = sum(c for f, c in enumerate(cnt, 1) if (masks[r] >> f) & 1 and c >= copies[r])
                dist[r, m] += p
        for r in range(1, MAX_FACES + 1):
            tab = tables[r]
            for h in range(max_floors + 1):
                for occ in range(h + 1):
                    free = h - occ
                    for m in range(n + 1):
                        placed = min(m, free)
                        pts[r, occ, h, n] += dist[r, m] * tab[occ + placed]
                        xs[r, occ, h, n] += dist[r, m] * (free - placed)
    return pts, xs


def kernel_params(variant: Variant | None = None, n_players: int = 1, record_decisions: bool = True) -> KernelParams:
    """Validated variant + player count -> KernelParams (cheap after the first call per rule set)."""
    if variant is None:
        variant = VARIANTS.load("default")
    if not 1 <= n_players <= MAX_PLAYERS:
        raise ValueError(f"cityline plays 1-{MAX_PLAYERS} players, not {n_players}")
    v = variant.values
    g = v["game"]
    faces = g["faces"]
    roof_faces = np.zeros(MAX_FACES + 1, np.int64)
    roof_copies = np.ones(MAX_FACES + 1, np.int64)
    table = np.zeros((MAX_FACES + 1, MAX_FLOORS + 1), np.int64)
    for r in range(1, MAX_FACES + 1):
        roof = v["roof"][str(r)]
        roof_faces[r], roof_copies[r] = _rule_to_mask(roof["rule"], list(roof["params"]), faces)
        tab = list(roof["table"])
        table[r, :len(tab)] = tab
        table[r, len(tab):] = tab[-1]
    pts, xs = _fill_tables(faces, tuple(int(x) for x in roof_faces), tuple(int(x) for x in roof_copies),
                           tuple(tuple(int(x) for x in row) for row in table), g["max_floors"])
    cfg = PARAMS.fill(v, n_players=n_players, record_decisions=int(record_decisions), roof_faces=roof_faces,
                      roof_copies=roof_copies, table=table)
    return KernelParams(cfg, np.stack([pts, xs]))


def roof_names(variant: Variant) -> list[str]:
    """Display name per roof type 1..6 (index 0 = '-')."""
    return ["-"] + [variant.values["roof"][str(r)]["name"] for r in range(1, MAX_FACES + 1)]
