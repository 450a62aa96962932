"""Fuzzing the variant schema: any variant the schema accepts plays, any it
refuses is refused in one line naming the key.

Valid variants are drawn from each registered game's own schema
(`spec.variants.schema`, engines.core.variant.Rule): the default variant with
one to five keys redrawn anywhere in their declared range, type and length. A
draw the game's consistency rules refuse must be refused with a one-line
message naming a key; the others are played (random and heuristic line-ups,
a few games at a random game index) through `spec.kernel_params` +
`spec.simulate`, and the result tables must hold what every game promises:

- every table has its declared columns, all of one length; `players` has one
  row per game and seat, `games` one row per game, game indices in the range;
- ranks are 1-based competition ranks consistent with scores (a higher score
  never ranks lower), exactly the rank-1 seats have win = 1, `shared_win`
  marks exactly the winners of a shared win, `n_winners` / `winner` agree;
- `lineup_slot` follows the rotation rule (seat + game) % P;
- `stalled` is set only when the turn cap was reached (plus each game's own
  bookkeeping, e.g. score = the sum of the points it was made of).

Invalid values (out of range, wrong type, wrong length, unknown key) are drawn
from the same schema and must be refused with a VariantError whose one-line
message names the key, whether typed as `--set` or written in a variant file.

The default run takes well under a minute once the engines are compiled; the
`slow` version plays many more variants and games (`pytest -m slow`).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from engines.core.lineup import make_lineup
from engines.core.variant import Rule, VariantError, flatten
from engines.registry import game_ids, get_game

GAMES = game_ids()
POLICIES = ("random", "heuristic")

FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
# FUZZ_SLOW_EXAMPLES: valid variants per game in the slow version (default 2500,
# up to 400 games each per line-up: of the order of a million games per game)
SLOW = settings(max_examples=int(os.environ.get("FUZZ_SLOW_EXAMPLES", "2500")), deadline=None, database=None,
                suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


# --- drawing values from a Rule --------------------------------------------------------------

def _int_range(rule: Rule, default) -> tuple[int, int]:
    lo = int(rule.min) if rule.min is not None else -1000
    hi = int(rule.max) if rule.max is not None else 1000
    return lo, hi


def _near(lo: int, hi: int, centre) -> st.SearchStrategy[int]:
    """Anywhere in [lo, hi], often near the default (wide ranges are mostly absurd)."""
    anywhere = st.integers(lo, hi)
    if isinstance(centre, int) and not isinstance(centre, bool):
        return st.one_of(anywhere, st.integers(max(lo, centre - 3), min(hi, centre + 3)), st.sampled_from([lo, hi]))
    return st.one_of(anywhere, st.sampled_from([lo, hi]))


def _list_len(rule: Rule, default) -> tuple[int, int]:
    if rule.length is not None:
        return rule.length, rule.length
    lo = rule.min_length or 0
    hi = rule.max_length if rule.max_length is not None else max(lo, len(default or []) + 4)
    return lo, hi


def valid_value(rule: Rule, default) -> st.SearchStrategy:
    kind = rule.kind
    if kind == "bool":
        return st.booleans()
    if kind == "str":
        if rule.choices:
            return st.sampled_from(rule.choices)
        return st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
    if kind == "int":
        return _near(*_int_range(rule, default), default)
    if kind == "float":
        lo = rule.min if rule.min is not None else -1e6
        hi = rule.max if rule.max is not None else 1e6
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    if kind in ("int_list", "float_list"):
        lo, hi = _list_len(rule, default)
        if kind == "int_list":
            item = st.integers(*_int_range(rule, None))
        else:
            item = st.floats(rule.min if rule.min is not None else -1e6, rule.max if rule.max is not None else 1e6,
                             allow_nan=False, allow_infinity=False)
        return st.lists(item, min_size=lo, max_size=hi)
    if kind == "int_table":
        lo, hi = _list_len(rule, default[0] if default else None)
        row = st.lists(st.integers(*_int_range(rule, None)), min_size=lo, max_size=hi)
        return st.lists(row, min_size=1, max_size=len(default) + 2)
    raise AssertionError(f"no generator for rule kind {kind}")


def invalid_value(rule: Rule, default) -> st.SearchStrategy:
    """Values the rule must refuse (each strategy below is refused whatever it draws)."""
    kind = rule.kind
    if kind == "str":
        wrong_type = st.sampled_from([3, 2.5, [1], True])
    elif kind in ("int_list", "float_list"):
        wrong_type = st.sampled_from(["seven", 3, True, {"a": 1}, [[1]]])
    else:
        wrong_type = st.sampled_from(["seven", [1, 2], {"a": 1}])
    options = [wrong_type]
    if kind == "bool":
        options.append(st.sampled_from([0, 1, "true", 1.0]))
    if kind == "str" and rule.choices:
        options.append(st.text(min_size=1, max_size=12).filter(lambda s: s not in rule.choices))
    if kind in ("int", "float"):
        if rule.min is not None:
            options.append(st.integers(int(math.floor(rule.min)) - 10**6, int(math.ceil(rule.min)) - 1))
        if rule.max is not None:
            options.append(st.integers(int(math.floor(rule.max)) + 1, int(rule.max) + 10**6))
        options.append(st.sampled_from([math.nan, math.inf, -math.inf]))
        if kind == "int":
            options.append(st.sampled_from([True, False, 2.5, 3.0]))
    if kind in ("int_list", "float_list", "int_table"):
        options.append(st.sampled_from([3, "1, 2"]))
        lo, hi = _list_len(rule, default if kind != "int_table" else (default[0] if default else None))
        if kind == "int_table":
            if rule.length is not None:
                options.append(st.just([[0] * (rule.length + 1)]))
            options.append(st.just([]))
            options.append(st.just([["x"] * max(lo, 1)]))
        else:
            if rule.max_length is not None or rule.length is not None:
                options.append(st.just([int(rule.min or 0)] * (hi + 1)))
            if lo > 0:
                options.append(st.just([int(rule.min or 0)] * (lo - 1)))
            n = max(lo, 1)
            if rule.max is not None:
                options.append(st.just([int(rule.max) + 1] * n))
            if rule.min is not None:
                options.append(st.just([int(rule.min) - 1] * n))
            options.append(st.just([math.nan] * n))
    return st.one_of(options)


# --- writing a variant file (dotted keys are valid TOML) -----------------------------------

def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        # JSON string escapes are TOML's, except that TOML wants astral characters
        # raw (not as surrogate pairs) and DEL escaped
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


def write_variant(folder: Path, changes: dict) -> Path:
    path = folder / "fuzzed.toml"
    lines = ['extends = "default"'] + [f"{key} = {toml_value(value)}" for key, value in changes.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


# --- strategies over whole variants -------------------------------------------------------

@st.composite
def variant_changes(draw, game_id: str, max_keys: int = 5) -> dict:
    loader = get_game(game_id).variants
    defaults = loader.load().flat()
    keys = draw(st.lists(st.sampled_from(sorted(loader.schema)), min_size=1, max_size=max_keys, unique=True))
    return {key: draw(valid_value(loader.schema[key], defaults[key])) for key in keys}


@st.composite
def bad_change(draw, game_id: str) -> tuple[str, object, str]:
    """(key, value, key the error must name)."""
    loader = get_game(game_id).variants
    defaults = loader.load().flat()
    key = draw(st.sampled_from(sorted(loader.schema)))
    if draw(st.integers(0, 5)) == 0:  # an unknown key, close to a real one or not
        bad = draw(st.sampled_from([key + "x", key.replace(".", "_"), "nope", key + ".deeper", f"x.{key}"]))
        assume(bad not in loader.schema and not any(k.startswith(bad + ".") for k in loader.schema))
        return bad, draw(valid_value(loader.schema[key], defaults[key])), bad
    return key, draw(invalid_value(loader.schema[key], defaults[key])), key


# --- the invariants --------------------------------------------------------------------------

def check_tables(spec, tables: dict, n_players: int, start: int, count: int, rotate: bool) -> None:
    assert set(tables) == set(spec.tables), (set(tables), set(spec.tables))
    for name, table in tables.items():
        assert set(table) == set(spec.tables[name].names), name
        lengths = {len(col) for col in table.values()}
        assert len(lengths) == 1, (name, lengths)
        game = np.asarray(table["game"])
        assert game.size == 0 or (game.min() >= start and game.max() < start + count), name

    pl = {k: np.asarray(v) for k, v in tables["players"].items()}
    gm = {k: np.asarray(v) for k, v in tables["games"].items()}
    assert len(pl["game"]) == count * n_players
    assert len(gm["game"]) == count and sorted(gm["game"]) == list(range(start, start + count))
    order = np.lexsort((pl["seat"], pl["game"]))
    pl = {k: v[order] for k, v in pl.items()}
    gm_order = np.argsort(gm["game"])
    gm = {k: v[gm_order] for k, v in gm.items()}
    score = pl["score"].reshape(count, n_players)
    rank = pl["rank"].reshape(count, n_players)
    win = pl["win"].reshape(count, n_players)
    seat = pl["seat"].reshape(count, n_players)
    games = pl["game"].reshape(count, n_players)
    assert (seat == np.arange(n_players)).all(), "each game has each seat exactly once"
    if "lineup_slot" in pl:
        slot = pl["lineup_slot"].reshape(count, n_players)
        expect = (seat + games) % n_players if rotate else seat
        assert (slot == expect).all()
    for g in range(count):
        s, r, w = score[g], rank[g], win[g]
        # competition ranking: rank = 1 + seats ranked strictly better
        assert all(r[i] == 1 + int((r < r[i]).sum()) for i in range(n_players)), (s, r)
        # a higher score never ranks lower (ties may be broken by something else)
        for i in range(n_players):
            for j in range(n_players):
                if s[i] > s[j]:
                    assert r[i] < r[j], (s, r)
        assert ((w == 1) == (r == 1)).all(), ("exactly the winners have win = 1", s, r, w)
        n_win = int(w.sum())
        assert n_win >= 1
        if "shared_win" in pl:
            assert (pl["shared_win"].reshape(count, n_players)[g] == ((w == 1) & (n_win > 1))).all()
        if "n_winners" in gm:
            assert gm["n_winners"][g] == n_win
        if "winner" in gm:
            assert gm["winner"][g] == (int(np.flatnonzero(w)[0]) if n_win == 1 else -1)
        if "stalled" in gm:
            assert gm["stalled"][g] in (0, 1)


def check_skyline_3000(variant, kparams, tables, n_players, count) -> None:
    pl, gm = tables["players"], tables["games"]
    start_score = variant.get("supply.starting_score")
    assert (np.asarray(pl["score"]) == start_score + np.asarray(pl["points_first"]) + np.asarray(pl["points_second"])
            + np.asarray(pl["points_billboards"])).all(), "score = start + block points + billboard points"
    cap = variant.get("game.construction_turn_cap")
    rounds = variant.get("game.rounds")
    turns, stalled = np.asarray(gm["construction_turns"]), np.asarray(gm["stalled"])
    # stalled only when a round's construction reached the cap; never more turns than the cap allows
    assert (turns[stalled == 1] >= cap).all(), (turns, stalled, cap)
    assert (turns <= rounds * cap).all(), (turns, rounds, cap)
    assert (np.asarray(pl["cards_left"]) >= 0).all() and (np.asarray(pl["hand_value_left"]) >= 0).all()


def check_cityline(variant, kparams, tables, n_players, count) -> None:
    pl, gm = tables["players"], tables["games"]
    assert (np.asarray(pl["score"]) == np.asarray(pl["building_points"]) - np.asarray(pl["x_penalty"])
            + np.asarray(pl["sky_bonus"])).all(), "score = building points - X penalty + sky bonus"
    assert (np.asarray(gm["stalled"]) == 0).all(), "Cityline has no turn cap: it never stalls"
    assert (np.asarray(gm["top_score"]) == np.asarray(pl["score"]).reshape(count, n_players).max(axis=1)[
        np.argsort(np.argsort(np.asarray(gm["game"])))]).all()


def _per_game(values, count, n_players) -> np.ndarray:
    return np.asarray(values).reshape(count, n_players)


def check_skyline_of_the_world(variant, kparams, tables, n_players, count) -> None:
    pl, gm = tables["players"], tables["games"]
    order = np.argsort(np.asarray(gm["game"]))  # players rows come game by game, in game order
    score = _per_game(pl["score"], count, n_players)
    assert (np.asarray(gm["top_score"])[order] == score.max(axis=1)).all(), "top_score = best prestige"
    assert (_per_game(pl["penthouses"], count, n_players).sum(axis=1)
            == np.asarray(gm["penthouses"])[order]).all(), "penthouses on the board = penthouses built"
    stalled = np.asarray(gm["stalled"]) == 1
    trigger = np.asarray(gm["trigger_seat"])
    # a game ends by a penthouse trigger or by the turn cap, never both, never neither
    assert (stalled == (trigger < 0)).all(), "stalled exactly when no penthouse ended the game"
    assert (_per_game(pl["triggered_end"], count, n_players).sum(axis=1) == (~stalled[order]).astype(int)).all()
    cash = np.asarray(pl["cash"])
    assert (cash >= 0).all() and (np.asarray(pl["cap_lost"]) >= 0).all(), "cash and money lost never negative"
    assert (np.asarray(gm["turns"]) <= variant.get("end.turn_cap")).all(), "no game passes the turn cap"


def check_project_skyline(variant, kparams, tables, n_players, count) -> None:
    pl, gm = tables["players"], tables["games"]
    order = np.argsort(np.asarray(gm["game"]))
    score = _per_game(pl["score"], count, n_players)
    assert (np.asarray(gm["top_score"])[order] == score.max(axis=1)).all(), "top_score = best score"
    assert (np.asarray(pl["score"]) >= 0).all(), "final money is never below 0"
    assert (np.asarray(pl["money"]) >= 0).all(), "the money track is never below 0"
    ending = np.asarray(gm["ending"])
    assert np.isin(ending, (1, 2, 3)).all()
    assert ((ending == 3) == (np.asarray(gm["stalled"]) == 1)).all(), "ending 3 is exactly a stalled game"
    for col in ("bought", "taken", "sold", "played", "floors_built", "floors_forfeited", "upgrades", "deck_size"):
        assert (np.asarray(pl[col]) >= 0).all(), col


GAME_CHECKS = {"skyline_3000": check_skyline_3000, "cityline": check_cityline,
               "skyline_of_the_world": check_skyline_of_the_world, "project_skyline": check_project_skyline}


def _one_line_naming(err: VariantError, key: str) -> None:
    text = str(err)
    assert "\n" not in text, text
    assert err.key == key or err.key.startswith(key + "."), (err.key, key, text)
    assert f"'{err.key}'" in text, text


PLAYED = {"variants": 0, "games": 0}  # totals, printed when the module's tests end


@pytest.fixture(scope="module", autouse=True)
def _print_totals():
    yield
    if PLAYED["games"]:
        print(f"\nfuzzing: {PLAYED['variants']:,} valid variants played, {PLAYED['games']:,} games "
              "(random and heuristic line-ups), every invariant held")


def play_variant(game_id: str, changes: dict, as_file: bool, data, max_count: int = 4) -> None:
    spec = get_game(game_id)
    loader = spec.variants
    try:
        if as_file:
            with tempfile.TemporaryDirectory() as folder:
                variant = loader.load(str(write_variant(Path(folder), changes)))
        else:
            variant = loader.load(None, changes)
    except VariantError as err:
        # valid values, but together not playable: refused in one line naming a real key
        assert "\n" not in str(err) and err.key in loader.schema, str(err)
        event(f"{game_id}: refused by consistency ({err.key})")
        assume(False)
    lo, hi = spec.min_players, spec.max_players
    flat = variant.flat()
    lo, hi = max(lo, flat.get("min_players", lo)), min(hi, flat.get("max_players", hi))
    assume(lo <= hi)
    n_players = data.draw(st.integers(lo, hi), label="players")
    try:
        kparams = spec.kernel_params(variant, n_players)
    except VariantError as err:
        assert "\n" not in str(err), str(err)
        event(f"{game_id}: refused by kernel_params ({err.key})")
        assume(False)
    start = data.draw(st.integers(0, 10**6), label="start")
    count = data.draw(st.integers(1, max_count), label="count")
    seed = data.draw(st.integers(0, 2**31), label="seed")
    rotate = data.draw(st.booleans(), label="rotate")
    for policy in POLICIES:
        lineup = make_lineup(spec, [policy], n_players, rotate)
        tables = spec.simulate(kparams, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), rotate,
                               seed, start, count)
        check_tables(spec, tables, n_players, start, count, rotate)
        if game_id in GAME_CHECKS:
            GAME_CHECKS[game_id](variant, kparams, tables, n_players, count)
        PLAYED["games"] += count
    PLAYED["variants"] += 1
    event(f"{game_id}: played")


# --- the tests -------------------------------------------------------------------------------

def test_every_registered_game_has_invariant_checks():
    # a new game gets the generic checks at once; this asks for its own bookkeeping too
    assert set(GAMES) <= set(GAME_CHECKS)


@pytest.mark.parametrize("game_id", GAMES)
def test_default_variant_satisfies_the_invariants(game_id):
    # the checks themselves must pass on the shipped rules (and be able to fail: see below)
    spec = get_game(game_id)
    variant = spec.variants.load()
    n_players = spec.default_players if spec.default_players > 1 else 2
    kparams = spec.kernel_params(variant, n_players)
    lineup = make_lineup(spec, ["heuristic"], n_players, True)
    tables = spec.simulate(kparams, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 5, 40, 20)
    check_tables(spec, tables, n_players, 40, 20, True)
    GAME_CHECKS[game_id](variant, kparams, tables, n_players, 20)
    # a corrupted table is caught (the checks are not trivially true)
    broken = {k: dict(v) for k, v in tables.items()}
    broken["players"]["win"] = np.asarray(broken["players"]["win"]).copy()
    broken["players"]["win"][:] = 1 - broken["players"]["win"]
    with pytest.raises(AssertionError):
        check_tables(spec, broken, n_players, 40, 20, True)


# Degenerate corners a random draw rarely hits together; the schema accepts them, so they
# must play and keep the invariants (the report must cope with them too: no auctions sold,
# every game stalled, nobody holding a card).
DEGENERATE = [
    ("skyline_3000", {"auction.stacks": [[], [], []]}),
    ("skyline_3000", {"auction.stacks": [[]]}),
    ("skyline_3000", {"game.construction_turn_cap": 1}),
    ("skyline_3000", {"game.construction_turn_cap": 1, "game.rounds": 16}),
    ("skyline_3000", {"game.rounds": 1, "scoring.megamall_multiplier": 10}),
    ("skyline_3000", {"board.small_platforms": 0, "board.large_platforms": 0, "board.greenspace_blocks": []}),
    ("skyline_3000", {"cards.floor_values": [1], "cards.roof_values": [1], "cards.contract_values": [1],
                      "cards.deal_roof": 0, "cards.deal_floor": 0, "cards.deal_contract": 0}),
    ("skyline_3000", {"supply.starting_buildings": [[20, 1], [20, 2]], "supply.floor_stock": 400}),
    ("skyline_3000", {"construction.first_building_floors": 10, "construction.floors_per_card": 1}),
    # the rule choices of issue 23 at their alternatives, where they bite: a short stock, several
    # improvements in a block, items with no place, full hands
    ("skyline_3000", {"supply.floor_stock": 25, "construction.short_floor_stock": "needs_full_card",
                      "board.large_platforms": 3, "scoring.megamall_stacking": "each",
                      "scoring.spaceport_stacking": "once", "cards.hand_limit": 8}),
    ("skyline_3000", {"board.small_platforms": 0, "board.large_platforms": 0, "board.greenspace_blocks": [],
                      "auction.unplaceable_item": "lost_refunded"}),
    ("cityline", {"game.dice": 1, "game.construction_turns": 1, "game.occupancy_turns": 1, "game.columns": 1,
                  "sky.sun_min_odd": 1, "sky.moon_min_even": 1, "roof.5.params": [1]}),
    ("cityline", {"game.max_floors": 1, **{f"roof.{v}.table": [0, 1] for v in range(1, 7)}}),
    ("cityline", {"construction.roof_needs_walls": True, "scoring.empty_building_scores": True,
                  **{f"roof.{v}.table": [5, 1, 2, 4, 7, 11] for v in range(1, 7)}}),
    ("cityline", {"game.faces": 2, "game.columns": 2, "game.construction_turns": 2,
                  "roof.3.params": [1, 2], "roof.4.params": [1, 2]}),
]


def test_a_skyline_variant_that_deals_and_draws_no_card_is_refused():
    # it used to be played and reported as if it were a game (issue 25): nobody ever held a card
    from engines.core.variant import VariantError

    with pytest.raises(VariantError, match="no card is ever dealt or drawn"):
        get_game("skyline_3000").variants.load(None, {"cards.deal_roof": 0, "cards.deal_floor": 0,
                                                      "cards.deal_contract": 0, "cards.draw_per_round": 0})


@pytest.mark.parametrize("game_id, changes", DEGENERATE, ids=[f"{g}-{'+'.join(c)}" for g, c in DEGENERATE])
def test_degenerate_variants_play_and_hold_the_invariants(game_id, changes):
    spec = get_game(game_id)
    variant = spec.variants.load(None, changes)
    flat = variant.flat()
    for n_players in range(max(spec.min_players, flat.get("min_players", 1)),
                           min(spec.max_players, flat.get("max_players", spec.max_players)) + 1):
        kparams = spec.kernel_params(variant, n_players)
        for policy in POLICIES:
            lineup = make_lineup(spec, [policy], n_players, True)
            tables = spec.simulate(kparams, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 3, 0, 12)
            check_tables(spec, tables, n_players, 0, 12, True)
            GAME_CHECKS[game_id](variant, kparams, tables, n_players, 12)
            if flat.get("game.construction_turn_cap") == 1:
                # a cap of one turn ends every game in its first construction turn
                assert (np.asarray(tables["games"]["stalled"]) == 1).all()


@pytest.mark.parametrize("game_id", GAMES)
@FAST
@given(data=st.data())
def test_random_valid_variants_play_and_hold_the_invariants(game_id, data):
    changes = data.draw(variant_changes(game_id), label="changes")
    play_variant(game_id, changes, data.draw(st.booleans(), label="as_file"), data)


@pytest.mark.parametrize("game_id", GAMES)
@settings(FAST, max_examples=200)
@given(data=st.data())
def test_invalid_values_are_refused_in_one_line_naming_the_key(game_id, data):
    key, value, blamed = data.draw(bad_change(game_id), label="bad")
    loader = get_game(game_id).variants
    with pytest.raises(VariantError) as err:
        if data.draw(st.booleans(), label="as_file"):
            with tempfile.TemporaryDirectory() as folder:
                loader.load(str(write_variant(Path(folder), {key: value})))
        else:
            loader.load(None, {key: value})
    _one_line_naming(err.value, blamed)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
@SLOW
@given(data=st.data())
def test_many_random_valid_variants_slow(game_id, data):
    # up to 10 keys changed at once, up to 400 games per variant and policy
    changes = data.draw(variant_changes(game_id, max_keys=10), label="changes")
    play_variant(game_id, changes, data.draw(st.booleans(), label="as_file"), data, max_count=400)


# Found by the slow fuzzing (x_penalty = 43, one player, seed 1, game 0): the
# `x_penalty` column was int8, so 3 steps x 43 = 129 points lost was recorded as
# -127 (the score itself was right). The column is int16 now.
def test_cityline_large_x_penalty_is_recorded_without_overflow():
    spec = get_game("cityline")
    variant = spec.variants.load(None, {"scoring.x_penalty": 43})
    kparams = spec.kernel_params(variant, 1)
    lineup = make_lineup(spec, ["random"], 1, False)
    tables = spec.simulate(kparams, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), False, 1, 0, 1)
    check_cityline(variant, kparams, tables, 1, 1)
