"""Coin's analysis module: what analysis/<game_id>.py is for a shipped game
(conftest.py installs it as `analysis.coin`, so generic code finds it by the
game id, as it finds analysis/skyline_3000.py). Coin has no report sections
of its own, only metrics: its Key Player moves first, as Skyline 3000's
round-1 Key Player builds first (the same `key_player` column), so it reuses
Skyline's two first-builder metrics and their old names' pointers."""
from analysis.skyline_3000 import METRICS as _SKYLINE
from analysis.skyline_3000 import RENAMED_METRICS  # noqa: F401 (found by the game id, as METRICS)

METRICS = {name: _SKYLINE[name] for name in ("first_builder_win_rate", "first_builder_edge")}
