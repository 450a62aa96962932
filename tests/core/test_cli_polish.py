"""CLI polish (issue 25, item 6): help and listings uncut at 80 columns, usage lines in words,
weights written as a line-up writes them, -v for verbose, the report path the help promises.

Before: the command list cut every summary with "...", `report`'s usage read `{run_dir}`,
`variants` stopped descriptions mid-sentence, `policies` printed search's `rollout = 0`,
`-v` was --variant, and `run` printed report.md's path while its help says open report.html.
"""
import json
import re

import pytest
from typer.testing import CliRunner

from experiments.cli import app

cli = CliRunner()
COMMANDS = ["run", "report", "games", "policies", "variants", "power", "ladder", "tune", "train", "bench"]
ENV = {"COLUMNS": "80"}


def test_the_command_list_is_uncut_at_80_columns():
    out = cli.invoke(app, ["--help"], env=ENV).output
    listed = out.split("Commands:", 1)[1]
    assert "..." not in listed and "…" not in listed, listed
    assert all(len(line) <= 80 for line in out.splitlines())


@pytest.mark.parametrize("command", COMMANDS)
def test_usage_lines_are_in_words(command):
    usage = cli.invoke(app, [command, "--help"], env=ENV, prog_name="skyline-lab").output.splitlines()[0]
    assert usage.startswith(f"Usage: skyline-lab {command} [OPTIONS]"), usage
    assert "{" not in usage and "}" not in usage and "_" not in usage.split("[OPTIONS]")[1], usage


def test_variants_listing_is_whole_and_fits_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = cli.invoke(app, ["variants", "skyline_3000"], env=ENV).output
    assert all(len(line) <= 80 for line in out.splitlines()), out
    flat = " ".join(out.split())
    # six_platforms' comment used to stop at "the pre-placed"
    assert "the pre-placed Greenspaces on 4 of them" in flat and "to compare boards." in flat


def test_policies_listing_writes_weights_as_a_lineup_does(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = cli.invoke(app, ["policies", "cityline"], env=ENV).output
    assert "rollout = 0" not in out and "rollout=random" in out
    assert "iterations=400" in out
    assert all(len(line) <= 80 for line in out.splitlines()), out


def test_v_is_verbose_and_V_the_variant(tmp_path):
    out = tmp_path / "r"
    result = cli.invoke(app, ["run", "skyline_3000", "-n", "20", "-V", "megamall_triple", "-v", "--out", str(out),
                              "--quiet", "--no-report", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["variant"]["name"] == "megamall_triple"
    assert re.search(r"compile [\d.]+ s, workers' engine load [\d.]+ s, play [\d.]+ s", result.output), result.output


def test_run_prints_the_html_reports_path(tmp_path):
    out = tmp_path / "r"
    result = cli.invoke(app, ["run", "skyline_3000", "-n", "20", "--out", str(out), "--quiet", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert f"report: {out / 'report' / 'report.html'}" in result.output
    assert (out / "report" / "report.html").is_file()
