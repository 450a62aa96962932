"""The choice and kingmaking words of the "Game quality" section (analysis.quality, analysis.kingmaking)
in worlds of known truth.

Choice world: G games; game g's decisions each offer a real choice with probability m_g (m_g drawn
around m, so games differ) and then 2 + Poisson(LAMBDA) legal actions, else one. The truth: the mean
per-game share is m, the mean branching factor 1 + m (1 + LAMBDA). "Mostly forced" must be said at
most 5% of the time at m = 0.5 (false there), most of the time at m = 0.35 (300 games), never at m = 0.7.

Kingmaking world: a toy three-seat game through the step API (the same calls the engines answer).
Seats 0 and 1 race, seat 2 trails and decides last: it gives 2 points to seat 0, to seat 1 or to
itself. A deal is "close" (seats 0 and 1 level: seat 2's choice picks the winner) with probability q,
and with probability HOPE seat 2 is close enough to win by taking the points itself (then its choice
is no kingmaking: it can win). The measurement must find kingmaking exactly in the close deals where
seat 2 cannot win, and the quoted Wilson interval must cover the truth about 95% of the time.
"""
import numpy as np
import pytest

from analysis import kingmaking as K
from analysis import quality as Q

LAMBDA = 3.0
HOPE = 0.3


def choice_world(games: int, m: float, rng: np.random.Generator, decisions: int = 40):
    mg = np.clip(m + rng.uniform(-0.15, 0.15, games), 0, 1)
    real = rng.random((games, decisions)) < mg[:, None]
    legal = np.where(real, 2 + rng.poisson(LAMBDA, (games, decisions)), 1)
    return real.mean(axis=1), legal.mean(axis=1)


def forced_rate(m: float, games: int, replicates: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    return sum(Q.forced_verdict(choice_world(games, m, rng)[0])[0] for _ in range(replicates)) / replicates


def test_mostly_forced_quick():
    assert forced_rate(0.5, 200, 100, seed=1) <= 0.1
    assert forced_rate(0.35, 300, 40, seed=2) >= 0.8
    assert forced_rate(0.7, 300, 40, seed=3) == 0


@pytest.mark.slow
def test_mostly_forced_in_worlds_of_known_truth():
    assert forced_rate(0.5, 300, 400, seed=4) <= 0.05
    assert forced_rate(0.35, 300, 200, seed=5) >= 0.8


def test_the_quoted_choice_intervals_cover_the_truth():
    rng = np.random.default_rng(6)
    m, reps = 0.6, 300
    cover = np.zeros(2)
    for _ in range(reps):
        share, branching = choice_world(150, m, rng)
        _, (_, low, high) = Q.forced_verdict(share)
        cover[0] += low <= m <= high
        b = Q.bonferroni_lower(branching, 1)
        cover[1] += b[1] <= 1 + m * (1 + LAMBDA) <= b[2]
    assert (cover / reps >= 0.92).all(), cover / reps


class Toy:
    """Three seats; seat 0 and 1 each take one forced move, then seat 2 chooses (actions 0, 1, 2: two
    points to that seat). Policies: seat 2's policy draws from its own stream, as the engines do."""

    def __init__(self, close: bool, hope: bool, stream: np.random.Generator):
        self.score = [10, 10 if close else 15, 9 if hope else 0]
        self.turn = 0
        self.stream = stream

    def clone(self):
        g = Toy.__new__(Toy)
        g.score, g.turn = list(self.score), self.turn
        g.stream = np.random.default_rng()
        g.stream.bit_generator.state = self.stream.bit_generator.state
        return g

    def current_player(self):
        return self.turn if self.turn < 3 else -1

    def is_over(self):
        return self.turn >= 3

    def legal_actions(self):
        return [self.turn] if self.turn < 2 else [0, 1, 2]

    def policy_action(self, label):
        return int(self.stream.integers(0, 3)) if self.turn == 2 else self.turn

    def apply(self, a):
        if a not in self.legal_actions():
            raise ValueError(a)
        if self.turn == 2:
            self.score[a] += 2
        self.turn += 1

    def scores(self):
        return list(self.score)


def toy_game(close: bool, hope: bool, seed: int) -> Toy:
    return Toy(close, hope, np.random.default_rng(seed))


def measured(close: bool, hope: bool, seed: int) -> dict:
    final = toy_game(close, hope, seed)
    K.play_out(final, ["p"] * 3)
    return K.game_kingmaking(lambda: toy_game(close, hope, seed), ["p"] * 3, final.scores(), seed, seed,
                             window=30, actions=K.ACTIONS)


def test_kingmaking_is_found_exactly_where_it_is():
    for seed in range(20):
        for close in (False, True):
            for hope in (False, True):
                row = measured(close, hope, seed)
                assert row["kingmaking"] == int(close and not hope), (close, hope, row)
                assert row["tried"] == 1 and row["trailing"] == int(not (hope and close))


def test_a_replay_that_differs_from_the_run_is_refused():
    with pytest.raises(K.NotReplayable):
        K.game_kingmaking(lambda: toy_game(True, False, 0), ["p"] * 3, [99, 0, 0], 0, 0, 30, K.ACTIONS)


def kingmaking_world(q: float, games: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    close, hope = rng.random(games) < q, rng.random(games) < HOPE
    seeds = rng.integers(0, 2**31, games)
    values = np.array([measured(bool(c), bool(h), int(s))["kingmaking"] for c, h, s in zip(close, hope, seeds)])
    return values.astype(float), q * (1 - HOPE)


def test_kingmaking_words_in_worlds_of_known_truth():
    rng = np.random.default_rng(8)
    reps, cover, seen_at_zero, seen_large = 150, 0, 0, 0
    for _ in range(reps):
        values, truth = kingmaking_world(0.4, K.GAMES, rng)
        seen, (_, low, high) = Q.kingmaking_verdict(values)
        cover += low <= truth <= high
        seen_large += seen
        seen_at_zero += Q.kingmaking_verdict(kingmaking_world(0.0, K.GAMES, rng)[0])[0]
    # the quoted interval covers the truth about 95% of the time; "seen" is never said where there
    # is none, and almost always where 28% of the games have it (30 games sampled)
    assert cover / reps >= 0.92 and seen_at_zero == 0 and seen_large / reps >= 0.95


def test_kingmaking_on_engine_runs(tmp_path):
    # Cityline under its default rules: no seat can change another's sheet (shared dice, no re-roll for
    # the table), so whatever a trailing seat does, the winners stay: never kingmaking. Skyline 3000 4p:
    # its games replay through the step API to the run's scores (else NotReplayable), and the measure
    # spends at most its step budget
    from analysis.frames import RunData
    from experiments.runner import run_batch

    run = run_batch("cityline", players=3, policies=["heuristic", "greedy", "random"], n_games=12, seed=3,
                    out=tmp_path / "cityline", progress=False)
    frame = K.measure(RunData(run.path, 12), games=12)
    assert frame.height == 12 and frame["kingmaking"].sum() == 0 and frame["tried"].min() > 0
    run = run_batch("skyline_3000", players=4, policies=["heuristic", "greedy", "random", "heuristic"], n_games=6,
                    seed=3, out=tmp_path / "skyline", progress=False)
    frame = K.measure(RunData(run.path, 6), games=6, max_steps=1)
    assert frame.height == 1 and frame["tried"][0] > 0 and frame["steps"][0] > 0
