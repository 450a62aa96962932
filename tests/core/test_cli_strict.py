"""Every command as strict as `run` (issue 25, item 2): every count, probability, rate and name
is checked before any work; a bad one is refused in one line, exit 2, nothing written.

Before: `tune --trials 0 / -n 0 / --validate-games 0` were tracebacks, `power --pilot 0` a
ZeroDivisionError, `--power 1.5` an overflow, `--effect x=nan` a traceback after the pilot ran,
`--alpha 2` was used; `ladder -n 0` played 160 games a table, one `--rung` said "declares no
ladder", `-p 9` left an empty folder; `--scheduler tcp://127.0.0.1:1` printed 186 lines after
30 s; a Skyline 3000 variant without a single card was played and reported.
"""
import math
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from experiments.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = str(ROOT / "experiments" / "skyline_3p_fairness.toml")
SENSITIVITY = str(ROOT / "experiments" / "skyline_3000_sensitivity.toml")
cli = CliRunner()

# (arguments, a phrase the one line must hold): the closing note's bad-input table is this list
BAD = [
    (["tune", "cityline", "heuristic", "--trials", "0"], "--trials must be between 1 and"),
    (["tune", "cityline", "heuristic", "-n", "0"], "--games must be between 1 and"),
    (["tune", "cityline", "heuristic", "--validate-games", "0"], "--validate-games must be between 1 and"),
    (["tune", "cityline", "heuristic", "-p", "9"], "is for 1-6 players, not 9"),
    (["tune", "cityline", "heuristic", "--seed", "-1"], "--seed must be between 0"),
    (["tune", "cityline", "heuristic", "--preset", "my preset"], "must be a name of letters, digits and _"),
    (["tune", "cityline", "heuristic", "--preset", "greedy"], "is already a policy of cityline"),
    (["tune", "cityline", "oracle"], "unknown policy 'oracle'"),
    (["tune", "chess", "heuristic"], "unknown game 'chess'"),
    (["power", EXPERIMENT, "--effect", "seat_score_edge=2", "--pilot", "0"], "key 'pilot': must be between 2"),
    (["power", EXPERIMENT, "--effect", "seat_score_edge=2", "--power", "1.5"], "key 'power': must be a probability"),
    (["power", EXPERIMENT, "--effect", "seat_score_edge=2", "--alpha", "2"], "key 'alpha': must be a probability"),
    (["power", EXPERIMENT, "--effect", "x=nan"], "must be a positive finite number, not nan"),
    (["power", EXPERIMENT, "--effect", "seat_score_edge=inf"], "must be a positive finite number, not inf"),
    (["power", EXPERIMENT, "--effect", "seat_score_edge=-1"], "must be a positive finite number"),
    (["power", EXPERIMENT, "--effect", "nonsense=2"], "unknown metric 'nonsense'"),
    (["power", EXPERIMENT, "--effect", "seat_score_edge=2", "-j", "0"], "key 'workers': must be at least 1"),
    (["power", "nowhere.toml", "--effect", "seat_score_edge=2"], "nowhere.toml"),
    (["power", SENSITIVITY, "--effect", "seat_score_edge=2"], "is read by experiments.variant_design.load_any"),
    (["run", SENSITIVITY, "-n", "1"], "key 'games': must be at least 2"),
    (["ladder", "cityline", "-n", "0"], "--games must be between 1 and"),
    (["ladder", "cityline", "--findings-games", "-1"], "--findings-games must be between 0"),
    (["ladder", "cityline", "--rung", "random"], "give --rung at least twice (one given: random)"),
    (["ladder", "cityline", "--rung", "random", "--rung", "oracle"], "unknown policy 'oracle'"),
    (["ladder", "skyline_3000", "-p", "9"], "ladder needs tables of 2-4 players, not 9"),
    (["ladder", "cityline", "-j", "0"], "workers must be positive"),
    (["ladder", "chess"], "unknown game 'chess'"),
    (["report", "nowhere"], "is not a run folder"),
    (["report", "."], "is not a run folder"),
    (["variants", "chess"], "unknown game 'chess'"),
    (["variants", "cityline", "--show", "nope"], "no variant 'nope'"),
    (["policies", "chess"], "unknown game 'chess'"),
    (["run", "skyline_3000", "-j", "0"], "workers must be positive"),
    (["run", EXPERIMENT, "-j", "-1"], "workers must be positive"),
    (["gap", "cityline", "-n", "4", "-j", "0"], "workers must be positive"),    # was joblib's traceback
    (["gap", "cityline", "-n", "4", "-j", "-1"], "workers must be positive"),   # was every core, silently
    (["ladder", "cityline", "-j", "0"], "workers must be positive"),
    (["run", "skyline_3000", "--seed", "-1"], "the seed must be between 0"),
    (["run", "skyline_3000", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler"),
    (["run", "skyline_3000", "-n", "10", "--set", "cards.deal_floor=0", "--set", "cards.deal_roof=0",
      "--set", "cards.deal_contract=0", "--set", "cards.draw_per_round=0"], "no card is ever dealt or drawn"),
    (["train", "chess"], "unknown game 'chess'"),
    (["train", "project_skyline", "--players", "2,x"], "--players takes a count or counts separated by commas"),
    (["train", "project_skyline", "--players", "2,5"], "is for 2-4 players, not 5"),
    (["train", "project_skyline", "--players", "3,3"], "--players 3 is given twice"),
    (["train", "project_skyline", "--variant", "nope"], "no variant 'nope'"),
    (["train", "project_skyline", "--set", "map=paris"], "--set map=\"paris\": key 'map': must be one of"),
    (["train", "project_skyline", "--set", "nokey=1"], "key 'nokey': unknown key"),
    (["train", "project_skyline", "--mix", "map=paris"], "--mix map=paris override"),
    (["train", "project_skyline", "--mix", "map=tokyo", "--mix", "map=tokyo"], "--mix map=tokyo is given twice"),
    (["train", "project_skyline", "--mix", "map=tokyo map=nyc"], "key 'map': set twice in one mix"),
    (["train", "project_skyline", "--mix", ""], "a mix must change at least one rule"),
    (["train", "project_skyline", "--mix", "map"], "--mix map: key 'map': an override must look like key=value"),  # said --set
    (["train", "project_skyline", "--mix", "map=nyc", "--mix", "map=tokyo", "-p", "2,3", "--eval-games", "3"],
     "eval_games must be at least the number of cells (4"),
    (["train", "project_skyline", "--iterations", "0"], "iterations must be at least 1"),
    (["train", "project_skyline", "--self-tune-trials", "-1"], "self_tune_trials must be between 0 (no tuning)"),
    (["train", "project_skyline", "--self-tune-trials", "9", "--self-tune-table", "both"],
     "self_tune_table must be one of self, mixed, not 'both'"),
    (["train", "project_skyline", "-p", "2,3", "--self-tune-trials", "9", "--self-tune-players", "4"],
     "self_tune_players must be some of the players (2,3), not 4"),
    (["train", "project_skyline", "--self-tune-table", "mixed"], "give self_tune_trials too (--self-tune-trials N)"),
    (["train", "project_skyline", "--self-tune-players", "four"], "--self-tune-players takes a count or counts"),
    (["train", "project_skyline", "--tune-range", "3"], "give tune_trials or self_tune_trials too (--tune-trials N)"),
    (["train", "project_skyline", "--tune-trials", "9", "--tune-range", "0"], "tune_range must be above 0"),
    (["train", "project_skyline", "--roll-in", "greedy"], "roll_in must be one of search, expert, not 'greedy'"),
    (["train", "project_skyline", "--preset", "my model"], "--preset 'my model' must be a name of letters, digits and _"),
    (["train", "project_skyline", "--preset", "expert"], "--preset 'expert' is already a policy of project_skyline"),
    (["train", "project_skyline", "--ridge", "nan"], "ridge must be a finite number"),
    (["train", "project_skyline", "--seed", str(2**63)], "seed must be at most 2**63-1"),   # was played
    (["train", "project_skyline", "-n", str(10**12)], "games must be at most 10,000,000"),   # was started
    # usage mistakes click finds (a word for a number, an unknown option or command, a missing or extra
    # argument): four lines before (usage, hint, blank, error), one now, naming the help to read
    # (CliRunner calls the program `root`; the console script says skyline-lab)
    (["run", "skyline_3000", "-n", "abc"], "Invalid value for '--games' / '-n'"),
    (["run", "skyline_3000", "--nope"], "No such option: --nope (see `root run --help`)"),
    (["--nope"], "No such option: --nope (see `root --help`)"),
    (["simulate"], "No such command 'simulate' (see `root --help`)"),
    (["report"], "Missing argument 'FOLDER' (see `root report --help`)"),
    (["games", "extra"], "unexpected extra argument"),
    (["tune", "cityline"], "Missing argument 'POLICY'"),
    (["power", EXPERIMENT, "--pilot", "many"], "Invalid value for '--pilot'"),
    (["ladder", "cityline", "-p", "x"], "Invalid value for '--players' / '-p'"),
    (["train", "project_skyline", "--ridge", "x"], "Invalid value for '--ridge'"),
    (["variants", "cityline", "--show"], "Option '--show' requires an argument"),
    (["policies", "cityline", "skyline_3000"], "unexpected extra argument"),
]


def _refused(args, phrase, cwd: Path):
    before = sorted(cwd.rglob("*"))
    result = cli.invoke(app, args)
    assert result.exit_code == 2, (args, result.output)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.output)
    assert phrase in lines[0], (args, phrase, lines[0])
    assert sorted(cwd.rglob("*")) == before, f"{args} wrote {sorted(cwd.rglob('*'))}"
    return lines[0]


@pytest.mark.parametrize("args, phrase", BAD, ids=[" ".join(a).replace(EXPERIMENT, "EXP").replace(SENSITIVITY, "SENS") for a, _ in BAD])
def test_bad_input_is_one_line_exit_2_nothing_written(args, phrase, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _refused(args, phrase, tmp_path)


def test_an_unreachable_scheduler_is_refused_quickly(tmp_path, monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.chdir(tmp_path)
    t0 = time.perf_counter()
    _refused(["run", "skyline_3000", "-n", "10", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1",
              "--quiet"], "no Dask scheduler answers at tcp://127.0.0.1:1", tmp_path)
    assert time.perf_counter() - t0 < 10


def test_a_ladder_never_writes_into_a_users_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    _refused(["ladder", "cityline", "--rung", "random", "--rung", "greedy", "-n", "4", "--out", "mine"],
             "is not a ladder folder of skyline-lab (it holds notes.txt)", tmp_path)


def test_a_ladder_or_training_names_what_a_run_folder_holds(tmp_path, monkeypatch):
    # it said "(it holds .lock)", a hidden file the user never made, for a run folder
    monkeypatch.chdir(tmp_path)
    assert cli.invoke(app, ["run", "cityline", "-n", "4", "--out", "r", "--quiet", "--no-report", "-j", "1"]).exit_code == 0
    _refused(["ladder", "cityline", "--rung", "random", "--rung", "greedy", "-n", "4", "--out", "r"],
             "r is not a ladder folder of skyline-lab (it holds _done)", tmp_path)
    _refused(["train", "project_skyline", "--games", "2", "--eval-games", "2", "--budget", "1", "--out", "r"],
             "r is not a training folder of skyline-lab (it holds _done)", tmp_path)


@pytest.mark.parametrize("mine", ["notes.txt", "expert.toml"])
def test_a_training_never_writes_into_a_users_folder(tmp_path, monkeypatch, mine):
    # train wrote data_000.npz, model_000.toml, train.json and expert.toml into any --out (a user's
    # expert.toml overwritten), and --out FILE was a FileExistsError traceback
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / mine).write_text("mine")
    _refused(["train", "project_skyline", "--games", "2", "--eval-games", "2", "--budget", "1", "--out", "mine"],
             f"mine is not a training folder of skyline-lab (it holds {mine}); nothing was written", tmp_path)
    assert (tmp_path / "mine" / mine).read_text() == "mine"


def test_a_training_refuses_a_file_as_its_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("mine")
    _refused(["train", "project_skyline", "--out", "afile"], "cannot write the training to afile: it is a file",
             tmp_path)


def test_a_second_training_of_one_folder_is_refused(tmp_path, monkeypatch):
    # two trainings of one folder both wrote train.json and its models (no lock); the second is
    # refused at once, naming the holder, and the first keeps the folder
    from analysis import runfolder

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t").mkdir()
    with runfolder.writer_lock(tmp_path / "t"):
        _refused(["train", "project_skyline", "--games", "2", "--eval-games", "2", "--budget", "1", "--out", "t"],
                 "t is being written by another skyline-lab process (pid", tmp_path)


def test_bare_command_still_prints_the_help():
    result = cli.invoke(app, [])
    assert "Commands:" in result.output and "error:" not in result.output


# --- numeric arguments, generated: every value outside the range is refused the same way -------

@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("strict")


SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
not_positive = st.integers(max_value=0)
too_small_pilot = st.integers(max_value=1)
not_probability = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0),
                            st.sampled_from([math.nan, math.inf, -math.inf]))


