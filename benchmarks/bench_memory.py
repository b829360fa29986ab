"""Peak memory of a histogram fit on a large float32 array, as a multiple of the input.

Usage: python benchmarks/bench_memory.py [--rows 10000000] [--features 50] [--max-depth 10]

Builds the array column by column (standard normal, float32), a label from a few columns,
then fits ``DecisionTreeClassifier(splitter="hist")`` and prints the process's peak
resident memory (ru_maxrss, which includes the input itself and the Python runtime) and
its ratio to the input's size.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from quercus import DecisionTreeClassifier


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--max-depth", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = np.empty((args.rows, args.features), dtype=np.float32)
    for j in range(args.features):
        X[:, j] = rng.standard_normal(args.rows, dtype=np.float32)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * X[:, 3]) > 0.2).astype(np.int8)
    size = X.nbytes / 1024**3
    print(f"input {args.rows:,} x {args.features} float32: {size:.2f} GiB; "
          f"peak RSS before fitting {peak_gib():.2f} GiB")
    start = time.perf_counter()
    model = DecisionTreeClassifier(splitter="hist", max_depth=args.max_depth).fit(X, y)
    print(f"fit {time.perf_counter() - start:.1f} s, {model.get_n_leaves()} leaves")
    print(f"peak RSS {peak_gib():.2f} GiB = {peak_gib() / size:.2f} x the input")


if __name__ == "__main__":
    main()
