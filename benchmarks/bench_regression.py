"""Quercus's hist regression tree against scikit-learn and LightGBM (one tree), side by side.

Usage: python benchmarks/bench_regression.py [--rows 1000000] [--repeats 1]
       [--no-unlimited]

Data: ``make_friedman1`` with 20 features (5 informative) and noise 1.0, float32; the same
number of rows held out. At max_depth 8, 12 and unlimited (``--no-unlimited`` skips it):
fit time (median of the repeats) of Quercus (``splitter="hist"``, binning included),
scikit-learn's ``DecisionTreeRegressor`` and LightGBM with one tree (n_estimators=1,
learning_rate=1, num_leaves=2**depth, max_depth=depth, min_child_samples=1, no bagging;
skipped with a message when lightgbm is not installed), the ratios, held-out R² and
predict time on the held-out rows (both ``model.predict(X)`` on the same float32 array).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.metrics import r2_score
from sklearn.tree import DecisionTreeRegressor as SkTree

from quercus import DecisionTreeRegressor

UNLIMITED_LEAVES = 131072  # LightGBM's num_leaves limit


def timed(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def lightgbm_tree(depth):
    """LightGBM's regressor with one unshrunk tree, or None when it is not installed."""
    try:
        import lightgbm
    except ImportError:
        return None
    leaves = 2**depth if depth else UNLIMITED_LEAVES
    return lightgbm.LGBMRegressor(
        n_estimators=1, learning_rate=1.0, num_leaves=min(leaves, UNLIMITED_LEAVES),
        max_depth=depth or -1, min_child_samples=1, min_child_weight=0.0, subsample=1.0,
        subsample_freq=0, colsample_bytree=1.0, verbose=-1, n_jobs=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-unlimited", action="store_true",
                        help="depths 8 and 12 only (scikit-learn's unlimited tree is slow)")
    args = parser.parse_args()
    depths = (8, 12) if args.no_unlimited else (8, 12, None)
    X, y = make_friedman1(2 * args.rows, 20, noise=1.0, random_state=0)
    X = X.astype(np.float32)
    train, test = slice(0, args.rows), slice(args.rows, None)
    # untimed: the modules a hist fit and predict import on first use, OpenMP's threads
    # started, first touches of memory (big nodes' and whole subtrees' paths)
    warm = slice(0, min(args.rows, 300_000))
    DecisionTreeRegressor(splitter="hist", max_depth=6).fit(X[warm], y[warm]).predict(X[warm])
    if lightgbm_tree(8) is None:
        print("lightgbm is not installed: its columns are left empty (pip install lightgbm)")
    print(f"fit on {args.rows:,} x 20 (make_friedman1, noise 1), predict {args.rows:,} "
          f"held-out rows; median of {args.repeats}")
    header = (f"{'depth':>5} | {'quercus':>8} {'sklearn':>8} {'lightgbm':>8} | {'vs sk':>6} "
              f"{'vs lgbm':>7} | {'R2 q':>7} {'R2 sk':>7} {'R2 lgb':>7} | {'pred q':>7} "
              f"{'pred sk':>7} {'vs sk':>5}")
    print(header)
    print("-" * len(header))
    for depth in depths:
        ours = DecisionTreeRegressor(max_depth=depth, splitter="hist")
        q_fit, _ = timed(lambda ours=ours: ours.fit(X[train], y[train]), args.repeats)
        sk = SkTree(max_depth=depth, random_state=0)
        s_fit, _ = timed(lambda sk=sk: sk.fit(X[train], y[train]), args.repeats)
        lgb = lightgbm_tree(depth)
        l_fit = timed(lambda lgb=lgb: lgb.fit(X[train], y[train]), args.repeats)[0] if lgb else np.nan
        q_pred, p_q = timed(lambda ours=ours: ours.predict(X[test]), max(args.repeats, 3))
        s_pred, p_s = timed(lambda sk=sk: sk.predict(X[test]), max(args.repeats, 3))
        r2_l = r2_score(y[test], lgb.predict(X[test])) if lgb else np.nan
        print(f"{depth!s:>5} | {q_fit:>7.2f}s {s_fit:>7.2f}s {l_fit:>7.2f}s | "
              f"{s_fit / q_fit:>6.1f} {l_fit / q_fit:>7.2f} | {r2_score(y[test], p_q):>7.4f} "
              f"{r2_score(y[test], p_s):>7.4f} {r2_l:>7.4f} | {q_pred * 1e3:>5.0f}ms "
              f"{s_pred * 1e3:>5.0f}ms {s_pred / q_pred:>5.1f}")
    print("vs: the peer's time / Quercus's time (above 1: Quercus is faster); leaves of the "
          "unlimited trees differ (Quercus and scikit-learn grow to pure leaves)")


if __name__ == "__main__":
    main()
