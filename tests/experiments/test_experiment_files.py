"""Bad experiment files are refused before any game runs or any folder is made,
naming the file, the key and the reason."""
import textwrap

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.experiment import ExperimentError, load_experiment, run_experiment

GOOD = """
# Does the Key edge grow with the multiplier?
[experiment]
game = "coin"
players = 3
policies = ["strong"]
games = 200
seed = 1
metrics = ["first_builder_win_rate", "seat_edge"]

[sweep]
"scoring.multiplier" = [1, 2, 3]
"""


def _write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_good_file_parses(tmp_path):
    exp = load_experiment(_write(tmp_path, GOOD))
    assert exp.kind == "sweep" and exp.name == "exp" and exp.question == "Does the Key edge grow with the multiplier?"
    assert [p.params for p in exp.plans] == [{"scoring.multiplier": v} for v in (1, 2, 3)]
    assert exp.baseline == 1  # the default variant's value (2) is the baseline
    assert [p.players for p in exp.plans] == [3, 3, 3] and exp.plans[0].policies == ["strong"] * 3


def test_ranges_nested_keys_and_grids(tmp_path):
    exp = load_experiment(_write(tmp_path, GOOD.replace('"scoring.multiplier" = [1, 2, 3]',
                                                        'scoring.multiplier = { start = 1, stop = 4 }\n'
                                                        '"board.platforms" = [5, 6]')))
    assert len(exp.plans) == 8
    assert exp.plans[0].label == "multiplier=1, platforms=5"
    assert exp.plans[exp.baseline].params == {"scoring.multiplier": 2, "board.platforms": 6}


BAD = [
    # (change to GOOD, key named, words in the reason)
    (("seed = 1", "seed = 1\nsead = 2"), "experiment.sead", "unknown key (did you mean 'seed'?)"),
    (("[sweep]", "[sweeps]"), "sweeps", "unknown key (did you mean 'sweep'?)"),
    (('"scoring.multiplier"', '"scoring.multipler"'), "sweep.scoring.multipler",
     "coin has no variant parameter 'scoring.multipler' (did you mean 'scoring.multiplier'?)"),
    (("[1, 2, 3]", "[1, 2, 7]"), "sweep.scoring.multiplier", "must be at most 4, not 7 (value 7)"),
    (("[1, 2, 3]", '[1, "two"]'), "sweep.scoring.multiplier", "must be an integer, not 'two'"),
    (("[1, 2, 3]", "{ start = 0, stop = 3 }"), "sweep.scoring.multiplier", "must be at least 1, not 0"),
    (("[1, 2, 3]", "[]"), "sweep.scoring.multiplier", "non-empty list"),
    (('["strong"]', '["expert"]'), "experiment.policies", "unknown policy 'expert' for coin"),
    (('"seat_edge"]', '"seat_egde"]'), "experiment.metrics", "unknown metric 'seat_egde' for coin (did you mean 'seat_edge'?)"),
    (('"first_builder_win_rate"', '"key_player_win_rate"'), "experiment.metrics",
     "unknown metric 'key_player_win_rate' for coin (renamed: use 'first_builder_win_rate')"),
    (("players = 3", "players = 9"), "experiment.players", "Coin is for 1-4 players, not 9"),
    (("games = 200", "games = 0"), "experiment.games", "must be at least 2, not 0"),
    (("games = 200", 'games = "many"'), "experiment.games", "must be an integer, not 'many'"),
    (('game = "coin"', 'game = "chess"'), "experiment.game", "unknown game 'chess'"),
    (("[sweep]", "[compare.a]\n[compare.b]\n[sweep]"), "compare", "one of a sweep, a comparison, a fairness matrix or a ladder"),
    (("[sweep]", "[precision]\nhalf_width = -1\n[sweep]"), "precision.half_width", "must be positive"),
    (("[sweep]", "[power]\neffects = { seat_edge = 0 }\n[sweep]"), "power.effects.seat_edge", "must be positive"),
    # read as "the default" before (issue 25): 0 players, an empty line-up; an unbounded precision cap
    (("players = 3", "players = 0"), "experiment.players", "Coin is for 1-4 players, not 0"),
    (('["strong"]', "[]"), "experiment.policies", "no policy given"),
    (("[sweep]", "[precision]\nhalf_width = 0.1\nmax_games = 100_000_000_000_000\n[sweep]"), "precision.max_games",
     "must be at most 1,000,000,000 per batch, not 100,000,000,000,000"),
]


@pytest.mark.parametrize("change, key, reason", BAD, ids=[b[1] + ":" + b[2][:20] for b in BAD])
def test_bad_files_are_refused_naming_file_key_and_reason(tmp_path, change, key, reason):
    path = _write(tmp_path, GOOD.replace(*change))
    results = tmp_path / "results"
    with pytest.raises(ExperimentError) as info:
        run_experiment(path, results=results)
    error = info.value
    assert error.source == str(path) and error.key == key and reason in error.reason, str(error)
    assert str(path) in str(error) and f"'{key}'" in str(error)
    assert not results.exists()  # refused before any folder was made


