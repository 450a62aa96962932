"""experiments/recheck_variant.py on the toy game coin, whose seat edges are known: the Key (1st in turn
order) gets key_bonus x (multiplier - 1) x skill x 2 points, the seat after it 6 - platforms, every seat
0..19 points of luck. With the bonus off the seats are fair (each edge 0); with the Key's bonus at 8 points
(key_bonus 4, multiplier 3, greedy, 2 seats) the 1st seat's edge is +4 and the 2nd's -4."""
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.recheck_variant import comment_lines, main, recheck


def _run(tmp_path, name, *sets, seed=3, games=400):
    out = tmp_path / name
    args = ["run", "coin", "-n", str(games), "-p", "2", "--policy", "greedy", "--seed", str(seed), "-o", str(out),
            "--no-report", "--quiet", "-j", "1"]
    for s in sets:
        args += ["--set", s]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def test_a_fair_candidate_is_shown_inside_and_what_moved_is_listed(tmp_path):
    start = _run(tmp_path, "start", "scoring.key_bonus=4", "scoring.multiplier=3")  # Key +8: edges +4 / -4
    fair = _run(tmp_path, "fair", "scoring.key_bonus=0")
    result = recheck(start, fair, "seat_score_edge", 2.0)
    assert result["meets"] and [t["key"] for t in result["target"]] == ["1st", "2nd"]
    assert all(abs(t["estimate"]) < 1 for t in result["target"])
    moved = {(r["metric"], r["key"]): r for r in result["changes"] if r["moved"]}
    assert moved[("seat_score_edge", "1st")]["difference"] == pytest.approx(-4.0, abs=0.01)
    assert ("game_length", "all") not in moved                             # the bonus changes no game's length
    lines = comment_lines(result)
    assert lines[1] == "# seat_score_edge within +-2: shown for every key" and all(x.startswith("#") for x in lines)
    # the unfair rules are not shown inside +-2 (their edges are +-4), on 400 games
    unfair = recheck(fair, start, "seat_score_edge", 2.0)
    assert not unfair["meets"] and not any(t["shown"] for t in unfair["target"])


def test_runs_that_are_not_paired_are_refused(tmp_path, capsys):
    a = _run(tmp_path, "a", games=100)
    b = _run(tmp_path, "b", seed=4, games=100)
    with pytest.raises(ValueError, match="not paired: they differ in seed"):
        recheck(a, b)
    assert main([str(a), str(a)]) == 0
    assert "Nothing else moved" in capsys.readouterr().out
