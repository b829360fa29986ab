"""Tests of quercus.criteria: seed figures, textbook gains, properties, split search."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus.criteria import (
    CRITERIA,
    SplitInfo,
    best_split,
    class_counts,
    entropy_from_counts,
    gain_ratio,
    get_criterion,
    gini_from_counts,
    impurity,
    information_gain,
    mean_impurity,
    split_information,
)

# ---------------------------------------------------------------------------------------
# Data from the seed articles
# ---------------------------------------------------------------------------------------

# Seed 000 (McCaffrey): 8 items, 4 predictors, 3 classes.
SEED_X = [
    [2.0, 10.0, 21.0, 25.0],
    [4.0, 16.0, 19.0, 27.0],
    [6.0, 14.0, 17.0, 29.0],
    [8.0, 12.0, 18.0, 31.0],
    [7.0, 15.0, 20.0, 26.0],
    [3.0, 13.0, 22.0, 28.0],
    [2.0, 11.0, 23.0, 30.0],
    [1.0, 9.0, 24.0, 32.0],
]
SEED_Y = [0, 1, 2, 0, 1, 2, 0, 1]

# Seed 002: Mitchell's Play Tennis table (D1 .. D14).
TENNIS_COLUMNS = ("Outlook", "Temperature", "Humidity", "Wind")
TENNIS = [
    ("Sunny", "Hot", "High", "Weak", "No"),
    ("Sunny", "Hot", "High", "Strong", "No"),
    ("Overcast", "Hot", "High", "Weak", "Yes"),
    ("Rain", "Mild", "High", "Weak", "Yes"),
    ("Rain", "Cool", "Normal", "Weak", "Yes"),
    ("Rain", "Cool", "Normal", "Strong", "No"),
    ("Overcast", "Cool", "Normal", "Strong", "Yes"),
    ("Sunny", "Mild", "High", "Weak", "No"),
    ("Sunny", "Cool", "Normal", "Weak", "Yes"),
    ("Rain", "Mild", "Normal", "Weak", "Yes"),
    ("Sunny", "Mild", "Normal", "Strong", "Yes"),
    ("Overcast", "Mild", "High", "Strong", "Yes"),
    ("Overcast", "Hot", "Normal", "Weak", "Yes"),
    ("Rain", "Mild", "High", "Strong", "No"),
]

# Seed 002: the xor concept (label = A1 xor A2) with irrelevant A3, A4 (Esmeir & Markovitch).
XOR = [
    (1, 0, 0, 1, "+"),
    (0, 1, 0, 0, "+"),
    (0, 0, 0, 0, "-"),
    (1, 1, 0, 0, "-"),
    (0, 1, 1, 1, "+"),
    (0, 0, 1, 1, "-"),
    (1, 0, 1, 1, "+"),
]


def _column(table, j):
    return [row[j] for row in table]


# ---------------------------------------------------------------------------------------
# Seed 000 figures
# ---------------------------------------------------------------------------------------


def test_seed_gini_figures():
    assert round(impurity([0, 0, 2, 2, 1]), 4) == 0.6400
    assert round(impurity([1, 1]), 4) == 0.0000
    assert round(impurity([0, 0, 1, 1, 2, 2, 3, 3]), 4) == 0.7500
    assert round(impurity(list(range(10))), 4) == 0.9000
    assert round(impurity([0, 0, 0, 1, 1, 2]), 4) == 0.6111
    assert round(impurity([0, 0, 1, 2]), 4) == 0.6250


def test_seed_entropy_figures():
    assert round(impurity([0, 0, 2, 2, 1], "entropy"), 4) == 1.5219
    assert round(impurity(list(range(10)), criterion="entropy"), 4) == 3.3219
    assert impurity([1, 1], "entropy") == 0.0


def test_seed_mean_impurity():
    assert round(mean_impurity([0, 0, 0, 1, 1, 2], [0, 0, 1, 2]), 4) == 0.6167
    assert mean_impurity() == 0.0
    assert mean_impurity([], []) == 0.0
    assert mean_impurity([], [0, 1]) == pytest.approx(0.5)
    assert mean_impurity(["a", "b"], criterion="entropy") == pytest.approx(1.0)


def test_seed_best_split():
    si = best_split(SEED_X, SEED_Y, rows=(0, 1, 2, 4, 5, 6, 7))
    assert isinstance(si, SplitInfo)
    assert si.column == 1
    assert round(si.value, 1) == 15.0
    assert tuple(si.left_rows) == (0, 2, 5, 6, 7)
    assert tuple(si.right_rows) == (1, 4)
    assert round(si.mean_impurity, 4) == 0.4571


def test_best_split_accepts_string_labels_and_arrays():
    names = np.array(["red", "green", "blue"])[SEED_Y]
    si = best_split(np.array(SEED_X), names, rows=[0, 1, 2, 4, 5, 6, 7])
    assert (si.column, si.value) == (1, 15.0)
    assert round(si.mean_impurity, 4) == 0.4571


# ---------------------------------------------------------------------------------------
# Counts and count-vector functions
# ---------------------------------------------------------------------------------------


def test_class_counts():
    np.testing.assert_array_equal(class_counts(["b", "a", "b"]), [1.0, 2.0])
    np.testing.assert_array_equal(class_counts(["b", "a", "b"], [1, 2, 3]), [2.0, 4.0])
    np.testing.assert_array_equal(class_counts([0, 2, 2], n_classes=4), [1, 0, 2, 0])
    assert class_counts([]).shape == (0,)
    assert class_counts([0, 2], n_classes=3).dtype == np.float64
    with pytest.raises(ValueError):
        class_counts([0, 3], n_classes=3)
    with pytest.raises(ValueError):
        class_counts([0, 1], sample_weight=[1.0])
    with pytest.raises(ValueError):
        class_counts([0, 1], sample_weight=[1.0, -1.0])


def test_count_functions():
    assert gini_from_counts([2, 2, 1]) == pytest.approx(0.64)
    assert entropy_from_counts([2, 2, 1]) == pytest.approx(1.5219281)
    assert gini_from_counts([]) == 0.0
    assert entropy_from_counts([0, 0]) == 0.0
    assert entropy_from_counts([3, 0]) == 0.0
    np.testing.assert_allclose(gini_from_counts([[1, 1], [2, 0], [0, 0]]), [0.5, 0.0, 0.0])
    np.testing.assert_allclose(entropy_from_counts([[1, 1], [4, 0]]), [1.0, 0.0])
    with pytest.raises(ValueError):
        gini_from_counts([1, -1])


def test_criteria_registry():
    assert CRITERIA == {"gini": gini_from_counts, "entropy": entropy_from_counts}
    assert get_criterion("entropy") is entropy_from_counts
    with pytest.raises(ValueError, match="criterion must be one of 'gini', 'entropy'; got 'x'"):
        impurity([0, 1], criterion="x")
    with pytest.raises(ValueError, match="got 'x'"):
        best_split(SEED_X, SEED_Y, criterion="x")


def test_weighted_impurity():
    # Weight 2 on a label counts like two copies of it.
    assert impurity(["a", "b"], sample_weight=[2, 1]) == pytest.approx(impurity(["a", "a", "b"]))


# ---------------------------------------------------------------------------------------
# Information gain and gain ratio on seed 002's tables
# ---------------------------------------------------------------------------------------

# Mitchell prints 3-d.p. gains truncated from the exact values
# (Outlook 0.2467 -> 0.246, Humidity 0.1518 -> 0.151).
MITCHELL_GAINS = {"Outlook": 0.246, "Humidity": 0.151, "Wind": 0.048, "Temperature": 0.029}
EXACT_GAINS = {"Outlook": 0.2467, "Humidity": 0.1518, "Wind": 0.0481, "Temperature": 0.0292}


@pytest.mark.parametrize("attribute", TENNIS_COLUMNS)
def test_play_tennis_information_gain(attribute):
    labels = _column(TENNIS, 4)
    keys = _column(TENNIS, TENNIS_COLUMNS.index(attribute))
    gain = information_gain(labels, keys)
    assert math.floor(gain * 1000) / 1000 == MITCHELL_GAINS[attribute]
    assert round(gain, 4) == EXACT_GAINS[attribute]
    # The groups form gives the same gain.
    groups = [[y for k, y in zip(keys, labels) if k == v] for v in sorted(set(keys))]
    assert information_gain(labels, groups) == pytest.approx(gain, abs=1e-12)


def test_play_tennis_gain_ratio():
    labels = _column(TENNIS, 4)
    outlook = _column(TENNIS, 0)
    assert round(information_gain(labels, outlook), 4) == 0.2467
    assert round(split_information(outlook), 3) == 1.577
    assert round(gain_ratio(labels, outlook), 3) == 0.156
    # Outlook is Mitchell's root choice.
    gains = {a: information_gain(labels, _column(TENNIS, j)) for j, a in enumerate(TENNIS_COLUMNS)}
    assert max(gains, key=gains.get) == "Outlook"


def test_xor_table_id3_picks_a4():
    # S: 4 "+", 3 "-"; H(S) = -(4/7 log2 4/7 + 3/7 log2 3/7) = 0.9852.
    # A1: A1=1 -> rows 1,4,7 = (+,-,+) H=0.9183; A1=0 -> rows 2,3,5,6 = (+,-,+,-) H=1.
    #     Gain = 0.9852 - (3/7 * 0.9183 + 4/7 * 1) = 0.9852 - 0.9650 = 0.0202.
    # A2: A2=1 -> rows 2,4,5 = (+,-,+) H=0.9183; A2=0 -> rows 1,3,6,7 = (+,-,-,+) H=1.
    #     Gain = 0.0202.
    # A3: A3=0 -> rows 1-4 = (+,+,-,-) H=1; A3=1 -> rows 5,6,7 = (+,-,+) H=0.9183.
    #     Gain = 0.0202.
    # A4: A4=1 -> rows 1,5,6,7 = (+,+,-,+) H=0.8113; A4=0 -> rows 2,3,4 = (+,-,-) H=0.9183.
    #     Gain = 0.9852 - (4/7 * 0.8113 + 3/7 * 0.9183) = 0.9852 - 0.8571 = 0.1281.
    labels = _column(XOR, 4)
    gains = [information_gain(labels, _column(XOR, j)) for j in range(4)]
    assert [round(g, 4) for g in gains] == [0.0202, 0.0202, 0.0202, 0.1281]
    assert int(np.argmax(gains)) == 3


def test_information_gain_call_forms_and_errors():
    labels = ["+", "+", "-", "-"]
    assert information_gain(labels, [["+", "+"], ["-", "-"]]) == pytest.approx(1.0)
    assert information_gain(labels, np.array(["a", "a", "b", "b"])) == pytest.approx(1.0)
    assert information_gain(labels, [labels, []]) == 0.0  # empty branch allowed
    assert information_gain(labels, [0, 0, 1, 1], criterion="gini") == pytest.approx(0.5)
    assert information_gain([], []) == 0.0
    assert information_gain([0, 1], [0, 1], sample_weight=[1, 3]) == pytest.approx(
        entropy_from_counts([1, 3])
    )
    with pytest.raises(ValueError, match="partition"):
        information_gain(labels, [["+"], ["-", "-"]])
    with pytest.raises(ValueError, match="one entry per label"):
        information_gain(labels, ["a", "b"])
    with pytest.raises(ValueError, match="keys form"):
        information_gain(labels, [["+", "+"], ["-", "-"]], sample_weight=[1, 1, 1, 1])


def test_split_information_and_zero_gain_ratio():
    assert split_information([[1, 2], [3, 4]]) == pytest.approx(1.0)
    assert split_information(["a", "a", "b", "b"]) == pytest.approx(1.0)
    assert split_information([[1, 2, 3], []]) == 0.0
    assert gain_ratio([0, 1, 1], ["k", "k", "k"]) == 0.0  # split information 0


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------

labels_st = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=40)


@settings(max_examples=100, deadline=None)
@given(labels=labels_st, data=st.data(), criterion=st.sampled_from(sorted(CRITERIA)))
def test_impurity_is_permutation_invariant(labels, data, criterion):
    shuffled = data.draw(st.permutations(labels))
    assert impurity(shuffled, criterion) == impurity(labels, criterion)


@settings(max_examples=100, deadline=None)
@given(labels=labels_st)
def test_impurity_bounds(labels):
    k = len(set(labels))
    g = impurity(labels, "gini")
    h = impurity(labels, "entropy")
    assert 0.0 <= g <= 1.0 - 1.0 / k + 1e-12
    assert 0.0 <= h <= math.log2(k) + 1e-12


@settings(max_examples=100, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=30),
    criterion=st.sampled_from(sorted(CRITERIA)),
)
def test_information_gain_nonnegative_and_matches_definition(pairs, criterion):
    labels = [y for y, _ in pairs]
    keys = [k for _, k in pairs]
    gain = information_gain(labels, keys, criterion=criterion)
    assert gain >= 0.0
    groups = [[y for y, k in pairs if k == v] for v in set(keys)]
    n = len(labels)
    direct = impurity(labels, criterion) - sum(len(g) / n * impurity(g, criterion) for g in groups)
    assert gain == pytest.approx(max(direct, 0.0), abs=1e-12)
    assert information_gain(labels, groups, criterion=criterion) == pytest.approx(gain, abs=1e-12)


# ---------------------------------------------------------------------------------------
# best_split against a literal re-implementation of seed 000's GetSplitInfo
# ---------------------------------------------------------------------------------------


def _seed_impurity(y, rows, n_classes, criterion):
    """Seed 000's Impurity (and its Entropy variant), loop for loop."""
    if len(rows) == 0:
        return 0.0
    counts = [0] * n_classes
    for idx in rows:
        counts[y[idx]] += 1
    probs = [0.0 if counts[c] == 0 else (counts[c] * 1.0) / len(rows) for c in range(n_classes)]
    total = 0.0
    for c in range(n_classes):
        if criterion == "gini":
            total += probs[c] * probs[c]
        elif probs[c] != 0.0:
            total += probs[c] * float(np.log2(probs[c]))
    return 1.0 - total if criterion == "gini" else -1.0 * total


