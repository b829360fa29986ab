"""Seed 001's look-ahead as its program listing computes it: ``lookahead="listing"`` (issue 12).

The listing's ``CalcGini`` divides integers (``iClassCount / values.Count`` is 0 in C# unless
the node is pure), its entropy loop reuses the previous share for an empty class slot, and
its look-ahead ``BuildBranch`` keeps ``localGiniL``/``localGiniR`` from one candidate to the
next. ``Reference`` below is a direct, unoptimised reading of those listings, written for
this test.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quercus
from quercus import DecisionTreeClassifier, datasets
from quercus.growing.interval import USELESS, IntervalGrower, candidate_scores

# the seed's protocol: 135 training rows, the 15 test rows 9, 19, ..., 149 (docs/interval.md)
TEST_ROWS = np.arange(9, 150, 10)
TRAIN_ROWS = np.setdiff1d(np.arange(150), TEST_ROWS)


class Reference:
    """The listing's look-ahead ``BuildBranch`` and ``CalcGini``, row by row."""

    def __init__(self, X, y, n_classes, criterion, max_depth, carry=True):
        self.X, self.y, self.k = X, y, n_classes
        self.criterion, self.max_depth, self.carry = criterion, max_depth, carry

    def calc(self, rows, c, f):
        """(purity, min, max) of class c on feature f, as ``CalcGini``."""
        mine = [r for r in rows if self.y[r] == c]
        if not mine:
            return USELESS, None, None
        low = min(self.X[r, f] for r in mine)
        high = max(self.X[r, f] for r in mine)
        slots, counts = [], []  # iOthersClass / iOthersCount, in order of appearance
        for r in rows:
            if self.y[r] != c and (self.X[r, f] > high or self.X[r, f] < low):
                if self.y[r] not in slots:
                    slots.append(self.y[r])
                    counts.append(0)
                counts[slots.index(self.y[r])] += 1
        counts += [0] * (self.k - 1 - len(counts))
        n = len(rows)
        if not (any(counts) or len(mine) == n):
            return USELESS, None, None
        if self.criterion == "gini":  # C# integer division
            purity = 1.0 - (len(mine) // n) ** 2 - sum((k // n) ** 2 for k in counts)
        else:
            p = len(mine) / n
            purity = -p * np.log2(p)
            for k in counts:
                if k > 0:
                    p = k / n
                purity -= p * np.log2(p)
        return purity, low, high

    def build(self, rows, depth):
        """Returns (total, branch); a branch is (class, feature, low, high, [children])."""
        if depth >= self.max_depth:  # Quercus's depth limit: a plain leaf
            pure = len({self.y[r] for r in rows}) == 1
            return (0.0 if pure else USELESS), None
        best_total, best = USELESS, None
        local_l = local_r = 0.0
        for c in range(self.k):
            for f in range(self.X.shape[1]):
                purity, low, high = self.calc(rows, c, f)
                if not self.carry:
                    local_l = local_r = 0.0
                children = []
                if 0 < purity < best_total:
                    inside = [r for r in rows if low <= self.X[r, f] <= high]
                    outside = [r for r in rows if not low <= self.X[r, f] <= high]
                    left, right = self.build(inside, depth + 1), self.build(outside, depth + 1)
                    local_l, local_r = left[0] * len(inside), right[0] * len(outside)
                    children = [left[1], right[1]]
                total = purity + (local_l + local_r) / len(rows)
                if best_total > total:
                    best_total, best = total, (c, f, low, high, children)
                if best_total == 0:
                    return best_total, best
        return best_total, best


def quercus_branches(node):
    if node.cls < 0:
        return None
    return (node.cls, node.feature, node.low, node.high,
            [quercus_branches(child) for child in node.children])


def test_listing_gini_is_one_for_every_useful_split():
    X = np.array([[3.0, 0.0], [0.0, 2.0], [2.0, 3.0], [1.0, 1.0]])
    y = np.array([0, 0, 2, 1])
    rows = np.arange(4)
    listed = candidate_scores(X, y, np.ones(4), rows, 3, "gini", listing=True)[0]
    text = candidate_scores(X, y, np.ones(4), rows, 3, "gini")[0]
    # class 0 on f0 spans [0, 3] and leaves nothing outside: useless in both
    assert listed[0, 0] == text[0, 0] == USELESS
    # class 1 on f0 = [1, 1] leaves all others outside: 1 - 1/16 - 4/16 - 1/16 by the text
    assert text[1, 0] == pytest.approx(10 / 16) and listed[1, 0] == 1.0
    pure = candidate_scores(X, np.zeros(4, dtype=int), np.ones(4), rows, 3, "gini",
                            listing=True)[0]
    assert pure[0].tolist() == [0.0, 0.0]


def test_listing_entropy_reuses_the_last_share():
    # rows of classes 0, 0, 1, 2; class 0's range on f0 keeps class 2 inside, class 1 out
    X = np.array([[1.0], [3.0], [5.0], [2.0]])
    y = np.array([0, 0, 1, 2])
    rows = np.arange(4)
    text = candidate_scores(X, y, np.ones(4), rows, 3, "entropy")[0][0, 0]
    listed = candidate_scores(X, y, np.ones(4), rows, 3, "entropy", listing=True)[0][0, 0]
    assert text == pytest.approx(0.5 + 0.5)  # -(1/2)log2(1/2) - (1/4)log2(1/4)
    assert listed == pytest.approx(0.5 + 0.5 + 0.5)  # the empty slot repeats 1/4's term


def test_listing_chooses_another_root_split_by_hand():
    """Today's look-ahead: class 1 on x0 = [1, 1] scores 10/16 and leaves rows 0-2 (two of
    class 0, one of class 2), which class 0 on x1 = [0, 2] splits for 4/9: total
    10/16 + 3/4 * 4/9 = 0.9583. Class 0 on x1 first scores 11/16 + 3/4 * 4/9 = 1.0208.
    The listing scores every useful split 1: both roots total 1 + 3/4 * 1 = 1.75, and the
    first in loop order (class 0) wins."""
    X = np.array([[3.0, 0.0], [0.0, 2.0], [2.0, 3.0], [1.0, 1.0]])
    y = np.array([0, 0, 2, 1])
    today = IntervalGrower(X, y, np.ones(4), 3, lookahead=True, max_depth=10).grow()
    listed = IntervalGrower(X, y, np.ones(4), 3, lookahead="listing", max_depth=10).grow()
    assert (today.cls, today.feature, today.low, today.high) == (1, 0, 1.0, 1.0)
    assert today.total == pytest.approx(10 / 16 + 3 / 4 * 4 / 9)
    assert (listed.cls, listed.feature, listed.low, listed.high) == (0, 1, 0.0, 2.0)
    assert listed.total == pytest.approx(1.75)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 2)),
                min_size=2, max_size=12, unique_by=lambda r: r[:2]),
       st.sampled_from(["gini", "entropy"]), st.integers(2, 5))
