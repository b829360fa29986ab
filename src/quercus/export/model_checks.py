"""Checks of a tree read from a model file against its schema: every index in range.

Prediction (compiled kernels, which do not check bounds) and the exporters index the tree's
arrays with the tree's own numbers, so a loaded tree must be checked before it is used.
``check_tree`` raises ``TreeArrayError`` naming the array and the node; the loader adds the
file's name. The checks hold for every learner's trees (CART exact and hist, ID3, C4.5 and
the class-interval tree); docs/architecture.md ("Model files") lists them.
"""

from __future__ import annotations

import numpy as np

from ..tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, Tree

__all__ = ["TreeArrayError", "check_tree"]

WEIGHTED = -1  # missing_branch: a missing value goes down every branch (C4.5, ID3)


class TreeArrayError(ValueError):
    """A tree array holds a value that does not fit the tree or the schema."""


def _refuse(array: str, node: int, value, why: str) -> TreeArrayError:
    shown = value.item() if isinstance(value, np.generic) else value
    return TreeArrayError(f"'{array}' of node {node} is {shown!r}: {why}")


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def check_tree(tree: Tree, schema, *, regression: bool = False) -> None:
    """Raise ``TreeArrayError`` unless every index in ``tree`` fits the tree and ``schema``.

    ``tree`` has passed ``Tree.validate`` (array lengths, children after their parent).
    Checked here: the class count; node kinds; ``feature`` against the schema's features
    (-1 on leaves); the CSR offsets and ``child_ids`` (every node but the root the child of
    exactly one node); two children for numeric and interval splits; ``missing_branch``
    against the node's children (0 on leaves); category maps against the feature's codebook
    (none on other nodes) and the node's children; ``interval_class`` against the classes
    (-1 off interval nodes); ``empty`` on leaves only; split thresholds are numbers; class
    and node weights finite and non-negative. A regression tree (``regression``) has one
    ``value`` column, its nodes' mean targets (finite, of any sign), and no classes.
    """
    if regression:
        if schema.classes is not None or tree.n_classes != 1:
            raise TreeArrayError(f"a regression tree has 'n_classes' 1 and no classes; got "
                                 f"{tree.n_classes} and a class codebook: "
                                 f"{schema.classes is not None}")
    elif schema.classes is None or tree.n_classes != len(schema.classes):
        n_schema = 0 if schema.classes is None else len(schema.classes)
        raise TreeArrayError(f"'n_classes' is {tree.n_classes}, the schema has {n_schema} "
                             "classes")
    _check_kinds_and_features(tree, schema)
    _check_children(tree)
    _check_missing_branches(tree)
    _check_category_maps(tree, schema)
    _check_interval_classes(tree)
    _check_numbers(tree, regression)
    if tree.rpart is not None:  # surrogates against the schema's features and codebooks
        tree.rpart.validate(tree, schema.n_categories)


def _check_kinds_and_features(tree: Tree, schema) -> None:
    kinds = np.isin(tree.kind, (LEAF, NUMERIC, CATEGORICAL, INTERVAL))
    if (node := _first(~kinds)) is not None:
        raise _refuse("kind", node, tree.kind[node], "not a node kind (0 leaf, 1 numeric, "
                      "2 categorical, 3 interval)")
    leaf = tree.kind == LEAF
    if (node := _first(leaf & (tree.feature != -1))) is not None:
        raise _refuse("feature", node, tree.feature[node], "a leaf tests no feature (-1)")
    n_features = schema.n_features
    outside = ~leaf & ((tree.feature < 0) | (tree.feature >= n_features))
    if (node := _first(outside)) is not None:
        raise _refuse("feature", node, tree.feature[node],
                      f"the model has {n_features} features (0 to {n_features - 1})")
    for node in np.flatnonzero(tree.kind == CATEGORICAL):
        spec = schema.features[int(tree.feature[node])]
        if spec.kind != "categorical":
            raise _refuse("feature", int(node), tree.feature[node], f"a categorical split of "
                          f"the numeric feature {spec.name!r}")


