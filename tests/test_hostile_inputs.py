"""Hostile and broken input (issue 7): each item gives a clear one-line error naming the
file, row or column, or a documented behaviour (docs/robustness.md); the command line never
prints a traceback, exits with status 2 on a user's mistake and never leaves a half-written
output file. The sections follow the issue's list.
"""

from __future__ import annotations

import json
import resource
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from quercus._kernels._splits import GINI, best_subset_split, split_proxy

import quercus
from quercus import DataError, DecisionTreeClassifier, ModelFileError
from quercus.cli import main
from quercus.data import read_arff, read_csv
from quercus.export.model_file import FORMAT_VERSION

ALGORITHMS = ["cart", "id3", "c45", "interval"]


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def cli_error(capsys, *argv) -> str:
    """Run the CLI expecting a user error: exit status 2, one line, no traceback."""
    status = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quercus: error: "), err
    assert "Traceback" not in err
    return lines[0]


def train_fails(capsys, tmp_path, data: Path, *options) -> str:
    """``quercus train`` must fail cleanly and leave no model file (nor a temporary one)."""
    out = tmp_path / "m.json"
    message = cli_error(capsys, "train", data, "--out", out, *options)
    assert not out.exists()
    assert not list(tmp_path.glob(".m.json.*"))
    return message


def train_ok(capsys, tmp_path, data: Path, *options) -> quercus.DecisionTreeClassifier:
    out = tmp_path / "m.json"
    assert main(["train", str(data), "--out", str(out), *map(str, options)]) == 0
    capsys.readouterr()
    return quercus.load_model(out)


# -- empty file, header only, ragged rows -----------------------------------------------------
@pytest.mark.parametrize("name, text, expected", [
    ("empty.csv", "", "empty.csv: the file is empty (no header row)"),
    ("blank.csv", "\n \n\n", "blank.csv: the file is empty (no header row)"),
    ("header.csv", "a,b,y\n", "header.csv: no data rows after the header (line 1)"),
    ("short.csv", "a,b,y\n1,2,p\n3,4\n5,6,q\n", "short.csv: line 3 has 2 fields, expected 3"),
    ("long.csv", "a,b,y\n1,2,p\n3,4,q\n5,6,q,9\n", "long.csv: line 4 has 4 fields, expected 3"),
    ("empty.arff", "", "empty.arff: not an ARFF file (no @attribute)"),
    ("header.arff", "@relation r\n@attribute a numeric\n@attribute y {p,q}\n@data\n",
     "header.arff: no data rows after @data"),
    ("ragged.arff", "@relation r\n@attribute a numeric\n@attribute y {p,q}\n@data\n1,p\n2\n",
     "ragged.arff, line 6: row has 1 values, expected 2"),
])
def test_empty_header_only_and_ragged_files(capsys, tmp_path, name, text, expected):
    path = write(tmp_path, name, text)
    reader = read_csv if name.endswith(".csv") else read_arff
    with pytest.raises(DataError) as info:
        reader(path, "y")
    assert str(info.value) == f"{tmp_path / expected}"
    assert train_fails(capsys, tmp_path, path, "--target", "y") == \
        f"quercus: error: {tmp_path / expected}"


# -- byte-order mark -----------------------------------------------------------------------------
@pytest.mark.parametrize("name, text", [
    ("bom.csv", "a,b,y\n1,x,p\n2,z,q\n3,x,p\n"),
    ("bom.arff", "@relation r\n@attribute a numeric\n@attribute b {x,z}\n@attribute y {p,q}\n"
                 "@data\n1,x,p\n2,z,q\n3,x,p\n"),
])
def test_byte_order_mark_is_ignored(capsys, tmp_path, name, text):
    plain = write(tmp_path, "plain" + Path(name).suffix, text)
    marked = write(tmp_path, name, "\ufeff" + text)
    reader = read_csv if name.endswith(".csv") else read_arff
    X, y, schema = reader(marked, "y")
    assert schema.feature_names == ["a", "b"]  # not "\ufeffa"
    expected = reader(plain, "y")
    pd.testing.assert_frame_equal(X, expected.X)
    assert list(y) == list(expected.y)
    assert train_ok(capsys, tmp_path, marked, "--target", "y").feature_names_in_[0] == "a"


