"""Fit and predict times of Quercus's exact CART against scikit-learn, side by side.

Usage: python benchmarks/bench_cart.py [--rows 100000] [--features 20] [--repeats 3]

Prints one row per (classes, max_depth) with the median of the repeats and the ratio
scikit-learn time / Quercus time (above 1 means Quercus is faster), plus both trees' leaf
counts and held-out accuracies.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkTree

from quercus import DecisionTreeClassifier


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    # untimed: the first fit's imports and first touches of memory
    DecisionTreeClassifier(max_depth=2).fit([[0.0], [1.0]], [0, 1])
    print(f"{args.rows:,} training rows x {args.features} features, median of {args.repeats}")
    header = (f"{'classes':>7} {'depth':>5} | {'fit quercus':>11} {'fit sklearn':>11} "
              f"{'ratio':>6} | {'predict ratio':>13} | {'leaves q/s':>13} | {'acc q/s':>13}")
    print(header)
    print("-" * len(header))
    for n_classes in (2, 3):
        X, y = make_classification(2 * args.rows, args.features, n_informative=10,
                                   n_classes=n_classes, random_state=0)
        X_train, y_train, X_test, y_test = X[::2], y[::2], X[1::2], y[1::2]
        for depth in (8, 12, None):
            ours = DecisionTreeClassifier(max_depth=depth)
            sk = SkTree(max_depth=depth, random_state=0)
            fit_q, _ = median_time(lambda: ours.fit(X_train, y_train), args.repeats)
            fit_s, _ = median_time(lambda: sk.fit(X_train, y_train), args.repeats)
            pred_q, p_q = median_time(lambda: ours.predict(X_test), args.repeats)
            pred_s, p_s = median_time(lambda: sk.predict(X_test), args.repeats)
            print(f"{n_classes:>7} {depth!s:>5} | {fit_q:>10.2f}s {fit_s:>10.2f}s "
                  f"{fit_s / fit_q:>6.2f} | {pred_s / pred_q:>13.2f} | "
                  f"{ours.get_n_leaves():>6}/{sk.get_n_leaves():<6} | "
                  f"{(p_q == y_test).mean():.4f}/{(p_s == y_test).mean():.4f}")


if __name__ == "__main__":
    main()
