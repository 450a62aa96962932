"""Text rendering of a Project Skyline position (pure Python, outside the kernels).

The map: one cell per grid position, a space as its area letter (capital: a construction-site
tile lies there), then height and top-floor owner ("a3B" = area a, 3 floors, seat B on top;
"a.." unbuilt, "a##" restricted, "a$2" / "a^" unbuilt with a money / upgrade bonus), "~~~"
water, "(L)" the landmark, "[1]" a monument. Then the markets, money, upgrade tracks, hands.
"""
from __future__ import annotations

from engines.project_skyline.params import COLOUR_SHORT, COLOURS, KernelParams
from engines.project_skyline.state import (
    A_BUY, A_DISC, A_DONE, A_PLAY, A_SELL_DISC, A_SELL_HAND, A_SELL_SKIP, A_SITE, A_SKIP, A_SPACE, A_STOP, A_SYM,
    A_TAKE, A_UPG, B_A_SCORED, B_A_SITE, B_BTAKEN, B_H, B_TOP, ENDING_NAMES, M_ENDING, M_PHASE, M_PLAYER, M_ROUND, M_SYMBOL,
    MK_BASIC, MK_UMK, MK_UPG_N, P_DISC_N, P_DRAW_N, P_FLOORS, P_HAND, P_HAND_N, P_MONEY, P_UPOS, PB, PBASE,
    PH_OVER, PHASE_NAMES, State, n_players_of,
)

SEATS = "ABCD"


def render_map(st: State, kp: KernelParams) -> str:
    d, mp, cfg = st.data, kp.map, kp
    grid = {}
    lines = mp_lines(mp)
    for (r, c), tok in lines.items():
        if (r, c) in mp.space_of:
            s = mp.space_of[(r, c)]
            a = mp.space_area[s]
            letter = tok.upper() if d[B_A_SITE + a] else tok
            h, top = int(d[B_H + s]), int(d[B_TOP + s])
            if cfg.sp_restricted[s]:
                cell = f"{letter}##"
            elif h:
                cell = f"{letter}{h}{SEATS[top]}"
            elif cfg.sp_bmoney[s] and not d[B_BTAKEN + s]:
                cell = f"{letter}${cfg.sp_bmoney[s]}"
            elif cfg.sp_bupg[s] and not d[B_BTAKEN + s]:
                cell = f"{letter}^ "
            else:
                cell = f"{letter}.."
        elif tok == "~":
            cell = "~~~"
        elif tok == "L":
            cell = "(L)"
        elif tok.isdigit():
            cell = f"[{tok}]"
        else:
            cell = "   "
        grid[(r, c)] = cell
    out = []
    for r in range(mp.rows):
        out.append(" ".join(grid.get((r, c), "   ") for c in range(mp.cols)))
    legend = " ".join(f"{a}:{COLOUR_SHORT[mp.area_colour[i]]}{'*' if d[B_A_SCORED + i] else ''}"
                       for i, a in enumerate(mp.area_names))
    out.append(f"areas (colour G green, Y grey, W white, R red; * scored): {legend}")
    return "\n".join(out)


def mp_lines(mp) -> dict:
    text = open(mp.source).read()
    import tomllib
    grid = tomllib.loads(text)["grid"]
    rows = [ln.split() for ln in grid.strip("\n").splitlines() if ln.strip()]
    return {(r, c): t for r, row in enumerate(rows) for c, t in enumerate(row)}


def card_code(kp: KernelParams, t: int) -> str:
    return "?" if t < 0 else kp.cards[t].code


