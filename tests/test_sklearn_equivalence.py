"""On numeric data without missing values, CART builds scikit-learn's tree.

scikit-learn breaks exact ties between features at random (it visits features in a random
order); Quercus takes the lowest feature index. The comparison therefore walks both trees
over the training rows together: where both send the same rows left it goes on (whatever
the feature), where they differ it checks that the two splits are exactly as good (a tie)
and excuses that subtree. A tree with no excused subtree must match completely: nodes,
leaves, class counts at every leaf and the prediction for every row.
"""

import numpy as np
import pytest
from quercus._kernels._splits import ENTROPY, GINI, impurity_of
from sklearn import datasets
from sklearn.tree import DecisionTreeClassifier as SkTree

from quercus import DecisionTreeClassifier
from quercus.tree import LEAF

LOADERS = {
    "iris": datasets.load_iris,
    "wine": datasets.load_wine,
    "breast_cancer": datasets.load_breast_cancer,
    "digits": datasets.load_digits,
}

PARAMS = [
    {},
    {"max_depth": 3},
    {"criterion": "entropy"},
    {"min_samples_leaf": 5},
    {"min_samples_split": 10, "max_depth": 6},
    {"max_leaf_nodes": 12},
    {"min_impurity_decrease": 0.01},
    {"ccp_alpha": 0.01},
    {"class_weight": "balanced", "max_depth": 5},
    {"criterion": "entropy", "min_weight_fraction_leaf": 0.05},
]


def split_score(y, w, left, n_classes, criterion):
    total = 0.0
    for mask in (left, ~left):
        counts = np.bincount(y[mask], weights=w[mask], minlength=n_classes)
        total += counts.sum() * impurity_of(counts, criterion)
    return total


def compare_trees(ours, sk, X, y, w, report=None):
    """Walk both trees together; return the number of subtrees excused by exact ties.

    ``report["other_feature"]`` counts nodes where both send the same rows left through
    different features (equal partitions: the trees still match row for row).
    """
    report = {} if report is None else report
    report["other_feature"] = 0
    report["pure_split"] = 0
    tree, skt = ours.tree_, sk.tree_
    n_classes = tree.n_classes
    criterion = ENTROPY if ours.criterion == "entropy" else GINI
    excused = 0
    stack = [(0, 0, np.arange(X.shape[0]))]
    while stack:
        a, b, rows = stack.pop()
        a_leaf, b_leaf = tree.kind[a] == LEAF, skt.children_left[b] == -1
        if a_leaf and b_leaf:
            np.testing.assert_allclose(
                tree.value[a] / tree.value[a].sum(), skt.value[b][0], atol=1e-12
            )
            continue
        if a_leaf and np.count_nonzero(tree.value[a]) == 1:
            # scikit-learn computes a child's impurity from differences of rounded weight
            # sums; with fractional weights a pure node can come out a few ulps above 0 and
            # be split into two pure leaves of the same class. Quercus keeps it a leaf.
            report["pure_split"] += 1
            continue
        assert a_leaf == b_leaf, f"node {a}: one tree splits, the other does not"
        ours_left = X[rows, tree.feature[a]] <= tree.threshold[a]
        sk_left = X[rows, skt.feature[b]].astype(np.float32) <= skt.threshold[b]
        if np.array_equal(ours_left, sk_left):
            report["other_feature"] += int(tree.feature[a] != skt.feature[b])
            c = tree.children(a)
            stack.append((c[0], skt.children_left[b], rows[ours_left]))
            stack.append((c[1], skt.children_right[b], rows[~ours_left]))
            continue
        if np.array_equal(ours_left, ~sk_left):  # the same partition, sides swapped
            report["other_feature"] += 1
            c = tree.children(a)
            stack.append((c[0], skt.children_right[b], rows[ours_left]))
            stack.append((c[1], skt.children_left[b], rows[~ours_left]))
            continue
        ours_score = split_score(y[rows], w[rows], ours_left, n_classes, criterion)
        sk_score = split_score(y[rows], w[rows], sk_left, n_classes, criterion)
        assert ours_score == pytest.approx(sk_score, rel=1e-12, abs=1e-12), (
            f"node {a}: different splits of different quality"
        )
        excused += 1
    return excused


