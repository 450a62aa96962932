"""Project Skyline rule parameters: the variant schema, the card and map data files, their
validation, and the compilation of both into the one int64 rule vector the kernels read.

Cards (cards/<name>.toml) and maps (maps/<name>.toml) are data a designer edits; the file
headers describe their keys. A bad file is refused with `DataError`, naming the file, the row
or space and the reason. The kernels never see names: cards become rows of opcodes, maps
become per-space and per-area tables.

Effect opcodes (one effect = (op, n, arg) in cfg[K_EFF + (t * MAX_EFF + e) * 3 ...]):

    OP_BUILD  n floors, each on its own space; arg = target kind (TG_*)
    OP_STACK  n floors on one space; arg = target kind
    OP_MONEY  n money
    OP_DRAW   n cards, arg = cards when alone / tied poorest (once per turn)
    OP_TAKE   a free Basic market card
    OP_SELL   remove a card from hand or discard, receive n
    OP_EXTRA  play one more card of any symbol
"""
from __future__ import annotations

import tomllib
from collections import deque
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from engines.core.layout import Param, ParamLayout
from engines.core.variant import Rule, Variant, VariantLoader

HERE = Path(__file__).parent
CARDS_DIR = HERE / "cards"
MAPS_DIR = HERE / "maps"

# hard limits of the array layouts (state.py)
MAX_PLAYERS = 4
MAX_SP = 96          # buildable spaces on a map
MAX_AREAS = 24
MAX_MON = 10
MAX_NB = 6           # neighbours of a space (4 orthogonal + ferries)
MAX_MON_NB = 4
MAX_T = 64           # card types
MAX_EFF = 3          # effects per card
MAX_START = 12       # start cards per player
MAX_UPG = 40         # upgrade deck
N_COLOURS = 4
MAX_COST = 6         # upgrade track steps
MAX_AREA_SP = 8      # spaces in one area
MAX_LAND = 8         # spaces next to the landmark

COLOURS = ("green", "grey", "white", "red")
COLOUR_SHORT = ("G", "Y", "W", "R")
TARGETS = COLOURS + ("water", "monument", "building", "any")
TG_WATER, TG_MONUMENT, TG_BUILDING, TG_ANY = 4, 5, 6, 7
OP_NONE, OP_BUILD, OP_STACK, OP_MONEY, OP_DRAW, OP_TAKE, OP_SELL, OP_EXTRA = range(8)
EFFECT_WORDS = ("build", "stack", "money", "draw", "take", "sell", "extra")
KIND_START, KIND_BASIC, KIND_UPGRADE = 0, 1, 2
KINDS = ("start", "basic", "upgrade")
BONUS_MONEY, BONUS_UPGRADE, BONUS_TAKE = 0, 1, 2
MON_CHAIN, MON_COUNT = 0, 1
END_TOWERS, END_AREAS = 0, 1

AREA_TIE_RULES = ("second_stays", "no_second")
TIE_SECOND_STAYS, TIE_NO_SECOND = 0, 1
COMPLETE_RULES = ("last_free", "every_space")         # scoring.complete_at
BEHIND_RULES = ("any_tie", "one_other", "alone")      # turn.behind_ties (U-17's "furthest behind")
BEHIND_ANY_TIE, BEHIND_ONE_OTHER, BEHIND_ALONE = 0, 1, 2

MAP_NAMES = tuple(sorted(p.stem for p in MAPS_DIR.glob("*.toml")))
CARD_SETS = tuple(sorted(p.stem for p in CARDS_DIR.glob("*.toml")))


class DataError(ValueError):
    """A card or map file that cannot be played: names the file, the row or space, the reason."""

    def __init__(self, source: str, where: str, reason: str):
        self.source, self.where, self.reason = source, where, reason
        super().__init__(f"{source}: {where}: {reason}")


# ---------------------------------------------------------------- cards

class Card(NamedTuple):
    code: str        # display code: "S-01", "B-03", "U-17g" (upgrade: set colour initial)
    base: str        # printed code: "U-17"
    kind: int
    symbols: int     # bit c: colour c
    value: int
    price: int
    copies: int
    effects: tuple   # ((op, n, arg), ...)
    pile: int        # basic: the market pile (colour of its first symbol); else -1
    name: str        # short descriptive name (our own; the rulebook prints codes only)


