"""The expert's time profile (experiments/skyline_3000_expert_profile.py) runs and prints a figure
per part and per phase; it asserts no time (figures are printed, not tested)."""
import math

import pytest

from experiments import skyline_3000_expert_profile as profile


@pytest.mark.slow
def test_the_profile_times_every_part_and_piece_per_phase(capsys):
    rows = profile.main(["--games", "1", "--repeats", "1", "--part", "full", "--part", "no_settle"])
    assert [r["what"] for r in rows] == ["full", "no_settle", *profile.PIECES]
    for r in rows:
        assert r["us_per_decision"] > 0 and math.isfinite(r["us_per_decision"])
        assert {"construction", "bid", "draw"} <= set(r)
    out = capsys.readouterr().out
    assert "decision states of 1 four-player expert games" in out and "determinize" in out


def test_an_unknown_part_is_refused():
    with pytest.raises(ValueError, match="part must be one of"):
        profile.expert_variant("no_rules")


def test_counting_instructions_without_valgrind_is_refused_in_one_line(monkeypatch):
    """--instructions runs the expert under valgrind's callgrind with a helper it compiles: on a
    machine without them it says what is missing instead of failing part way."""
    monkeypatch.setattr(profile.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="needs valgrind"):
        profile.main(["--instructions", "--games", "1"])
