"""Coin's analysis module: what analysis/<game_id>.py is for a shipped game
(conftest.py installs it as `analysis.coin`, so generic code finds it by the
game id, as it finds analysis/skyline_3000.py). Coin has no report sections
of its own, only metrics: its Key Player is Skyline 3000's (the same
`key_player` column), so it reuses those two metrics."""
from analysis.skyline_3000 import METRICS as _SKYLINE

METRICS = {name: _SKYLINE[name] for name in ("key_player_win_rate", "key_player_edge")}