def _in(workdir, monkeypatch, args, phrase):
    monkeypatch.chdir(workdir)
    _refused(args, phrase, workdir)


@SETTINGS
@given(trials=not_positive)
def test_tune_trials(workdir, monkeypatch, trials):
    _in(workdir, monkeypatch, ["tune", "cityline", "heuristic", "--trials", str(trials)], "--trials must be")


@SETTINGS
@given(games=not_positive, option=st.sampled_from(["-n", "--validate-games"]))
def test_tune_games(workdir, monkeypatch, games, option):
    _in(workdir, monkeypatch, ["tune", "cityline", "heuristic", option, str(games)], "must be between 1 and")


@SETTINGS
@given(pilot=too_small_pilot)
def test_power_pilot(workdir, monkeypatch, pilot):
    _in(workdir, monkeypatch, ["power", EXPERIMENT, "--effect", "seat_score_edge=2", "--pilot", str(pilot)],
        "key 'pilot'")


@SETTINGS
@given(value=not_probability, option=st.sampled_from(["--power", "--alpha"]))
def test_power_probabilities(workdir, monkeypatch, value, option):
    _in(workdir, monkeypatch, ["power", EXPERIMENT, "--effect", "seat_score_edge=2", option, repr(value)],
        "must be a probability strictly between 0 and 1")


