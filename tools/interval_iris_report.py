"""Seed 001's iris protocol for the class-interval tree: train on 135 rows, test on the
15 rows 9, 19, ..., 149 (five per class), greedy, look-ahead and the listing's look-ahead,
gini and entropy, at the seed's maximum depths (10, 6 and 5). Prints one table row per
setting.

Usage: python tools/interval_iris_report.py
"""

from __future__ import annotations

import numpy as np

from quercus import DecisionTreeClassifier, datasets
from quercus.growing.interval import IntervalGrower


def main() -> None:
    X, y, schema = datasets.load("iris")
    test = np.arange(9, 150, 10)
    train = np.setdiff1d(np.arange(150), test)
    truth = y.iloc[test].to_numpy()
    print(f"{'mode':10} {'criterion':9} {'max_depth':>9} {'depth':>5} {'branches':>8} "
          f"{'leaves':>6} {'score':>7} | {'correct':>7} {'wrong':>5} {'unclassified':>12}")
    for lookahead in (False, True, "listing"):
        for criterion in ("gini", "entropy"):
            for max_depth in (None, 10, 6, 5):
                model = DecisionTreeClassifier(
                    algorithm="interval", criterion=criterion, lookahead=lookahead,
                    max_depth=max_depth).fit(X.iloc[train], y.iloc[train])
                predicted = model.predict(X.iloc[test])
                lost = np.array([p is None for p in predicted])
                right = (predicted == truth) & ~lost
                tree = model.tree_
                branches = int(np.count_nonzero(tree.kind != 0))
                root = IntervalGrower(
                    schema.encode(X.iloc[train]), schema.encode_labels(y.iloc[train]),
                    np.ones(len(train)), 3, criterion=criterion,
                    max_depth=(10 if lookahead and max_depth is None else max_depth),
                    lookahead=lookahead).grow()
                mode = {False: "greedy", True: "look-ahead", "listing": "listing"}[lookahead]
                print(f"{mode:10} {criterion:9} "
                      f"{max_depth or ('10*' if lookahead else '-')!s:>9} "
                      f"{model.get_depth():>5} {branches:>8} {model.get_n_leaves():>6} "
                      f"{root.total:>7.4f} | {right.sum():>7} {(~right & ~lost).sum():>5} "
                      f"{lost.sum():>12}")
    print("depth: levels of branches (a pure branch still tests its class's range);")
    print("branches: interval tests; leaves: class leaves plus 'unclassifiable' ends;")
    print("score: the look-ahead objective (own score + sample-weighted subtree scores);")
    print("10*: look-ahead's default maximum depth.")


if __name__ == "__main__":
    main()
