"""Text rendering of a Skyline 3000 state, its actions' names and a game's result (pure Python,
outside the kernels; the step API's answers, engine.py)."""
from __future__ import annotations

from typing import Any

import numpy as np

from engines.skyline_3000.state import (
    A_SHIFT, ACT_BID, ACT_BILLBOARD, ACT_CONTRACT, ACT_DRAW, ACT_FLOOR, ACT_FLOOR_TARGET, ACT_INSTALL, ACT_NOACT,
    ACT_PASS, ACT_PLACE, ACT_ROOF, ACT_ROOF_TARGET, B_BB, B_BLDH, B_BLDO, B_GREEN, B_LVAC, B_NBLD, B_NMALL, B_NSPACE,
    B_ROOF, B_TOP, B_VAC, BB_BLOCK_MASK, BB_CARD_SHIFT, BID_FLAG, C_ITEM, C_KEY, C_PHASE, C_ROUND, C_STALLED, C_STOCK,
    DETAIL_MASK, P_BILLBOARDS, P_NBUILD, P_NHAND, P_ROOFS, P_SCORE, PI_DECK, PI_DISC, PI_TOP, PL_H, PL_R,
)

DISTRICT_NAMES = ("Red", "Yellow", "Blue", "Green", "Purple", "White")
SEAT_NAMES = ("Orange", "Purple", "Green", "White")
ROOF_LABEL = ("no", "curved", "pointed")
ITEM_LABEL = ("Greenspace", "Spaceport", "Megamall")
CARD_TYPE_LABEL = ("Floor", "Roof", "Contract")
PHASES = ("construction", "place floor", "roof", "install", "bid", "place item", "draw", "over")


def render(st, kp) -> str:
    """Board (blocks by district), plants, scores and hand sizes as text."""
    ctrl, board, plants, players, piles = st.ctrl, st.board, st.plants, st.players, st.piles
    P = kp.n_players
    lines = [f"Round {int(ctrl[C_ROUND]) + 1}  phase {PHASES[int(ctrl[C_PHASE])]}  "
             f"Key: seat {int(ctrl[C_KEY])}  floors in stock: {int(ctrl[C_STOCK])}"]
    for d in range(kp.n_districts):
        lines.append(f"{DISTRICT_NAMES[d]} district")
        for k in range(d * kp.bpd, (d + 1) * kp.bpd):
            b = board[k]
            blds = " ".join(f"{int(b[B_BLDO + j])}:{int(b[B_BLDH + j])}" for j in range(int(b[B_NBLD])))
            large = []
            if b[B_NSPACE]:
                large.append("Spaceport" * 1 + (f" x{int(b[B_NSPACE])}" if b[B_NSPACE] > 1 else ""))
            if b[B_NMALL]:
                large.append("Megamall" + (f" x{int(b[B_NMALL])}" if b[B_NMALL] > 1 else ""))
            if b[B_LVAC]:
                large.append(f"{int(b[B_LVAC])} large free")
            bbs = ",".join(f"{q}x{int(b[B_BB + q])}" for q in range(P) if b[B_BB + q])
            lines.append(
                f"  block {k} [{ROOF_LABEL[int(b[B_ROOF])]:>7} roof, top {int(b[B_TOP])}] "
                f"free {int(b[B_VAC])}  green {int(b[B_GREEN])}  billboards {bbs or '-'}  "
                f"large: {', '.join(large) or '-'}  buildings (seat:floors) {blds or '-'}")
    for p in range(P):
        nb = int(players[p, P_NBUILD])
        plant = " ".join(f"{int(plants[p, PL_H, i])}{'cp'[int(plants[p, PL_R, i]) - 1] if plants[p, PL_R, i] else '?'}"
                         for i in range(nb))
        lines.append(f"seat {p}: score {int(players[p, P_SCORE])}  cards {int(players[p, P_NHAND])}  "
                     f"billboards {int(players[p, P_BILLBOARDS])}  roofs c{int(players[p, P_ROOFS + 1])}"
                     f"/p{int(players[p, P_ROOFS + 2])}  plant: {plant or '-'}")
    decks = []
    for t in range(3):
        top = int(piles[t, PI_TOP])
        top_s = f"{CARD_TYPE_LABEL[t]} {int(kp.card_values()[top])}" if top >= 0 else "?"
        decks.append(f"{CARD_TYPE_LABEL[t]}: {int(piles[t, PI_DECK])} (top {top_s}), {int(piles[t, PI_DISC])} discarded")
    lines.append("decks  " + "; ".join(decks))
    return "\n".join(lines)


