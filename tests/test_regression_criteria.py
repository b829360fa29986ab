"""Regression trees with criterion="absolute_error" and "poisson": scikit-learn's trees,
medians and impurities, the kernels against brute force, categorical subsets, the CLI."""

import itertools
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from quercus._kernels._regression import (
    MAX_EXHAUSTIVE_GROUPS,
    POISSON,
    best_absolute_splits,
    best_absolute_subset_split,
    best_poisson_subset_split,
    best_regression_splits,
    node_ranks,
)
from sklearn import datasets
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from test_regression import compare_trees

import quercus
from quercus import DataError, DecisionTreeRegressor, cli
from quercus.export.conditions import format_significant
from quercus.tree import LEAF

EPS = np.finfo(float).eps


# -- independent references ----------------------------------------------------------------
def _median(y, w):
    """scikit-learn's weighted median (checked against it below): the first sorted target
    whose cumulative weight reaches half, the midpoint with the next one on exactly half."""
    idx = np.argsort(y, kind="stable")
    ys, cum = y[idx], np.cumsum(w[idx])
    k = int(np.searchsorted(cum, cum[-1] / 2))  # first cum >= half
    return (ys[k] + ys[k + 1]) / 2 if cum[k] == cum[-1] / 2 and k + 1 < len(ys) else ys[k]


def _abs_loss(y, w, mask):
    if not mask.any():
        return 0.0
    return float(np.sum(w[mask] * np.abs(y[mask] - _median(y[mask], w[mask]))))


def _poisson_loss(y, w, mask):
    if not mask.any():
        return 0.0
    ys, ws = y[mask], w[mask]
    mean = np.average(ys, weights=ws)
    positive = ys > 0
    return float(np.sum(ws[positive] * ys[positive] * np.log(ys[positive] / mean)))


def _poisson_proxy(y, w, mask):
    """scikit-learn's proxy of one split, -inf if a side's target sum is not positive."""
    out = 0.0
    for side in (mask, ~mask):
        s, W = float(np.sum(w[side] * y[side])), float(np.sum(w[side]))
        if s <= EPS:
            return -np.inf
        out += s * np.log(s / W)
    return out


LOSS = {"absolute_error": _abs_loss, "poisson": _poisson_loss}


# -- data ---------------------------------------------------------------------------------
def _diabetes():
    return datasets.load_diabetes(return_X_y=True)


def _friedman():
    X, y = datasets.make_friedman1(1000, 6, noise=1.0, random_state=0)
    return np.round(X, 2), y


def _counts():  # a Poisson target: rounded exp of a linear predictor, many zeros
    rng = np.random.RandomState(5)
    X = np.round(rng.normal(size=(800, 5)), 2)
    y = rng.poisson(np.exp(0.3 + 0.8 * X[:, 0] - 0.5 * X[:, 1])).astype(float)
    return X, y


def _with_missing(data):
    def load():
        X, y = data()
        X = X.copy()
        X[np.random.RandomState(0).rand(*X.shape) < 0.1] = np.nan
        return X, y
    return load


DATA = {"diabetes": _diabetes, "friedman": _friedman, "counts": _counts,
        "diabetes-missing": _with_missing(_diabetes), "counts-missing": _with_missing(_counts)}
PARAMS = [{}, {"max_depth": 3}, {"min_samples_leaf": 5}, {"max_leaf_nodes": 12},
          {"min_samples_split": 10, "max_depth": 6}, {"min_impurity_decrease": 0.5}]


CCP_DEPTH = 5  # the pruned trees: unpruned, deeper ones hold equal-score ties


def _ccp_alpha(criterion, data):
    """An alpha halfway between two effective alphas of scikit-learn's own path (not on one:
    a tie there is decided by the last bits of the impurities)."""
    X, y = DATA[data]()
    alphas = SkRegressor(criterion=criterion, random_state=0,
                         max_depth=CCP_DEPTH).cost_complexity_pruning_path(X, y).ccp_alphas
    k = len(alphas) - len(alphas) // 8
    return float(alphas[k - 1] + alphas[k]) / 2


def _leaf_sets(model, X):
    leaves = model.apply(X)
    return {tuple(np.flatnonzero(leaves == leaf)) for leaf in np.unique(leaves)}


def _total_loss(model, X, y, w, loss):
    leaves = model.apply(X)
    return sum(loss(y, w, leaves == leaf) for leaf in np.unique(leaves))