@SETTINGS
@given(size=st.one_of(st.floats(max_value=0.0), st.sampled_from([math.nan, math.inf])))
def test_power_effect_sizes(workdir, monkeypatch, size):
    _in(workdir, monkeypatch, ["power", EXPERIMENT, "--effect", f"seat_score_edge={size!r}"],
        "must be a positive finite number")


@SETTINGS
@given(games=not_positive)
def test_ladder_games(workdir, monkeypatch, games):
    _in(workdir, monkeypatch, ["ladder", "cityline", "-n", str(games)], "--games must be between 1 and")


@SETTINGS
@given(games=st.integers(max_value=-1))
def test_ladder_findings_games(workdir, monkeypatch, games):
    _in(workdir, monkeypatch, ["ladder", "cityline", "--findings-games", str(games)], "--findings-games must be")


@SETTINGS
@given(players=st.one_of(st.integers(max_value=1), st.integers(min_value=5)))
def test_ladder_players(workdir, monkeypatch, players):
    _in(workdir, monkeypatch, ["ladder", "skyline_3000", "-p", str(players)], "ladder needs tables of 2-4 players")


@SETTINGS
@given(workers=not_positive, command=st.sampled_from([["run", "skyline_3000"], ["ladder", "cityline"],
                                                       ["run", EXPERIMENT]]))
