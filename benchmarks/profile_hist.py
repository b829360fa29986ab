"""Where the histogram fit spends its time: binning, histograms, partition, split search.

Usage: python benchmarks/profile_hist.py [--rows 1000000] [--features 20] [--depth 12]
       [--regression]

Fits CART with ``splitter="hist"`` on ``make_classification`` data (binary, half the
features informative, as benchmarks/bench_speed.py) after a small untimed fit (so that
first-use imports are not counted), with a timer around each kernel entry point the splitter
calls.
``--regression`` fits ``DecisionTreeRegressor(splitter="hist")`` on benchmarks/
bench_regression.py's data (``make_friedman1``, noise 1, float32) instead, timing its
kernels: the rows' fixed-point limbs (``value_range``, ``to_limbs``), the histogram fill,
the partition (which also sums the left child's limbs), the rounding of the exact sums
and the scan. For classification:

- binning: ``BinMapper.fit`` (quantile edges) and ``BinMapper.transform`` (rows to bins);
- histograms: ``fill_histograms`` (the smaller child's, or a root's); the larger child's by
  subtraction is numpy in the splitter and counted under "rest";
- split search: ``scan_histograms`` (numeric) and ``best_subset_split`` (categorical);
- partition: ``partition_by_bin``;
- segments grown whole: ``grow_subtree`` (``grow_sum_subtree`` for regression), which
  grows a segment under ``PARALLEL_MIN_WORK`` rows x features in one compiled call, its
  fills, scans and partitions inside (the phases above are then the big nodes' only);
- rest: the Python builder and splitter around them (node bookkeeping, subtraction,
  candidate objects), the whole fit minus the above.

``--node-by-node`` turns the whole segments off: every node through the Python builder, as
before they existed (the same tree).

The timers wrap module attributes from outside; the library is not changed.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict

import numpy as np
from sklearn.datasets import make_classification, make_friedman1

from quercus import DecisionTreeClassifier, DecisionTreeRegressor, binning
from quercus.splitting import exact_sums, hist_regression
from quercus.splitting import hist as hist_module

SECONDS: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


def timed(phase: str, function):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            SECONDS[phase] += time.perf_counter() - start
            CALLS[phase] += 1
    return wrapper


def install() -> None:
    hist_module.fill_histograms = timed("histograms", hist_module.fill_histograms)
    hist_module.scan_histograms = timed("split search", hist_module.scan_histograms)
    hist_module.best_subset_split = timed("split search", hist_module.best_subset_split)
    hist_module.partition_by_bin = timed("partition", hist_module.partition_by_bin)
    hist_module.grow_subtree = timed("segments grown whole", hist_module.grow_subtree)
    install_binning()


def install_binning() -> None:
    binning.BinMapper.fit = timed("binning (edges)", binning.BinMapper.fit)
    binning.BinMapper.transform = timed("binning (transform)", binning.BinMapper.transform)


REGRESSION_PHASES = ["binning (edges)", "binning (transform)", "row limbs", "histograms",
                     "partition", "rounding", "split search", "segments grown whole"]


def install_regression() -> None:
    module = hist_regression
    module.fill_ordered_histograms = timed("histograms", module.fill_ordered_histograms)
    module.partition_ordered = timed("partition", module.partition_ordered)
    module.scan_sum_histograms = timed("split search", module.scan_sum_histograms)
    module.best_mean_ordered_split = timed("split search", module.best_mean_ordered_split)
    exact_sums.round_sums = timed("rounding", exact_sums.round_sums)
    exact_sums.to_limbs = timed("row limbs", exact_sums.to_limbs)
    exact_sums.value_range = timed("row limbs", exact_sums.value_range)
    module.grow_sum_subtree = timed("segments grown whole", module.grow_sum_subtree)
    install_binning()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--regression", action="store_true",
                        help="the hist regression tree on make_friedman1 data")
    parser.add_argument("--node-by-node", action="store_true",
                        help="every node through the Python builder (no whole segments)")
    args = parser.parse_args()
    if args.node_by_node:
        hist_module.HistSplitter.grows_whole = lambda self, start, end: False
    if args.regression:
        X, y = make_friedman1(args.rows, args.features, noise=1.0, random_state=0)
        X = X.astype(np.float32)
        learner, phases = DecisionTreeRegressor, REGRESSION_PHASES
        learner(splitter="hist", max_depth=3).fit(X[:20000], y[:20000])  # untimed
        install_regression()
    else:
        X, y = make_classification(n_samples=args.rows, n_features=args.features,
                                   n_informative=args.features // 2, random_state=0)
        learner = DecisionTreeClassifier
        phases = ["binning (edges)", "binning (transform)", "histograms", "partition",
                  "split search", "segments grown whole"]
        learner(splitter="hist", max_depth=3).fit(X[:2000], y[:2000])  # untimed
        install()
    load = os.getloadavg()
    model = learner(splitter="hist", max_depth=args.depth)
    start = time.perf_counter()
    model.fit(X, y)
    total = time.perf_counter() - start
    print(f"hist fit, {args.rows:,} x {args.features}, depth {args.depth}: {total:.2f} s, "
          f"{model.tree_.n_nodes} nodes; load average {load[0]:.2f}")
    print(f"{'phase':<20} {'seconds':>8} {'share':>6} {'calls':>7}")
    for phase in phases:
        print(f"{phase:<20} {SECONDS[phase]:8.2f} {SECONDS[phase] / total:6.1%} "
              f"{CALLS[phase]:>7}")
    rest = total - sum(SECONDS.values())
    print(f"{'rest (Python)':<20} {rest:8.2f} {rest / total:6.1%}")


if __name__ == "__main__":
    main()
