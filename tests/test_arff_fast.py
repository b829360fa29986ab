"""The ARFF reader's fast path (pandas' C parser on a plain dense data section) reads every
file exactly as the careful line parser does: same frames, codebooks and error messages."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus.data import arff_fast, arff_reader, infer_schema, read_arff
from quercus.errors import DataError

HEADER = ("@relation t\n@attribute x numeric\n@attribute y real\n"
          "@attribute colour {red, green, 'light blue'}\n@attribute class {a,b}\n@data\n")


def read_both(monkeypatch, path: Path, **kw):
    """(fast result or error, careful result or error, whether the fast path parsed it)."""
    calls = []
    real = arff_fast.dense_columns

    def spy(*args):
        calls.append(real(*args))
        return calls[-1]

    def outcome():
        try:
            return read_arff(path, **kw)
        except DataError as exc:
            return str(exc)

    with monkeypatch.context() as m:
        m.setattr(arff_fast, "dense_columns", spy)
        fast = outcome()
    with monkeypatch.context() as m:
        m.setattr(arff_reader, "_fast_columns", lambda *a: None)
        careful = outcome()
    return fast, careful, any(c is not None for c in calls)


def assert_same(fast, careful) -> None:
    if isinstance(careful, str):
        assert fast == careful
        return
    pd.testing.assert_frame_equal(fast.X, careful.X)
    if careful.y is None:
        assert fast.y is None
    else:
        pd.testing.assert_series_equal(fast.y, careful.y)
        if isinstance(careful.y.dtype, pd.CategoricalDtype):
            assert fast.y.cat.categories.dtype == careful.y.cat.categories.dtype
    assert fast.schema == careful.schema
    for column in careful.X:
        if isinstance(careful.X[column].dtype, pd.CategoricalDtype):
            assert fast.X[column].cat.categories.dtype == careful.X[column].cat.categories.dtype


def test_plain_file_takes_the_fast_path_with_python_floats(tmp_path, monkeypatch):
    rng = random.Random(5)
    rows, xs = [], []
    for _ in range(300):
        digits = str(rng.randint(0, 10 ** rng.randint(1, 22)))
        cut = rng.randint(0, len(digits))
        text = f"{digits[:cut]}.{digits[cut:]}e{rng.randint(-40, 40)}"
        xs.append(float(text))
        rows.append(f"{text},{rng.gauss(0, 1)!r},{rng.choice(['red', 'green'])},"
                    f"{rng.choice('ab')}\n")
    path = tmp_path / "plain.arff"
    path.write_text(HEADER + "".join(rows))
    fast, careful, took_fast = read_both(monkeypatch, path)
    assert took_fast
    assert_same(fast, careful)
    assert fast.X["x"].tolist() == xs  # what Python's float makes of each text
    assert list(fast.X["colour"].cat.categories) == ["red", "green", "light blue"]
    assert list(fast.y.cat.categories) == ["a", "b"]


CASES = {
    "missing": "1,2,red,a\n?,?,?,b\n,3,green,?\nNA,nan,green,a\n",
    "crlf": "1,2,red,a\r\n3,4,green,b\r\n",
    "blank lines": "\n1,2,red,a\n\n\n3,4,green,b\n\n",
    "no final newline": "1,2,red,a\n3,4,green,b",
    "short row": "1,2,red,a\n3,green,b\n5,6,red,a\n",
    "long first row": "1,2,red,a,b\n3,green\n",
    "long later row": "1,2,red,a\n3,4,5,green,b\n",
    "undeclared value": "1,2,red,a\n3,4,blue,b\n",
    "not a number": "1,2,red,a\n3,x4,green,b\n",
    "infinite": "1,2,red,a\n3,inf,green,b\n",
    "boolean in a number": "1,2,red,a\ntrue,4,green,b\n",
    "underscore number": "1_000,2,red,a\n3,4,green,b\n",
    "exponents and signs": "+.5,-0,red,a\n5.,1E+3,green,b\n1e-400,-1e-5,red,b\n",
    "hex": "0x10,2,red,a\n",
    "quoted": "1,2,'light blue',a\n3,4,green,b\n",
    "spaces": "1, 2, red, a\n3,4,green,b\n",
    "comment": "1,2,red,a\n% note\n3,4,green,b\n",
    "weight": "1,2,red,a,{2}\n3,4,green,b\n",
    "sparse": "{0 1, 1 2, 2 red, 3 b}\n",
    "lone carriage return": "1,2,red,a\r3,4,green,b\n",
    "no rows": "\n\n",
    "empty fields only": ",,,\n",  # every nominal column missing (found by fuzzing)
    "non-ascii": "1,2,red,a\n3,4\u00a0,green,b\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_cases_read_as_the_careful_parser_reads_them(tmp_path, monkeypatch, name):
    path = tmp_path / "case.arff"
    path.write_text(HEADER + CASES[name], encoding="utf-8", newline="")
    fast, careful, _ = read_both(monkeypatch, path)
    assert_same(fast, careful)


def test_missing_values_are_missing(tmp_path, monkeypatch):
    path = tmp_path / "m.arff"
    path.write_text(HEADER + CASES["missing"])
    fast, careful, took_fast = read_both(monkeypatch, path)
    assert took_fast
    assert_same(fast, careful)
    assert np.isnan(fast.X["x"].to_numpy()[1:]).tolist() == [True, True, True]
    assert fast.X["colour"].isna().tolist() == [False, True, False, False]
    assert fast.y.isna().tolist() == [False, False, True, False]


def test_line_numbers_in_errors_count_blank_lines(tmp_path, monkeypatch):
    path = tmp_path / "inf.arff"
    path.write_text(HEADER + "1,2,red,a\n\n3,inf,green,b\n")
    fast, careful, _ = read_both(monkeypatch, path)
    assert fast == careful
    assert fast == f"{path}, line 9, attribute 'y': inf is not allowed (numeric values must " \
                   "be finite; ? is a missing value)"


def test_boolean_nominal_beside_zero_one_numbers(tmp_path, monkeypatch):
    path = tmp_path / "b.arff"
    path.write_text("@relation b\n@attribute n numeric\n@attribute flag {TRUE,FALSE}\n"
                    "@attribute class {a,b}\n@data\n0,TRUE,a\n1,FALSE,b\n2,TRUE,a\n")
    fast, careful, _ = read_both(monkeypatch, path)
    assert_same(fast, careful)
    assert fast.X["n"].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("options", [{"na_values": ["-999"]}, {"keep_na": ["NA"]},
                                     {"na_values": "missing"}, {"target": "x"}])
def test_options(tmp_path, monkeypatch, options):
    path = tmp_path / "o.arff"
    path.write_text(HEADER + "-999,2,red,a\n-999.0,NA,green,b\nmissing,4,red,a\n")
    fast, careful, _ = read_both(monkeypatch, path, **options)
    assert_same(fast, careful)


def test_string_attribute_and_numeric_target(tmp_path, monkeypatch):
    path = tmp_path / "s.arff"
    path.write_text("@relation s\n@attribute name string\n@attribute n numeric\n@data\n"
                    "zed,1\nalpha,2\n?,3\nzed,?\n")
    fast, careful, took_fast = read_both(monkeypatch, path)
    assert took_fast
    assert_same(fast, careful)
    assert list(fast.X["name"].cat.categories) == ["alpha", "zed"]


def test_schema_reads_raw_strings(tmp_path, monkeypatch):
    path = tmp_path / "train.arff"
    path.write_text(HEADER + "1,2,red,a\n3,4,green,b\n")
    data = read_arff(path)
    schema = infer_schema(data.X.assign(x=data.X["x"].astype(str)), data.y)
    new = tmp_path / "new.arff"
    new.write_text(HEADER + "1.50,2,red,a\n?,4,green,b\n3,4,?,a\n")
    fast, careful, took_fast = read_both(monkeypatch, new, schema=schema)
    assert took_fast
    assert_same(fast, careful)
    assert fast.X["x"].tolist() == ["1.50", None, "3"]
    assert fast.X["colour"].tolist() == ["red", "green", None]


def test_nominal_numbers_and_booleans_keep_their_text(tmp_path, monkeypatch):
    path = tmp_path / "n.arff"
    path.write_text("@relation n\n@attribute n numeric\n@attribute flag {TRUE,FALSE}\n"
                    "@attribute level {1.0,2.50,10}\n@attribute class {0,1}\n@data\n"
                    "2,TRUE,2.50,1\n3,FALSE,10,0\n4,?,1.0,1\n")
    fast, careful, took_fast = read_both(monkeypatch, path)
    assert took_fast
    assert_same(fast, careful)
    assert fast.X["flag"].tolist()[:2] == ["TRUE", "FALSE"]
    assert fast.X["level"].astype(object).tolist() == ["2.50", "10", "1.0"]
    assert list(fast.y.cat.categories) == ["0", "1"]


def test_undeclared_numbers_in_a_word_nominal(tmp_path, monkeypatch):
    path = tmp_path / "u.arff"
    path.write_text(HEADER + "1,2,1.50,a\n3,4,2,b\n")
    fast, careful, _ = read_both(monkeypatch, path)
    assert fast == careful
    assert "'1.50' is not one of the declared values" in fast