def card_name(kp, c: int) -> str:
    """A card by its type and value (a Contract with its district)."""
    t = int(kp.card_types()[c])
    v = int(kp.card_values()[c])
    if t == 2:
        return f"Contract({DISTRICT_NAMES[int(kp.card_districts()[c])]}) {v}"
    return f"{CARD_TYPE_LABEL[t]} {v}"


def action_name(game, action: int) -> str:
    """What `action` does, in words, for the seat to move in `game` (a step Game)."""
    kp = game.kp
    a = int(action)
    kind = ACT_BID if a & BID_FLAG else a >> A_SHIFT
    d = a & DETAIL_MASK
    p = game.current_player()
    NB = kp.n_blocks
    bpd = kp.bpd

    def block(k: int) -> str:
        return f"{DISTRICT_NAMES[k // bpd]} block {k % bpd + 1}"

    if kind == ACT_PASS:
        return "pass"
    if kind == ACT_FLOOR:
        return f"play {card_name(kp, d)} to build"
    if kind == ACT_ROOF:
        return f"play {card_name(kp, d)} to roof a building"
    if kind == ACT_CONTRACT:
        return f"play {card_name(kp, d)} to install a building"
    if kind == ACT_NOACT:
        return f"play {card_name(kp, d)} without acting"
    if kind == ACT_BILLBOARD:
        c = (d >> BB_CARD_SHIFT) - 1
        where = f"place a billboard in {block(d & BB_BLOCK_MASK)}"
        return where if c < 0 else f"{where}, paying with {card_name(kp, c)}"
    if kind == ACT_FLOOR_TARGET:
        if p >= 0 and d == game.state.players[p, P_NBUILD]:
            return "start a new building with a floor"
        h = game.state.plants[p, PL_H, d] if p >= 0 else 0
        return f"add a floor to building {d} ({h} floors)"
    if kind == ACT_ROOF_TARGET:
        i, r = d >> 1, (d & 1) + 1
        h = game.state.plants[p, PL_H, i] if p >= 0 else 0
        return f"put a {ROOF_LABEL[r]} roof on building {i} ({h} floors)"
    if kind == ACT_INSTALL:
        onbb = d & 1
        k = (d >> 1) % NB
        i = (d >> 1) // NB
        h = game.state.plants[p, PL_H, i] if p >= 0 else 0
        r = game.state.plants[p, PL_R, i] if p >= 0 else 0
        where = "on own billboard in " if onbb else "in "
        return f"install {h}-floor {ROOF_LABEL[r]} building {where}{block(k)}"
    if kind == ACT_PLACE:
        return f"place the {ITEM_LABEL[int(game.state.ctrl[C_ITEM])]} in {block(d)}"
    if kind == ACT_DRAW:
        return f"draw from the {CARD_TYPE_LABEL[d]} deck"
    if kind == ACT_BID:
        m = a ^ BID_FLAG
        cards = [c for c in range(kp.n_cards) if (m >> c) & 1]
        if not cards:
            return "bid nothing (STOP first) = 0"
        vals = kp.card_values()
        return "bid " + " + ".join(card_name(kp, c) for c in cards) + f" = {int(sum(vals[c] for c in cards))}"
    return f"action {a}"


def result(game) -> dict[str, Any]:
    """Final ranks, winners and how the tie (if any) was settled."""
    from engines.skyline_3000.rules import final_result_nb
    P = game.n_players
    score = np.zeros(P, np.int64)
    rank = np.zeros(P, np.int64)
    hv = np.zeros(P, np.int64)
    n_win, n_top, winner, margin, tb = final_result_nb(game.state.pub, game.state.hands, score, rank, hv)
    winners = [int(p) for p in range(P) if rank[p] == 1]
    return {
        "scores": [int(x) for x in game.scores()],
        "ranks": rank.tolist(),
        "hand_values": hv.tolist(),
        "winners": winners,
        "shared": n_win > 1,
        "tie_break": "hand value" if tb else ("shared" if n_win > 1 else "none"),
        "stalled": bool(game.state.ctrl[C_STALLED]),
    }
