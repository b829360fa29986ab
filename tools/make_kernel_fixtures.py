"""Write the fixtures of tests/test_kernel_fixtures.py: model files and predictions of a
broad sample of fits, made by the build that runs this script.

    python tools/make_kernel_fixtures.py            # every case
    python tools/make_kernel_fixtures.py --cases cart_credit rpart_vote

The first set was written by the last numba build (commit b87f659, ``QUERCUS_KERNELS=
compiled``) before the kernels moved to Cython (issue 39); the test asserts that every
later build writes the same model files (apart from the Quercus version) and makes the
same predictions and probabilities, bit for bit. Fixtures are kept: an existing case is
only rewritten with ``--force``.

Each case is one learner on one data set: every learner, classifier and regressor, on
numeric, categorical and missing data, with the exact and the hist splitter, large
enough for the parallel kernels in some cases, and on a Dask cluster.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
ARFF = ROOT / "tests" / "data" / "arff"
OUT = ROOT / "tests" / "data" / "kernel_fixtures"

C = "DecisionTreeClassifier"
R = "DecisionTreeRegressor"
# case -> (data, estimator, parameters, on Dask?)
CASES = {
    "cart_credit": ("credit-g", C, {"max_depth": 6}, False),
    "cart_credit_balanced": ("credit-g", C, {"class_weight": "balanced", "ccp_alpha": 0.002},
                             False),
    "cart_vote_entropy": ("vote", C, {"criterion": "entropy"}, False),
    "cart_soybean": ("soybean", C, {"min_samples_leaf": 2}, False),
    "cart_glass_random": ("glass", C, {"splitter": "random", "random_state": 3}, False),
    "cart_diabetes_features": ("diabetes", C, {"max_features": 3, "random_state": 5,
                                               "max_depth": 7}, False),
    "cart_diabetes_monotonic": ("diabetes", C, {"monotonic_cst": [0, 1, 0, 0, 0, 1, 0, 0],
                                                "max_depth": 5}, False),
    "cart_big_exact": ("big", C, {"max_depth": 9}, False),
    "cart_big_hist": ("big", C, {"splitter": "hist", "max_depth": 10}, False),
    "cart_credit_hist": ("credit-g", C, {"splitter": "hist", "max_bins": 32}, False),
    "cart_labor_hist": ("labor", C, {"splitter": "hist", "max_bins": 8}, False),
    "cart_vote_leaves": ("vote", C, {"max_leaf_nodes": 6}, False),
    "id3_breast": ("breast-cancer-complete", C, {"algorithm": "id3"}, False),
    "id3_vote": ("vote-complete", C, {"algorithm": "id3"}, False),
    "c45_labor": ("labor", C, {"algorithm": "c45"}, False),
    "c45_soybean": ("soybean", C, {"algorithm": "c45", "laplace": True}, False),
    "c45_credit": ("credit-g", C, {"algorithm": "c45"}, False),
    "c45_credit_binary": ("credit-g", C, {"algorithm": "c45",
                                          "binary_categorical_splits": True}, False),
    "c45_vote_rep": ("vote", C, {"algorithm": "c45", "reduced_error_pruning": True}, False),
    "c45_big": ("big", C, {"algorithm": "c45"}, False),
    "interval_iris": ("iris", C, {"algorithm": "interval"}, False),
    "interval_diabetes": ("diabetes", C, {"algorithm": "interval"}, False),
    "optimal_diabetes_2": ("diabetes", C, {"algorithm": "optimal", "max_depth": 2}, False),
    "optimal_diabetes_3": ("diabetes", C, {"algorithm": "optimal", "max_depth": 3}, False),
    "optimal_vote_3": ("vote", C, {"algorithm": "optimal", "max_depth": 3}, False),
    "optimal_credit_2": ("credit-g", C, {"algorithm": "optimal", "max_depth": 2}, False),
    "rpart_credit": ("credit-g", C, {"algorithm": "rpart"}, False),
    "rpart_vote": ("vote", C, {"algorithm": "rpart", "cp": 0.005}, False),
    "rpart_labor_loss": ("labor", C, {"algorithm": "rpart", "loss": [[0, 1], [3, 0]],
                                      "prune": "1se"}, False),
    "auto_iris": ("iris", C, {"algorithm": "auto"}, False),
    "auto_labor": ("labor", C, {"algorithm": "auto"}, False),
    "reg_credit": ("credit-reg", R, {"max_depth": 6}, False),
    "reg_credit_hist": ("credit-reg", R, {"splitter": "hist", "max_depth": 6}, False),
    "reg_credit_mae": ("credit-reg", R, {"criterion": "absolute_error", "max_depth": 5}, False),
    "reg_credit_poisson": ("credit-reg", R, {"criterion": "poisson", "max_depth": 5}, False),
    "reg_credit_friedman": ("credit-reg", R, {"criterion": "friedman_mse",
                                              "min_samples_leaf": 5}, False),
    "reg_big": ("big-reg", R, {"max_depth": 8}, False),
    "reg_big_hist": ("big-reg", R, {"splitter": "hist", "max_depth": 10}, False),
    "reg_rpart_credit": ("credit-reg", R, {"algorithm": "rpart"}, False),
    "dask_big_hist": ("big", C, {"splitter": "hist", "max_depth": 8}, True),
    "dask_credit_hist": ("credit-g", C, {"splitter": "hist", "max_depth": 6}, True),
    "dask_reg_hist": ("big-reg", R, {"splitter": "hist", "max_depth": 8}, True),
}


def _big(regression: bool) -> tuple[pd.DataFrame, pd.Series]:
    """20,000 rows: 9 numeric features (one with ties, two with missing values) and one
    categorical with 12 levels; large enough for the kernels' threads."""
    rng = np.random.default_rng(39)
    n = 20_000
    X = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(8)})
    X["ties"] = np.round(rng.uniform(0, 10, n))
    X.loc[rng.random(n) < 0.1, "x2"] = np.nan
    X.loc[rng.random(n) < 0.02, "x5"] = np.nan
    levels = [f"c{k}" for k in range(12)]
    X["cat"] = pd.Categorical(rng.choice(levels, n), categories=levels)
    code = X["cat"].cat.codes.to_numpy()
    score = (X["x0"] + 0.5 * X["x1"] ** 2 - X["x2"].fillna(0) + 0.3 * X["ties"]
             + (code % 3) - 1.0 + rng.normal(scale=0.7, size=n))
    if regression:
        return X, pd.Series(score.to_numpy(), name="y")
    labels = np.where(score > 1.5, "high", np.where(score > 0.0, "mid", "low"))
    return X, pd.Series(labels, name="y")


