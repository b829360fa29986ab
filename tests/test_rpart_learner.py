"""The rpart learner on small hand-checkable cases (rules of docs/rpart.md)."""

from __future__ import annotations

import numpy as np
import pytest
from quercus._kernels._rpart import _categorical_best, _parent_term, _subset_improve
from rpart_fixtures import load_data

from quercus.growing.rpart import RpartControl, fit_rpart, prune_rpart
from quercus.rpart_records import LEFT, RIGHT


def _fit(X, y, w=None, categorical=None, n_levels=None, **kwargs):
    p = X.shape[1]
    categorical = np.zeros(p, dtype=bool) if categorical is None else np.asarray(categorical)
    n_levels = np.zeros(p, dtype=np.int64) if n_levels is None else np.asarray(n_levels)
    return fit_rpart(X, y, w, categorical=categorical, n_levels=n_levels, **kwargs)


def _gini_improve_by_hand(x, y, min_bucket):
    """Best n*Gini(S) - n_L*Gini(L) - n_R*Gini(R) over cuts of x, by brute force."""
    def ng(labels):
        if len(labels) == 0:
            return 0.0
        p = np.bincount(labels, minlength=2) / len(labels)
        return len(labels) * (1.0 - (p ** 2).sum())
    best = 0.0
    for cut in np.unique(x)[1:]:
        left, right = y[x < cut], y[x >= cut]
        if len(left) >= min_bucket and len(right) >= min_bucket:
            best = max(best, ng(y) - ng(left) - ng(right))
    return best


def test_kyphosis_root_improve_is_the_gini_decrease_in_row_units():
    data = load_data("kyphosis")
    fit = _fit(data.X, data.y)
    primary = fit.node_splits(1)[0]
    start = data.features.index("Start")
    assert primary.feature == start
    assert primary.improve == pytest.approx(6.762330, abs=5e-7)  # rpart's summary prints this
    by_hand = _gini_improve_by_hand(data.X[:, start], data.y, 7)
    assert primary.improve == pytest.approx(by_hand, rel=1e-12)
    # "Start >= 8.5" sends the rows richer in the first class (absent) left
    assert (primary.cut, primary.left) == (8.5, ">=")


def _copies():
    x = np.arange(40, dtype=np.float64)
    y = (x >= 20).astype(np.int64)
    copy_cat = y.astype(np.float64)            # a perfect categorical copy of the split
    noisy_cat = copy_cat.copy()
    noisy_cat[[0, 1]] = 1.0                    # two rows disagree
    X = np.column_stack([x, copy_cat, 2.0 * x, noisy_cat])
    return X, y


def test_perfect_categorical_copy_is_not_a_surrogate_but_a_numeric_copy_is():
    X, y = _copies()
    fit = _fit(X, y, categorical=[False, True, False, True], n_levels=[0, 2, 0, 2])
    root = fit.node_splits(1)
    assert root[0].role == "primary" and root[0].feature == 0   # tie: earlier variable
    surrogates = {s.feature: s for s in root if s.role == "surrogate"}
    assert 1 not in surrogates                                   # 0 rows disagree: rejected
    assert surrogates[2].improve == 1.0 and surrogates[2].adj == pytest.approx(1.0)
    noisy = surrogates[3]                                        # 2 disagree, 38 agree
    assert noisy.improve == pytest.approx(38 / 40)
    assert noisy.adj == pytest.approx((38 / 40 - 0.5) / 0.5)
    np.testing.assert_array_equal(noisy.sides, [LEFT, RIGHT])
    assert [s.feature for s in root if s.role == "surrogate"] == [2, 3]  # by agreement


def test_one_row_per_class_is_a_single_leaf_of_the_first_class():
    X = np.array([[1.0], [2.0], [3.0]])
    y = np.array([0, 1, 2])
    fit = _fit(X, y, folds=np.array([1, 2, 3]))
    assert fit.frame["node"] == [1]
    assert fit.frame["yval"] == [0]           # equal risks: lowest class index
    assert fit.frame["dev"] == [2.0]
    np.testing.assert_array_equal(fit.where, [1, 1, 1])
    table = fit.cp_table
    assert len(table) == 1 and table["nsplit"][0] == 0
    assert table["CP"][0] == pytest.approx(0.01)
    assert table["xerror"][0] == 0.0 and table["xstd"][0] == 0.0  # no CV is run


