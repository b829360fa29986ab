"""J48's -B (binary categorical splits) and -R (reduced-error pruning) pieces, unit by unit.

The whole-tree comparisons with Weka's fixtures are in test_c45_j48.py (variants J48-B and
J48-R). The literal values below were produced by running Java (OpenJDK 17) and Weka 3.6.14
(/usr/share/java/weka.jar) from small programs written for these tests; no Java is needed to
run them.
"""

import numpy as np
import pandas as pd
import pytest
from quercus._kernels._c45 import binary_candidate, nominal_class_table

import quercus
from quercus.data.java_random import JavaRandom, shuffle
from quercus.export.j48 import java_double_to_string, tree_to_j48
from quercus.pruning.reduced_error import group_by_class, holdout_split
from quercus.splitting.c45_binary import binary_category_map

# -- java.util.Random ----------------------------------------------------------------------
# Produced with, for each seed: r = new java.util.Random(seed); then printed r.nextInt(),
# r.nextInt(10), r.nextInt(16), r.nextInt(1000000007), r.nextInt(1073741825), r.nextLong(),
# r.nextDouble(), r.nextBoolean(), in that order.
JAVA_RANDOM = {
    0: (-1155484576, 8, 3, 302116440, 663681053, -8292973307042192125, 0.5975452777972018,
        False),
    1: (-1155869325, 8, 6, 874970313, 446064254, 668424937071768037, 0.6588672394716129,
        True),
    42: (-1170105035, 3, 10, 102948884, 662969970, -1068554554583376509, 0.7077105889551186,
         False),
    -7: (1155869324, 7, 10, 119890471, 314447087, -2732364192705608872, 0.08574465212415472,
         False),
    123456789012345: (-1421006947, 4, 13, 308132645, 185864260, -1331016026595398465,
                      0.395702806952695, True),
}


@pytest.mark.parametrize("seed", list(JAVA_RANDOM))
def test_java_random_sequence(seed):
    r = JavaRandom(seed)
    got = (r.next_int(), r.next_int(10), r.next_int(16), r.next_int(1000000007),
           r.next_int(1073741825), r.next_long(), r.next_double(), r.next_boolean())
    assert got == JAVA_RANDOM[seed]


def test_java_random_rejection_loop():
    # new Random(3), then 8 x nextInt(1610612737): a bound just above 1.5 * 2^30, where
    # about a quarter of the 31-bit draws are rejected and drawn again
    r = JavaRandom(3)
    assert [r.next_int(1610612737) for _ in range(8)] == [
        1569933734, 1207763660, 152454210, 144139128, 1249547202, 1235116564, 488197459,
        1418025585]


def test_java_random_doctest_values():
    r = JavaRandom(42)  # Java: new Random(42), nextInt(10) three times -> 0 3 8
    assert [r.next_int(10) for _ in range(3)] == [0, 3, 8]


def test_java_random_rejects_bad_bound():
    with pytest.raises(ValueError):
        JavaRandom(1).next_int(0)


def test_shuffle_as_collections_shuffle():
    # Java: list 0..19, Collections.shuffle(list, new Random(1))
    items = list(range(20))
    shuffle(items, JavaRandom(1))
    assert items == [2, 17, 6, 15, 11, 13, 19, 8, 7, 12, 14, 10, 9, 0, 4, 3, 16, 1, 18, 5]


# -- J48's fold split for -R ------------------------------------------------------------------
# Classes of a 21-row data set (declared order a, b, c). Produced with Weka: an ARFF file with
# an id attribute and this class column; Instances.stratify(folds), then
# trainCV(folds, folds - 1, new Random(seed)) and testCV(folds, folds - 1), printing the ids.
# The grow order was also read back from J48 -R -L itself (its root node keeps the rows).
CLASSES = list("cbcbcccabcaaabbabcaca")
FOLDS = {
    (3, 1): ([15, 7, 18, 12, 3, 13, 5, 17, 19, 16, 6, 2, 0, 1], [4, 9, 8, 14, 11, 10, 20]),
    (3, 7): ([3, 7, 15, 6, 16, 18, 1, 2, 5, 0, 17, 19, 12, 13], [4, 9, 8, 14, 11, 10, 20]),
    (4, 1): ([10, 20, 0, 17, 16, 3, 2, 9, 11, 12, 18, 8, 1, 6, 13, 4], [5, 19, 14, 15, 7]),
    (4, 7): ([16, 17, 6, 2, 8, 0, 9, 1, 20, 3, 13, 12, 10, 18, 11, 4], [5, 19, 14, 15, 7]),
}


