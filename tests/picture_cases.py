"""Fitted models of every algorithm for the picture, surface and report tests."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from quercus import DecisionTreeClassifier, datasets, read_arff

ARFF = Path(__file__).parent / "data" / "arff"
SCRIPT = "<script>alert(1)</script>"
AWKWARD_NAME = 'colour "name" \\ <b>&amp;'


def awkward_frame(n: int = 300, seed: int = 0):
    """Numeric and categorical columns with missing values, and names and categories that
    need escaping (quotes, backslashes, HTML)."""
    rng = np.random.default_rng(seed)
    categories = ["red", SCRIPT, 'say "hi"', "back\\slash", "a&b", "<i>x</i>"]
    X = pd.DataFrame({
        "num a": rng.normal(size=n),
        AWKWARD_NAME: rng.choice(categories, size=n).astype(object),
        "b": rng.integers(0, 10, size=n).astype(float),
    })
    y = np.where((X["num a"] > 0) ^ X[AWKWARD_NAME].isin(categories[:3]), "yes", "<no>")
    for column in X.columns:
        X.loc[rng.random(n) < 0.1, column] = np.nan
    return X, y


def _cart_iris():
    data = datasets.load("iris")
    return DecisionTreeClassifier(max_depth=4).fit(data.X, data.y), data.X, data.y


def _cart_awkward():
    X, y = awkward_frame()
    return DecisionTreeClassifier(max_depth=5).fit(X, y), X, y


def _c45(name, **params):
    def make():
        data = read_arff(ARFF / f"{name}.arff")
        model = DecisionTreeClassifier(algorithm="c45", **params).fit(data.X, data.y)
        return model, data.X, data.y
    return make


def _id3_tennis():
    data = datasets.load("play_tennis")
    return DecisionTreeClassifier(algorithm="id3").fit(data.X, data.y), data.X, data.y


def _interval(name):
    def make():
        data = datasets.load(name)
        model = DecisionTreeClassifier(algorithm="interval").fit(data.X, data.y)
        return model, data.X, data.y
    return make


CASES = {
    "cart-iris": _cart_iris,
    "cart-awkward-missing": _cart_awkward,
    "c45-labor": _c45("labor"),
    "c45-vote": _c45("vote"),
    "c45-labor-binary": _c45("labor", binary_categorical_splits=True),
    "id3-play-tennis": _id3_tennis,
    "interval-flowers": _interval("flowers"),
    "interval-iris": _interval("iris"),
}


@cache
def fitted(name: str):
    """``(model, X, y)`` of a case, fitted once per test session."""
    return CASES[name]()
