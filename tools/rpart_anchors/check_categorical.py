"""Black-box check of Quercus's categorical split arithmetic against R's rpart.

    PYTHONPATH=src python tools/rpart_anchors/check_categorical.py [--probes 100] [--seed 1]

Builds small random data sets (three categorical predictors, the second a copy of the first
with its levels relabelled in another order, so that two variables give the same partition;
2 to 6 classes; unit or fractional case weights; default or given priors; absent levels,
missing values, Gini or information, one cut or trees of depth 3), fits each with R's rpart
through probe_categorical.R (which only prints rpart's outputs) and with Quercus's
``fit_rpart`` at the same settings, and counts the fits whose every primary and competitor
improve (node, variable, %.17g value) is rpart's bit for bit. Needs ``Rscript`` with rpart.
Probes with a row whose every predictor is missing are left out: R keeps such rows when case
weights are given (docs/rpart.md, "Categorical splits"), Quercus drops them.
"""

from __future__ import annotations

import argparse
import csv
import random
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from quercus.growing.rpart import RpartControl, fit_rpart

HERE = Path(__file__).resolve().parent
WEIGHTS = [0.5, 1.0, 1.5, 2.0, 0.3, 0.7, 1.1]


def make_probe(rng: random.Random, it: int) -> dict:
    K = rng.randint(2, 6)
    n = rng.randint(20, 70)
    y = [rng.randrange(K) for _ in range(n)]
    y[:K] = range(K)
    rng.shuffle(y)
    k = rng.randint(3, 8)
    absent = set(rng.sample(range(k), rng.randint(0, k - 2))) if it % 2 else set()
    present = [lv for lv in range(k) if lv not in absent]
    x0 = [rng.choice(present) for _ in y]
    relabel = list(range(k))
    rng.shuffle(relabel)
    x1 = [relabel[v] for v in x0]
    k2 = rng.randint(3, 7)
    x2 = [rng.randrange(k2) for _ in y]
    xs, nlev = [x0, x1, x2], [k, k, k2]
    if it % 5 == 2:  # missing values (never in every predictor of a row)
        for r in range(n):
            for j in range(3):
                if rng.random() < 0.12 and sum(xs[i][r] is None for i in range(3)) < 2:
                    xs[j][r] = None
    w = [1.0] * n if it % 3 == 0 else [rng.choice(WEIGHTS) for _ in range(n)]
    prior = ""
    if it % 4 == 1:
        v = [rng.randint(1, 9) for _ in range(K)]
        prior = ";".join(repr(p / sum(v)) for p in v)
    return {"K": K, "x": xs, "nlev": nlev, "y": y, "w": w, "prior": prior,
            "split": "information" if it % 7 == 3 else "gini",
            "maxdepth": 3 if it % 6 == 5 else 1}


def run_r(probes: list[dict], tmp: Path) -> dict:
    with open(tmp / "p.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["probe", "x0", "x1", "x2", "y", "w"])
        for i, p in enumerate(probes):
            for r in range(len(p["y"])):
                labels = ["" if p["x"][j][r] is None else f"L{p['x'][j][r]}" for j in range(3)]
                out.writerow([i, *labels, f"c{p['y'][r]}", repr(float(p["w"][r]))])
    with open(tmp / "q.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["probe", "lev_x0", "lev_x1", "lev_x2", "ylev", "prior", "split",
                      "maxdepth"])
        for i, p in enumerate(probes):
            levs = [";".join(f"L{lv}" for lv in range(p["nlev"][j])) for j in range(3)]
            out.writerow([i, *levs, ";".join(f"c{c}" for c in range(p["K"])), p["prior"],
                          p["split"], p["maxdepth"]])
    subprocess.run(["Rscript", str(HERE / "probe_categorical.R"), str(tmp / "p.csv"),
                    str(tmp / "q.csv"), str(tmp / "r.txt")], check=True)
    res: dict = {}
    with open(tmp / "r.txt") as f:
        for line in f:
            parts = line.split()
            res.setdefault(int(parts[0]), []).append((int(parts[-1]), int(parts[1][1:]),
                                                      float(parts[2])))
    return res


def quercus_improves(p: dict) -> list:
    X = np.array([[np.nan if v is None else float(v) for v in col] for col in p["x"]]).T
    priors = [float(v) for v in p["prior"].split(";")] if p["prior"] else None
    control = RpartControl(cp=-1.0, max_depth=p["maxdepth"], min_split=2, min_bucket=1,
                           max_competitors=50, max_surrogates=0, criterion=p["split"])
    fit = fit_rpart(X, np.array(p["y"]), np.array(p["w"]), categorical=np.ones(3, bool),
                    n_levels=p["nlev"], control=control, priors=priors, n_classes=p["K"])
    return [(s.node, s.feature, s.improve) for s in fit.splits if s.role != "surrogate"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    probes = [make_probe(rng, it) for it in range(args.probes)]
    with tempfile.TemporaryDirectory() as tmp:
        res = run_r(probes, Path(tmp))
    total, same = Counter(), Counter()
    for i, p in enumerate(probes):
        if i not in res:
            continue
        key = ("2 classes" if p["K"] == 2 else "3+ classes",
               "unit weights" if set(p["w"]) == {1.0} else "fractional weights", p["split"])
        total[key] += 1
        same[key] += quercus_improves(p) == res[i]
    for key in sorted(total):
        print(f"{', '.join(key)}: {same[key]} of {total[key]} fits bit for bit")
    print(f"all: {sum(same.values())} of {sum(total.values())}")


if __name__ == "__main__":
    main()
