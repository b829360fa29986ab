"""The kernels' pure Python copy (``quercus._kernel_path``) gives the compiled kernels' models
byte for byte: every algorithm it serves (the optimal tree on ``OPTIMAL_ROWS`` rows, 3
columns and 3 classes at most: it is 40-140x slower pure), fitted on many small random data
sets (ties,
missing values, categories, fractional weights, up to 11 classes) once with
``QUERCUS_KERNELS=pure`` and once with ``compiled``, writes the same model file and
predicts the same probabilities, bit for bit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import _kernel_path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _data(seed: int, *, nominal_only: bool = False):
    """A small random data set: numeric columns with ties and missing values, categorical
    columns (one with a missing value now and then), 2-11 classes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 260))
    n_classes = int(rng.choice([2, 3, 5, 9, 11]))
    X = pd.DataFrame()
    n_numeric = 0 if nominal_only else int(rng.integers(1, 5))
    for j in range(n_numeric):
        column = np.round(rng.normal(size=n) * 3, int(rng.integers(0, 3)))
        if not nominal_only and rng.random() < 0.6:
            column[rng.random(n) < 0.1] = np.nan
        X[f"n{j}"] = column
    for j in range(int(rng.integers(1 if nominal_only else 0, 3))):
        levels = [f"c{k}" for k in range(int(rng.integers(2, 7)))]
        values = rng.choice(levels, n).astype(object)
        if not nominal_only and rng.random() < 0.5:
            values[rng.random(n) < 0.08] = None
        X[f"k{j}"] = pd.Categorical(values, categories=levels)
    signal = np.zeros(n)
    if n_numeric:
        signal += np.nan_to_num(X["n0"].to_numpy())
    if "k0" in X:
        signal += X["k0"].cat.codes.to_numpy() * 0.7
    noisy = signal + rng.normal(scale=1.5, size=n)
    y = np.digitize(noisy, np.quantile(noisy, np.linspace(0, 1, n_classes + 1)[1:-1]))
    weights = rng.choice([0.3, 1.0, 1.0, 2.7], n) if rng.random() < 0.4 else None
    return X, y, weights


CASES = {
    "cart": ({"algorithm": "cart"}, False),
    "cart_entropy_balanced": ({"algorithm": "cart", "criterion": "entropy",
                               "class_weight": "balanced", "min_samples_leaf": 3}, False),
    "cart_best_first": ({"algorithm": "cart", "max_leaf_nodes": 6, "ccp_alpha": 0.01}, False),
    "cart_random": ({"algorithm": "cart", "splitter": "random", "random_state": 3,
                     "max_features": 1}, False),
    "cart_hist": ({"algorithm": "cart", "splitter": "hist", "max_bins": 8}, False),
    "cart_hist_255": ({"algorithm": "cart", "splitter": "hist", "max_depth": 4}, False),
    "c45": ({"algorithm": "c45"}, False),
    "c45_unpruned_binary": ({"algorithm": "c45", "pruning": False,
                             "binary_categorical_splits": True}, False),
    "c45_options": ({"algorithm": "c45", "confidence": 0.1, "subtree_raising": False,
                     "min_samples_leaf": 4, "laplace": True}, False),
    "c45_reduced_error": ({"algorithm": "c45", "reduced_error_pruning": True}, False),
    "c45_cv": ({"algorithm": "c45", "prune": "cv", "random_state": 0}, False),
    "id3": ({"algorithm": "id3"}, True),
    "id3_gain_ratio": ({"algorithm": "id3", "criterion": "gain_ratio"}, True),
    "rpart": ({"algorithm": "rpart", "random_state": 0}, False),
    "rpart_1se_information": ({"algorithm": "rpart", "criterion": "entropy", "prune": "1se",
                               "random_state": 1, "max_depth": 4}, False),
    "rpart_surrogates": ({"algorithm": "rpart", "use_surrogates": 1, "surrogate_style": 1,
                          "xval": 0, "min_samples_leaf": 2}, False),
    "optimal_subset": ({"algorithm": "optimal", "max_depth": 2, "numeric": "bins",
                        "max_bins": 32}, False),
    "optimal_depth3": ({"algorithm": "optimal", "max_depth": 3, "numeric": "bins",
                        "max_bins": 8, "categorical": "one_vs_rest"}, False),
    "interval": ({"algorithm": "interval"}, False),
    "interval_entropy": ({"algorithm": "interval", "criterion": "entropy",
                          "max_depth": 3}, False),
}
SEEDS = range(12)
OPTIMAL_ROWS = 60


