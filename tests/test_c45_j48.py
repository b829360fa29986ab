"""C4.5 and ID3 against Weka: the same tree text and the same prediction for every row.

The fixtures in tests/data/j48/ were produced by Weka 3.6.14's J48 and Id3 (see
tools/make_j48_fixtures.py and tests/data/j48/MANIFEST.json); no Java is needed here.
Weka prints probabilities with three decimals, rounded half up (0.0625 -> 0.063), so they
are compared to 3 decimals rounded the same way.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus.export.j48 import tree_to_id3, tree_to_j48

DATA = Path(__file__).parent / "data"
J48_SETS = ["iris", "weather.nominal", "weather.numeric", "contact-lenses", "labor", "vote",
            "breast-cancer", "diabetes", "glass", "ionosphere", "soybean", "credit-g",
            "segment-challenge"]
OPTION_SETS = ["iris", "weather.numeric", "labor", "vote", "breast-cancer", "diabetes",
               "soybean"]
# J48 option -> Quercus parameters
VARIANTS = {
    "J48": {},
    "J48-U": {"pruning": False},
    "J48-S": {"subtree_raising": False},
    "J48-M5": {"min_samples_leaf": 5},
    "J48-C0.1": {"confidence": 0.1},
    "J48-A": {"laplace": True},
    "J48-B": {"binary_categorical_splits": True},
    "J48-R": {"reduced_error_pruning": True},
}


def fit(name, **params):
    X, y, _ = quercus.read_arff(DATA / "arff" / f"{name}.arff")
    model = quercus.DecisionTreeClassifier(algorithm=params.pop("algorithm", "c45"), **params)
    return model.fit(X, y), X, y


def check_predictions(model, X, fixture):
    expected = pd.read_csv(fixture, keep_default_na=False, dtype=str)
    assert len(expected) == len(X)
    predicted = model.predict(X)
    np.testing.assert_array_equal(predicted.astype(str), expected["predicted"].to_numpy())
    proba = model.predict_proba(X)
    weka = expected[[str(c) for c in model.classes_]].astype(float).to_numpy()
    np.testing.assert_allclose(np.floor(proba * 1000 + 0.5) / 1000, weka, atol=1e-9)


@pytest.mark.parametrize("name", J48_SETS)
def test_same_tree_and_predictions_as_j48(name):
    model, X, _ = fit(name)
    assert tree_to_j48(model) == (DATA / "j48" / f"{name}.J48.txt").read_text()
    check_predictions(model, X, DATA / "j48" / f"{name}.J48.predictions.csv")


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "J48"])
@pytest.mark.parametrize("name", OPTION_SETS)
def test_j48_options(name, variant):
    model, X, _ = fit(name, **VARIANTS[variant])
    assert tree_to_j48(model) == (DATA / "j48" / f"{name}.{variant}.txt").read_text()
    check_predictions(model, X, DATA / "j48" / f"{name}.{variant}.predictions.csv")


@pytest.mark.parametrize("name", ["weather.nominal", "contact-lenses"])
def test_same_tree_as_weka_id3(name):
    model, X, _ = fit(name, algorithm="id3")
    assert tree_to_id3(model) == (DATA / "j48" / f"{name}.Id3.txt").read_text()
    check_predictions(model, X, DATA / "j48" / f"{name}.Id3.predictions.csv")