def load(data: str) -> tuple[pd.DataFrame, pd.Series]:
    """The rows of one case's data set."""
    import quercus

    if data in ("big", "big-reg"):
        return _big(data == "big-reg")
    if data == "credit-reg":  # credit amount from the other columns, some cells missing
        X, y, _ = quercus.read_arff(ARFF / "credit-g.arff")
        target = X.pop("credit_amount").astype(float)
        rng = np.random.default_rng(7)
        X = X.astype(object).where(rng.random(X.shape) >= 0.05, None)
        X = X.assign(**{c: pd.to_numeric(X[c]) for c in X.columns
                        if c in ("duration", "age", "installment_commitment")})
        for c in X.columns:
            if X[c].dtype == object:
                X[c] = X[c].astype("category")
        return X, pd.Series(target.to_numpy(), name="credit_amount")
    complete = data.endswith("-complete")
    X, y, _ = quercus.read_arff(ARFF / f"{data.removesuffix('-complete')}.arff")
    if complete:
        keep = X.notna().all(axis=1).to_numpy()
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
    return X, y


def query_rows(X: pd.DataFrame) -> pd.DataFrame:
    """At most 400 training rows, then variants of the first 60: every third cell missing
    and numbers scaled by 1.13 (some leave the training ranges)."""
    step = -(-len(X) // 400)
    rows = X.iloc[::step].reset_index(drop=True)
    head = rows.iloc[:60].copy()
    holes = head.copy()
    for j, c in enumerate(holes.columns):
        if j % 3 == 1 and isinstance(X[c].dtype, pd.CategoricalDtype):
            holes[c] = pd.Categorical([None] * len(holes), categories=X[c].cat.categories)
        elif j % 3 == 1:
            holes[c] = np.nan
    scaled = head.copy()
    for c in scaled.columns:
        if pd.api.types.is_float_dtype(scaled[c]):
            scaled[c] = scaled[c] * 1.13
    return pd.concat([rows, holes, scaled], ignore_index=True)


def fit(case: str, client=None):
    """The fitted model of ``case`` and the rows it predicts for."""
    import quercus

    data, estimator, params, on_dask = CASES[case]
    X, y = load(data)
    model = getattr(quercus, estimator)(**params)
    if on_dask:
        import dask.dataframe as dd

        model.fit(dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3))
    else:
        model.fit(X, y)
    return model, query_rows(X)


def _plain(value):
    if hasattr(value, "item"):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def outputs(model, rows: pd.DataFrame) -> dict:
    """Predictions (and class probabilities) for ``rows``, as JSON values."""
    out = {"predictions": [_plain(v) for v in model.predict(rows)]}
    if hasattr(model, "predict_proba"):
        out["probabilities"] = model.predict_proba(rows).tolist()
    return out


def _untimed(value):
    """``value`` without the timings in it (keys ending in ``_seconds``)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("_seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def model_document(model, path: Path) -> dict:
    """The model file as JSON, without the version of Quercus that wrote it and without
    timings (``auto``'s record of its candidates' fit times)."""
    model.save(path)
    document = json.loads(path.read_text())
    document.pop("quercus_version", None)
    return _untimed(document)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--force", action="store_true", help="replace existing fixtures")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    OUT.mkdir(parents=True, exist_ok=True)
    client = None
    if any(CASES[case][3] for case in args.cases):
        import distributed

        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           processes=True, dashboard_address=None)
        client = distributed.Client(cluster)
    for case in args.cases:
        target = OUT / f"{case}.json"
        if target.exists() and not args.force:
            print("kept", target)
            continue
        model, rows = fit(case, client)
        document = model_document(model, OUT / f"{case}.model.tmp")
        (OUT / f"{case}.model.tmp").unlink()
        record = {"written_by": commit, "case": case, "model": document,
                  **outputs(model, rows)}
        target.write_text(json.dumps(record, sort_keys=True) + "\n")
        print("wrote", target, file=sys.stderr)
    if client is not None:
        client.close()


if __name__ == "__main__":
    main()