def compare_best_first(criterion, params, X, y, w):
    """Best-first trees grown leaf by leaf: equal up to the first tie between frontier
    nodes (both expansions leave the same total loss), where scikit-learn's heap may take
    the other node. Returns the leaf count of that tie (None: equal trees)."""
    for k in range(2, params["max_leaf_nodes"] + 1):
        grown = {**params, "max_leaf_nodes": k}
        ours = DecisionTreeRegressor(criterion=criterion, **grown).fit(X, y, sample_weight=w)
        sk = SkRegressor(criterion=criterion, random_state=0, **grown).fit(X, y,
                                                                          sample_weight=w)
        if _leaf_sets(ours, X) != _leaf_sets(sk, X):
            assert ours.get_n_leaves() == sk.get_n_leaves()
            assert _total_loss(ours, X, y, w, LOSS[criterion]) == pytest.approx(
                _total_loss(sk, X, y, w, LOSS[criterion]), rel=1e-9)
            return k
    return None


@pytest.mark.parametrize("params", PARAMS + ["ccp"], ids=str)
@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("criterion", ["absolute_error", "poisson"])
def test_same_tree_as_sklearn(criterion, data, params):
    X, y = DATA[data]()
    if params == "ccp":
        params = {"ccp_alpha": _ccp_alpha(criterion, data), "max_depth": CCP_DEPTH}
    if "max_leaf_nodes" in params and compare_best_first(criterion, params, X, y,
                                                         np.ones_like(y)):
        return  # checked up to a tie
    ours = DecisionTreeRegressor(criterion=criterion, **params).fit(X, y)
    sk = SkRegressor(criterion=criterion, random_state=0, **params).fit(X, y)
    if "ccp_alpha" in params and _tied(criterion, X, y):
        pytest.skip("equal-score ties in the unpruned trees: their pruning may differ")
    excused = compare_trees(ours, sk, X, y, np.ones_like(y), loss=LOSS[criterion])
    if excused == 0:
        assert ours.tree_.n_nodes == sk.tree_.node_count
        np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-9)
        # node by node up to mirrored children (compare_trees): the same impurities
        np.testing.assert_allclose(np.sort(ours.tree_.impurity), np.sort(sk.tree_.impurity),
                                   rtol=1e-9, atol=1e-12)


def _tied(criterion, X, y):
    ours = DecisionTreeRegressor(criterion=criterion, max_depth=CCP_DEPTH).fit(X, y)
    sk = SkRegressor(criterion=criterion, random_state=0, max_depth=CCP_DEPTH).fit(X, y)
    return compare_trees(ours, sk, X, y, np.ones_like(y), loss=LOSS[criterion]) > 0


@pytest.mark.parametrize("data", ["diabetes", "counts", "counts-missing"])
@pytest.mark.parametrize("criterion", ["absolute_error", "poisson"])
def test_same_tree_with_sample_weight(criterion, data):
    X, y = DATA[data]()
    w = np.random.RandomState(1).randint(1, 4, size=y.shape[0]).astype(float)
    compare_best_first(criterion, {"max_leaf_nodes": 20}, X, y, w)
    for params in ({"max_depth": 4, "min_samples_leaf": 3}, {"min_samples_leaf": 2}):
        ours = DecisionTreeRegressor(criterion=criterion, **params).fit(X, y, sample_weight=w)
        sk = SkRegressor(criterion=criterion, random_state=0, **params).fit(X, y,
                                                                             sample_weight=w)
        if compare_trees(ours, sk, X, y, w, loss=LOSS[criterion]) == 0:
            np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-9)


@pytest.mark.parametrize("data", ["diabetes", "friedman", "counts-missing"])
@pytest.mark.parametrize("criterion", ["absolute_error", "poisson"])
def test_same_tree_with_fractional_weights(criterion, data):
    X, y = DATA[data]()
    w = np.random.RandomState(3).uniform(0.2, 3.0, size=y.shape[0])
    for params in ({"max_depth": 5}, {"min_weight_fraction_leaf": 0.01}):
        ours = DecisionTreeRegressor(criterion=criterion, **params).fit(X, y, sample_weight=w)
        sk = SkRegressor(criterion=criterion, random_state=0, **params).fit(X, y,
                                                                             sample_weight=w)
        if compare_trees(ours, sk, X, y, w, loss=LOSS[criterion]) == 0:
            assert ours.tree_.n_nodes == sk.tree_.node_count
            np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-9)


