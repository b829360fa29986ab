"""The fitted tree as IF-THEN rules, one per leaf that received training rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .conditions import (
    Condition,
    NodeSummary,
    format_number,
    format_percent,
    format_value,
    format_weight,
    is_regressor,
    node_summaries,
    premise_text,
    regression_text,
    walk,
)
from .json_text import dumps_indented

__all__ = ["Rule", "rules_to_dict", "rules_to_json", "rules_to_text", "simplify",
           "tree_to_rules"]


@dataclass(frozen=True)
class Rule:
    """``IF conditions THEN target = label``, with the leaf's training support and accuracy.

    Attributes
    ----------
    conditions : tuple of Condition
        All must hold (an empty tuple means TRUE).
    target : str
        Name of the class column.
    label : object
        The predicted class label.
    support : int or float
        Training rows at the leaf; for C4.5 the leaf's training weight, fractional where rows
        with missing values were split (printed with up to 2 decimals).
    accuracy : float
        Weight of the predicted class / leaf weight.
    leaf : int
        The leaf's node id.
    sd : float or None
        Regression trees: standard deviation of the leaf's targets (``label`` is their
        mean, ``accuracy`` 1.0); None for classifiers.
    """

    conditions: tuple[Condition, ...]
    target: str
    label: object
    support: int | float
    accuracy: float
    leaf: int
    sd: float | None = None
    spread_name: str = "sd"  # what sd is: "sd", "mad" or "deviance" (regression_labels)

    def __str__(self) -> str:
        premise = premise_text(self.conditions)
        if self.sd is not None:  # IF ... THEN Sales = 7.41 (n = 23, sd 1.9)
            summary = NodeSummary(self.label, self.support, 1.0, False, False, self.sd,
                                  self.spread_name)
            return f"IF {premise} THEN {self.target} = {regression_text(summary)}"
        return (f"IF {premise} THEN {self.target} = {format_value(self.label)}  "
                f"(support {format_weight(self.support)}, accuracy {format_percent(self.accuracy)})")


def _cut_text(threshold: float) -> str:
    """rpart's cut of a stored threshold (the float above it), as the text tree shows it."""
    return format_number(np.nextafter(threshold, np.inf))


def simplify(path: tuple[Condition, ...]) -> tuple[Condition, ...]:
    """Merge the conditions on each feature, in order of the feature's first appearance.

    Numeric bounds keep the tightest ``>`` and the tightest ``<=`` (both: ``"between"``);
    category sets are intersected; "not missing" is dropped when a bound implies it. The
    merged condition admits a missing value only when every condition it merges does.
    """
    by_feature: dict[str, list[Condition]] = {}
    for condition in path:
        by_feature.setdefault(condition.feature_name, []).append(condition)
    out: list[Condition] = []
    for name, conditions in by_feature.items():
        highs = [c.value for c in conditions if c.op == "<="]
        lows = [c.value for c in conditions if c.op == ">"]
        bounds_missing = all(c.or_missing for c in conditions if c.op in ("<=", ">"))
        # rpart's strict cuts (conditions shown as "x < cut"): keep showing them so
        cut = _cut_text if any(c.shown for c in conditions if c.op in ("<=", ">")) else None
        if highs and lows:
            low, high = max(lows), min(highs)
            out.append(Condition(name, "between", (low, high), shown=cut and
                                 f"{cut(low)} <= {name} < {cut(high)}",
                                 or_missing=bounds_missing))
        elif highs:
            out.append(Condition(name, "<=", min(highs),
                                 shown=cut and f"{name} < {cut(min(highs))}",
                                 or_missing=bounds_missing))
        elif lows:
            out.append(Condition(name, ">", max(lows),
                                 shown=cut and f"{name} >= {cut(max(lows))}",
                                 or_missing=bounds_missing))
        in_sets = [c for c in conditions if c.op in ("=", "in")]
        sets = [(c.value,) if c.op == "=" else tuple(c.value) for c in in_sets]
        if sets:
            kept = tuple(v for v in sets[0] if all(v in s for s in sets[1:]))
            sets_missing = all(c.or_missing for c in in_sets)
            out.append(Condition(name, "=", kept[0], or_missing=sets_missing)
                       if len(kept) == 1 else Condition(name, "in", kept,
                                                        or_missing=sets_missing))
        out.extend(c for c in conditions if c.op in ("within", "outside"))
        if any(c.op == "missing" for c in conditions):
            out.append(Condition(name, "missing"))
        elif any(c.op == "not missing" for c in conditions) and not (highs or lows):
            out.append(Condition(name, "not missing"))
    return tuple(out)