def parse_effect(text: str, source: str, where: str) -> tuple[int, int, int]:
    """One effect word phrase -> (op, n, arg)."""
    words = str(text).split()
    if not words:
        raise DataError(source, where, "empty effect")
    w = words[0]
    if w not in EFFECT_WORDS:
        raise DataError(source, where, f"unknown effect word '{w}' (known: {', '.join(EFFECT_WORDS)})")

    def num(i):
        try:
            n = int(words[i])
        except (IndexError, ValueError):
            raise DataError(source, where, f"'{text}': '{w}' needs a number") from None
        if not 0 < n <= 9:
            raise DataError(source, where, f"'{text}': the number must be 1..9")
        return n

    if w in ("build", "stack"):
        if len(words) != 3:
            raise DataError(source, where, f"'{text}': write '{w} N WHERE'")
        if words[2] not in TARGETS:
            raise DataError(source, where, f"'{text}': unknown place '{words[2]}' (known: {', '.join(TARGETS)})")
        return (OP_BUILD if w == "build" else OP_STACK), num(1), TARGETS.index(words[2])
    if w == "money":
        if len(words) != 2:
            raise DataError(source, where, f"'{text}': write 'money N'")
        return OP_MONEY, num(1), 0
    if w == "draw":
        if len(words) == 2:
            n = num(1)
            return OP_DRAW, n, n
        if len(words) == 4 and words[2] == "behind":
            return OP_DRAW, num(1), num(3)
        raise DataError(source, where, f"'{text}': write 'draw N' or 'draw N behind M'")
    if w == "sell":
        if len(words) != 2:
            raise DataError(source, where, f"'{text}': write 'sell N'")
        return OP_SELL, num(1), 0
    if len(words) != 1:
        raise DataError(source, where, f"'{text}': '{w}' takes nothing after it")
    return (OP_TAKE if w == "take" else OP_EXTRA), 1, 0


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise DataError(str(path), "(file)", f"not valid TOML: {exc}") from None


def _card_rows(path: Path, seen: tuple = ()) -> list[tuple[str, dict]]:
    src = str(path)
    if src in seen:
        raise DataError(src, "base", "card files extend each other in a loop")
    data = _read_toml(path)
    unknown = set(data) - {"card", "base"}
    if unknown:
        raise DataError(src, sorted(unknown)[0], "unknown key (a card file has 'card' rows and an optional 'base')")
    rows = [(f"{src} row {i + 1}", r) for i, r in enumerate(data.get("card", []))]
    if "base" not in data:
        return rows
    base = CARDS_DIR / f"{data['base']}.toml"
    if not base.is_file():
        raise DataError(src, "base", f"no card file '{data['base']}' (known: {', '.join(CARD_SETS)})")
    out = _card_rows(base, seen + (src,))
    index = {r.get("code"): i for i, (_, r) in enumerate(out)}
    for where, r in rows:
        if r.get("code") in index:
            out[index[r.get("code")]] = (where, r)
        else:
            out.append((where, r))
    return out


CARD_KEYS = {"code", "name", "kind", "symbols", "value", "price", "copies", "sets", "effect"}
MAX_NAME = 24        # characters in a card name (it stands beside the code in report tables and legends)


