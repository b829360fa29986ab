"""Where the histogram fit spends its time: binning, histograms, partition, split search.

Usage: python benchmarks/profile_hist.py [--rows 1000000] [--features 20] [--depth 12]

Fits CART with ``splitter="hist"`` on ``make_classification`` data (binary, half the
features informative, as benchmarks/bench_speed.py) after a small warm-up fit (so numba's
compiling is not counted), with a timer around each kernel entry point the splitter calls:

- binning: ``BinMapper.fit`` (quantile edges) and ``BinMapper.transform`` (rows to bins);
- histograms: ``fill_histograms`` (the smaller child's, or a root's); the larger child's by
  subtraction is numpy in the splitter and counted under "rest";
- split search: ``scan_histograms`` (numeric) and ``best_subset_split`` (categorical);
- partition: ``partition_by_bin``;
- rest: the Python builder and splitter around them (node bookkeeping, subtraction,
  candidate objects), the whole fit minus the above.

The timers wrap module attributes from outside; the library is not changed.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict

from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier, binning
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
    binning.BinMapper.fit = timed("binning (edges)", binning.BinMapper.fit)
    binning.BinMapper.transform = timed("binning (transform)", binning.BinMapper.transform)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--depth", type=int, default=12)
    args = parser.parse_args()
    X, y = make_classification(n_samples=args.rows, n_features=args.features,
                               n_informative=args.features // 2, random_state=0)
    DecisionTreeClassifier(splitter="hist", max_depth=3).fit(X[:2000], y[:2000])  # compile
    install()
    load = os.getloadavg()
    model = DecisionTreeClassifier(splitter="hist", max_depth=args.depth)
    start = time.perf_counter()
    model.fit(X, y)
    total = time.perf_counter() - start
    print(f"hist fit, {args.rows:,} x {args.features}, depth {args.depth}: {total:.2f} s, "
          f"{model.tree_.n_nodes} nodes; load average {load[0]:.2f}")
    print(f"{'phase':<20} {'seconds':>8} {'share':>6} {'calls':>7}")
    for phase in ["binning (edges)", "binning (transform)", "histograms", "partition",
                  "split search"]:
        print(f"{phase:<20} {SECONDS[phase]:8.2f} {SECONDS[phase] / total:6.1%} "
              f"{CALLS[phase]:>7}")
    rest = total - sum(SECONDS.values())
    print(f"{'rest (Python)':<20} {rest:8.2f} {rest / total:6.1%}")


if __name__ == "__main__":
    main()