def test_listing_equals_the_reference_and_the_carry_changes_nothing(rows, criterion, depth):
    """Quercus's listing look-ahead builds the reference's tree; and the reference with the
    carried scores reset builds the same tree: a candidate that inherits scores is never
    explored, so it is either pure (then nothing was explored before it at that node, and
    the carry is 0) or already no better than the best total (it cannot win)."""
    X = np.array([[a, b] for a, b, _ in rows], dtype=float)
    y = np.array([c for _, _, c in rows])
    grown = IntervalGrower(X, y, np.ones(len(y)), 3, criterion=criterion, max_depth=depth,
                           lookahead="listing").grow()
    carried = Reference(X, y, 3, criterion, depth).build(list(range(len(y))), 0)
    reset = Reference(X, y, 3, criterion, depth, carry=False).build(list(range(len(y))), 0)
    assert carried == reset
    if carried[1] is not None:
        assert grown.total == pytest.approx(carried[0])
        assert quercus_branches(grown) == carried[1]


@functools.lru_cache
def _iris_run(criterion, max_depth):
    X, y, _ = datasets.load("iris")
    model = DecisionTreeClassifier(algorithm="interval", lookahead="listing",
                                   criterion=criterion, max_depth=max_depth)
    model.fit(X.iloc[TRAIN_ROWS], y.iloc[TRAIN_ROWS])
    predicted = model.predict(X.iloc[TEST_ROWS])
    lost = np.array([p is None for p in predicted])
    right = int(((predicted == y.iloc[TEST_ROWS].to_numpy()) & ~lost).sum())
    return model.get_depth(), right, int(lost.sum())


def test_seed_lookahead_iris_figures():
    """Seed 001: the look-ahead gini tree (MAXRECURSIONS 10) "has a deepness of 8 crotches"
    and classifies "14 of the 15 test samples" right; with entropy the same search gives
    "a depth of 6 branches"; at max recursions 5 both trees are 5 deep."""
    assert _iris_run("gini", None) == (8, 14, 0)
    assert _iris_run("entropy", None)[0] == 6
    assert _iris_run("gini", 5)[0] == 5 and _iris_run("entropy", 5)[0] == 5


@pytest.mark.xfail(strict=True, reason="seed 001 reports one wrong test sample for its "
                   "depth-5 trees; on the split of rows 9, 19, ..., 149 the listing's "
                   "depth-5 trees get 12 right, 2 wrong, 1 unclassified (gini and entropy). "
                   "The seed's own split is not published")
def test_seed_depth_five_test_result():
    assert _iris_run("gini", 5)[1] == 14 and _iris_run("entropy", 5)[1] == 14


def test_today_lookahead_is_unchanged_on_iris():
    X, y, _ = datasets.load("iris")
    model = DecisionTreeClassifier(algorithm="interval", lookahead=True)
    model.fit(X.iloc[TRAIN_ROWS], y.iloc[TRAIN_ROWS])
    assert model.get_depth() == 7 and model.get_n_leaves() == 18  # docs/interval.md's table


def test_bad_lookahead_is_one_line():
    with pytest.raises(ValueError, match="lookahead must be False, True or 'listing'; got 'x'"):
        DecisionTreeClassifier(algorithm="interval", lookahead="x").fit([[0.0], [1.0]], [0, 1])


def test_listing_model_file_and_cli(tmp_path):
    X, y, _ = datasets.load("iris")
    X, y = X.iloc[::5], y.iloc[::5]  # 30 rows: the search is quick
    model = DecisionTreeClassifier(algorithm="interval", lookahead="listing").fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = quercus.load_model(tmp_path / "m.json")
    assert loaded.lookahead == "listing"
    assert list(loaded.predict(X)) == list(model.predict(X))
    data = tmp_path / "iris.csv"
    X.assign(species=y).to_csv(data, index=False)
    done = subprocess.run([sys.executable, "-m", "quercus", "train", str(data), "--target",
                           "species", "--algorithm", "interval", "--lookahead-listing",
                           "--out", str(tmp_path / "cli.json")],
                          check=False, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert quercus.load_model(tmp_path / "cli.json").lookahead == "listing"
