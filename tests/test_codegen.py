"""Code generation (quercus.export.codegen): the generated Python and C functions predict
exactly as the model does, refuse invalid input like seed 002's generated code, and the
``quercus export`` command writes them."""

from __future__ import annotations

import ast
import ctypes
import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeClassifier, datasets, read_arff
from quercus.errors import NotFittedError
from quercus.export.codegen import MAX_NESTING, MESSAGE, feature_ranges, to_source
from quercus.tree import NUMERIC, TreeRecorder

ARFF = Path(__file__).parent / "data" / "arff"
BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
COMMAND = Path(sys.executable).parent / "quercus"
CC = shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler: `cc` is not on PATH, so "
                                                 "the generated C cannot be compiled")
ATOL = 1e-12


# -- helpers -------------------------------------------------------------------------------
def python_functions(source: str, name: str = "predict"):
    """Execute generated Python in a fresh namespace; check it imports nothing but math."""
    tree = ast.parse(source)
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [[alias.name for alias in node.names] for node in imports] == [["math"]]
    assert all(isinstance(node, ast.Import) for node in imports)
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)  # noqa: S102 (our own output)
    return namespace[name], namespace[f"{name}_proba"]


def compile_c(source: str, directory: Path, name: str = "predict", stem: str = "tree"):
    """Compile generated C with ``cc -O2 -shared -fPIC`` and load it through ctypes."""
    includes = [line for line in source.splitlines() if line.startswith("#")]
    assert includes == ["#include <math.h>"]
    c_file, library = directory / f"{stem}.c", directory / f"{stem}.so"
    c_file.write_text(source, encoding="utf-8")
    result = subprocess.run([CC, "-O2", "-shared", "-fPIC", "-o", str(library), str(c_file)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    lib = ctypes.CDLL(str(library))
    predict, proba = getattr(lib, name), getattr(lib, f"{name}_proba")
    predict.argtypes = [ctypes.POINTER(ctypes.c_double)]
    predict.restype = ctypes.c_int
    proba.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]
    proba.restype = None
    return predict, proba


def c_call(predict, proba, row, n_classes: int):
    values = (ctypes.c_double * len(row))(*[float(v) for v in row])
    out = (ctypes.c_double * n_classes)()
    proba(values, out)
    return predict(values), np.array(out[:])


def rows_of(X: pd.DataFrame) -> list[tuple]:
    return list(X.itertuples(index=False, name=None))


def expected_indices(model, X) -> list[int]:
    """The class index of model.predict for each row, -1 for an unclassified row."""
    labels = model.predict(X).tolist()
    lost = model.predict_proba(X).sum(axis=1) == 0.0
    classes = model.classes_.tolist()
    return [-1 if model.algorithm == "interval" and gone else classes.index(label)
            for label, gone in zip(labels, lost)]


def assert_python_matches(model, X, **options):
    predict, predict_proba = python_functions(to_source(model, **options),
                                              options.get("function_name", "predict"))
    rows = rows_of(X)
    assert [predict(row) for row in rows] == model.predict(X).tolist()
    got = np.array([predict_proba(row) for row in rows])
    np.testing.assert_allclose(got, model.predict_proba(X), rtol=0, atol=ATOL)
    return predict, predict_proba


def assert_c_matches(model, X, directory: Path, **options):
    predict, proba = compile_c(to_source(model, language="c", **options), directory)
    encoded = model.schema_.encode(X)
    expected = model.predict_proba(X)
    got = [c_call(predict, proba, row, model.n_classes_) for row in encoded]
    assert [index for index, _ in got] == expected_indices(model, X)
    np.testing.assert_allclose(np.array([p for _, p in got]), expected, rtol=0, atol=ATOL)
    return predict, proba


def every_combination(model, with_missing: bool = True) -> pd.DataFrame:
    """Every combination of categories (and missing) of an all-categorical schema."""
    books = [list(f.codebook.values) + ([None] if with_missing else [])
             for f in model.schema_.features]
    return pd.DataFrame(list(itertools.product(*books)), columns=model.schema_.feature_names)


def mixed_frame(n: int = 400, seed: int = 0):
    """Numeric and categorical columns with missing values, awkward names and categories."""
    rng = np.random.default_rng(seed)
    categories = ["red", "it's", 'say "hi"', "new\nline", "*/ end", "é ü", "back\\slash"]
    X = pd.DataFrame({
        "num a": rng.normal(size=n),
        "b */": rng.integers(0, 10, size=n).astype(float),
        "colour\nname": rng.choice(categories, size=n).astype(object),
        "size": pd.Categorical(rng.choice(["S", "M", "L"], size=n), categories=["S", "M", "L"]),
    })
    y = np.where((X["num a"] > 0) ^ X["colour\nname"].isin(categories[:3]), "yes\n'", 'no"')
    y[rng.random(n) < 0.1] = "maybe */"
    for column in X.columns:
        X.loc[rng.random(n) < 0.1, column] = None if column == "size" else np.nan
    return X, y


# -- the models ----------------------------------------------------------------------------
def _iris_cart():
    data = datasets.load("iris")
    return DecisionTreeClassifier().fit(data.X, data.y), data.X


def _frame_cart():
    X, y = mixed_frame()
    model = DecisionTreeClassifier().fit(X, y)
    extra = pd.DataFrame([[np.nan, np.nan, None, None], [0.5, np.nan, "red", None],
                          [np.nan, 3.0, None, "M"]], columns=X.columns)
    extra["size"] = pd.Categorical(extra["size"], categories=["S", "M", "L"])
    return model, pd.concat([X, extra], ignore_index=True)


def _arff_c45(name, **params):
    def make():
        data = read_arff(ARFF / f"{name}.arff")
        assert data.X.isna().any(axis=None)  # rows with missing values are among the tests
        return DecisionTreeClassifier(algorithm="c45", **params).fit(data.X, data.y), data.X
    return make


def _tennis_id3():
    data = datasets.load("play_tennis")
    model = DecisionTreeClassifier(algorithm="id3").fit(data.X, data.y)
    return model, every_combination(model)


def _flowers_interval(**params):
    def make():
        data = datasets.load("flowers")
        model = DecisionTreeClassifier(algorithm="interval", **params).fit(data.X, data.y)
        rows = pd.concat([data.X.astype(object), every_combination(model)], ignore_index=True)
        assert (model.predict_proba(rows).sum(axis=1) == 0).any()  # unclassified rows
        return model, rows
    return make


def _numeric_interval(name):
    def make():
        data = datasets.load(name)
        model = DecisionTreeClassifier(algorithm="interval").fit(data.X, data.y)
        rng = np.random.default_rng(5)
        low, high = data.X.min(), data.X.max()
        noise = pd.DataFrame(rng.uniform(low, high, size=(300, data.X.shape[1])),
                             columns=data.X.columns)
        noise = noise.mask(rng.random(noise.shape) < 0.1)
        rows = pd.concat([data.X, noise], ignore_index=True)
        assert (model.predict_proba(rows).sum(axis=1) == 0).any()  # unclassified rows
        return model, rows
    return make


CASES = {
    "cart-iris": _iris_cart,
    "cart-frame-missing": _frame_cart,
    "c45-labor": _arff_c45("labor"),
    "c45-labor-unpruned": _arff_c45("labor", pruning=False),
    "c45-labor-binary": _arff_c45("labor", binary_categorical_splits=True),
    "c45-soybean": _arff_c45("soybean"),
    "c45-soybean-laplace": _arff_c45("soybean", laplace=True),
    "c45-soybean-binary": _arff_c45("soybean", binary_categorical_splits=True),
    "id3-play-tennis": _tennis_id3,
    "interval-flowers": _flowers_interval(),
    "interval-flowers-marker": _flowers_interval(unclassified="?"),
    "interval-iris": _numeric_interval("iris"),
    "interval-seed000": _numeric_interval("seed000"),  # integer labels: unclassified is -1
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    return CASES[request.param]()


def test_python_predicts_like_the_model(case):
    model, X = case
    assert_python_matches(model, X)


@needs_cc
def test_c_predicts_like_the_model(case, tmp_path):
    model, X = case
    assert_c_matches(model, X, tmp_path)


# -- details -------------------------------------------------------------------------------
def test_python_source_is_nested_if_else_with_labels():
    model, _ = _iris_cart()
    source = to_source(model)
    assert "if x[2] <= 2.45:  # petal_length" in source
    assert "return 'setosa'" in source
    assert "_predict_descend" not in source  # no tables for a tree without weighted nodes
    predict, predict_proba = python_functions(source)
    assert predict([5.1, 3.5, 1.4, 0.2]) == "setosa"
    assert predict(np.array([6.3, 3.3, 6.0, 2.5])) == "virginica"
    assert predict_proba((5.1, 3.5, 1.4, 0.2)) == [1.0, 0.0, 0.0]


def test_weighted_nodes_use_tables_only_for_missing_values():
    model, _ = _tennis_id3()
    source = to_source(model)
    assert "if x[0] is None:  # missing: every branch" in source
    assert "if x[0] == 'Overcast':  # Outlook" in source
    predict, predict_proba = python_functions(source)
    assert predict(["Sunny", "Cool", "High", "Strong"]) == "No"
    row = [None, "Cool", "High", "Strong"]
    expected = model.predict_proba(pd.DataFrame([row], columns=model.schema_.feature_names))
    np.testing.assert_allclose(predict_proba(row), expected[0], rtol=0, atol=ATOL)
    assert predict(["?", "Cool", "", float("nan")]) == predict([None, "Cool", None, None])


def test_python_invalid_input_raises_the_seed_message():
    model, _ = _tennis_id3()
    predict, predict_proba = python_functions(to_source(model))
    for bad in (["Foggy", "Cool", "High", "Strong"],   # unseen category
                ["Sunny", "Cool", "High"],             # too few values
                ["Sunny", "Cool", "High", "Strong", "x"],
                ["Sunny", "Cool", "High", ["Strong"]],  # unhashable
                ["sunny", "Cool", "High", "Strong"]):   # categories are case-sensitive
        for function in (predict, predict_proba):
            with pytest.raises(ValueError, match=f"^{MESSAGE}: "):
                function(bad)
    with pytest.raises(ValueError, match=r"feature 0 \('Outlook'\) = 'Foggy' is not one of "
                                         r"its 3 categories"):
        predict(["Foggy", "Cool", "High", "Strong"])
    with pytest.raises(ValueError, match=MESSAGE):
        predict(42)

    iris, _ = _iris_cart()
    predict, _ = python_functions(to_source(iris))
    for bad in ([5.1, 3.5, float("inf"), 0.2], [5.1, 3.5, "long", 0.2],
                [5.1, -float("inf"), 1.4, 0.2], [5.1, 3.5, 1.4, object()]):
        with pytest.raises(ValueError, match=f"^{MESSAGE}: feature "):
            predict(bad)
    assert predict([5.1, 3.5, None, 0.2]) == iris.predict(
        pd.DataFrame([[5.1, 3.5, np.nan, 0.2]], columns=iris.schema_.feature_names))[0]
    assert predict(["5.1", "3.5", "1.4", "0.2"]) == "setosa"  # numbers as text, as CSV gives


def test_training_ranges_from_x():
    model, X = _iris_cart()
    ranges = feature_ranges(model, X)
    assert ranges[2] == (1.0, 6.9)
    source = to_source(model, X=X)
    predict, predict_proba = python_functions(source)
    assert [predict(row) for row in rows_of(X)] == model.predict(X).tolist()
    assert predict([4.3, 2.0, 1.0, 0.1]) == "setosa"  # the edges are inside
    with pytest.raises(ValueError, match=r"feature 2 \('petal_length'\) = 7\.0 is outside "
                                         r"the range \[1\.0, 6\.9\]"):
        predict([5.0, 3.0, 7.0, 1.0])
    with pytest.raises(ValueError, match=MESSAGE):
        predict_proba([4.2, 3.0, 1.5, 0.2])
    assert predict([None, 3.0, 1.5, 0.2]) == "setosa"  # missing is still fine

    by_name = to_source(model, ranges={"petal_length": (1.0, None), 3: (None, 2.5)})
    predict, _ = python_functions(by_name)
    assert predict([100.0, 3.0, 7.0, 0.1]) == model.predict(
        pd.DataFrame([[100.0, 3.0, 7.0, 0.1]], columns=X.columns))[0]
    for bad in ([5.0, 3.0, 0.5, 0.2], [5.0, 3.0, 1.5, 2.6]):
        with pytest.raises(ValueError, match=MESSAGE):
            predict(bad)
    with pytest.raises(ValueError, match="not both"):
        to_source(model, X=X, ranges=[None] * 4)
    with pytest.raises(ValueError, match="one entry per feature"):
        to_source(model, ranges=[None])
    tennis, _ = _tennis_id3()
    with pytest.raises(ValueError, match="categorical"):
        to_source(tennis, ranges={"Outlook": (0, 1)})


@needs_cc
def test_c_invalid_input(tmp_path):
    model, X = _tennis_id3()
    predict, proba = compile_c(to_source(model, language="c"), tmp_path, stem="tennis")
    for bad in ([3, 0, 0, 0], [-1, 0, 0, 0], [0.5, 0, 0, 0], [0, 0, 0, np.inf]):
        index, probabilities = c_call(predict, proba, bad, 2)
        assert index == -2
        assert np.isnan(probabilities).all()
    assert c_call(predict, proba, [2, 0, 0, 0], 2)[0] == 0  # Sunny, High: No

    iris, X = _iris_cart()
    source = to_source(iris, language="c", X=X)
    assert "row[2] petal_length: numeric, from 1.0 to 6.9" in source
    predict, proba = compile_c(source, tmp_path, stem="iris")
    assert c_call(predict, proba, [5.0, 3.0, 7.0, 1.0], 3)[0] == -2
    assert c_call(predict, proba, [5.0, 3.0, np.inf, 1.0], 3)[0] == -2
    assert c_call(predict, proba, [4.3, 2.0, 1.0, 0.1], 3)[0] == 0
    assert c_call(predict, proba, [np.nan, 3.0, 1.5, 0.2], 3)[0] == 0


@needs_cc
def test_c_compiles_cleanly_as_c99(tmp_path):
    model, _ = _frame_cart()
    c_file = tmp_path / "strict.c"
    c_file.write_text(to_source(model, language="c"), encoding="utf-8")
    result = subprocess.run([CC, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c",
                             "-o", str(tmp_path / "strict.o"), str(c_file)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def _chain_model(depth: int, missing_branch: int):
    """A fitted model whose tree is a chain of ``depth`` numeric splits nested on the left."""
    X = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0)})
    model = DecisionTreeClassifier().fit(X, np.arange(10) % 2)
    recorder = TreeRecorder(2)
    splits = [recorder.add(value=[depth - i, 1.0], impurity=0.5, n_samples=depth - i + 1,
                           weight=depth - i + 1.0) for i in range(depth)]
    leaves = [recorder.add(value=[i % 2, 1 - i % 2], impurity=0.0, n_samples=1, weight=1.0)
              for i in range(depth + 1)]
    for i, node in enumerate(splits):
        left = splits[i + 1] if i + 1 < depth else leaves[depth]
        recorder.make_split(node, kind=NUMERIC, feature=i % 2, children=[left, leaves[i]],
                            missing_branch=missing_branch, threshold=float(depth - i))
    model.tree_ = recorder.to_tree()
    rng = np.random.default_rng(depth)
    rows = pd.DataFrame(rng.uniform(-5, depth + 5, size=(300, 2)), columns=["a", "b"])
    rows.loc[rng.random(300) < 0.2, "a"] = np.nan
    return model, rows


@pytest.mark.parametrize("missing_branch", [0, 1, -1])
def test_deep_trees_spill_into_helpers(missing_branch, tmp_path):
    model, rows = _chain_model(700, missing_branch)
    assert model.get_depth() == 700
    source = to_source(model)
    assert source.count("\ndef _predict_n") >= 700 // MAX_NESTING - 1
    assert_python_matches(model, rows)
    if CC is not None:
        assert_c_matches(model, rows, tmp_path)


def test_function_name_and_argument_checks():
    model, X = _iris_cart()
    predict, _ = python_functions(to_source(model, function_name="classify"), "classify")
    assert predict(rows_of(X)[0]) == "setosa"
    source = to_source(model, language="c", function_name="iris_tree")
    assert "int iris_tree(const double *row)" in source
    assert "void iris_tree_proba(const double *row, double *out)" in source
    for bad in ("class", "math", "1tree", "my-tree", "", "naïve", None):
        with pytest.raises(ValueError, match="function_name"):
            to_source(model, function_name=bad)
    with pytest.raises(ValueError, match="function_name"):
        to_source(model, language="c", function_name="double")
    with pytest.raises(ValueError, match="unknown language"):
        to_source(model, language="java")
    with pytest.raises(NotFittedError):
        to_source(DecisionTreeClassifier())


def test_loaded_model_generates_the_same_source(tmp_path):
    model, _ = _arff_c45("labor")()
    model.save(tmp_path / "labor.json")
    loaded = quercus.load_model(tmp_path / "labor.json")
    assert to_source(loaded) == to_source(model)
    assert to_source(loaded, language="c") == to_source(model, language="c")


# -- the command line ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def quercus_cmd() -> str:
    if not COMMAND.exists():
        pytest.skip(f"the quercus command is not installed next to {sys.executable}; "
                    "run: pip install -e '.[test]'")
    return str(COMMAND)


def run(cmd: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([cmd, *args], check=False, cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_cli_export(quercus_cmd, tmp_path):
    shutil.copy(BUNDLED / "iris.csv", tmp_path / "iris.csv")
    trained = run(quercus_cmd, "train", "iris.csv", "--target", "species", "--out", "m.json",
                  cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    model = quercus.load_model(tmp_path / "m.json")
    data = quercus.read_csv(tmp_path / "iris.csv", "species")

    result = run(quercus_cmd, "export", "m.json", "--format", "python", "--out", "tree.py",
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Python source written to tree.py\n"
    source = (tmp_path / "tree.py").read_text(encoding="utf-8")
    assert source == to_source(model)
    predict, _ = python_functions(source)
    assert [predict(row) for row in rows_of(data.X)] == model.predict(data.X).tolist()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    result = run(quercus_cmd, "export", "m.json", "--format", "c", "--function-name",
                 "iris_tree", "--ranges", "iris.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == to_source(model, language="c", function_name="iris_tree",
                                      X=data.X)
    if CC is not None:
        predict, proba = compile_c(result.stdout, tmp_path, name="iris_tree")
        encoded = model.schema_.encode(data.X)
        assert ([c_call(predict, proba, row, 3)[0] for row in encoded]
                == expected_indices(model, data.X))


def test_cli_export_errors(quercus_cmd, tmp_path):
    shutil.copy(BUNDLED / "iris.csv", tmp_path / "iris.csv")
    assert run(quercus_cmd, "train", "iris.csv", "--target", "species", "--out", "m.json",
               cwd=tmp_path).returncode == 0
    for args in (["export", "missing.json"],
                 ["export", "m.json", "--format", "java"],
                 ["export", "m.json", "--function-name", "not valid"],
                 ["export", "m.json", "--ranges", "nowhere.csv"],
                 ["export", "m.json", "--out", "no/such/dir/tree.py"]):
        result = run(quercus_cmd, *args, cwd=tmp_path)
        assert result.returncode == 2, args
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("quercus: error: "), result.stderr
        assert "Traceback" not in result.stderr
