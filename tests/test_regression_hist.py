"""The histogram splitter of regression trees: each node's cut against a brute-force
search over the same bins, the exact regressor's tree when every value has its own bin,
missing values, categories, weights, pruning and the estimator's interface."""

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets

from quercus import DecisionTreeRegressor, load_model
from quercus.binning import BinMapper
from quercus.data.schema import infer_schema
from quercus.tree import LEAF

TREE_FIELDS = ("kind", "feature", "threshold", "child_ptr", "child_ids", "missing_branch",
               "category_ptr", "category_branch", "value", "impurity", "n_node_samples",
               "weighted_n_node_samples")


def _sse(y, mask):
    return float(((y[mask] - y[mask].mean()) ** 2).sum()) if mask.any() else 0.0


def _brute_force_best(bins, y, n_bins, missing_bin, categorical, min_leaf):
    """The smallest children's squared error over every cut of the binned rows: numeric
    features cut between bins with the missing rows on either side (or alone on the right),
    categorical features by every subset of their codes with the missing rows either side."""
    best = np.inf
    for f in range(bins.shape[0]):
        b = bins[f]
        missing = b == missing_bin
        if categorical[f]:
            codes = np.unique(b[~missing])
            lefts = [np.isin(b, subset) for k in range(1, len(codes) + 1)
                     for subset in itertools.combinations(codes, k)]
        else:
            lefts = [(b <= cut) & ~missing for cut in range(n_bins[f])]
        for left in lefts:
            for side in (left, left | missing):
                n_left = int(side.sum())
                if min_leaf <= n_left <= len(y) - min_leaf:
                    best = min(best, _sse(y, side) + _sse(y, ~side))
    return best


def _check_every_node(model, X, y, min_leaf):
    """Walk the tree over the training rows: at every split node, the split's children's
    squared error equals the brute-force best over the same bins."""
    tree = model.tree_
    binner = BinMapper(model.max_bins).fit(X, model.schema_.categorical_mask,
                                           model.schema_.n_categories)
    bins = binner.transform(X)
    leaves = tree.apply(X)
    checked = 0
    stack = [(0, np.arange(len(y)))]
    while stack:
        node, rows = stack.pop()
        if tree.kind[node] == LEAF:
            assert np.all(leaves[rows] == node)
            np.testing.assert_allclose(tree.value[node, 0], y[rows].mean(), rtol=1e-9)
            continue
        best = _brute_force_best(bins[:, rows], y[rows], binner.n_bins_, binner.missing_bin_,
                                 model.schema_.categorical_mask, min_leaf)
        goes_left = np.isin(leaves[rows], _subtree(tree, tree.children(node)[0]))
        ours = _sse(y[rows], goes_left) + _sse(y[rows], ~goes_left)
        assert ours == pytest.approx(best, rel=1e-9, abs=1e-9), f"node {node}"
        checked += 1
        left_child, right_child = tree.children(node)
        stack.append((left_child, rows[goes_left]))
        stack.append((right_child, rows[~goes_left]))
    return checked