def test_bad_compare_arms(tmp_path):
    base = GOOD.split("[sweep]")[0]
    cases = [
        ("[compare.a]\n", "compare", "at least two arms"),
        ("[compare.a]\n[compare.b]\nvariant = 'nope'\n", "compare.b.variant", "no variant 'nope' for coin"),
        ("[compare.a]\n[compare.b]\noverrides = { 'board.platforms' = 2 }\n", "compare.b.overrides.board.platforms",
         "must be at least 3, not 2"),
        ("[compare.a]\n[compare.b]\noverides = {}\n", "compare.b.overides", "did you mean 'overrides'"),
        ("[compare]\nbaseline = 'c'\n[compare.a]\n[compare.b]\n", "compare.baseline", "no arm 'c'"),
        ("[compare.a]\n[compare.b]\npolicies = ['strong', 'random']\n", "compare.b.policies", "2 policies given for 3"),
    ]
    for body, key, reason in cases:
        path = _write(tmp_path, base + body)
        with pytest.raises(ExperimentError) as info:
            load_experiment(path)
        assert info.value.key == key and reason in info.value.reason, str(info.value)


def test_an_arms_error_names_its_table_not_its_label(tmp_path):
    # the key read 'compare.7 platforms (default).policies', a table no file has
    base = GOOD.split("[sweep]")[0]
    path = _write(tmp_path, base + "[compare.a]\nlabel = 'A (default)'\n[compare.b]\nlabel = 'B two'\n"
                                   "policies = ['strong', 'random']\n")
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    assert info.value.key == "compare.b.policies" and "2 policies given for 3" in info.value.reason, str(info.value)
    # a value the arms inherit from [experiment] is named there
    path = _write(tmp_path, base.replace("players = 3", "players = 0") + "[compare.a]\nlabel = 'A (default)'\n"
                                                                         "[compare.b]\n")
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    assert info.value.key == "experiment.players" and "not 0" in info.value.reason, str(info.value)


def test_cli_refuses_a_bad_file_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path, GOOD.replace("[1, 2, 3]", "[1, 2, 9]"))
    result = CliRunner().invoke(app, ["run", str(path)])
    assert result.exit_code == 2
    assert f"{path}: key 'sweep.scoring.multiplier': must be at most 4, not 9" in result.output
    assert not (tmp_path / "results").exists()


def test_skyline_metric_renamed_in_issue_12_points_to_its_new_name(tmp_path):
    # "key_player_*" measured a turn-order position (who builds first in round 1): now "first_builder_*"
    path = _write(tmp_path, """
        [experiment]
        game = "skyline_3000"
        games = 100
        seed = 1
        metrics = ["seat_edge"]
        [power]
        effects = { key_player_edge = 0.02 }
        """)
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    assert info.value.key == "power.effects" and "renamed: use 'first_builder_edge'" in info.value.reason


# --- every numeric key, generated (issue 25, item 2): out of range, nan or inf is refused by name -----

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
NOT_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
PRECISION = "[precision]\nhalf_width = 0.1\n[sweep]"
POWER = "[power]\neffects = { seat_edge = 0.02 }\n[sweep]"
# key -> ((text of GOOD, its replacement with @ for the value), the values that must be refused)
NUMERIC = {
    "experiment.games": (("games = 200", "games = @"),
                         st.one_of(st.integers(max_value=1), st.integers(min_value=10**9 + 1, max_value=2**62))),
    "experiment.seed": (("seed = 1", "seed = @"),
                        st.one_of(st.integers(max_value=-1, min_value=-2**62), st.integers(min_value=2**63, max_value=2**63 + 10**6))),
    "experiment.players": (("players = 3", "players = @"),
                           st.one_of(st.integers(max_value=0, min_value=-2**62), st.integers(min_value=5, max_value=2**62))),
    "experiment.confidence": (("seed = 1", "seed = 1\nconfidence = @"),
                              st.one_of(st.floats(max_value=0.5, exclude_max=True), st.floats(min_value=1.0), NOT_FINITE)),
    "experiment.seat_margin": (("seed = 1", "seed = 1\nseat_margin = @"),
                               st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), NOT_FINITE)),
    "precision.half_width": (("[sweep]", PRECISION.replace("0.1", "@")), st.one_of(st.floats(max_value=0.0), NOT_FINITE)),
    "precision.max_games": (("[sweep]", PRECISION.replace("[sweep]", "max_games = @\n[sweep]")),
                            st.one_of(st.integers(max_value=199, min_value=-2**62), st.integers(min_value=10**9 + 1, max_value=2**62))),
    "power.power": (("[sweep]", POWER.replace("[sweep]", "power = @\n[sweep]")),
                    st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), NOT_FINITE)),
    "power.alpha": (("[sweep]", POWER.replace("[sweep]", "alpha = @\n[sweep]")),
                    st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), NOT_FINITE)),
    "power.effects.seat_edge": (("[sweep]", POWER.replace("0.02", "@")), st.one_of(st.floats(max_value=0.0), NOT_FINITE)),
}


def _toml_value(value) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return repr(value)


@pytest.mark.parametrize("key", list(NUMERIC))
def test_every_numeric_key_refuses_values_out_of_range(tmp_path, key):
    (old, template), values = NUMERIC[key]

    @SETTINGS
    @given(value=values)
    def check(value):
        path = _write(tmp_path, GOOD.replace(old, template.replace("@", _toml_value(value))))
        with pytest.raises(ExperimentError) as info:
            load_experiment(path)
        assert info.value.key == key, (value, str(info.value))

    check()
