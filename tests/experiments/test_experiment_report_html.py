"""An experiment's question and batch labels are user text: escaped in report.html
(before, a `<script>` label ran in the browser), and the report embeds its figures."""
import re
import textwrap

from experiments.experiment import run_experiment

HOSTILE = """
# Does <script>alert('question')</script> change anything?
[experiment]
game = "coin"
players = 3
policies = ["greedy"]
games = 300
seed = 4
metrics = ["seat_edge"]

[compare]
[compare.printed]
label = "<img src=x onerror=alert(1)>"
[compare.tight]
variant = "tight"
label = "<script>alert('label')</script>"
"""


def test_question_and_labels_are_escaped(tmp_path):
    path = tmp_path / "hostile.toml"
    path.write_text(textwrap.dedent(HOSTILE))
    result = run_experiment(path, results=tmp_path / "results")
    html = (result.out / "report.html").read_text()
    outside = re.sub(r'(data:image/png;base64,)[^"]+', r"\1", html)
    assert "<script" not in outside.lower() and "<img src=x" not in outside
    assert "&lt;script&gt;alert(&#x27;question&#x27;)" in outside or "&lt;script&gt;alert('question')" in outside
    assert "&lt;img src=x onerror=alert(1)&gt;" in outside
    images = re.findall(r'<img src="([^"]*)"', html)
    assert all(src.startswith("data:image/png;base64,") for src in images)
