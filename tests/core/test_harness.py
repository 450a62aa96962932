"""The shared batch harness: seat rotation, stream seeding, ranks and the required columns by name."""
import numba
import numpy as np
import pytest

from engines.core.harness import (
    REQUIRED_GAME_COLUMNS, REQUIRED_PLAYER_COLUMNS, check_tables, column_arrays, columns, keep_alive_all,
    rank_nb, required_columns, seat_slot_nb, seats_for_game_nb, seed_chance_nb, seed_policies_nb,
    write_game_result_nb, write_seat_results_nb,
)
from engines.core.lowlevel import _keep_alive_all_py, copy_words
from engines.core.rng import CHANCE_STREAM, POLICY_STREAM, new_stream
from engines.core.spec import Column, TableSpec, seat_slot


def _table(name, names):
    return TableSpec(name, "test", tuple(Column(n, n) for n in names))


PLAYERS = _table("players", ["game", "seat", "extra", "lineup_slot", "score", "rank", "win", "shared_win"])
GAMES = _table("games", ["game", "first", "winner", "n_winners", "margin", "decisions", "stalled"])


def test_columns_by_name_and_misspelling_fails():
    assert columns(PLAYERS, "extra") == 2
    assert columns(PLAYERS, "score", "rank") == (4, 5)
    with pytest.raises(KeyError, match="scroe"):
        columns(PLAYERS, "scroe")
    with pytest.raises(ValueError, match="twice"):
        columns(_table("t", ["game", "a", "a"]), "a")


def test_check_tables_requires_presence_not_position():
    check_tables({"players": PLAYERS, "games": GAMES})  # required columns not first: accepted
    broken = _table("games", [c for c in GAMES.names if c != "margin"])
    with pytest.raises(KeyError, match="margin"):
        check_tables({"players": PLAYERS, "games": broken})
    with pytest.raises(KeyError, match="games"):
        check_tables({"players": PLAYERS})


def test_seat_rotation_matches_the_python_rule():
    slot_pids = np.array([10, 11, 12], np.int64)
    slot_w = np.arange(6, dtype=np.float64).reshape(3, 2)
    slots, pids, w = np.empty(3, np.int64), np.empty(3, np.int64), np.empty((3, 2))
    for gi in range(5):
        for rotate in (False, True):
            seats_for_game_nb(gi, rotate, slot_pids, slot_w, slots, pids, w)
            for s in range(3):
                assert slots[s] == seat_slot(gi, s, 3, rotate) == seat_slot_nb(gi, s, 3, rotate)
                assert pids[s] == slot_pids[slots[s]]
                assert (w[s] == slot_w[slots[s]]).all()


def test_streams_come_from_seed_game_and_stream():
    rng = np.zeros(4, np.uint64)
    seed_chance_nb(rng, np.uint64(7), 3)
    assert (rng == new_stream(np.uint64(7), 3, CHANCE_STREAM)).all()
    prngs = np.zeros((3, 4), np.uint64)
    seed_policies_nb(prngs, np.uint64(7), 3)
    for s in range(3):
        assert (prngs[s] == new_stream(np.uint64(7), 3, POLICY_STREAM + s)).all()
    assert len({tuple(p) for p in prngs} | {tuple(rng)}) == 4


def test_rank_winner_margin():
    rank = np.zeros(4, np.int64)
    score = np.array([5, 9, 7, 9], np.int64)
    key = np.array([0, 1, 0, 3], np.int64)
    # tie on points shared without a key
    n_win, n_top, winner, margin = rank_nb(score, key, False, rank)
    assert list(rank) == [4, 1, 3, 1] and (n_win, n_top, margin) == (2, 2, 0)
    # the key breaks it: seat 3 wins alone, margin 0 (seat 1 has as many points)
    n_win, n_top, winner, margin = rank_nb(score, key, True, rank)
    assert list(rank) == [4, 2, 3, 1] and (n_win, n_top, winner, margin) == (1, 2, 3, 0)
    score = np.array([5, 12, 7, 9], np.int64)
    n_win, n_top, winner, margin = rank_nb(score, key, False, rank)
    assert (n_win, n_top, winner, margin) == (1, 1, 1, 3)
    solo = np.zeros(1, np.int64)
    assert rank_nb(np.array([4], np.int64), key[:1], False, solo) == (1, 1, 0, 0)


