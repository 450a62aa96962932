"""What the games' expert tests share: a seeded batch of a line-up at the game's default variant,
the zero-weight expert (which plays the first listed candidate) and a seat's features."""
import numpy as np

from engines.core.lineup import make_lineup


def play(spec, lineup, n_players, count, seed=7, variant=None):
    """Games [0, count) of run `seed`, the line-up rotating over the seats -> {table: {column: array}}."""
    kp = spec.kernel_params(spec.variants.load(variant), n_players)
    ln = make_lineup(spec, lineup, n_players, True)
    return spec.simulate(kp, ln.policy_ids(), ln.weight_rows(spec.max_weights), True, seed, 0, count)


def zero_expert(spec) -> str:
    """The expert with every weight 0, as a policy text."""
    return "expert(" + ", ".join(f"w_{f}=0" for f in spec.expert.features) + ")"


def features_of(spec, features_nb, g, p, aux):
    """Seat p's features (spec.expert.features) of step-API game g as it stands; `aux` is the
    game's auxiliary table."""
    out = np.zeros(len(spec.expert.features))
    features_nb(g.state.data, g.kp.cfg, aux, np.int64(p), out)
    return out