def _subtree(tree, node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if tree.kind[n] != LEAF:
            stack.extend(tree.children(n))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_every_cut_is_the_brute_force_best_on_the_bins(seed):
    rng = np.random.default_rng(seed)
    n = 400
    X = rng.normal(size=(n, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.sin(2 * np.nan_to_num(X[:, 0])) + np.nan_to_num(X[:, 1]) + 0.3 * rng.normal(size=n)
    model = DecisionTreeRegressor(splitter="hist", max_bins=16, max_depth=4,
                                  min_samples_leaf=5).fit(X, y)
    assert _check_every_node(model, X, y, 5) >= 7


def test_categorical_cuts_are_the_brute_force_best_subset():
    rng = np.random.default_rng(4)
    n = 500
    colour = rng.choice(list("abcdef"), n)
    effect = dict(zip("abcdef", [3.0, -1.0, 2.0, 0.5, -2.0, 1.0]))
    x = rng.normal(size=n)
    y = np.array([effect[c] for c in colour]) + x + 0.5 * rng.normal(size=n)
    X = pd.DataFrame({"colour": pd.Categorical(colour), "x": x})
    X.loc[rng.random(n) < 0.1, "colour"] = np.nan
    model = DecisionTreeRegressor(splitter="hist", max_bins=8, max_depth=3).fit(X, y)
    encoded = model.schema_.encode(X)
    assert model.tree_.feature[0] == 0  # the categories explain the most
    assert _check_every_node(model, encoded, y, 1) == 7


def _assert_same_tree(a, b):
    for name in TREE_FIELDS:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name), name)


def _integer_data(missing=False, categorical=False):
    """Features with fewer distinct values than bins, integer targets: every sum is exact,
    so the hist and exact searches compare the same numbers."""
    rng = np.random.default_rng(7)
    n = 3000
    X = rng.integers(0, 40, size=(n, 5)).astype(float)
    y = (X[:, 0] * 3 + (X[:, 1] > 20) * 50 + rng.integers(0, 30, n)).astype(float)
    if missing:
        X[rng.random(X.shape) < 0.15] = np.nan
    if categorical:
        frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)])
        frame["city"] = pd.Categorical(rng.choice(["oslo", "rome", "lima", "pune", "kyiv"], n))
        y = y + frame["city"].cat.codes.to_numpy() * 17.0
        frame.loc[rng.random(n) < 0.1, "city"] = np.nan
        return frame, y
    return X, y


@pytest.mark.parametrize("params", [
    {}, {"max_depth": 5}, {"min_samples_leaf": 20}, {"max_leaf_nodes": 25},
    {"ccp_alpha": 50.0}, {"min_impurity_decrease": 5.0}, {"min_weight_fraction_leaf": 0.01},
], ids=str)
@pytest.mark.parametrize("kind", ["plain", "missing", "categorical"])
def test_same_tree_as_exact_when_every_value_has_its_bin(kind, params):
    X, y = _integer_data(missing=kind != "plain", categorical=kind == "categorical")
    exact = DecisionTreeRegressor(**params).fit(X, y)
    hist = DecisionTreeRegressor(splitter="hist", **params).fit(X, y)
    _assert_same_tree(hist, exact)


