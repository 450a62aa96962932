"""Cityline rules as pure kernels over the flat state vector (state.py) and the rule
vector `cfg` (params.KernelParams.cfg).

Rulebook: Cityline; its open points are rule choices in variants/default.toml (one comment each).
The step API (game.py) and the batch loop (batch.py) call these same kernels;
no rule exists twice. The `*_nb(d, rng, cfg, ...)` kernels are the rules; the
`*_action_nb(st, kp, ...)` ones are thin wrappers taking the NamedTuples.

Turn structure (decision points, see state.PH_*):

    construction turn t (t = 0..construction_turns-1), n = dice - t dice:
        roll n dice (+ n reserve dice for a re-roll)          chance
        PH_REROLL  the re-roller picks a subset (solo; 2+ players per variant)
        walls / early occupants on every sheet                automatic
        PH_ROOF    each player in seat order: die value v + unroofed column c
        roofs drawn, dice set aside, one die leaves the pool  automatic
    time phase: sky per player from its construction set-aside dice
    occupancy turn t (t = 0..occupancy_turns-1), n = dice - t dice, while
    some player still has an open building:
        roll n dice                                           chance
        PH_OCCUPY  each active player: building c + set-aside die v
        buildings filled in one go (occupants, then X's)      automatic

Chance and common random numbers: each turn draws a fixed amount from the
chance stream (construction: n dice then n reserve dice; occupancy: n dice),
whatever the players choose, and re-rolled die i shows reserve die i. So the
same game index rolls the same dice for every policy line-up, re-roll or not,
and for every variant that keeps the dice count. With 2+ players "one die is
removed from the pool" each turn: as every remaining die is rolled again next
turn, which die leaves cannot matter, so no draw is spent on it.

Kernels run once or more per decision (apply_nb, legal_nb, the turn starts,
build_walls_nb; batch.py's decision record) are `inline_kernel`s: as calls,
each passing three or four arrays, a random solo game took 1/0.86 as long
(paired, 30 rounds, seeded tables byte-identical); the cold compile did not
change. Once-per-game kernels (reset_nb, score_nb) gained nothing inlined.
"""
from __future__ import annotations

import numpy as np

from engines.cityline.params import (
    K_CLOUD_BONUS, K_COLUMNS, K_CONSTRUCTION_TURNS, K_DICE, K_FACES, K_MAX_FLOORS, K_MOON_BONUS,
    K_MOON_MIN_EVEN, K_OCCUPANCY_TURNS, K_REROLL_MULTI, K_REROLL_SOLO, K_ROOF_COPIES,
    K_EMPTY_SCORES, K_TIE_BREAK, K_ROOF_FACES, K_ROOF_NEEDS_WALLS, K_SAME_TYPE_ONCE, K_SUN_BONUS, K_SUN_MIN_ODD, K_TABLE, K_X_PENALTY, K_X_PER_PENALTY,
    MAX_COLUMNS, MAX_DICE, MAX_FACES, MAX_TURNS, TABLE_STRIDE,
)
from engines.cityline.state import (
    ACT_STRIDE, AS, CLOUD, DC, DR, DV, E0, F0, H0, M_DECISIONS, M_NDICE, M_NPLAYERS, M_PHASE, M_PLAYER,
    M_REROLLED, M_TURN, MOON, O0, OCC_BASE, P_ACTIVE, P_C_EVEN, P_C_ODD, P_FORCED_X, P_O_EVEN, P_O_ODD,
    P_OCC_TURNS, P_PEND_C, P_PEND_V, P_REROLLED, P_SKY, P_WASTED_EARLY, P_WASTED_WALLS, PB, PBASE,
    PH_OCCUPY, PH_OVER, PH_REROLL, PH_ROOF, PS, R0, ROOF_BASE, SUN, X0,
)
from engines.core.harness import seed_chance_nb
from engines.core.kernel import allocating_kernel, inline_kernel, ir_inline_kernel, kernel
from engines.core.lowlevel import lowest_bit_index
from engines.core.rng import below