def load_cards(path: Path | str) -> list[Card]:
    """The card types of one card file (upgrade rows expanded per set), validated."""
    path = Path(path)
    if not path.is_file():
        path = CARDS_DIR / f"{path}.toml"
    if not path.is_file():
        raise DataError(str(path), "(file)", f"no such card file (known: {', '.join(CARD_SETS)})")
    cards: list[Card] = []
    codes = set()
    for where, r in _card_rows(path):
        code = r.get("code")
        where = f"{where} ({code})" if code else where
        if not isinstance(code, str) or not code:
            raise DataError(where.split(" (")[0], where, "a card needs a code")
        bad = set(r) - CARD_KEYS
        if bad:
            raise DataError(str(path), where, f"unknown key '{sorted(bad)[0]}' (known: {', '.join(sorted(CARD_KEYS))})")
        if code in codes:
            raise DataError(str(path), where, "code used twice")
        codes.add(code)
        name = r.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or name != name.strip():
            raise DataError(str(path), where, f"a card needs a name: a string of 1..{MAX_NAME} characters "
                                              f"without outer blanks, not {name!r}")
        kind = r.get("kind")
        if kind not in KINDS:
            raise DataError(str(path), where, f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        effects = tuple(parse_effect(e, str(path), where) for e in r.get("effect", []))
        if not effects or len(effects) > MAX_EFF:
            raise DataError(str(path), where, f"a card has 1..{MAX_EFF} effects")
        value = r.get("value", 0)
        if not isinstance(value, int) or not -20 <= value <= 20:
            raise DataError(str(path), where, f"value must be an integer in -20..20, not {value!r}")
        syms = r.get("symbols", [])
        k = KINDS.index(kind)
        if k == KIND_UPGRADE:
            sets = r.get("sets", [])
            if syms != ["set"]:
                raise DataError(str(path), where, "an upgrade row has symbols = [\"set\"] (one card per set colour)")
            if not sets or any(s not in COLOURS for s in sets) or len(set(sets)) != len(sets):
                raise DataError(str(path), where, f"sets must be distinct colours among {', '.join(COLOURS)}")
            for s in sets:
                cards.append(Card(f"{code}{s[0] if s != 'grey' else 'y'}", code, k, 1 << COLOURS.index(s), value,
                                  0, 1, effects, -1, name))
            continue
        if not syms or any(s not in COLOURS for s in syms):
            raise DataError(str(path), where, f"symbols must be colours among {', '.join(COLOURS)}, not {syms!r}")
        mask = sum(1 << COLOURS.index(s) for s in set(syms))
        price, copies = r.get("price", 0), r.get("copies", 1)
        if k == KIND_BASIC:
            if not isinstance(price, int) or not 0 <= price <= 30:
                raise DataError(str(path), where, "a basic card needs a price in 0..30")
            if not isinstance(copies, int) or not 1 <= copies <= 12:
                raise DataError(str(path), where, "copies must be 1..12")
        pile = COLOURS.index(syms[0]) if k == KIND_BASIC else -1
        cards.append(Card(code, code, k, mask, value, price, copies, effects, pile, name))
    if len(cards) > MAX_T:
        raise DataError(str(path), "(file)", f"at most {MAX_T} card types")
    start = [c for c in cards if c.kind == KIND_START]
    if not 1 <= len(start) <= MAX_START:
        raise DataError(str(path), "(file)", f"the start deck needs 1..{MAX_START} start cards")
    for col in range(N_COLOURS):
        pile = [c for c in cards if c.kind == KIND_BASIC and c.pile == col]
        if not pile:
            raise DataError(str(path), "(file)", f"the Basic market has no pile for colour {COLOURS[col]} "
                                                 "(a basic card's first symbol names its pile)")
        if len(pile) > 1:
            raise DataError(str(path), pile[1].code, f"a second Basic pile for colour {COLOURS[col]}")
    n_upg = sum(1 for c in cards if c.kind == KIND_UPGRADE)
    if not 4 <= n_upg <= MAX_UPG:
        raise DataError(str(path), "(file)", f"the upgrade deck needs 4..{MAX_UPG} cards (the market shows 4)")
    return cards


# ---------------------------------------------------------------- maps

class Map(NamedTuple):
    name: str
    source: str
    rows: int
    cols: int
    cells: list            # [(row, col, token)] of buildable spaces, in space order
    space_of: dict         # (row, col) -> space
    area_names: list       # area letter per area index
    area_colour: list
    space_area: list
    neighbours: list       # per space: neighbour spaces (orthogonal + ferries)
    water: list            # per space: 1 if adjacent to water
    landmark_adj: list     # per space: 1 if adjacent to the landmark
    mon_names: list
    mon_spaces: list       # per monument: adjacent spaces
    mon_req: list
    mon_kind: list
    mon_amt: list
    bonus_money: list
    bonus_upg: list
    restricted: list       # per space
    site_area: int
    rule: int
    end_kind: int
    end_table: list
    tower_money: int
    area_scoring: list
    has_landmark: bool


def _bonus(text: str, source: str, where: str, allow_take: bool) -> tuple[int, int]:
    w = str(text).split()
    if len(w) == 2 and w[0] == "money" and w[1].isdigit() and 0 < int(w[1]) <= 20:
        return BONUS_MONEY, int(w[1])
    if w == ["upgrade"]:
        return BONUS_UPGRADE, 1
    if w == ["take"] and allow_take:
        return BONUS_TAKE, 1
    known = "'money N', 'upgrade'" + (", 'take'" if allow_take else "")
    raise DataError(source, where, f"unknown bonus '{text}' (known: {known})")


MAP_KEYS = {"name", "monument_rule", "end_condition", "tower_money", "end_table", "area_scoring", "grid", "areas",
            "monuments", "ferries", "bonus", "restricted", "construction_site"}


def load_map(name: str | Path) -> Map:
    path = Path(name)
    if not path.is_file():
        path = MAPS_DIR / f"{name}.toml"
    src = str(path)
    if not path.is_file():
        raise DataError(src, "(file)", f"no such map (known: {', '.join(MAP_NAMES)})")
    m = _read_toml(path)
    bad = set(m) - MAP_KEYS
    if bad:
        raise DataError(src, sorted(bad)[0], f"unknown key (known: {', '.join(sorted(MAP_KEYS))})")
    for key in ("grid", "areas", "monuments", "monument_rule", "end_condition", "area_scoring"):
        if key not in m:
            raise DataError(src, key, "missing")
    rule = {"chain": MON_CHAIN, "count": MON_COUNT}.get(m["monument_rule"])
    if rule is None:
        raise DataError(src, "monument_rule", "must be 'chain' (NYC) or 'count' (Tokyo)")
    end_kind = {"towers": END_TOWERS, "areas": END_AREAS}.get(m["end_condition"])
    if end_kind is None:
        raise DataError(src, "end_condition", "must be 'towers' (NYC) or 'areas' (Tokyo)")
    lines = [ln.split() for ln in m["grid"].strip("\n").splitlines() if ln.strip()]
    rows, cols = len(lines), max(len(ln) for ln in lines)
    grid = {}
    for r, ln in enumerate(lines):
        for c, tok in enumerate(ln):
            grid[(r, c)] = tok
    areas_decl = m["areas"]
    cells, space_of, mons, landmark = [], {}, {}, []
    for (r, c), tok in sorted(grid.items()):
        where = f"space row {r} col {c} ('{tok}')"
        if tok in ("~", "."):
            continue
        if tok == "L":
            landmark.append((r, c))
        elif tok.isdigit():
            if tok in mons:
                raise DataError(src, where, f"monument {tok} appears twice")
            mons[tok] = (r, c)
        elif len(tok) == 1 and tok.islower():
            if tok not in areas_decl:
                raise DataError(src, where, f"area '{tok}' has no colour in 'areas'")
            space_of[(r, c)] = len(cells)
            cells.append((r, c, tok))
        else:
            raise DataError(src, where, "unknown grid token (a lowercase area letter, '~', '.', 'L' or a digit)")
    if len(cells) > MAX_SP:
        raise DataError(src, "grid", f"at most {MAX_SP} spaces")
    area_names = sorted(areas_decl)
    if len(area_names) > MAX_AREAS:
        raise DataError(src, "areas", f"at most {MAX_AREAS} areas")
    present = {t for _, _, t in cells}
    for a in area_names:
        if areas_decl[a] not in COLOURS:
            raise DataError(src, f"area '{a}'", f"colour must be one of {', '.join(COLOURS)}, not {areas_decl[a]!r}")
        if a not in present:
            raise DataError(src, f"area '{a}'", "area with no spaces on the grid")
    if rule == MON_CHAIN and len(landmark) != 1:
        raise DataError(src, "grid", "a 'chain' map needs exactly one landmark 'L'")
    if rule == MON_COUNT and landmark:
        raise DataError(src, "grid", "a 'count' map has no landmark")
    n = len(cells)

    def at(pair, where):
        if (not isinstance(pair, list) or len(pair) != 2 or tuple(pair) not in space_of):
            raise DataError(src, where, f"{pair!r} is not a buildable space on the map")
        return space_of[tuple(pair)]

    nb = [[] for _ in range(n)]
    water = [0] * n
    land = [0] * n
    for s, (r, c, _) in enumerate(cells):
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            t = grid.get((r + dr, c + dc))
            if (r + dr, c + dc) in space_of:
                nb[s].append(space_of[(r + dr, c + dc)])
            elif t == "~":
                water[s] = 1
            elif t == "L":
                land[s] = 1
    for i, f in enumerate(m.get("ferries", [])):
        where = f"ferries[{i}]"
        if not isinstance(f, list) or len(f) != 4:
            raise DataError(src, where, "a ferry is [row, col, row, col]")
        a, b = at(f[:2], where), at(f[2:], where)
        if a == b or b in nb[a]:
            raise DataError(src, where, "a ferry joins two different, not yet adjacent spaces")
        nb[a].append(b)
        nb[b].append(a)
    for s in range(n):
        if len(nb[s]) > MAX_NB:
            raise DataError(src, f"space row {cells[s][0]} col {cells[s][1]}", f"more than {MAX_NB} neighbours")
    mon_decl = m["monuments"]
    if len(mon_decl) > MAX_MON:
        raise DataError(src, "monuments", f"at most {MAX_MON} monuments")
    mon_names, mon_spaces, mon_req, mon_kind, mon_amt = [], [], [], [], []
    for i, md in enumerate(mon_decl):
        mid = str(md.get("id"))
        where = f"monument {mid}"
        if mid not in mons:
            raise DataError(src, where, "monument off the map (no such digit on the grid)")
        r, c = mons[mid]
        adj = [space_of[(r + dr, c + dc)] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if (r + dr, c + dc) in space_of]
        if not adj:
            raise DataError(src, where, "no buildable space next to it")
        req = md.get("requires", 1)
        if rule == MON_COUNT and (not isinstance(req, int) or not 1 <= req <= len(adj)):
            raise DataError(src, where, f"requires must be 1..{len(adj)} (its adjacent spaces)")
        kind, amt = _bonus(md.get("bonus", ""), src, where, allow_take=rule == MON_COUNT)
        mon_names.append(mid)
        mon_spaces.append(adj)
        mon_req.append(req)
        mon_kind.append(kind)
        mon_amt.append(amt)
    missing = set(mons) - set(mon_names)
    if missing:
        raise DataError(src, f"monument {sorted(missing)[0]}", "on the grid but without a bonus in 'monuments'")
    bm, bu = [0] * n, [0] * n
    for i, b in enumerate(m.get("bonus", [])):
        s = at(b.get("at"), f"bonus[{i}]")
        kind, amt = _bonus(b.get("bonus", ""), src, f"bonus[{i}]", allow_take=False)
        if kind == BONUS_MONEY:
            bm[s] = amt
        else:
            bu[s] = 1
    restricted = [0] * n
    for i, pair in enumerate(m.get("restricted", [])):
        restricted[at(pair, f"restricted[{i}]")] = 1
    site = m.get("construction_site")
    if site not in area_names:
        raise DataError(src, "construction_site", f"'{site}' is not an area of the map")
    sc = m["area_scoring"]
    if (not isinstance(sc, list) or not 1 <= len(sc) <= 4
            or any(not isinstance(x, list) or len(x) != 2 for x in sc)):
        raise DataError(src, "area_scoring", "a list of up to 4 [floors at least, money] pairs")
    et = m.get("end_table", [])
    if end_kind == END_AREAS and (not et or len(et) > 4 or any(len(x) != 2 for x in et)):
        raise DataError(src, "end_table", "an 'areas' map needs up to 4 [areas at least, money] pairs")
    area_of = {a: i for i, a in enumerate(area_names)}
    space_area = [area_of[t] for _, _, t in cells]
    for a in area_names:
        if sum(1 for s in range(n) if cells[s][2] == a) > MAX_AREA_SP:
            raise DataError(src, f"area '{a}'", f"more than {MAX_AREA_SP} spaces")
        if all(restricted[s] for s in range(n) if cells[s][2] == a):
            raise DataError(src, f"area '{a}'", "every space is restricted: the area could never be built")
    return Map(m.get("name", path.stem), src, rows, cols, cells, space_of, area_names,
               [COLOURS.index(areas_decl[a]) for a in area_names], space_area, nb, water, land, mon_names,
               mon_spaces, mon_req, mon_kind, mon_amt, bm, bu, restricted, area_of[site], rule, end_kind,
               sorted(et, reverse=True), int(m.get("tower_money", 5)), sorted(sc, reverse=True), bool(landmark))


# ---------------------------------------------------------------- the rule vector, declared once

PARAMS = ParamLayout(
    [
        Param(key="map", rule=Rule("str", choices=MAP_NAMES, doc="board side: a file in maps/"), kernel=False),
        Param(key="cards", rule=Rule("str", choices=CARD_SETS, doc="card set: a file in cards/"), kernel=False),
        Param(key="upgrade.costs", rule=Rule("int_list", 0, 30, min_length=1, max_length=MAX_COST,
                                             doc="upgrade track costs from the lowest space up"), kernel=False),
        Param("hand_size", key="turn.hand_size", rule=Rule("int", 1, 8, doc="V. Draw: cards in hand after drawing")),
        Param("draw_reshuffle", key="turn.draw_reshuffle",
              rule=Rule("bool", doc="a draw effect (U-17) with an empty draw pile shuffles the discard pile in")),
        Param("area_tie", key="scoring.area_tie", rule=Rule("str", choices=AREA_TIE_RULES,
              doc="area scoring, tie for the most top floors: 'second_stays' (the next lower count "
                  "still takes half) or 'no_second' (a tie for first leaves no second place)")),
        Param("behind_ties", key="turn.behind_ties", rule=Rule("str", choices=BEHIND_RULES,
              doc="U-17 'furthest behind (alone or together with another person)': 'any_tie' (tied with "
                  "any number of players), 'one_other' (alone or tied with exactly one other), 'alone'")),
        Param(key="scoring.complete_at", rule=Rule("str", choices=COMPLETE_RULES,
              doc="an area is complete at its 'last_free' space (restricted spaces excluded) or when "
                  "'every_space' is built (an area holding a restricted space never scores)"), kernel=False),
        Param("end_money", key="end.money", rule=Rule("int", 1, 500, doc="money that triggers the end")),
        Param("extra_round", key="end.extra_round", rule=Rule("bool", doc="one more round after the trigger round")),
        Param("round_cap", key="end.round_cap", rule=Rule("int", 5, 1000, doc="rounds before a game is 'stalled'")),
        Param("restricted_below", key="setup.restricted_below",
              rule=Rule("int", 2, 5, doc="restricted zones with fewer players than this")),
        Param("sites_on", key="setup.construction_sites", rule=Rule("bool", doc="2 players: construction sites")),
        Param("site_tiles", key="setup.site_tiles", rule=Rule("int", 1, 6, doc="construction-site tiles")),
        Param("n_players", meaning="players at the table"),
        Param("n_costs", meaning="upgrade track steps"),
        Param("costs", size=MAX_COST, meaning="upgrade cost by marker position"),
        # map
        Param("n_sp", meaning="buildable spaces"),
        Param("n_areas", meaning="areas"),
        Param("n_mon", meaning="monuments"),
        Param("mon_rule", meaning="MON_CHAIN (NYC) / MON_COUNT (Tokyo)"),
        Param("end_kind", meaning="END_TOWERS / END_AREAS"),
        Param("tower_money", meaning="NYC: money per 7-floor building with own top"),
        Param("sites", meaning="1: the construction-site rules are on (2 players)"),
        Param("site_area", meaning="area of the first construction-site tile"),
        Param("sp_area", size=MAX_SP, meaning="area of each space"),
        Param("sp_restricted", size=MAX_SP, meaning="1: restricted at this player count"),
        Param("sp_water", size=MAX_SP, meaning="1: adjacent to water"),
        Param("sp_mon", size=MAX_SP, meaning="1: adjacent to a monument"),
        Param("sp_land", size=MAX_SP, meaning="1: adjacent to the landmark"),
        Param("sp_bmoney", size=MAX_SP, meaning="one-time money bonus"),
        Param("sp_bupg", size=MAX_SP, meaning="one-time upgrade bonus"),
        Param("sp_nn", size=MAX_SP, meaning="neighbour count"),
        Param("sp_nb", size=MAX_SP * MAX_NB, meaning="+ s * MAX_NB + i: neighbour i"),
        Param("sp_mdist", size=MAX_SP, meaning="steps to the nearest monument-adjacent space (policies)"),
        Param("sp_ldist", size=MAX_SP, meaning="steps to the nearest landmark-adjacent space (policies)"),
        Param("area_colour", size=MAX_AREAS, meaning="colour of each area"),
        Param("area_free", size=MAX_AREAS, meaning="spaces to build before each area completes at this player "
                                                    "count (scoring.complete_at)"),
        Param("area_n", size=MAX_AREAS, meaning="spaces of each area"),
        Param("area_sp", size=MAX_AREAS * MAX_AREA_SP, meaning="+ a * MAX_AREA_SP + i: space i of area a"),
        Param("tg_n", size=8, meaning="spaces a build effect of target kind TG may use (restricted excluded)"),
        Param("tg_sp", size=8 * MAX_SP, meaning="+ kind * MAX_SP + i: those spaces"),
        Param("n_land", meaning="spaces next to the landmark"),
        Param("land_sp", size=MAX_LAND, meaning="the spaces next to the landmark"),
        Param("mon_nn", size=MAX_MON, meaning="spaces adjacent to each monument"),
        Param("mon_sp", size=MAX_MON * MAX_MON_NB, meaning="+ m * MAX_MON_NB + i"),
        Param("mon_req", size=MAX_MON, meaning="Tokyo: own top floors needed"),
        Param("mon_kind", size=MAX_MON, meaning="BONUS_*"),
        Param("mon_amt", size=MAX_MON, meaning="money of a money bonus"),
        Param("ascore", size=8, meaning="area scoring: + 2i floors at least, + 2i + 1 money (descending)"),
        Param("etab", size=8, meaning="Tokyo end: + 2i areas at least, + 2i + 1 money (descending)"),
        # cards
        Param("n_types", meaning="card types"),
        Param("card_sym", size=MAX_T, meaning="symbol bits"),
        Param("card_value", size=MAX_T, meaning="end-game money"),
        Param("card_price", size=MAX_T, meaning="Basic price"),
        Param("card_kind", size=MAX_T, meaning="KIND_*"),
        Param("card_eff", size=MAX_T * MAX_EFF * 3, meaning="+ (t * MAX_EFF + e) * 3: op, n, arg"),
        Param("n_start", meaning="start cards per player"),
        Param("start", size=MAX_START, meaning="start deck card types"),
        Param("basic_type", size=N_COLOURS, meaning="card type of each colour's Basic pile"),
        Param("basic_copies", size=N_COLOURS, meaning="cards in each Basic pile"),
        Param("n_upg", meaning="upgrade deck size"),
        Param("upg", size=MAX_UPG, meaning="upgrade deck card types (shuffled at setup)"),
    ],
    name="project skyline rules",
)
SCHEMA = PARAMS.schema()
# --- PARAMS's constants, prefix K_ (python -m engines.core.layout FILE writes them: edit PARAMS) ---
K_HAND_SIZE = 0         # V. Draw: cards in hand after drawing
K_DRAW_RESHUFFLE = 1    # a draw effect (U-17) with an empty draw pile shuffles the discard pile in
K_AREA_TIE = 2          # area scoring, tie for the most top floors: 'second_stays' (the next lower count still takes half) or 'no_second' (a tie for first leaves no second place)
K_BEHIND_TIES = 3       # U-17 'furthest behind (alone or together with another person)': 'any_tie' (tied with any number of players), 'one_other' (alone or tied with exactly one other), 'alone'
K_END_MONEY = 4         # money that triggers the end
K_EXTRA_ROUND = 5       # one more round after the trigger round
K_ROUND_CAP = 6         # rounds before a game is 'stalled'
K_RESTRICTED_BELOW = 7  # restricted zones with fewer players than this
K_SITES_ON = 8          # 2 players: construction sites
K_SITE_TILES = 9        # construction-site tiles
K_N_PLAYERS = 10        # players at the table
K_N_COSTS = 11          # upgrade track steps
K_COSTS = 12            # upgrade cost by marker position
K_N_SP = 18             # buildable spaces
K_N_AREAS = 19          # areas
K_N_MON = 20            # monuments
K_MON_RULE = 21         # MON_CHAIN (NYC) / MON_COUNT (Tokyo)
K_END_KIND = 22         # END_TOWERS / END_AREAS
K_TOWER_MONEY = 23      # NYC: money per 7-floor building with own top
K_SITES = 24            # 1: the construction-site rules are on (2 players)
K_SITE_AREA = 25        # area of the first construction-site tile
K_SP_AREA = 26          # area of each space
K_SP_RESTRICTED = 122   # 1: restricted at this player count
K_SP_WATER = 218        # 1: adjacent to water
K_SP_MON = 314          # 1: adjacent to a monument
K_SP_LAND = 410         # 1: adjacent to the landmark
K_SP_BMONEY = 506       # one-time money bonus
K_SP_BUPG = 602         # one-time upgrade bonus
K_SP_NN = 698           # neighbour count
K_SP_NB = 794           # + s * MAX_NB + i: neighbour i
K_SP_MDIST = 1370       # steps to the nearest monument-adjacent space (policies)
K_SP_LDIST = 1466       # steps to the nearest landmark-adjacent space (policies)
K_AREA_COLOUR = 1562    # colour of each area
K_AREA_FREE = 1586      # spaces to build before each area completes at this player count (scoring.complete_at)
K_AREA_N = 1610         # spaces of each area
K_AREA_SP = 1634        # + a * MAX_AREA_SP + i: space i of area a
K_TG_N = 1826           # spaces a build effect of target kind TG may use (restricted excluded)
K_TG_SP = 1834          # + kind * MAX_SP + i: those spaces
K_N_LAND = 2602         # spaces next to the landmark
K_LAND_SP = 2603        # the spaces next to the landmark
K_MON_NN = 2611         # spaces adjacent to each monument
K_MON_SP = 2621         # + m * MAX_MON_NB + i
K_MON_REQ = 2661        # Tokyo: own top floors needed
K_MON_KIND = 2671       # BONUS_*
K_MON_AMT = 2681        # money of a money bonus
K_ASCORE = 2691         # area scoring: + 2i floors at least, + 2i + 1 money (descending)
K_ETAB = 2699           # Tokyo end: + 2i areas at least, + 2i + 1 money (descending)
K_N_TYPES = 2707        # card types
K_CARD_SYM = 2708       # symbol bits
K_CARD_VALUE = 2772     # end-game money
K_CARD_PRICE = 2836     # Basic price
K_CARD_KIND = 2900      # KIND_*
K_CARD_EFF = 2964       # + (t * MAX_EFF + e) * 3: op, n, arg
K_N_START = 3540        # start cards per player
K_START = 3541          # start deck card types
K_BASIC_TYPE = 3553     # card type of each colour's Basic pile
K_BASIC_COPIES = 3557   # cards in each Basic pile
K_N_UPG = 3561          # upgrade deck size
K_UPG = 3562            # upgrade deck card types (shuffled at setup)
K_SIZE = 3602           # the layout's size (project skyline rules)
K_END = 3602            # the first index after it
PARAMS.check(globals(), "K_")
N_CFG = PARAMS.end


def consistency(values: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    try:
        load_map(values["map"])
    except DataError as e:
        out.append(("map", str(e)))
    try:
        load_cards(values["cards"])
    except DataError as e:
        out.append(("cards", str(e)))
    return out


VARIANTS = VariantLoader("project_skyline", HERE / "variants", SCHEMA, consistency)


class KernelParams(NamedTuple):
    """What the kernels read: every rule number in one int64 vector (layout K_*). Python reads
    slots by name (`kp.n_sp`); `kp.map` / `kp.cards` keep the loaded data for display."""

    cfg: np.ndarray
    map: Map
    cards: list
    map_id: str      # the variant's map name ("nyc", "tokyo", or a path)

    def __getattr__(self, name: str):
        if name not in PARAMS.sizes:
            raise AttributeError(name)
        return PARAMS.get(self.cfg, name)

    @property
    def n_players(self) -> int:
        return int(self.cfg[K_N_PLAYERS])


def _bfs_dist(mp: Map, sources: list[int]) -> list[int]:
    n = len(mp.cells)
    dist = [99] * n
    q = deque()
    for s in sources:
        dist[s] = 0
        q.append(s)
    while q:
        s = q.popleft()
        for t in mp.neighbours[s]:
            if dist[t] > dist[s] + 1:
                dist[t] = dist[s] + 1
                q.append(t)
    return dist


def compile_params(mp: Map, cards: list[Card], values: dict, n_players: int) -> np.ndarray:
    n = len(mp.cells)
    pad = lambda xs, size: np.array(list(xs) + [0] * (size - len(xs)), np.int64)  # noqa: E731
    restricted = [x if n_players < values["setup"]["restricted_below"] else 0 for x in mp.restricted]
    free = [0] * MAX_AREAS
    every = values["scoring"]["complete_at"] == "every_space"
    for s in range(n):
        if not restricted[s] or every:  # every_space: a restricted space is never built, so never complete
            free[mp.space_area[s]] += 1
    nbm = np.full(MAX_SP * MAX_NB, -1, np.int64)
    for s in range(n):
        for i, t in enumerate(mp.neighbours[s]):
            nbm[s * MAX_NB + i] = t
    monm = np.full(MAX_MON * MAX_MON_NB, -1, np.int64)
    sp_mon = [0] * n
    for mi, sps in enumerate(mp.mon_spaces):
        for i, s in enumerate(sps):
            monm[mi * MAX_MON_NB + i] = s
            sp_mon[s] = 1
    mdist = _bfs_dist(mp, [s for s in range(n) if sp_mon[s]])
    ldist = _bfs_dist(mp, [s for s in range(n) if mp.landmark_adj[s]]) if mp.has_landmark else [0] * n
    eff = np.zeros(MAX_T * MAX_EFF * 3, np.int64)
    for t, c in enumerate(cards):
        for e, (op, k, arg) in enumerate(c.effects):
            eff[(t * MAX_EFF + e) * 3:(t * MAX_EFF + e) * 3 + 3] = (op, k, arg)
    start = [t for t, c in enumerate(cards) if c.kind == KIND_START]
    basic = [0] * N_COLOURS
    copies = [0] * N_COLOURS
    for t, c in enumerate(cards):
        if c.kind == KIND_BASIC:
            col = c.pile
            basic[col], copies[col] = t, c.copies
    upg = [t for t, c in enumerate(cards) if c.kind == KIND_UPGRADE]
    costs = values["upgrade"]["costs"]
    flat = lambda pairs: [x for p in pairs for x in p]  # noqa: E731
    sites = 1 if (n_players == 2 and values["setup"]["construction_sites"]) else 0
    area_n = [0] * MAX_AREAS
    area_sp = np.full(MAX_AREAS * MAX_AREA_SP, -1, np.int64)
    for s in range(n):
        a = mp.space_area[s]
        area_sp[a * MAX_AREA_SP + area_n[a]] = s
        area_n[a] += 1
    land = [s for s in range(n) if mp.landmark_adj[s]]
    tg_n = np.zeros(8, np.int64)
    tg_sp = np.full(8 * MAX_SP, -1, np.int64)
    for kind in range(8):
        for s in range(n):
            if restricted[s]:
                continue
            if kind < N_COLOURS and mp.area_colour[mp.space_area[s]] != kind:
                continue
            if kind == TG_WATER and not mp.water[s]:
                continue
            if kind == TG_MONUMENT and not sp_mon[s]:
                continue
            tg_sp[kind * MAX_SP + tg_n[kind]] = s
            tg_n[kind] += 1
    if len(land) > MAX_LAND:
        raise DataError(mp.source, "grid", f"more than {MAX_LAND} spaces next to the landmark")
    return PARAMS.fill(
        values, n_players=n_players, n_costs=len(costs), costs=pad(costs, MAX_COST), n_sp=n,
        n_areas=len(mp.area_names), n_mon=len(mp.mon_names), mon_rule=mp.rule, end_kind=mp.end_kind,
        tower_money=mp.tower_money, sites=sites, site_area=mp.site_area,
        sp_area=pad(mp.space_area, MAX_SP), sp_restricted=pad(restricted, MAX_SP), sp_water=pad(mp.water, MAX_SP),
        sp_mon=pad(sp_mon, MAX_SP), sp_land=pad(mp.landmark_adj, MAX_SP), sp_bmoney=pad(mp.bonus_money, MAX_SP),
        sp_bupg=pad(mp.bonus_upg, MAX_SP), sp_nn=pad([len(x) for x in mp.neighbours], MAX_SP), sp_nb=nbm,
        sp_mdist=pad(mdist, MAX_SP), sp_ldist=pad(ldist, MAX_SP),
        area_colour=pad(mp.area_colour, MAX_AREAS), area_free=np.array(free, np.int64),
        area_n=np.array(area_n, np.int64), area_sp=area_sp, tg_n=tg_n, tg_sp=tg_sp, n_land=len(land), land_sp=pad(land, MAX_LAND),
        mon_nn=pad([len(x) for x in mp.mon_spaces], MAX_MON), mon_sp=monm, mon_req=pad(mp.mon_req, MAX_MON),
        mon_kind=pad(mp.mon_kind, MAX_MON), mon_amt=pad(mp.mon_amt, MAX_MON),
        ascore=pad(flat(mp.area_scoring), 8), etab=pad(flat(mp.end_table), 8),
        n_types=len(cards), card_sym=pad([c.symbols for c in cards], MAX_T),
        card_value=pad([c.value for c in cards], MAX_T), card_price=pad([c.price for c in cards], MAX_T),
        card_kind=pad([c.kind for c in cards], MAX_T), card_eff=eff, n_start=len(start), start=pad(start, MAX_START),
        basic_type=np.array(basic, np.int64), basic_copies=np.array(copies, np.int64), n_upg=len(upg),
        upg=pad(upg, MAX_UPG),
    )


def kernel_params(variant: Variant | None = None, n_players: int = 4) -> KernelParams:
    """Validated variant + player count -> KernelParams."""
    if variant is None:
        variant = VARIANTS.load("default")
    if not 2 <= n_players <= MAX_PLAYERS:
        raise ValueError(f"project_skyline plays 2-{MAX_PLAYERS} players, not {n_players}")
    v = variant.values
    mp = load_map(v["map"])
    cards = load_cards(v["cards"])
    return KernelParams(compile_params(mp, cards, v, n_players), mp, cards, str(v["map"]))
