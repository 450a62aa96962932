"""experiments/imitation_ceiling.py: how often the search agrees with itself and the policies with
it, at its own games' decisions; and the step API's aside ask (Game.policy_action's `stream`)."""
from __future__ import annotations

import numpy as np

from engines.core.rng import new_stream
from engines.registry import get_game
from experiments.imitation_ceiling import agreement, main, rate

SPEC = get_game("cityline")


def test_an_aside_ask_draws_from_its_own_stream_and_leaves_the_game_as_it_was():
    plain = SPEC.new_game("default", 2, 5, 1)
    asked = SPEC.new_game("default", 2, 5, 1)
    k = 0
    while not plain.is_over():
        p = asked.current_player()
        seat = asked._prngs[p].copy()
        # the seat's own stream, handed in as a copy: the same pick, and the seat's stream untouched
        assert asked.policy_action("heuristic", stream=seat.copy()) == plain.policy_action("heuristic")
        other = new_stream(np.uint64(9), np.int64(k), np.int64(77))
        asked.policy_action("heuristic", stream=other)
        assert np.array_equal(asked._prngs[p], seat)
        a = asked.policy_action("heuristic")
        plain_state = plain.state.data.copy()
        plain.apply(a)
        asked.apply(a)
        assert np.array_equal(asked.state.data, plain.state.data) and not np.array_equal(plain_state, plain.state.data)
        k += 1
    assert asked.scores() == plain.scores()


def test_a_deterministic_teacher_agrees_with_itself_and_random_play_does_not():
    ceiling = agreement("cityline", players=2, games=3, seed=4, teacher="greedy(jitter=0)",
                        policies=("greedy(jitter=0)", "random"), asks=2)
    everything = ceiling.phases["all"]
    n = everything["decisions"]
    assert n.sum() > 30 and (n > 0).all()
    assert np.array_equal(everything["again"], n)
    assert np.array_equal(everything["mode"], n)
    assert np.array_equal(everything["greedy(jitter=0)"], n)
    assert everything["random"].sum() < n.sum()
    # the phases add up to the whole
    phases = [t for name, t in ceiling.phases.items() if name != "all"]
    assert sum(t["decisions"] for t in phases).tolist() == n.tolist()
    r, lo, hi = rate(everything["random"], n)
    assert lo <= r <= hi < 1.0
    # every move has one kind: a phase's kinds add up to its decisions, for each player; a copy of the
    # teacher plays every kind exactly as often as the teacher
    for name in ("teacher", "again", "greedy(jitter=0)", "random"):
        for phase, row in ceiling.phases.items():
            if phase != "all":
                made = sum(k[name] for kind, k in ceiling.kinds.items() if kind.split(":")[0] == phase and name in k)
                assert made.tolist() == row["decisions"].tolist()
    assert all(np.array_equal(k["teacher"], k.get("again")) for k in ceiling.kinds.values())


def test_a_jittered_teacher_disagrees_with_itself_sometimes(capsys):
    main(["cityline", "-p", "2", "-n", "3", "--seed", "4", "--teacher", "greedy(jitter=5)", "--policy", "random"])
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith("all"))
    again = float(line.split()[2])
    assert 0.0 < again < 1.0
    assert "mode" not in out    # asked for no more answers


def test_the_mode_of_more_answers_is_the_teachers_move_more_often_than_one_answer():
    # a teacher that plays one move far more often than any other: greedy with jitter of the order of
    # its values' gaps; eight answers find its likely move more often than one answer matches it
    ceiling = agreement("cityline", players=2, games=6, seed=4, teacher="greedy(jitter=2)", policies=(), asks=8)
    everything = ceiling.phases["all"]
    assert "mode" in everything
    assert everything["mode"].sum() > everything["again"].sum()