@kernel
def pbase_nb(p):
    """Offset of player p's block in the state vector."""
    return PBASE + p * PB


# ---------------------------------------------------------------- the rules every caller shares

@ir_inline_kernel
def populating_faces_nb(d, cfg, roof):
    """THE population rule: bit v - 1 is set if a rolled die showing v may populate a building of
    this roof type (its face is one the type accepts, and enough rolled dice show it). Legality,
    the occupancy effect, the decisions table and the policies all ask this kernel (the roof
    type's two numbers are read once, outside the loop: measured, that matters here)."""
    need = max(cfg[K_ROOF_COPIES + roof], 1)  # a face no die shows populates nothing
    ok = np.int64(0)
    # without a branch per face: whether a face qualifies depends on the dice, so a branch is
    # mispredicted about as often as taken
    for v in range(1, cfg[K_FACES] + 1):
        ok |= np.int64(d[DC + v] >= need) << (v - 1)
    return ok & (cfg[K_ROOF_FACES + roof] >> 1)


@ir_inline_kernel
def matches_nb(d, cfg, roof):
    """How many of the rolled dice populate a building of this roof type."""
    ok = populating_faces_nb(d, cfg, roof)
    m = 0
    for v in range(1, cfg[K_FACES] + 1):
        m += ((ok >> (v - 1)) & 1) * d[DC + v]
    return m


@ir_inline_kernel
def is_open_nb(d, b, c):
    """Column c of the player at block b is a roofed building with room, not yet populated."""
    # `&`, not `and`: one test of all three, not a branch on each (see populating_faces_nb)
    return (d[b + R0 + c] > 0) & (d[b + F0 + c] == 0) & (d[b + O0 + c] < d[b + H0 + c])


@ir_inline_kernel
def n_open_nb(d, cfg, b):
    """Open buildings (is_open_nb) of the player at block b."""
    k = 0
    for c in range(cfg[K_COLUMNS]):
        k += np.int64(is_open_nb(d, b, c))
    return k


@ir_inline_kernel
def fill_outcome_nb(d, cfg, b, c):
    """Populating building c of the player at block b with the rolled dice, in one go: (placed,
    xs, matches) -- matching dice become occupants up to the free space, every other free space
    gets an X. The occupancy effect, the decisions table and the policies' look-ahead use it."""
    m = matches_nb(d, cfg, d[b + R0 + c])
    free = d[b + H0 + c] - d[b + O0 + c]
    placed = m if m < free else free
    return placed, free - placed, m


@ir_inline_kernel
def sky_of_nb(cfg, odd, even):
    """The time phase's rule: the sky from the construction set-aside dice (odd / even counts)."""
    if odd >= cfg[K_SUN_MIN_ODD]:
        return SUN
    if even >= cfg[K_MOON_MIN_EVEN]:
        return MOON
    return CLOUD


@kernel
def sky_bonus_nb(cfg, sky, odd, even):
    """Final scoring's sky rule: the bonus (or penalty) of a sky given the occupancy set-aside
    dice (odd / even counts); 0 before the time phase (sky < 0)."""
    if sky == SUN:
        return cfg[K_SUN_BONUS] if odd > even else 0
    if sky == MOON:
        return cfg[K_MOON_BONUS] if even > odd else 0
    if sky == CLOUD:
        return cfg[K_CLOUD_BONUS] if odd != even else 0
    return 0


@ir_inline_kernel
def decode_nb(action, base):
    """(die value v, column c) of a roof (base ROOF_BASE) or occupancy (OCC_BASE) action."""
    a = action - base
    return a // ACT_STRIDE + 1, a % ACT_STRIDE


@ir_inline_kernel
def count_dice_nb(d, n):
    """Dice per face (DC) from the first n rolled dice."""
    for f in range(MAX_DICE):
        d[DC + f] = 0
    for i in range(n):
        d[DC + d[DV + i]] += 1


# ---------------------------------------------------------------- setup

