"""Decision surfaces (quercus.plotting, ``quercus plot``) and the bundled yinyang data."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from picture_cases import AWKWARD_NAME, fitted

import quercus
from quercus import DecisionTreeClassifier, cli, datasets
from quercus.errors import DataError
from quercus.export.palette import class_colour, tint
from quercus.plotting import save_decision_surface, surface_grid
from quercus.tree import LEAF

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


def _generator():
    spec = importlib.util.spec_from_file_location("make_yinyang", ROOT / "tools/make_yinyang.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the data set --------------------------------------------------------------------------
def test_yinyang_labels_follow_the_symbol():
    data = datasets.load("yinyang")
    assert data.X.shape == (400, 2) and list(data.X.columns) == ["x", "y"]
    assert np.all(np.hypot(data.X["x"], data.X["y"]) <= 1.0 + 1e-3)
    label = _generator().yinyang_class
    assert data.y.tolist() == [label(x, y) for x, y in data.X.itertuples(index=False)]
    assert Counter(data.y) == {"yang": 214, "yin": 186}
    # hand-checked points: the eyes, the small disks and the halves
    assert [label(0, 0.5), label(0, 0.3), label(-0.9, 0), label(0.9, 0),
            label(0, -0.5), label(0, -0.3)] == ["yang", "yin", "yin", "yang", "yin", "yang"]


def test_the_generator_writes_the_bundled_file(tmp_path):
    out = tmp_path / "yinyang.csv"
    assert _generator().main([str(out)]) == 0
    assert out.read_bytes() == (BUNDLED / "yinyang.csv").read_bytes()


# -- the grid ------------------------------------------------------------------------------
def _indices(model, labels, proba):
    classes = model.classes_.tolist()
    out = np.array([classes.index(v) if v in classes else -1 for v in labels])
    out[proba.sum(axis=1) == 0] = -1
    return out


@pytest.mark.parametrize("algorithm", ["cart", "c45", "interval"])
def test_grid_classes_are_the_model_predictions(algorithm):
    data = datasets.load("yinyang")
    model = DecisionTreeClassifier(algorithm=algorithm).fit(data.X, data.y)
    grid = surface_grid(model, data.X, ["x", "y"], resolution=40)
    assert grid.classes.shape == (40, 40)
    assert grid.xs[0] < data.X["x"].min() and grid.xs[-1] > data.X["x"].max()
    xx, yy = np.meshgrid(grid.xs, grid.ys)
    rows = pd.DataFrame({"x": xx.ravel(), "y": yy.ravel()})
    pd.testing.assert_frame_equal(grid.rows, rows)
    expected = _indices(model, model.predict(rows).tolist(), model.predict_proba(rows))
    np.testing.assert_array_equal(grid.classes.ravel(), expected)
    assert set(np.unique(grid.classes)) >= {0, 1}


def test_other_features_are_held_at_median_and_mode():
    model, X, _ = fitted("cart-awkward-missing")
    grid = surface_grid(model, X, ["b", "num a"], resolution=5)
    column = X[AWKWARD_NAME].dropna()
    counts = Counter(column)
    assert counts[grid.held[AWKWARD_NAME]] == max(counts.values())
    assert (grid.rows[AWKWARD_NAME] == grid.held[AWKWARD_NAME]).all()
    iris_model, iris, _ = fitted("cart-iris")
    grid = surface_grid(iris_model, iris, ["petal_length", "petal_width"], resolution=5)
    assert grid.held == {"sepal_length": 5.8, "sepal_width": 3.0}  # np.median by hand: 5.8, 3
    assert (grid.rows["sepal_length"] == 5.8).all() and (grid.rows["sepal_width"] == 3.0).all()


def _descend(tree, point) -> int:
    """The leaf of a numeric-only CART tree for (x, y), by walking the arrays by hand."""
    node = 0
    while tree.kind[node] != LEAF:
        left, right = tree.children(node)
        node = left if point[tree.feature[node]] <= tree.threshold[node] else right
    return node


def test_a_depth_limited_cart_tree_draws_axis_parallel_rectangles():
    data = datasets.load("yinyang")
    model = DecisionTreeClassifier(max_depth=4).fit(data.X, data.y)
    tree = model.tree_
    grid = surface_grid(model, data.X, ["x", "y"], resolution=120)
    inner = tree.kind != LEAF
    cuts = [np.unique(tree.threshold[inner & (tree.feature == f)]) for f in (0, 1)]
    assert cuts[0].size and cuts[1].size  # both axes are cut
    cell_x = np.searchsorted(cuts[0], grid.xs, side="left")  # x <= t lies left of cut t
    cell_y = np.searchsorted(cuts[1], grid.ys, side="left")
    by_cell: dict = {}
    for i, cy in enumerate(cell_y):
        for j, cx in enumerate(cell_x):
            by_cell.setdefault((cx, cy), set()).add(int(grid.classes[i, j]))
            leaf = _descend(tree, (grid.xs[j], grid.ys[i]))
            assert grid.classes[i, j] == np.argmax(tree.value[leaf])
    assert all(len(classes) == 1 for classes in by_cell.values())  # constant per rectangle
    assert {c for classes in by_cell.values() for c in classes} == {0, 1}


def test_bad_feature_choices_are_one_clear_error():
    model, X, _ = fitted("cart-awkward-missing")
    with pytest.raises(DataError, match="categorical"):
        surface_grid(model, X, ["num a", AWKWARD_NAME])
    with pytest.raises(DataError, match="unknown feature 'nope'"):
        surface_grid(model, X, ["num a", "nope"])
    with pytest.raises(DataError, match="must differ"):
        surface_grid(model, X, ["b", "b"])


# -- the picture ---------------------------------------------------------------------------
def _rgb(colour):
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0


def test_png_shows_both_class_regions(tmp_path):
    image = pytest.importorskip("matplotlib.image")
    data = datasets.load("yinyang")
    model = DecisionTreeClassifier(max_depth=4).fit(data.X, data.y)
    out = tmp_path / "surface.png"
    save_decision_surface(model, data.X, data.y, ["x", "y"], out, resolution=100)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(out)[:, :, :3]
    assert pixels.shape == (600, 640, 3)
    for k in range(2):  # the surface colour of each class fills a good part of the picture
        share = np.all(np.abs(pixels - _rgb(tint(class_colour(k), 0.35))) < 0.02, axis=2).mean()
        assert share > 0.1


def test_plot_command(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    data_file = BUNDLED / "yinyang.csv"
    model_file = tmp_path / "yy.json"
    assert cli.main(["train", str(data_file), "--target", "class", "--max-depth", "5",
                     "--out", str(model_file)]) == 0
    out = tmp_path / "s.svg"
    assert cli.main(["plot", str(model_file), str(data_file), "--out", str(out),
                     "--resolution", "50"]) == 0
    assert out.read_text().lstrip().startswith("<?xml") and "<svg" in out.read_text()
    capsys.readouterr()
    bad = tmp_path / "s.gif"
    assert cli.main(["plot", str(model_file), str(data_file), "--out", str(bad)]) == 2
    assert cli.main(["plot", str(model_file), str(data_file), "--features", "x", "z",
                     "--out", str(tmp_path / "t.png")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("quercus: error: ") for line in err)
    assert "'.gif'" in err[0] and "unknown feature 'z'" in err[1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.svg", "yy.json"]


def test_missing_matplotlib_is_a_clear_error(tmp_path, monkeypatch, capsys):
    model_file = tmp_path / "m.json"
    fitted("cart-iris")[0].save(model_file)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert cli.main(["plot", str(model_file), str(BUNDLED / "iris.csv"), "--features",
                     "petal_length", "petal_width", "--out", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'quercus[plot]'" in err


# -- regression trees ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def ozone():
    data = quercus.read_csv(BUNDLED / "airquality.csv", "Ozone")  # NAs in Ozone and Solar.R
    model = quercus.DecisionTreeRegressor(max_depth=4).fit(data.X, data.y)
    return model, data.X, data.y


def test_regression_grid_values_are_the_model_predictions(ozone):
    model, X, _ = ozone
    grid = surface_grid(model, X, ["Temp", "Wind"], resolution=30)
    assert grid.classes is None and grid.values.shape == (30, 30)
    np.testing.assert_array_equal(grid.values.ravel(), model.predict(grid.rows))
    assert grid.held["Solar.R"] == float(np.median(X["Solar.R"].dropna()))
    assert len(np.unique(grid.values)) >= 4  # several leaves show


def test_regression_picture_is_a_colour_map_with_a_colour_bar(ozone, tmp_path):
    image = pytest.importorskip("matplotlib.image")
    from matplotlib import colormaps

    from quercus.plotting import VALUE_COLOURS, plot_decision_surface

    model, X, y = ozone
    figure = plot_decision_surface(model, X, y, ["Temp", "Wind"], resolution=60)
    ax, bar = figure.axes  # the plot and its colour bar
    assert "Ozone" in bar.get_ylabel()
    grid = surface_grid(model, X, ["Temp", "Wind"], resolution=60)
    np.testing.assert_array_equal(ax.images[0].get_array(), grid.values)
    known = X["Temp"].notna() & X["Wind"].notna() & y.notna()
    points = ax.collections[0]
    np.testing.assert_array_equal(np.asarray(points.get_array()), y[known].to_numpy(float))
    low = min(grid.values.min(), y.min())
    high = max(grid.values.max(), y.max())
    assert bar.get_ylim() == pytest.approx((low, high))

    out = tmp_path / "ozone.png"
    save_decision_surface(model, X, y, ["Temp", "Wind"], out, resolution=60)
    pixels = image.imread(out)[:, :, :3]
    cmap = colormaps[VALUE_COLOURS]
    for value in np.unique(grid.values):  # each leaf's mean shows in its own colour
        colour = np.array(cmap((value - low) / (high - low))[:3])
        assert np.all(np.abs(pixels - colour) < 0.02, axis=2).mean() > 0.002, value


def test_plot_command_for_a_regression_tree(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    data_file = BUNDLED / "airquality.csv"
    model_file = tmp_path / "ozone.json"
    assert cli.main(["train", str(data_file), "--target", "Ozone", "--max-depth", "3",
                     "--out", str(model_file)]) == 0
    out = tmp_path / "ozone.png"
    assert cli.main(["plot", str(model_file), str(data_file), "--features", "Temp", "Wind",
                     "--out", str(out), "--resolution", "40"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().out.endswith(f"Decision surface written to {out}\n")