@pytest.mark.parametrize("folds_seed", list(FOLDS))
def test_holdout_split_as_weka(folds_seed):
    y = np.array(["abc".index(c) for c in CLASSES])
    grow, prune = holdout_split(y, *folds_seed)
    expected_grow, expected_prune = FOLDS[folds_seed]
    assert grow.tolist() == expected_grow
    assert prune.tolist() == expected_prune


def test_group_by_class():
    # Weka: Instances.stratify(21) of the 21 rows above deals one row per fold, so it
    # prints the class-grouped order itself: c's, then b's, then a's (first-seen order),
    # not in file order within a class
    y = np.array(CLASSES)
    order = group_by_class(y)
    assert order == [0, 2, 4, 5, 6, 9, 17, 19, 8, 3, 13, 14, 16, 1, 11, 15, 12, 10, 18, 7, 20]
    assert "".join(y[order]) == "c" * 8 + "b" * 6 + "a" * 7


def test_holdout_split_checks_folds():
    with pytest.raises(ValueError, match="n_folds"):
        holdout_split(np.array([0, 1, 0]), 1, 1)
    with pytest.raises(ValueError, match="more than"):
        holdout_split(np.array([0, 1, 0]), 4, 1)


# -- binary categorical candidates (-B) -------------------------------------------------------
def binary_nominal_candidate(X, y, rows, weights, n_values, node_weight, min_leaf=2.0):
    """(gain, gain ratio, category) of the best binary split of feature 0, or None."""
    table = nominal_class_table(X, y, rows, weights, 0, n_values, 2)
    found, gain, ratio, category = binary_candidate(table, min_leaf, node_weight)
    return (gain, ratio, category) if found else None


def _gain_ratio(table, missing=0.0):
    table = np.asarray(table, dtype=float)

    def f(x):
        x = np.asarray(x, dtype=float)
        return np.where(x > 0, x * np.log2(np.where(x > 0, x, 1)), 0.0).sum()

    known = table.sum()
    total = known + missing
    gain = (known / total) * (f(known) - f(table.sum(axis=0))
                              - sum(f(b.sum()) - f(b) for b in table)) / known
    split = f(total) - f(table.sum(axis=1)) - f(missing)
    return gain, gain / (split / total)


def test_binary_candidate_takes_best_gain_ratio():
    # value 0: 4 x class 0; value 1: 3 x class 1, 1 x class 0; value 2: 4 x class 1
    X = np.array([[0.0]] * 4 + [[1.0]] * 4 + [[2.0]] * 4)
    y = np.array([0] * 4 + [1, 1, 1, 0] + [1] * 4)
    rows = np.arange(12)
    c = binary_nominal_candidate(X, y, rows, np.ones(12), 3, 12.0)
    gain, ratio = _gain_ratio([[4, 0], [1, 7]])  # value 0 against values 1 and 2
    assert c[2] == 0
    assert c[0] == pytest.approx(gain) and c[1] == pytest.approx(ratio)


def test_binary_candidate_ties_go_to_the_first_value_and_missing_rows_count():
    # a two-valued feature: "= v0" and "= v1" are the same split; J48 prints "= first"
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [1.0], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 1, 0])
    c = binary_nominal_candidate(X, y, np.arange(7), np.ones(7), 2, 7.0)
    gain, ratio = _gain_ratio([[2, 1], [0, 3]], missing=1.0)
    assert c[2] == 0
    assert c[0] == pytest.approx(gain) and c[1] == pytest.approx(ratio)


def test_binary_candidate_needs_min_leaf_on_both_sides():
    X = np.array([[0.0]] + [[1.0]] * 5)
    y = np.array([0, 1, 1, 1, 0, 0])
    # value 0 has 1 row < 2; "value 1 against the rest" has the same single row on the
    # other side: no candidate
    assert binary_nominal_candidate(X, y, np.arange(6), np.ones(6), 2, 6.0) is None
    # with min_leaf 1 it is a candidate
    c = binary_nominal_candidate(X, y, np.arange(6), np.ones(6), 2, 6.0, min_leaf=1.0)
    assert c is not None and c[2] == 0


def test_binary_candidate_with_zero_gain_still_counts():
    # values 1 and 2 hold the same class mix and value 0 never occurs: a valid split with
    # gain 0, which J48 still lets into the average gain
    X = np.array([[1.0], [1.0], [2.0], [2.0]])
    y = np.array([0, 1, 0, 1])
    c = binary_nominal_candidate(X, y, np.arange(4), np.ones(4), 3, 4.0)
    assert c == (0.0, 0.0, 1)


def test_binary_category_map():
    assert binary_category_map(4, 2).tolist() == [1, 1, 0, 1]


