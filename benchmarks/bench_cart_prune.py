"""CART default vs prune="1se" vs prune="min": leaves and 10-fold accuracy, and the cost of
prune="1se" relative to one default fit.

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/bench_cart_prune.py

Fit times are CPU seconds (``time.process_time``, best of 3), so that a busy machine does not
blur the ratio; with one OpenMP thread they are also the single-core cost.

Data: the Weka ARFF files bundled in tests/data/arff (credit-g, breast-cancer, vote).
Outer folds: stratified 10-fold (Quercus's own stratified_folds, seed 0), the same for the
three settings; the inner folds of prune are the estimator's (xval=10, random_state=1).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from quercus import DecisionTreeClassifier
from quercus.data.arff_reader import read_arff
from quercus.pruning.cv_prune import stratified_folds

ARFF = Path(__file__).resolve().parent.parent / "tests" / "data" / "arff"
DATA = {"credit-g": "class", "breast-cancer": "Class", "vote": "Class"}
SETTINGS = {"default": {}, "1se": {"prune": "1se"}, "min": {"prune": "min"}}


def _load(name: str, target: str):
    X, y, _ = read_arff(ARFF / f"{name}.arff", target)
    keep = y.notna().to_numpy()
    return X[keep].reset_index(drop=True), y[keep].astype(str).to_numpy()


def _fit_seconds(params, X, y, repeats: int = 3) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        DecisionTreeClassifier(**params).fit(X, y)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    print(f"{'data':<14}{'setting':<9}{'leaves (full data)':>19}{'10-fold acc':>13}"
          f"{'mean leaves':>13}{'CPU s':>8}")
    for name, target in DATA.items():
        X, y = _load(name, target)
        codes = np.unique(y, return_inverse=True)[1]
        outer = stratified_folds(codes, 10, np.random.RandomState(0))
        DecisionTreeClassifier(prune="1se").fit(X, y)  # untimed: first-use imports
        base = _fit_seconds({}, X, y)
        for label, params in SETTINGS.items():
            correct, leaves = 0, []
            for fold in range(10):
                test = outer == fold
                model = DecisionTreeClassifier(**params).fit(X[~test], y[~test])
                correct += int((model.predict(X[test]) == y[test]).sum())
                leaves.append(model.get_n_leaves())
            full = DecisionTreeClassifier(**params).fit(X, y).get_n_leaves()
            seconds = base if not params else _fit_seconds(params, X, y)
            print(f"{name:<14}{label:<9}{full:>19}{correct / len(y):>13.4f}"
                  f"{np.mean(leaves):>13.1f}{seconds:>8.3f}")
        print(f"{'':<14}prune='1se' costs {_fit_seconds(SETTINGS['1se'], X, y) / base:.1f}x "
              f"one default fit ({base * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