def _fit(params, data, mode, monkeypatch, path: Path):
    X, y, weights = data
    monkeypatch.setenv("QUERCUS_KERNELS", mode)
    model = quercus.DecisionTreeClassifier(**params).fit(X, y, sample_weight=weights)
    model.save(path)
    chosen = getattr(model, "best_params_", None)  # prune="cv": the search's choice
    return path.read_bytes(), model.predict_proba(X), model.apply(X), chosen


@pytest.mark.parametrize("case", list(CASES))
def test_pure_and_compiled_kernels_write_the_same_model_files(case, monkeypatch, tmp_path):
    params, nominal_only = CASES[case]
    differing = []
    for seed in SEEDS:
        data = _data(seed, nominal_only=nominal_only)
        if params["algorithm"] == "interval" or nominal_only:
            data = (data[0], data[1], None)  # no sample weights for these learners
        if params["algorithm"] == "optimal":  # 60 rows, the last 3 columns, 3 classes
            X, y, weights = (None if part is None else part[:OPTIMAL_ROWS] for part in data)
            data = (X.iloc[:, -3:], y % 3, weights)
        pure = _fit(params, data, "pure", monkeypatch, tmp_path / "pure.json")
        compiled = _fit(params, data, "compiled", monkeypatch, tmp_path / "compiled.json")
        if (pure[0] != compiled[0] or not np.array_equal(pure[1], compiled[1])
                or not np.array_equal(pure[2], compiled[2]) or pure[3] != compiled[3]):
            differing.append(seed)
    assert differing == []


def _fake_cache(monkeypatch, warm: dict) -> None:
    """The families ``warm`` says are cached (True) or not, whatever numba's cache holds:
    no looking at it again (``_kernel_path.cached`` polls uncached families)."""
    monkeypatch.setattr(_kernel_path, "_warm", warm)
    monkeypatch.setattr(_kernel_path, "POLL_SECONDS", float("inf"))


def test_the_mode_follows_the_size_and_the_environment(monkeypatch):
    monkeypatch.delenv("QUERCUS_KERNELS", raising=False)
    monkeypatch.setattr(_kernel_path, "COLD_BUDGETS", {"c45": 20.0, "cart": 10.0})
    monkeypatch.setattr(_kernel_path, "_spent", {})
    _fake_cache(monkeypatch, {"c45": True})
    assert _kernel_path.pure_wanted(344, 7, "c45")
    assert not _kernel_path.pure_wanted(_kernel_path.PURE_MAX_WORK + 1, 1, "c45")
    monkeypatch.setattr(_kernel_path, "_spent", {"c45": _kernel_path.PURE_BUDGET})
    assert not _kernel_path.pure_wanted(344, 7, "c45")  # spent: compiled from now on
    assert not _kernel_path.pure_wanted(344, 7, None)  # cached kernels share one budget
    monkeypatch.setattr(_kernel_path, "_warm", {"c45": False, "cart": True})  # c45 uncached:
    assert _kernel_path.pure_wanted(344, 7, "c45")  # pure until compiling would have paid
    assert not _kernel_path.pure_wanted(344, 7, "cart")
    monkeypatch.setattr(_kernel_path, "_spent", {"c45": _kernel_path.COLD_BUDGETS["c45"]})
    assert not _kernel_path.pure_wanted(344, 7, "c45")
    monkeypatch.setenv("QUERCUS_KERNELS", "pure")
    assert _kernel_path.pure_wanted(10**7, 100)
    monkeypatch.setenv("QUERCUS_KERNELS", "compiled")
    assert not _kernel_path.pure_wanted(1, 1)
    monkeypatch.setenv("QUERCUS_KERNELS", "fast")
    with pytest.raises(ValueError, match="QUERCUS_KERNELS must be one of auto, pure, compiled"):
        _kernel_path.pure_wanted(1, 1)


