"""Exact CART of Quercus against YDF's exact CART, side by side (issue 39's YDF target).

Usage: python benchmarks/bench_ydf_cart.py [--rows 7000,70000,700000] [--repeats 3]
                                            [--max-depth 8]

The table has 12 numeric columns (``make_classification``, 8 informative, missing values
in two of them) and one categorical column of 12 levels that moves the class. Both learners
grow one tree of depth at most ``--max-depth`` without pruning: ``ydf.CartLearner(
validation_ratio=0.0, min_examples=1)`` (YDF's CART prunes on a validation share and stops at
5 rows by default) and
``DecisionTreeClassifier(algorithm="cart", splitter="exact")``; the Quercus hist splitter
is timed too. Each fit is timed ``--repeats`` times after one untimed fit per learner (the
first fit's imports and first touches of memory); the table prints medians and the ratio
YDF time / Quercus time (above 1: Quercus is faster), with leaves and held-out accuracy.
Needs ``pip install ydf``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier


def table(rows: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    X, y = make_classification(rows, 12, n_informative=8, n_redundant=2, n_classes=2,
                               flip_y=0.05, random_state=seed)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(12)])
    frame.loc[rng.random(rows) < 0.05, "x3"] = np.nan
    frame.loc[rng.random(rows) < 0.02, "x7"] = np.nan
    levels = np.array([f"c{i:02d}" for i in range(12)])
    code = rng.integers(0, 12, rows)
    flip = (code % 3 == 0) & (rng.random(rows) < 0.3)  # the category moves the class
    y = np.where(flip, 1 - y, y)
    frame["cat"] = pd.Categorical(levels[code], categories=levels)
    return frame, y.astype(int)


def median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="7000,70000,700000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-depth", type=int, default=8)
    args = parser.parse_args()
    try:
        import ydf
    except ImportError:
        raise SystemExit("bench_ydf_cart.py needs YDF: pip install ydf") from None
    ydf.verbose(0)
    depth = args.max_depth
    print(f"12 numeric + 1 categorical columns, depth <= {depth}, median of {args.repeats}; "
          f"ratio = YDF / Quercus (above 1: Quercus faster)")
    header = (f"{'rows':>9} | {'YDF':>8} {'exact':>8} {'ratio':>6} | {'hist':>8} {'ratio':>6} "
              f"| {'leaves Y/Q':>11} | {'acc Y/Q/hist':>20}")
    print(header)
    print("-" * len(header))
    for rows in (int(r) for r in args.rows.split(",")):
        frame, y = table(2 * rows)
        train, test = frame.iloc[::2].reset_index(drop=True), frame.iloc[1::2]
        y_train, y_test = y[::2], y[1::2]
        ydf_frame = train.assign(label=y_train)
        learner = ydf.CartLearner(label="label", max_depth=depth, validation_ratio=0.0,
                                   min_examples=1)  # as Quercus: leaves of one row
        exact = DecisionTreeClassifier(algorithm="cart", splitter="exact", max_depth=depth)
        hist = DecisionTreeClassifier(algorithm="cart", splitter="hist", max_depth=depth)
        models = {}
        fits = {"ydf": lambda: models.__setitem__("ydf", learner.train(ydf_frame)),
                "exact": lambda: models.__setitem__("exact", exact.fit(train, y_train)),
                "hist": lambda: models.__setitem__("hist", hist.fit(train, y_train))}
        for fit in fits.values():  # untimed
            fit()
        seconds = {name: median(fit, args.repeats) for name, fit in fits.items()}
        ydf_model = models["ydf"]
        probs = np.asarray(ydf_model.predict(test))
        ydf_acc = float(((probs > 0.5).astype(int) == y_test).mean())
        ydf_leaves = sum(1 for _ in _ydf_leaves(ydf_model))
        acc_e = float((exact.predict(test) == y_test).mean())
        acc_h = float((hist.predict(test) == y_test).mean())
        print(f"{rows:>9,} | {seconds['ydf']:>7.3f}s {seconds['exact']:>7.3f}s "
              f"{seconds['ydf'] / seconds['exact']:>6.2f} | {seconds['hist']:>7.3f}s "
              f"{seconds['ydf'] / seconds['hist']:>6.2f} | "
              f"{ydf_leaves:>5}/{exact.get_n_leaves():<5} | "
              f"{ydf_acc:.4f}/{acc_e:.4f}/{acc_h:.4f}")


def _ydf_leaves(model):
    """YDF's leaves of its one tree."""
    tree = model.get_tree(0)
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if node.is_leaf:
            yield node
        else:
            stack.extend((node.neg_child, node.pos_child))


if __name__ == "__main__":
    main()