def test_zero_weight_rows_take_no_part_in_the_search_but_flow_down():
    data = load_data("kyphosis")
    control = RpartControl(min_split=1)   # min_split counts rows, weighted or not
    base = _fit(data.X, data.y, control=control)
    extra = np.arange(10)
    X = np.vstack([data.X, data.X[extra]])
    y = np.concatenate([data.y, 1 - data.y[extra]])     # flipped classes, weight 0
    w = np.concatenate([np.ones(len(data.y)), np.zeros(len(extra))])
    fit = _fit(X, y, w, control=control)
    assert fit.frame["node"] == base.frame["node"]
    np.testing.assert_allclose(fit.frame["wt"], base.frame["wt"])
    np.testing.assert_allclose(fit.frame["dev"], base.frame["dev"])
    assert fit.frame["n"][0] == len(y)
    for ours, ref in zip(fit.splits, base.splits):
        assert (ours.feature, ours.cut, ours.left) == (ref.feature, ref.cut, ref.left)
        assert ours.improve == pytest.approx(ref.improve, rel=1e-12)
    np.testing.assert_array_equal(fit.where[len(data.y):], base.where[extra])


def test_rows_with_every_feature_missing_are_dropped():
    data = load_data("kyphosis")
    X = np.vstack([data.X, np.full((1, data.X.shape[1]), np.nan)])
    y = np.concatenate([data.y, [1]])
    fit = _fit(X, y)
    base = _fit(data.X, data.y)
    np.testing.assert_array_equal(fit.dropped, [len(data.y)])
    assert fit.where[-1] == -1
    np.testing.assert_array_equal(fit.where[:-1], base.where)


def test_prune_keeps_the_subtree_of_a_cp_row():
    data = load_data("kyphosis")
    fit = _fit(data.X, data.y, control=RpartControl(cp=0.0), folds=data.folds)
    table = fit.cp_table
    for k in range(len(table)):
        pruned = prune_rpart(fit, float(table["CP"][k]))
        n_internal = sum(f >= 0 for f in pruned.frame["feature"])
        assert n_internal == table["nsplit"][k]
        assert len(pruned.cp_table) == k + 1
        leaves = [i for i, f in enumerate(pruned.frame["feature"]) if f < 0]
        risk = sum(pruned.frame["dev"][i] for i in leaves) / fit.root_risk
        assert risk == pytest.approx(table["rel_error"][k], rel=1e-12)
        assert set(pruned.where) <= {pruned.frame["node"][i] for i in leaves}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"priors": [0.5, 0.6]}, "priors"),
    ({"loss": [[1.0, 1.0], [1.0, 0.0]]}, "loss"),
    ({"folds": np.zeros(4, dtype=int)}, "folds"),
])
def test_bad_settings_are_named(kwargs, message):
    X = np.arange(4.0).reshape(-1, 1)
    with pytest.raises(ValueError, match=message):
        _fit(X, np.array([0, 1, 0, 1]), **kwargs)


@pytest.mark.parametrize("name", ["kyphosis", "vote", "credit-g", "labor"])
def test_python_grower_and_compiled_grower_grow_the_same_tree(name):
    # fit_rpart grows with the compiled kernel, then re-walks the kept nodes in Python; the
    # plain Python grower (every node, rpart's complexity steps in Python) must agree
    from quercus.growing.rpart import sorted_orders
    from quercus.growing.rpart_grow import Grower, build_records, cap_complexities, make_costs

    data = load_data(name)
    fit = _fit(data.X, data.y, categorical=data.categorical, n_levels=data.n_levels,
               control=RpartControl(cp=0.0))
    keep = np.ones(len(data.y), dtype=bool)
    keep[fit.dropped] = False
    X, y = np.asfortranarray(data.X[keep]), data.y[keep]
    w = np.ones(len(y))
    costs = make_costs(y, w, int(data.y.max()) + 1)
    levels = np.where(data.categorical, data.n_levels, 0)
    grower = Grower(X, y, w, costs, RpartControl(cp=0.0), data.categorical, levels,
                    sorted_orders(X, np.arange(len(y)), data.categorical), 0.0, [0.0])
    root = grower.grow()
    cap_complexities(root, 0.0)
    frame, splits, importance = build_records(root, costs, X.shape[1], fit.root_risk)
    np.testing.assert_allclose(importance, fit.importance, rtol=1e-12)
    assert frame["node"] == fit.frame["node"]
    np.testing.assert_allclose(frame["complexity"], fit.frame["complexity"], rtol=1e-12)
    assert [(s.node, s.role, s.feature, s.count) for s in splits] == \
        [(s.node, s.role, s.feature, s.count) for s in fit.splits]
    np.testing.assert_array_equal(grower.where, fit.where[keep])


def test_too_many_levels_for_the_exhaustive_multiclass_search_is_refused():
    X = np.arange(60.0).reshape(-1, 1) % 30
    with pytest.raises(ValueError, match="30 levels"):
        _fit(X, np.arange(60) % 3, categorical=[True], n_levels=[30])


