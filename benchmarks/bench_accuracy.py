"""Accuracy and tree size of every learner on real data, by fixed 10-fold cross-validation.

Data: the Weka example files in tests/data/arff (missing values, categorical columns) and
scikit-learn's bundled breast_cancer, wine and digits. Every learner sees the same
stratified folds (``quercus.evaluation.stratified_folds``, seed 0); each fold's tree is
fitted on the other nine and tested on it.

Learners (``LEARNERS`` below; add a row to add one):

* R's ``rpart()`` with its defaults, and pruned by the 1-SE rule on its own cp table, run
  by the real program (``Rscript``; the folds go to R in a CSV file; skipped with the
  reason printed when ``Rscript`` or the rpart package is absent);
* J48 = Quercus ``algorithm="c45"``, which builds J48's tree (Weka 3.6) tree for tree;
* scikit-learn's default ``DecisionTreeClassifier`` (categorical columns one-hot encoded,
  missing values left to its native NaN support);
* Quercus CART with its defaults, and Quercus ``auto`` (inner CV inside every outer
  training fold);
* the CV-pruned Quercus learners (rpart, CART 1-SE, C4.5 CV), each run only when this
  Quercus has it (``quercus.selection.candidate_available``).

Prints a table: per data set the mean accuracy over the 10 test folds and the mean number
of leaves of the 10 fold trees, per learner; then the mean accuracy over the data sets
and the total of the leaves. Takes a few minutes (``auto`` is nested CV).

    python benchmarks/bench_accuracy.py                 # everything
    python benchmarks/bench_accuracy.py --data iris vote --no-r
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
import pandas as pd

from quercus import DecisionTreeClassifier
from quercus.data import read_arff
from quercus.evaluation import _canonical_frame, stratified_folds
from quercus.selection import Candidate, candidate_available

ROOT = Path(__file__).resolve().parent.parent
ARFF = ROOT / "tests" / "data" / "arff"
ARFF_SETS = ["breast-cancer", "vote", "labor", "credit-g", "soybean", "diabetes", "glass",
             "ionosphere", "iris", "segment-challenge"]
SKLEARN_SETS = ["breast_cancer", "wine", "digits"]
N_FOLDS, SEED = 10, 0

R_SCRIPT = r"""
suppressMessages(library(rpart))
args <- commandArgs(trailingOnly = TRUE)
types <- readLines(args[2])
data <- read.csv(args[1], na.strings = "NA", colClasses = types, check.names = FALSE)
fold <- data$fold_
data$fold_ <- NULL
data$class_ <- factor(data$class_)
leaves <- function(fit) sum(fit$frame$var == "<leaf>")
out <- NULL
for (k in sort(unique(fold))) {
  train <- data[fold != k, ]
  test <- data[fold == k, ]
  set.seed(k)
  fit <- rpart(class_ ~ ., data = train, method = "class")
  cp <- fit$cptable
  best <- which.min(cp[, "xerror"])
  row <- which(cp[, "xerror"] <= cp[best, "xerror"] + cp[best, "xstd"])[1]
  pruned <- prune(fit, cp = cp[row, "CP"])
  for (m in list(list("rpart", fit), list("rpart_1se", pruned))) {
    hit <- sum(as.character(predict(m[[2]], test, type = "class")) ==
               as.character(test$class_))
    out <- rbind(out, data.frame(learner = m[[1]], fold = k, right = hit, n = nrow(test),
                                 leaves = leaves(m[[2]])))
  }
}
write.csv(out, args[3], row.names = FALSE)
"""


def load(name: str):
    """(X, y) of a data set: an ARFF file of tests/data/arff or a scikit-learn set."""
    if name in SKLEARN_SETS:
        from sklearn import datasets

        bunch = getattr(datasets, f"load_{name}")(as_frame=True)
        return bunch.data, bunch.target.astype(str)
    data = read_arff(ARFF / f"{name}.arff")
    return data.X, data.y


# -- learners: each returns (number right, leaves) for one fold ----------------------------
def quercus_learner(params: dict):
    def run(frame, labels, train, test):
        model = DecisionTreeClassifier(**params).fit(frame.iloc[train], labels.iloc[train])
        right = int((model.predict(frame.iloc[test]) == labels.iloc[test].to_numpy()).sum())
        return right, model.get_n_leaves()
    return run


def sklearn_default(frame, labels, train, test):
    from sklearn.tree import DecisionTreeClassifier as SkTree

    encoded = pd.get_dummies(frame, dummy_na=False).astype(float)
    model = SkTree(random_state=0).fit(encoded.iloc[train], labels.iloc[train].astype(str))
    right = int((model.predict(encoded.iloc[test]) == labels.iloc[test].astype(str)).sum())
    return right, model.get_n_leaves()


LEARNERS = [  # (column name, runner, the Quercus candidate it needs or None)
    ("J48 (c45)", quercus_learner({"algorithm": "c45"}), None),
    ("sklearn", sklearn_default, None),
    ("Q cart", quercus_learner({"algorithm": "cart"}), None),
    ("Q auto", quercus_learner({"algorithm": "auto"}), None),
    ("Q rpart 1se", quercus_learner({"algorithm": "rpart", "prune": "1se"}),
     Candidate("rpart-1se", "", {"algorithm": "rpart", "prune": "1se"})),
    ("Q cart 1se", quercus_learner({"algorithm": "cart", "prune": "1se"}),
     Candidate("cart-1se", "", {"algorithm": "cart", "prune": "1se"})),
    ("Q c45 cv", quercus_learner({"algorithm": "c45", "prune": "cv"}),
     Candidate("c45-cv", "", {"algorithm": "c45", "prune": "cv"})),
]
R_LEARNERS = ["R rpart", "R rpart 1se"]


def r_available() -> str | None:
    """None when Rscript with rpart runs here, else why not."""
    if shutil.which("Rscript") is None:
        return "Rscript is not on PATH (Debian: apt-get install r-base-core r-cran-rpart)"
    done = subprocess.run(["Rscript", "-e", "library(rpart)"], check=False, capture_output=True,
                          text=True)
    return None if done.returncode == 0 else "R has no rpart package (r-cran-rpart)"


def run_r(frame, labels, folds, workdir: Path) -> dict:
    """R's rpart (default and 1-SE) on the folds: {learner: (accuracies, leaves)}."""
    fold_of = np.empty(len(frame), dtype=int)
    for k, (_, test) in enumerate(folds):
        fold_of[test] = k + 1
    table = pd.DataFrame({f"V{j + 1}": frame.iloc[:, j] for j in range(frame.shape[1])})
    types = ["factor" if isinstance(frame.dtypes.iloc[j], pd.CategoricalDtype) else "numeric"
             for j in range(frame.shape[1])]
    table["class_"] = labels.astype(str).to_numpy()
    table["fold_"] = fold_of
    data, kinds, out = workdir / "data.csv", workdir / "types.txt", workdir / "out.csv"
    table.to_csv(data, index=False, na_rep="NA")  # no category of these sets is "NA"
    kinds.write_text("\n".join([*types, "character", "integer"]) + "\n")
    script = workdir / "folds.R"
    script.write_text(R_SCRIPT)
    done = subprocess.run(["Rscript", str(script), str(data), str(kinds), str(out)],
                          check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"Rscript failed:\n{done.stderr}")
    result = pd.read_csv(out)
    found = {}
    for learner, name in (("rpart", "R rpart"), ("rpart_1se", "R rpart 1se")):
        rows = result[result["learner"] == learner].sort_values("fold")
        found[name] = ((rows["right"] / rows["n"]).to_numpy(), rows["leaves"].to_numpy())
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="+", default=ARFF_SETS + SKLEARN_SETS)
    parser.add_argument("--no-r", action="store_true", help="leave out R's rpart")
    args = parser.parse_args()
    why_no_r = "--no-r" if args.no_r else r_available()
    if why_no_r:
        print(f"R's rpart skipped: {why_no_r}")
    learners = []
    for name, runner, needs in LEARNERS:
        if needs is not None and not candidate_available(needs, DecisionTreeClassifier):
            print(f"{name} skipped: this Quercus has no {needs.params}")
            continue
        learners.append((name, runner))
    names = ([] if why_no_r else R_LEARNERS) + [name for name, _ in learners]
    print("J48 (c45) is Quercus's algorithm='c45', which builds Weka J48's tree tree for tree.")
    print(f"Stratified {N_FOLDS}-fold CV (seed {SEED}), the same folds for every learner; "
          "accuracy = mean over the folds, leaves = mean over the fold trees.\n")
    results, seconds = {}, {name: 0.0 for name in names}
    with tempfile.TemporaryDirectory() as tmp:
        for data_name in args.data:
            X, y = load(data_name)
            known = np.flatnonzero(pd.notna(np.asarray(y, dtype=object)))
            frame, labels = _canonical_frame(X.iloc[known], y.iloc[known], "auto")
            folds = stratified_folds(labels.to_numpy(), N_FOLDS, SEED)
            row = {}
            if not why_no_r:
                start = time.perf_counter()
                for name, (acc, leaves) in run_r(frame, labels, folds, Path(tmp)).items():
                    row[name] = (float(np.mean(acc)), float(np.mean(leaves)))
                seconds["R rpart"] += time.perf_counter() - start
            for name, runner in learners:
                start = time.perf_counter()
                accs, leaves = [], []
                for train, test in folds:
                    right, n_leaves = runner(frame, labels, train, test)
                    accs.append(right / len(test))
                    leaves.append(n_leaves)
                seconds[name] += time.perf_counter() - start
                row[name] = (float(np.mean(accs)), float(np.mean(leaves)))
            results[data_name] = row
            print(f"  {data_name}: " + ", ".join(f"{n} {a:.3f}/{lv:.1f}"
                                                for n, (a, lv) in row.items()), flush=True)
    print()
    print(_table(results, names))
    print("\nseconds per learner (all data sets, all folds): "
          + ", ".join(f"{n} {s:.1f}" for n, s in seconds.items() if s > 0))
    return 0


def _table(results: dict, names: list[str]) -> str:
    width = max(len(n) for n in results) + 2
    head = "data set".ljust(width) + "".join(f"{n:>16}" for n in names)
    lines = [head, " " * width + "".join(f"{'acc  leaves':>16}" for _ in names)]
    for data_name, row in results.items():
        lines.append(data_name.ljust(width) + "".join(
            f"{row[n][0]:>9.3f}{row[n][1]:>7.1f}" for n in names))
    means = [np.mean([row[n][0] for row in results.values()]) for n in names]
    totals = [np.sum([row[n][1] for row in results.values()]) for n in names]
    lines.append("mean / total".ljust(width) + "".join(
        f"{m:>9.3f}{t:>7.0f}" for m, t in zip(means, totals)))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
