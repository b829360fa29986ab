"""read_csv: type inference, overrides, missing values, schema mode and error messages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus.data import Codebook, Dataset, infer_schema, read_csv
from quercus.errors import DataError


def write(tmp_path: Path, text: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path, **kw) -> str:
    with pytest.raises(DataError) as exc:
        read_csv(path, **kw)
    message = str(exc.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


WEATHER = """outlook,temp,humidity,windy,play
sunny,85,85,FALSE,no
sunny,80,90,TRUE,no
overcast,83,,FALSE,yes
rainy,70,96,FALSE,yes
rainy,68,80,?,yes
"""


def test_infers_types_and_returns_a_dataset(tmp_path: Path) -> None:
    data = read_csv(write(tmp_path, WEATHER), "play")
    assert isinstance(data, Dataset)
    X, y, schema = data
    assert list(X.columns) == ["outlook", "temp", "humidity", "windy"]
    assert X["temp"].dtype == np.float64 and X["humidity"].dtype == np.float64
    assert np.isnan(X["humidity"].iloc[2])
    assert isinstance(X["outlook"].dtype, pd.CategoricalDtype)
    assert list(X["outlook"].cat.categories) == ["overcast", "rainy", "sunny"]
    assert list(X["windy"].cat.categories) == ["FALSE", "TRUE"]
    assert pd.isna(X["windy"].iloc[4])
    assert y.tolist() == ["no", "no", "yes", "yes", "yes"] and y.name == "play"
    assert schema.target == "play" and schema.classes == Codebook(("no", "yes"))
    assert [f.kind for f in schema.features] == ["categorical", "numeric", "numeric", "categorical"]
    assert schema == infer_schema(X, y, target="play")
    encoded = schema.encode(X)
    np.testing.assert_array_equal(encoded[:, 0], [2, 2, 0, 1, 1])
    np.testing.assert_array_equal(schema.encode_labels(y), [0, 0, 1, 1, 1])


def test_without_target(tmp_path: Path) -> None:
    X, y, schema = read_csv(write(tmp_path, WEATHER))
    assert y is None and schema.target is None and schema.classes is None
    assert X.shape == (5, 5)


def test_integer_labels_stay_integers(tmp_path: Path) -> None:
    path = write(tmp_path, "a,b,label\n1.5,x,2\n2.5,y,10\n3.5,x,1.0\n")
    _X, y, schema = read_csv(path, "label")
    assert y.dtype == np.int64 and y.tolist() == [2, 10, 1]
    assert schema.classes.values == (1, 2, 10)
    assert [type(v) for v in schema.classes.values] == [int, int, int]
    assert schema.decode_labels(schema.encode_labels(y)).tolist() == [2, 10, 1]
    _, y, schema = read_csv(write(tmp_path, "a,label\n1,0.5\n2,1.5\n"), "label")
    assert y.dtype == np.float64 and schema.classes.values == (0.5, 1.5)


def test_missing_labels(tmp_path: Path) -> None:
    _, y, schema = read_csv(write(tmp_path, "a,label\n1,yes\n2,?\n3,no\n4,\n5,no\n"), "label")
    assert y.tolist()[:2] == ["yes", None] and pd.isna(y.iloc[3])
    assert schema.classes.values == ("no", "yes")
    assert schema.encode_labels(y).tolist() == [1, -1, 0, -1, 0]


def test_overrides(tmp_path: Path) -> None:
    path = write(tmp_path, "zip,code,n\n01,7,1\n10,x,2\n2,7,3\n")
    X, _, schema = read_csv(path, categorical=["zip"], numeric=["n"])
    assert list(X["zip"].cat.categories) == ["01", "10", "2"]
    assert schema.feature("zip").codebook.values == ("01", "10", "2")
    assert schema.feature("code").codebook.values == ("7", "x")
    message = error_of(path, numeric=["code"])
    assert message == f"{path}, line 3, column 'code': 'x' is not a number"
    assert "unknown column 'nope'" in error_of(path, categorical=["nope"])


def test_categorical_numbers_match_integer_data(tmp_path: Path) -> None:
    _X, _, schema = read_csv(write(tmp_path, "a,b\n1,0\n0,1\n"), categorical=["a", "b"])
    frame = pd.DataFrame({"a": [0, 1, None], "b": [1.0, 0.0, 1.0]})
    np.testing.assert_array_equal(schema.encode(frame), [[0, 1], [1, 0], [np.nan, 1]])


def test_spaces_quotes_blank_lines_and_delimiter(tmp_path: Path) -> None:
    text = 'name; size ;note\n\n"a; b"; 1.5 ;  x y \n  \nc;2;" ? "\n'
    X, _, _schema = read_csv(write(tmp_path, text), delimiter=";")
    assert list(X.columns) == ["name", "size", "note"]
    assert list(X["name"].cat.categories) == ["a; b", "c"]
    assert X["size"].tolist() == [1.5, 2.0]
    assert X["note"].iloc[0] == "x y" and pd.isna(X["note"].iloc[1])
    bad = write(tmp_path, "a,b\n\n1,2\n\n3,x\n", "bad.csv")
    assert error_of(bad, numeric=["b"]) == f"{bad}, line 5, column 'b': 'x' is not a number"


def test_missing_values_in_numeric_and_categorical_columns(tmp_path: Path) -> None:
    X, _, schema = read_csv(write(tmp_path, "a,b\n1,x\n?,?\n,\n4,y\n"))
    assert X["a"].isna().tolist() == [False, True, True, False]
    assert X["b"].isna().tolist() == [False, True, True, False]
    np.testing.assert_array_equal(schema.encode(X)[:, 1], [0, np.nan, np.nan, 1])


def test_reading_with_a_schema(tmp_path: Path) -> None:
    _, _, schema = read_csv(write(tmp_path, WEATHER, "train.csv"), "play")
    new = write(
        tmp_path, "windy,humidity,outlook,temp,extra\nTRUE,70,sunny,71,0\nFALSE,?,foggy,72,1\n"
    )
    X, y, got = read_csv(new, schema=schema)
    assert y is None and got == schema
    assert list(X.columns) == ["outlook", "temp", "humidity", "windy"]
    assert X["outlook"].dtype == object and X["outlook"].tolist() == ["sunny", "foggy"]
    assert X["temp"].dtype == np.float64
    with pytest.raises(DataError, match="column 'outlook': unseen category 'foggy' at row 2"):
        schema.encode(X)
    np.testing.assert_array_equal(schema.encode(X.iloc[:1]), [[2, 71, 70, 1]])
    labelled = write(tmp_path, "outlook,temp,humidity,windy,play\nsunny,1,2,TRUE,yes\n", "l.csv")
    X, y, got = read_csv(labelled, schema=schema)
    assert y.tolist() == ["yes"] and schema.encode_labels(y).tolist() == [1]
    bad = write(
        tmp_path, "outlook,temp,humidity,windy\nsunny,1,2,TRUE\nrainy,abc,2,TRUE\n", "b.csv"
    )
    assert error_of(bad, schema=schema) == f"{bad}, line 3, column 'temp': 'abc' is not a number"
    short = write(tmp_path, "outlook,temp,windy\nsunny,1,TRUE\n", "s.csv")
    assert "missing column 'humidity'" in error_of(short, schema=schema)


def test_numeric_codes_in_schema_mode_stay_strings(tmp_path: Path) -> None:
    _, _, schema = read_csv(write(tmp_path, "a,b\n1,0\n0,1\n", "t.csv"), categorical=["a"])
    X, _, _ = read_csv(write(tmp_path, "a,b\n1,5\n01,6\n"), schema=schema)
    assert X["a"].tolist() == ["1", "01"]


def test_file_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nope.csv"
    assert error_of(missing) == f"{missing}: no such file"
    assert "directory" in error_of(tmp_path)
    assert "empty" in error_of(write(tmp_path, "", "empty.csv"))
    assert "empty" in error_of(write(tmp_path, "\n\n", "blank.csv"))
    assert "no data rows" in error_of(write(tmp_path, "a,b\n", "header.csv"))


def test_unknown_target_lists_columns(tmp_path: Path) -> None:
    path = write(tmp_path, WEATHER)
    message = error_of(path, target="class")
    assert "unknown target column 'class'" in message
    assert "outlook, temp, humidity, windy, play" in message


def test_unknown_target_lists_columns_without_r_row_names(tmp_path: Path) -> None:
    """R's write.csv writes a nameless row-names column first; the reader leaves it out,
    and so does the list of columns in the error (not ': , a, b')."""
    path = write(tmp_path, '"","a","y"\n"1",1.5,"p"\n"2",NA,"q"\n', "r.csv")
    assert error_of(path, target="class").endswith("columns are: a, y")


@pytest.mark.parametrize(
    ("text", "line", "fields"),
    [
        ("a,b,c,d\n1,2,3,4\n1,2,3,4\n1,2,3,4\n1,2,3,4\n1,2,3,4\n1,2,3,4,5\n", 7, 5),
        ("a,b,c,d\n1,2,3,4\n1,2,3\n1,2,3,4\n", 3, 3),
        ("a,b,c,d\n1,2,3,4,5\n1,2,3,4\n", 2, 5),
        ('a,b,c,d\n"x\ny",2,3,4\n1,2\n', 4, 2),
    ],
)
def test_ragged_rows(tmp_path: Path, text: str, line: int, fields: int) -> None:
    path = write(tmp_path, text)
    assert error_of(path) == f"{path}: line {line} has {fields} fields, expected 4"


def test_duplicate_and_empty_column_names(tmp_path: Path) -> None:
    assert "duplicate column name 'a'" in error_of(write(tmp_path, "a,b,a\n1,2,3\n"))
    assert "no name" in error_of(write(tmp_path, ",b\n1,2\n1,3\n", "unnamed.csv"))
    assert "no name" in error_of(write(tmp_path, "a,,b\n1,2,3\n", "unnamed2.csv"))
    X, _, schema = read_csv(write(tmp_path, ",b\n1,2\n2,3\n", "rownames.csv"))
    assert list(X.columns) == ["b"] and schema.feature_names == ["b"]


def test_many_numeric_rows_are_fast(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(100_000, 10)).round(3), columns=list("abcdefghij"))
    frame["label"] = rng.integers(0, 3, size=len(frame))
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    X, y, schema = read_csv(path, "label")
    assert X.shape == (100_000, 10) and y.dtype == np.int64
    np.testing.assert_array_equal(X.to_numpy(), frame.iloc[:, :10].to_numpy())
    assert schema.classes.values == (0, 1, 2)
