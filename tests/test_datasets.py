"""The bundled datasets, checked against values typed from the seed texts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from quercus import datasets
from quercus.data import Codebook, infer_schema
from quercus.errors import DataError

# Mitchell's table as printed in seed 002 (the Day column omitted).
PLAY_TENNIS = [
    ("Sunny", "Hot", "High", "Weak", "No"),
    ("Sunny", "Hot", "High", "Strong", "No"),
    ("Overcast", "Hot", "High", "Weak", "Yes"),
    ("Rain", "Mild", "High", "Weak", "Yes"),
    ("Rain", "Cool", "Normal", "Weak", "Yes"),
    ("Rain", "Cool", "Normal", "Strong", "No"),
    ("Overcast", "Cool", "Normal", "Strong", "Yes"),
    ("Sunny", "Mild", "High", "Weak", "No"),
    ("Sunny", "Cool", "Normal", "Weak", "Yes"),
    ("Rain", "Mild", "Normal", "Weak", "Yes"),
    ("Sunny", "Mild", "Normal", "Strong", "Yes"),
    ("Overcast", "Mild", "High", "Strong", "Yes"),
    ("Overcast", "Hot", "Normal", "Weak", "Yes"),
    ("Rain", "Mild", "High", "Strong", "No"),
]

# Esmeir & Markovitch's xor example as printed in seed 002.
XOR_TEXT = "1 0 0 1 + 0 1 0 0 + 0 0 0 0 - 1 1 0 0 - 0 1 1 1 + 0 0 1 1 - 1 0 1 1 +"
XOR = XOR_TEXT.split()

# The demo data of seed 000 (dataX, dataY).
SEED000_X = [
    [2.0, 10.0, 21.0, 25.0],
    [4.0, 16.0, 19.0, 27.0],
    [6.0, 14.0, 17.0, 29.0],
    [8.0, 12.0, 18.0, 31.0],
    [7.0, 15.0, 20.0, 26.0],
    [3.0, 13.0, 22.0, 28.0],
    [2.0, 11.0, 23.0, 30.0],
    [1.0, 9.0, 24.0, 32.0],
]
SEED000_Y = [0, 1, 2, 0, 1, 2, 0, 1]


def test_names_and_unknown_name() -> None:
    assert datasets.names() == ["airquality", "flowers", "iris", "penguins", "play_tennis",
                                "seed000", "xor", "yinyang"]
    with pytest.raises(DataError) as exc:
        datasets.load("wine")
    assert "'wine'" in str(exc.value) and "iris, penguins, play_tennis, seed000, xor" in str(exc.value)


def test_iris_equals_scikit_learn() -> None:
    from sklearn.datasets import load_iris

    ref = load_iris()
    X, y, schema = datasets.load("iris")
    assert list(X.columns) == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    assert X.shape == (150, 4) and (X.dtypes == np.float64).all()
    np.testing.assert_array_equal(X.to_numpy(), ref.data)
    assert schema.target == "species" and y.name == "species"
    assert schema.classes.values == ("setosa", "versicolor", "virginica")
    assert list(ref.target_names) == list(schema.classes.values)
    np.testing.assert_array_equal(schema.encode_labels(y), ref.target)
    assert not schema.categorical_mask.any()


def test_play_tennis() -> None:
    X, y, schema = datasets.load("play_tennis")
    assert list(X.columns) == ["Outlook", "Temperature", "Humidity", "Wind"]
    rows = [tuple(r) + (label,) for r, label in zip(X.astype(object).to_numpy().tolist(), y)]
    assert rows == PLAY_TENNIS
    assert schema.target == "PlayTennis"
    assert schema.categorical_mask.all()
    books = [f.codebook.values for f in schema.features]
    assert books == [
        ("Overcast", "Rain", "Sunny"),
        ("Cool", "Hot", "Mild"),
        ("High", "Normal"),
        ("Strong", "Weak"),
    ]
    assert schema.classes == Codebook(("No", "Yes"))
    assert (schema.encode_labels(y) == 1).sum() == 9
    assert schema == infer_schema(X, y, target="PlayTennis")


def test_xor() -> None:
    X, y, schema = datasets.load("xor")
    expected = [XOR[i : i + 5] for i in range(0, len(XOR), 5)]
    assert list(X.columns) == ["A1", "A2", "A3", "A4"] and len(expected) == 7
    rows = [list(r) + [label] for r, label in zip(X.astype(object).to_numpy().tolist(), y)]
    assert rows == expected
    assert schema.categorical_mask.all()
    assert all(f.codebook.values == ("0", "1") for f in schema.features)
    assert schema.target == "label" and set(schema.classes.values) == {"+", "-"}
    encoded = schema.encode(X)
    np.testing.assert_array_equal(encoded, [[int(v) for v in row[:4]] for row in expected])


def test_seed000() -> None:
    X, y, schema = datasets.load("seed000")
    assert list(X.columns) == ["x0", "x1", "x2", "x3"]
    np.testing.assert_array_equal(X.to_numpy(), SEED000_X)
    assert y.dtype == np.int64 and y.tolist() == SEED000_Y and y.name == "y"
    assert schema.target == "y" and schema.classes.values == (0, 1, 2)
    assert not schema.categorical_mask.any()
    assert schema.decode_labels(schema.encode_labels(y)).tolist() == SEED000_Y
    assert isinstance(X, pd.DataFrame)
