"""scoring.tie_break: players level on the top score share the win (default), or the one with the
fewest X's / the most occupants wins (still level: shared). Checked on whole batch games, in the
players table the report reads."""
import numpy as np
import polars as pl
import pytest

from engines.cityline import simulate
from engines.cityline.params import VARIANTS, kernel_params
from engines.cityline.policies import POLICIES, default_weights
from engines.core.variant import VariantError


def _players(tie_break, count=1500):
    kp = kernel_params(VARIANTS.load(None, {"scoring.tie_break": tie_break}), 4).with_slot("record_decisions", False)
    pols = ["heuristic", "greedy", "random", "random"]
    ids = np.array([POLICIES[p].policy_id for p in pols])
    w = np.stack([default_weights(p, 16) for p in pols])
    return pl.DataFrame(simulate(kp, ids, w, True, 5, 0, count)["players"])


@pytest.mark.parametrize("tie_break,key", [("shared", None), ("fewest_x", -pl.col("x_count")),
                                           ("most_occupants", pl.col("occupants"))])
def test_level_top_scores_follow_the_tie_break(tie_break, key):
    p = _players(tie_break)
    top = p.with_columns(pl.col("score").max().over("game").alias("top"))
    top = top.with_columns((pl.col("score") == pl.col("top")).alias("on_top"))
    level = top.filter(pl.col("on_top").sum().over("game") > 1)
    assert level["game"].n_unique() > 50                 # enough level top scores to tell the readings apart
    if key is None:
        expect = pl.col("on_top")
    else:
        k = pl.when(pl.col("on_top")).then(key).otherwise(None)
        expect = pl.col("on_top") & (k == k.max().over("game"))
    top = top.with_columns(expect.alias("expect"))
    assert (top["win"] == top["expect"].cast(top["win"].dtype)).all()
    shared = top.with_columns((pl.col("expect").sum().over("game") > 1).alias("sh"))
    assert (shared["shared_win"] == (shared["expect"] & shared["sh"]).cast(shared["shared_win"].dtype)).all()
    if key is not None:   # the tie-break decided some level games
        assert (level.group_by("game").agg(pl.col("win").sum())["win"] == 1).any()


def test_bad_tie_break_refused():
    with pytest.raises(VariantError) as err:
        VARIANTS.load(None, {"scoring.tie_break": "turn_order"})
    assert err.value.key == "scoring.tie_break" and "must be one of" in err.value.reason


def test_default_tie_break_is_shared():
    assert VARIANTS.load("default").values["scoring"]["tie_break"] == "shared"
