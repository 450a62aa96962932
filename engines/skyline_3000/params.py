"""Skyline 3000 variant schema, consistency rules and kernel parameters.

Every rule number lives in `variants/default.toml`. Each rule parameter is
declared once, in state.PARAMS (engines.core.layout.ParamLayout): its
variant key, its schema rule, its kernel slot (T_<NAME>) and its meaning.
This module takes the schema from there, adds the consistency rules, and
turns a validated variant into `KernelParams`: the rule table `tab`
(int32[K_SIZE]) with every number and table of the variant at its slot, read
by name in Python (kp.n_players is tab[K_N_PLAYERS]). Numba specialises on
types, not values, so switching variants never recompiles; reset copies the
table into the public buffer.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from engines.core.variant import Rule, Variant, VariantError, VariantLoader
from engines.skyline_3000.state import (  # noqa: F401 (the tie names are re-exported)
    AUCTION_TIES, BLOCK_TIES, FINAL_TIES, MAX_CARDS, MAX_STACK_ITEMS, MAX_STACKS, MAX_START, PARAMS,
    K_DIST, K_SIZE, K_TYPE, K_VALUE,
)

VARIANTS_DIR = Path(__file__).parent / "variants"

SCHEMA: dict[str, Rule] = PARAMS.schema()


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
    # "extra": every pre-placed Greenspace brings its own marked platform, so any count fits;
    # "shared": it takes one of the block's small platforms, which must be enough.
    if bd["greenspace_platform"] == "shared":
        for b in sorted(set(greens)):
            if greens.count(b) > bd["small_platforms"]:
                out.append(("board.greenspace_blocks",
                            f"block {b} gets {greens.count(b)} pre-placed Greenspaces but has only "
                            f"{bd['small_platforms']} small platforms (board.greenspace_platform = \"shared\": "
                            f"they sit on the block's own platforms)"))
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
    dealt = cards["deal_roof"] + cards["deal_floor"] + cards["deal_contract"]
    if 0 < cards["hand_limit"] < dealt:
        out.append(("cards.hand_limit", f"the deal gives each player {dealt} cards, more than a hand of "
                                        f"{cards['hand_limit']} holds (0: no limit)"))
    if cards["deal_roof"] + cards["deal_floor"] + cards["deal_contract"] + cards["draw_per_round"] == 0:
        out.append(("cards.draw_per_round", "no card is ever dealt or drawn (cards.deal_roof, deal_floor, "
                                            "deal_contract and draw_per_round are all 0): without cards nobody "
                                            "bids or builds, so there is no game to play"))
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


_NO_AUX = np.zeros(0)


class KernelParams:
    """A variant's rule table for the kernels (`tab`, int32[K_SIZE]), with
    each slot of state.PARAMS readable by name: kp.n_players, kp.rounds, ...
    (a one-number slot as an int, a table slot as a view of tab)."""

    __slots__ = ("tab",)

    def __init__(self, tab: np.ndarray):
        self.tab = tab

    @property
    def cfg(self) -> np.ndarray:
        """The rule table under the engine adapter's name for it (engines.core.adapter)."""
        return self.tab

    @property
    def aux(self) -> np.ndarray:
        """The adapter's float table: none here (the policies read their weights only)."""
        return _NO_AUX

    def __getattr__(self, name: str):
        if name in PARAMS.by_name:
            return PARAMS.get(self.tab, name)
        raise AttributeError(f"KernelParams has no slot {name!r} (see state.PARAMS)")

    def __getstate__(self):
        return self.tab

    def __setstate__(self, tab):
        self.tab = tab

    def __repr__(self) -> str:
        return "KernelParams(" + ", ".join(f"{p}={PARAMS.get(self.tab, p)}" for p in PARAMS.by_name
                                           if PARAMS.sizes[p] == 1) + ")"

    def card_types(self) -> np.ndarray:
        return self.tab[K_TYPE:K_TYPE + self.n_cards]

    def card_values(self) -> np.ndarray:
        return self.tab[K_VALUE:K_VALUE + self.n_cards]

    def card_districts(self) -> np.ndarray:
        return self.tab[K_DIST:K_DIST + self.n_cards]


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
    stock = g("supply.floor_stock")
    nb = nd * bpd
    max_b = stock + len(start) + 1

    def padded(values, size):
        out = np.zeros(size, np.int64)
        out[:len(values)] = values
        return out

    items = np.zeros(MAX_STACKS * MAX_STACK_ITEMS, np.int64)
    for i, st in enumerate(stacks):
        items[i * MAX_STACK_ITEMS:i * MAX_STACK_ITEMS + len(st)] = st
    tab = PARAMS.fill(
        variant.values,
        n_players=p, n_blocks=nb, n_green=len(greens), n_stacks=len(stacks),
        n_auctions=max(1, g("game.rounds") * len(stacks)), n_cards=nc, n_start=len(start),
        max_buildings=max_b,
        # a billboard that costs a card is listed once per block and hand card (a hand holds at most nc)
        max_actions=max(2 * nc + nb * (nc if g("construction.billboard_costs_card") else 1) + 2, 2 * max_b + 2,
                        max_b * bpd * 2 + 2, nb + 2),
        type=padded(ctype, MAX_CARDS), value=padded(cval, MAX_CARDS), dist=padded(cdist, MAX_CARDS),
        green=padded(greens, PARAMS.sizes["green"]),
        start_h=padded([h for h, r in start], MAX_START), start_r=padded([r for h, r in start], MAX_START),
        stack_len=padded([len(st) for st in stacks], MAX_STACKS), stack_items=items,
    ).astype(np.int32)
    assert tab.shape[0] == K_SIZE
    return KernelParams(tab)