# -- text form ---------------------------------------------------------------------------------
@pytest.mark.parametrize("value, text", [
    # Java: Double.toString(value)
    (127.0, "127.0"), (0.561, "0.561"), (12345678.9, "1.23456789E7"), (0.00012345, "1.2345E-4"),
    (2.5e10, "2.5E10"), (-4.995e-4, "-4.995E-4"), (1 / 3, "0.3333333333333333"),
    (1e7, "1.0E7"), (9999999.0, "9999999.0"), (0.001, "0.001"), (9.99e-4, "9.99E-4"),
    (-0.0, "-0.0"), (0.0, "0.0"), (1e22, "1.0E22"), (100.0, "100.0"), (-127.5, "-127.5"),
])
def test_java_double_to_string(value, text):
    assert java_double_to_string(value) == text


def _fit_arff(tmp_path, text, **params):
    path = tmp_path / "data.arff"
    path.write_text(text)
    X, y, _ = quercus.read_arff(path)
    return quercus.DecisionTreeClassifier(algorithm="c45", **params).fit(X, y), X, y


BIG_VALUES = ("@relation t\n@attribute x numeric\n@attribute class {a,b}\n@data\n"
              + "12345677.9,a\n" * 6 + "12345678.9,a\n" * 6 + "37037036.7,b\n" * 6)


def test_binary_splits_print_thresholds_as_java_doubles(tmp_path):
    # J48 -B -t FILE: thresholds as Double.toString; plain J48 rounds to 6 decimals
    model, _, _ = _fit_arff(tmp_path, BIG_VALUES, binary_categorical_splits=True)
    assert tree_to_j48(model).splitlines()[3:5] == ["x <= 1.23456789E7: a (12.0)",
                                                    "x > 1.23456789E7: b (6.0)"]
    model, _, _ = _fit_arff(tmp_path, BIG_VALUES)
    assert tree_to_j48(model).splitlines()[3] == "x <= 12345678.9: a (12.0)"


def test_binary_split_reuses_a_feature_and_prints_not_equal():
    X, y, _ = quercus.read_arff("tests/data/arff/weather.nominal.arff")
    model = quercus.DecisionTreeClassifier(algorithm="c45", binary_categorical_splits=True,
                                           min_samples_leaf=1).fit(X, y)
    tree = model.tree_
    root_map = tree.category_map(0).tolist()
    assert sorted(root_map) == [0, 1, 1] and tree.missing_branch[0] == -1
    text = tree_to_j48(model)
    assert "outlook = overcast: yes (4.0)" in text and "outlook != overcast" in text


# -- reduced-error pruning (-R) --------------------------------------------------------------
# Weka: java -cp weka.jar weka.classifiers.trees.J48 -R [-M 1] -t FILE -no-cv
NO_COLLAPSE = """@relation r
@attribute a0 {v0,v1}
@attribute a1 {v0,v1}
@attribute a2 {v0,v1}
@attribute class {c0,c1}
@data
v1,v1,v1,c1
v0,v0,v0,c0
v1,v0,v0,c0
v1,v1,v1,c0
v1,v1,v1,c1
v1,v1,v0,c0
v1,v1,v1,c1
v0,v0,v1,c0
v1,v1,v0,c1
v0,v0,v0,c0
v0,v0,v0,c0
v0,v0,v0,c0
v1,v0,v1,c1
v1,v0,v1,c1
v0,v0,v0,c1
"""
NO_COLLAPSE_J48_R = """J48 pruned tree
------------------

a0 = v0: c0 (5.0/1.0)
a0 = v1
|   a2 = v0: c0 (2.0/1.0)
|   a2 = v1: c1 (3.0)

Number of Leaves  : \t3

Size of the tree : \t5
"""

EMPTY_LEAF = """@relation r
@attribute a0 {v0,v1,v2}
@attribute a1 {v0,v1,v2,v3}
@attribute class {c0,c1}
@data
v1,v3,c1
v0,v0,c0
v0,v0,c1
v2,v1,c1
v0,v0,c0
v1,v1,c1
v1,v1,c1
v0,v0,c0
v1,v1,c1
"""
EMPTY_LEAF_J48_R_M1 = """J48 pruned tree
------------------

a0 = v0: c0 (3.0/1.0)
a0 = v1: c1 (3.0)
a0 = v2: c1 (0.0)

Number of Leaves  : \t3

Size of the tree : \t4
"""