def _seed_mean_impurity(y, rows1, rows2, n_classes, criterion):
    if len(rows1) == 0 and len(rows2) == 0:
        return 0.0
    imp1 = _seed_impurity(y, rows1, n_classes, criterion)
    imp2 = _seed_impurity(y, rows2, n_classes, criterion)
    wt1 = (len(rows1) * 1.0) / (len(rows1) + len(rows2))
    wt2 = (len(rows2) * 1.0) / (len(rows1) + len(rows2))
    return (wt1 * imp1) + (wt2 * imp2)


def _seed_get_split_info(X, y, rows, n_classes, criterion="gini"):
    """Seed 000's GetSplitInfo: (column, value, less rows, greater rows, mean impurity)."""
    n_cols = len(X[0])
    best = (0, 0.0, [], [], float("inf"))
    for i in rows:
        for j in range(n_cols):
            split_val = X[i][j]
            less, greater = [], []
            for ii in rows:
                (less if X[ii][j] < split_val else greater).append(ii)
            mean_imp = _seed_mean_impurity(y, less, greater, n_classes, criterion)
            if mean_imp < best[4]:
                best = (j, split_val, less, greater, mean_imp)
    return best


def _assert_same_as_seed(X, y, rows, n_classes, criterion):
    col, val, less, greater, imp = _seed_get_split_info(X, y, rows, n_classes, criterion)
    si = best_split(X, y, rows=rows, criterion=criterion)
    assert (si.column, si.value) == (col, val)
    assert si.left_rows.tolist() == less
    assert si.right_rows.tolist() == greater
    assert si.mean_impurity == imp  # bit for bit: same operations as the seed