def _best_subset_by_hand(codes, y, n_classes, min_bucket):
    """Largest Gini decrease (row units) over every two-way split of the present levels."""
    def ng(labels):
        p = np.bincount(labels, minlength=n_classes) / len(labels)
        return len(labels) * (1.0 - (p ** 2).sum())
    levels = np.unique(codes)
    best = 0.0
    for mask in range(1, 2 ** (len(levels) - 1)):
        left = np.isin(codes, levels[[(mask >> b) & 1 == 1 for b in range(len(levels))]])
        if left.sum() >= min_bucket and (~left).sum() >= min_bucket:
            best = max(best, ng(y) - ng(y[left]) - ng(y[~left]))
    return best


@pytest.mark.parametrize(("n_classes", "seed", "n_levels"),
                         [(2, 0, 6), (2, 1, 6), (3, 2, 6), (4, 3, 6), (3, 4, 11), (5, 5, 9)])
def test_categorical_search_finds_the_best_subset(n_classes, seed, n_levels):
    # two classes: rpart's ordering by class share; more: its Gray-code enumeration (with
    # rpart's running sums and a cheaper estimate that skips sets far below the best). Both
    # must reach the best of all 2^(k-1) - 1 splits (brute force here)
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_levels, size=80)
    y = (codes * 7 + rng.integers(0, 5, size=80)) % n_classes
    fit = _fit(codes[:, None].astype(float), y, categorical=[True], n_levels=[n_levels],
               control=RpartControl(min_bucket=3, min_split=6), n_classes=n_classes)
    primary = fit.node_splits(1)[0]
    assert primary.improve == pytest.approx(_best_subset_by_hand(codes, y, n_classes, 3),
                                            rel=1e-12)


@pytest.mark.parametrize("crit", [0, 1])
@pytest.mark.parametrize("seed", range(4))
def test_subset_screening_keeps_the_exact_search_result(crit, seed):
    # Split weights that are not whole numbers (priors, fractional case weights): running
    # sums of the fewer-division estimate skip sets far below the best. The result must be
    # the set an exact evaluation of every set in the same Gray-code order picks (first
    # strict maximum), with the same improve bit for bit, in rpart's arithmetic: every sum
    # running along the Gray-code path (the set's class counts and total weight adding or
    # subtracting a level's as it moves in or out, the rest's starting from the node's, the
    # last row of c, and going the other way), the class sums a[k] times the counts.
    rng = np.random.default_rng(seed)
    n_levels, K = 9, 3
    c = np.zeros((n_levels + 1, K))
    c[:n_levels] = rng.integers(0, 6, size=(n_levels, K)) * rng.choice([1.0, 0.37, 0.1], K)
    c[:n_levels][c[:n_levels].sum(axis=1) == 0, 0] = 1.0
    c[-1] = c[:n_levels].sum(axis=0)
    a = rng.uniform(0.6, 1.6, K)
    t = np.zeros(n_levels + 1)
    t[:n_levels] = (c[:n_levels] * a).sum(axis=1)
    t[-1] = t[:n_levels].sum()
    rows = np.maximum(1, np.rint(c[:n_levels].sum(axis=1))).astype(np.int64)
    out, sides = np.zeros(4), np.zeros(n_levels, dtype=np.int8)
    _categorical_best(c, t, a, rows, int(rows.sum()), n_levels, 2, crit, K, out, sides,
                      np.zeros((2, n_levels), dtype=np.int64), np.zeros(n_levels),
                      np.zeros((2, n_levels), dtype=np.bool_), np.zeros((3, K)))

    parent = _parent_term(a * c[-1], t[-1], crit)
    inleft = np.zeros(n_levels, dtype=np.bool_)
    counts, rest = np.zeros(K), c[-1].copy()
    best, best_set, nl, tl, tr = -np.inf, None, 0, 0.0, t[-1]
    for step in range(1, 1 << (n_levels - 1)):
        lv = (step & -step).bit_length() - 1
        inleft[lv] = not inleft[lv]
        sign = 1 if inleft[lv] else -1
        nl += sign * rows[lv]
        tl, tr = (tl + t[lv], tr - t[lv]) if sign > 0 else (tl - t[lv], tr + t[lv])
        counts, rest = (counts + c[lv], rest - c[lv]) if sign > 0 else (counts - c[lv], rest + c[lv])
        if nl < 2 or rows.sum() - nl < 2:
            continue
        val = _subset_improve(a * counts, tl, a * rest, tr, parent, crit)
        if val > best:
            best, best_set = val, inleft.copy()
    assert out[0] == best
    assert len(set(sides[best_set])) == 1 and len(set(sides[~best_set])) == 1
    assert sides[best_set][0] == -sides[~best_set][0]
