"""The game-quality words (analysis.quality) in races of known truth.

The world: P seats, R rounds. After round 1 one seat L leads alone and keeps the lead alone to
round R-1; the eventual winner W is L with probability p, else one of the others at random, and
takes the lead (alone) only in the last round. So, exactly: the leader after every round r < R
wins with probability p, the game is decided in round 1 with probability p ("decided early") and
in the last round with probability 1 - p ("decided late"), a comeback happens with probability
1 - p, the lead changes hands 1 - p times per game on average, and the winner is DEFICIT points
behind at worst when W != L.

The verdicts ("Runaway leader", "Decided late", "Decided early") must be false at most 5% of the
time at the boundary p = 0.5 (none is true there), and be said most of the time when the effect
is large (p = 0.7 or 0.3 at 300 games). The figures the sentences quote have intervals that cover
the truth about 95% of the time.
"""
import numpy as np
import polars as pl
import pytest

from analysis import quality as Q
from analysis.frames import Metric, estimate

DEFICIT = 7


def race_world(games: int, p: float, rng: np.random.Generator, seats: int = 4, rounds: int = 4,
               shared: float = 0.0) -> Q.Race:
    leader = rng.integers(0, seats, games)
    other = (leader + rng.integers(1, seats, games)) % seats
    winner = np.where(rng.random(games) < p, leader, other)
    scores = np.zeros((games, rounds, seats), np.int64)
    base = rng.integers(0, 3, (games, 1, seats)) + 3 * np.arange(1, rounds + 1)[None, :, None]
    scores += base
    rows = np.arange(games)
    for k in range(rounds - 1):
        top = scores[:, k, :].max(axis=1)
        scores[rows, k, leader] = top + DEFICIT          # L leads alone, DEFICIT points above the best other
        scores[rows, k, winner] = np.where(winner == leader, scores[rows, k, leader], top)
    scores[rows, rounds - 1, winner] = scores[:, rounds - 1, :].max(axis=1) + 5
    win = np.zeros((games, seats), bool)
    win[rows, winner] = True
    tie = rng.random(games) < shared                   # a shared win: a second winner, level on points
    second = (winner + 1) % seats
    win[rows[tie], second[tie]] = True
    scores[rows[tie], rounds - 1, second[tie]] = scores[rows[tie], rounds - 1, winner[tie]]
    return Q.Race(np.arange(games), scores, win)


def test_the_world_has_the_truth_the_docstring_says():
    r = race_world(4000, 0.7, np.random.default_rng(0))
    assert Q.leader_wins_values(r, 0).mean() == pytest.approx(0.7, abs=0.03)
    decided = Q.decided_round_values(r)
    assert set(np.unique(decided)) == {1.0, 4.0}
    assert (decided == 1).mean() == pytest.approx(0.7, abs=0.03)
    assert Q.comeback_values(r).mean() == pytest.approx(0.3, abs=0.03)
    assert Q.lead_changes_values(r).mean() == pytest.approx(0.3, abs=0.03)
    deficit = Q.winner_deficit_values(r)
    assert set(np.unique(deficit)) == {0.0, DEFICIT}


def test_a_lead_shared_by_everyone_is_no_lead():
    # everyone at 0 after round 1, seat 2 leads alone from round 2 and wins: decided in round 2, and the
    # leaders after round 1 (all four) share one win
    scores = np.array([[[0, 0, 0, 0], [1, 2, 5, 0], [3, 3, 9, 1]]])
    win = np.array([[False, False, True, False]])
    r = Q.Race(np.arange(1), scores, win)
    assert Q.decided_round_values(r)[0] == 2
    assert Q.leader_wins_values(r, 0)[0] == pytest.approx(0.25)
    assert Q.lead_changes_values(r)[0] == 0
    assert Q.comeback_values(r)[0] == 0.0      # halfway is round ceil(3/2) = 2, where seat 2 led alone


def claims(p: float, games: int, replicates: int, seed: int, shared: float = 0.0):
    rng = np.random.default_rng(seed)
    runaway = late = early = 0
    for _ in range(replicates):
        v = Q.race_verdicts(race_world(games, p, rng, shared=shared))
        runaway += v.runaway_round is not None
        late += v.decided_late
        early += v.decided_early
    return runaway / replicates, late / replicates, early / replicates


def test_quality_words_quick():
    runaway, late, early = claims(0.5, 200, 100, seed=1)
    assert runaway <= 0.1 and late <= 0.1 and early <= 0.1
    runaway, late, early = claims(0.75, 300, 30, seed=2)
    assert runaway >= 0.8 and early >= 0.8 and late == 0
    runaway, late, early = claims(0.25, 300, 30, seed=3)
    assert late >= 0.8 and runaway == 0 and early == 0


@pytest.mark.slow
def test_quality_words_in_worlds_of_known_truth():
    # at the boundary (p = 0.5) none of the three words is true: each is said at most 5% of the time
    runaway, late, early = claims(0.5, 300, 400, seed=4, shared=0.05)
    assert runaway <= 0.05 and late <= 0.05 and early <= 0.05
    # a large effect is found most of the time, and never the opposite word
    runaway, late, early = claims(0.7, 300, 200, seed=5)
    assert runaway >= 0.8 and early >= 0.8 and late == 0
    runaway, late, early = claims(0.3, 300, 200, seed=6)
    assert late >= 0.8 and runaway == 0 and early == 0


