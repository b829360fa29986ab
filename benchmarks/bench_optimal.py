"""Optimal trees: Quercus against STreeD and ConTree on the anchor sets, side by side.

Usage: python benchmarks/bench_optimal.py [--data DIR] [--sets vote,wdbc] [--depths 2,3,4]
       [--raw-depths 2,3] [--time-limit 60]
       (an empty --depths or --raw-depths skips that kind)

DIR holds the anchors' ``NAME.bin.csv`` / ``NAME.raw.csv`` (default:
``../shared/anchors/optimal/data``, rebuilt by that folder's ``make_data.py``). Binarized
cases run Quercus and STreeD (``pip install pystreed``); raw numeric cases (diabetes, wdbc,
credit-g) run Quercus with ``numeric="exact"`` and ConTree (``pip install pycontree``). A
solver that is not installed is skipped, and the table says so. Each cell: training errors
and the median fit time (predicting the errors is not timed) of 3 runs (1 run above 2 s), after one warm-up fit that loads
Quercus's compiled kernels. ``ratio`` = Quercus time / the other solver's time (below 1:
Quercus is faster). Every solver runs in this process, one fit at a time.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from quercus import DecisionTreeClassifier

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[2] / "shared" / "anchors" / "optimal" / "data"
SETS = ["vote", "breast-cancer", "soybean", "diabetes", "wdbc", "credit-g"]
RAW_SETS = ["diabetes", "wdbc", "credit-g"]


def load(data: Path, name: str, kind: str):
    frame = pd.read_csv(data / f"{name}.{kind}.csv")
    y = frame.pop("label").to_numpy()
    return frame.to_numpy(dtype=np.float64), y


def timed(fit, slow: float = 2.0):
    """(result, median fit seconds): 3 runs, or 1 when the first takes over ``slow`` s.
    ``fit`` returns (result, its fit seconds): predicting the errors is not timed."""
    times, result = [], None
    for _ in range(3):
        result, seconds = fit()
        times.append(seconds)
        if times[0] > slow:
            break
    return result, float(np.median(times))


def fit_quercus(X, y, depth, limit):
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=depth, time_limit=limit)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return (int((model.predict(X) != y).sum()), model.optimal_), seconds


def fit_streed(X, y, depth, limit):
    from pystreed import STreeDClassifier

    Xi = X.astype(np.int32)
    model = STreeDClassifier(optimization_task="accuracy", max_depth=depth,
                             max_num_nodes=2**depth - 1, time_limit=limit)
    start = time.perf_counter()
    model.fit(Xi, y)
    seconds = time.perf_counter() - start
    return (int((model.predict(Xi) != y).sum()), bool(model.fit_result.is_optimal())), seconds


def fit_contree(X, y, depth, limit):
    from pycontree import ConTree

    model = ConTree(max_depth=depth, time_limit=limit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
    timed_out = any("time limit" in str(w.message) for w in caught)
    return (int((model.predict(X) != y).sum()), not timed_out), seconds


def available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def cell(result) -> str:
    (errors, proven), seconds = result
    return f"{errors} / {seconds:.4g}s" + ("" if proven else " (TL)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--depths", default="2,3,4")
    parser.add_argument("--raw-depths", default="2,3")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    sets = args.sets.split(",")
    limit = args.time_limit
    other = {"bin": ("STreeD", "pystreed", fit_streed), "raw": ("ConTree", "pycontree",
                                                                 fit_contree)}
    rng = np.random.default_rng(0)
    for high in (3, 2):  # numeric and binary columns: compile / load every kernel
        warm = rng.integers(0, high, (40, 3)).astype(float)
        for limit_or_none in (None, 60.0):
            DecisionTreeClassifier(algorithm="optimal", max_depth=3,
                                   time_limit=limit_or_none).fit(warm, warm[:, 0] > 0)
    print("| set | kind | d | quercus errors / time | other solver | its errors / time | "
          "ratio |")
    print("|---|---|---|---|---|---|---|")
    totals = {"bin": [0.0, 0.0], "raw": [0.0, 0.0]}
    for kind, depths in (("bin", args.depths), ("raw", args.raw_depths)):
        name_other, module, fit_other = other[kind]
        have_other = available(module)
        for name in sets:
            if kind == "raw" and name not in RAW_SETS:
                continue
            X, y = load(args.data, name, kind)
            for depth in (int(d) for d in depths.split(",") if d):
                ours = timed(lambda X=X, y=y, d=depth: fit_quercus(X, y, d, limit))
                if have_other:
                    theirs = timed(lambda X=X, y=y, d=depth, f=fit_other: f(X, y, d, limit))
                    ratio = f"{ours[1] / theirs[1]:.2f}x"
                    if ours[0][1] and theirs[0][1]:
                        totals[kind][0] += ours[1]
                        totals[kind][1] += theirs[1]
                    text = cell(theirs)
                else:
                    text, ratio = f"not installed (pip install {module})", "-"
                print(f"| {name} | {kind} | {depth} | {cell(ours)} | {name_other} | {text} | "
                      f"{ratio} |", flush=True)
    for kind, (ours, theirs) in totals.items():
        if theirs > 0:
            print(f"total {kind} (cells both proved): quercus {ours:.3f}s, "
                  f"{other[kind][0]} {theirs:.3f}s, ratio {ours / theirs:.2f}x")


if __name__ == "__main__":
    main()
