"""CART's priors, loss matrix and cross-validated pruning: hand-computed cases, the
weakest-link complexities against a brute-force pruning, validation and determinism."""

import numpy as np
import pandas as pd
import pytest

from quercus import DecisionTreeClassifier
from quercus.class_costs import resolve_class_costs
from quercus.pruning.cv_prune import resolve_folds, stratified_folds, thresholds
from quercus.pruning.risk_complexity import exact_node_complexities, risk_path
from quercus.tree import LEAF


def _one_split_data():
    # one possible split: x = 0 holds 6 of class 0 and 2 of class 1, x = 1 holds 1 and 3
    X = np.array([[0]] * 8 + [[1]] * 4, dtype=float)
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1])
    return X, y


def test_priors_give_prior_adjusted_probabilities():
    X, y = _one_split_data()
    model = DecisionTreeClassifier(max_depth=1, priors=[0.5, 0.5]).fit(X, y)
    # n_0 = 7, n_1 = 5: p_i ~ n_i(node) * pi_i / n_i; left leaf (6, 2): 6/7 vs 2/5
    left = np.array([6 / 7, 2 / 5]) / (6 / 7 + 2 / 5)
    right = np.array([1 / 7, 3 / 5]) / (1 / 7 + 3 / 5)
    np.testing.assert_allclose(model.predict_proba([[0], [1]]), [left, right], rtol=1e-12)
    assert model.tree_.node_class is None  # no loss: the likeliest class


def test_loss_makes_the_least_loss_class():
    X, y = _one_split_data()
    # predicting 0 for a true 1 costs 5: the left leaf (6 of 0, 2 of 1) risks 6 as class 1
    # and 2 * 5 = 10 as class 0, so it predicts 1; probabilities stay the class shares
    model = DecisionTreeClassifier(max_depth=1, loss=[[0, 1], [5, 0]]).fit(X, y)
    assert model.tree_.n_leaves == 2
    np.testing.assert_array_equal(model.predict([[0], [1]]), [1, 1])
    np.testing.assert_allclose(model.predict_proba([[0]]), [[6 / 8, 2 / 8]], rtol=1e-12)
    plain = DecisionTreeClassifier(max_depth=1).fit(X, y)
    np.testing.assert_array_equal(plain.predict([[0], [1]]), [0, 1])


def test_altered_priors_weigh_the_split_search():
    costs = resolve_class_costs([0.25, 0.75], [[0, 1], [3, 0]], np.array([0, 0, 0, 1]),
                                np.ones(4), ["a", "b"])
    # f = (3/4, 1/4); q = pi / f = (1/3, 3); altered priors ~ (0.25 * 1, 0.75 * 3)
    np.testing.assert_allclose(costs.risk_weight, [1 / 3, 3])
    altered = np.array([0.25, 2.25]) / 2.5
    np.testing.assert_allclose(costs.split_weight, altered / [0.75, 0.25])


def test_defaults_leave_cart_unchanged():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    plain = DecisionTreeClassifier().fit(X, y)
    neutral = DecisionTreeClassifier(priors=None, loss=None, prune=None, xval=3).fit(X, y)
    for name in ("value", "threshold", "feature", "impurity", "weighted_n_node_samples"):
        np.testing.assert_array_equal(getattr(plain.tree_, name), getattr(neutral.tree_, name))
    assert not hasattr(neutral, "cp_table_")


def _brute_force_levels(tree, risks):
    """Weakest-link pruning one node at a time: the alpha at which each node goes."""
    alive = set(np.flatnonzero(tree.kind != LEAF).tolist())
    gone = np.zeros(tree.n_nodes)
    leaves_of = {}

    def branch(node):  # (risk, leaves) of the current subtree below node
        if node not in alive:
            return risks[node], 1
        parts = [branch(c) for c in tree.children(node)]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)

    while alive:
        g = {}
        for node in alive:
            r, leaves = branch(node)
            g[node] = (risks[node] - r) / (leaves - 1)
        node = min(g, key=lambda k: (g[k], k))
        for descendant in tree.subtree_nodes(node):
            if descendant in alive:
                gone[descendant] = max(g[node], 0.0)
                alive.discard(descendant)
        leaves_of[node] = g[node]
    return gone