@kernel
def reset_nb(d, rng, cfg, seed, game_index):
    """Set up game `game_index` of run `seed` in (d, rng) and roll the first turn; nothing is
    allocated."""
    d[:] = 0
    P = (d.shape[0] - PBASE) // PB
    d[M_NPLAYERS] = P
    for p in range(P):
        d[PBASE + p * PB + PS + P_SKY] = -1
    seed_chance_nb(rng, seed, game_index)
    start_construction_turn_nb(d, rng, cfg)


# ---------------------------------------------------------------- legal actions

@ir_inline_kernel
def choice_mask_nb(d, cfg):
    """The legal roof / occupancy choices of the player to move as one bit set: bit c * 8 + v - 1
    is set if (die value v, column c) is legal, i.e. action BASE + (v - 1) * 8 + c with BASE =
    ROOF_BASE (PH_ROOF) or OCC_BASE (PH_OCCUPY). 0 in PH_REROLL and PH_OVER. Ascending bits are
    legal_nb's order (column, then value). The one place these rules live: legal_nb lists this
    set, the random policy samples from it without listing it."""
    phase = d[M_PHASE]
    if phase != PH_ROOF and phase != PH_OCCUPY:
        return np.int64(0)
    b = PBASE + d[M_PLAYER] * PB
    cols = cfg[K_COLUMNS]
    # bit v - 1: a rolled die shows v
    shown = np.int64(0)
    for v in range(1, cfg[K_FACES] + 1):
        shown |= np.int64(d[DC + v] > 0) << (v - 1)
    m = np.int64(0)
    if phase == PH_ROOF:
        # construction.roof_needs_walls: while an unroofed column has walls, only those take a roof
        walled = np.int64(0)
        if cfg[K_ROOF_NEEDS_WALLS] == 1:
            for c in range(cols):
                walled |= np.int64((d[b + R0 + c] == 0) & (d[b + H0 + c] > 0))
        for c in range(cols):  # no branches on the sheet here either (see populating_faces_nb)
            m |= (shown * np.int64((d[b + R0 + c] == 0) & ((walled == 0) | (d[b + H0 + c] > 0)))) << (8 * c)
        return m
    # PH_OCCUPY: a building with a matching die, setting aside a die that placed an occupant;
    # the forced X-fill (any open building, any die) only if no building matches
    opened = np.int64(0)
    for c in range(cols):
        is_open = np.int64(is_open_nb(d, b, c))
        opened |= (shown * is_open) << (8 * c)
        m |= (populating_faces_nb(d, cfg, d[b + R0 + c]) * is_open) << (8 * c)
    if m == 0:
        return opened
    return m


@ir_inline_kernel
def action_of_choice_nb(d, bit):
    """The action id of choice-mask bit `bit` (see choice_mask_nb)."""
    base = ROOF_BASE if d[M_PHASE] == PH_ROOF else OCC_BASE
    return base + (bit & 7) * ACT_STRIDE + (bit >> 3)


@inline_kernel
def legal_nb(d, cfg, out):
    """Fill out[:n] with the legal action ids of the player to move; returns n (0 when over).
    PH_REROLL: every subset mask 0..2^ndice-1 (0 = keep all)."""
    phase = d[M_PHASE]
    if phase == PH_REROLL:
        k = 1 << d[M_NDICE]
        for m in range(k):
            out[m] = m
        return k
    m = choice_mask_nb(d, cfg)
    base = ROOF_BASE if phase == PH_ROOF else OCC_BASE
    n = 0
    while m != 0:
        bit = lowest_bit_index(m)
        out[n] = base + (bit & 7) * ACT_STRIDE + (bit >> 3)
        n += 1
        m &= m - 1
    return n


# ---------------------------------------------------------------- automatic steps

