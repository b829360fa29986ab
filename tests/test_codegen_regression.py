"""Code generation for regression trees: the generated Python and C functions return the
mean target of the row's leaf exactly as ``DecisionTreeRegressor.predict`` does, with
missing values and categorical features, and ``quercus export`` writes them."""

from __future__ import annotations

import ast
import ctypes
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeRegressor
from quercus.export.codegen import MAX_NESTING, MESSAGE, to_source

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
COMMAND = Path(sys.executable).parent / "quercus"
CC = shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler: `cc` is not on PATH, so "
                                                 "the generated C cannot be compiled")


# -- helpers -------------------------------------------------------------------------------
def python_predict(source: str, name: str = "predict"):
    """Execute generated Python; check it imports only math and defines no predict_proba."""
    tree = ast.parse(source)
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [[alias.name for alias in node.names] for node in imports] == [["math"]]
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)  # noqa: S102 (our own output)
    assert f"{name}_proba" not in namespace
    return namespace[name]


def compile_c(source: str, directory: Path, name: str = "predict", stem: str = "tree"):
    """Compile generated C as a shared library; ``double name(const double *row)``."""
    includes = [line for line in source.splitlines() if line.startswith("#")]
    assert includes == ["#include <math.h>"]
    c_file, library = directory / f"{stem}.c", directory / f"{stem}.so"
    c_file.write_text(source, encoding="utf-8")
    result = subprocess.run([CC, "-O2", "-shared", "-fPIC", "-o", str(library), str(c_file)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    function = getattr(ctypes.CDLL(str(library)), name)
    function.argtypes = [ctypes.POINTER(ctypes.c_double)]
    function.restype = ctypes.c_double

    def predict(row) -> float:
        return function((ctypes.c_double * len(row))(*[float(v) for v in row]))
    return predict


def rows_of(X: pd.DataFrame) -> list[tuple]:
    return list(X.itertuples(index=False, name=None))


def assert_python_matches(model, X, **options):
    predict = python_predict(to_source(model, **options), options.get("function_name",
                                                                      "predict"))
    got = [predict(row) for row in rows_of(X)]
    assert all(type(v) is float for v in got)
    assert got == model.predict(X).tolist()  # the same doubles, not merely close
    return predict


def assert_c_matches(model, X, directory: Path, **options):
    predict = compile_c(to_source(model, language="c", **options), directory)
    got = [predict(row) for row in model.schema_.encode(X)]
    assert got == model.predict(X).tolist()
    return predict


# -- the models ----------------------------------------------------------------------------
def _airquality(**params):
    """airquality's Ozone: 37 missing targets, missing Solar.R values among the features."""
    frame = pd.read_csv(BUNDLED / "airquality.csv")
    y = frame.pop("Ozone")
    if params.pop("month_categorical", False):
        frame["Month"] = frame["Month"].map({5: "May", 6: "Jun", 7: "Jul", 8: "Aug", 9: "Sep"})
        params["categorical_features"] = ["Month"]
    model = DecisionTreeRegressor(**params).fit(frame, y)
    assert frame.isna().any(axis=None)
    blank = pd.DataFrame([[np.nan] * frame.shape[1]], columns=frame.columns)
    return model, pd.concat([frame, blank], ignore_index=True)


def _penguins():
    """Body mass from species, island, sex (categorical, sex with NAs) and measurements."""
    frame = pd.read_csv(BUNDLED / "penguins.csv")
    frame = frame[frame["body_mass_g"].notna()].reset_index(drop=True)
    y = frame.pop("body_mass_g")
    model = DecisionTreeRegressor(max_depth=6, min_samples_leaf=3).fit(frame, y)
    assert any(spec.is_categorical for spec in model.schema_.features)
    assert frame["sex"].isna().any()
    extra = frame.head(6).copy()
    extra.loc[0:2, ["species", "sex"]] = None  # categorical values missing
    extra.loc[3:5, ["flipper_length_mm", "bill_depth_mm"]] = np.nan
    return model, pd.concat([frame, extra], ignore_index=True)


def _shops():
    """A categorical split on a subset of categories, missing shops sent to a learned side."""
    rng = np.random.default_rng(3)
    n = 300
    shops = np.array(["north", "south", "east", "west", "it's", "*/ odd"], dtype=object)
    X = pd.DataFrame({"shop": rng.choice(shops, size=n), "price": rng.normal(10, 3, size=n)})
    y = (np.where(X["shop"].isin(["north", "east", "it's"]), 20.0, 5.0) + X["price"]
         + rng.normal(0, 0.5, size=n)).rename("sales")
    X.loc[rng.random(n) < 0.1, "shop"] = None
    X.loc[rng.random(n) < 0.1, "price"] = np.nan
    return DecisionTreeRegressor(max_depth=5).fit(X, y), X


CASES = {
    "airquality": lambda: _airquality(),
    "airquality-depth-3": lambda: _airquality(max_depth=3),
    "airquality-month-categorical": lambda: _airquality(month_categorical=True),
    "penguins": _penguins,
    "shops": _shops,
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
def test_categorical_split_is_written_on_category_values():
    model, X = _airquality(max_depth=None, month_categorical=True)
    assert any(model.schema_.features[int(f)].is_categorical
               for f in model.tree_.feature[model.tree_.kind != 0])
    source = to_source(model)
    assert "TARGET = _predict_TARGET = 'Ozone'" in source
    assert "CLASSES" not in source
    assert "x[3] ==" in source or "x[3] in {" in source  # Month by its values
    predict = python_predict(source)
    row = X.iloc[0].tolist()
    assert predict(row) == model.predict(X.head(1))[0]


def test_invalid_input_raises_in_python_and_gives_nan_in_c(tmp_path):
    model, X = _penguins()
    predict = python_predict(to_source(model, X=X))
    good = rows_of(X)[0]
    bad_species = ("Emperor", *good[1:])
    with pytest.raises(ValueError, match=rf"^{MESSAGE}: feature 0 \('species'\) = 'Emperor' "
                                         r"is not one of its 3 categories"):
        predict(bad_species)
    too_long = (*good[:2], 1e6, *good[3:])  # bill_length_mm far outside the training range
    with pytest.raises(ValueError, match=f"^{MESSAGE}: feature 2 .* is outside the range"):
        predict(too_long)
    with pytest.raises(ValueError, match=f"^{MESSAGE}: expected"):
        predict(good[:-1])
    assert predict(tuple("?" if v is None else v for v in good)) == predict(good)
    if CC is None:
        return
    c_predict = compile_c(to_source(model, language="c", X=X), tmp_path)
    encoded = model.schema_.encode(X.head(1))[0]
    assert c_predict(encoded) == model.predict(X.head(1))[0]
    for j, value in ((0, 3.0), (0, -1.0), (0, 0.5), (2, 1e6), (3, math.inf)):
        bad = encoded.copy()
        bad[j] = value
        assert math.isnan(c_predict(bad)), (j, value)


@needs_cc
def test_c_compiles_cleanly_as_c99(tmp_path):
    model, _ = _shops()
    c_file = tmp_path / "strict.c"
    c_file.write_text(to_source(model, language="c"), encoding="utf-8")
    result = subprocess.run([CC, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c",
                             "-o", str(tmp_path / "strict.o"), str(c_file)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_deep_trees_spill_into_helpers(tmp_path):
    # targets doubling at each step: every best cut splits off the largest value, a chain
    X = pd.DataFrame({"x": np.arange(80.0)})
    y = pd.Series(2.0 ** np.arange(80.0), name="y")
    model = DecisionTreeRegressor().fit(X, y)
    assert model.get_depth() > MAX_NESTING
    rows = pd.DataFrame({"x": np.r_[np.arange(-1.0, 81.0, 0.5), np.nan]})
    source = to_source(model)
    assert "\ndef _predict_n" in source
    assert_python_matches(model, rows)
    if CC is not None:
        assert "static double predict_n" in to_source(model, language="c")
        assert_c_matches(model, rows, tmp_path)


def test_a_node_sending_missing_values_everywhere_takes_the_heaviest_branch(tmp_path):
    """The flat tree allows it (C4.5's layout); ``predict`` then follows the child with the
    most training weight, and so does the generated code."""
    model, X = _airquality(max_depth=3)
    tree = model.tree_
    inner = np.flatnonzero(tree.kind != 0)
    tree.missing_branch[inner] = -1
    children = [tree.children(node) for node in inner]
    weights = [tree.weighted_n_node_samples[c] for c in children]
    assert any(w[1] > w[0] for w in weights) and any(w[0] > w[1] for w in weights)
    assert_python_matches(model, X)
    if CC is not None:
        assert_c_matches(model, X, tmp_path)


def test_unnamed_target_from_numpy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    X[::7, 1] = np.nan
    model = DecisionTreeRegressor(max_depth=3).fit(X, 3.0 * X[:, 0])
    source = to_source(model)
    assert "TARGET = _predict_TARGET = None" in source
    assert " * TARGET (unnamed)" in to_source(model, language="c")
    predict = python_predict(source)
    assert [predict(row) for row in X.tolist()] == model.predict(X).tolist()


def test_function_name_and_loaded_model(tmp_path):
    model, X = _airquality(max_depth=3)
    predict = python_predict(to_source(model, function_name="ozone"), "ozone")
    assert predict(rows_of(X)[0]) == model.predict(X.head(1))[0]
    with pytest.raises(ValueError, match="function_name"):
        to_source(model, function_name="TARGET")
    model.save(tmp_path / "ozone.json")
    loaded = quercus.load_model(tmp_path / "ozone.json")
    for language in ("python", "c"):
        assert to_source(loaded, language=language) == to_source(model, language=language)
    assert "double ozone(const double *row)" in to_source(model, language="c",
                                                          function_name="ozone")


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
    shutil.copy(BUNDLED / "airquality.csv", tmp_path / "airquality.csv")
    trained = run(quercus_cmd, "train", "airquality.csv", "--target", "Ozone", "--max-depth",
                  "4", "--out", "ozone.json", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    model = quercus.load_model(tmp_path / "ozone.json")
    assert isinstance(model, DecisionTreeRegressor)
    data = quercus.read_csv(tmp_path / "airquality.csv", "Ozone")

    result = run(quercus_cmd, "export", "ozone.json", "--format", "python", "--out",
                 "ozone.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Python source written to ozone.py\n"
    predict = python_predict((tmp_path / "ozone.py").read_text(encoding="utf-8"))
    assert [predict(row) for row in rows_of(data.X)] == model.predict(data.X).tolist()

    result = run(quercus_cmd, "export", "ozone.json", "--format", "c", "--ranges",
                 "airquality.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == to_source(model, language="c", X=data.X)
    if CC is not None:
        c_predict = compile_c(result.stdout, tmp_path)
        assert ([c_predict(row) for row in model.schema_.encode(data.X)]
                == model.predict(data.X).tolist())