def test_reduced_error_pruning_does_not_collapse(tmp_path):
    # the a2 split has as many training errors as its parent (collapse would remove it),
    # but it is better on the pruning fold, so J48 -R keeps it
    model, _, _ = _fit_arff(tmp_path, NO_COLLAPSE, reduced_error_pruning=True)
    assert tree_to_j48(model) == NO_COLLAPSE_J48_R


def test_reduced_error_pruning_empty_leaf_counts_with_its_parents_class(tmp_path):
    # the pruning row with a0 = v2 reaches an empty leaf; counted with the parent's class
    # (c1) it is right, which keeps the split
    model, X, _ = _fit_arff(tmp_path, EMPTY_LEAF, reduced_error_pruning=True,
                            min_samples_leaf=1)
    assert tree_to_j48(model) == EMPTY_LEAF_J48_R_M1
    assert model.predict(X.iloc[[3]])[0] == "c1"


def test_reduced_error_pruning_labels_count_the_growing_folds_only():
    X, y, _ = quercus.read_arff("tests/data/arff/diabetes.arff")
    model = quercus.DecisionTreeClassifier(algorithm="c45", reduced_error_pruning=True).fit(X, y)
    assert model.tree_.weighted_n_node_samples[0] == 512  # 2 of 3 folds of 768 rows
    seeded = quercus.DecisionTreeClassifier(algorithm="c45", reduced_error_pruning=True,
                                            random_state=99).fit(X, y)
    assert tree_to_j48(seeded) == tree_to_j48(model)  # the seed only orders the rows
    two = quercus.DecisionTreeClassifier(algorithm="c45", reduced_error_pruning=True,
                                         n_folds=2).fit(X, y)
    assert two.tree_.weighted_n_node_samples[0] == 384


@pytest.mark.parametrize("params, message", [
    ({"reduced_error_pruning": True, "pruning": False}, "needs pruning=True"),
    ({"reduced_error_pruning": True, "confidence": 0.1}, "confidence is not used"),
    ({"n_folds": 5}, "only with reduced_error_pruning"),
    ({"reduced_error_pruning": True, "n_folds": 1}, "n_folds must be an int >= 2"),
    ({"reduced_error_pruning": True, "n_folds": 2.0}, "n_folds must be an int >= 2"),
    ({"reduced_error_pruning": True, "random_state": None}, "random_state must be an int"),
    ({"reduced_error_pruning": True, "n_folds": 20}, "more than the 14 rows"),
])
def test_invalid_combinations(params, message):
    X, y, _ = quercus.read_arff("tests/data/arff/weather.nominal.arff")
    model = quercus.DecisionTreeClassifier(algorithm="c45", **params)
    with pytest.raises(ValueError, match=message):
        model.fit(X, y)


def test_subtree_raising_is_ignored_by_reduced_error_pruning():
    X, y, _ = quercus.read_arff("tests/data/arff/soybean.arff")
    a = quercus.DecisionTreeClassifier(algorithm="c45", reduced_error_pruning=True).fit(X, y)
    b = quercus.DecisionTreeClassifier(algorithm="c45", reduced_error_pruning=True,
                                       subtree_raising=False).fit(X, y)
    assert tree_to_j48(a) == tree_to_j48(b)


def test_model_file_keeps_binary_splits(tmp_path):
    X, y, _ = quercus.read_arff("tests/data/arff/breast-cancer.arff")
    model = quercus.DecisionTreeClassifier(algorithm="c45", binary_categorical_splits=True,
                                           reduced_error_pruning=True, n_folds=4,
                                           random_state=5).fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = quercus.load_model(tmp_path / "m.json")
    assert loaded.get_params() == model.get_params()
    assert tree_to_j48(loaded) == tree_to_j48(model)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


# -- Laplace at empty leaves (J48 -A) -------------------------------------------------------
def test_laplace_at_an_empty_leaf_uses_the_parents_counts():
    # J48 -A gives a row that reaches an empty leaf the parent's Laplace-corrected
    # distribution (checked against Weka on random data sets)
    X = pd.DataFrame({"f": pd.Categorical(["a"] * 6 + ["b"] * 5, categories=["a", "b", "c"])})
    y = pd.Series(["x"] * 5 + ["y"] + ["y"] * 4 + ["x"])  # root: 6 x, 5 y
    model = quercus.DecisionTreeClassifier(algorithm="c45", laplace=True, pruning=False)
    model.fit(X, y)
    assert model.tree_.n_leaves == 3 and model.tree_.empty.sum() == 1
    proba = model.predict_proba(pd.DataFrame({"f": pd.Categorical(["c"],
                                                                  categories=["a", "b", "c"])}))
    np.testing.assert_allclose(proba, [[(6 + 1) / (11 + 2), (5 + 1) / (11 + 2)]])