@st.composite
def _split_problems(draw):
    n = draw(st.integers(1, 8))
    n_cols = draw(st.integers(1, 3))
    values = st.integers(0, 3).map(float)  # few distinct values: many ties
    X = draw(st.lists(st.lists(values, min_size=n_cols, max_size=n_cols), min_size=n, max_size=n))
    n_classes = draw(st.integers(1, 3))
    y = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    # Any order, repeats allowed: the seed walks the list it is given.
    rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=10))
    return X, y, rows, n_classes


@settings(max_examples=300, deadline=None)
@given(problem=_split_problems(), criterion=st.sampled_from(sorted(CRITERIA)))
def test_best_split_matches_seed_brute_force(problem, criterion):
    X, y, rows, n_classes = problem
    _assert_same_as_seed(X, y, rows, n_classes, criterion)


def test_best_split_tie_goes_to_first_candidate_in_row_major_order():
    # Candidates in seed order: (row 0, col 0, 0.0) -> 0.5; (row 0, col 1, 5.0) -> 0.0;
    # (row 1, col 0, 1.0) -> 0.0 ties but comes later; the column-0 split must not win.
    si = best_split([[0.0, 5.0], [1.0, 4.0]], ["p", "q"])
    assert (si.column, si.value, si.mean_impurity) == (1, 5.0, 0.0)
    assert si.left_rows.tolist() == [1] and si.right_rows.tolist() == [0]
    # Identical columns tie everywhere: column 0 wins.
    X = np.repeat(np.array(SEED_X)[:, :1], 3, axis=1)
    assert best_split(X, SEED_Y).column == 0