def _check_children(tree: Tree) -> None:
    for name in ("child_ptr", "category_ptr"):
        ptr = getattr(tree, name)
        if ptr[0] != 0:
            raise TreeArrayError(f"'{name}' must start at 0, not {ptr[0].item()}")
        if (node := _first(np.diff(ptr) < 0)) is not None:
            raise _refuse(name, node, ptr[node + 1], f"below the previous offset "
                          f"{ptr[node].item()} (the offsets must ascend)")
    n = tree.n_nodes
    seen = np.zeros(n, dtype=np.int64)
    np.add.at(seen, tree.child_ids[(tree.child_ids >= 0) & (tree.child_ids < n)], 1)
    parent = np.repeat(np.arange(n), np.diff(tree.child_ptr))
    for position, child in enumerate(tree.child_ids.tolist()):
        if not 0 < child < n:
            raise _refuse("child_ids", int(parent[position]), child,
                          f"not a child id (the tree has {n} nodes; the root 0 is no child)")
        if seen[child] > 1:
            raise _refuse("child_ids", int(parent[position]), child,
                          "that node is the child of more than one node")
    if (node := _first(seen[1:] == 0)) is not None:
        raise TreeArrayError(f"'child_ids': node {node + 1} is the child of no node")
    n_children = np.diff(tree.child_ptr)
    binary = (tree.kind == NUMERIC) | (tree.kind == INTERVAL)
    if (node := _first(binary & (n_children != 2))) is not None:
        raise _refuse("child_ptr", node, tree.child_ptr[node + 1],
                      f"a numeric or interval split has 2 children, not {n_children[node]}")


def _check_missing_branches(tree: Tree) -> None:
    n_children = np.diff(tree.child_ptr)
    leaf = tree.kind == LEAF
    branch = tree.missing_branch
    if (node := _first(leaf & (branch != 0))) is not None:
        raise _refuse("missing_branch", node, branch[node], "a leaf has no branches (0)")
    if (node := _first(~leaf & ((branch < WEIGHTED) | (branch >= n_children)))) is not None:
        raise _refuse("missing_branch", node, branch[node], f"the node has {n_children[node]} "
                      f"branches (0 to {n_children[node] - 1}, or -1 for all)")


def _check_category_maps(tree: Tree, schema) -> None:
    sizes = np.diff(tree.category_ptr)
    categorical = tree.kind == CATEGORICAL
    if (node := _first(~categorical & (sizes != 0))) is not None:
        raise _refuse("category_ptr", node, tree.category_ptr[node + 1],
                      "only a categorical split has a category map")
    n_children = np.diff(tree.child_ptr)
    for node in np.flatnonzero(categorical).tolist():
        n_categories = schema.features[int(tree.feature[node])].n_categories
        if sizes[node] != n_categories:
            raise _refuse("category_ptr", node, tree.category_ptr[node + 1],
                          f"the map has {sizes[node]} entries, the feature "
                          f"{n_categories} categories")
        branches = tree.category_map(node)
        if (at := _first((branches < 0) | (branches >= n_children[node]))) is not None:
            raise _refuse("category_branch", node, branches[at],
                          f"category {at} goes to no branch (the node has "
                          f"{n_children[node]})")


def _check_interval_classes(tree: Tree) -> None:
    interval = tree.kind == INTERVAL
    classes = tree.interval_class
    if (node := _first(~interval & (classes != -1))) is not None:
        raise _refuse("interval_class", node, classes[node],
                      "only an interval split names a class (-1 elsewhere)")
    outside = interval & ((classes < 0) | (classes >= tree.n_classes))
    if (node := _first(outside)) is not None:
        raise _refuse("interval_class", node, classes[node],
                      f"the model has {tree.n_classes} classes (0 to {tree.n_classes - 1})")


def _check_numbers(tree: Tree, regression: bool = False) -> None:
    leaf = tree.kind == LEAF
    if (node := _first(tree.empty & ~leaf)) is not None:
        raise _refuse("empty", node, True, "only a leaf can be empty")
    if tree.empty[0]:
        raise _refuse("empty", 0, True, "the root cannot be empty (it has no parent)")
    interval = tree.kind == INTERVAL
    tested = (tree.kind == NUMERIC) | interval
    if (node := _first(tested & np.isnan(tree.threshold))) is not None:
        raise _refuse("threshold", node, None, "a numeric or interval split needs a threshold")
    if (node := _first(interval & np.isnan(tree.interval_high))) is not None:
        raise _refuse("interval_high", node, None, "an interval split needs an upper end")
    bad = ~np.isfinite(tree.value) | ((tree.value < 0) & (not regression))
    if (node := _first(bad.any(axis=1))) is not None:
        raise _refuse("value", node, tree.value[node].tolist(),
                      "class weights must be finite and non-negative")
    weights = tree.weighted_n_node_samples
    if (node := _first(~np.isfinite(weights) | (weights < 0))) is not None:
        raise _refuse("weighted_n_node_samples", node, weights[node],
                      "node weights must be finite and non-negative")
