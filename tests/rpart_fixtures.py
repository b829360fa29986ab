"""Loading the rpart 4.1.19 fixtures of tests/data/rpart as plain arrays and records.

``load_data(name)`` reads ``data/NAME.csv`` with the declared level order of
``NAME.levels.csv`` (missing = empty cell) into the arrays ``fit_rpart`` takes;
``load_fit(name, fit)`` reads ``out/NAME/FIT.json.gz`` and converts rpart's 1-based, named
fields into the 0-based indices of :mod:`quercus.rpart_records` (features by column index,
classes by level index, categorical sides as LEFT/RIGHT/ABSENT per declared level).
Self-contained: numpy, pandas and the standard library only.
"""

from __future__ import annotations

import csv
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).parent / "data" / "rpart"
LEFT, RIGHT, ABSENT = -1, 1, 0


@dataclass
class RpartData:
    name: str
    features: list
    target: str
    X: np.ndarray
    y: np.ndarray
    categorical: np.ndarray
    n_levels: np.ndarray
    levels: dict  # column -> declared levels
    classes: list
    folds: np.ndarray


def index() -> dict:
    return json.loads((ROOT / "out" / "index.json").read_text())["datasets"]


def all_fits() -> list[tuple[str, str]]:
    return [(name, fit) for name, info in index().items() for fit in info["fits"]]


def load_data(name: str) -> RpartData:
    schema = json.loads((ROOT / "data" / f"{name}.schema.json").read_text())
    levels: dict = {}
    with open(ROOT / "data" / f"{name}.levels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            levels.setdefault(row["column"], []).append((int(row["position"]), row["level"]))
    levels = {k: [lv for _, lv in sorted(v)] for k, v in levels.items()}
    target = schema["target"]
    with open(ROOT / "data" / f"{name}.csv", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = list(reader)
    features = [c for c in header if c != target]
    n = len(rows)
    X = np.full((n, len(features)), np.nan)
    categorical = np.array([c in levels for c in features])
    n_levels = np.array([len(levels.get(c, [])) for c in features], dtype=np.int64)
    col = {c: i for i, c in enumerate(header)}
    for j, c in enumerate(features):
        code = {lv: k for k, lv in enumerate(levels[c])} if categorical[j] else None
        for i, row in enumerate(rows):
            cell = row[col[c]]
            if cell == "":
                continue
            X[i, j] = code[cell] if code is not None else float(cell)
    classes = levels[target]
    y = np.array([classes.index(row[col[target]]) for row in rows], dtype=np.int64)
    with open(ROOT / "data" / f"{name}.folds.csv", newline="") as fh:
        folds = np.array([int(r["fold"]) for r in csv.DictReader(fh)], dtype=np.int64)
    return RpartData(name, features, target, X, y, categorical, n_levels, levels, classes,
                     folds)


def raw_fit(name: str, fit: str) -> dict:
    with gzip.open(ROOT / "out" / name / f"{fit}.json.gz", "rt") as fh:
        return json.load(fh)


def load_fit(name: str, fit: str, data: RpartData | None = None) -> dict:
    """The stored fit with features, classes and sides converted to 0-based indices."""
    data = load_data(name) if data is None else data
    raw = raw_fit(name, fit)
    feat = {c: j for j, c in enumerate(data.features)}
    fr = raw["frame"]
    frame = {
        "node": fr["node"],
        "feature": [-1 if v == "<leaf>" else feat[v] for v in fr["var"]],
        "n": fr["n"], "wt": fr["wt"], "dev": fr["dev"],
        "yval": [v - 1 for v in fr["yval"]],
        "complexity": fr["complexity"], "ncompete": fr["ncompete"],
        "nsurrogate": fr["nsurrogate"], "class_counts": fr["class_counts"],
        "class_probs": fr["class_probs"], "node_prob": fr["node_prob"],
    }
    splits = split_records(raw["splits"], feat, data.levels)
    importance = np.zeros(len(data.features))
    for v in raw["variable_importance"]:
        importance[feat[v["var"]]] = v["importance"]
    pred = raw["predictions"]
    # pruned (*_1se) fits store no training where; rpart's predict on the same rows gives it
    # (``n_where_train_ne_newdata`` is 0 on every unpruned fit)
    stored = any(v is not None for v in pred["where_train"])
    train_key = "where_train" if stored else "where_newdata"
    class_key = "class_train" if stored else "class_newdata"
    dropped = {i - 1 for i in raw["dropped_by_na_rpart"]}
    where = [-1 if (v is None or i in dropped) else v for i, v in enumerate(pred[train_key])]
    classes = [-1 if (c is None or i in dropped) else data.classes.index(c)
               for i, c in enumerate(pred[class_key])]
    return {
        "raw": raw, "frame": frame, "splits": splits, "importance": importance,
        "dropped": np.array([i - 1 for i in raw["dropped_by_na_rpart"]], dtype=np.int64),
        "n_used": raw["n_used"],
        "where_train": np.array(where, dtype=np.int64),
        "class_train": np.array(classes, dtype=np.int64),
        "cptable": raw["cptable"], "one_se": raw.get("one_se"), "xpred": raw.get("xpred"),
        "control": raw["control"], "parms": raw["parms"],
    }


def split_records(raw_splits: list, feat: dict, levels: dict) -> list[dict]:
    """rpart's split rows with features as column indices (``feat``: name -> index) and
    categorical sides as LEFT/RIGHT/ABSENT per declared level (``levels``: name -> list)."""
    splits = []
    for s in raw_splits:
        rec = {"node": s["node"], "role": s["role"], "feature": feat[s["var"]],
               "count": s["count"], "improve": s["improve"], "adj": s["adj"]}
        if "cut" in s:
            rec["cut"], rec["left"] = s["cut"], s["left"]
        else:
            lv = levels[s["var"]]
            sides = np.zeros(len(lv), dtype=np.int8)
            for key, code in (("left_levels", LEFT), ("right_levels", RIGHT),
                              ("absent_levels", ABSENT)):
                for level in s[key]:
                    sides[lv.index(level)] = code
            rec["sides"] = sides
        splits.append(rec)
    return splits


def fit_settings(ref: dict, n_classes: int) -> dict:
    """The stored fit's settings as ``RpartControl`` field values plus priors and loss.

    Returns ``{"control": {...}, "priors": array or None, "loss": array or None}``: priors
    only for the fits that set them (the others use rpart's observed shares), loss only when
    it is not 0/1.
    """
    c, p = ref["control"], ref["parms"]
    control = {"min_split": c["minsplit"], "min_bucket": c["minbucket"], "cp": c["cp"],
               "max_competitors": c["maxcompete"], "max_surrogates": c["maxsurrogate"],
               "use_surrogates": c["usesurrogate"], "surrogate_style": c["surrogatestyle"],
               "max_depth": c["maxdepth"],
               "criterion": "gini" if p["split"] == "gini" else "entropy"}
    priors = np.array(p["prior"]) if "prior" in ref["raw"]["fit"] else None
    loss = np.array(p["loss_rows_true_cols_predicted"], dtype=np.float64)
    if np.array_equal(loss, 1.0 - np.eye(n_classes)):
        loss = None
    return {"control": control, "priors": priors, "loss": loss}


def base_fit(fit: str) -> str:
    """The unpruned fit a ``*_1se`` fit was pruned from (itself otherwise)."""
    return fit.removesuffix("_1se")
