"""Fit time of absolute_error and poisson regression trees against scikit-learn's, side by
side in one run, with the trees' leaves and training R² (equal trees give equal figures).

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/bench_regression_criteria.py

Fit times are CPU seconds (``time.process_time``, best of 3), so that a busy machine does not
blur the ratio; with one OpenMP thread they are also the single-core cost. Data: Friedman #1,
50,000 rows x 10 features, |y| (Poisson needs non-negative targets); depth 10.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn import datasets
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from quercus import DecisionTreeRegressor


def _best_fit(make, X, y, repeats=3):
    best, model = np.inf, None
    for _ in range(repeats):
        model = make()
        start = time.process_time()
        model.fit(X, y)
        best = min(best, time.process_time() - start)
    return best, model


def main() -> None:
    X, y = datasets.make_friedman1(50_000, 10, noise=1.0, random_state=0)
    y = np.abs(y)
    print(f"{'criterion':<15} {'learner':<8} {'fit s':>7} {'leaves':>7} {'R2':>7}")
    for criterion in ("absolute_error", "poisson"):
        # untimed: the criterion's first-use imports
        DecisionTreeRegressor(criterion=criterion, max_depth=2).fit(X[:500], y[:500])
        for name, make in (
                ("quercus", lambda c=criterion: DecisionTreeRegressor(criterion=c,
                                                                      max_depth=10)),
                ("sklearn", lambda c=criterion: SkRegressor(criterion=c, max_depth=10,
                                                            random_state=0))):
            seconds, model = _best_fit(make, X, y)
            print(f"{criterion:<15} {name:<8} {seconds:>7.2f} {model.get_n_leaves():>7} "
                  f"{model.score(X, y):>7.4f}")


if __name__ == "__main__":
    main()