# -- another delimiter -------------------------------------------------------------------------
@pytest.mark.parametrize("delimiter", [";", "\t", "|"])
def test_semicolon_tab_and_pipe_files_are_detected(capsys, tmp_path, delimiter):
    rows = [["size", "colour", "y"], ["1.5", "red", "p"], ["2", "blue", "q"], ["", "red", "p"]]
    comma = write(tmp_path, "comma.csv", "\n".join(",".join(r) for r in rows) + "\n")
    other = write(tmp_path, "other.csv", "\n".join(delimiter.join(r) for r in rows) + "\n")
    expected = read_csv(comma, "y")
    got = read_csv(other, "y")
    pd.testing.assert_frame_equal(got.X, expected.X)
    assert got.schema == expected.schema
    pd.testing.assert_frame_equal(read_csv(other, "y", delimiter=delimiter).X, expected.X)
    model = train_ok(capsys, tmp_path, other, "--target", "y")
    assert list(model.feature_names_in_) == ["size", "colour"]


def test_a_comma_in_the_header_keeps_the_comma_delimiter(tmp_path):
    path = write(tmp_path, "t.csv", "a,b;c,y\n1,x;z,p\n2,w,q\n")
    assert read_csv(path, "y").schema.feature_names == ["a", "b;c"]


def test_a_wrong_explicit_delimiter_names_the_columns(tmp_path):
    path = write(tmp_path, "t.csv", "a;b;y\n1;2;p\n")
    with pytest.raises(DataError, match=r"t\.csv: unknown target column 'y'; columns are: a;b;y"):
        read_csv(path, "y", delimiter=",")


# -- quoted newlines ---------------------------------------------------------------------------
def test_quoted_newlines_are_part_of_the_value(capsys, tmp_path):
    path = write(tmp_path, "q.csv",
                 'note,y\n"two\nlines",p\n"one line",q\n"two\nlines",p\n"x, ""quoted""",q\n')
    X, y, schema = read_csv(path, "y")
    assert list(X["note"]) == ["two\nlines", "one line", "two\nlines", 'x, "quoted"']
    model = train_ok(capsys, tmp_path, path, "--target", "y")
    assert list(model.predict(X)) == ["p", "q", "p", "q"]
    assert main(["rules", str(tmp_path / "m.json")]) == 0  # prints without breaking
    assert capsys.readouterr().out.count("THEN") == 2


def test_line_numbers_count_quoted_newlines(tmp_path):
    path = write(tmp_path, "q.csv", 'a,y\n"x\ny\nz",p\n1,q,extra\n')
    with pytest.raises(DataError, match=r"q\.csv: line 5 has 3 fields, expected 2"):
        read_csv(path, "y")


# -- 10,000-character category names ------------------------------------------------------------
def test_ten_thousand_character_categories(capsys, tmp_path):
    long = ["é" * 10_000 + tag for tag in "abc"]
    rows = [f"{long[i % 3]},k{i % 3}" for i in range(12)]
    path = write(tmp_path, "long.csv", "v,y\n" + "\n".join(rows) + "\n")
    for algorithm in ALGORITHMS:
        model = train_ok(capsys, tmp_path, path, "--target", "y", "--algorithm", algorithm)
        assert list(model.predict([[v] for v in long])) == ["k0", "k1", "k2"]
    assert main(["show", str(tmp_path / "m.json")]) == 0
    assert long[0] in capsys.readouterr().out
    unseen = write(tmp_path, "new.csv", "v\n" + "ü" * 10_000 + "\n")
    message = cli_error(capsys, "predict", tmp_path / "m.json", unseen, "--out", tmp_path / "p.csv")
    assert "unseen category" in message and len(message) < 300
    assert not (tmp_path / "p.csv").exists()


