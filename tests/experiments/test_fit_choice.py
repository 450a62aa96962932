"""The trainer's fits (experiments.train.fit_choice, and fit for --target score), in a world of known
truth: decisions among 2-6 candidates whose choice is drawn from a conditional logit with known
weights. The fit finds those weights, and the same tables in another order give the same model
file (summation order is what a different number of BLAS threads changes: an optimizer stopped
short of the optimum gave another model for the same tables)."""
import numpy as np

from experiments.train import fit_choice

TRUE_W = np.array([1.0, -0.5, 0.25, 0.0])


def logit_world(seed: int, decisions: int = 4000):
    """(C, start, chosen): every decision's candidates' features, where each decision starts, and
    the row of the candidate chosen (drawn with probability ~ exp(TRUE_W . features))."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 7, decisions)
    C = rng.normal(size=(int(sizes.sum()), len(TRUE_W)))
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    chosen = np.empty(decisions, np.int64)
    for i, (s, n) in enumerate(zip(start, sizes)):
        u = C[s:s + n] @ TRUE_W
        p = np.exp(u - u.max())
        chosen[i] = s + rng.choice(n, p=p / p.sum())
    return C, start, chosen


def shuffled(C, start, chosen, seed: int):
    """The same decisions in another order, each one's candidates in another order too."""
    rng = np.random.default_rng(seed)
    ends = np.append(start[1:], len(C))
    rows, new_start, new_chosen = [], [], []
    for i in rng.permutation(len(start)):
        order = rng.permutation(ends[i] - start[i])
        new_start.append(sum(len(r) for r in rows))
        new_chosen.append(new_start[-1] + int(np.flatnonzero(order == chosen[i] - start[i])[0]))
        rows.append(C[start[i]:ends[i]][order])
    return np.vstack(rows), np.array(new_start), np.array(new_chosen)


def test_the_fit_finds_the_weights_that_made_the_choices():
    for seed in range(3):
        w = fit_choice(*logit_world(seed), ridge=1e-4)
        assert np.abs(w - TRUE_W).max() < 0.12, (seed, w)


def test_the_same_tables_in_another_order_give_the_same_model():
    C, start, chosen = logit_world(7)
    w = fit_choice(C, start, chosen, 1e-3)
    for seed in range(3):
        assert np.array_equal(fit_choice(*shuffled(C, start, chosen, seed), 1e-3), w)


def test_the_score_fit_gives_the_same_model_for_the_rows_in_another_order():
    """--target score: ridge least squares of the final score on the features, rounded like the
    choice fit: the same rows in another order give identical weights, close to the true ones."""
    from experiments.train import fit
    rng = np.random.default_rng(3)
    X = np.hstack([np.ones((5000, 1)), rng.normal(size=(5000, 3))])
    true = np.array([40.0, 3.0, -2.0, 0.5])
    y = X @ true + rng.normal(scale=5.0, size=5000)
    w = fit(X, y, 1e-3)
    assert np.abs(w - true).max() < 0.3, w
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(5000)
        assert np.array_equal(fit(X[order], y[order], 1e-3), w)