def test_pure_twins_give_the_kernels_results():
    """A ``pure_twin`` (numpy code standing in for a kernel in the pure copy) returns what
    the compiled kernel returns: the radix sort's order on ties, -0.0 and 0.0, NaN, +-inf
    and subnormals."""
    from quercus._kernels import radix_sort

    pure = _kernel_path.pure_module("radix_sort")
    assert pure.stable_argsort is pure._numpy_stable_argsort  # the twin is what runs
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(0, 300))
        values = np.round(rng.normal(size=n) * 3, int(rng.integers(0, 3)))
        for special, share in ((np.nan, 0.1), (-0.0, 0.1), (0.0, 0.05), (np.inf, 0.03),
                               (-np.inf, 0.03), (5e-324, 0.03), (-5e-324, 0.03)):
            values[rng.random(n) < share] = special
        expected = radix_sort.stable_argsort(values)
        found = pure.stable_argsort(values)
        assert found.dtype == expected.dtype and np.array_equal(found, expected)
        assert np.array_equal(pure.sort_keys(values), radix_sort.sort_keys(values))


def test_compiled_where_cached_runs_cached_families_compiled(monkeypatch):
    monkeypatch.delenv("QUERCUS_KERNELS", raising=False)
    monkeypatch.setattr(_kernel_path, "_spent", {})
    _fake_cache(monkeypatch, {"c45": True, "cart": False})
    with _kernel_path.compiled_where_cached():
        assert not _kernel_path.pure_wanted(150, 4, "c45")  # cached: compiled
        assert _kernel_path.pure_wanted(150, 4, "cart")  # not cached: its cold budget
        with _kernel_path.compiled_where_cached(False):  # an inner False keeps it on
            assert not _kernel_path.pure_wanted(150, 4, "c45")
    with _kernel_path.compiled_where_cached(False):
        assert _kernel_path.pure_wanted(150, 4, "c45")
    assert _kernel_path.pure_wanted(150, 4, "c45")


def _spy_on_decisions(monkeypatch, families: list | None = None) -> list[bool]:
    """The list ``pure_wanted``'s answers are appended to from now on (and ``families``,
    if given, the families asked about)."""
    decisions = []
    wanted = _kernel_path.pure_wanted

    def spy(rows, features, family=None):
        decisions.append(wanted(rows, features, family))
        if families is not None:
            families.append(family)
        return decisions[-1]

    monkeypatch.setattr(_kernel_path, "pure_wanted", spy)
    return decisions


def test_auto_runs_its_small_fits_compiled_when_the_optimal_kernels_are_cached(monkeypatch):
    """``auto``'s optimal candidates run compiled once their kernels are cached, so its
    other candidates use their cached kernels as well (the same models as pure ones: the
    cases above)."""
    from quercus import selection

    monkeypatch.delenv("QUERCUS_KERNELS", raising=False)
    _fake_cache(monkeypatch, dict.fromkeys(_kernel_path.FAMILY_MODULES, True))
    monkeypatch.setattr(_kernel_path, "_spent", {})
    decisions = _spy_on_decisions(monkeypatch)
    data = quercus.datasets.load("iris")
    quercus.DecisionTreeClassifier(algorithm="auto", random_state=0).fit(data.X, data.y)
    assert decisions and not any(decisions)
    quercus.DecisionTreeClassifier(algorithm="c45").fit(data.X, data.y)  # alone: pure
    assert decisions[-1]
    assert selection.numba_family(selection.CANDIDATES) == "optimal"
    assert selection.numba_family([c for c in selection.CANDIDATES
                                   if c.params["algorithm"] != "optimal"]) is None


def test_auto_runs_pure_while_the_optimal_kernels_are_uncached(monkeypatch):
    """On a cold cache every small fit of ``auto``, the optimal candidates' too, runs the
    pure copy (labor: 9 s for the first ``quercus train`` instead of 32 s compiling) and
    chooses what the compiled kernels choose."""
    monkeypatch.delenv("QUERCUS_KERNELS", raising=False)
    data = quercus.datasets.load("iris")
    X, y = data.X.iloc[::3], data.y[::3]
    expected = quercus.DecisionTreeClassifier(algorithm="auto", random_state=0).fit(X, y)
    _fake_cache(monkeypatch, dict.fromkeys(_kernel_path.FAMILY_MODULES, False))
    monkeypatch.setattr(_kernel_path, "COLD_BUDGETS",
                        dict.fromkeys(_kernel_path.FAMILY_MODULES, 600.0))
    monkeypatch.setattr(_kernel_path, "_spent", {})
    families = []
    decisions = _spy_on_decisions(monkeypatch, families)
    model = quercus.DecisionTreeClassifier(algorithm="auto", random_state=0).fit(X, y)
    assert all(decisions) and {"optimal", "c45", "cart", "rpart"} <= set(families)
    assert model.chosen_ == expected.chosen_
    columns = ["name", "accuracy", "leaves"]
    assert model.selection_[columns].equals(expected.selection_[columns])
    assert np.array_equal(model.predict_proba(X), expected.predict_proba(X))


