"""Optimal trees: Quercus against STreeD and ConTree on the anchor sets, side by side.

Usage: python benchmarks/bench_optimal.py [--data DIR] [--sets vote,wdbc] [--depths 2,3,4]
       [--raw-depths 2,3] [--time-limit 60]
       (an empty --depths or --raw-depths skips that kind)

DIR holds the anchors' ``NAME.bin.csv`` / ``NAME.raw.csv`` (default:
``../shared/anchors/optimal/data``, rebuilt by that folder's ``make_data.py``). Binarized
cases run Quercus and STreeD (``pip install pystreed``); raw numeric cases (diabetes, wdbc,
credit-g) run Quercus with ``numeric="exact"`` and ConTree (``pip install pycontree``). A
solver that is not installed is skipped, and the table says so. Each cell: training errors
and the median fit time (predicting the errors is not timed) of 5 runs (3 above 0.5 s, 1
above 2 s), the two solvers' runs alternating so that a busy machine slows both alike,
after untimed warm-up fits (Quercus's first-use imports, OpenMP's threads started).
``ratio`` = Quercus time / the other solver's time (below 1: Quercus is faster). Every
solver runs in this process, one fit at a time.
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
DEFAULT_DATA = HERE.parents[1] / "shared" / "anchors" / "optimal" / "data"
SETS = ["vote", "breast-cancer", "soybean", "diabetes", "wdbc", "credit-g"]
RAW_SETS = ["diabetes", "wdbc", "credit-g"]


def load(data: Path, name: str, kind: str):
    frame = pd.read_csv(data / f"{name}.{kind}.csv")
    y = frame.pop("label").to_numpy()
    return frame.to_numpy(dtype=np.float64), y


def timed(*fits, runs: int = 5, slow: float = 2.0, medium: float = 0.5):
    """[(result, median fit seconds)] of each fit, their runs alternating: 5 runs, 3 when
    the first takes over ``medium`` s, 1 over ``slow`` s. Each fit returns (result, its
    fit seconds): predicting the errors is not timed."""
    times = [[] for _ in fits]
    results = [None] * len(fits)
    for run in range(runs):
        for i, fit in enumerate(fits):
            if run > 0 and (times[i][0] > slow or (run >= 3 and times[i][0] > medium)):
                continue
            results[i], seconds = fit()
            times[i].append(seconds)
    return [(result, float(np.median(t))) for result, t in zip(results, times)]


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
    # binary, few-valued and continuous columns, labels with noise (a real search at
    # depth 3): every search path run once before any timing
    for warm in (rng.integers(0, 2, (200, 8)).astype(float),
                 rng.integers(0, 3, (200, 8)).astype(float), rng.normal(size=(200, 3))):
        labels = (warm[:, 0] + warm[:, 1] > np.median(warm[:, 0] + warm[:, 1])) \
            ^ (rng.random(200) < 0.2)
        for limit_or_none in (None, 60.0):
            DecisionTreeClassifier(algorithm="optimal", max_depth=3,
                                   time_limit=limit_or_none).fit(warm, labels)
    # and a node large enough for the threads to share its interval blocks (rows x cuts >=
    # PARALLEL_WORK): OpenMP starts its threads in the first such fit, which would
    # otherwise be wdbc's at raw depth 3, timed once (over 2 s)
    big = rng.normal(size=(1200, 4))
    labels = (big[:, 0] + big[:, 1] > 0) ^ (rng.random(1200) < 0.2)
    DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(big, labels)
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
                fits = [lambda X=X, y=y, d=depth: fit_quercus(X, y, d, limit)]
                if have_other:
                    fits.append(lambda X=X, y=y, d=depth, f=fit_other: f(X, y, d, limit))
                ours, *rest = timed(*fits)
                if have_other:
                    theirs = rest[0]
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
