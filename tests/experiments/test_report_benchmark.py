"""experiments.report_benchmark times the phases of a real report build: the phase timer must keep
calling the report as `skyline-lab report` does (it rotted once when a helper moved module)."""
import json
import subprocess
import sys

from experiments import report_benchmark


def test_the_phase_timer_builds_a_whole_report_in_a_child(tmp_path):
    run = report_benchmark.ensure_run("cityline", 3, tmp_path)
    out = subprocess.run([sys.executable, "-m", "experiments.report_benchmark", "--phases", str(run), "cityline"],
                         check=True, capture_output=True, text=True)
    phases = json.loads(out.stdout)
    assert set(phases) == {"imports", "sections", "replays", "figures", "writing", "n_figures", "wall"}
    assert phases["n_figures"] > 0 and all(phases[k] >= 0 for k in ("imports", "sections", "figures", "writing"))
    assert 0 < phases["replays"] <= phases["sections"]   # Cityline (3+ players) replays games for kingmaking
    assert phases["imports"] > 0 and phases["wall"] > 0
    assert (run / "report" / "report.md").is_file()
    assert len(list((run / "report" / "figures").glob("*.png"))) >= phases["n_figures"]