def test_workers(workdir, monkeypatch, workers, command):
    _in(workdir, monkeypatch, [*command, "-j", str(workers)], "workers must be positive")


@SETTINGS
@given(games=not_positive)
def test_run_games(workdir, monkeypatch, games):
    _in(workdir, monkeypatch, ["run", "skyline_3000", "-n", str(games)], "must be positive")


def test_an_experiment_file_with_nan_is_refused(tmp_path, monkeypatch):
    # nan passed `size <= 0` and every other bound: TOML has nan and inf
    monkeypatch.chdir(tmp_path)
    text = Path(EXPERIMENT).read_text() + "\n[power]\neffects = { seat_score_edge = nan }\n"
    (tmp_path / "nan.toml").write_text(text)
    _refused(["run", str(tmp_path / "nan.toml"), "--quiet"], "must be a finite number, not nan", tmp_path)


def test_run_batch_without_policies_plays_the_games_declared_lineup(tmp_path):
    # run_batch() and experiment files without `policies` played random in every seat, while the
    # CLI played the game's default line-up: two answers to one question (issue 25)
    from experiments.runner import run_batch

    run = run_batch("skyline_3000", n_games=8, out=tmp_path / "r", progress=False, players=3)
    assert run.manifest["lineup"] == ["heuristic", "greedy", "random"]


