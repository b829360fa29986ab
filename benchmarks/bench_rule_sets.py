"""How much C4.5rules-style simplification shrinks a tree's rules, and what it costs.

Usage: python benchmarks/bench_rule_sets.py

Prints one Markdown table row per (data set, algorithm): the tree's rules and conditions
and its training accuracy, then the same for ``simplify_rules`` (default options), and the
time simplification took.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import quercus
from quercus.export.rule_sets import simplify_rules
from quercus.export.rules import tree_to_rules

ARFF = Path(__file__).resolve().parent.parent / "tests" / "data" / "arff"
CASES = [("iris", "cart"), ("iris", "c45"), ("iris", "interval"), ("play_tennis", "cart"),
         ("play_tennis", "id3"), ("vote", "cart"), ("vote", "c45"), ("labor", "c45"),
         ("breast-cancer", "c45"), ("soybean", "c45"), ("credit-g", "cart"),
         ("credit-g", "c45"), ("flowers", "interval")]


def load(name: str):
    if name in quercus.datasets.names():
        return quercus.datasets.load(name)
    return quercus.read_arff(ARFF / f"{name}.arff")


def main() -> None:
    print("| data | algorithm | tree rules | tree conditions | tree acc. | set rules "
          "| set conditions | set acc. | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, algorithm in CASES:
        data = load(name)
        model = quercus.DecisionTreeClassifier(algorithm=algorithm).fit(data.X, data.y)
        start = time.perf_counter()
        rule_set = simplify_rules(model, data.X, data.y)
        seconds = time.perf_counter() - start
        rules = tree_to_rules(model)
        truth = np.asarray(data.y, dtype=object)
        tree_accuracy = np.mean(model.predict(data.X).astype(object) == truth)
        print(f"| {name} | {algorithm} | {len(rules)} | "
              f"{sum(len(r.conditions) for r in rules)} | {tree_accuracy:.4f} | "
              f"{len(rule_set.rules)} | {rule_set.n_conditions} | "
              f"{rule_set.score(data.X, data.y):.4f} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