def test_best_split_random_sweep_with_distinct_tied_splits():
    # Many seeded datasets; check that exact ties between *different* splits occur, so the
    # agreement with the seed really exercises its tie-breaking.
    rng = np.random.default_rng(0)
    distinct_ties = 0
    for _ in range(150):
        n, n_cols = rng.integers(2, 9), rng.integers(1, 4)
        X = rng.integers(0, 3, size=(n, n_cols)).astype(float).tolist()
        y = rng.integers(0, 2, size=n).tolist()
        rows = rng.permutation(n)[: rng.integers(1, n + 1)].tolist()
        _assert_same_as_seed(X, y, rows, 2, "gini")
        imp = _seed_get_split_info(X, y, rows, 2)[4]
        tied = set()
        for i in rows:
            for j in range(n_cols):
                less = [r for r in rows if X[r][j] < X[i][j]]
                greater = [r for r in rows if X[r][j] >= X[i][j]]
                if _seed_mean_impurity(y, less, greater, 2, "gini") == imp:
                    tied.add((j, tuple(less)))
        distinct_ties += len(tied) > 1
    assert distinct_ties >= 20


def test_best_split_nan_goes_right_and_errors():
    X = [[np.nan], [1.0], [2.0]]
    si = best_split(X, [0, 0, 1])
    assert (si.value, si.left_rows.tolist(), si.right_rows.tolist()) == (2.0, [1], [0, 2])
    with pytest.raises(ValueError):
        best_split(SEED_X, SEED_Y, rows=[])
    with pytest.raises(ValueError):
        best_split(SEED_X, SEED_Y[:-1])
    with pytest.raises(ValueError):
        best_split(SEED_X, SEED_Y, rows=[0, 8])
