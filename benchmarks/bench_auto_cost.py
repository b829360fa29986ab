"""Cost of ``algorithm="auto"`` against one fit of each of its candidates, side by side.

Data (default 100,000 rows): scikit-learn's ``make_classification`` with 20 numeric features
(seed 0) plus 3 categorical columns of 4-8 levels that carry part of the signal. Every fit
follows a first untimed fit of every learner on a small sample (the modules each imports
on first use not timed) and is timed once, in one run, so the ratios compare like with like
on a loaded machine.

Usage: python benchmarks/bench_auto_cost.py [--rows 100000] [--credit-g-only]

First, ``auto`` on Weka's credit-g (tests/data/arff/credit-g.arff, 1,000 rows, 20 mixed
features) after a warm-up fit, against the rpart issue's target of under 5 s (median of 3).

Prints each learner's wall time, its leaves and its time over the rpart fit (rpart with its
default 10-fold cp table) and over the unpruned CART fit (scikit-learn's default tree, the
"single fit" the cost goal is stated against, docs/auto.md), then auto's choice and its
selection table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from quercus import DecisionTreeClassifier
from quercus.selection import format_table

LEARNERS = (  # the reference first, auto early (the rest are its candidates, for scale)
    ("rpart (xval=10)", {"algorithm": "rpart"}),
    ("CART, unpruned", {"algorithm": "cart"}),
    ("auto", {"algorithm": "auto"}),
    ("rpart, 1-SE", {"algorithm": "rpart", "prune": "1se"}),
    ("CART, 1-SE", {"algorithm": "cart", "prune": "1se"}),
    ("C4.5 (J48)", {"algorithm": "c45"}),
    ("C4.5, CV-pruned", {"algorithm": "c45", "prune": "cv"}),
    ("optimal, depth 2", {"algorithm": "optimal", "max_depth": 2, "numeric": "bins",
                          "max_bins": 32, "categorical": "subset"}),
)


def data(n_rows: int, seed: int = 0):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_rows, n_features=20, n_informative=8,
                               n_redundant=4, flip_y=0.05, random_state=seed)
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(20)])
    for j, levels in enumerate((4, 6, 8)):
        codes = rng.randint(0, levels, size=n_rows)
        # the label shifts one level's rows: a categorical column the trees can use
        codes = np.where((y == 1) & (rng.uniform(size=n_rows) < 0.2), 0, codes)
        frame[f"c{j}"] = pd.Categorical(np.array(list("abcdefgh"))[codes])
    return frame, y


def timed(params, X, y):
    start = time.perf_counter()
    model = DecisionTreeClassifier(random_state=0, **params).fit(X, y)
    return time.perf_counter() - start, model


CREDIT_G = Path(__file__).resolve().parents[1] / "tests" / "data" / "arff" / "credit-g.arff"
CREDIT_G_TARGET = 5.0  # seconds (the rpart issue's goal for auto on credit-g)


def credit_g() -> None:
    """auto on credit-g, warm (one untimed fit first), median of 3, against the target."""
    from quercus.data.arff_reader import read_arff

    data = read_arff(CREDIT_G)
    DecisionTreeClassifier(algorithm="auto").fit(data.X, data.y)
    seconds = sorted(timed({"algorithm": "auto"}, data.X, data.y)[0] for _ in range(3))[1]
    verdict = "met" if seconds < CREDIT_G_TARGET else "NOT met"
    print(f"auto on credit-g (1,000 rows): {seconds:.2f} s, median of 3 "
          f"(target: under {CREDIT_G_TARGET:g} s: {verdict})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--credit-g-only", action="store_true",
                        help="only time auto on credit-g")
    args = parser.parse_args()
    credit_g()
    if args.credit_g_only:
        return
    X, y = data(args.rows)
    small_X, small_y = X.iloc[:2_000], y[:2_000]
    for name, params in LEARNERS:  # untimed: every learner's first-use imports
        DecisionTreeClassifier(random_state=0, **params).fit(small_X, small_y)
        print(f"first fit done: {name}", file=sys.stderr, flush=True)
    print(f"{args.rows:,} rows x {X.shape[1]} features (20 numeric, 3 categorical)")
    print(f"{'learner':18} {'seconds':>8} {'leaves':>7} {'/ rpart':>8} {'/ CART':>7}",
          flush=True)
    times = {}
    for name, params in LEARNERS:
        seconds, model = timed(params, X, y)
        times[name] = seconds
        cart = times.get("CART, unpruned", np.nan)
        print(f"{name:18} {seconds:8.2f} {model.get_n_leaves():7d} "
              f"{seconds / times['rpart (xval=10)']:7.1f}x {seconds / cart:6.1f}x", flush=True)
        if name == "auto":
            auto = model
    print(f"auto chose: {auto.selection_summary_}")
    print("auto's selection (seconds = mean per fold fit on the subsample):")
    print(format_table(auto.selection_))


if __name__ == "__main__":
    main()
