"""Start-up cost of every algorithm as a user meets it: import, first fit, second fit.

Usage: python benchmarks/bench_startup.py [--only ALGO ...] [--no-cli] [--repeats 3]

The kernels are compiled when the package is built: nothing is compiled, cached or warmed
up at run time, and what a first call still pays is Python's imports (some learners import
their modules on first use) and the first touch of memory. For each algorithm (CART exact,
CART hist, C4.5, ID3, class-interval, rpart with its cp table, optimal of depth 3 on 8
bins, the regression tree, auto) a fresh process times ``import quercus`` (lazy: it
imports neither numpy nor pandas), then loading the estimator and the bundled penguins
(numpy, pandas, the learner's modules, reading the CSV), the first fit, and a second fit
of the same data in the same process. ``1st/2nd`` = first fit / second fit: the bar of
issue 39 is a first run as fast as the hundredth (a ratio near 1).

The data is ``quercus.datasets.load("penguins")`` (344 rows: species from island, bill,
flipper, body mass, sex and year, a few values missing). ID3 takes nominal features without
missing values only, so it fits the rows without a missing value, the measurements cut into
three levels and the year a category; the regression tree predicts body mass from the
other columns and the species.

Then whole commands, each a fresh process, wall time: ``quercus train penguins.csv --target
species --out m.json`` (the bundled file; ``train``'s default algorithm, auto), its first
run and the median of the later ones, and ``quercus --help`` against ``python -c "import
pandas"``. Every figure is the median of ``--repeats`` processes. The processes run with
Python's bytecode cache allowed (``PYTHONDONTWRITEBYTECODE`` removed), as an installed
package would.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

ALGORITHMS = {
    "cart-exact": {"algorithm": "cart", "splitter": "exact"},
    "cart-hist": {"algorithm": "cart", "splitter": "hist"},
    "c45": {"algorithm": "c45"},
    "id3": {"algorithm": "id3"},
    "interval": {"algorithm": "interval"},
    "rpart": {"algorithm": "rpart"},
    "optimal-d3": {"algorithm": "optimal", "max_depth": 3, "numeric": "bins", "max_bins": 8},
    "regressor": {},
    "auto": {"algorithm": "auto"},
}
MEASUREMENTS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]


# -- the measurement in a fresh process ----------------------------------------------------
def child(algorithm: str) -> None:
    start = time.perf_counter()
    import quercus  # noqa: F401  (timed: the package alone, which loads its names lazily)

    imported = time.perf_counter()
    import pandas as pd

    from quercus import DecisionTreeClassifier, DecisionTreeRegressor, datasets

    penguins = datasets.load("penguins")
    X, y = penguins.X, penguins.y
    if algorithm == "id3":
        keep = ~(X.isna().any(axis=1).to_numpy() | pd.isna(y).to_numpy())
        X, y = X[keep].copy(), y[keep]
        for column in MEASUREMENTS:
            X[column] = pd.qcut(X[column], 3, labels=["low", "mid", "high"])
        X["year"] = X["year"].astype(int).astype(str).astype("category")
    elif algorithm == "regressor":
        X, y = X.drop(columns="body_mass_g").assign(species=y), X["body_mass_g"]
    learner = DecisionTreeRegressor if algorithm == "regressor" else DecisionTreeClassifier
    loaded = time.perf_counter()
    fits = []
    for _ in range(2):
        model = learner(**ALGORITHMS[algorithm])
        began = time.perf_counter()
        model.fit(X, y)
        fits.append(time.perf_counter() - began)
    print(json.dumps({"import": imported - start, "load": loaded - imported, "first": fits[0],
                      "second": fits[1], "nodes": int(model.tree_.n_nodes)}))


ENV: dict = {}  # the environment of every measured process (main sets it)


def run_child(algorithm: str) -> dict:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", algorithm], env=ENV,
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["wall"] = time.perf_counter() - start
    return result


def wall(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=ENV, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(ALGORITHMS), default=list(ALGORITHMS))
    parser.add_argument("--no-cli", action="store_true",
                        help="skip quercus train and quercus --help")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per figure")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    ENV.update(os.environ)
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    load = os.getloadavg()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; bundled penguins (344 rows); "
          f"median of {args.repeats} fresh processes (seconds)")
    print(f"{'algorithm':<11} | {'import':>6} {'load':>6} | {'1st fit':>7} {'2nd fit':>7} "
          f"{'1st/2nd':>7} | {'process':>7} {'nodes':>5}")
    for algorithm in args.only:
        runs = [run_child(algorithm) for _ in range(args.repeats)]
        med = {key: statistics.median(run[key] for run in runs)
               for key in ("import", "load", "first", "second", "wall")}
        print(f"{algorithm:<11} | {med['import']:6.3f} {med['load']:6.3f} | "
              f"{med['first']:7.3f} {med['second']:7.3f} {med['first'] / med['second']:7.2f} | "
              f"{med['wall']:7.2f} {runs[-1]['nodes']:>5}", flush=True)
    print("import: import quercus; load: the estimator, numpy, pandas and reading penguins; "
          "process: the child's whole wall time")
    if args.no_cli:
        return
    script = Path(sys.executable).parent / "quercus"  # the command an install puts on PATH
    quercus = [str(script)] if script.exists() else [sys.executable, "-m", "quercus"]
    with tempfile.TemporaryDirectory(prefix="bench_startup_") as tmp, resources.as_file(
            resources.files("quercus.data").joinpath("bundled", "penguins.csv")) as data:
        tmp = Path(tmp)
        train = [*quercus, "train", str(data), "--target", "species", "--out", "m.json"]
        times = [wall(train, tmp) for _ in range(max(2, args.repeats))]
        print(f"\n{'command (whole process, wall)':<52} | {'seconds':>7}")
        print(f"{'quercus train penguins.csv --target species (auto)':<52} | "
              f"{times[0]:7.2f}  first run")
        print(f"{'':<52} | {statistics.median(times[1:]):7.2f}  median of the later runs")
        for name, command in (("quercus --help", [*quercus, "--help"]),
                              ('python -c "import pandas"',
                               [sys.executable, "-c", "import pandas"])):
            seconds = statistics.median(wall(command, tmp) for _ in range(args.repeats))
            print(f"{name:<52} | {seconds:7.2f}")
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