def test_same_tree_as_exact_with_sample_weight():
    X, y = _integer_data(missing=True)
    w = np.random.default_rng(1).integers(0, 4, len(y)).astype(float)
    exact = DecisionTreeRegressor(max_depth=8).fit(X, y, sample_weight=w)
    hist = DecisionTreeRegressor(splitter="hist", max_depth=8).fit(X, y, sample_weight=w)
    _assert_same_tree(hist, exact)
    repeated = DecisionTreeRegressor(splitter="hist", max_depth=8).fit(
        np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    np.testing.assert_array_equal(repeated.predict(X), hist.predict(X))


def test_pruning_path_is_the_exact_regressors():
    X, y = _integer_data()
    exact = DecisionTreeRegressor().cost_complexity_pruning_path(X, y)
    hist = DecisionTreeRegressor(splitter="hist").cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(hist.ccp_alphas, exact.ccp_alphas, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(hist.impurities, exact.impurities, rtol=1e-9, atol=1e-9)


def test_held_out_r2_close_to_exact():
    X, y = datasets.make_friedman1(30_000, 10, noise=1.0, random_state=0)
    train, test = slice(0, 20_000), slice(20_000, None)
    for depth in (6, 10):
        exact = DecisionTreeRegressor(max_depth=depth).fit(X[train], y[train])
        hist = DecisionTreeRegressor(splitter="hist", max_depth=depth).fit(X[train], y[train])
        assert abs(hist.score(X[test], y[test]) - exact.score(X[test], y[test])) < 0.01


def test_auto_bins_from_two_million_cells():
    X, y = datasets.make_friedman1(1000, 5, noise=1.0, random_state=0)
    small = DecisionTreeRegressor(splitter="auto", max_depth=4).fit(X, y)
    _assert_same_tree(small, DecisionTreeRegressor(max_depth=4).fit(X, y))


def test_fit_binned_is_fit():
    X, y = _integer_data(missing=True, categorical=True)
    y = y.copy()
    y[::50] = np.nan
    model = DecisionTreeRegressor(splitter="hist", max_depth=6).fit(X, y)
    schema = infer_schema(X)
    encoded = schema.encode(X)
    binner = BinMapper().fit(encoded[~np.isnan(y)], schema.categorical_mask,
                             schema.n_categories)
    binned = DecisionTreeRegressor(splitter="hist", max_depth=6).fit_binned(
        binner.transform(encoded), y, schema, binner)
    _assert_same_tree(binned, model)
    with pytest.raises(ValueError, match="splitter='hist'"):
        DecisionTreeRegressor().fit_binned(binner.transform(encoded), y, schema, binner)


def test_save_and_load(tmp_path):
    X, y = datasets.make_friedman1(2000, 5, noise=1.0, random_state=1)
    X[::7, 2] = np.nan
    model = DecisionTreeRegressor(splitter="hist", max_bins=32, max_depth=7).fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    _assert_same_tree(loaded, model)


@pytest.mark.parametrize("bad", [1, 70000, 2.5, True])
def test_bad_max_bins(bad):
    X, y = datasets.make_friedman1(100, 5, random_state=0)
    with pytest.raises(ValueError, match="max_bins"):
        DecisionTreeRegressor(splitter="hist", max_bins=bad).fit(X, y)


def _sklearn_checks():
    from sklearn.utils.estimator_checks import parametrize_with_checks

    return parametrize_with_checks([DecisionTreeRegressor(splitter="hist")])


@_sklearn_checks()
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("categorical", [False, True])
def test_predict_gives_each_rows_leaf_mean(categorical):
    X, y = _integer_data(missing=True, categorical=categorical)
    model = DecisionTreeRegressor(splitter="hist", max_depth=9).fit(X, y)
    leaves = model.apply(X)
    means = {leaf: y[leaves == leaf].mean() for leaf in np.unique(leaves)}
    np.testing.assert_allclose(model.predict(X), [means[leaf] for leaf in leaves], rtol=1e-12)
    rows = X.iloc[:9] if categorical else X[:9].astype(np.float32)  # float32 rows too
    np.testing.assert_array_equal(model.predict(rows), model.predict(X)[:9])


def test_fill_equals_bincount_for_any_blocks():
    from quercus._kernels._hist import fill_ordered_histograms

    from quercus.splitting.exact_sums import layout_of

    rng = np.random.default_rng(5)
    bins = rng.integers(0, 7, size=(300, 8)).astype(np.uint8)  # 5 features, padded to 8
    y, w = rng.normal(size=300), rng.random(300)
    layout = layout_of(y, w)
    n_sums = layout.quantities[2][0]  # W's and S's limbs
    row_limbs = np.ascontiguousarray(layout.row_limbs(y, w)[:, :layout.count])
    start, end = 40, 160
    outs = []
    for n_blocks in (1, 2, 5):
        limbs = np.full((5, 8, n_sums + 1), 9, dtype=np.int64)
        fill_ordered_histograms(bins, row_limbs, start, end, n_sums, limbs, n_blocks)
        outs.append(limbs)
    hist, counts = layout.without_squares().round_hist(outs[0])
    for f in range(5):
        b = bins[start:end, f]
        np.testing.assert_array_equal(counts[f], np.bincount(b, minlength=8))
        for k, weights in enumerate((w[start:end], (w * y)[start:end])):  # Q: per node
            np.testing.assert_allclose(hist[f, :, k],
                                       np.bincount(b, weights=weights, minlength=8), atol=1e-12)
    for limbs in outs[1:]:  # the same integers, whatever the blocks
        np.testing.assert_array_equal(limbs, outs[0])


@pytest.mark.parametrize("n_sums", [0, 1, 2, 3, 4, 6])
def test_fill_of_every_width_equals_the_sums(n_sums):
    """The spelt-out widths (1-4 limbs) and the general loop add the same limbs."""
    from quercus._kernels._hist import fill_ordered_histograms

    rng = np.random.default_rng(n_sums)
    bins = rng.integers(0, 6, size=(200, 3)).astype(np.uint16)
    limbs = rng.integers(-2**40, 2**40, size=(200, max(n_sums, 1)))
    hist = np.zeros((3, 6, n_sums + 1), dtype=np.int64)
    fill_ordered_histograms(bins, limbs, 10, 190, n_sums, hist, 1)
    for f in range(3):
        for b in range(6):
            rows = np.flatnonzero(bins[10:190, f] == b) + 10
            assert hist[f, b, n_sums] == rows.size
            np.testing.assert_array_equal(hist[f, b, :n_sums], limbs[rows, :n_sums].sum(axis=0))


def test_partition_is_stable_and_sums_the_left_rows():
    from quercus._kernels._hist import partition_ordered

    rng = np.random.default_rng(2)
    bins = rng.integers(0, 5, size=(100, 8)).astype(np.uint8)
    limbs = rng.integers(-2**40, 2**40, size=(100, 3))
    goes_left = np.array([True, False, True, False, False])
    start, end, feature = 20, 90, 3
    left_rows = [p for p in range(start, end) if goes_left[bins[p, feature]]]
    right_rows = [p for p in range(start, end) if not goes_left[bins[p, feature]]]
    for n_left in (len(left_rows), -1):  # known from the histogram, or counted
        out_bins, out_limbs = np.zeros_like(bins), np.zeros_like(limbs)
        left = np.empty(4, dtype=np.int64)
        got = partition_ordered(bins, bins.view(np.uint64), limbs, out_bins.view(np.uint64),
                                out_limbs, start, end, feature, goes_left, n_left, left)
        assert got == len(left_rows)
        order = left_rows + right_rows
        np.testing.assert_array_equal(out_bins[start:end], bins[order])
        np.testing.assert_array_equal(out_limbs[start:end], limbs[order])
        np.testing.assert_array_equal(left[:3], limbs[left_rows].sum(axis=0))
        assert left[3] == len(left_rows)
        assert not out_bins[:start].any() and not out_bins[end:].any()  # nothing else


@pytest.mark.parametrize("n_rows", [1, 2, 3, 1000, 4095, 4096, 2**20 - 1, 2**20, 2**29])
def test_digit_is_the_widest_whose_row_sums_stay_below_2_62(n_rows):
    from quercus.splitting.exact_sums import MAX_DIGIT, digit_bits

    digit = digit_bits(n_rows)
    assert n_rows * 2**digit < 2**62  # n_rows digits below 2**digit each
    assert digit == MAX_DIGIT or n_rows * 2**(digit + 1) >= 2**62
    assert digit >= 32  # below MAX_ROWS (2**30) rows


@pytest.mark.parametrize("n_rows", [1000, 5000])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_limb_count_at_its_edges(n_rows, sign):
    """Targets whose integers need exactly k digits get k limbs, one more bit k + 1; sums
    of many rows at the top of the range outgrow the top limb and still round exactly,
    while a layout of one limb fewer loses them (so the count is not more than needed and
    not less)."""
    from dataclasses import replace

    from quercus.splitting.exact_sums import digit_bits, layout_of

    digit = digit_bits(n_rows)
    w = np.ones(n_rows)
    for k in (1, 2, 3):
        # the largest whole double below 2**(k digit)
        top = 2.0 ** (k * digit) - 2.0 ** max(0, k * digit - 53)
        y = np.full(n_rows, sign * top)
        y[0] = 1.0  # lowest set bit 2**0: the integers span k * digit bits
        layout = layout_of(y, w)
        assert layout.digit == digit
        offset, n_limbs, scale = layout.quantities[1]
        assert (n_limbs, scale) == (k, 0)
        exact = float(sum(map(Fraction, y)))
        sums = layout.round(layout.row_limbs(y, w).sum(axis=0))
        assert sums[1] == exact
        assert sums[2] == float(sum(Fraction(v) * Fraction(v) for v in y))
        wider = y.copy()
        wider[1] = sign * 2.0 ** (k * digit)  # one bit more
        assert layout_of(wider, w).quantities[1][1] == k + 1
        if k > 1:  # one limb fewer drops the top digit of every row
            q = layout.quantities
            fewer = replace(layout, quantities=(q[0], (offset, k - 1, scale),
                                                (q[2][0] - 1, q[2][1], q[2][2])),
                            width=layout.width - 1)
            assert fewer.round(fewer.row_limbs(y, w).sum(axis=0))[1] != exact


def test_hist_refuses_criteria_its_sums_cannot_rank(monkeypatch):
    from quercus import regressor

    monkeypatch.setattr(regressor, "REGRESSION_CRITERIA", (*regressor.REGRESSION_CRITERIA,
                                                           "absolute_error"))
    X, y = datasets.make_friedman1(100, 5, random_state=0)
    with pytest.raises(ValueError, match="squared-error trees only"):
        DecisionTreeRegressor(splitter="hist", criterion="absolute_error").fit(X, y)


def test_cli_trains_a_hist_regression_tree(tmp_path, monkeypatch, capsys):
    import shutil
    from pathlib import Path

    import quercus
    from quercus import cli

    shutil.copy(Path(quercus.__file__).parent / "data" / "bundled" / "airquality.csv", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "airquality.csv", "--target", "Ozone", "--splitter", "hist",
                     "--max-bins", "16", "--max-depth", "3", "--out", "oz.json"]) == 0
    model = load_model("oz.json")
    assert (model.splitter, model.max_bins) == ("hist", 16)
    X, y, _ = quercus.read_csv("airquality.csv", "Ozone")
    direct = DecisionTreeRegressor(splitter="hist", max_bins=16, max_depth=3).fit(X, y)
    _assert_same_tree(model, direct)
    capsys.readouterr()
    assert cli.main(["train", "airquality.csv", "--target", "Ozone", "--splitter", "hist",
                     "--max-bins", "1", "--out", "bad.json"]) == 2
    assert "quercus: error: max_bins must be an int in [2, 65535]" in capsys.readouterr().err


@pytest.mark.parametrize("digit", [32, 42, 52])
def test_quick_rounding_of_two_limbs_is_the_general_rounding(digit):
    """round_sums' float path for sums of one or two limbs (|high| < 2**53) gives the
    general path's float, the exact sum correctly rounded (ties to even, signs, carries
    out of the low limb); for subnormal results both round the 53-bit sum once more, as
    the general path always did."""
    from quercus._kernels._hist import round_one, round_sums

    rng = np.random.default_rng(digit)
    n = 4000
    limbs = np.zeros((n, 3), dtype=np.int64)
    limbs[:, 0] = rng.integers(-2**61, 2**61, size=n) >> rng.integers(0, 60, size=n)
    limbs[:, 1] = rng.integers(-2**52, 2**52, size=n) >> rng.integers(0, 52, size=n)
    limbs[:, 2] = 1
    for k in range(0, 400, 4):  # ties and their neighbours: 54 and more bits
        top = 1 << int(rng.integers(1, 52))
        limbs[k:k + 4, 1] = top
        limbs[k:k + 4, 0] = np.array([0, 1, -1, 2]) + (1 << max(0, digit - 3))
    limbs[400:800] *= -1
    for scale in (-1090, -1060, -60, 0, 30):
        out = np.full((n, 3), np.nan)
        round_sums(limbs, np.array([0, 0, 0]), np.array([0, 2, 0]),
                   np.array([0, scale, 0]), digit, 2, True, 2, out, np.zeros(0, np.int64))
        digits = np.empty(5, dtype=np.int64)
        slow = [round_one(limbs, i, 0, 2, scale, digit, digits) for i in range(n)]
        np.testing.assert_array_equal(out[:, 1], slow)
        for i in range(0, n, 97):
            exact = (Fraction(int(limbs[i, 1])) * 2**digit + int(limbs[i, 0])) \
                * Fraction(2) ** scale
            if abs(exact) >= Fraction(2) ** -1022 or exact == 0:
                assert out[i, 1] == float(exact)
