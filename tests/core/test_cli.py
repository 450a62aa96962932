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
