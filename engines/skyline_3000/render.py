"""Text rendering of a Skyline 3000 state (pure Python, outside the kernels)."""
from __future__ import annotations

from engines.skyline_3000.state import (
    B_BB, B_BLDH, B_BLDO, B_GREEN, B_LVAC, B_NBLD, B_NMALL, B_NSPACE, B_ROOF, B_TOP, B_VAC,
    C_KEY, C_PHASE, C_ROUND, C_STOCK, P_BILLBOARDS, P_NBUILD, P_NHAND, P_ROOFS, P_SCORE,
    PI_DECK, PI_DISC, PI_TOP, PL_H, PL_R,
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