def test_required_columns_written_by_name():
    P = 3
    preq = required_columns(PLAYERS, REQUIRED_PLAYER_COLUMNS)
    greq = required_columns(GAMES, REQUIRED_GAME_COLUMNS)
    pl = np.full((len(PLAYERS.names), 2 * P), -9, np.int32)
    ga = np.full((len(GAMES.names), 2), -9, np.int64)
    score = np.array([4, 8, 8], np.int64)
    rank = np.zeros(P, np.int64)
    slots = np.array([2, 0, 1], np.int64)
    n_win, n_top, winner, margin = rank_nb(score, score, False, rank)
    write_seat_results_nb(pl, P, preq, 1, slots, score, rank, n_win)
    write_game_result_nb(ga, 1, greq, 1, winner, n_win, margin, 26, 0)
    cols = column_arrays(pl, PLAYERS, {**{n: np.int16 for n in PLAYERS.names}, "game": np.int64}, game_offset=100)
    assert list(cols["game"][P:]) == [101] * 3 and cols["game"].dtype == np.int64
    # the game numbers take their declared dtype, the offset added first in int64 (no wrap in the
    # matrix's narrow dtype: Skyline 3000's are int32)
    wide = column_arrays(pl.astype(np.int8), PLAYERS, {**{n: np.int16 for n in PLAYERS.names}, "game": np.int32},
                         game_offset=40_000)
    assert list(wide["game"][P:]) == [40_001] * 3 and wide["game"].dtype == np.int32
    assert list(cols["seat"][P:]) == [0, 1, 2]
    assert list(cols["lineup_slot"][P:]) == [2, 0, 1]
    assert list(cols["score"][P:]) == [4, 8, 8]
    assert list(cols["rank"][P:]) == [3, 1, 1]
    assert list(cols["win"][P:]) == [0, 1, 1]
    assert list(cols["shared_win"][P:]) == [0, 1, 1]
    assert list(cols["extra"]) == [-9] * 6  # a game's own column is left alone
    assert list(ga[:, 1]) == [1, -9, -1, 2, 0, 26, 0]
    # a column kept outside the matrix is taken as it is (the game numbers already absolute)
    special = column_arrays(pl, PLAYERS, {n: np.int16 for n in PLAYERS.names}, game_offset=100,
                            special={"game": np.arange(6, dtype=np.int64) + 7})
    assert list(special["game"]) == [7, 8, 9, 10, 11, 12] and special["game"].dtype == np.int16


def test_keep_alive_all_counts_its_owners():
    """Compiled (an intrinsic: it compiles to the count, nothing else) and in plain Python."""
    @numba.njit
    def owners_kept(a, b, c):
        return keep_alive_all(a, b, c)

    assert owners_kept(np.zeros(3), np.zeros((2, 2), np.int64), np.zeros(1, np.uint64)) == 3
    assert _keep_alive_all_py(np.zeros(3), np.zeros((2, 2), np.int64)) == 2


def test_copy_words_copies_exactly_its_range():
    """copy_words(dst, src, first, end) is dst[first:end] = src[first:end], compiled, for empty,
    short and long ranges anywhere in the arrays (its unsigned loop must not wrap or run over)."""
    @numba.njit
    def copied(dst, src, first, end):
        copy_words(dst, src, first, end)

    rng = np.random.default_rng(5)
    src = rng.integers(-2**62, 2**62, 300)
    for first, end in ((0, 0), (7, 7), (0, 300), (1, 2), (13, 290), (299, 300), (150, 151), (3, 140)):
        dst = rng.integers(-9, 9, 300)
        want = dst.copy()
        want[first:end] = src[first:end]
        copied(dst, src, first, end)
        assert np.array_equal(dst, want), (first, end)
