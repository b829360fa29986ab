"""Start-up cost of every algorithm: numba compiling, loading cached kernels, then fitting.

Usage: python benchmarks/bench_startup.py [--only ALGO ...] [--no-cli] [--rows 344]
                                          [--compare OLD_SRC] [--kernels auto|pure|compiled]

For each algorithm (CART exact, CART hist, C4.5, ID3, class-interval, rpart with its cp
table, optimal of depth 3 on 8 bins) in a fresh numba
cache directory of its own (``NUMBA_CACHE_DIR``, a new temporary directory):

- **cold**: a fresh process with the empty cache times ``import quercus`` and its first fit;
- **warm**: a second fresh process on the cache the first one filled (and the background
  warm-up it started, which the script waits for) times its first fit and then a second
  fit of the same data in the same process.

Then ``quercus demo`` and ``quercus train DATA --target species`` (CART and C4.5) from an
empty cache and again with the cache warm, whole process wall time. The table shows the
targets of issue 16: a cold first fit within 3 s, ``quercus demo`` cold within 10 s, a warm
first fit within 0.2 s of the second fit.

The data is penguins-sized (``--rows``, default 344, like palmerpenguins): three species,
four numeric measurements and two categorical columns (island, sex) with a few missing
values, written once to a CSV file that every process reads with ``quercus.read_csv``. ID3
takes nominal features without missing values only, so it fits island, sex and the four
measurements cut into three levels, on the rows without a missing value.

The script also reports how many files each cache directory holds after the cold run (0
when the fit ran the kernels' pure Python copy, see ``quercus/_kernel_path.py``) and whether
the fitting process imported numba at all. ``--kernels`` sets ``QUERCUS_KERNELS`` in every
process (``compiled`` measures numba's start-up alone). ``--compare OLD_SRC`` measures,
in turn with the code under test, another source tree (a ``src`` directory, e.g. the
previous commit's ``git archive``), so that before and after share one run's load; its
rows are marked "old". The processes run with Python's bytecode cache allowed
(``PYTHONDONTWRITEBYTECODE`` removed), as an installed package would.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ALGORITHMS = {
    "cart-exact": {"algorithm": "cart", "splitter": "exact"},
    "cart-hist": {"algorithm": "cart", "splitter": "hist"},
    "c45": {"algorithm": "c45"},
    "id3": {"algorithm": "id3"},
    "interval": {"algorithm": "interval"},
    "rpart": {"algorithm": "rpart"},
    "optimal-d3": {"algorithm": "optimal", "max_depth": 3, "numeric": "bins", "max_bins": 8},
}
SETTLE_SECONDS = 900  # longest wait for a background warm-up to finish
COLD_TARGET, DEMO_TARGET, WARM_MARGIN = 3.0, 10.0, 0.2


def write_penguins_like(path: Path, rows: int, seed: int = 0) -> None:
    """A CSV of ``rows`` penguin-like rows (fixed seed), a few values missing."""
    rng = np.random.default_rng(seed)
    species = rng.integers(0, 3, rows)
    centres = np.array([[38.8, 18.3, 190.0, 3700.0], [48.8, 18.4, 196.0, 3730.0],
                        [47.5, 15.0, 217.0, 5080.0]])
    spread = np.array([2.7, 1.2, 6.5, 460.0])
    numeric = centres[species] + rng.normal(size=(rows, 4)) * spread
    islands = np.array(["Biscoe", "Dream", "Torgersen"])
    island = np.where(species == 2, 0, rng.integers(0, 3, rows))
    sex = rng.integers(0, 2, rows)
    names = np.array(["Adelie", "Chinstrap", "Gentoo"])
    lines = ["species,island,bill_length_mm,bill_depth_mm,flipper_length_mm,body_mass_g,sex"]
    for i in range(rows):
        values = [f"{v:.1f}" for v in numeric[i]]
        if i % 170 == 3:  # two rows without measurements, as in palmerpenguins
            values = [""] * 4
        sex_value = "" if i % 31 == 7 else ("male" if sex[i] else "female")
        lines.append(",".join([names[species[i]], islands[island[i]], *values, sex_value]))
    path.write_text("\n".join(lines) + "\n")


# -- the measurement in a fresh process ----------------------------------------------------
def child(algorithm: str, data: str) -> None:
    start = time.perf_counter()
    import pandas as pd

    import quercus

    imported = time.perf_counter() - start
    dataset = quercus.read_csv(data, target="species")
    X, y = dataset.X, dataset.y
    if algorithm == "id3":
        keep = ~(X.isna().any(axis=1).to_numpy() | pd.isna(y))
        X = X[keep].copy()
        for column in ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]:
            X[column] = pd.qcut(X[column], 3, labels=["low", "mid", "high"])
        y = np.asarray(y)[keep]
    fits = []
    for _ in range(2):
        model = quercus.DecisionTreeClassifier(**ALGORITHMS[algorithm])
        start = time.perf_counter()
        model.fit(X, y)
        fits.append(time.perf_counter() - start)
    print(json.dumps({"import": imported, "first": fits[0], "second": fits[1],
                      "nodes": int(model.tree_.n_nodes), "numba": "numba" in sys.modules}))


ENV: dict = {}  # the environment of every measured process (main sets it)


def environment(cache: Path, src: str | None) -> dict:
    env = {**ENV, "NUMBA_CACHE_DIR": str(cache)}
    if src is not None:
        env["PYTHONPATH"] = src
    return env


def run_child(algorithm: str, data: Path, cache: Path, src: str | None = None) -> dict:
    env = environment(cache, src)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", algorithm, str(data)], env=env,
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["wall"] = time.perf_counter() - start
    return result


def run_cli(arguments: list[str], cache: Path, cwd: Path, src: str | None = None) -> float:
    env = environment(cache, src)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "quercus", *arguments], env=env, cwd=cwd, check=True,
                   capture_output=True)
    return time.perf_counter() - start


def settle(cache: Path) -> float:
    """Wait until no background warm-up (``python -m quercus._warmup``, started by a run
    on a cold cache) holds a lock in ``cache``; the seconds waited."""
    start = time.perf_counter()
    while any(cache.rglob("quercus-warmup.lock")):
        if time.perf_counter() - start > SETTLE_SECONDS:
            raise SystemExit(f"a warm-up in {cache} did not finish in {SETTLE_SECONDS} s")
        time.sleep(0.5)
    return time.perf_counter() - start


def cache_files(cache: Path) -> int:
    return sum(1 for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(ALGORITHMS), default=list(ALGORITHMS))
    parser.add_argument("--no-cli", action="store_true", help="skip quercus demo and train")
    parser.add_argument("--rows", type=int, default=344)
    parser.add_argument("--compare", metavar="OLD_SRC",
                        help="also measure this source tree, in turn (rows marked old)")
    parser.add_argument("--kernels", choices=["auto", "pure", "compiled"],
                        help="QUERCUS_KERNELS for every measured process")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    ENV.update(os.environ)
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.kernels:
        ENV["QUERCUS_KERNELS"] = args.kernels
    versions = [("", None)] + ([(" old", args.compare)] if args.compare else [])
    load = os.getloadavg()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.rows} penguin-like rows")
    with tempfile.TemporaryDirectory(prefix="bench_startup_") as tmp:
        tmp = Path(tmp)
        data = tmp / "penguins.csv"
        write_penguins_like(data, args.rows)
        print(f"{'algorithm':<15} | {'import':>6} {'cold 1st':>8} {'warm 1st':>8} "
              f"{'2nd fit':>7} {'warm-2nd':>8} | {'cold ok':>7} {'warm ok':>7} | "
              f"{'cache files':>11} {'nodes':>5} {'numba':>5}")
        for algorithm in args.only:
            for label, src in versions:
                cache = tmp / f"cache-{algorithm}{label.strip()}"
                cache.mkdir()
                cold = run_child(algorithm, data, cache, src)
                settle(cache)
                files = cache_files(cache)
                warm = run_child(algorithm, data, cache, src)
                gap = warm["first"] - warm["second"]
                numba = "yes" if warm.get("numba", True) else "no"
                print(f"{algorithm + label:<15} | {warm['import']:6.2f} {cold['first']:8.2f} "
                      f"{warm['first']:8.3f} {warm['second']:7.3f} {gap:8.3f} | "
                      f"{'yes' if cold['first'] <= COLD_TARGET else 'NO':>7} "
                      f"{'yes' if gap <= WARM_MARGIN else 'NO':>7} | {files:>11} "
                      f"{warm['nodes']:>5} {numba:>5}")
        if args.no_cli:
            return
        print(f"\n{'command (whole process)':<48} | {'cold':>6} {'warm':>6} | target")
        commands = [
            ("quercus demo", ["demo"], DEMO_TARGET),
            ("quercus train penguins.csv --target species",
             ["train", "penguins.csv", "--target", "species", "--out", "m.json"], None),
            ("  ... --algorithm c45",
             ["train", "penguins.csv", "--target", "species", "--algorithm", "c45",
              "--out", "m.json"], None),
        ]
        for i, (name, arguments, target) in enumerate(commands):
            for label, src in versions:
                cache = tmp / f"cache-cli-{i}{label.strip()}"
                cache.mkdir()
                cold = run_cli(arguments, cache, tmp, src)
                settle(cache)
                warm = run_cli(arguments, cache, tmp, src)
                verdict = "" if target is None else (
                    f"<= {target:.0f} s cold: {'yes' if cold <= target else 'NO'}")
                print(f"{name:<44}{label:<4} | {cold:6.2f} {warm:6.2f} | {verdict}")
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