def render(st: State, kp: KernelParams, viewer: int | None = None) -> str:
    """The whole position; with `viewer`, other hands are shown as counts only."""
    d = st.data
    P = n_players_of(st)
    ph = int(d[M_PHASE])
    head = f"Project Skyline ({kp.map.name})  round {int(d[M_ROUND]) + 1}  phase {PHASE_NAMES[ph]}"
    if ph != PH_OVER:
        sym = int(d[M_SYMBOL])
        head += f"  to move: seat {SEATS[int(d[M_PLAYER])]}" + (f"  symbol {COLOURS[sym]}" if sym >= 0 else "")
    else:
        head += f"  ending: {ENDING_NAMES[int(d[M_ENDING])]}"
    basic = "  ".join(f"{COLOURS[c]} {card_code(kp, int(kp.basic_type[c]))} x{int(d[MK_BASIC + c])} "
                      f"({kp.cards[int(kp.basic_type[c])].price})" for c in range(4))
    upg = " | ".join(card_code(kp, int(d[MK_UMK + j])) for j in range(4))
    lines = [head, render_map(st, kp), f"Basic market: {basic}",
             f"Upgrade market (left to right): {upg}   draw pile {int(d[MK_UPG_N])}"]
    costs = [int(x) for x in kp.costs[:kp.n_costs]]
    for p in range(P):
        b = PBASE + p * PB
        u = int(d[b + P_UPOS])
        track = " ".join(f"[{c}]" if i == u else f" {c} " for i, c in enumerate(costs)) + (" [top]" if u >= len(costs) else "")
        n = int(d[b + P_HAND_N])
        if viewer is None or viewer == p:
            hand = ", ".join(card_code(kp, int(d[b + P_HAND + i])) for i in range(n))
        else:
            hand = f"{n} cards"
        lines.append(f"seat {SEATS[p]}: money {int(d[b + P_MONEY])}  floors left {int(d[b + P_FLOORS])}  "
                     f"upgrade track {track}  hand [{hand}]  draw {int(d[b + P_DRAW_N])}  "
                     f"discard {int(d[b + P_DISC_N])}")
    return "\n".join(lines)


# actions without an argument
NAMED_ACTIONS = {A_SKIP: "neither buy nor upgrade", A_STOP: "stop playing", A_SELL_SKIP: "sell nothing",
                 A_DONE: "draw"}


def action_name(st: State, kp: KernelParams, a: int) -> str:
    """Action `a` of the seat to move, in words."""
    d, mp = st.data, kp.map
    hand = PBASE + max(int(d[M_PLAYER]), 0) * PB + P_HAND

    def held(h):
        return card_code(kp, int(d[hand + h]))

    def buy(c):
        t = int(kp.basic_type[c])
        return f"buy {card_code(kp, t)} ({COLOURS[c]} pile, {kp.cards[t].price} money)"

    def build(s):
        r, c, area = mp.cells[s]
        return f"build on row {r} col {c} (area {area})"

    # each action range [first, end) and its argument in words (the argument: a - first)
    ranges = (
        (A_BUY, A_UPG, buy),
        (A_UPG, A_SYM, lambda i: f"upgrade {held(i // 4)} into {card_code(kp, int(d[MK_UMK + i % 4]))} "
                                 f"(slot {i % 4})"),
        (A_SYM, A_PLAY, lambda c: f"play {COLOURS[c]}"),
        (A_PLAY, A_STOP, lambda h: f"play {held(h)}"),
        (A_SPACE, A_TAKE, build),
        (A_TAKE, A_SELL_HAND, lambda c: f"take {card_code(kp, int(kp.basic_type[c]))}"),
        (A_SELL_HAND, A_SELL_DISC, lambda h: f"sell {held(h)} from hand"),
        (A_SELL_DISC, A_SELL_SKIP, lambda t: f"sell {card_code(kp, t)} from discard"),
        (A_SITE, A_DISC, lambda area: f"construction site to area {mp.area_names[area]}"),
        (A_DISC, A_DONE, lambda h: f"discard {held(h)}"),
    )
    if a in NAMED_ACTIONS:
        return NAMED_ACTIONS[a]
    for first, end, say in ranges:
        if first <= a < end:
            return say(a - first)
    return f"action {a}"