@inline_kernel
def build_walls_nb(d, cfg):
    """Construction step 2 on every sheet: each die builds a floor on its column, or an early
    occupant if the column is roofed; a floor past max_floors or an occupant with no room (or a
    die showing a face beyond the last column) is wasted."""
    P = d[M_NPLAYERS]
    cols = cfg[K_COLUMNS]
    maxf = cfg[K_MAX_FLOORS]
    for f in range(1, cfg[K_FACES] + 1):
        k = d[DC + f]
        c = f - 1  # a face no die shows adds 0 below: no branch on it (mispredicted a third of the time)
        for q in range(P):
            b = PBASE + q * PB
            if c >= cols:
                d[b + PS + P_WASTED_WALLS] += k
            elif d[b + R0 + c] == 0:
                room = maxf - d[b + H0 + c]
                add = k if k < room else room
                d[b + H0 + c] += add
                d[b + PS + P_WASTED_WALLS] += k - add
            else:
                room = d[b + H0 + c] - d[b + O0 + c]
                add = k if k < room else room
                d[b + O0 + c] += add
                d[b + E0 + c] += add
                d[b + PS + P_WASTED_EARLY] += k - add


@inline_kernel
def start_construction_turn_nb(d, rng, cfg):
    """Roll n dice, then the n dice a re-roll would show (a fixed draw whatever is chosen); then
    the re-roll decision (solo: the player; 2+: the starting player for the table, per variant)
    or the walls and the roof decision."""
    n = cfg[K_DICE] - d[M_TURN]
    faces = cfg[K_FACES]
    d[M_NDICE] = n
    d[M_REROLLED] = 0
    d[M_PLAYER] = 0
    for i in range(n):
        d[DV + i] = 1 + below(rng, faces)
    for i in range(n):
        d[DR + i] = 1 + below(rng, faces)
    count_dice_nb(d, n)
    reroll = cfg[K_REROLL_SOLO] if d[M_NPLAYERS] == 1 else cfg[K_REROLL_MULTI]
    if reroll == 1:
        d[M_PHASE] = PH_REROLL
    else:
        d[M_PHASE] = PH_ROOF
        build_walls_nb(d, cfg)


@ir_inline_kernel
def draw_roofs_nb(d, cfg):
    """Everyone has chosen: draw the roofs, note the set-aside dice."""
    turn = d[M_TURN]
    for q in range(d[M_NPLAYERS]):
        b = PBASE + q * PB
        v = d[b + PS + P_PEND_V]
        c = d[b + PS + P_PEND_C]
        d[b + R0 + c] = v
        d[b + AS + turn] = v
        d[b + PS + P_C_ODD] += v & 1  # no branch on the die (see populating_faces_nb)
        d[b + PS + P_C_EVEN] += 1 - (v & 1)
        d[b + PS + P_PEND_V] = 0
    d[M_TURN] = turn + 1


@ir_inline_kernel
def time_phase_nb(d, cfg):
    """Each player's sky from its construction set-aside dice."""
    for q in range(d[M_NPLAYERS]):
        b = PBASE + q * PB
        d[b + PS + P_SKY] = sky_of_nb(cfg, d[b + PS + P_C_ODD], d[b + PS + P_C_EVEN])
    d[M_TURN] = 0


@inline_kernel
def start_occupancy_turn_nb(d, rng, cfg):
    """Players with a building left to populate take part; none (or no turns left): game over,
    and the dice not set aside are removed (nothing is rolled)."""
    P = d[M_NPLAYERS]
    turn = d[M_TURN]
    first = -1
    for q in range(P):
        b = PBASE + q * PB
        act = 0
        if turn < cfg[K_OCCUPANCY_TURNS] and n_open_nb(d, cfg, b) > 0:
            act = 1
        d[b + PS + P_ACTIVE] = act
        if act == 1 and first < 0:
            first = q
    if first < 0:
        d[M_PHASE] = PH_OVER
        d[M_PLAYER] = -1
        d[M_NDICE] = 0
        return
    n = cfg[K_DICE] - turn
    d[M_NDICE] = n
    faces = cfg[K_FACES]
    for i in range(n):
        d[DV + i] = 1 + below(rng, faces)
    count_dice_nb(d, n)
    d[M_PHASE] = PH_OCCUPY
    d[M_PLAYER] = first


