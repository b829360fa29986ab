"""Loading the rpart 4.1.19 regression ("anova") fixtures of tests/data/rpart_anova.

``load_data(name)`` reads ``data/NAME.csv`` (missing = empty cell) with the declared level
order of ``NAME.levels.csv``, as the arrays ``fit_rpart_anova`` takes and as a DataFrame
(categorical columns in declared order) for the estimator; ``load_fit(name, fit)`` reads
``out/NAME/FIT.json.gz`` with features as 0-based column indices and categorical sides as
LEFT/RIGHT/ABSENT per declared level (``rpart_fixtures.split_records``). Made by
``tools/make_rpart_anova_fixtures.R``.
"""

from __future__ import annotations

import csv
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from rpart_fixtures import split_records

ROOT = Path(__file__).parent / "data" / "rpart_anova"


@dataclass
class AnovaData:
    name: str
    features: list
    target: str
    X: np.ndarray
    y: np.ndarray
    categorical: np.ndarray
    n_levels: np.ndarray
    levels: dict
    folds: np.ndarray
    frame: pd.DataFrame  # the features, categorical columns as pandas categories


def index() -> dict:
    return json.loads((ROOT / "out" / "index.json").read_text())["datasets"]


def all_fits() -> list[tuple[str, str]]:
    return [(name, fit) for name, info in index().items() for fit in info["fits"]]


def load_data(name: str) -> AnovaData:
    target = json.loads((ROOT / "data" / f"{name}.schema.json").read_text())["target"]
    levels: dict = {}
    with open(ROOT / "data" / f"{name}.levels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            levels.setdefault(row["column"], []).append((int(row["position"]), row["level"]))
    levels = {k: [lv for _, lv in sorted(v)] for k, v in levels.items()}
    with open(ROOT / "data" / f"{name}.csv", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = list(reader)
    features = [c for c in header if c != target]
    col = {c: i for i, c in enumerate(header)}
    X = np.full((len(rows), len(features)), np.nan)
    columns = {}
    for j, c in enumerate(features):
        cells = [row[col[c]] for row in rows]
        if c in levels:
            X[:, j] = [levels[c].index(v) if v != "" else np.nan for v in cells]
            columns[c] = pd.Categorical([v if v != "" else None for v in cells],
                                        categories=levels[c])
        else:
            X[:, j] = [float(v) if v != "" else np.nan for v in cells]
            columns[c] = X[:, j].copy()
    y = np.array([float(row[col[target]]) if row[col[target]] != "" else np.nan
                  for row in rows])
    with open(ROOT / "data" / f"{name}.folds.csv", newline="") as fh:
        folds = np.array([int(r["fold"]) for r in csv.DictReader(fh)], dtype=np.int64)
    categorical = np.array([c in levels for c in features])
    n_levels = np.array([len(levels.get(c, [])) for c in features], dtype=np.int64)
    return AnovaData(name, features, target, X, y, categorical, n_levels, levels, folds,
                     pd.DataFrame(columns))


def load_fit(name: str, fit: str, data: AnovaData) -> dict:
    """The stored fit, features as column indices (-1 for a leaf)."""
    with gzip.open(ROOT / "out" / name / f"{fit}.json.gz", "rt") as fh:
        raw = json.load(fh)
    feat = {c: j for j, c in enumerate(data.features)}
    frame = dict(raw["frame"])
    frame["feature"] = [-1 if v == "<leaf>" else feat[v] for v in frame["var"]]
    splits = split_records(raw["splits"], feat, data.levels)
    importance = np.zeros(len(data.features))
    for v in raw["variable_importance"]:
        importance[feat[v["var"]]] = v["importance"]
    pred = raw["predictions"]
    # a pruned fit stores no training where; rpart's predict on the same rows gives it
    key = "where_train" if any(v is not None for v in pred["where_train"]) else "where_newdata"
    dropped = {i - 1 for i in raw["dropped_by_na_rpart"]}
    where = [-1 if (v is None or i in dropped) else v for i, v in enumerate(pred[key])]
    text = (ROOT / "out" / name / f"{fit}.txt").read_text()
    return {"raw": raw, "frame": frame, "splits": splits, "importance": importance,
            "where_train": np.array(where, dtype=np.int64),
            "dropped": np.array(sorted(dropped), dtype=np.int64),
            "print": text.split("== print(fit)\n")[1].split("\n\n== printcp(fit)")[0],
            "printcp": text.split("== printcp(fit)\n")[1].split("\n\n== summary(fit)")[0]}


def control_of(ref: dict) -> dict:
    """The stored fit's rpart.control as ``RpartControl`` field values."""
    c = ref["raw"]["control"]
    return {"min_split": c["minsplit"], "min_bucket": c["minbucket"], "cp": c["cp"],
            "max_competitors": c["maxcompete"], "max_surrogates": c["maxsurrogate"],
            "use_surrogates": c["usesurrogate"], "surrogate_style": c["surrogatestyle"],
            "max_depth": c["maxdepth"]}


def estimator_params(ref: dict) -> dict:
    """The same settings as ``DecisionTreeRegressor`` parameters (without ``xval``)."""
    c = control_of(ref)
    return {"algorithm": "rpart", "min_samples_split": c["min_split"],
            "min_samples_leaf": c["min_bucket"], "cp": c["cp"],
            "max_competitors": c["max_competitors"], "max_surrogates": c["max_surrogates"],
            "use_surrogates": c["use_surrogates"], "surrogate_style": c["surrogate_style"],
            "max_depth": c["max_depth"]}


def base_fit(fit: str) -> str:
    """The unpruned fit a ``*_1se`` fit was pruned from (itself otherwise)."""
    return fit.removesuffix("_1se")
