"""Quercus's rpart learner vs R's rpart(xval = 10), side by side, same data and same folds.

Times one fit with its 10-fold cp table on credit-g (the rpart fixture), on 100,000 x 20
numeric rows and on 100,000 rows with 10 categorical columns (both generated with a fixed
seed), for classification (rpart's "class" method) and regression ("anova": credit-g's
credit_amount and the same rows with a numeric target), prints a table of times and
ratios, and checks that both programs grew the same tree (same nsplit in the cp table, same
frame n and dev). R's time is ``system.time`` around
``rpart()`` inside the R script (reading the CSV excluded); Quercus's is ``fit_rpart`` after
a warm-up call whose time (its first-use imports included) is reported as "first
call". Each program fits ``--repeat`` times (default 3) and the least time is reported, which
filters out the noise of a shared machine. Needs ``Rscript`` with rpart (Debian: apt-get install r-base-core r-cran-rpart);
without it only Quercus's times are printed.

    python benchmarks/bench_rpart.py            # all three data sets, both methods
    python benchmarks/bench_rpart.py --rows 20000 --method anova
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import rpart_anova_fixtures
from rpart_fixtures import load_data

from quercus.growing.rpart import RpartControl, fit_rpart
from quercus.growing.rpart_anova import fit_rpart_anova

R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(rpart))
d <- read.csv(args[1], stringsAsFactors = FALSE, na.strings = "")
lev <- read.csv(args[2], stringsAsFactors = FALSE)
for (col in unique(lev$column)) {
  l <- lev[lev$column == col, ]
  d[[col]] <- factor(d[[col]], levels = l$level[order(l$position)])
}
folds <- read.csv(args[3])$fold
target <- args[4]
method <- args[6]
form <- as.formula(paste0("`", target, "` ~ ."))
best <- Inf
for (i in seq_len(as.integer(args[5]))) {
  t <- system.time(fit <- rpart(form, data = d, method = method,
                                control = rpart.control(xval = folds)))
  best <- min(best, t[["elapsed"]])
}
cat("seconds", best, "\n")
cat("nsplit", fit$cptable[, "nsplit"], "\n")
cat("n", fit$frame$n, "\n")
cat("dev", sprintf("%.17g", fit$frame$dev), "\n")
"""


def _write(name, X, y, categorical, levels, folds, names, target, folder):
    """The data as rpart reads it: CSV (empty = missing), levels CSV, folds CSV (a target
    without levels is numeric, written with 17 significant digits)."""
    import pandas as pd

    cols = {}
    for j, col in enumerate(names):
        if categorical[j]:
            codes = X[:, j]
            cols[col] = pd.Series(["" if np.isnan(v) else levels[col][int(v)] for v in codes])
        else:
            cols[col] = X[:, j]
    cols[target] = ([levels[target][int(v)] for v in y] if target in levels
                    else list(y))
    data = folder / f"{name}.csv"
    pd.DataFrame(cols).to_csv(data, index=False, na_rep="", float_format="%.17g")
    rows = [(c, i + 1, lv) for c, lvs in levels.items() for i, lv in enumerate(lvs)]
    lev = folder / f"{name}.levels.csv"
    pd.DataFrame(rows, columns=["column", "position", "level"]).to_csv(lev, index=False)
    fold = folder / f"{name}.folds.csv"
    pd.DataFrame({"row": np.arange(1, len(y) + 1), "fold": folds}).to_csv(fold, index=False)
    return data, lev, fold


def numeric_data(rows, rng):
    X = rng.normal(size=(rows, 20))
    score = X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] * X[:, 3] + rng.normal(scale=0.8,
                                                                             size=rows)
    y = np.digitize(score, [-0.8, 0.8]).astype(np.int64)
    names = [f"x{j}" for j in range(20)]
    levels = {"y": ["a", "b", "c"]}
    return X, y, np.zeros(20, dtype=bool), np.zeros(20, dtype=np.int64), names, levels


def categorical_data(rows, rng):
    n_levels = np.array([3, 4, 5, 6, 8, 10, 12, 4, 6, 9])
    X = np.column_stack([rng.integers(0, k, size=rows) for k in n_levels]).astype(np.float64)
    effect = [rng.normal(size=k) for k in n_levels]
    score = sum(effect[j][X[:, j].astype(int)] for j in (0, 2, 5, 6))
    y = (score + rng.normal(scale=1.0, size=rows) > 0).astype(np.int64)
    names = [f"c{j}" for j in range(10)]
    levels = {names[j]: [f"L{i}" for i in range(k)] for j, k in enumerate(n_levels)}
    levels["y"] = ["no", "yes"]
    return X, y, np.ones(10, dtype=bool), n_levels, names, levels