@pytest.mark.parametrize("seed", range(6))
def test_exact_complexities_match_brute_force_weakest_link(seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] * X[:, 1] + 0.5 * rng.normal(size=120) > 0).astype(int) + (X[:, 0] > 1)
    model = DecisionTreeClassifier(min_samples_leaf=3).fit(X, y)
    tree = model.tree_
    risks = tree.value.sum(axis=1) - tree.value.max(axis=1)
    alpha = exact_node_complexities(tree, risks)
    expected = _brute_force_levels(tree, risks)
    internal = tree.kind != LEAF
    np.testing.assert_allclose(alpha[internal], expected[internal], rtol=1e-9, atol=1e-12)


def test_thresholds_are_geometric_means():
    levels = np.array([8.0, 2.0, 0.5, 0.0])
    np.testing.assert_allclose(thresholds(levels), [80.0, 4.0, 1.0, 0.0])


def test_stratified_folds_keep_class_shares_and_are_seeded():
    y = np.array([0] * 30 + [1] * 10)
    folds = stratified_folds(y, 5, np.random.RandomState(3))
    for fold in range(5):
        assert np.count_nonzero((folds == fold) & (y == 0)) == 6
        assert np.count_nonzero((folds == fold) & (y == 1)) == 2
    again = stratified_folds(y, 5, np.random.RandomState(3))
    np.testing.assert_array_equal(folds, again)


def test_fold_ids_given_and_refused():
    y = np.array([0, 1, 0, 1, -1, 0])
    np.testing.assert_array_equal(resolve_folds([1, 1, 2, 2, 2, 1], y, None),
                                  [0, 0, 1, 1, -1, 0])
    with pytest.raises(ValueError, match="every id used"):
        resolve_folds([1, 1, 3, 3, 3, 1], y, None)
    with pytest.raises(ValueError, match="fold id 1..K of each of the 6 rows"):
        resolve_folds([1, 2], y, None)
    with pytest.raises(ValueError, match="at least 2 folds"):
        resolve_folds(1, y, None)


def test_prune_is_deterministic_and_prunes():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] + rng.normal(size=300) > 0).astype(int)
    a = DecisionTreeClassifier(prune="1se").fit(X, y)
    b = DecisionTreeClassifier(prune="1se").fit(X, y)
    pd.testing.assert_frame_equal(a.cp_table_, b.cp_table_)
    full = DecisionTreeClassifier().fit(X, y)
    assert a.get_n_leaves() < full.get_n_leaves()
    row = int(np.flatnonzero(a.cp_table_["CP"].to_numpy() == a.chosen_cp_)[0])
    assert a.get_n_leaves() == a.cp_table_["nsplit"][row] + 1
    path = risk_path(full.tree_, full.tree_.value.sum(axis=1) - full.tree_.value.max(axis=1))
    np.testing.assert_allclose(a.cp_table_["CP"], path.cp)
    other = DecisionTreeClassifier(prune="1se", random_state=2).fit(X, y)
    assert not np.array_equal(other.cp_table_["xerror"], a.cp_table_["xerror"])


@pytest.mark.parametrize("params, message", [
    ({"priors": [0.5, 0.6]}, "priors must sum to 1"),
    ({"priors": [1.0]}, "priors must be 2 numbers"),
    ({"priors": [1.0, 0.0]}, "priors must all be positive"),
    ({"loss": [[0, 1], [1, 1]]}, "zeros on its diagonal"),
    ({"loss": [[0, -1], [1, 0]]}, "non-negative"),
    ({"loss": [[0, 1, 1], [1, 0, 1]]}, "loss must be a 2x2 matrix"),
    ({"loss": [[0, 0], [1, 0]]}, "is all zero"),
    ({"prune": "best"}, "prune must be None or 'min' or '1se' for algorithm='cart'"),
    ({"prune": "1se", "ccp_alpha": 0.01}, "ccp_alpha cannot be combined with prune"),
    ({"priors": [0.5, 0.5], "class_weight": "balanced"}, "class_weight cannot be combined"),
    ({"prune": "1se", "xval": 50}, "at most the 12 training rows"),
    ({"algorithm": "c45", "prune": "1se"}, "prune must be None or 'cv' for algorithm='c45'"),
    ({"algorithm": "c45", "priors": [0.5, 0.5]}, "priors and loss are for algorithm='cart'"),
])
def test_bad_parameters_get_one_line_errors(params, message):
    X, y = _one_split_data()
    with pytest.raises(ValueError, match=message) as caught:
        DecisionTreeClassifier(**params).fit(X, y)
    assert "\n" not in str(caught.value)


