"""The command line: one-line errors, non-zero exits, nothing half-written."""
import json

import pytest
from typer.testing import CliRunner

from experiments.cli import app

cli = CliRunner()


def test_run_small_batch_and_report(tmp_path):
    out = tmp_path / "run"
    result = cli.invoke(app, ["run", "skyline_3000", "-n", "200", "--out", str(out), "--quiet", "--seed", "3"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["lineup"] == ["heuristic", "greedy", "random", "random"]
    assert manifest["games_done"] == 200
    assert (out / "report" / "report.md").is_file()
    again = cli.invoke(app, ["report", str(out)])
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "chess", "-n", "10"], "unknown game 'chess'"),
        (["run", "skyline_3000", "-n", "0"], "must be positive"),
        (["run", "skyline_3000", "-n", "-5"], "must be positive"),
        (["run", "skyline_3000", "--policy", "oracle"], "unknown policy 'oracle'"),
        (["run", "skyline_3000", "--set", "scoring.megamall_multiplyer=3"], "did you mean"),
        (["run", "skyline_3000", "--variant", "nope"], "no variant 'nope'"),
        (["run", "skyline_3000", "--out", "/proc/skyline-lab"], "cannot write"),
        (["run", "skyline_3000", "--workers", "0"], "workers must be positive"),
    ],
)
def test_bad_arguments_fail_in_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output
    assert not (tmp_path / "results").exists()


def test_listings():
    games = cli.invoke(app, ["games"])
    assert games.exit_code == 0 and "skyline_3000" in games.output and "cityline" in games.output
    policies = cli.invoke(app, ["policies", "skyline_3000"])
    assert policies.exit_code == 0 and "heuristic" in policies.output
    variants = cli.invoke(app, ["variants", "skyline_3000"])
    assert variants.exit_code == 0 and "default" in variants.output
    show = cli.invoke(app, ["variants", "skyline_3000", "--show", "default"])
    assert show.exit_code == 0 and "megamall" in show.output
    assert cli.invoke(app, ["policies", "chess"]).exit_code == 2


def test_help_speaks_a_designers_language():
    result = cli.invoke(app, ["run", "--help"])
    assert result.exit_code == 0
    for phrase in ("Rotate the line-up", "Change one rule", "same seed"):
        assert phrase in result.output