def fit_both(name, params):
    X, y = LOADERS[name](return_X_y=True)
    ours = DecisionTreeClassifier(**params).fit(X, y)
    sk = SkTree(random_state=0, **params).fit(X, y)
    return X, y, ours, sk


@pytest.mark.parametrize("name", list(LOADERS))
@pytest.mark.parametrize(
    "params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default"
)
def test_same_tree_as_sklearn(name, params):
    X, y, ours, sk = fit_both(name, params)
    w = np.ones(len(y))
    if params.get("class_weight") == "balanced":
        counts = np.bincount(y)
        w = (len(y) / (len(counts) * counts))[y]
    report = {}
    excused = compare_trees(ours, sk, X, y, w, report)
    if excused == 0 and report["pure_split"] == 0:
        assert ours.tree_.n_nodes == sk.tree_.node_count
        assert ours.get_n_leaves() == sk.get_n_leaves()
        assert ours.get_depth() == sk.get_depth()
    if excused == 0:
        np.testing.assert_array_equal(ours.predict(X), sk.predict(X))
        np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-12)
    if excused == 0 and report["other_feature"] == 0 and report["pure_split"] == 0:
        np.testing.assert_allclose(ours.feature_importances_, sk.feature_importances_,
                                   atol=1e-10)


def test_sklearn_builds_our_tree_for_some_seed():
    """Where ties were excused, some scikit-learn random_state happens to pick our split at
    every tie and then builds our tree exactly: the excuses hide no other difference."""
    configurations = [(name, params) for name in ["iris", "wine", "breast_cancer"]
                      for params in PARAMS if "class_weight" not in params]
    matched = 0
    for name, params in configurations:
        X, y = LOADERS[name](return_X_y=True)
        ours = DecisionTreeClassifier(**params).fit(X, y)
        for seed in range(40):
            sk = SkTree(random_state=seed, **params).fit(X, y)
            if compare_trees(ours, sk, X, y, np.ones(len(y))) == 0:
                matched += 1
                assert ours.tree_.n_nodes == sk.tree_.node_count
                np.testing.assert_array_equal(ours.predict(X), sk.predict(X))
                break
    # breast_cancer with min_samples_leaf=5 has ties that no seed below 300 resolves our way
    assert matched >= len(configurations) - 1


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer"])
def test_pruning_path_matches_sklearn(name):
    X, y = LOADERS[name](return_X_y=True)
    ours = DecisionTreeClassifier().cost_complexity_pruning_path(X, y)
    sk = SkTree(random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours.ccp_alphas, sk.ccp_alphas, atol=1e-12)
    np.testing.assert_allclose(ours.impurities, sk.impurities, atol=1e-12)


def test_sample_weight_matches_sklearn():
    X, y = datasets.load_wine(return_X_y=True)
    w = np.random.default_rng(0).integers(1, 4, len(y)).astype(float)
    ours = DecisionTreeClassifier(max_depth=4).fit(X, y, sample_weight=w)
    sk = SkTree(max_depth=4, random_state=0).fit(X, y, sample_weight=w)
    assert compare_trees(ours, sk, X, y, w) == 0
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))


def test_integer_weights_equal_repeated_rows():
    X, y = datasets.load_iris(return_X_y=True)
    w = np.random.default_rng(1).integers(1, 3, len(y))
    weighted = DecisionTreeClassifier(criterion="entropy").fit(X, y, sample_weight=w)
    repeated = DecisionTreeClassifier(criterion="entropy").fit(
        np.repeat(X, w, axis=0), np.repeat(y, w)
    )
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    assert weighted.get_n_leaves() == repeated.get_n_leaves()
