"""Fixtures for the analysis tests: synthetic run folders (no engine needed).

`make_run(**kwargs)` writes a fresh run under the test's tmp_path with
`synthetic_run.write_synthetic_run`; the session-wide runs below are built
once and must not be modified by a test (copy them first if needed).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The suite runs with --import-mode=importlib, which puts no test folder on
# sys.path; the helper modules beside this file are imported by name.
sys.path.insert(0, str(Path(__file__).parent))

from synthetic_run import write_synthetic_run  # noqa: E402


@pytest.fixture
def make_run(tmp_path):
    counter = iter(range(1_000_000))

    def make(**kwargs) -> Path:
        return write_synthetic_run(tmp_path / f"run{next(counter)}", **kwargs)

    return make


@pytest.fixture(scope="session")
def skyline_run(tmp_path_factory) -> Path:
    """3 players, line-up heuristic/random/heuristic, seats rotating."""
    return write_synthetic_run(tmp_path_factory.mktemp("skyline") / "skyline-3p", n_games=600, players=3)


@pytest.fixture(scope="session")
def skyline_report(skyline_run) -> Path:
    from analysis.report import build_report

    return build_report(skyline_run)
