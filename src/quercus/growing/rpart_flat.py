"""An rpart fit (``quercus.rpart_records.RpartFit``) as a flat Quercus tree, and as the fitted
attributes of a ``DecisionTreeClassifier``.

The learner (``growing/rpart.py``) produces records shaped like rpart's ``fit$frame`` and
``fit$splits``; this module lays them out in the flat tree with surrogate routing
(``quercus.rpart_routing``), so prediction, model files and every exporter work on them.
"""

from __future__ import annotations

import numpy as np

from ..rpart_records import ABSENT, LEFT, RpartFit, SplitRecord
from ..rpart_routing import RpartRouting, threshold_of
from ..tree import CATEGORICAL, LEAF, NUMERIC, Tree

__all__ = ["attach_rpart_fit", "flat_tree_from_rpart", "variable_importance"]


def _node_values(fit: RpartFit) -> np.ndarray:
    """Per node, weights whose shares are rpart's class probabilities: the class counts
    when they give those shares (default priors), else the probabilities times the weight."""
    counts = np.asarray(fit.frame["class_counts"], dtype=np.float64)
    probs = np.asarray(fit.frame["class_probs"], dtype=np.float64)
    totals = counts.sum(axis=1, keepdims=True)
    shares = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    if np.allclose(shares, probs, rtol=1e-12, atol=1e-15):
        return counts
    return probs * np.asarray(fit.frame["wt"], dtype=np.float64)[:, None]


def _gini(values: np.ndarray) -> np.ndarray:
    totals = values.sum(axis=1, keepdims=True)
    shares = np.divide(values, totals, out=np.zeros_like(values), where=totals > 0)
    return 1.0 - (shares ** 2).sum(axis=1)


def flat_tree_from_rpart(fit: RpartFit, *, n_levels, use_surrogates: int = 2) -> Tree:
    """The flat tree of an rpart fit, routing rows as rpart's ``predict`` does.

    Parameters
    ----------
    fit : RpartFit
        The learner's records (frame in pre-order, split table).
    n_levels : sequence of int
        Declared levels of every feature (0 for a numeric feature): the length of the
        category maps.
    use_surrogates : {0, 1, 2}
        rpart's usesurrogate for routing (``Tree.rpart.use_surrogates``).

    Returns
    -------
    Tree
        ``node_probabilities`` = rpart's class probabilities, ``node_class`` = yval (a
        regression tree, ``fit.method == "anova"``: ``value`` = node mean, ``impurity`` =
        dev / wt, no ``node_class``),
        ``n_node_samples`` = n, ``weighted_n_node_samples`` = wt, ``rpart`` the surrogates
        and node risks. A numeric primary is stored with threshold = the float below the
        cut (branch 0: x < cut); ``rpart.left_branch`` names rpart's left child.
    """
    frame = fit.frame
    index = {int(number): i for i, number in enumerate(frame["node"])}
    primary: dict[int, SplitRecord] = {}
    surrogates: dict[int, list[SplitRecord]] = {}
    for record in fit.splits:
        if record.role == "primary":
            primary[record.node] = record
        elif record.role == "surrogate":
            surrogates.setdefault(record.node, []).append(record)
    n_levels = np.asarray(n_levels, dtype=np.int64)
    values = _node_values(fit) if fit.method != "anova" else None
    order: list[int] = []  # frame rows in the flat tree's pre-order
    nodes: list[dict] = []
    stack = [1]
    while stack:
        number = stack.pop()
        row = index[number]
        order.append(row)
        nodes.append(_flat_node(number, row, frame, primary.get(number), index, n_levels))
        stack.extend(reversed(nodes[-1]["children"]))
    flat_id = {number: i for i, number in enumerate(frame["node"][r] for r in order)}
    return _assemble(fit, order, nodes, flat_id, surrogates, values, n_levels, use_surrogates)


def _flat_node(number: int, row: int, frame: dict, split: SplitRecord | None, index: dict,
               n_levels: np.ndarray) -> dict:
    """One node's kind, threshold, children (rpart numbers, branch order) and map."""
    left, right = 2 * number, 2 * number + 1
    if frame["feature"][row] < 0 or left not in index:
        return {"kind": LEAF, "children": [], "left_branch": 0}
    if split is None:
        raise ValueError(f"rpart node {number} splits but has no primary split record")
    n = frame["n"]
    majority = 1 if n[index[right]] > n[index[left]] else 0  # for exporters without surrogates
    if not split.is_categorical:
        left_branch = 0 if split.left == "<" else 1  # branch 0 holds x < cut
        children = [left, right] if left_branch == 0 else [right, left]
        majority = majority if left_branch == 0 else 1 - majority
        return {"kind": NUMERIC, "children": children, "left_branch": left_branch,
                "threshold": threshold_of(split.cut), "majority": majority}
    sides = np.full(int(n_levels[split.feature]), ABSENT, dtype=np.int8)
    sides[: len(split.sides)] = np.asarray(split.sides)[: len(sides)]
    branch = np.where(sides == LEFT, 0, np.where(sides == ABSENT, majority, 1))
    return {"kind": CATEGORICAL, "children": [left, right], "left_branch": 0,
            "majority": majority, "category_map": branch.astype(np.int32),
            "absent": sides == ABSENT}