def test_default_lineup_is_the_games_declaration(tmp_path, monkeypatch):
    # no --policy: the CLI takes GameSpec.default_lineup (no game's line-up is hard-coded in the CLI)
    import dataclasses

    import engines.skyline_3000 as package

    result = cli.invoke(app, ["run", "skyline_3000", "-n", "20", "-p", "3", "--out", str(tmp_path / "a"),
                              "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["lineup"] == ["heuristic", "greedy", "random"]
    monkeypatch.setattr(package, "SPEC", dataclasses.replace(package.SPEC, default_lineup=("greedy",)))
    result = cli.invoke(app, ["run", "skyline_3000", "-n", "20", "--out", str(tmp_path / "b"), "--quiet",
                              "--no-report"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "b" / "manifest.json").read_text())["lineup"] == ["greedy"] * 4


# --- issue 9: inputs that used to be accepted silently -------------------------------------

@pytest.mark.parametrize(
    "args, message",
    [
        # 0 used to mean "the default" to the runner: 4 players / the default chunking
        (["run", "skyline_3000", "-p", "0"], "--players must be at least 1, not 0"),
        (["run", "skyline_3000", "-p", "-2"], "--players must be at least 1"),
        (["run", "skyline_3000", "--chunk-size", "0"], "--chunk-size must be between 1 and"),
        (["run", "skyline_3000", "--chunk-size", "-1"], "--chunk-size must be between 1 and"),
        (["run", "skyline_3000", "--chunk-size", "1000000000"], "--chunk-size must be between 1 and"),
        # used to build a 10^8-entry chunk list up front and eat gigabytes
        (["run", "skyline_3000", "-n", "1000000000000"], "more than one run may play"),
        (["run", "cityline", "-n", "1000000000000"], "more than one run may play"),
        # nan compared False with every bound; -1e9 is a typo, not a policy
        (["run", "skyline_3000", "--policy", "heuristic(value_megamall=nan)"], "weight value_megamall must be a finite"),
        (["run", "skyline_3000", "--policy", "heuristic(bid_fraction=inf)"], "weight bid_fraction must be a finite"),
        (["run", "skyline_3000", "--policy", "greedy(card_points=-1e9)"], "weight card_points must lie between"),
        (["run", "skyline_3000", "--policy", "greedy(card_points=1e999)"], "must be a finite"),
        (["run", "cityline", "--policy", "heuristic(value=x)"], "must be a number"),
        # a --set error names the --set, not default.toml
        (["run", "skyline_3000", "--set", "scoring.x=3"], "--set scoring.x=3: key 'scoring.x': unknown key"),
        (["run", "skyline_3000", "--set", "scoring.megamall_multiplier=nan"], "--set scoring.megamall_multiplier=nan"),
        (["run", "skyline_3000", "--set", "nonsense"], "--set nonsense: "),
        (["run", "skyline_3000", "--set", "board.districts=1"], "with --set board.districts=1: key 'board.greenspace_blocks'"),
        (["run", "skyline_3000", "--variant", "/etc/passwd"], "ends in .toml"),
        (["run", "skyline_3000", "--backend", "spark"], "spark"),
    ],
)
def test_bad_inputs_are_refused_in_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "option", [["--seed", "3"], ["--policy", "random"], ["-p", "3"], ["--set", "scoring.megamall_multiplier=3"],
               ["--variant", "no_tiebreak"], ["--backend", "dask"], ["--fresh"], ["--fixed-seats"],
               ["--chunk-size", "500"]],
)
def test_experiment_file_refuses_batch_options_instead_of_ignoring_them(tmp_path, monkeypatch, option):
    # these used to be dropped without a word: the experiment ran with the file's own settings
    experiment = str(__import__("pathlib").Path(__file__).parents[2] / "experiments" / "skyline_fairness_matrix.toml")
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["run", experiment, "--out", str(tmp_path / "r"), "--quiet", *option])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "cannot be used with an experiment file" in lines[0], result.output
    assert option[0].lstrip("-") in lines[0] or option[0] == "-p" and "--players" in lines[0]
    assert not (tmp_path / "r").exists()