def test_a_long_pure_optimal_search_starts_again_compiled(monkeypatch):
    """Past its cold budget an optimal search running pure stops and starts again compiled,
    with the compiled kernels' tree."""
    from quercus import learners

    monkeypatch.delenv("QUERCUS_KERNELS", raising=False)
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, (120, 5)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 120)) % 3
    params = {"algorithm": "optimal", "max_depth": 3}
    monkeypatch.setenv("QUERCUS_KERNELS", "compiled")
    expected = quercus.DecisionTreeClassifier(**params).fit(X, y)
    monkeypatch.delenv("QUERCUS_KERNELS")
    _fake_cache(monkeypatch, {"optimal": False})
    monkeypatch.setattr(_kernel_path, "POLL_SECONDS", 0.0)
    monkeypatch.setattr(_kernel_path, "family_cached", lambda family, cached=None: False)
    monkeypatch.setattr(_kernel_path, "COLD_BUDGETS", {"optimal": 0.05})
    monkeypatch.setattr(_kernel_path, "_spent", {})
    switched = []
    block = learners.compiled_block

    def spy(family=None):
        switched.append(family)
        return block(family)

    monkeypatch.setattr(learners, "compiled_block", spy)
    model = quercus.DecisionTreeClassifier(**params).fit(X, y)
    assert switched == ["optimal"]
    assert _kernel_path._spent["optimal"] >= 0.05
    assert model.objective_ == expected.objective_ and model.optimal_
    for name in ("feature", "threshold", "children_left", "value"):
        assert np.array_equal(getattr(model.tree_, name), getattr(expected.tree_, name))
    switched.clear()  # the budget is spent: the next search runs compiled from the start
    quercus.DecisionTreeClassifier(**params).fit(X, y)
    assert switched == []


def test_pure_sum_and_logarithms_are_numbas():
    """numpy sums pairwise and its scalar log2 can differ from the C library's in the last
    bit; the pure copy adds in order and takes the C library's, as numba does."""
    from numba import njit

    @njit
    def numba_sum_log2(values, out):
        for i in range(values.shape[0]):
            out[i] = np.log2(values[i])
        return values.sum()

    rng = np.random.default_rng(0)
    values = rng.random(20_000) * 50
    out = np.empty_like(values)
    total = numba_sum_log2(values, out)
    helpers = _kernel_path._HELPERS
    assert helpers["__pure_sum"](values) == total
    assert values.sum() != total  # the case that needs the helper
    assert all(helpers["__pure_log2"](v) == o for v, o in zip(values[:5000], out[:5000]))


# The pure budgets are seconds: on a loaded machine these fits could use them up and go
# compiled; the scripts test the choice by size, so they lift the budgets.
BUDGETS = r"""
from quercus import _kernel_path
_kernel_path.PURE_BUDGET = 600.0
_kernel_path.COLD_BUDGETS = dict.fromkeys(_kernel_path.COLD_BUDGETS, 600.0)
"""
SCRIPT = BUDGETS + r"""
import sys
import quercus
data = quercus.datasets.load("iris")
for algorithm in ("cart", "c45", "id3", "interval"):
    X = data.X if algorithm != "id3" else data.X.apply(
        lambda c: __import__("pandas").qcut(c, 3, labels=["lo", "mid", "hi"]))
    model = quercus.DecisionTreeClassifier(algorithm=algorithm).fit(X, data.y)
    model.predict(X)
quercus.DecisionTreeClassifier(splitter="hist").fit(data.X, data.y).predict(data.X)
quercus.DecisionTreeClassifier(algorithm="c45", prune="cv").fit(data.X, data.y)
print("numba" in sys.modules)
"""
SCRIPT_RPART = BUDGETS + r"""
import sys
import quercus
data = quercus.datasets.load("iris")
model = quercus.DecisionTreeClassifier(algorithm="rpart", prune="1se").fit(data.X, data.y)
model.predict(data.X)
print("numba" in sys.modules)
"""


@pytest.mark.parametrize("script", [SCRIPT, SCRIPT_RPART], ids=["main", "rpart"])
def test_small_fits_and_predictions_do_not_import_numba(script):
    env = {k: v for k, v in os.environ.items() if k != "QUERCUS_KERNELS"}
    result = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                            text=True, env={**env, "PYTHONPATH": SRC}, timeout=300)
    assert result.stdout.strip() == "False"
