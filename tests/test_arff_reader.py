"""read_arff on Weka-style files written to tmp_path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus.data import Codebook, infer_schema, read_arff
from quercus.errors import DataError


def write(tmp_path: Path, text: str, name: str = "data.arff") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path, **kw) -> str:
    with pytest.raises(DataError) as exc:
        read_arff(path, **kw)
    message = str(exc.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


WEATHER = """@relation weather.symbolic

@attribute outlook {sunny, overcast, rainy}
@attribute temperature {hot, mild, cool}
@attribute humidity {high, normal}
@attribute windy {TRUE, FALSE}
@attribute play {yes, no}

@data
sunny,hot,high,FALSE,no
sunny,hot,high,TRUE,no
overcast,hot,high,FALSE,yes
rainy,mild,high,FALSE,yes
"""

IRIS = """% 1. Title: Iris Plants Database
%
% (a) Creator: R.A. Fisher
@RELATION iris

@ATTRIBUTE sepallength\tREAL
@ATTRIBUTE sepalwidth \tREAL
@ATTRIBUTE petallength \tNUMERIC
@ATTRIBUTE petalwidth\tinteger
@ATTRIBUTE class \t{Iris-setosa,Iris-versicolor,Iris-virginica}

@DATA
5.1,3.5,1.4,0.2,Iris-setosa
% a comment between rows
7.0,3.2,4.7,1.4,Iris-versicolor