@ir_inline_kernel
def fill_buildings_nb(d, cfg):
    """Every active player has chosen: fill each chosen building in one go (fill_outcome_nb)."""
    turn = d[M_TURN]
    for q in range(d[M_NPLAYERS]):
        b = PBASE + q * PB
        if d[b + PS + P_ACTIVE] == 0:
            continue
        v = d[b + PS + P_PEND_V]
        c = d[b + PS + P_PEND_C]
        placed, xs, m = fill_outcome_nb(d, cfg, b, c)
        d[b + O0 + c] += placed
        d[b + X0 + c] += xs
        d[b + F0 + c] = 1
        if m == 0:
            d[b + PS + P_FORCED_X] += 1
        d[b + AS + MAX_TURNS + turn] = v
        d[b + PS + P_O_ODD] += v & 1
        d[b + PS + P_O_EVEN] += 1 - (v & 1)
        d[b + PS + P_OCC_TURNS] += 1
        d[b + PS + P_PEND_V] = 0
    d[M_TURN] = turn + 1


# ---------------------------------------------------------------- one kernel per decision kind

@ir_inline_kernel
def reroll_nb(d, cfg, mask):
    """PH_REROLL: re-roll die i for each bit i of `mask` (it shows reserve die i), then the walls
    and the roof decision, seat 0 first."""
    d[M_DECISIONS] += 1
    nd = d[M_NDICE]
    k = 0
    for i in range(nd):  # no branch on the mask's bits (see populating_faces_nb)
        bit = (mask >> i) & 1
        d[DV + i] = d[DR + i] if bit else d[DV + i]
        k += bit
    if k > 0:
        count_dice_nb(d, nd)
    d[M_REROLLED] = k
    d[PBASE + d[M_PLAYER] * PB + PS + P_REROLLED] += k
    d[M_PHASE] = PH_ROOF
    d[M_PLAYER] = 0
    build_walls_nb(d, cfg)


@ir_inline_kernel
def roof_nb(d, rng, cfg, action):
    """PH_ROOF: the player to move writes down (die value, column); after the last seat the roofs
    are drawn, then the next construction turn -- or the time phase and the first occupancy turn."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    b = PBASE + p * PB
    v, c = decode_nb(action, np.int64(ROOF_BASE))
    d[b + PS + P_PEND_V] = v
    d[b + PS + P_PEND_C] = c
    if p + 1 < d[M_NPLAYERS]:
        d[M_PLAYER] = p + 1
        return
    draw_roofs_nb(d, cfg)
    if d[M_TURN] < cfg[K_CONSTRUCTION_TURNS]:
        start_construction_turn_nb(d, rng, cfg)
    else:
        time_phase_nb(d, cfg)
        start_occupancy_turn_nb(d, rng, cfg)


@ir_inline_kernel
def occupy_nb(d, rng, cfg, action):
    """PH_OCCUPY: the player to move writes down (building, set-aside die); after the last active
    seat every chosen building is filled, then the next occupancy turn (or the end)."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    b = PBASE + p * PB
    v, c = decode_nb(action, np.int64(OCC_BASE))
    d[b + PS + P_PEND_V] = v
    d[b + PS + P_PEND_C] = c
    P = d[M_NPLAYERS]
    q = p + 1
    while q < P and d[PBASE + q * PB + PS + P_ACTIVE] == 0:
        q += 1
    if q < P:
        d[M_PLAYER] = q
        return
    fill_buildings_nb(d, cfg)
    start_occupancy_turn_nb(d, rng, cfg)


@inline_kernel
def apply_nb(d, rng, cfg, action):
    """Apply a legal action of the player to move (not checked here; game.py checks), then run
    the automatic steps up to the next decision: one rule kernel per decision kind (compiled
    without reference counts on its arrays, like every `kernel`: engines.core.kernel)."""
    phase = d[M_PHASE]
    if phase == PH_REROLL:
        reroll_nb(d, cfg, action)
    elif phase == PH_ROOF:
        roof_nb(d, rng, cfg, action)
    elif phase == PH_OCCUPY:
        occupy_nb(d, rng, cfg, action)


# ---------------------------------------------------------------- scoring