def numeric_target(X, categorical, rng):
    """A regression target for the same rows: a signal of a few columns plus noise."""
    if categorical.all():
        effects = [rng.normal(size=int(np.nanmax(X[:, j])) + 1) for j in (0, 2, 5, 6)]
        signal = sum(e[X[:, j].astype(int)] for e, j in zip(effects, (0, 2, 5, 6)))
    else:
        signal = X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] * X[:, 3]
    return signal + rng.normal(scale=0.8, size=X.shape[0])


def run_r(data, lev, fold, target, repeat, method):
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(R_SCRIPT)
    out = subprocess.run(["Rscript", fh.name, str(data), str(lev), str(fold), target,
                          str(repeat), method],
                         capture_output=True, text=True, check=True).stdout
    fields = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    return {"seconds": float(fields["seconds"][0]),
            "nsplit": [int(v) for v in fields["nsplit"]],
            "n": [int(v) for v in fields["n"]], "dev": [float(v) for v in fields["dev"]]}


def run_ours(X, y, categorical, n_levels, folds, repeat, method):
    learner = fit_rpart if method == "class" else fit_rpart_anova

    def fit():
        return learner(X, y, None, categorical=categorical, n_levels=n_levels,
                       control=RpartControl(), folds=folds)
    t0 = time.perf_counter()
    fit()
    first = time.perf_counter() - t0
    seconds = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fit()
        seconds = min(seconds, time.perf_counter() - t0)
    return {"first": first, "seconds": seconds, "fit": result}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed fits per program; the least time is reported")
    parser.add_argument("--method", choices=("class", "anova", "both"), default="both",
                        help="rpart's classification, regression or both (default)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(20261201)
    sets = []
    methods = ("class", "anova") if args.method == "both" else (args.method,)
    generated = []
    for name, make in ((f"numeric {args.rows}x20", numeric_data),
                       (f"categorical {args.rows}x10", categorical_data)):
        X, y, cat, nl, names, levels = make(args.rows, rng)
        folds = rng.permutation(np.resize(np.arange(1, 11), args.rows))
        generated.append((name, X, y, cat, nl, names, levels, folds))
    if "class" in methods:
        cg = load_data("credit-g")
        sets.append(("class", "credit-g", cg.X, cg.y, cg.categorical, cg.n_levels,
                     cg.features, dict(cg.levels), cg.folds, cg.target))
        for name, X, y, cat, nl, names, levels, folds in generated:
            sets.append(("class", name, X, y, cat, nl, names, levels, folds, "y"))
    if "anova" in methods:
        ca = rpart_anova_fixtures.load_data("credit-g")
        sets.append(("anova", "credit-g", ca.X, ca.y, ca.categorical, ca.n_levels,
                     ca.features, dict(ca.levels), ca.folds, ca.target))
        for name, X, _, cat, nl, names, levels, folds in generated:
            target = numeric_target(X, cat, rng)
            levels = {k: v for k, v in levels.items() if k != "y"}
            sets.append(("anova", name, X, target, cat, nl, names, levels, folds, "y"))
    have_r = shutil.which("Rscript") is not None
    if not have_r:
        print("Rscript not found: R's times skipped (apt-get install r-base-core r-cran-rpart)")
    print(f"{'method':<8}{'data':<24}{'R rpart s':>11}{'Quercus s':>11}{'first call s':>14}"
          f"{'R / Quercus':>13}  same tree")
    with tempfile.TemporaryDirectory() as tmp:
        for method, name, X, y, cat, nl, names, levels, folds, target in sets:
            ours = run_ours(X, y, cat, nl, folds, args.repeat, method)
            fit = ours["fit"]
            r_s, ratio, same = float("nan"), float("nan"), "-"
            if have_r:
                files = _write(f"{method}-{name.split()[0]}", X, y, cat, levels, folds, names,
                               target, Path(tmp))
                r = run_r(*files, target, args.repeat, method)
                r_s = r["seconds"]
                ratio = r_s / ours["seconds"]
                same = (list(fit.cp_table["nsplit"]) == r["nsplit"]
                        and list(fit.frame["n"]) == r["n"]
                        and np.allclose(fit.frame["dev"], r["dev"], rtol=1e-9))
                same = "yes" if same else "NO"
            print(f"{method:<8}{name:<24}{r_s:>11.3f}{ours['seconds']:>11.3f}"
                  f"{ours['first']:>14.3f}{ratio:>13.2f}  {same}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