# -- 100,000 distinct categories ----------------------------------------------------------------
def _many_categories(n_rows: int, n_categories: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    names = np.array([f"k{i:06d}" for i in range(n_categories)], dtype=object)
    codes = np.arange(n_rows) % n_categories
    X = pd.DataFrame({"c": pd.Categorical.from_codes(codes, names)})
    return X, rng.integers(0, 3, n_rows), codes


@pytest.mark.parametrize("algorithm, seconds", [("cart", 10), ("c45", 10), ("interval", 10)])
def test_one_hundred_thousand_categories_fit_fast(algorithm, seconds):
    X, y, _ = _many_categories(100_000, 100_000)
    start = time.perf_counter()
    model = DecisionTreeClassifier(algorithm=algorithm, max_depth=4).fit(X, y)
    assert time.perf_counter() - start < seconds
    assert model.score(X, y) >= np.bincount(y).max() / len(y)


def test_id3_grows_one_branch_per_category():
    """ID3 splits multiway: each of 20,000 categories gets its own leaf (documented)."""
    X, y, codes = _many_categories(20_000, 20_000)
    start = time.perf_counter()
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    assert time.perf_counter() - start < 10
    assert model.get_n_leaves() == 20_000
    np.testing.assert_array_equal(model.predict(X), y)


def _prefix_reference(weights, counts, missing_left):
    """Best proxy over every prefix of every class's share order (numpy, no kernels)."""
    present = np.flatnonzero(counts[:-1] > 0)
    best = -np.inf
    share_of = weights[present] / weights[present].sum(axis=1, keepdims=True)
    for k in range(weights.shape[1]):
        order = present[np.argsort(share_of[:, k], kind="mergesort")]
        for p in range(1, len(order) + (0 if not missing_left else 0)):
            left = weights[order[:p]].sum(axis=0) + (weights[-1] if missing_left else 0)
            right = weights[order[p:]].sum(axis=0) + (0 if missing_left else weights[-1])
            best = max(best, split_proxy(left, right, left.sum(), right.sum(), GINI))
    return best


def test_ordered_subset_search_scans_every_prefix():
    """Beyond 10 categories CART orders them by class share; the O(m log m) scan finds the
    best prefix that a direct evaluation of every prefix finds."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        m = int(rng.integers(11, 40))
        weights = rng.integers(0, 5, (m + 1, 3)).astype(float)
        weights[-1] = 0.0  # no missing values: one pass
        weights[:-1][weights[:-1].sum(axis=1) == 0, 0] = 1.0
        counts = weights.sum(axis=1).astype(np.int64)
        branch = np.empty(m, dtype=np.int32)
        proxy, _ = best_subset_split(weights, counts, GINI, 1, 0.0, branch)
        assert proxy == pytest.approx(_prefix_reference(weights, counts, False), rel=1e-12)
        left = branch == 0
        found = split_proxy(weights[:-1][left].sum(axis=0), weights[:-1][~left].sum(axis=0),
                            weights[:-1][left].sum(), weights[:-1][~left].sum(), GINI)
        assert found == pytest.approx(proxy, rel=1e-12)


def test_category_maps_are_bounded(monkeypatch):
    """Each CART categorical split stores a branch per category; past the limit a feature
    with many categories is no longer split on (with a warning), so memory stays bounded."""
    import quercus.splitting.cart as cart

    monkeypatch.setattr(cart, "MAX_CATEGORY_MAP_ENTRIES", 5_000)
    X, y, _ = _many_categories(4_000, 1_000, seed=1)
    with pytest.warns(UserWarning, match="category maps of this tree reached 5,000 entries"):
        model = DecisionTreeClassifier().fit(X, y)
    assert model.tree_.category_branch.size <= 5_000
    for splitter in ("exact", "hist"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            tree = DecisionTreeClassifier(splitter=splitter).fit(X, y).tree_
        assert tree.category_branch.size <= 5_000


# -- NaN and infinity ----------------------------------------------------------------------------
def test_nan_is_missing(tmp_path):
    nan = read_csv(write(tmp_path, "n.csv", "a,b,y\n1,nan,p\n2,NaN,q\n3,4,p\n"), "y")
    empty = read_csv(write(tmp_path, "e.csv", "a,b,y\n1,,p\n2,?,q\n3,4,p\n"), "y")
    pd.testing.assert_frame_equal(nan.X, empty.X)
    X = np.array([[1.0, np.nan], [2.0, 5.0], [3.0, np.nan], [4.0, 6.0]])
    model = DecisionTreeClassifier(max_depth=1).fit(X[:, 1:], ["p", "q", "p", "q"])
    assert list(model.predict(X[:, 1:])) == ["p", "q", "p", "q"]  # missing: its own branch


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "1e400"])
def test_infinity_is_an_error_naming_file_line_and_column(capsys, tmp_path, value):
    path = write(tmp_path, "i.csv", f"a,b,y\n1,2,p\n3,{value},q\n")
    expected = f"{path}, line 3, column 'b': "
    with pytest.raises(DataError, match=r"line 3, column 'b': -?inf is not allowed"):
        read_csv(path, "y")
    assert train_fails(capsys, tmp_path, path, "--target", "y").startswith(
        f"quercus: error: {expected}")
    arff = write(tmp_path, "i.arff", "@relation r\n@attribute a numeric\n@attribute b real\n"
                                     f"@attribute y {{p,q}}\n@data\n1,2,p\n3,{value},q\n")
    with pytest.raises(DataError, match=r"line 7, attribute 'b': -?inf is not allowed"):
        read_arff(arff)


@pytest.mark.parametrize("algorithm", ["cart", "c45", "interval"])
def test_infinity_in_fit_and_predict_names_column_and_row(algorithm):
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.5, np.inf, 1.5, 2.0]})
    with pytest.raises(DataError, match=r"^column 'b', row 2: inf is not allowed"):
        DecisionTreeClassifier(algorithm=algorithm).fit(X, [0, 1, 0, 1])
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X.fillna(0).iloc[[0, 2, 3]], [0, 0, 1])
    with pytest.raises(DataError, match=r"^column 'a', row 1: -inf is not allowed"):
        model.predict(np.array([[-np.inf, 1.0]]))
    with pytest.raises(DataError, match="column 'x0', row 3"):
        DecisionTreeClassifier().fit(np.array([[1.0], [2.0], [np.inf]], dtype=np.float32), [0, 1, 0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_infinity_in_a_big_matrix_names_column_and_row(dtype, order, monkeypatch):
    """From ``PARALLEL_CHECK_VALUES`` values a C-ordered float32 or float64 matrix is
    checked by a parallel kernel, others by numpy's reductions: the same error, and NaN is
    a missing value. float16 input, which the kernels do not take, is fitted and
    predicted as float64 (it was once passed on as it was, and the kernels refused it)."""
    from quercus.data import schema

    calls = []
    kernel = schema.count_nonfinite_rows
    monkeypatch.setattr(schema, "count_nonfinite_rows", lambda X: calls.append(1) or kernel(X))
    rng = np.random.default_rng(0)
    rows = schema.PARALLEL_CHECK_VALUES // 10 + 1
    X = rng.normal(size=(rows, 10)).astype(dtype)
    X[rng.random(X.shape) < 0.01] = np.nan
    model = DecisionTreeClassifier(splitter="hist", max_depth=3).fit(X[:2000], X[:2000, 0] > 0)
    X = np.asarray(X, order=order)
    assert model.predict(X).shape == (rows,)  # NaN only: no error
    X[rows - 5, 7] = np.inf
    X[rows - 3, 2] = -np.inf
    with pytest.raises(DataError, match=rf"^column 'x7', row {rows - 4}: inf is not allowed"):
        model.predict(X)
    # float16 is converted to a C-ordered float64 copy first, which the kernel checks
    assert len(calls) == (2 if order == "C" or dtype == np.float16 else 0)


def test_infinity_in_predict_data_leaves_no_output(capsys, tmp_path):
    train = write(tmp_path, "t.csv", "a,y\n1,p\n2,q\n")
    train_ok(capsys, tmp_path, train, "--target", "y")
    new = write(tmp_path, "n.csv", "a\n1\ninf\n")
    out = tmp_path / "p.csv"
    message = cli_error(capsys, "predict", tmp_path / "m.json", new, "--out", out)
    assert "line 3, column 'a': inf is not allowed" in message
    assert not out.exists()


# -- a target with missing values, one class, one row, constant features --------------------------
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_rows_with_a_missing_target_are_left_out(algorithm):
    X = pd.DataFrame({"c": pd.Categorical(list("aabbabab"))})
    y = pd.Series(["p", "p", "q", None, "q", np.nan, "?", "q"], dtype=object)
    known = [0, 1, 2, 4, 7]
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    subset = DecisionTreeClassifier(algorithm=algorithm).fit(X.iloc[known], y.iloc[known])
    np.testing.assert_array_equal(model.predict_proba(X), subset.predict_proba(X))
    assert model.tree_.n_node_samples[0] == len(known)


def test_a_target_with_no_known_label_is_an_error(capsys, tmp_path):
    path = write(tmp_path, "t.csv", "a,y\n1,\n2,?\n")
    message = train_fails(capsys, tmp_path, path, "--target", "y")
    assert message == f"quercus: error: {path}: no training rows with a known class label"


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_one_class_one_row_and_constant_features(algorithm):
    X = pd.DataFrame({"c": pd.Categorical(list("abab"))})
    one_class = DecisionTreeClassifier(algorithm=algorithm).fit(X, ["p"] * 4)
    assert list(one_class.predict(X)) == ["p"] * 4
    np.testing.assert_array_equal(one_class.predict_proba(X), np.ones((4, 1)))
    one_row = DecisionTreeClassifier(algorithm=algorithm).fit(X.iloc[:1], ["q"])
    assert list(one_row.predict(X.iloc[:1])) == ["q"]
    np.testing.assert_array_equal(one_row.predict_proba(X.iloc[:1]), [[1.0]])
    constant = pd.DataFrame({"c": pd.Categorical(["a"] * 5)})
    model = DecisionTreeClassifier(algorithm=algorithm).fit(constant, list("pqppq"))
    assert model.get_n_leaves() == 1
    np.testing.assert_allclose(model.predict_proba(constant), [[0.6, 0.4]] * 5)


# -- duplicate and non-ASCII column names ---------------------------------------------------------
def test_duplicate_column_names_are_errors(capsys, tmp_path):
    path = write(tmp_path, "d.csv", "a,b,a,y\n1,2,3,p\n")
    message = train_fails(capsys, tmp_path, path, "--target", "y")
    assert message == f"quercus: error: {path}: line 1: duplicate column name 'a'"
    arff = write(tmp_path, "d.arff", "@relation r\n@attribute a numeric\n@attribute a real\n"
                                     "@attribute y {p}\n@data\n1,2,p\n")
    with pytest.raises(DataError, match=r"line 3: duplicate attribute name 'a'"):
        read_arff(arff)
    frame = pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"])
    with pytest.raises(DataError, match="duplicate feature name 'a'"):
        DecisionTreeClassifier().fit(frame, ["p"])
    model = DecisionTreeClassifier().fit(frame.iloc[:, :2], ["p"])
    with pytest.raises(DataError, match="duplicate column 'a'"):
        model.predict(frame)


def test_non_ascii_names_end_to_end(capsys, tmp_path):
    path = write(tmp_path, "u.csv", "größe,城市,ключ\n1.5,東京,ja\n2.5,Zürich,nein\n3.5,東京,ja\n"
                                    "0.5,Zürich,nein\n")
    model = train_ok(capsys, tmp_path, path, "--target", "ключ")
    assert list(model.feature_names_in_) == ["größe", "城市"]
    document = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert [f["name"] for f in document["schema"]["features"]] == ["größe", "城市"]
    assert main(["show", str(tmp_path / "m.json")]) == 0
    assert "城市 = 東京: ja" in capsys.readouterr().out
    assert main(["rules", str(tmp_path / "m.json")]) == 0
    assert "THEN ключ = nein" in capsys.readouterr().out
    assert main(["predict", str(tmp_path / "m.json"), str(path), "--out",
                 str(tmp_path / "p.csv")]) == 0
    assert pd.read_csv(tmp_path / "p.csv")["prediction"].tolist() == ["ja", "nein", "ja", "nein"]


# -- prediction data frames with columns reordered, missing or extra ------------------------------
def test_prediction_columns_are_matched_by_name():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": list("xyxy"), "c": [0.0, 1.0, 1.0, 0.0]})
    y = [0, 1, 1, 0]
    model = DecisionTreeClassifier().fit(X, y)
    expected = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict_proba(X[["c", "b", "a"]]), expected)
    np.testing.assert_array_equal(model.predict_proba(X.assign(extra=9, y=y)), expected)
    with pytest.raises(DataError, match=r"^missing columns 'a', 'c'$"):
        model.predict(X[["b"]])
    with pytest.raises(DataError, match=r"^missing column 'b'$"):
        model.predict(X[["a", "c"]])


def test_prediction_csv_with_reordered_missing_and_extra_columns(capsys, tmp_path):
    train = write(tmp_path, "t.csv", "a,b,y\n1,x,p\n2,z,q\n3,x,p\n")
    train_ok(capsys, tmp_path, train, "--target", "y", "--algorithm", "cart")  # a full tree
    shuffled = write(tmp_path, "s.csv", "extra,b,a\n9,z,2\n9,x,1\n")
    assert main(["predict", str(tmp_path / "m.json"), str(shuffled)]) == 0
    assert capsys.readouterr().out.split() == ["prediction", "q", "p"]
    short = write(tmp_path, "short.csv", "extra\n1\n")
    message = cli_error(capsys, "predict", tmp_path / "m.json", short, "--out", tmp_path / "p.csv")
    assert message.endswith("missing columns 'a', 'b' required by the schema")
    assert not (tmp_path / "p.csv").exists()


# -- model files: truncated, edited, newer ----------------------------------------------------------
@pytest.fixture(scope="module")
def model_document():
    X, y, _ = quercus.datasets.load("play_tennis")
    model = DecisionTreeClassifier(algorithm="c45", min_samples_leaf=1).fit(X, y)
    return json.loads(json.dumps(quercus.export.model_file.model_to_dict(model))), X


def _edit(document, path, value):
    out = json.loads(json.dumps(document))
    target = out
    for step in path[:-1]:
        target = target[step]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


EDITS = {
    "newer version": (("format_version",), FORMAT_VERSION + 1, "model format version 2"),
    "version as text": (("format_version",), "1", "model format version '1'"),
    "no tree": (("tree",), KeyError, "is incomplete: no 'tree' entry"),
    "kind as text": (("tree", "kind", 0), "split", "inconsistent tree arrays"),
    "child out of range": (("tree", "child_ids", 0), 999, "inconsistent tree arrays"),
    "child repeated": (("tree", "child_ids", 1), 1, "inconsistent tree arrays"),
    "short value row": (("tree", "value"), [1.0, 2.0, 3.0], "inconsistent tree arrays"),
    "negative feature": (("tree", "feature", 0), -3, "inconsistent tree arrays"),
    "feature as float": (("tree", "feature", 0), 0.5, "inconsistent tree arrays"),
    "category map short": (("tree", "category_ptr", 1), 1, "inconsistent tree arrays"),
    "negative weight": (("tree", "weighted_n_node_samples", 0), -1, "inconsistent tree arrays"),
    "schema not a dict": (("schema",), [1, 2], "has a bad schema"),
    "unknown algorithm": (("params", "algorithm"), "forest", "bad estimator parameters"),
    "names flag as text": (("has_feature_names",), "yes", "bad 'has_feature_names'"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_edited_model_files_are_refused(capsys, tmp_path, model_document, edit):
    document, X = model_document
    path_in_doc, value, expected = EDITS[edit]
    path = write(tmp_path, "edited.json", json.dumps(_edit(document, path_in_doc, value)))
    with pytest.raises(ModelFileError, match=f"^{path}"):
        quercus.load_model(path)
    with pytest.raises(ModelFileError) as info:
        quercus.load_model(path)
    assert expected in str(info.value) and "\n" not in str(info.value)
    message = cli_error(capsys, "export", path, "--out", tmp_path / "x.py")
    assert str(path) in message and not (tmp_path / "x.py").exists()


def test_the_unedited_document_loads(tmp_path, model_document):
    """The edits above are what makes the files fail."""
    document, X = model_document
    model = quercus.load_model(write(tmp_path, "ok.json", json.dumps(document)))
    assert model.score(X, quercus.datasets.load("play_tennis")[1]) == 1.0


@pytest.mark.parametrize("cut", [0, 1, 100, -2])
def test_truncated_model_files_are_refused(capsys, tmp_path, model_document, cut):
    text = json.dumps(model_document[0])
    path = write(tmp_path, "cut.json", text[:cut])
    with pytest.raises(ModelFileError, match="is not a Quercus model file"):
        quercus.load_model(path)
    out = tmp_path / "p.csv"
    write(tmp_path, "d.csv", "Outlook\nSunny\n")
    cli_error(capsys, "predict", path, tmp_path / "d.csv", "--out", out)
    assert not out.exists()


def test_deeply_nested_json_is_refused(tmp_path):
    path = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ModelFileError, match="is not a Quercus model file"):
        quercus.load_model(path)


def test_a_failed_export_keeps_an_earlier_file(capsys, tmp_path):
    out = write(tmp_path, "x.py", "earlier\n")
    cli_error(capsys, "export", write(tmp_path, "bad.json", "{"), "--out", out)
    assert out.read_text() == "earlier\n"


# -- XML: entity expansion and external entities ----------------------------------------------------
_LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol">'
           + "".join(f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
                     for i in range(1, 10))
           + ']><Treesetting><Branch Class="0" Gini="0" Min="&lol9;" Max="1" Property="0">0'
           "</Branch></Treesetting>")
_EXTERNAL = ('<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><Treesetting><Branch '
             'Class="0" Gini="0" Min="&x;" Max="1" Property="0">0</Branch></Treesetting>')


@pytest.mark.parametrize("text", [_LAUGHS, _EXTERNAL], ids=["billion-laughs", "external"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_xml_entities_are_refused_without_expanding(capsys, tmp_path, text, encoding):
    declaration = f'<?xml version="1.0" encoding="{encoding}"?>'
    path = write(tmp_path, "evil.xml", (declaration + text).encode(encoding))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(ModelFileError, match="DOCTYPE and entity declarations are not allowed"):
        quercus.load_model(path)
    assert time.perf_counter() - start < 1.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # KiB
    cli_error(capsys, "show", path)


@pytest.mark.parametrize("attributes, expected", [
    ('Class="inf" Gini="0" Min="0" Max="1" Property="0"', "Class must be a whole number"),
    ('Class="0" Gini="0" Min="0" Max="1" Property="nan"', "Property must be a whole number"),
    ('Class="0" Gini="0" Min="0" Max="1" Property="1e9"', "beyond the 100000 features"),
    ('Class="0" Gini="0" Min="x" Max="1" Property="0"', "Min is not a number"),
])
def test_xml_attributes_are_checked(tmp_path, attributes, expected):
    path = write(tmp_path, "t.xml", f"<Treesetting><Branch {attributes}>0</Branch></Treesetting>")
    with pytest.raises(ModelFileError, match=expected):
        quercus.load_model(path)