@kernel
def score_nb(d, cfg, p, type_points, col_points):
    """Final score of player p (the sheet as it stands).

    type_points[r] (int64[MAX_FACES + 1]) gets the building points of roof type r, col_points[c]
    (int64[MAX_COLUMNS]) each column's points. Returns (score, x_count, x_penalty, sky_bonus,
    zeroed); zeroed counts buildings scoring 0 because a same-type building already scored that
    occupancy level (left to right: the first one scores)."""
    b = pbase_nb(p)
    for r in range(MAX_FACES + 1):
        type_points[r] = 0
    for c in range(MAX_COLUMNS):
        col_points[c] = 0
    seen = np.int64(0)  # bit r * 9 + o: roof type r already scored at o occupants
    same = cfg[K_SAME_TYPE_ONCE] == 1
    total = 0
    xcount = 0
    zeroed = 0
    for c in range(cfg[K_COLUMNS]):
        xcount += d[b + X0 + c]
        r = d[b + R0 + c]
        if r == 0 or (d[b + H0 + c] == 0 and cfg[K_EMPTY_SCORES] == 0):
            continue  # no roof, or a roof with no room (scoring.empty_building_scores false): scores nothing
        o = d[b + O0 + c]
        if same:
            bit = np.int64(1) << (r * 9 + o)
            if seen & bit:
                zeroed += 1
                continue
            seen |= bit
        pts = cfg[K_TABLE + r * TABLE_STRIDE + o]
        col_points[c] = pts
        type_points[r] += pts
        total += pts
    xpen = (xcount // cfg[K_X_PER_PENALTY]) * cfg[K_X_PENALTY]
    bonus = sky_bonus_nb(cfg, d[b + PS + P_SKY], d[b + PS + P_O_ODD], d[b + PS + P_O_EVEN])
    return total - xpen + bonus, xcount, xpen, bonus, zeroed


@inline_kernel
def tie_key_nb(d, cfg, p):
    """Player p's tie-break key among players level on the top score (higher wins; scoring.tie_break):
    0 when ties are shared (the default), minus his X's ('fewest_x'), his occupants ('most_occupants')."""
    rule = cfg[K_TIE_BREAK]
    if rule == 0:
        return 0
    b = pbase_nb(p)
    key = 0
    for c in range(cfg[K_COLUMNS]):
        key += -d[b + X0 + c] if rule == 1 else d[b + O0 + c]
    return key


# ---------------------------------------------------------------- what a seat cannot see

@kernel
def redraw_hidden_choices_nb(d, cfg, p, prng, buf):
    """Redraw, in place, the pending choices seat p has not seen: those of the seats that wrote
    theirs down before p in this simultaneous roof / occupancy turn, each uniformly among that
    seat's legal choices (its sheet and the dice are public). buf: int64[>= 256] scratch."""
    phase = d[M_PHASE]
    if phase != PH_ROOF and phase != PH_OCCUPY:
        return
    me = d[M_PLAYER]
    base = ROOF_BASE if phase == PH_ROOF else OCC_BASE
    for q in range(min(me, d[M_NPLAYERS])):
        b = PBASE + q * PB
        if q == p or (phase == PH_OCCUPY and d[b + PS + P_ACTIVE] == 0):
            continue
        d[M_PLAYER] = q
        n = legal_nb(d, cfg, buf)
        d[M_PLAYER] = me
        if n > 0:
            v, c = decode_nb(buf[below(prng, n)], base)
            d[b + PS + P_PEND_V] = v
            d[b + PS + P_PEND_C] = c


# ---------------------------------------------------------------- what a seat sees

@allocating_kernel
def observe_nb(st, kp, player):
    """What `player` sees: a copy of the state vector with the hidden parts zeroed -- the re-roll
    reserve and the other players' pending choices (the chance stream is not part of it)."""
    o = st.data.copy()
    for i in range(MAX_DICE):
        o[DR + i] = 0
    for p in range(o[M_NPLAYERS]):
        if p != player:
            b = pbase_nb(p)
            o[b + PS + P_PEND_V] = 0
            o[b + PS + P_PEND_C] = 0
    return o