def test_missing_dask_is_a_one_line_hint(tmp_path, monkeypatch):
    import sys

    # None in sys.modules makes `import dask` raise ImportError, as on a machine without it
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["run", "skyline_3000", "-n", "10", "--backend", "dask", "--quiet"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and 'pip install -e ".[dask]"' in lines[0], result.output
    assert not (tmp_path / "results").exists()  # no run folder left behind marked "complete"


def _flat(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("columns", ["60", "80", "200"])
def test_help_is_not_mangled(columns, monkeypatch):
    # rich dropped "[power]" as a markup tag and cut the --policy/--set examples off with "…"
    monkeypatch.setenv("COLUMNS", columns)
    run_help = cli.invoke(app, ["run", "--help"], env={"COLUMNS": columns}).output
    power_help = cli.invoke(app, ["power", "--help"], env={"COLUMNS": columns}).output
    assert "…" not in run_help and "…" not in power_help
    assert "file's[power]table" in _flat(power_help), power_help
    for phrase in ("--policy'heuristic(bid_fraction=1.2)'", "--setscoring.megamall_multiplier=3(repeatable;",
                   "Default:thegame'sownline-up", "--showdefault`liststhekeys"):
        assert phrase in _flat(run_help), (phrase, run_help)


def test_variants_show_prints_each_rules_comment():
    show = cli.invoke(app, ["variants", "skyline_3000", "--show", "default"])
    assert show.exit_code == 0, show.output
    lines = show.output.splitlines()
    multiplier = next(ln for ln in lines if ln.startswith("scoring.megamall_multiplier = 2"))
    assert "# Scoring Phase" in multiplier and "doubled" in multiplier
    # every rule line carries its comment
    assert all("#" in ln for ln in lines if " = " in ln), [ln for ln in lines if "#" not in ln]
    # a variant's own comment wins for the keys it changes
    triple = cli.invoke(app, ["variants", "skyline_3000", "--show", "megamall_triple"]).output
    assert "scoring.megamall_multiplier = 3" in triple and "x3" in triple
    city = cli.invoke(app, ["variants", "cityline", "--show", "default"]).output
    assert 'roof.5.name = "Pairs"' in city and "Open choice" in city


def test_default_lineup_fits_a_variants_own_player_count(tmp_path):
    # three_player_5_platforms sets players = 3; the 4-policy default line-up used to be refused
    out = tmp_path / "run"
    result = cli.invoke(app, ["run", "skyline_3000", "--variant", "three_player_5_platforms", "-n", "40",
                              "--out", str(out), "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["lineup"] == ["heuristic", "greedy", "random"]


def test_variant_file_extends_its_sibling_and_results_folder_name_is_safe(tmp_path, monkeypatch):
    designs = tmp_path / "designs"
    designs.mkdir()
    (designs / "base.toml").write_text('extends = "default"\n[scoring]\nmegamall_multiplier = 5\n')
    (designs / "my rules; rm -rf ~.toml").write_text('extends = "base.toml"\n')
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "base.toml").write_text("[scoring]\nmegamall_multiplier = 7\n")  # a decoy in the cwd
    monkeypatch.chdir(cwd)
    result = cli.invoke(app, ["run", "skyline_3000", "--variant", str(designs / "my rules; rm -rf ~.toml"),
                              "-n", "40", "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    (folder,) = (cwd / "results").iterdir()
    assert folder.name.startswith("skyline_3000-my_rules_rm_-rf-4p-"), folder.name
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["variant"]["name"] == "my_rules_rm_-rf"
    # the rules played are base.toml's from the file's folder (x5), not the cwd decoy's (x7)
    from engines.registry import get_game

    x5 = get_game("skyline_3000").variants.load(None, {"scoring.megamall_multiplier": 5})
    assert manifest["variant"]["digest"] == x5.digest


def test_experiment_file_applies_a_typed_games(tmp_path, monkeypatch):
    # --games with an experiment file used to be dropped (6,000 games per batch were played)
    experiment = str(__import__("pathlib").Path(__file__).parents[2] / "experiments" / "skyline_fairness_matrix.toml")
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["run", experiment, "--games", "60", "--out", str(tmp_path / "r"), "--quiet",
                              "--no-report", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "batches x 60 games" in result.output, result.output


def test_policy_declared_weight_ranges_are_checked():
    # PolicyInfo has no ranges yet (engines/core/spec.py); lineup honours them once declared
    from types import SimpleNamespace

    from engines.core.lineup import check_weight

    info = SimpleNamespace(name="strong", weights={"rollouts": 16.0}, weight_ranges={"rollouts": (1, 1024)})
    assert check_weight(info, "rollouts", 16.0) is None
    assert "at least 1" in check_weight(info, "rollouts", 0.0)
    assert "at most 1024" in check_weight(info, "rollouts", 5000.0)
    assert "finite" in check_weight(info, "rollouts", float("nan"))


def test_a_run_starts_without_pandas_or_polars(tmp_path):
    # every CLI run and every worker pays its imports: pandas and polars are a third of a second
    # and a run needs neither (tables go to Arrow from their buffers; analysis.run imports polars
    # only to read a table). A fresh process, as a user's command is.
    import subprocess
    import sys

    code = ("import sys; from experiments.cli import app\n"
            "try:\n"
            f"    app(['run', 'skyline_of_the_world', '--games', '2', '--out', {str(tmp_path / 'r')!r},"
            " '--quiet', '--no-report'])\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "print(sorted(m for m in ('pandas', 'polars') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "r" / "manifest.json").is_file()