def _interval(values, kind):
    frame = pl.DataFrame({"game": np.arange(len(values)), "key": ["all"] * len(values), "value": values})
    row = estimate(Metric("x", "", kind, lambda run: None), frame).row(0, named=True)
    return row["low"], row["high"]


def test_the_quoted_intervals_cover_the_truth():
    # the sentences quote the metrics' 95% intervals (game as unit): leader after round 1 wins, comeback
    # share, lead changes per game, the winner's worst deficit; each covers its known truth about 95% of the time at 150 games
    rng = np.random.default_rng(7)
    p, reps = 0.6, 300
    cover = np.zeros(4)
    for _ in range(reps):
        r = race_world(150, p, rng)
        checks = [(Q.leader_wins_values(r, 0), "proportion", p), (Q.comeback_values(r), "proportion", 1 - p),
                  (Q.lead_changes_values(r), "mean", 1 - p), (Q.winner_deficit_values(r), "mean", (1 - p) * DEFICIT)]
        for i, (values, kind, truth) in enumerate(checks):
            low, high = _interval(values, kind)
            cover[i] += low <= truth <= high
    assert (cover / reps >= 0.91).all(), cover / reps


def test_quality_metrics_from_a_run_folder_by_hand(tmp_path):
    # skyline_3000 declares ROUND_SCORES; 3 games of 2 seats and 3 rounds. Game 0: seat 1 trails by 4
    # after round 1, ties after round 2, wins (decided in round 3, one lead change, deficit 4). Game 1:
    # seat 0 leads throughout and wins. Game 2: stalled, left out of every quality metric.
    import json

    from analysis import metrics as M
    rounds = pl.DataFrame({
        "game": [0] * 6 + [1] * 6 + [2] * 6, "round": [1, 2, 3] * 6, "seat": ([0] * 3 + [1] * 3) * 3,
        "score": [5, 8, 9, 1, 8, 12, 3, 6, 9, 1, 2, 3, 9, 9, 9, 0, 0, 0]})
    players = pl.DataFrame({"game": [0, 0, 1, 1, 2, 2], "seat": [0, 1] * 3, "lineup_slot": [0, 1] * 3,
                            "key_player": [1, 0] * 3, "score": [9, 12, 9, 3, 9, 0], "win": [0, 1, 1, 0, 1, 0]})
    games = pl.DataFrame({"game": [0, 1, 2], "first_key": [0, 0, 0], "n_winners": [1, 1, 1], "margin": [3, 6, 9],
                          "decisions": [10, 10, 10], "stalled": [0, 0, 1]})
    for name, frame in (("players", players), ("games", games), ("rounds", rounds)):
        (tmp_path / name).mkdir()
        frame.write_parquet(tmp_path / name / "part-000000.parquet")
    (tmp_path / "_done").mkdir()
    (tmp_path / "_done" / "000000").write_text("{}")
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"game": "skyline_3000", "players": 2, "lineup": ["a", "a"], "variant": {"values": {}}}))
    run = M.RunData(tmp_path, n_games=3)
    known = M.metrics_for("skyline_3000")
    from analysis.skyline_3000 import ROUND_SCORES
    names = set(Q.metrics(ROUND_SCORES))
    assert names <= set(known) and not names & set(M.metrics_for("cityline"))

    def values(name):
        frame = known[name].compute(run).sort(["key", "game"])
        return [(g, k, v) for g, k, v in frame.iter_rows()]

    assert values("decided_round") == [(0, "all", 3.0), (1, "all", 1.0)]
    assert values("decided_last_round") == [(0, "all", 1.0), (1, "all", 0.0)]
    assert values("lead_changes") == [(0, "all", 1.0), (1, "all", 0.0)]   # seat 0 alone, level, seat 1 alone
    assert values("winner_deficit") == [(0, "all", 4.0), (1, "all", 0.0)]
    assert values("comeback") == [(0, "all", 1.0), (1, "all", 0.0)]       # halfway = round 2: seat 1 only tied
    assert values("leader_wins") == [(0, "after round 1", 0.0), (1, "after round 1", 1.0),
                                     (0, "after round 2", 0.5), (1, "after round 2", 1.0)]


def test_the_section_on_a_run_and_on_a_run_without_the_rounds_table(tmp_path):
    import shutil
    import sys
    from pathlib import Path

    from analysis.run import Run
    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic_run import write_synthetic_run

    path = write_synthetic_run(tmp_path / "run", n_games=400, players=4)
    from analysis.skyline_3000 import ROUND_SCORES
    section = Q.quality_section(Run.open(path), ROUND_SCORES)
    assert section.title == "Game quality" and "after round 1" in section.text
    table = section.tables[0][1]
    assert {"lead_changes", "decided_round", "leader_wins", "comeback", "winner_deficit", "tie_rate",
            "stall_rate"} <= set(table["metric"])
    # a share of games and a mean per game in their own columns, each row one of them, inside its interval
    assert (table["share of games"].is_null() ^ table["mean"].is_null()).all()
    for estimate, low, high in (("share of games", "share 95% low", "share 95% high"), ("mean", "95% low", "95% high")):
        rows = table.filter(table[estimate].is_not_null())
        assert rows.height and (rows[low] <= rows[estimate]).all() and (rows[estimate] <= rows[high]).all()
    assert set(table.filter(table["share of games"].is_not_null())["metric"]) >= {"leader_wins", "stall_rate"}
    shutil.rmtree(path / "rounds")                       # a run folder written before the rounds table
    old = Q.quality_section(Run.open(path), ROUND_SCORES)
    assert "no `rounds` table" in old.text and not old.tables and not old.findings