@pytest.mark.parametrize("data", ["diabetes", "counts"])
@pytest.mark.parametrize("criterion", ["absolute_error", "poisson"])
def test_pruning_path_is_sklearns(criterion, data):
    X, y = DATA[data]()
    params = {"criterion": criterion, "max_depth": 5}
    ours = DecisionTreeRegressor(**params).cost_complexity_pruning_path(X, y)
    sk_model = SkRegressor(random_state=0, **params).fit(X, y)
    if compare_trees(DecisionTreeRegressor(**params).fit(X, y), sk_model, X, y,
                     np.ones_like(y), loss=LOSS[criterion]):
        pytest.skip("equal-score ties: the trees differ")
    sk = SkRegressor(random_state=0, **params).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours.ccp_alphas, sk.ccp_alphas, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ours.impurities, sk.impurities, rtol=1e-9)


# -- leaf values, impurities and refusals ----------------------------------------------------
def test_reference_median_is_sklearns():
    rng = np.random.RandomState(0)
    for trial in range(60):
        n = rng.randint(1, 9)
        y = rng.randint(0, 5, size=n).astype(float) if trial % 2 else rng.normal(size=n)
        w = rng.randint(1, 4, size=n).astype(float) if trial % 3 else rng.uniform(0.1, 2, n)
        X = np.zeros((n, 1))
        sk = SkRegressor(criterion="absolute_error").fit(X, y, sample_weight=w)
        ours = DecisionTreeRegressor(criterion="absolute_error").fit(X, y, sample_weight=w)
        assert sk.tree_.value[0, 0, 0] == pytest.approx(_median(y, w), rel=1e-12, abs=1e-12)
        assert ours.tree_.value[0, 0] == pytest.approx(_median(y, w), rel=1e-12, abs=1e-12)
        expected = _abs_loss(y, w, np.ones(n, bool)) / w.sum()
        assert sk.tree_.impurity[0] == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert ours.tree_.impurity[0] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_even_counts_take_the_midpoint():
    X = np.zeros((4, 1))
    model = DecisionTreeRegressor(criterion="absolute_error").fit(X, [1.0, 2.0, 3.0, 10.0])
    assert model.predict(X[:1])[0] == 2.5  # the midpoint of the middle two, not the mean 4
    weighted = DecisionTreeRegressor(criterion="absolute_error").fit(
        X, [1.0, 2.0, 3.0, 10.0], sample_weight=[1, 1, 1, 4])
    assert weighted.predict(X[:1])[0] == 10.0


@pytest.mark.parametrize("y, message", [([1.0, -1.0, 2.0], "negative"),
                                        ([0.0, 0.0, 0.0], "Sum of y is not positive")])
def test_poisson_refuses_what_sklearn_refuses(y, message):
    X = np.arange(3.0).reshape(-1, 1)
    with pytest.raises(ValueError, match=message):
        SkRegressor(criterion="poisson").fit(X, y)
    with pytest.raises(DataError, match=message):
        DecisionTreeRegressor(criterion="poisson").fit(X, y)


def test_poisson_never_makes_a_zero_sum_child():
    X = np.arange(6.0).reshape(-1, 1)
    y = np.array([0.0, 0.0, 0.0, 5.0, 6.0, 7.0])
    squared = DecisionTreeRegressor(max_depth=1).fit(X, y)
    assert squared.tree_.threshold[0] == 2.5  # squared error isolates the zeros
    ours = DecisionTreeRegressor(criterion="poisson").fit(X, y)
    sk = SkRegressor(criterion="poisson").fit(X, y)
    assert compare_trees(ours, sk, X, y, np.ones_like(y), loss=_poisson_loss) == 0
    leaves = ours.tree_.kind == LEAF
    assert (ours.tree_.value[leaves, 0] > 0).all()
    assert ours.tree_.threshold[0] != 2.5


# -- kernels against brute force -------------------------------------------------------------
def _cuts(values):
    known = np.unique(values[~np.isnan(values)])
    return [(lo + hi) / 2 for lo, hi in itertools.pairwise(known)] + [np.inf]


