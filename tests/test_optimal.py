"""algorithm="optimal": the anchors' proven optima, the orderings between split families,
CART's training error as a ceiling, the anytime result and the ordinary-tree promises.

Reference optima come from ../shared/anchors/optimal/results.csv (STreeD, MurTree and
DL8.5 agreeing and proven on the binarized sets; ConTree proven on raw values). The data
files in tests/data/optimal/ are copies of that folder's data/ (make_data.py from Weka's
example ARFF files and scikit-learn), checked here against their SHA-256.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus import DecisionTreeClassifier, datasets
from quercus.data.arff_reader import read_arff

DATA = Path(__file__).parent / "data" / "optimal"
ARFF = Path(__file__).parent / "data" / "arff"

# (set, kind, depth) -> proven optimum (training misclassifications)
ANCHORS = {
    ("vote", "bin", 2): 18, ("vote", "bin", 3): 13, ("vote", "bin", 4): 5,
    ("breast-cancer", "bin", 2): 67, ("breast-cancer", "bin", 3): 57,
    ("diabetes", "bin", 2): 178, ("diabetes", "bin", 3): 162,
    ("diabetes", "raw", 2): 171, ("diabetes", "raw", 3): 151,
}
CART_RAW = {("diabetes", 4): 160}  # scikit-learn's greedy tree on the raw values


def _checksums() -> dict:
    lines = (DATA / "SHA256SUMS").read_text().split("\n")
    return {name: digest for digest, name in (line.split() for line in lines if line)}


def _load(name: str, kind: str):
    path = DATA / f"{name}.{kind}.csv"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == _checksums()[path.name]
    frame = pd.read_csv(path)
    y = frame.pop("label").to_numpy()
    return frame.to_numpy(dtype=float), y


def _errors(model, X, y) -> int:
    return int(np.count_nonzero(model.predict(X) != y))


@pytest.mark.parametrize(("name", "kind", "depth"), sorted(ANCHORS))
def test_equal_to_the_anchors_proven_optimum(name, kind, depth):
    X, y = _load(name, kind)
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=depth).fit(X, y)
    expected = ANCHORS[(name, kind, depth)]
    assert model.optimal_
    assert model.objective_ == model.lower_bound_ == expected
    assert _errors(model, X, y) == expected
    assert model.get_depth() <= depth


# the anchors' binarization, read natively: nominal one-vs-rest, numeric at the same
# quantile thresholds, missing values failing every test
NATIVE = [("vote", 2, None, 18), ("vote", 3, None, 13), ("breast-cancer", 2, None, 67),
          ("breast-cancer", 3, None, 57), ("diabetes", 2, 9, 178), ("diabetes", 3, 9, 162)]


@pytest.mark.parametrize(("name", "depth", "bins", "expected"), NATIVE)
def test_native_arff_with_the_anchor_families_equals_the_binary_optimum(name, depth, bins,
                                                                        expected):
    data = read_arff(ARFF / f"{name}.arff")
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=depth, numeric="bins",
                                   max_bins=bins or 255, categorical="one_vs_rest",
                                   missing="false")
    model.fit(data.X, data.y)
    assert model.optimal_ and model.objective_ == expected
    y = np.asarray(data.y, dtype=object)
    assert np.count_nonzero(model.predict(data.X).astype(object) != y) == expected


def _objective(data, depth, **options):
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=depth, **options)
    model.fit(data.X, data.y)
    assert model.optimal_
    return model.objective_


@pytest.mark.parametrize("name", ["vote", "breast-cancer"])
def test_orderings_between_families_and_depths(name):
    data = read_arff(ARFF / f"{name}.arff")
    families = {}
    for categorical in ("subset", "one_vs_rest"):
        for missing in ("learn", "false"):
            families[categorical, missing] = _objective(data, 2, categorical=categorical,
                                                        missing=missing)
    assert families["subset", "learn"] <= families["subset", "false"]
    assert families["one_vs_rest", "learn"] <= families["one_vs_rest", "false"]
    assert families["subset", "learn"] <= families["one_vs_rest", "learn"]
    assert families["subset", "false"] <= families["one_vs_rest", "false"]
    depths = [_objective(data, d, categorical="one_vs_rest") for d in (1, 2, 3)]
    assert depths[0] >= depths[1] >= depths[2]


def test_exact_thresholds_beat_or_equal_bins_and_cart():
    data = read_arff(ARFF / "diabetes.arff")
    y = np.asarray(data.y, dtype=object)
    for depth in (1, 2):
        exact = _objective(data, depth)
        for bins in (3, 9):
            assert exact <= _objective(data, depth, numeric="bins", max_bins=bins)
        cart = DecisionTreeClassifier(max_depth=depth).fit(data.X, data.y)
        assert exact <= np.count_nonzero(cart.predict(data.X).astype(object) != y)


@pytest.mark.parametrize("name", ["vote", "breast-cancer", "diabetes", "iris", "xor"])
def test_never_worse_than_cart_at_the_same_depth(name):
    if name in ("iris", "xor"):
        data = datasets.load(name)
    else:
        data = read_arff(ARFF / f"{name}.arff")
    y = np.asarray(data.y, dtype=object)
    for depth in (1, 2, 3):
        optimal = DecisionTreeClassifier(algorithm="optimal", max_depth=depth)
        optimal.fit(data.X, data.y)
        cart = DecisionTreeClassifier(max_depth=depth).fit(data.X, data.y)
        assert optimal.objective_ <= np.count_nonzero(cart.predict(data.X).astype(object) != y)
        assert optimal.objective_ == np.count_nonzero(
            optimal.predict(data.X).astype(object) != y)


def test_anytime_returns_on_time_and_never_worse_than_cart():
    X, y = _load("diabetes", "raw")
    warm = DecisionTreeClassifier(algorithm="optimal", max_depth=4, time_limit=0.2)
    warm.fit(X[:100], y[:100])  # compile outside the timing
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=4, time_limit=1)
    started = time.perf_counter()
    model.fit(X, y)
    elapsed = time.perf_counter() - started
    assert elapsed <= 1.2
    assert model.lower_bound_ <= model.objective_ <= CART_RAW["diabetes", 4]
    assert model.gap_ == model.objective_ - model.lower_bound_
    assert model.optimal_ == (model.gap_ == 0)
    assert _errors(model, X, y) == model.objective_


def test_split_penalty_and_max_splits_shape_the_tree():
    data = datasets.load("iris")
    free = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(data.X, data.y)
    capped = DecisionTreeClassifier(algorithm="optimal", max_depth=3, max_splits=2)
    capped.fit(data.X, data.y)
    assert capped.tree_.n_leaves <= 3 and capped.objective_ >= free.objective_
    # iris at depth <= 3: 50 errors with no split, 50 with one, 6 with two (hand-checked
    # from the depth-2 optimum); a penalty of 30 per split keeps two splits: 6 + 60 = 66
    penalised = DecisionTreeClassifier(algorithm="optimal", max_depth=3, split_penalty=30)
    penalised.fit(data.X, data.y)
    assert penalised.tree_.n_leaves == 3 and penalised.objective_ == 66
    huge = DecisionTreeClassifier(algorithm="optimal", max_depth=3, split_penalty=60)
    assert huge.fit(data.X, data.y).tree_.n_leaves == 1 and huge.objective_ == 100


def test_useless_splits_are_removed():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(X, [0, 0, 0, 0])
    assert model.tree_.n_nodes == 1 and model.objective_ == 0


def test_an_optimal_tree_is_an_ordinary_tree(tmp_path):
    from quercus import load_model
    from quercus.export.rules import rules_to_text

    frame = pd.DataFrame({"colour": ["red", "blue", None, "green", "red", "blue", "green",
                                     None, "red", "green"] * 3,
                          "size": [1.0, 2.0, 3.0, np.nan, 5.0, 6.0, 7.0, 8.0, 2.5, 4.5] * 3})
    y = np.array(["a", "b", "a", "b", "b", "a", "a", "b", "b", "a"] * 3)
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(frame, y)
    assert model.optimal_ and np.count_nonzero(model.predict(frame) != y) == model.objective_
    path = tmp_path / "m.json"
    model.save(path)
    loaded = load_model(path)
    assert loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.predict(frame), model.predict(frame))
    assert np.allclose(loaded.predict_proba(frame), model.predict_proba(frame))
    rules = rules_to_text(model)
    assert "colour" in rules or "size" in rules
    assert len(model.explain(frame.iloc[:2])) == 2
    from quercus.report import report_html

    page = report_html(model, frame, y)
    assert "<html" in page.lower() and ("colour" in page or "size" in page)
    source = model.to_source("python")
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 -- the generated code under test
    generated = [namespace["predict"](list(row)) for row in frame.itertuples(index=False)]
    assert generated == list(model.predict(frame))


def test_onnx_export_predicts_like_the_tree():
    onnxruntime = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from quercus.export.onnx import to_onnx

    data = read_arff(ARFF / "vote.arff")  # categorical subsets and learned missing sides
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(data.X, data.y)
    session = onnxruntime.InferenceSession(to_onnx(model, inputs="encoded").SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    labels, _proba = session.run(None, {"X": model.schema_.encode(data.X)})
    assert list(np.asarray(labels).ravel()) == list(model.predict(data.X))


@pytest.mark.parametrize(("param", "value"), [
    ("numeric", "quantile"), ("categorical", "all"), ("missing", "left"),
    ("max_subset_categories", 17), ("max_splits", -1), ("split_penalty", -1.0),
    ("time_limit", 0), ("max_gap", -2.0)])
def test_bad_options_are_refused_in_one_line(param, value):
    data = datasets.load("iris")
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=2, **{param: value})
    with pytest.raises(ValueError, match=param):
        model.fit(data.X, data.y)


def _quercus(*args, cwd):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "quercus", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


def test_cli_train_prints_objective_bound_and_status(tmp_path):
    from quercus import load_model

    arff = ARFF / "vote.arff"
    done = _quercus("train", arff, "--target", "Class", "--out", "m.json", "--algorithm",
                    "optimal", "--max-depth", "2", "--categorical-splits", "one_vs_rest",
                    "--missing-side", "false", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Objective: 18, lower bound: 18 (optimal)" in done.stdout  # the anchors' optimum
    model = load_model(tmp_path / "m.json")
    assert model.algorithm == "optimal" and model.missing == "false"
    limited = _quercus("train", arff, "--target", "Class", "--out", "t.json", "--algorithm",
                       "optimal", "--max-depth", "4", "--time-limit", "0.01", cwd=tmp_path)
    assert limited.returncode == 0, limited.stderr
    assert "(time limit)" in limited.stdout or "(optimal)" in limited.stdout
    evaluated = _quercus("eval", arff, "--target", "Class", "--algorithm", "optimal",
                         "--max-depth", "1", cwd=tmp_path)
    assert evaluated.returncode == 0 and "Accuracy" in evaluated.stdout


def test_cli_refuses_a_bad_optimal_option_in_one_line(tmp_path):
    done = _quercus("train", ARFF / "vote.arff", "--target", "Class", "--out", "m.json",
                    "--algorithm", "optimal", "--max-subset-categories", "40", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "max_subset_categories" in done.stderr
    assert not (tmp_path / "m.json").exists()


def _raw_numeric():
    """Numeric rows with ties, enough of them for the threads to share a depth-2 node."""
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(800, 6)), 2)
    y = ((X[:, 0] > 0.2) ^ (X[:, 3] < -0.4) ^ (rng.random(800) < 0.1)).astype(int)
    return X, y


@pytest.mark.parametrize("case", ["breast-cancer", "raw numeric"])
def test_same_model_file_every_time_and_on_one_thread(tmp_path, case):
    from quercus._kernels._openmp import limited, max_threads

    if case == "raw numeric":  # the depth-2 solver's interval blocks on both threads
        X, y = _raw_numeric()
    else:
        data = read_arff(ARFF / "breast-cancer.arff")
        X, y = data.X, data.y
    paths = []
    for i, threads in enumerate((max_threads(), max_threads(), 1)):
        with limited(threads):
            model = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(X, y)
        paths.append(tmp_path / f"m{i}.json")
        model.save(paths[-1])
    assert model.optimal_
    assert paths[0].read_bytes() == paths[1].read_bytes() == paths[2].read_bytes()


def test_fractional_weights_scale_the_objective():
    """Halving every weight halves the optimum (the float path against the integer one)."""
    data = read_arff(ARFF / "vote.arff")
    rng = np.random.default_rng(3)
    w = rng.integers(1, 4, len(data.y)).astype(float)
    whole = DecisionTreeClassifier(algorithm="optimal", max_depth=2)
    whole.fit(data.X, data.y, sample_weight=w)
    half = DecisionTreeClassifier(algorithm="optimal", max_depth=2)
    half.fit(data.X, data.y, sample_weight=w / 2)
    assert isinstance(whole.objective_, int) and isinstance(half.objective_, float)
    assert half.objective_ == whole.objective_ / 2 and half.optimal_


def test_unlabelled_and_zero_weight_rows_are_left_out():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array(["a", "a", None, "b", "b", "a"], dtype=object)
    w = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=1).fit(X, y, sample_weight=w)
    assert model.objective_ == 0 and model.tree_.n_node_samples[0] == 4


@pytest.mark.parametrize("case", ["one_class", "all_missing_column", "one_row"])
def test_degenerate_data(case):
    X = np.array([[0.0, np.nan], [1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    y = ["a", "b", "a", "b"]
    if case == "one_class":
        y = ["a"] * 4
    elif case == "one_row":
        X, y = X[:1], y[:1]
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(X, y)
    expected = {"one_class": 0, "all_missing_column": 0, "one_row": 0}[case]
    assert model.optimal_ and model.objective_ == expected
    assert np.count_nonzero(model.predict(X) != np.asarray(y)) == expected


def test_max_gap_stops_early_with_an_honest_status():
    data = datasets.load("iris")
    y = np.asarray(data.y, dtype=object)
    cart = DecisionTreeClassifier(max_depth=3).fit(data.X, data.y)
    cart_errors = np.count_nonzero(cart.predict(data.X).astype(object) != y)
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=3, max_gap=200)
    model.fit(data.X, data.y)
    assert not model.optimal_ and model.gap_ <= 200
    assert model.lower_bound_ <= model.objective_ <= cart_errors
    exact = DecisionTreeClassifier(algorithm="optimal", max_depth=3, max_gap=0.5)
    exact.fit(data.X, data.y)  # no gap below 1 error can be reached before the proof
    assert exact.optimal_ and exact.objective_ == 1


def test_lower_bound_after_a_stop_counts_equivalent_points_and_the_penalty():
    """Rows 0-3 and 4-7 are copies with opposite labels: any tree errs on 4 of them."""
    X = np.array([[0.0, 1.0]] * 4 + [[0.0, 1.0]] * 4 + [[1.0, 0.0], [2.0, 5.0]] * 8)
    y = np.array([0] * 4 + [1] * 4 + [0, 1] * 8)
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=3, split_penalty=1,
                                   max_gap=100).fit(X, y)
    assert not model.optimal_
    assert model.lower_bound_ == min(model.objective_, 4 + 1)