TRAIN = ["train", "project_skyline"]


@SETTINGS
@given(value=st.one_of(not_positive, st.integers(min_value=10_000_001)),
       option=st.sampled_from(["--games", "--eval-games"]))
def test_train_games(workdir, monkeypatch, value, option):
    _in(workdir, monkeypatch, [*TRAIN, option, str(value)], "must be at")


@SETTINGS
@given(value=st.one_of(not_positive, st.integers(min_value=1_001)))
def test_train_iterations(workdir, monkeypatch, value):
    _in(workdir, monkeypatch, [*TRAIN, "--iterations", str(value)], "iterations must be at")


@SETTINGS
@given(value=st.one_of(not_positive, st.integers(min_value=100_001)))
def test_train_budget(workdir, monkeypatch, value):
    _in(workdir, monkeypatch, [*TRAIN, "--budget", str(value)], "budget must be at")


@SETTINGS
@given(seed=st.one_of(st.integers(max_value=-1), st.integers(min_value=2**63, max_value=2**70)))
def test_train_seed(workdir, monkeypatch, seed):
    _in(workdir, monkeypatch, [*TRAIN, "--seed", str(seed)], "seed must be")


@SETTINGS
@given(ridge=st.one_of(st.floats(max_value=0.0, exclude_max=True), st.sampled_from([math.nan, math.inf])))
def test_train_ridge(workdir, monkeypatch, ridge):
    _in(workdir, monkeypatch, [*TRAIN, "--ridge", repr(ridge)], "ridge must be a finite number >= 0")


@SETTINGS
@given(players=st.one_of(st.integers(max_value=1), st.integers(min_value=5)))
def test_train_players(workdir, monkeypatch, players):
    _in(workdir, monkeypatch, [*TRAIN, "--players", f"2,{players}" if players != 2 else "2,2"], "players")


@SETTINGS
@given(seed=st.one_of(st.integers(max_value=-1), st.integers(min_value=2**63, max_value=2**70)),
       command=st.sampled_from([["run", "skyline_3000"], ["ladder", "cityline"], ["tune", "cityline", "heuristic"]]))
def test_seeds(workdir, monkeypatch, seed, command):
    _in(workdir, monkeypatch, [*command, "--seed", str(seed)], "seed must be between 0 and 2**63-1")