def _brute_numeric(X, y, w, f, min_leaf, proxy_of):
    best = -np.inf
    for cut in _cuts(X[:, f]):
        for missing_left in (False, True):
            left = np.where(np.isnan(X[:, f]), missing_left, X[:, f] <= cut)
            if min(left.sum(), (~left).sum()) < min_leaf:
                continue
            best = max(best, proxy_of(y, w, left))
    return best


def _random_node(seed, n=30, m=3, counts=False):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 6, size=(n, m)).astype(float)
    X[rng.rand(n, m) < 0.15 * (seed % 2)] = np.nan
    y = (rng.poisson(1.0, size=n) * rng.randint(0, 2, size=n) if counts
         else rng.randint(0, 8, size=n)).astype(float)  # ties
    w = rng.randint(1, 4, size=n).astype(float) if seed % 3 else rng.uniform(0.5, 2.0, n)
    order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T.astype(np.int32))
    return X, y, w, order


@pytest.mark.parametrize("seed", range(12))
def test_absolute_kernel_against_brute_force(seed):
    X, y, w, order = _random_node(seed)
    n, m = X.shape
    min_leaf = 1 + seed % 3
    proxy, threshold = np.empty(m), np.empty(m)
    missing_left = np.empty(m, dtype=np.bool_)
    rank = np.zeros(n, dtype=np.int64)
    sorted_y = node_ranks(y, order[0], rank)
    best_absolute_splits(X, y, w, order, 0, n, np.arange(m, dtype=np.int64), rank, sorted_y,
                         min_leaf, 0.0, proxy, threshold, missing_left)
    for f in range(m):
        def negative_loss(y, w, left):
            return -(_abs_loss(y, w, left) + _abs_loss(y, w, ~left))
        expected = _brute_numeric(X, y, w, f, min_leaf, negative_loss)
        assert proxy[f] == pytest.approx(expected, rel=1e-12, abs=1e-9)
        left = np.where(np.isnan(X[:, f]), missing_left[f], X[:, f] <= threshold[f])
        assert negative_loss(y, w, left) == pytest.approx(proxy[f], rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_poisson_kernel_against_brute_force(seed):
    X, y, w, order = _random_node(seed, counts=True)
    if y.sum() == 0:
        y[0] = 1.0
    n, m = X.shape
    min_leaf = 1 + seed % 3
    proxy, threshold = np.empty(m), np.empty(m)
    missing_left = np.empty(m, dtype=np.bool_)
    best_regression_splits(X, y, w, order, 0, n, np.arange(m, dtype=np.int64), min_leaf, 0.0,
                           proxy, threshold, missing_left, POISSON)
    for f in range(m):
        expected = _brute_numeric(X, y, w, f, min_leaf, _poisson_proxy)
        assert proxy[f] == pytest.approx(expected, rel=1e-12)


def _brute_subsets(codes, n_codes, y, w, min_leaf, proxy_of, restrict=None):
    """Largest proxy over every subset of the groups present (categories, missing -1)."""
    groups = np.unique(codes)
    best = -np.inf
    for mask in range(1, 1 << len(groups)):
        left_groups = {g for j, g in enumerate(groups) if (mask >> j) & 1}
        if restrict is not None and left_groups not in restrict:
            continue
        left = np.isin(codes, list(left_groups))
        if left.all() or min(left.sum(), (~left).sum()) < min_leaf:
            continue
        best = max(best, proxy_of(y, w, left))
    return best


def _subset_case(seed, n_codes, n=50, counts=False):
    rng = np.random.RandomState(seed)
    codes = rng.randint(-1 if seed % 2 else 0, n_codes, size=n)
    base = rng.choice([0.0, 0.0, 1.0, 3.0], size=n_codes + 1) if counts else None
    if counts:
        y = rng.poisson(base[codes]).astype(float)
    else:
        y = rng.randint(0, 10, size=n) + 2.0 * (codes % 3)
    w = rng.randint(1, 3, size=n).astype(float) if seed % 3 else rng.uniform(0.5, 2.0, n)
    X = np.where(codes < 0, np.nan, codes).astype(float).reshape(-1, 1)
    return X, codes, y, w


def _left_of(codes, branch, missing_left):
    return np.where(codes < 0, missing_left, branch[np.maximum(codes, 0)] == 0)


@pytest.mark.parametrize("seed", range(10))
def test_absolute_subset_kernel_is_exhaustive(seed):
    n_codes = 3 + seed % 6  # with missing rows, up to MAX_EXHAUSTIVE_GROUPS groups
    X, codes, y, w = _subset_case(seed, n_codes)
    branch = np.empty(n_codes, dtype=np.int32)
    min_leaf = 1 + seed % 4
    proxy, missing_left = best_absolute_subset_split(X, y, w, np.arange(len(y)), 0, n_codes,
                                                     min_leaf, 0.0, branch)
    assert len(np.unique(codes)) <= MAX_EXHAUSTIVE_GROUPS

    def negative_loss(y, w, left):
        return -(_abs_loss(y, w, left) + _abs_loss(y, w, ~left))
    assert proxy == pytest.approx(_brute_subsets(codes, n_codes, y, w, min_leaf, negative_loss),
                                  rel=1e-12)
    assert negative_loss(y, w, _left_of(codes, branch, missing_left)) == pytest.approx(proxy)


@pytest.mark.parametrize("seed", range(4))
def test_absolute_subset_kernel_with_many_groups_takes_the_best_median_prefix(seed):
    n_codes = MAX_EXHAUSTIVE_GROUPS + 2
    X, codes, y, w = _subset_case(seed, n_codes, n=120)
    groups = np.unique(codes)
    medians = {g: _median(y[codes == g], w[codes == g]) if g >= 0 else np.inf for g in groups}
    ordered = sorted(groups, key=lambda g: (medians[g], g if g >= 0 else n_codes))
    prefixes = [set(ordered[:k]) for k in range(1, len(ordered))]
    branch = np.empty(n_codes, dtype=np.int32)
    proxy, missing_left = best_absolute_subset_split(X, y, w, np.arange(len(y)), 0, n_codes,
                                                     1, 0.0, branch)

    def negative_loss(y, w, left):
        return -(_abs_loss(y, w, left) + _abs_loss(y, w, ~left))
    expected = _brute_subsets(codes, n_codes, y, w, 1, negative_loss, restrict=prefixes)
    assert proxy == pytest.approx(expected, rel=1e-12)
    assert negative_loss(y, w, _left_of(codes, branch, missing_left)) == pytest.approx(proxy)


@pytest.mark.parametrize("seed", range(16))
def test_poisson_subset_kernel_finds_the_best_valid_subset(seed):
    n_codes = 3 + seed % 5
    _X, codes, y, w = _subset_case(seed, n_codes, counts=True)
    if y.sum() == 0:
        y[0] = 1.0
    slot = np.where(codes < 0, n_codes, codes)
    weight = np.bincount(slot, weights=w, minlength=n_codes + 1).astype(float)
    target_sum = np.bincount(slot, weights=w * y, minlength=n_codes + 1).astype(float)
    counts = np.bincount(slot, minlength=n_codes + 1).astype(np.int64)
    branch = np.empty(n_codes, dtype=np.int32)
    min_leaf = 1 + seed % 3
    proxy, missing_left = best_poisson_subset_split(weight, target_sum, counts, min_leaf, 0.0,
                                                    branch)
    expected = _brute_subsets(codes, n_codes, y, w, min_leaf, _poisson_proxy)
    if expected == -np.inf:
        assert proxy == -np.inf
        return
    assert proxy == pytest.approx(expected, rel=1e-12)
    assert _poisson_proxy(y, w, _left_of(codes, branch, missing_left)) == pytest.approx(proxy)


@pytest.mark.parametrize("criterion", ["absolute_error", "poisson"])
def test_categorical_feature_tree(criterion):
    rng = np.random.RandomState(3)
    colour = rng.choice(["red", "green", "blue", "grey", "pink"], size=300)
    effect = {"red": 6.0, "green": 1.0, "blue": 5.0, "grey": 0.5, "pink": 2.0}
    y = rng.poisson([effect[c] for c in colour]).astype(float)
    X = pd.DataFrame({"colour": colour, "size": rng.uniform(0, 10, size=300)})
    model = DecisionTreeRegressor(criterion=criterion, max_depth=1).fit(X, y)
    assert model.tree_.feature[0] == 0
    sides = {c: model.apply(pd.DataFrame({"colour": [c], "size": [5.0]}))[0] for c in effect}
    left = np.array([sides[c] == 1 for c in colour])
    codes = pd.Categorical(colour, categories=sorted(effect)).codes
    if criterion == "poisson":
        def proxy_of(y, w, mask):
            return _poisson_proxy(y, w, mask)
    else:
        def proxy_of(y, w, mask):
            return -(_abs_loss(y, w, mask) + _abs_loss(y, w, ~mask))
    best = _brute_subsets(codes, 5, y, np.ones_like(y), 1, proxy_of)
    assert proxy_of(y, np.ones_like(y), left) == pytest.approx(best, rel=1e-12)


# -- model files and the command line --------------------------------------------------------
@pytest.mark.parametrize("criterion", ["absolute_error", "poisson"])
def test_model_file_round_trip(tmp_path, criterion):
    X, y = _counts()
    model = DecisionTreeRegressor(criterion=criterion, max_depth=4).fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = quercus.load_model(tmp_path / "m.json")
    assert loaded.criterion == criterion
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


def test_cli_criterion(tmp_path, monkeypatch, capsys):
    shutil.copy(BUNDLED / "airquality.csv", tmp_path / "airquality.csv")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "airquality.csv", "--target", "Ozone", "--max-depth", "2",
                     "--criterion", "absolute_error", "--out", "m.json"]) == 0
    assert "(cart, absolute_error)" in capsys.readouterr().out
    model = quercus.load_model(tmp_path / "m.json")
    frame = pd.read_csv(tmp_path / "airquality.csv")
    frame = frame[frame["Ozone"].notna()]
    X, y = frame.drop(columns="Ozone").to_numpy(float), frame["Ozone"].to_numpy(float)
    sk = SkRegressor(criterion="absolute_error", max_depth=2, random_state=0).fit(X, y)
    if compare_trees(model, sk, X, y, np.ones_like(y), loss=_abs_loss) == 0:
        np.testing.assert_allclose(model.predict(X), sk.predict(X))
    assert cli.main(["show", "m.json"]) == 0
    text = capsys.readouterr().out
    # each leaf: the median of its rows and their mean absolute deviation from it
    leaves = model.apply(X)
    for leaf in np.unique(leaves):
        ys = y[leaves == leaf]
        median = _median(ys, np.ones_like(ys))
        mad = np.mean(np.abs(ys - median))
        assert (f"{format_significant(median)} (n = {len(ys)}, "
                f"mad {format_significant(mad, 2)})") in text
    assert cli.main(["eval", "airquality.csv", "--target", "Ozone", "--cv", "3",
                     "--criterion", "poisson", "--max-depth", "2"]) == 0
    assert "mean" in capsys.readouterr().out
    assert cli.main(["train", "airquality.csv", "--target", "Ozone", "--criterion", "gini",
                     "--out", "x.json"]) == 2
    assert "criterion" in capsys.readouterr().err