def test_model_file_keeps_parameters_and_cp_table(tmp_path):
    from quercus import ModelFileError, load_model

    rng = np.random.RandomState(4)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    y = np.where(X["a"] + rng.normal(size=200) > 0, "yes", "no")
    model = DecisionTreeClassifier(prune="1se", xval=5, priors=[0.4, 0.6],
                                   loss=[[0, 1], [3, 0]]).fit(X, y)
    path = tmp_path / "m.json"
    model.save(path)
    loaded = load_model(path)
    pd.testing.assert_frame_equal(loaded.cp_table_, model.cp_table_)
    assert loaded.chosen_cp_ == model.chosen_cp_ and loaded.prune == "1se"
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    plain = DecisionTreeClassifier().fit(X, y)
    plain.save(tmp_path / "plain.json")
    assert "cp_table" not in (tmp_path / "plain.json").read_text()
    import json

    document = json.loads(path.read_text())
    document["chosen_cp"] = "0.01"
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="bad 'chosen_cp' entry"):
        load_model(tmp_path / "bad.json")
    document["chosen_cp"] = 0.01
    document["cp_table"]["xerror"] = "x"
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="bad 'cp_table' entry"):
        load_model(tmp_path / "bad.json")


def test_cli_prune_priors_loss(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    arff = Path(__file__).parent / "data" / "arff" / "credit-g.arff"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "quercus", "train", str(arff),
                               "--target", "class", "--out", str(tmp_path / "m.json"),
                               *args], check=False, capture_output=True, text=True)

    done = run("--prune", "1se", "--priors", "0.6,0.4", "--loss", "0,1;5,0", "--xval", "5")
    assert done.returncode == 0, done.stderr
    assert "Pruned by 5-fold cross-validation (1-SE rule): cp " in done.stdout
    shown = subprocess.run([sys.executable, "-m", "quercus", "show", str(tmp_path / "m.json")],
                           check=False, capture_output=True, text=True)
    assert "Pruned by 5-fold cross-validation" in shown.stdout
    (tmp_path / "loss.txt").write_text("0 1\n5 0\n")
    assert run("--loss", str(tmp_path / "loss.txt")).returncode == 0
    for args, message in [(("--prune", "best"), "prune must be None or 'min' or '1se'"),
                          (("--loss", "0,1;1"), "argument --loss: loss must be a square"),
                          (("--priors", "a,b"), "argument --priors: priors must be numbers"),
                          (("--priors", "0.5,0.5,0"), "priors must be 2 numbers")]:
        failed = run(*args)
        assert failed.returncode == 2 and message in failed.stderr, failed.stderr
        assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr


def test_one_class_and_unpruned_path():
    X = np.random.RandomState(0).normal(size=(30, 2))
    model = DecisionTreeClassifier(prune="1se").fit(X, ["a"] * 30)
    assert model.get_n_leaves() == 1 and len(model.cp_table_) == 1
    y = np.array(["a", "b"] * 15)
    pruned = DecisionTreeClassifier(prune="1se", xval=3).fit(X, y)
    path = pruned.cost_complexity_pruning_path(X, y)  # of the unpruned tree, on impurity
    unpruned = DecisionTreeClassifier().fit(X, y)
    expected = unpruned.cost_complexity_pruning_path(X, y)
    np.testing.assert_array_equal(path.ccp_alphas, expected.ccp_alphas)
    assert pruned.get_n_leaves() < unpruned.get_n_leaves()


def test_report_names_the_chosen_cp_and_unsupported_fits_refuse(tmp_path):
    from quercus.report import write_report

    rng = np.random.RandomState(5)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    model = DecisionTreeClassifier(prune="min", xval=4).fit(X, y)
    write_report(tmp_path / "r.html", model, title="t")
    assert f"{model.chosen_cp_:.4g} (least CV error)" in (tmp_path / "r.html").read_text()
    with pytest.raises(ValueError, match="prune is not supported by a multi-output fit"):
        DecisionTreeClassifier(prune="1se").fit(X, np.c_[y, y])
    with pytest.raises(ValueError, match="loss is not supported by fit_binned"):
        DecisionTreeClassifier(splitter="hist", loss=[[0, 1], [1, 0]]).fit_binned(
            None, y, None, None)
