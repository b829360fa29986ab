"""The compiled (Cython) kernels against the last numba build, fit by fit, in one run.

Usage: python benchmarks/bench_kernels_switch.py [--commit b87f659] [--repeats 3]
       [--only cart_exact hist_1m ...] [--threads 2]

The numba build is the source tree of ``--commit`` (the last commit with numba kernels,
extracted with ``git archive`` into a temporary directory; numba must be installed:
``pip install numba``; this checkout itself does not import it), run with
``QUERCUS_KERNELS=compiled``, ``NUMBA_NUM_THREADS``, no background warm-up and a numba
cache of its own, warmed by a first fit; this checkout runs as it is, its threads set by
``OMP_NUM_THREADS``. Each workload runs in a fresh process per build: one untimed fit (the
numba build compiles or loads its kernels; the compiled build only imports the modules the
fit uses and touches its memory first), then the median of ``--repeats`` timed fits (and
predictions). Prints the seconds of both and the ratio numba / compiled (above 1: the
compiled kernels are faster). The issue's bar: no ratio below 0.95.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name -> (estimator, parameters, data, rows, also time predict on the rows?)
WORKLOADS = {
    "cart_exact": ("DecisionTreeClassifier", {"max_depth": 12}, "mixed", 200_000, True),
    "cart_exact_entropy": ("DecisionTreeClassifier", {"criterion": "entropy",
                                                      "max_depth": 8}, "mixed", 100_000, False),
    "cart_random": ("DecisionTreeClassifier", {"splitter": "random", "max_depth": 14},
                    "mixed", 200_000, False),
    "hist_1m": ("DecisionTreeClassifier", {"splitter": "hist", "max_depth": 12}, "numeric",
                1_000_000, True),
    "id3": ("DecisionTreeClassifier", {"algorithm": "id3", "max_depth": 8}, "categorical",
            100_000, False),
    "c45": ("DecisionTreeClassifier", {"algorithm": "c45"}, "mixed", 100_000, True),
    "interval": ("DecisionTreeClassifier", {"algorithm": "interval"}, "mixed", 20_000, False),
    "rpart": ("DecisionTreeClassifier", {"algorithm": "rpart"}, "mixed", 20_000, True),
    "optimal_d2": ("DecisionTreeClassifier", {"algorithm": "optimal", "max_depth": 2},
                   "numeric", 20_000, False),
    "optimal_d3": ("DecisionTreeClassifier", {"algorithm": "optimal", "max_depth": 3},
                   "numeric", 2_000, False),
    "reg_exact": ("DecisionTreeRegressor", {"max_depth": 10}, "mixed", 200_000, True),
    "reg_hist": ("DecisionTreeRegressor", {"splitter": "hist", "max_depth": 12}, "numeric",
                 1_000_000, True),
    "reg_absolute": ("DecisionTreeRegressor", {"criterion": "absolute_error",
                                               "max_depth": 6}, "mixed", 20_000, False),
    "reg_poisson": ("DecisionTreeRegressor", {"criterion": "poisson", "max_depth": 8},
                    "mixed", 100_000, False),
    "reg_rpart": ("DecisionTreeRegressor", {"algorithm": "rpart"}, "mixed", 20_000, False),
}

CHILD = r"""
import json, statistics, sys, time
import numpy as np, pandas as pd
import quercus

spec = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
n, kind = spec["rows"], spec["data"]
if kind == "numeric":
    X = pd.DataFrame(rng.normal(size=(n, 20)), columns=[f"x{j}" for j in range(20)])
    score = X["x0"] + X["x1"] * X["x2"] - X["x3"] ** 2 + rng.normal(scale=0.5, size=n)
elif kind == "categorical":
    X = pd.DataFrame({f"c{j}": pd.Categorical(rng.integers(0, 3 + j % 5, n).astype(str))
                      for j in range(12)})
    codes = [X[c].cat.codes.to_numpy() for c in X.columns]
    score = ((codes[0] == 1).astype(int) + (codes[1] > 1) - (codes[2] == 0)
             + rng.normal(scale=0.5, size=n))