def _assemble(fit, order, nodes, flat_id, surrogates, values, n_levels, use_surrogates) -> Tree:
    frame = fit.frame
    rows = np.asarray(order, dtype=np.int64)
    kind = np.array([nd["kind"] for nd in nodes], dtype=np.int8)
    child_counts = [len(nd["children"]) for nd in nodes]
    maps = [nd.get("category_map", np.zeros(0, np.int32)) for nd in nodes]
    absent = [nd.get("absent", np.zeros(0, bool)) for nd in nodes]
    s_ptr, s_feature, s_cut, s_below, s_cptr, s_cbranch = [0], [], [], [], [0], []
    for nd, row in zip(nodes, order):
        if nd["kind"] != LEAF:
            for record in surrogates.get(int(frame["node"][row]), []):
                _add_surrogate(record, nd["left_branch"], n_levels, s_feature, s_cut,
                               s_below, s_cptr, s_cbranch)
        s_ptr.append(len(s_feature))
    if fit.method == "anova":  # a regression tree: node means, variances, no classes
        value = np.asarray(frame["yval"], dtype=np.float64)[rows][:, None]
        wt = np.asarray(frame["wt"], dtype=np.float64)[rows]
        impurity = np.divide(np.asarray(frame["dev"], dtype=np.float64)[rows], wt,
                             out=np.zeros_like(wt), where=wt > 0)
        node_class = None
    else:
        value = values[rows]
        impurity = _gini(value)
        node_class = np.asarray(frame["yval"], dtype=np.int64)[rows]
    tree = Tree(
        kind=kind,
        feature=np.where(kind == LEAF, -1, np.asarray(frame["feature"])[rows]).astype(np.int32),
        threshold=np.array([nd.get("threshold", np.nan) for nd in nodes]),
        child_ptr=np.concatenate([[0], np.cumsum(child_counts)]).astype(np.int64),
        child_ids=np.array([flat_id[c] for nd in nodes for c in nd["children"]],
                           dtype=np.int32),
        missing_branch=np.array([nd.get("majority", 0) for nd in nodes], dtype=np.int32),
        category_ptr=np.concatenate([[0], np.cumsum([len(m) for m in maps])]).astype(np.int64),
        category_branch=np.concatenate([np.zeros(0, np.int32), *maps]).astype(np.int32),
        value=value,
        impurity=impurity,
        n_node_samples=np.asarray(frame["n"], dtype=np.int64)[rows],
        weighted_n_node_samples=np.asarray(frame["wt"], dtype=np.float64)[rows],
        node_class=node_class,
        rpart=RpartRouting(
            left_branch=np.array([nd["left_branch"] for nd in nodes]),
            node_risk=np.asarray(frame["dev"], dtype=np.float64)[rows],
            category_absent=np.concatenate([np.zeros(0, bool), *absent]),
            surrogate_ptr=np.array(s_ptr), surrogate_feature=np.array(s_feature),
            surrogate_cut=np.array(s_cut, dtype=np.float64), surrogate_below=np.array(s_below),
            surrogate_category_ptr=np.array(s_cptr),
            surrogate_category_branch=np.array(s_cbranch), use_surrogates=use_surrogates),
    )
    tree.validate()
    return tree


def _add_surrogate(record: SplitRecord, left_branch: int, n_levels, feature, cut, below, cptr,
                   cbranch) -> None:
    """Append one surrogate in branch terms (branch ``left_branch`` is rpart's left)."""
    feature.append(record.feature)
    if record.is_categorical:
        sides = np.full(int(n_levels[record.feature]), ABSENT, dtype=np.int8)
        sides[: len(record.sides)] = np.asarray(record.sides)[: len(sides)]
        cbranch.extend(np.where(sides == ABSENT, -1,
                                np.where(sides == LEFT, left_branch, 1 - left_branch)).tolist())
        cut.append(np.nan)
        below.append(-1)
    else:
        cut.append(float(record.cut))
        below.append(left_branch if record.left == "<" else 1 - left_branch)
    cptr.append(len(cbranch))


def variable_importance(fit: RpartFit, feature_names) -> object:
    """rpart's ``variable.importance``: a pandas Series of the unscaled importances above 0,
    largest first (ties: the earlier feature), indexed by feature name."""
    import pandas as pd

    importance = np.asarray(fit.importance, dtype=np.float64)
    used = np.flatnonzero(importance > 0)
    used = used[np.argsort(-importance[used], kind="stable")]
    return pd.Series(importance[used], index=[feature_names[i] for i in used],
                     name="importance", dtype=np.float64)


def attach_rpart_fit(model, fit: RpartFit, schema, *, has_feature_names: bool = True,
                     use_surrogates: int | None = None):
    """Set a ``DecisionTreeClassifier``'s (or, for an anova fit, a
    ``DecisionTreeRegressor``'s) fitted attributes from an rpart fit.

    Sets ``tree_`` (``flat_tree_from_rpart``), the schema-derived attributes (``classes_``,
    ``n_classes_``, ``n_features_in_``, ``feature_names_in_``), ``cp_table_`` (the
    DataFrame), ``variable_importance_`` (rpart's unscaled importance, a Series in R's
    order; ``feature_importances_`` then gives it normalised to sum 1 over all features)
    ``rpart_fit_`` (the records) and ``rpart_n_dropped_`` (rows na.rpart left out, as
    printed after "n="). ``use_surrogates`` defaults to the model's
    ``use_surrogates`` parameter, else 2. Returns the model.
    """
    if use_surrogates is None:
        use_surrogates = getattr(model, "use_surrogates", 2)
    model.tree_ = flat_tree_from_rpart(fit, n_levels=schema.n_categories,
                                       use_surrogates=use_surrogates)
    model._set_fitted(schema, has_feature_names)
    model.cp_table_ = fit.cp_table
    model.variable_importance_ = variable_importance(fit, schema.feature_names)
    model.rpart_fit_ = fit
    model.rpart_n_dropped_ = len(fit.dropped)
    return model
