"""Skyline 3000 variant schema, consistency rules and kernel parameters.

Every rule number lives in `variants/default.toml`; this module only says what
each key may hold and turns a validated variant into `KernelParams`, a
NamedTuple of ints and numpy arrays. Numba specialises on types, not values,
so switching variants never recompiles. The kernels themselves see only
`KernelParams.tab` (int32[T_SIZE]): every number and table of the variant at
the offsets of state.py; reset copies it into the public buffer.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from engines.core.variant import Rule, Variant, VariantError, VariantLoader
from engines.skyline_3000 import state as S
from engines.skyline_3000.state import (
    MAX_CARDS, MAX_GREEN, MAX_P, MAX_SMALL, MAX_STACK_ITEMS, MAX_STACKS, MAX_START, T_DEAL, T_DIST,
    T_GREEN, T_SIZE, T_STACK_ITEMS, T_STACK_LEN, T_START_H, T_START_R, T_TYPE, T_VALUE,
)

VARIANTS_DIR = Path(__file__).parent / "variants"

AUCTION_TIES = ("highest_card_then_key", "key")
BLOCK_TIES = ("tallest_then_share", "share")
FINAL_TIES = ("hand_value_then_shared", "shared")

SCHEMA: dict[str, Rule] = {
    "players": Rule("int", 1, MAX_P, doc="players when none is asked for"),
    "min_players": Rule("int", 1, MAX_P),
    "max_players": Rule("int", 1, MAX_P, doc="at most 4: four colours of pieces"),
    "board.districts": Rule("int", 1, 6),
    "board.blocks_per_district": Rule("int", 2, 6),
    "board.small_platforms": Rule("int", 0, MAX_SMALL),
    "board.large_platforms": Rule("int", 0, 3),
    "board.greenspace_blocks": Rule("int_list", 0, 35, max_length=MAX_GREEN),
    "auction.stacks": Rule("int_table", 0, 2, max_length=MAX_STACK_ITEMS),
    "auction.tie": Rule("str", choices=AUCTION_TIES),
    "cards.floor_values": Rule("int_list", 1, 15, min_length=1, max_length=MAX_CARDS),
    "cards.roof_values": Rule("int_list", 1, 15, min_length=1, max_length=MAX_CARDS),
    "cards.contract_values": Rule("int_list", 1, 15, min_length=1, max_length=MAX_CARDS),
    "cards.deal_roof": Rule("int", 0, 20),
    "cards.deal_floor": Rule("int", 0, 20),
    "cards.deal_contract": Rule("int", 0, 20),
    "cards.draw_per_round": Rule("int", 0, 30),
    "supply.curved_roofs": Rule("int", 0, 30),
    "supply.pointed_roofs": Rule("int", 0, 30),
    "supply.billboards": Rule("int", 0, 30),
    "supply.floor_stock": Rule("int", 1, 400),
    "supply.starting_buildings": Rule("int_table", 0, 20, length=2),
    "supply.starting_score": Rule("int", -100, 100),
    "game.rounds": Rule("int", 1, 16),
    "game.construction_turn_cap": Rule("int", 1, 100_000),
    "construction.floors_per_card": Rule("int", 1, 10),
    "construction.first_building_floors": Rule("int", 1, 10),
    "scoring.first_base": Rule("int", 0, 50),
    "scoring.first_per_greenspace": Rule("int", 0, 50),
    "scoring.first_per_billboard": Rule("int", 0, 50),
    "scoring.second_base": Rule("int", 0, 50),
    "scoring.second_per_greenspace": Rule("int", 0, 50),
    "scoring.second_per_billboard": Rule("int", 0, 50),
    "scoring.megamall_multiplier": Rule("int", 1, 10),
    "scoring.spaceport_first_cards": Rule("int", 0, 10),
    "scoring.spaceport_second_cards": Rule("int", 0, 10),
    "scoring.billboard_cost": Rule("int", 0, 10),
    "scoring.buildover_cost": Rule("int", 0, 10),
    "scoring.block_tie": Rule("str", choices=BLOCK_TIES),
    "scoring.final_tie": Rule("str", choices=FINAL_TIES),
}


def _n_cards(v: dict[str, Any]) -> int:
    c = v["cards"]
    return len(c["floor_values"]) + len(c["roof_values"]) + v["board"]["districts"] * len(c["contract_values"])


def consistency(v: dict[str, Any]) -> list[tuple[str, str]]:
    """Setups that type-check but cannot be played; (key, reason) pairs."""
    out: list[tuple[str, str]] = []
    bd, cards, sup = v["board"], v["cards"], v["supply"]
    if not v["min_players"] <= v["players"] <= v["max_players"]:
        out.append(("players", f"must lie between min_players ({v['min_players']}) and max_players ({v['max_players']})"))
    n_blocks = bd["districts"] * bd["blocks_per_district"]
    greens = bd["greenspace_blocks"]
    for b in greens:
        if b >= n_blocks:
            out.append(("board.greenspace_blocks", f"block {b} is outside the board (blocks 0-{n_blocks - 1})"))
            return out
    for b in set(greens):
        if greens.count(b) > bd["small_platforms"]:
            out.append(("board.greenspace_blocks",
                        f"block {b} gets {greens.count(b)} pre-placed Greenspaces but has only "
                        f"{bd['small_platforms']} small platforms"))
    if len(v["auction"]["stacks"]) > MAX_STACKS:
        out.append(("auction.stacks", f"at most {MAX_STACKS} stacks"))
    nc = _n_cards(v)
    if nc > MAX_CARDS:
        out.append(("cards.contract_values", f"{nc} cards in all; bids are 62-bit card masks, so at most {MAX_CARDS}"))
    pmax = v["max_players"]
    for key, deck in (("cards.deal_roof", "roof_values"), ("cards.deal_floor", "floor_values")):
        if cards[key.split(".")[1]] * pmax > len(cards[deck]):
            out.append((key, f"{pmax} players x {cards[key.split('.')[1]]} needs more than the "
                             f"{len(cards[deck])} cards of cards.{deck}"))
    if cards["deal_contract"] * pmax > bd["districts"] * len(cards["contract_values"]):
        out.append(("cards.deal_contract", f"{pmax} players x {cards['deal_contract']} needs more Contract cards "
                                           f"than the {bd['districts'] * len(cards['contract_values'])} in the deck"))
    start = sup["starting_buildings"]
    if len(start) > MAX_START:
        out.append(("supply.starting_buildings", f"at most {MAX_START} starting buildings"))
        return out
    for i, (h, r) in enumerate(start):
        if h < 1 or r not in (1, 2):
            out.append(("supply.starting_buildings", f"building {i}: needs floors >= 1 and roof 1 (curved) or 2 (pointed)"))
            return out
    curved = sum(1 for h, r in start if r == 1)
    pointed = sum(1 for h, r in start if r == 2)
    if curved > sup["curved_roofs"]:
        out.append(("supply.curved_roofs", f"the starting buildings need {curved} curved roofs per player"))
    if pointed > sup["pointed_roofs"]:
        out.append(("supply.pointed_roofs", f"the starting buildings need {pointed} pointed roofs per player"))
    floors = sum(h for h, r in start) * pmax
    if floors > sup["floor_stock"]:
        out.append(("supply.floor_stock", f"{pmax} players' starting buildings need {floors} floors"))
    return out


VARIANTS = VariantLoader("skyline_3000", VARIANTS_DIR, SCHEMA, consistency)


class KernelParams(NamedTuple):
    n_players: int
    n_districts: int
    bpd: int                 # blocks per district
    n_blocks: int
    small_platforms: int
    large_platforms: int
    n_green: int                 # pre-placed Greenspaces (blocks in tab[T_GREEN:])
    n_stacks: int                # auction stacks (tab[T_STACK_LEN:], tab[T_STACK_ITEMS:])
    n_auctions: int              # rows reserved for the auction log
    n_cards: int                 # card ids 0..n_cards-1 (tab[T_TYPE:], T_VALUE, T_DIST)
    draw_per_round: int
    curved_roofs: int
    pointed_roofs: int
    billboards: int
    floor_stock: int
    n_start: int                 # starting buildings (tab[T_START_H:], tab[T_START_R:])
    start_score: int
    rounds: int
    turn_cap: int
    floors_per_card: int
    first_floors: int
    first_base: int
    first_per_green: int
    first_per_bb: int
    second_base: int
    second_per_green: int
    second_per_bb: int
    megamall_mult: int
    spaceport_first: int
    spaceport_second: int
    billboard_cost: int
    buildover_cost: int
    auction_tie: int             # index into AUCTION_TIES
    block_tie: int               # index into BLOCK_TIES
    final_tie: int               # index into FINAL_TIES
    max_buildings: int           # plant capacity (every building has a floor)
    max_actions: int             # size of a legal-action buffer
    tab: np.ndarray              # int32[T_SIZE]: every table, at the offsets of state.py

    def card_types(self) -> np.ndarray:
        return self.tab[T_TYPE:T_TYPE + self.n_cards]

    def card_values(self) -> np.ndarray:
        return self.tab[T_VALUE:T_VALUE + self.n_cards]

    def card_districts(self) -> np.ndarray:
        return self.tab[T_DIST:T_DIST + self.n_cards]


def kernel_params(variant: Variant | None = None, n_players: int | None = None) -> KernelParams:
    """Validated variant (default: the default variant) + player count -> KernelParams."""
    if variant is None:
        variant = VARIANTS.load(None)
    g = variant.get
    p = g("players") if n_players is None else int(n_players)
    if not g("min_players") <= p <= g("max_players"):
        raise VariantError(variant.source, "players",
                           f"{p} players: this variant plays {g('min_players')}-{g('max_players')}")
    nd, bpd = g("board.districts"), g("board.blocks_per_district")
    fv, rv, cv = g("cards.floor_values"), g("cards.roof_values"), g("cards.contract_values")
    ctype = [0] * len(fv) + [1] * len(rv) + [2] * (nd * len(cv))
    cval = list(fv) + list(rv) + list(cv) * nd
    cdist = [-1] * (len(fv) + len(rv)) + [d for d in range(nd) for _ in cv]
    stacks = g("auction.stacks")
    start = g("supply.starting_buildings")
    greens = g("board.greenspace_blocks")
    nc = len(ctype)
    tab = np.zeros(T_SIZE, np.int32)
    tab[T_TYPE:T_TYPE + nc] = ctype
    tab[T_VALUE:T_VALUE + nc] = cval
    tab[T_DIST:T_DIST + nc] = cdist
    tab[T_GREEN:T_GREEN + len(greens)] = greens
    tab[T_DEAL:T_DEAL + 3] = [g("cards.deal_floor"), g("cards.deal_roof"), g("cards.deal_contract")]
    tab[T_START_H:T_START_H + len(start)] = [h for h, r in start]
    tab[T_START_R:T_START_R + len(start)] = [r for h, r in start]
    for i, s in enumerate(stacks):
        tab[T_STACK_LEN + i] = len(s)
        tab[T_STACK_ITEMS + i * MAX_STACK_ITEMS:T_STACK_ITEMS + i * MAX_STACK_ITEMS + len(s)] = s
    stock = g("supply.floor_stock")
    nb = nd * bpd
    max_b = stock + len(start) + 1
    kp = KernelParams(
        n_players=p, n_districts=nd, bpd=bpd, n_blocks=nb,
        small_platforms=g("board.small_platforms"), large_platforms=g("board.large_platforms"),
        n_green=len(greens), n_stacks=len(stacks),
        n_auctions=max(1, g("game.rounds") * len(stacks)), n_cards=nc,
        draw_per_round=g("cards.draw_per_round"),
        curved_roofs=g("supply.curved_roofs"), pointed_roofs=g("supply.pointed_roofs"),
        billboards=g("supply.billboards"), floor_stock=stock,
        n_start=len(start),
        start_score=g("supply.starting_score"), rounds=g("game.rounds"),
        turn_cap=g("game.construction_turn_cap"),
        floors_per_card=g("construction.floors_per_card"),
        first_floors=g("construction.first_building_floors"),
        first_base=g("scoring.first_base"), first_per_green=g("scoring.first_per_greenspace"),
        first_per_bb=g("scoring.first_per_billboard"), second_base=g("scoring.second_base"),
        second_per_green=g("scoring.second_per_greenspace"), second_per_bb=g("scoring.second_per_billboard"),
        megamall_mult=g("scoring.megamall_multiplier"),
        spaceport_first=g("scoring.spaceport_first_cards"), spaceport_second=g("scoring.spaceport_second_cards"),
        billboard_cost=g("scoring.billboard_cost"), buildover_cost=g("scoring.buildover_cost"),
        auction_tie=AUCTION_TIES.index(g("auction.tie")),
        block_tie=BLOCK_TIES.index(g("scoring.block_tie")),
        final_tie=FINAL_TIES.index(g("scoring.final_tie")),
        max_buildings=max_b,
        max_actions=max(2 * nc + nb + 2, 2 * max_b + 2, max_b * bpd * 2 + 2, nb + 2),
        tab=tab,
    )
    for name, idx in _TAB_SCALARS.items():
        tab[idx] = getattr(kp, name)
    return kp


_TAB_SCALARS = {
    "n_players": S.T_NP, "n_districts": S.T_ND, "bpd": S.T_BPD, "n_blocks": S.T_NB,
    "small_platforms": S.T_SMALL, "large_platforms": S.T_LARGE, "n_green": S.T_NGREEN,
    "n_stacks": S.T_NSTACKS, "n_auctions": S.T_NAUC, "n_cards": S.T_NC, "draw_per_round": S.T_DRAW,
    "curved_roofs": S.T_CURVED, "pointed_roofs": S.T_POINTED, "billboards": S.T_BILLBOARDS,
    "floor_stock": S.T_STOCK, "n_start": S.T_NSTART, "start_score": S.T_START_SCORE, "rounds": S.T_ROUNDS,
    "turn_cap": S.T_TURN_CAP, "floors_per_card": S.T_FPC, "first_floors": S.T_FIRST_FLOORS,
    "first_base": S.T_FIRST_BASE, "first_per_green": S.T_FIRST_GREEN, "first_per_bb": S.T_FIRST_BB,
    "second_base": S.T_SECOND_BASE, "second_per_green": S.T_SECOND_GREEN, "second_per_bb": S.T_SECOND_BB,
    "megamall_mult": S.T_MALL, "spaceport_first": S.T_SP_FIRST, "spaceport_second": S.T_SP_SECOND,
    "billboard_cost": S.T_BB_COST, "buildover_cost": S.T_BO_COST, "auction_tie": S.T_AUC_TIE,
    "block_tie": S.T_BLOCK_TIE, "final_tie": S.T_FINAL_TIE, "max_buildings": S.T_MAXB,
    "max_actions": S.T_MAXACT,
}
