"""Test helper: R's stored rpart fits (tests/data/rpart) as ``RpartFit`` records and data.

Builds the records the rpart learner hands over straight from R's JSON (frame, split table,
cp table, importance), so the readers of a fit (flat tree with surrogates, printing, model
files, CLI) are checked against R's real outputs without the learner.
"""

from __future__ import annotations

import csv
import gzip
import json
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from quercus.data.schema import infer_schema
from quercus.pruning.cp_table import make_cp_table
from quercus.rpart_records import ABSENT, LEFT, RIGHT, RpartFit, SplitRecord

ROOT = Path(__file__).parent / "data" / "rpart"


def all_fits() -> list[tuple[str, str]]:
    """(data set, fit name) of every stored fit."""
    index = json.loads((ROOT / "out" / "index.json").read_text())
    return [(name, fit) for name, entry in index["datasets"].items() for fit in entry["fits"]]


@cache
def load_json(dataset: str, fit: str) -> dict:
    with gzip.open(ROOT / "out" / dataset / f"{fit}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def fit_text(dataset: str, fit: str) -> str:
    return (ROOT / "out" / dataset / f"{fit}.txt").read_text(encoding="utf-8")


def levels(dataset: str) -> dict[str, list[str]]:
    """Declared levels of every factor column, in R's order."""
    out: dict[str, list[str]] = {}
    with open(ROOT / "data" / f"{dataset}.levels.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            out.setdefault(row["column"], []).append(row["level"])
    return out


@cache
def frame_and_target(dataset: str) -> tuple[pd.DataFrame, pd.Series]:
    """The data as rpart saw it: factors as pandas categoricals with R's declared levels."""
    schema = json.loads((ROOT / "data" / f"{dataset}.schema.json").read_text())
    table = pd.read_csv(ROOT / "data" / f"{dataset}.csv", keep_default_na=False,
                        na_values=[""], dtype=str)
    declared = levels(dataset)
    columns = {}
    for column in schema["columns"]:
        name = column["name"]
        if column["type"] == "nominal":
            columns[name] = pd.Categorical(table[name], categories=declared[name])
        else:
            columns[name] = pd.to_numeric(table[name])
    frame = pd.DataFrame(columns)
    target = schema["target"]
    return frame.drop(columns=[target]), frame[target]


def schema_of(dataset: str):
    X, y = frame_and_target(dataset)
    return infer_schema(X, y)


def _record(split: dict, features: list[str], declared: dict) -> SplitRecord:
    feature = features.index(split["var"])
    common = {"node": int(split["node"]), "role": split["role"], "feature": feature,
              "count": int(split["count"]), "improve": float(split["improve"]),
              "adj": None if split["adj"] is None else float(split["adj"])}
    if "cut" in split:
        return SplitRecord(**common, cut=float(split["cut"]), left=split["left"])
    names = declared[split["var"]]
    sides = np.full(len(names), ABSENT, dtype=np.int8)
    for level in split["left_levels"]:
        sides[names.index(level)] = LEFT
    for level in split["right_levels"]:
        sides[names.index(level)] = RIGHT
    return SplitRecord(**common, sides=sides)


def rpart_fit(dataset: str, fit: str) -> RpartFit:
    """The stored R fit as the records the rpart learner returns (0-based indices)."""
    d = load_json(dataset, fit)
    features = list(d["features"])
    declared = levels(dataset)
    f = d["frame"]
    frame = {
        "node": [int(v) for v in f["node"]],
        "feature": [-1 if v == "<leaf>" else features.index(v) for v in f["var"]],
        "n": [int(v) for v in f["n"]], "wt": [float(v) for v in f["wt"]],
        "dev": [float(v) for v in f["dev"]], "yval": [int(v) - 1 for v in f["yval"]],
        "complexity": [float(v) for v in f["complexity"]],
        "ncompete": [int(v) for v in f["ncompete"]],
        "nsurrogate": [int(v) for v in f["nsurrogate"]],
        "class_counts": f["class_counts"], "class_probs": f["class_probs"],
        "node_prob": [float(v) for v in f["node_prob"]],
    }
    importance = np.zeros(len(features))
    for entry in d["variable_importance"]:
        importance[features.index(entry["var"])] = entry["importance"]
    cp = d["cptable"]
    table = make_cp_table(cp["CP"], cp["nsplit"], cp["rel_error"], cp.get("xerror"),
                          cp.get("xstd"))
    where = np.array([-1 if v is None else v for v in d["predictions"]["where_train"]],
                     dtype=np.int64)
    n_classes = len(d["class_levels"])
    return RpartFit(frame=frame, splits=[_record(s, features, declared) for s in d["splits"]],
                    importance=importance, where=where, cp_table=table,
                    root_risk=float(d["root_dev"]), n_classes=n_classes,
                    priors=np.asarray(d["parms"]["prior"], dtype=np.float64),
                    loss=np.asarray(d["parms"]["loss_rows_true_cols_predicted"],
                                    dtype=np.float64),
                    control=d["control"],
                    dropped=np.asarray(d["dropped_by_na_rpart"], dtype=np.int64) - 1)


def model_from_fixture(dataset: str, fit: str, use_surrogates: int | None = None):
    """A fitted ``DecisionTreeClassifier(algorithm="rpart")`` from the stored R fit."""
    from quercus import DecisionTreeClassifier
    from quercus.growing.rpart_flat import attach_rpart_fit

    d = load_json(dataset, fit)
    if use_surrogates is None:
        use_surrogates = int(d["control"]["usesurrogate"])
    model = DecisionTreeClassifier()
    model.algorithm = "rpart"  # the estimator's rpart parameters are wired by the lead
    return attach_rpart_fit(model, rpart_fit(dataset, fit), schema_of(dataset),
                            use_surrogates=use_surrogates)
