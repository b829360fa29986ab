"""Cost of C4.5's ``prune="cv"`` against one default (J48) fit, on credit-g and on a
synthetic data set (default 100,000 rows: 10 numeric and 5 categorical features, 2% of the
cells missing, a noisy label).

Usage: python benchmarks/bench_c45_cv.py [--rows 100000] [--repeats 3]

Prints, per data set, the best-of-repeats wall time of each fit (after a first untimed fit,
so that the modules it imports on first use are not timed), the ratio, both trees' leaves
and the chosen setting.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import quercus
from quercus import DecisionTreeClassifier

CREDIT = Path(__file__).resolve().parent.parent / "tests" / "data" / "arff" / "credit-g.arff"


def synthetic(n_rows: int, seed: int = 0):
    rng = np.random.RandomState(seed)
    numbers = rng.normal(size=(n_rows, 10))
    codes = rng.randint(0, 5, size=(n_rows, 5))
    logit = (numbers[:, 0] + 0.5 * numbers[:, 1] * numbers[:, 2] + (codes[:, 0] == 2)
             - 0.5 * (codes[:, 1] > 2))
    y = np.where(rng.uniform(size=n_rows) < 1 / (1 + np.exp(-2 * logit)), "yes", "no")
    X = pd.DataFrame(numbers, columns=[f"x{i}" for i in range(10)])
    for j in range(5):
        X[f"c{j}"] = pd.Categorical(np.array(list("abcde"))[codes[:, j]])
    return X.mask(rng.uniform(size=X.shape) < 0.02), y


def best_time(make, X, y, repeats: int):
    times, model = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        model = make().fit(X, y)
        times.append(time.perf_counter() - start)
    return min(times), model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y, _ = quercus.read_arff(CREDIT)
    sets = [("credit-g", X, y), (f"synthetic {args.rows:,}", *synthetic(args.rows))]
    DecisionTreeClassifier(algorithm="c45", prune="cv").fit(X, y)  # untimed: first imports
    print(f"{'data':18} {'J48 fit':>9} {'cv fit':>9} {'ratio':>6} {'leaves':>13}  chosen")
    for name, X, y in sets:
        repeats = args.repeats if len(y) < 10_000 else 1
        plain_time, plain = best_time(lambda: DecisionTreeClassifier(algorithm="c45"), X, y,
                                      repeats + (len(y) >= 10_000))
        cv_time, cv = best_time(lambda: DecisionTreeClassifier(algorithm="c45", prune="cv"),
                                X, y, repeats)
        leaves = f"{plain.get_n_leaves()} -> {cv.get_n_leaves()}"
        print(f"{name:18} {plain_time:8.3f}s {cv_time:8.3f}s {cv_time / plain_time:5.1f}x "
              f"{leaves:>13}  {cv.best_params_}")


if __name__ == "__main__":
    main()
