"""Codebook, FeatureSpec, Schema and infer_schema."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus.data import Codebook, FeatureSpec, Schema, infer_schema
from quercus.data.frames import DEFAULT_NA_TOKENS
from quercus.errors import DataError, ModelFileError


def one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


@pytest.fixture
def schema() -> Schema:
    return Schema(
        (
            FeatureSpec("petal_length"),
            FeatureSpec("color", "categorical", Codebook(("red", "green", "blue"))),
            FeatureSpec("size", "categorical", Codebook((1, 2, 3))),
            FeatureSpec("width"),
        ),
        target="species",
        classes=Codebook(("setosa", "versicolor")),
    )


# --- Codebook ----------------------------------------------------------------------------


def test_codebook_plain_python_values() -> None:
    book = Codebook((np.int64(3), np.float64(1.5), np.str_("a"), np.bool_(True)))
    assert book.values == (3, 1.5, "a", True)
    assert [type(v) for v in book.values] == [int, float, str, bool]
    assert len(book) == 4
    assert "a" in book and "b" not in book


@pytest.mark.parametrize("values", [("a", "a"), (1, 1.0), ("a", None), ("a", ""), ("?",)])
def test_codebook_rejects_duplicates_and_missing(values: tuple) -> None:
    with pytest.raises(DataError):
        Codebook(values)


def test_codebook_encode_and_missing_values() -> None:
    book = Codebook(("x", "y", "z"))
    codes = book.encode(["z", None, "x", np.nan, pd.NA, "", "?", "y"], column="c")
    assert codes.dtype == np.float64
    np.testing.assert_array_equal(codes, [2, np.nan, 0, np.nan, np.nan, np.nan, np.nan, 1])


def test_codebook_unseen_category_message() -> None:
    book = Codebook(("x", "y"))
    with pytest.raises(DataError) as exc:
        book.encode(["x", "y", "x", "y", "foo"], column="c")
    assert one_line(exc) == "column 'c': unseen category 'foo' at row 5"
    with pytest.raises(DataError, match="at row 14"):
        book.encode(["x", "y", "x", "y", "foo"], column="c", rows_offset=10)


def test_codebook_matches_by_string_form() -> None:
    assert Codebook(("0", "1")).encode([1, 0, 1.0, np.int64(0)], column="a").tolist() == [
        1,
        0,
        1,
        0,
    ]
    assert Codebook((1, 2, 10)).encode(["10", "1", "2.0"], column="a").tolist() == [2, 0, 1]
    assert Codebook((0.5, 1.5)).encode(["1.50", "0.5"], column="a").tolist() == [1, 0]
    assert Codebook((False, True)).encode(["True", False, 1], column="a").tolist() == [1, 0, 1]


def test_codebook_maps_a_categorical_by_values() -> None:
    book = Codebook(("lo", "mid", "hi"))
    cat = pd.Series(pd.Categorical(["hi", "lo", None, "mid"], categories=["mid", "hi", "lo", "xx"]))
    np.testing.assert_array_equal(book.encode(cat, column="c"), [2, 0, np.nan, 1])
    with pytest.raises(DataError, match="unseen category 'xx' at row 2"):
        book.encode(pd.Categorical(["lo", "xx"], categories=["xx", "lo"]), column="c")


def test_codebook_decode_and_index() -> None:
    book = Codebook(("a", 2, 3.5))
    out = book.decode([2, -1, 0, np.nan, 1.0])
    assert out.dtype == object
    assert out.tolist() == [3.5, None, "a", None, 2]
    assert book.index(2) == 1 and book.index("3.5") == 2
    with pytest.raises(DataError, match="unknown category 'q'"):
        book.index("q")
    with pytest.raises(DataError, match="code 3"):
        book.decode([3])


def test_codebook_json_round_trip() -> None:
    book = Codebook((True, False))
    again = Codebook.from_json(json.loads(json.dumps(book.to_json())))
    assert again == book and [type(v) for v in again.values] == [bool, bool]


# --- FeatureSpec and Schema ----------------------------------------------------------------


def test_feature_spec_validation() -> None:
    assert FeatureSpec("a", "categorical", ["u", "v"]).codebook == Codebook(("u", "v"))
    assert not FeatureSpec("a").is_categorical
    with pytest.raises(DataError):
        FeatureSpec("a", "categorical")
    with pytest.raises(DataError):
        FeatureSpec("a", "numeric", Codebook(("u",)))
    with pytest.raises(DataError):
        FeatureSpec("a", "ordinal")


def test_schema_properties(schema: Schema) -> None:
    assert schema.feature_names == ["petal_length", "color", "size", "width"]
    assert schema.n_features == 4
    np.testing.assert_array_equal(schema.categorical_mask, [False, True, True, False])
    assert schema.n_categories.dtype == np.int64
    np.testing.assert_array_equal(schema.n_categories, [0, 3, 3, 0])
    assert schema.feature("color").codebook == Codebook(("red", "green", "blue"))
    assert schema.feature(-1).name == "width"
    with pytest.raises(DataError, match="unknown feature 'nope'"):
        schema.feature("nope")
    other = schema.with_target("label", Codebook((0, 1)))
    assert other.target == "label" and other.classes == Codebook((0, 1))
    with pytest.raises(DataError):
        Schema((FeatureSpec("a"), FeatureSpec("a")))


def test_encode_dataframe_by_name(schema: Schema) -> None:
    df = pd.DataFrame(
        {
            "extra": ["ignored"] * 3,
            "width": [1, 2, 3],
            "size": [3, None, 1],
            "color": pd.Categorical(["blue", "red", None]),
            "petal_length": ["1.5", "?", None],
        }
    )
    out = schema.encode(df)
    assert out.dtype == np.float64 and out.shape == (3, 4)
    expected = [[1.5, 2, 2, 1], [np.nan, 0, np.nan, 2], [np.nan, np.nan, 0, 3]]
    np.testing.assert_array_equal(out, expected)


def test_encode_missing_column(schema: Schema) -> None:
    df = pd.DataFrame({"petal_length": [1.0], "color": ["red"], "width": [2.0]})
    with pytest.raises(DataError) as exc:
        schema.encode(df)
    assert one_line(exc) == "missing column 'size'"


def test_encode_array_and_rows_by_position(schema: Schema) -> None:
    rows = [[1.0, "red", 1, 2], ["2", "blue", "3", ""], [None, "?", 2.0, "nan"]]
    expected = [[1, 0, 0, 2], [2, 2, 2, np.nan], [np.nan, np.nan, 1, np.nan]]
    np.testing.assert_array_equal(schema.encode(rows), expected)
    np.testing.assert_array_equal(schema.encode(np.array(rows, dtype=object)), expected)
    numeric = Schema((FeatureSpec("a"), FeatureSpec("b")))
    np.testing.assert_array_equal(numeric.encode(np.array([[1, 2], [3, 4]])), [[1, 2], [3, 4]])


def test_encode_wrong_number_of_columns(schema: Schema) -> None:
    with pytest.raises(DataError) as exc:
        schema.encode([[1.0, "red", 1], [2.0, "red", 2]])
    assert one_line(exc) == "expected 4 columns, got 3"
    with pytest.raises(DataError, match="expected 4 columns, got 3"):
        schema.encode(np.zeros((2, 3)))
    with pytest.raises(DataError, match="row 2: expected 4 columns, got 3"):
        schema.encode([[1.0, "red", 1, 2], [2.0, "red", 2]])


def test_encode_not_a_number_message(schema: Schema) -> None:
    df = pd.DataFrame(
        {
            "petal_length": ["1.0", "2", "abc"],
            "color": ["red"] * 3,
            "size": [1] * 3,
            "width": [0.0] * 3,
        }
    )
    with pytest.raises(DataError) as exc:
        schema.encode(df)
    assert one_line(exc) == "column 'petal_length', row 3: 'abc' is not a number"


def test_encode_unseen_category_message(schema: Schema) -> None:
    with pytest.raises(DataError) as exc:
        schema.encode([[1, "red", 1, 0], [1, "mauve", 1, 0]])
    assert one_line(exc) == "column 'color': unseen category 'mauve' at row 2"


def test_encode_is_vectorised_on_large_input(schema: Schema) -> None:
    n = 200_000
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "petal_length": rng.normal(size=n),
            "color": rng.choice(["red", "green", "blue"], size=n),
            "size": pd.Categorical(rng.integers(1, 4, size=n)),
            "width": rng.integers(0, 9, size=n),
        }
    )
    out = schema.encode(df)
    assert out.shape == (n, 4)
    np.testing.assert_array_equal(out[:, 2], df["size"].to_numpy(dtype=float) - 1)


def test_labels(schema: Schema) -> None:
    codes = schema.encode_labels(pd.Series(["versicolor", None, "setosa"]))
    assert codes.dtype == np.int32 and codes.tolist() == [1, -1, 0]
    assert schema.decode_labels([1, 0]).tolist() == ["versicolor", "setosa"]
    with pytest.raises(DataError) as exc:
        schema.encode_labels(["setosa", "virginica"])
    assert "'virginica'" in one_line(exc) and "row 2" in str(exc.value)
    ints = schema.with_target("y", Codebook((0, 1, 2)))
    decoded = ints.decode_labels(np.array([2, 0], dtype=np.int32))
    assert decoded.dtype == np.int64 and decoded.tolist() == [2, 0]
    floats = schema.with_target("y", Codebook((0.5, 2.5)))
    assert floats.decode_labels([1, -1]).dtype == np.float64
    assert ints.decode_labels([1, -1]).tolist() == [1, None]


def test_schema_json_round_trip_keeps_types(schema: Schema) -> None:
    mixed = Schema(
        (FeatureSpec("flag", "categorical", Codebook((False, True))), FeatureSpec("n")),
        target="y",
        classes=Codebook((1, 2, 3)),
    )
    for s in (schema, mixed, Schema(())):
        again = Schema.from_json(json.loads(json.dumps(s.to_json())))
        assert again == s
        assert again.to_json() == s.to_json()
    again = Schema.from_json(json.loads(json.dumps(mixed.to_json())))
    assert [type(v) for v in again.classes.values] == [int, int, int]
    assert [type(v) for v in again.features[0].codebook.values] == [bool, bool]


def test_schema_from_bad_json() -> None:
    with pytest.raises(ModelFileError):
        Schema.from_json({"features": [{"name": "a"}]})
    with pytest.raises(ModelFileError):
        Schema.from_json({"features": [{"name": "a", "kind": "categorical", "categories": 3}]})


scalars = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(min_size=1, max_size=8).filter(lambda s: s != "?"),
    st.booleans(),
)
codebooks = st.lists(scalars, max_size=8, unique_by=lambda v: (v,)).filter(
    lambda vals: len(set(vals)) == len(vals)
)


@settings(max_examples=60, deadline=None)
@given(
    feats=st.lists(st.one_of(st.none(), codebooks), max_size=5),
    classes=st.one_of(st.none(), codebooks),
    target=st.one_of(st.none(), st.just("label")),
)
def test_schema_json_round_trip_property(
    feats: list, classes: list | None, target: str | None
) -> None:
    specs = tuple(
        FeatureSpec(f"f{i}")
        if book is None
        else FeatureSpec(f"f{i}", "categorical", Codebook(book))
        for i, book in enumerate(feats)
    )
    schema = Schema(specs, target, None if classes is None else Codebook(classes))
    again = Schema.from_json(json.loads(json.dumps(schema.to_json())))
    assert again == schema
    for a, b in zip(again.features, schema.features):
        if a.codebook is not None:
            assert [type(v) for v in a.codebook.values] == [type(v) for v in b.codebook.values]


def _no_missing_token(book: list) -> bool:
    """A codebook read with the default tokens holds none of them ('nan' is a missing
    value there; reading it as a category needs keep_na, which changes the tokens)."""
    return not any(isinstance(v, str) and v.strip() in DEFAULT_NA_TOKENS for v in book)


@settings(max_examples=60, deadline=None)
@given(
    book=codebooks.filter(bool).filter(_no_missing_token),
    data=st.data(),
)
def test_encode_decode_round_trip_property(book: list, data: st.DataObject) -> None:
    codebook = Codebook(book)
    column = data.draw(st.lists(st.one_of(st.sampled_from(book), st.none()), max_size=30))
    codes = codebook.encode(column, column="c")
    decoded = codebook.decode(codes)
    assert [d is None for d in decoded] == [v is None for v in column]
    for d, v in zip(decoded, column):
        if v is not None:
            assert d == v and type(d) is type(v)
    cat = pd.Series(pd.Categorical(column, categories=list(reversed(book))))
    np.testing.assert_array_equal(codebook.encode(cat, column="c"), codes)


# --- infer_schema ------------------------------------------------------------------------


def test_infer_schema_dataframe_dtypes() -> None:
    df = pd.DataFrame(
        {
            "num": [1.5, 2.0, np.nan],
            "int": [3, 1, 2],
            "cat": pd.Categorical(["b", "a", "b"], categories=["b", "a", "c"]),
            "obj": pd.Series(["pear", "apple", None], dtype=object),
            "str": pd.Series(["z", "y", "z"], dtype="string"),
            "flag": [True, False, True],
            "objnum": pd.Series([1, 2.5, None], dtype=object),
            7: ["u", "v", "u"],
        }
    )
    schema = infer_schema(df)
    assert schema.feature_names == ["num", "int", "cat", "obj", "str", "flag", "objnum", "7"]
    kinds = [f.kind for f in schema.features]
    assert kinds == ["numeric", "numeric"] + ["categorical"] * 4 + ["numeric", "categorical"]
    books = {f.name: f.codebook.values for f in schema.features if f.codebook is not None}
    assert books == {
        "cat": ("b", "a", "c"),
        "obj": ("apple", "pear"),
        "str": ("y", "z"),
        "flag": (False, True),
        "7": ("u", "v"),
    }
    assert schema.target is None and schema.classes is None
    encoded = schema.encode(df)
    np.testing.assert_array_equal(encoded[:, 2], [0, 1, 0])


def test_infer_schema_arrays_and_rows() -> None:
    schema = infer_schema(np.arange(6.0).reshape(3, 2))
    assert schema.feature_names == ["x0", "x1"] and not schema.categorical_mask.any()
    rows = [[1, "a", 2.5], [2, "b", None], [3, None, 1]]
    schema = infer_schema(rows, feature_names=["n", "s", "m"])
    assert [f.kind for f in schema.features] == ["numeric", "categorical", "numeric"]
    assert schema.feature("s").codebook.values == ("a", "b")


def test_infer_schema_forced_categorical() -> None:
    X = np.array([[10, 1.5], [2, 0.5], [10, 1.5]])
    by_index = infer_schema(X, categorical_features=[0])
    assert by_index.feature(0).codebook.values == (2.0, 10.0)
    assert infer_schema(X, categorical_features=["x1"]).feature(1).codebook.values == (0.5, 1.5)
    mask = infer_schema(X, categorical_features=np.array([True, True]))
    assert mask.categorical_mask.all()
    ints = infer_schema([[10], [2], [10]], categorical_features=[0])
    assert ints.feature(0).codebook.values == (2, 10)
    assert [type(v) for v in ints.feature(0).codebook.values] == [int, int]
    with pytest.raises(DataError, match="unknown feature 'x9'"):
        infer_schema(X, categorical_features=["x9"])
    with pytest.raises(DataError, match="out of range"):
        infer_schema(X, categorical_features=[5])


def test_infer_schema_classes() -> None:
    X = np.zeros((4, 1))
    assert infer_schema(X, [10, 2, None, 2]).classes.values == (2, 10)
    assert infer_schema(X, np.array([1.5, 0.5, np.nan, 1.5])).classes.values == (0.5, 1.5)
    assert infer_schema(X, ["b", "a", None, "b"]).classes.values == ("a", "b")
    y = pd.Series(pd.Categorical(["lo", "hi", "lo", "hi"], categories=["lo", "hi"]), name="t")
    schema = infer_schema(X, y)
    assert schema.classes.values == ("lo", "hi") and schema.target == "t"
    assert infer_schema(X, y, target="label").target == "label"
    values = infer_schema(X, np.array([3, 1, 2, 1], dtype=np.int64)).classes.values
    assert [type(v) for v in values] == [int, int, int]
    with pytest.raises(DataError, match="y has 3 labels but X has 4 rows"):
        infer_schema(X, [1, 2, 3])