def tree_to_rules(model) -> list[Rule]:
    """One rule per leaf of a fitted model, leaves in pre-order (left first).

    A multiway categorical node (ID3, C4.5) contributes ``feature = category``. Empty leaves
    (C4.5 and ID3 leaves that no training row reached) get no rule: they have no training
    support, and a row that reaches one is predicted its parent's majority class, so such a
    row matches no rule. Where a CART node's training rows with a missing value went down
    its learned branch, that branch's condition says ``or missing`` (so a rule's support is
    the training rows it matches); C4.5 sends a missing value down every branch with
    fractional weight, and a row with a missing value in a feature it tests matches no rule
    that tests it.
    """
    tree = model._check_fitted()
    target = model.schema_.target or ("target" if is_regressor(model) else "class")
    if tree.is_leaf(0):
        leaves = [(0, ())]
    else:
        leaves = [(b.node, b.path) for b in walk(tree, model.schema_) if tree.is_leaf(b.node)]
    summaries = node_summaries(model)
    rules = []
    for node, path in leaves:
        summary = summaries[node]
        if summary.empty or summary.unclassified:
            continue
        rules.append(Rule(simplify(path), target, summary.label, summary.support,
                          summary.share, node, summary.sd, summary.spread_name))
    return rules


def rules_to_text(model) -> str:
    """The rules of a fitted model, one per line (none for empty leaves)."""
    return "\n".join(str(rule) for rule in tree_to_rules(model))


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def rules_to_dict(model) -> dict:
    """The rules of a fitted model as a JSON-ready document for programs.

    ``{"format": "quercus-rules", "format_version": 1, "kind": "tree", "target", "classes",
    "default_class": null, "rules": [...], "schema"}``; each rule is ``{"conditions":
    [{"feature", "op", "value"}, ...], "class", "coverage", "accuracy", "leaf"}`` where
    coverage is the rule's support (training rows, or C4.5 training weight, at its leaf)
    and accuracy the share of its class there. A tree's rules have no default class: a row
    matching none (a missing value, an empty leaf) is left to the tree. Conditions are
    written by ``quercus.export.rule_match.condition_to_json``.

    A regression tree gives ``"kind": "regression tree"``, no classes, and each rule
    ``{"conditions", "value", "n", "sd", "leaf"}``: the leaf's mean target, its training
    rows and the standard deviation of their targets (for absolute error the median and
    ``"mad"``, for Poisson ``"deviance"`` instead of ``"sd"``: ``regression_labels``).
    """
    from .rule_match import condition_to_json

    model._check_fitted()
    if is_regressor(model):
        return {"format": "quercus-rules", "format_version": 1, "kind": "regression tree",
                "target": model.schema_.target or "target",
                "rules": [{"conditions": [condition_to_json(c) for c in rule.conditions],
                           "value": float(rule.label), "n": _plain(rule.support),
                           rule.spread_name: float(rule.sd), "leaf": int(rule.leaf)}
                          for rule in tree_to_rules(model)],
                "schema": model.schema_.to_json()}
    return {"format": "quercus-rules", "format_version": 1, "kind": "tree",
            "target": model.schema_.target or "class",
            "classes": [_plain(c) for c in model.classes_], "default_class": None,
            "rules": [{"conditions": [condition_to_json(c) for c in rule.conditions],
                       "class": _plain(rule.label), "coverage": _plain(rule.support),
                       "accuracy": float(rule.accuracy), "leaf": int(rule.leaf)}
                      for rule in tree_to_rules(model)],
            "schema": model.schema_.to_json()}


def rules_to_json(model) -> str:
    """``rules_to_dict`` as indented JSON text (ending with a newline)."""
    return dumps_indented(rules_to_dict(model)) + "\n"
