"""notebooks/project_skyline.ipynb runs top to bottom (as Jupyter runs it, from notebooks/) and
its forced-acquisition table has one row per Basic card with an interval around each effect."""
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def test_card_value_notebook_runs():
    nb = nbformat.read(ROOT / "notebooks" / "project_skyline.ipynb", as_version=4)
    NotebookClient(nb, kernel_name="python3", timeout=600,
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    text = nb.cells[-2].outputs[0]["data"]["text/plain"]
    for code in ("B-01", "B-02", "B-03", "B-04"):
        assert code in text
    assert "effect" in text and "low" in text
