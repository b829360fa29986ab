"""C4.5's predict breaks near ties (within a relative 1e-12) to the first class (issue 12)."""

from fractions import Fraction

import numpy as np
import pandas as pd

from quercus import DecisionTreeClassifier
from quercus.tree import most_probable

CATEGORIES = ["u", "v", "w", "z"]
# u, v and w hold 2, 2 and 3 rows of class a; z holds 7 of class b. A row missing f goes
# down every branch: p(a) = 2/14 + 2/14 + 3/14 and p(b) = 7/14, both exactly 1/2.
X = pd.DataFrame({"f": pd.Categorical(["u"] * 2 + ["v"] * 2 + ["w"] * 3 + ["z"] * 7,
                                      categories=CATEGORIES)})
Y = ["a"] * 7 + ["b"] * 7
MISSING = pd.DataFrame({"f": pd.Categorical([None], categories=CATEGORIES)})


def test_the_case_is_a_true_tie_that_summation_order_breaks():
    # exact arithmetic: a tie
    assert sum(Fraction(n, 14) for n in (2, 2, 3)) == Fraction(7, 14)
    # J48 adds the branches first to last: the floats tie exactly too
    assert (2 / 14 + 2 / 14) + 3 / 14 == 7 / 14
    # last to first (Quercus's descent) falls one ulp short
    assert (3 / 14 + 2 / 14) + 2 / 14 == np.nextafter(0.5, 0.0)


def test_c45_predicts_the_first_class_of_a_near_tie():
    model = DecisionTreeClassifier(algorithm="c45").fit(X, Y)
    assert model.get_n_leaves() == 4
    proba = model.predict_proba(MISSING)[0]
    assert proba[0] == np.nextafter(0.5, 0.0) and proba[1] == 0.5  # b is larger by one ulp
    assert model.predict(MISSING).tolist() == ["a"]
    assert model.explain(MISSING)[0].prediction == "a"
    # a known value still goes to its own leaf
    known = pd.DataFrame({"f": pd.Categorical(["z", "u"], categories=CATEGORIES)})
    assert model.predict(known).tolist() == ["b", "a"]


def test_most_probable_tolerance():
    proba = np.array([[np.nextafter(0.5, 0.0), 0.5], [0.4, 0.6], [0.0, 0.0], [0.3, 0.3 + 1e-9]])
    assert most_probable(proba).tolist() == [1, 1, -1, 1]  # plain argmax (CART, ...)
    assert most_probable(proba, 1e-12).tolist() == [0, 1, -1, 1]  # 1e-9 is a real gap


def test_other_learners_keep_the_strict_argmax():
    # CART keeps scikit-learn's behaviour: a larger probability wins, however slightly
    model = DecisionTreeClassifier(algorithm="cart").fit(X, Y)
    assert model._tie_rtol == 0.0