else:
    X = pd.DataFrame(rng.normal(size=(n, 12)), columns=[f"x{j}" for j in range(12)])
    X.loc[rng.random(n) < 0.05, "x1"] = np.nan
    levels = [f"k{k}" for k in range(8)]
    X["cat"] = pd.Categorical(rng.choice(levels, n), categories=levels)
    score = (X["x0"] + X["x1"].fillna(0) * X["x2"] + (X["cat"].cat.codes.to_numpy() % 3)
             + rng.normal(scale=0.5, size=n))
if spec["estimator"] == "DecisionTreeRegressor":
    y = np.exp(score / 4) if spec["params"].get("criterion") == "poisson" else score
else:
    y = np.where(score > 1.0, "a", np.where(score > 0.0, "b", "c"))
make = lambda: getattr(quercus, spec["estimator"])(**spec["params"])
model = make().fit(X, y)  # untimed: numba compiles or loads its kernels; Cython's imports
fits, predicts = [], []
for _ in range(spec["repeats"]):
    start = time.perf_counter(); model = make().fit(X, y); fits.append(time.perf_counter() - start)
    if spec["predict"]:
        start = time.perf_counter(); model.predict(X); predicts.append(time.perf_counter() - start)
print(json.dumps({"fit": statistics.median(fits),
                  "predict": statistics.median(predicts) if predicts else None}))
"""


def run(spec: dict, src: Path, numba_cache: Path | None, threads: int) -> dict:
    """One workload in a fresh process on ``src``: the numba build when ``numba_cache`` is
    given (its own settings), else this checkout (OpenMP's thread count only)."""
    env = {**os.environ, "PYTHONPATH": str(src), "OMP_NUM_THREADS": str(threads)}
    if numba_cache is not None:  # the old build's switches; the current tree has none
        env.update(QUERCUS_KERNELS="compiled", NUMBA_CACHE_DIR=str(numba_cache),
                   NUMBA_NUM_THREADS=str(threads), QUERCUS_WARMUP="0")
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{spec}: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", default="b87f659", help="the numba build's commit")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", nargs="+", choices=sorted(WORKLOADS))
    args = parser.parse_args()
    try:
        import numba  # noqa: F401
    except ImportError:
        raise SystemExit(f"the numba build ({args.commit}) runs in this interpreter and "
                         "needs numba: pip install numba") from None
    names = args.only or list(WORKLOADS)
    with tempfile.TemporaryDirectory() as temp:
        archive = subprocess.run(["git", "archive", args.commit, "src"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", temp], input=archive, check=True)
        old_src, cache = Path(temp) / "src", Path(temp) / "numba_cache"
        print(f"numba build: {args.commit}; compiled: this checkout; {args.threads} threads; "
              f"median of {args.repeats} (seconds)")
        print(f"{'workload':<20} {'rows':>9} | {'numba fit':>9} {'cython fit':>10} "
              f"{'ratio':>6} | {'numba pred':>10} {'cython pred':>11} {'ratio':>6}")
        for name in names:
            estimator, params, data, rows, predict = WORKLOADS[name]
            spec = {"estimator": estimator, "params": params, "data": data, "rows": rows,
                    "predict": predict, "repeats": args.repeats}
            old = run(spec, old_src, cache, args.threads)
            new = run(spec, ROOT / "src", None, args.threads)
            line = (f"{name:<20} {rows:>9,} | {old['fit']:>9.3f} {new['fit']:>10.3f} "
                    f"{old['fit'] / new['fit']:>6.2f} |")
            if predict:
                line += (f" {old['predict']:>10.3f} {new['predict']:>11.3f} "
                         f"{old['predict'] / new['predict']:>6.2f}")
            print(line, flush=True)


if __name__ == "__main__":
    main()
