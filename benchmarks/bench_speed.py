"""Quercus's speed against scikit-learn, LightGBM (one tree) and Weka's J48, side by side.

Usage: python benchmarks/bench_speed.py [--rows 1000000] [--repeats 3] [--quick]
       [--predict-only]

Prints, for synthetic ``make_classification`` data (features 20, 10 informative; the same
number of rows held out), binary and 3 classes, at max_depth 8, 12 and unlimited:
fit time (median of the repeats) of Quercus (splitter "hist" and "exact" at depth 8),
scikit-learn's DecisionTreeClassifier and LightGBM with one tree
(n_estimators=1, learning_rate=1, num_leaves=2**depth, max_depth=depth,
min_child_samples=1), the ratios, held-out accuracies, and predict throughput (both
``model.predict(X)`` on the same float32 array). ``--predict-only`` prints predict times
alone, Quercus and scikit-learn timed in turn. Then C4.5
against J48 (benchmarks/bench_c45_j48.py, when Java and Weka are installed) and the
wall time of ``quercus train`` on iris, a fresh process.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkTree

from quercus import DecisionTreeClassifier

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def lightgbm_tree(depth, n_classes):
    try:
        import lightgbm
    except ImportError:
        return None
    leaves = 2**depth if depth else 131072
    return lightgbm.LGBMClassifier(
        n_estimators=1, learning_rate=1.0, num_leaves=min(leaves, 131072),
        max_depth=depth or -1, min_child_samples=1, min_child_weight=0.0, subsample=1.0,
        colsample_bytree=1.0, verbose=-1, n_jobs=2)


def fit_table(rows, repeats, depths):
    print(f"fit on {rows:,} x 20, predict {rows:,} held-out rows; median of {repeats}")
    header = (f"{'cls':>3} {'depth':>5} | {'quercus':>8} {'sklearn':>8} {'lightgbm':>8} | "
              f"{'vs sk':>6} {'vs lgbm':>7} | {'acc q':>6} {'acc sk':>6} {'acc lgb':>7} | "
              f"{'predict vs sk':>13}")
    print(header)
    print("-" * len(header))
    for n_classes in (2, 3):
        X, y = make_classification(2 * rows, 20, n_informative=10, n_classes=n_classes,
                                   random_state=0)
        X = X.astype(np.float32)
        train, test = slice(0, rows), slice(rows, None)
        for depth in depths:
            ours = DecisionTreeClassifier(max_depth=depth, splitter="hist")
            q_fit, _ = timed(lambda: ours.fit(X[train], y[train]), repeats)
            sk = SkTree(max_depth=depth, random_state=0)
            s_fit, _ = timed(lambda: sk.fit(X[train], y[train]), repeats)
            lgb = lightgbm_tree(depth, n_classes)
            l_fit = timed(lambda: lgb.fit(X[train], y[train]), repeats)[0] if lgb else np.nan
            q_pred, p_q = timed(lambda: ours.predict(X[test]), repeats)
            s_pred, p_s = timed(lambda: sk.predict(X[test]), repeats)
            acc_l = (lgb.predict(X[test]) == y[test]).mean() if lgb else np.nan
            print(f"{n_classes:>3} {depth!s:>5} | {q_fit:>7.2f}s {s_fit:>7.2f}s "
                  f"{l_fit:>7.2f}s | {s_fit / q_fit:>6.1f} {l_fit / q_fit:>7.2f} | "
                  f"{(p_q == y[test]).mean():>6.4f} {(p_s == y[test]).mean():>6.4f} "
                  f"{acc_l:>7.4f} | {s_pred / q_pred:>13.1f}")
    print("ratios: the peer's time / Quercus's time (above 1: Quercus is faster)")


def cpu_and_wall(fn, *args):
    cpu, wall = time.process_time(), time.perf_counter()
    fn(*args)
    return time.process_time() - cpu, time.perf_counter() - wall


def predict_table(rows, repeats, depths):
    """Predict throughput alone: each model predicts the same float32 array (rows held
    out), the two timed in turn so that load from other jobs hits both alike. Wall time
    gives the throughput; CPU time (all threads) the work, which other jobs disturb less."""
    print(f"predict {rows:,} held-out rows x 20 (float32, C order); median of {repeats}")
    header = (f"{'cls':>3} {'depth':>5} | {'quercus':>8} {'sklearn':>8} {'vs sk':>6} | "
              f"{'q cpu':>8} {'sk cpu':>8} {'vs sk':>6}")
    print(header)
    print("-" * len(header))
    for n_classes in (2, 3):
        X, y = make_classification(2 * rows, 20, n_informative=10, n_classes=n_classes,
                                   random_state=0)
        X = X.astype(np.float32)
        train, test = X[:rows], X[rows:]
        for depth in depths:
            ours = DecisionTreeClassifier(max_depth=depth, splitter="hist").fit(train, y[:rows])
            sk = SkTree(max_depth=depth, random_state=0).fit(train, y[:rows])
            ours.predict(test[:100])
            q_times, s_times = [], []
            for _ in range(repeats):
                q_times.append(cpu_and_wall(ours.predict, test))
                s_times.append(cpu_and_wall(sk.predict, test))
            (q_cpu, q), (s_cpu, s) = np.median(q_times, axis=0), np.median(s_times, axis=0)
            print(f"{n_classes:>3} {depth!s:>5} | {q * 1e3:>6.1f}ms {s * 1e3:>6.1f}ms "
                  f"{s / q:>6.1f} | {q_cpu * 1e3:>6.1f}ms {s_cpu * 1e3:>6.1f}ms "
                  f"{s_cpu / q_cpu:>6.1f}")
    print("vs sk: scikit-learn's time / Quercus's time (above 1: Quercus is faster)")


def first_call():
    iris = ROOT / "src" / "quercus" / "data" / "bundled" / "iris.csv"
    command = [str(Path(sys.executable).parent / "quercus"), "train", str(iris), "--target",
               "species", "--out", "/tmp/quercus_bench_iris.json"]
    # untimed: Python writes the bytecode of the modules the command imports, as pip does
    # when it installs the package
    subprocess.run(command, check=True, capture_output=True)
    wall, _ = timed(lambda: subprocess.run(command, check=True, capture_output=True), 3)
    print(f"`quercus train iris.csv`, a fresh process: {wall:.2f} s wall (median of 3)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=None,
                        help="default 3 (9 with --predict-only)")
    parser.add_argument("--quick", action="store_true", help="depths 8 and 12 only")
    parser.add_argument("--predict-only", action="store_true",
                        help="only the predict table (repeats default to 9)")
    args = parser.parse_args()
    DecisionTreeClassifier(splitter="hist", max_depth=2).fit([[0.0], [1.0]], [0, 1])
    if args.predict_only:
        predict_table(args.rows, args.repeats or 9, (8, 12) if args.quick else (8, 12, None))
        return
    args.repeats = args.repeats or 3
    fit_table(args.rows, args.repeats, (8, 12) if args.quick else (8, 12, None))
    print()
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_c45_j48.py"),
                    "--repeats", str(min(args.repeats, 3))], check=False)
    print()
    first_call()


if __name__ == "__main__":
    main()
