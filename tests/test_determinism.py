"""The same data and parameters give a byte-identical model file: twice in one process, in
another process (another string hash seed), with one OpenMP thread or all of them, and from
the exact and the histogram CART splitters where docs/cart.md promises the same tree.

Run as a script (``python tests/test_determinism.py OUT_DIR``) it fits every case of
``CASES`` and saves each model to ``OUT_DIR/<case>.json``: the tests run it in subprocesses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

HERE = Path(__file__).resolve().parent
ARFF = HERE / "data" / "arff"


def _arff(name: str, *, complete: bool = False):
    import quercus

    X, y, _ = quercus.read_arff(ARFF / f"{name}.arff")
    if complete:  # ID3 learns from rows without missing values only
        keep = X.notna().all(axis=1).to_numpy()
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
    return X, y


def _large(n_rows: int = 20_000, decimals: int = 2):
    """Numbers with ties and missing values, one categorical column: enough rows that the
    exact-CART and C4.5 kernels take their parallel paths (>= 50,000 rows x features) and
    C4.5 grows its frontier as parallel tasks."""
    rng = np.random.default_rng(7)
    numeric = np.round(rng.normal(size=(n_rows, 9)), decimals)
    numeric[rng.random(numeric.shape) < 0.03] = np.nan
    colour = rng.choice(["red", "green", "blue", "grey", "pink"], n_rows)
    score = np.nan_to_num(numeric[:, 0]) - np.nan_to_num(numeric[:, 3]) * (colour == "red")
    y = np.where(score + rng.normal(scale=0.7, size=n_rows) > 0.1, "yes", "no")
    X = pd.DataFrame(numeric, columns=[f"n{j}" for j in range(9)])
    X["colour"] = pd.Categorical(colour)
    return X, y


DATA = {
    "credit-g": lambda: _arff("credit-g"),
    "labor": lambda: _arff("labor"),
    "vote": lambda: _arff("vote"),
    "breast-cancer-complete": lambda: _arff("breast-cancer", complete=True),
    "iris": lambda: _arff("iris"),
    "large": _large,
}

# case -> (data set, estimator parameters)
CASES = {
    "cart": ("credit-g", {"algorithm": "cart"}),
    "cart_missing": ("vote", {"algorithm": "cart", "criterion": "entropy"}),
    "cart_hist": ("credit-g", {"algorithm": "cart", "splitter": "hist", "max_bins": 16}),
    "id3": ("breast-cancer-complete", {"algorithm": "id3", "criterion": "gain_ratio"}),
    "c45": ("labor", {"algorithm": "c45"}),
    "c45_vote": ("vote", {"algorithm": "c45", "binary_categorical_splits": True}),
    "interval": ("iris", {"algorithm": "interval"}),
    "interval_lookahead": ("iris", {"algorithm": "interval", "lookahead": True,
                                    "max_depth": 4}),
    "large_cart": ("large", {"algorithm": "cart", "max_depth": 14}),
    "large_hist": ("large", {"algorithm": "cart", "splitter": "hist"}),
    "large_c45": ("large", {"algorithm": "c45"}),
}
LARGE = [case for case, (data, _) in CASES.items() if data == "large"]


def write_models(directory: Path, cases=CASES) -> None:
    """Fit every case and save its model to ``directory/<case>.json``."""
    from quercus import DecisionTreeClassifier

    loaded = {}
    for case, (data, params) in cases.items():
        if data not in loaded:
            loaded[data] = DATA[data]()
        X, y = loaded[data]
        DecisionTreeClassifier(**params).fit(X, y).save(directory / f"{case}.json")


def _in_subprocess(directory: Path, **env) -> dict[str, bytes]:
    directory.mkdir()
    result = subprocess.run([sys.executable, __file__, str(directory)], check=False,
                            capture_output=True, text=True, env={**os.environ, **env},
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return {case: (directory / f"{case}.json").read_bytes() for case in CASES}


@pytest.fixture(scope="module")
def here(tmp_path_factory) -> dict[str, bytes]:
    """The model files of every case, written by this test process."""
    directory = tmp_path_factory.mktemp("here")
    write_models(directory)
    return {case: (directory / f"{case}.json").read_bytes() for case in CASES}


def _differing(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    return [case for case in CASES if a[case] != b[case]]


def test_two_fits_in_one_process_write_the_same_bytes(here, tmp_path):
    write_models(tmp_path)
    again = {case: (tmp_path / f"{case}.json").read_bytes() for case in CASES}
    assert _differing(here, again) == []


def test_another_process_writes_the_same_bytes(here, tmp_path):
    """Another interpreter with another string hash seed (set and dict orders of strings
    change with it) and all of OpenMP's threads."""
    other = _in_subprocess(tmp_path / "other", PYTHONHASHSEED="12345")
    assert _differing(here, other) == []


def test_one_thread_writes_the_same_bytes_as_all_threads(here, tmp_path):
    from quercus._kernels._openmp import max_threads

    if max_threads() < 2:
        pytest.skip("one CPU: there is no parallel path to compare with")
    single = _in_subprocess(tmp_path / "single", OMP_NUM_THREADS="1",
                            PYTHONHASHSEED="777")
    assert _differing(here, single) == []


def test_large_cases_take_the_parallel_paths():
    """The thread test means something only if the large cases cross the thresholds above
    which the kernels spread work over threads. The histogram splitter's threads start at
    2M rows x features, too many for this test; tests/test_hist.py compares its threaded
    and single-threaded fills with the threshold lowered."""
    from quercus._kernels._c45 import PARALLEL_MIN_WORK as C45_MIN_WORK

    X, _ = _large()
    n_numeric = X.shape[1] - 1
    assert X.shape[0] * n_numeric >= C45_MIN_WORK * 3
    assert set(LARGE) == {"large_cart", "large_hist", "large_c45"}


def test_exact_and_hist_write_the_same_model_when_every_value_has_its_bin(tmp_path):
    """docs/cart.md: with fewer distinct values than max_bins in every numeric feature,
    each value gets its own bin with edges at the midpoints, so the histogram splitter
    finds the exact splitter's tree (thresholds included). Only the ``splitter``
    parameter may differ between the two files."""
    import json

    from quercus import DecisionTreeClassifier

    credit_X, credit_y = DATA["credit-g"]()
    cases = [((credit_X.drop(columns="credit_amount"), credit_y), {}),
             (DATA["vote"](), {"criterion": "entropy"}),
             (_large(4000, decimals=1), {"max_depth": 8})]
    for (X, y), params in cases:
        numeric = X.select_dtypes("number")
        assert (numeric.nunique() < 255).all()
        documents = []
        for splitter in ("exact", "hist"):
            path = tmp_path / f"{splitter}.json"
            DecisionTreeClassifier(splitter=splitter, **params).fit(X, y).save(path)
            document = json.loads(path.read_text())
            assert document["params"].pop("splitter") == splitter
            documents.append(document)
        assert documents[0]["tree"]["n_classes"] > 1
        assert len(documents[0]["tree"]["kind"]) > 10
        assert documents[0] == documents[1]


if __name__ == "__main__":
    write_models(Path(sys.argv[1]))