6.3,3.3,6.0,2.5,Iris-virginica
"""

LABOR = """@relation 'labor-neg-data'
@attribute 'duration' real
@attribute 'wage-increase-first-year' real
@attribute 'cost-of-living-adjustment' {'none','tcf','tc'}
@attribute 'working hours' real
@attribute 'class' {'bad','good'}
@data
1,5,?,40,'good'
2,4.5,'tcf',?,'good'
?,?,none,38,'bad'
"""

CREDIT = """@relation german_credit
@attribute checking_status { '<0', '0<=X<200', '>=200', 'no checking'}
@attribute duration numeric
@attribute purpose { 'new car', radio/tv, "used car"}
@attribute class { good, bad}
@data
'<0',6,radio/tv,good
'0<=X<200',48,'new car',bad
'no checking',12,"used car",good
"""

SOYBEAN = """@RELATION soybean
@ATTRIBUTE 'date' {'april','may','june'}
@ATTRIBUTE plant-stand {normal,lt-normal}
@ATTRIBUTE class {diaporthe-stem-canker, charcoal-rot}
@DATA
may, normal, diaporthe-stem-canker
june, lt-normal, charcoal-rot
april, ?, charcoal-rot
"""


def test_nominal_declared_order(tmp_path: Path) -> None:
    X, y, schema = read_arff(write(tmp_path, WEATHER))
    assert list(X.columns) == ["outlook", "temperature", "humidity", "windy"]
    assert list(X["outlook"].cat.categories) == ["sunny", "overcast", "rainy"]
    assert list(X["windy"].cat.categories) == ["TRUE", "FALSE"]
    assert schema.feature("outlook").codebook == Codebook(("sunny", "overcast", "rainy"))
    assert schema.target == "play" and schema.classes == Codebook(("yes", "no"))
    assert y.tolist() == ["no", "no", "yes", "yes"] and y.name == "play"
    assert schema == infer_schema(X, y, target="play")
    np.testing.assert_array_equal(schema.encode(X)[:, 0], [0, 0, 1, 2])
    np.testing.assert_array_equal(schema.encode_labels(y), [1, 1, 0, 0])


def test_iris_header_case_tabs_comments(tmp_path: Path) -> None:
    X, y, schema = read_arff(write(tmp_path, IRIS))
    assert X.shape == (3, 4) and (X.dtypes == np.float64).all()
    assert X.iloc[1].tolist() == [7.0, 3.2, 4.7, 1.4]
    assert schema.classes.values == ("Iris-setosa", "Iris-versicolor", "Iris-virginica")
    assert not schema.categorical_mask.any()
    assert schema.encode_labels(y).tolist() == [0, 1, 2]


def test_quoted_names_values_and_missing(tmp_path: Path) -> None:
    X, y, schema = read_arff(write(tmp_path, LABOR))
    assert schema.feature_names == [
        "duration",
        "wage-increase-first-year",
        "cost-of-living-adjustment",
        "working hours",
    ]
    assert np.isnan(X["duration"].iloc[2]) and np.isnan(X["working hours"].iloc[1])
    col = X["cost-of-living-adjustment"]
    assert pd.isna(col.iloc[0]) and col.iloc[1] == "tcf" and col.iloc[2] == "none"
    assert schema.classes.values == ("bad", "good")
    assert y.tolist() == ["good", "good", "bad"]


def test_values_with_spaces_and_symbols(tmp_path: Path) -> None:
    X, _y, schema = read_arff(write(tmp_path, CREDIT))
    assert schema.feature("checking_status").codebook.values == (
        "<0",
        "0<=X<200",
        ">=200",
        "no checking",
    )
    assert X["checking_status"].tolist() == ["<0", "0<=X<200", "no checking"]
    assert X["purpose"].tolist() == ["radio/tv", "new car", "used car"]
    assert schema.feature("purpose").codebook.values == ("new car", "radio/tv", "used car")
    assert schema.classes.values == ("good", "bad")


def test_spaces_after_commas_and_attribute_named_date(tmp_path: Path) -> None:
    X, y, _schema = read_arff(write(tmp_path, SOYBEAN))
    assert X["date"].tolist() == ["may", "june", "april"]
    assert pd.isna(X["plant-stand"].iloc[2])
    assert y.tolist() == ["diaporthe-stem-canker", "charcoal-rot", "charcoal-rot"]


def test_string_attribute_comments_and_escapes(tmp_path: Path) -> None:
    text = (
        "% leading comment\n"
        "@relation 'r s' % trailing comment\n"
        '@attribute "the name" string\n'
        "@attribute n numeric % unit: cm\n"
        "@attribute cls {a,b}\n"
        "@data\n"
        "'zeta 50%', 1, a % comment after values\n"
        '"it\\\'s", 2,b\n'
        "alpha,?,a\n"
        "?,4,b\n"
    )
    X, _y, schema = read_arff(write(tmp_path, text))
    assert X["the name"].tolist()[:3] == ["zeta 50%", "it's", "alpha"]
    assert pd.isna(X["the name"].iloc[3])
    assert schema.feature("the name").codebook.values == ("alpha", "it's", "zeta 50%")
    assert X["n"].isna().tolist() == [False, False, True, False]


def test_quoted_question_mark_is_missing(tmp_path: Path) -> None:
    text = "@relation r\n@attribute f {'?',GB,GK}\n@attribute c {a,b}\n@data\n'?',a\nGK,b\n?,a\n"
    X, _, schema = read_arff(write(tmp_path, text))
    assert schema.feature("f").codebook.values == ("GB", "GK")
    assert X["f"].isna().tolist() == [True, False, True]


def test_target_choice(tmp_path: Path) -> None:
    X, _y, schema = read_arff(write(tmp_path, WEATHER), target="outlook")
    assert schema.target == "outlook" and "play" in X.columns
    assert schema.classes.values == ("sunny", "overcast", "rainy")
    message = error_of(write(tmp_path, WEATHER), target="nope")
    assert "unknown target attribute 'nope'" in message and "outlook" in message


def test_numeric_target(tmp_path: Path) -> None:
    text = "@relation r\n@attribute a {x,y}\n@attribute label integer\n@data\nx,2\ny,10\nx,2\n"
    _X, y, schema = read_arff(write(tmp_path, text))
    assert y.dtype == np.int64 and y.tolist() == [2, 10, 2]
    assert schema.classes.values == (2, 10)


def test_sparse_rows(tmp_path: Path) -> None:
    text = (
        "@relation s\n@attribute a numeric\n@attribute b numeric\n"
        "@attribute c {x,y}\n@attribute d {p,q}\n@data\n"
        "{1 3.5, 3 q}\n{}\n{0 1, 2 y, 3 'q'}\n"
    )
    X, y, _schema = read_arff(write(tmp_path, text))
    assert X["a"].tolist() == [0.0, 0.0, 1.0] and X["b"].tolist() == [3.5, 0.0, 0.0]
    assert X["c"].tolist() == ["x", "x", "y"] and y.tolist() == ["q", "p", "q"]


def test_errors_name_file_and_line(tmp_path: Path) -> None:
    bad_value = WEATHER.replace("rainy,mild,high,FALSE,yes", "foggy,mild,high,FALSE,yes")
    path = write(tmp_path, bad_value)
    message = error_of(path)
    assert message.startswith(f"{path}, line 13, attribute 'outlook': 'foggy'")
    date = write(tmp_path, "@relation r\n@attribute d date 'yyyy-MM-dd'\n@data\n", "date.arff")
    assert "unsupported" in error_of(date) and ", line 2" in error_of(date)
    nan = write(
        tmp_path, "@relation r\n@attribute a real\n@attribute c {x}\n@data\n1,x\nq,x\n", "n.arff"
    )
    assert error_of(nan) == f"{nan}, line 6, attribute 'a': 'q' is not a number"
    count = write(
        tmp_path, "@relation r\n@attribute a real\n@attribute c {x}\n@data\n1,x,3\n", "c.arff"
    )
    assert "line 5" in error_of(count) and "expected 2" in error_of(count)
    assert "no such file" in error_of(tmp_path / "missing.arff")
    assert "@data" in error_of(write(tmp_path, "@relation r\n@attribute a real\n", "nodata.arff"))
    empty = write(tmp_path, "@relation r\n@attribute a real\n@data\n% nothing\n", "e.arff")
    assert "no data rows" in error_of(empty)
    quote = write(tmp_path, "@relation r\n@attribute a {'x}\n@data\n", "q.arff")
    assert "line 2" in error_of(quote)


def test_reading_with_a_schema(tmp_path: Path) -> None:
    _, _, schema = read_arff(write(tmp_path, WEATHER, "train.arff"))
    text = WEATHER.replace("@attribute play {yes, no}\n", "").replace(",no\n", "\n")
    text = text.replace(",yes\n", "\n").replace("overcast,hot", "foggy,hot")
    text = text.replace("{sunny, overcast, rainy}", "{sunny, foggy, rainy}")
    X, y, got = read_arff(write(tmp_path, text, "new.arff"), schema=schema)
    assert y is None and got == schema
    assert X["outlook"].dtype == object and X["outlook"].tolist()[2] == "foggy"
    with pytest.raises(DataError, match="unseen category 'foggy' at row 3"):
        schema.encode(X)
    X, y, _ = read_arff(write(tmp_path, WEATHER, "again.arff"), schema=schema)
    assert schema.encode_labels(y).tolist() == [1, 1, 0, 0]
