"""The game-quality metrics over games of different lengths (Skyline of the World and Project
Skyline end on a trigger): each game is read over its own rounds, its final standing held after
them. Two hand-made games of 2 seats whose every figure is worked out by hand below."""
import numpy as np
import polars as pl
import pytest

from analysis import quality as Q

# game 0, 4 rounds: seat 1 leads, seat 0 leads after round 3, seat 1 wins
# game 1, 2 rounds: seat 1 leads after round 1, level after round 2; seat 0 wins on the tie-break
SCORES = {0: ([1, 1, 5, 6], [2, 3, 4, 7]), 1: ([1, 5], [3, 5])}
WINNER = {0: 1, 1: 0}


def race(stalled=(0, 0)):
    rows = [(g, k + 1, s, v) for g, seats in SCORES.items() for s, vals in enumerate(seats)
            for k, v in enumerate(vals)]
    rounds = pl.DataFrame(rows, schema=["game", "round", "seat", "score"], orient="row")
    players = pl.DataFrame([(g, s, int(WINNER[g] == s)) for g in SCORES for s in range(2)],
                           schema=["game", "seat", "win"], orient="row")
    games = pl.DataFrame({"game": [0, 1], "stalled": list(stalled)})
    return Q.race_from_frames(rounds, players, games, Q.RoundScores("rounds"))


def test_each_game_is_read_over_its_own_rounds():
    r = race()
    assert r.rounds == 4 and r.length.tolist() == [4, 2] and not r.fixed_length
    assert r.scores[1, :, 0].tolist() == [1, 5, 5, 5]          # the final standing held after round 2
    assert Q.lead_changes_values(r).tolist() == [2, 0]
    # game 1's winner leads (by the tie-break) from its own last round on, not from round 4
    assert Q.decided_round_values(r).tolist() == [4, 2]
    assert Q.RaceValues.of(r).decided_last.tolist() == [1, 1]
    assert Q.comeback_values(r).tolist() == [0, 1]            # halfway: after round 2 of 4, round 1 of 2
    assert Q.winner_deficit_values(r).tolist() == [1, 2]


def test_leader_after_round_r_counts_the_games_still_going():
    frame = Q.leader_wins_frame(race())
    got = {(row["key"], row["game"]): row["value"] for row in frame.iter_rows(named=True)}
    assert got == {(Q.after_round(1), 0): 1.0, (Q.after_round(1), 1): 0.0,
                   (Q.after_round(2), 0): 1.0, (Q.after_round(3), 0): 0.0}


def test_fixed_length_races_read_as_before():
    r = Q.Race(np.arange(1), np.array([[[1, 2], [3, 2]]]), np.array([[True, False]]))
    assert r.fixed_length and r.length.tolist() == [2]
    assert Q.decided_round_values(r).tolist() == [2] and Q.comeback_values(r).tolist() == [1]


def test_a_stalled_game_is_left_out():
    r = race(stalled=(0, 1))
    assert r.game.tolist() == [0] and r.length.tolist() == [4]
    assert Q.decided_round_values(r) == pytest.approx([4])


def test_leader_after_round_r_stops_where_fewer_than_half_the_games_go_on():
    r = race()
    assert r.leader_rounds == 3                     # after rounds 1-3 at least 1 of the 2 games went on
    three = Q.Race(np.arange(3), np.concatenate([r.scores, r.scores[1:]]), np.concatenate([r.win, r.win[1:]]),
                   np.array([4, 2, 2]))
    assert three.leader_rounds == 1                 # after round 2 only 1 game of 3 went on
    assert set(Q.leader_wins_frame(three)["key"]) == {Q.after_round(1)}


def test_race_values_kept_slice_by_slice_are_the_whole_race_s():
    """quality.race keeps each slice's per-game values and drops its dense race: the values of
    the parts, put together, are those of the whole race, and so are the metrics and verdicts."""
    r = race()
    rng = np.random.default_rng(3)
    games = 60
    scores = np.cumsum(rng.integers(0, 4, size=(games, 5, 3)), axis=1).astype(np.int32)
    win = scores[:, -1, :] == scores[:, -1, :].max(axis=1, keepdims=True)          # shared wins too
    length = rng.integers(2, 6, size=games)
    for k in range(1, 5):
        scores[length <= k, k] = scores[length <= k, k - 1]
    big = Q.Race(np.arange(games), scores, win, length)
    for whole in (r, big):
        n = len(whole.game)
        cuts = [0, n // 3, n // 2, n]
        parts = [Q.RaceValues.of(Q.Race(whole.game[a:b], whole.scores[a:b], whole.win[a:b], whole.length[a:b]))
                 for a, b in zip(cuts, cuts[1:])]
        joined, one = Q.RaceValues.concat(parts), Q.RaceValues.of(whole)
        for name in ("game", "length", "single", "lead_changes", "decided_round", "comeback", "winner_deficit",
                     "leaders", "winning_leaders", "decided_last"):
            np.testing.assert_array_equal(getattr(joined, name), getattr(one, name))
        assert joined.leader_rounds == whole.leader_rounds and joined.rounds == whole.rounds
        for k in range(whole.rounds):
            np.testing.assert_array_equal(joined.leader_wins(k), Q.leader_wins_values(whole, k))
        single = whole.single_winner
        np.testing.assert_array_equal(one.decided_round[whole.single], Q.decided_round_values(single))
        np.testing.assert_array_equal(one.comeback[whole.single], Q.comeback_values(single))
        np.testing.assert_array_equal(one.winner_deficit[whole.single], Q.winner_deficit_values(single))
        assert Q.race_verdicts(joined) == Q.race_verdicts(whole)
        assert Q.leader_wins_frame(joined).equals(Q.leader_wins_frame(whole))