def test_exports_name_the_median_and_the_spread():
    from sklearn.metrics import mean_poisson_deviance

    from quercus.export.dot import tree_to_dot
    from quercus.export.rules import rules_to_dict, rules_to_text

    X, y = _counts()
    poisson = DecisionTreeRegressor(criterion="poisson", max_depth=2).fit(X, y)
    leaves = poisson.apply(X)
    rules = rules_to_dict(poisson)["rules"]
    for rule in rules:  # the mean Poisson deviance of the leaf's rows, by scikit-learn
        ys = y[leaves == rule["leaf"]]
        assert rule["value"] == pytest.approx(ys.mean())
        assert rule["deviance"] == pytest.approx(
            mean_poisson_deviance(ys, np.full_like(ys, ys.mean())), rel=1e-9)
    assert "deviance" in rules_to_text(poisson) and "sd" not in rules_to_text(poisson)
    median = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(X, y)
    assert "\\nmedian = " in tree_to_dot(median) and "\\nmad = " in tree_to_dot(median)
    explanation = median.explain(X[:1])[0]
    assert "(median of leaf" in str(explanation)
    leaf_rows = y[median.apply(X) == explanation.leaf]
    assert explanation.path.to_dict(())["mad"] == pytest.approx(
        np.mean(np.abs(leaf_rows - _median(leaf_rows, np.ones_like(leaf_rows)))))


def _sklearn_checks():
    from sklearn.utils.estimator_checks import parametrize_with_checks

    # poisson refuses the negative targets the checks use, as scikit-learn's tree does
    return parametrize_with_checks([DecisionTreeRegressor(criterion="absolute_error")])


@_sklearn_checks()
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
