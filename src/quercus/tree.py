"""The fitted tree as flat arrays (see docs/architecture.md), and traversal helpers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ._kernels._predict import (
    CATEGORICAL,
    INTERVAL,
    LEAF,
    NUMERIC,
    WEIGHTED,
    apply_rows,
    apply_surrogate_rows,
    numeric_leaf_lookup,
    path_lengths,
    proba_rows,
    surrogate_paths,
)
from .errors import DataError
from .numeric_layout import NumericLayout
from .numeric_layout import pack as pack_numeric
from .rpart_routing import RpartRouting

__all__ = ["CATEGORICAL", "LEAF", "NUMERIC", "TREE_UNDEFINED", "SklearnTreeView", "Tree",
           "TreeRecorder"]

#: ``threshold`` of a leaf, as scikit-learn's ``tree_`` has it.
TREE_UNDEFINED = -2.0

_ARRAY_FIELDS = {
    "kind": np.int8,
    "feature": np.int32,
    "threshold": np.float64,
    "child_ptr": np.int64,
    "child_ids": np.int32,
    "missing_branch": np.int32,
    "category_ptr": np.int64,
    "category_branch": np.int32,
    "value": np.float64,
    "impurity": np.float64,
    "n_node_samples": np.int64,
    "weighted_n_node_samples": np.float64,
    "empty": np.bool_,
    "interval_high": np.float64,
    "interval_class": np.int32,
}


def _as_float_rows(X) -> np.ndarray:
    """Rows in C order as float32 or float64 (the kernels are compiled for both); a scipy
    sparse matrix is densified (``validation.densify``)."""
    if type(X).__module__.startswith("scipy.sparse"):
        from .validation import densify

        X = densify(X)
    dtype = X.dtype if isinstance(X, np.ndarray) and X.dtype in (np.float32, np.float64) \
        else np.float64
    return np.ascontiguousarray(X, dtype=dtype)


def most_probable(proba: np.ndarray, tie_rtol: float = 0.0) -> np.ndarray:
    """Per row, the column of the largest probability, or -1 where the row is all zero.

    Ties go to the first column; with ``tie_rtol`` > 0, every column whose probability is
    at least ``(1 - tie_rtol)`` times the largest counts as tied (two probabilities that are
    equal in exact arithmetic but summed in different orders can differ in the last bits).
    """
    best = np.argmax(proba, axis=1)
    if tie_rtol > 0.0 and proba.shape[0]:
        top = proba[np.arange(proba.shape[0]), best]
        best = np.argmax(proba >= (top * (1.0 - tie_rtol))[:, None], axis=1)
    return np.where(proba.sum(axis=1) > 0, best, -1)


@dataclass
class Tree:
    """A fitted tree: one entry per node in each array, node 0 the root, pre-order ids."""

    kind: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    child_ptr: np.ndarray
    child_ids: np.ndarray
    missing_branch: np.ndarray
    category_ptr: np.ndarray
    category_branch: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    empty: np.ndarray | None = None  # leaves that never received a training row (C4.5, ID3)
    interval_high: np.ndarray | None = None  # INTERVAL nodes: upper end (threshold: lower)
    interval_class: np.ndarray | None = None  # INTERVAL nodes: the class whose range it is
    # the class each node predicts when it is not the most probable one (a loss matrix:
    # the class of least expected loss); None: predict takes the most probable class
    node_class: np.ndarray | None = None
    # rpart trees: surrogate splits, usesurrogate and node risks (quercus.rpart_routing);
    # rows then stop at an internal node when nothing routes them
    rpart: RpartRouting | None = None
    # per node, the training rows that reached it with its split feature missing (0 at
    # leaves; ``missing_counts``); None where not recorded (nothing was missing, rpart and
    # C4.5 trees, files written before it). The text tree and rules show "or missing" on
    # the branch that took such rows.
    n_missing: np.ndarray | None = None

    def __post_init__(self):
        n = self.kind.shape[0]
        # scikit-learn's TREE_UNDEFINED at leaves (model files keep null there)
        self.threshold = np.where(self.kind == LEAF, TREE_UNDEFINED, self.threshold)
        if self.empty is None:
            self.empty = np.zeros(n, dtype=np.bool_)
        if self.interval_high is None:
            self.interval_high = np.full(n, np.nan)
        if self.interval_class is None:
            self.interval_class = np.full(n, -1, dtype=np.int32)
        if self.node_class is not None:
            self.node_class = np.ascontiguousarray(self.node_class, dtype=np.int32)
        if self.n_missing is not None:
            self.n_missing = np.ascontiguousarray(self.n_missing, dtype=np.int64)

    @property
    def n_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.value.shape[1])

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.kind == LEAF))

    # -- scikit-learn's names (binary trees; see also ``sklearn_view``) ------------------
    @property
    def node_count(self) -> int:
        """scikit-learn's name for ``n_nodes``."""
        return self.n_nodes

    @property
    def capacity(self) -> int:
        return self.n_nodes

    @property
    def n_outputs(self) -> int:
        """1, or the number of outputs of a multi-output tree (``output_ptr`` set by
        ``quercus.multi_output``: output k's classes are columns
        ``output_ptr[k]:output_ptr[k + 1]`` of ``value``)."""
        ptr = getattr(self, "output_ptr", None)
        return 1 if ptr is None else len(ptr) - 1

    @property
    def max_n_classes(self) -> int:
        ptr = getattr(self, "output_ptr", None)
        return self.n_classes if ptr is None else int(np.diff(ptr).max())

    def _binary_children(self) -> np.ndarray:
        """(n_nodes, 2) left and right child ids, -1 at leaves; refuses multiway nodes."""
        counts = np.diff(self.child_ptr)
        if np.any((counts != 0) & (counts != 2)):
            raise ValueError("children_left and children_right describe binary trees; this "
                             "tree has multiway splits (use children() or child_ptr/child_ids)")
        out = np.full((self.n_nodes, 2), -1, dtype=np.int64)
        split = counts == 2
        out[split] = self.child_ids.reshape(-1, 2)
        return out

    @property
    def children_left(self) -> np.ndarray:
        """Left child of every node, -1 (scikit-learn's TREE_LEAF) at leaves."""
        return _read_only(self._binary_children()[:, 0])

    @property
    def children_right(self) -> np.ndarray:
        """Right child of every node, -1 (scikit-learn's TREE_LEAF) at leaves."""
        return _read_only(self._binary_children()[:, 1])

    @property
    def missing_go_to_left(self) -> np.ndarray:
        """1 where rows with a missing value take the left branch (scikit-learn's array)."""
        return _read_only((self.missing_branch == 0) & (self.kind != LEAF)).astype(np.uint8)

    @property
    def sklearn_view(self) -> SklearnTreeView:
        """The tree with scikit-learn's conventions throughout (see ``SklearnTreeView``)."""
        return SklearnTreeView(self)

    def is_leaf(self, node: int) -> bool:
        return bool(self.kind[node] == LEAF)

    def children(self, node: int) -> np.ndarray:
        """Ids of the node's children in branch order (empty for a leaf)."""
        return self.child_ids[self.child_ptr[node] : self.child_ptr[node + 1]]

    def category_map(self, node: int) -> np.ndarray:
        """For a categorical node, the branch index of every category code."""
        return self.category_branch[self.category_ptr[node] : self.category_ptr[node + 1]]

    def parents(self) -> np.ndarray:
        """Parent id of every node (-1 for the root)."""
        parent = np.full(self.n_nodes, -1, dtype=np.int64)
        parent[self.child_ids] = np.repeat(np.arange(self.n_nodes), np.diff(self.child_ptr))
        return parent

    def depths(self) -> np.ndarray:
        """Depth of every node (the root has depth 0), by pointer jumping: each round adds
        the distance to the ancestor a node points at and then points at that one's, so
        log2(depth) rounds of whole-array steps."""
        up = self.parents()
        depth = (up >= 0).astype(np.int64)
        while True:
            jumping = np.flatnonzero(up >= 0)
            jumping = jumping[up[jumping] >= 0]
            if jumping.size == 0:
                return depth
            ancestors = up[jumping]
            depth[jumping] += depth[ancestors]
            up[jumping] = up[ancestors]

    @property
    def max_depth(self) -> int:
        return int(self.depths().max())

    def _kernel_args(self):
        return (self.kind, self.feature, self.threshold, self.interval_high, self.child_ptr,
                self.child_ids, self.missing_branch, self.category_ptr, self.category_branch,
                self.weighted_n_node_samples)

    def apply(self, X: np.ndarray, missing: bool = True) -> np.ndarray:
        """Leaf id reached by every row of the encoded matrix X.

        At a node that sends missing values down every branch (C4.5), a row with a missing
        value is followed down the branch with the most training weight. ``missing=False``
        promises that X holds no NaN (``Schema.encode_rows``).
        """
        return self._leaf_lookup(X, np.arange(self.n_nodes, dtype=np.int64), missing)

    def leaf_values(self, X: np.ndarray, missing: bool = True) -> np.ndarray:
        """``value[leaf, 0]`` of the leaf every row reaches (a regression tree's prediction),
        looked up by the numeric kernel itself when it serves the tree; ``missing=False``
        promises that X holds no NaN."""
        return self._leaf_lookup(X, np.ascontiguousarray(self.value[:, 0], dtype=np.float64),
                                 missing)

    def _leaf_lookup(self, X: np.ndarray, lookup: np.ndarray, missing: bool = True
                     ) -> np.ndarray:
        """``lookup[leaf]`` for the leaf every row reaches (``lookup``: int64 or float64 per
        node); ``missing=False`` promises that X holds no NaN (``Schema.encode_rows``)."""
        X = self._checked_rows(X)
        out = np.empty(X.shape[0], dtype=np.int64)
        if self.rpart is not None:  # surrogates; a row may stop at an internal node
            apply_surrogate_rows(X, *self._surrogate_args(), out)
            return lookup[out]
        layout = self._memo("layout", self.numeric_layout, self.kind, self.feature,
                            self.threshold, self.child_ptr, self.child_ids, self.missing_branch)
        if layout is not None:  # every split a numeric threshold: the compact kernel
            if lookup.dtype != out.dtype:
                out = np.empty(X.shape[0], dtype=lookup.dtype)
            numeric_leaf_lookup(X, *layout.kernel_args(X), missing, lookup, out)
            return out
        apply_rows(X, *self._kernel_args(), out)
        return lookup[out]

    def _surrogate_args(self) -> tuple:
        return (self.kind, self.feature, self.threshold, self.child_ptr, self.child_ids,
                self.category_ptr, self.category_branch, self.n_node_samples,
                *self.rpart.kernel_args())

    def _checked_rows(self, X: np.ndarray, dtype=None) -> np.ndarray:
        """X as C-ordered float rows, refusing a matrix without a column that a split tests
        (the kernels do not check bounds)."""
        X = _as_float_rows(X)
        if dtype is not None:
            X = np.ascontiguousarray(X, dtype=dtype)
        tested = int(self.feature[self.kind != LEAF].max(initial=-1))
        if self.rpart is not None:  # surrogates read columns too
            tested = max(tested, int(self.rpart.surrogate_feature.max(initial=-1)))
        if X.ndim != 2 or X.shape[1] <= tested:
            raise DataError(f"X has {X.shape[-1] if X.ndim else 0} columns; the tree tests "
                            f"feature {tested}")
        return X

    def numeric_layout(self) -> NumericLayout | None:
        """The packed form that ``_kernels._predict`` descends (``numeric_layout``),
        or None unless every split is a numeric threshold with one missing-value branch
        whose left child is the next node."""
        if np.any(self.kind[self.kind != LEAF] != NUMERIC):
            return None
        return pack_numeric(self.kind, self.feature, self.threshold, self.child_ptr,
                            self.child_ids, self.missing_branch, LEAF)

    def node_classes(self) -> np.ndarray:
        """The class code each node predicts: ``node_class`` where set (a loss matrix),
        else the most probable class (ties: the first)."""
        if self.node_class is not None:
            return self.node_class.astype(np.int64)
        return np.argmax(self.node_probabilities(), axis=1)

    def node_probabilities(self, laplace: bool = False) -> np.ndarray:
        """Class probabilities a row gets at each node if it stops there.

        A leaf gives its class shares (all zero when it holds no weight), with Laplace's
        correction ``(n_c + 1) / (n + k)`` if asked. An empty leaf (one that never received
        training rows) gives its parent's class shares instead (Laplace-corrected if asked),
        as C4.5 (J48) does.
        """
        totals = self.value.sum(axis=1, keepdims=True)
        if laplace:
            proba = (self.value + 1.0) / (totals + self.n_classes)
        else:
            proba = np.divide(self.value, totals, out=np.zeros_like(self.value),
                              where=totals > 0)
        empty = np.flatnonzero(self.empty)
        if empty.size:
            parent = self.parents()
            p = parent[empty]
            parent_totals = totals[p]
            if laplace:
                proba[empty] = (self.value[p] + 1.0) / (parent_totals + self.n_classes)
            else:
                proba[empty] = np.divide(self.value[p], parent_totals,
                                         out=np.zeros((empty.size, self.n_classes)),
                                         where=parent_totals > 0)
        return proba

    def predict_proba(self, X: np.ndarray, laplace: bool = False,
                      missing: bool = True) -> np.ndarray:
        """Class probabilities of every row: the leaf's, or for a missing value at a C4.5
        node the sum over its branches weighted by their shares of the training weight.
        ``missing=False`` promises that X holds no NaN."""
        proba = self.node_probabilities(laplace)
        if not self.has_weighted_missing:  # every row ends in one leaf
            return proba.take(self.apply(X, missing), axis=0)
        X = self._checked_rows(X)
        out = np.zeros((X.shape[0], self.n_classes))
        proba_rows(X, *self._kernel_args(), proba, out)
        return out

    @property
    def has_weighted_missing(self) -> bool:
        """Whether some node sends missing values down every branch (C4.5)."""
        return bool(np.any(self.missing_branch[self.kind != LEAF] == WEIGHTED))

    def predict_codes(self, X: np.ndarray, tie_rtol: float = 0.0) -> np.ndarray:
        """Class code of every row: the most probable class (ties: the first), or -1 where
        every class has probability 0 (a leaf without training weight, an unclassified row
        of a class-interval tree). With ``tie_rtol`` > 0, a class within that relative
        distance of the largest probability counts as tied (``most_probable``)."""
        if self.has_weighted_missing and self.node_class is None:
            return most_probable(self.predict_proba(X), tie_rtol)
        return self._leaf_lookup(X, self._node_codes(tie_rtol))

    def predict_labels(self, X: np.ndarray, classes: np.ndarray, tie_rtol: float = 0.0,
                       missing: bool = True) -> np.ndarray | None:
        """``classes[code]`` of every row's class code (``predict_codes``), written by the
        traversal itself; None where it cannot be: labels other than int64 or float64, a
        node without a class, or C4.5's weighted descent (call ``predict_codes`` then).
        ``missing=False`` promises that X holds no NaN."""
        if (classes.dtype not in (np.int64, np.float64)
                or (self.has_weighted_missing and self.node_class is None)):
            return None
        codes = self._node_codes(tie_rtol)
        if np.any(codes < 0):
            return None
        labels = self._memo(("labels", tie_rtol), lambda: classes[codes], codes, classes)
        return self._leaf_lookup(X, labels, missing)

    def _node_codes(self, tie_rtol: float) -> np.ndarray:
        """The class code every node predicts (int64), -1 where no class has weight."""
        if self.node_class is not None:
            return self.node_class.astype(np.int64)
        return self._memo(("codes", tie_rtol),
                          lambda: most_probable(self.node_probabilities(), tie_rtol),
                          self.value, self.empty, self.child_ptr, self.child_ids)

    def _memo(self, key, make, *arrays: np.ndarray):
        """``make()``, kept on the tree until one of ``arrays`` changes (compared byte for
        byte: a caller may edit the arrays in place). Not pickled (``__getstate__``)."""
        state = tuple((a.dtype.str, a.shape, a.tobytes()) for a in arrays)
        memo = self.__dict__.setdefault("_kept", {})
        kept = memo.get(key)
        if kept is None or kept[0] != state:
            kept = memo[key] = (state, make())
        return kept[1]

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_kept"}

    def decision_path(self, X):
        """Nodes visited by every row as a scipy CSR indicator matrix (scikit-learn's
        ``tree_.decision_path``; X encoded, dense or sparse)."""
        from scipy.sparse import csr_matrix

        nodes, ptr = self.decision_paths(X)
        data = np.ones(nodes.shape[0], dtype=np.int64)
        return csr_matrix((data, nodes, ptr), shape=(ptr.shape[0] - 1, self.n_nodes))

    def decision_paths(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nodes visited by every row, as CSR ``(indices, indptr)``."""
        X = self._checked_rows(X, np.float64)
        nodes = np.empty(X.shape[0] * (self.max_depth + 1), dtype=np.int64)
        ptr = np.empty(X.shape[0] + 1, dtype=np.int64)
        if self.rpart is not None:
            used = surrogate_paths(X, *self._surrogate_args(), nodes, ptr)
        else:
            used = path_lengths(X, *self._kernel_args(), nodes, ptr)
        return nodes[:used], ptr

    def subtree_nodes(self, node: int) -> list[int]:
        """The node and all its descendants, in pre-order."""
        out, stack = [], [node]
        while stack:
            current = stack.pop()
            out.append(current)
            stack.extend(reversed(self.children(current).tolist()))
        return out

    def to_dict(self) -> dict:
        """Plain lists, for JSON model files."""
        out = {}
        for name in _ARRAY_FIELDS:
            array = getattr(self, name)
            if name == "threshold":  # leaves as null, as files always had them
                array = np.where(self.kind == LEAF, np.nan, array)
            if array.dtype.kind == "f":
                out[name] = [None if v != v else v for v in array.ravel().tolist()]  # noqa: PLR0124 (NaN)
            else:
                out[name] = array.ravel().tolist()
        if self.node_class is not None:  # written only when set: other files stay as they were
            out["node_class"] = self.node_class.tolist()
        if self.rpart is not None:  # likewise
            out["rpart"] = self.rpart.to_dict()
        if self.n_missing is not None:  # likewise
            out["n_missing"] = self.n_missing.tolist()
        out["n_classes"] = self.n_classes
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Tree:
        """Inverse of ``to_dict``; checks that the arrays fit together."""
        arrays = {}
        for name, dtype in _ARRAY_FIELDS.items():
            raw = [np.nan if v is None else v for v in data[name]]
            arrays[name] = np.asarray(raw, dtype=dtype)
        n_classes = int(data["n_classes"])
        arrays["value"] = arrays["value"].reshape(-1, n_classes)
        if data.get("node_class") is not None:
            arrays["node_class"] = np.asarray(data["node_class"], dtype=np.int64)
        if data.get("rpart") is not None:
            arrays["rpart"] = RpartRouting.from_dict(data["rpart"])
        if data.get("n_missing") is not None:
            arrays["n_missing"] = np.asarray(data["n_missing"], dtype=np.int64)
        tree = cls(**arrays)
        tree.validate()
        return tree

    def validate(self) -> None:
        """Raise ValueError, naming the array and the node, if the arrays do not describe a
        well-formed tree (``quercus.export.model_checks`` checks a loaded tree further)."""
        n = self.n_nodes
        if n == 0:
            raise ValueError("the tree has no nodes")
        if self.value.shape[0] != n:
            raise ValueError(f"'value' has {self.value.shape[0]} rows of {self.n_classes} "
                             f"class weights, 'kind' {n} nodes")
        same_length = ("feature", "threshold", "missing_branch", "impurity", "n_node_samples",
                       "weighted_n_node_samples", "empty", "interval_high", "interval_class")
        for name in same_length:
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"'{name}' has {getattr(self, name).shape[0]} entries, "
                                 f"'kind' {n}")
        if self.node_class is not None:
            if self.node_class.shape[0] != n:
                raise ValueError(f"'node_class' has {self.node_class.shape[0]} entries, "
                                 f"'kind' {n}")
            bad = np.flatnonzero((self.node_class < 0) | (self.node_class >= self.n_classes))
            if bad.size:
                raise ValueError(f"'node_class' of node {int(bad[0])} is "
                                 f"{int(self.node_class[bad[0]])}, not a class index below "
                                 f"{self.n_classes}")
        if self.n_missing is not None:
            if self.n_missing.shape[0] != n:
                raise ValueError(f"'n_missing' has {self.n_missing.shape[0]} entries, "
                                 f"'kind' {n}")
            bad = np.flatnonzero((self.n_missing < 0) | (self.n_missing > self.n_node_samples)
                                 | ((self.kind == LEAF) & (self.n_missing != 0)))
            if bad.size:
                raise ValueError(f"'n_missing' of node {int(bad[0])} is "
                                 f"{int(self.n_missing[bad[0]])}: not a count of the node's "
                                 "rows (0 at a leaf)")
        for name in ("child_ptr", "category_ptr"):
            if getattr(self, name).shape[0] != n + 1:
                raise ValueError(f"'{name}' has {getattr(self, name).shape[0]} entries, "
                                 f"not {n + 1} (one per node, plus one)")
        if self.child_ptr[-1] != self.child_ids.shape[0]:
            raise ValueError(f"'child_ptr' ends at {self.child_ptr[-1]}, 'child_ids' has "
                             f"{self.child_ids.shape[0]} entries")
        if self.category_ptr[-1] != self.category_branch.shape[0]:
            raise ValueError(f"'category_ptr' ends at {self.category_ptr[-1]}, "
                             f"'category_branch' has {self.category_branch.shape[0]} entries")
        for node in range(n):
            children = self.children(node)
            if self.kind[node] == LEAF:
                if children.size:
                    raise ValueError(f"'child_ptr' of node {node}: a leaf has no children")
                continue
            if self.kind[node] not in (NUMERIC, CATEGORICAL, INTERVAL):
                raise ValueError(f"'kind' of node {node} is {self.kind[node]}: not a node kind")
            if children.size < 2:
                raise ValueError(f"'child_ptr' of node {node}: a split has 2 or more "
                                 f"children, not {children.size}")
            if np.any(children <= node) or np.any(children >= n):
                raise ValueError(f"'child_ids' of node {node}: a child must come after its "
                                 f"parent and be one of the {n} nodes, not "
                                 f"{children[(children <= node) | (children >= n)][0]}")
            if not -1 <= self.missing_branch[node] < children.size:
                raise ValueError(f"'missing_branch' of node {node} is "
                                 f"{self.missing_branch[node]}: the node has {children.size} "
                                 "branches")
            cmap = self.category_map(node)
            if np.any(cmap < 0) or np.any(cmap >= children.size):
                raise ValueError(f"'category_branch' of node {node}: a category goes to no "
                                 f"branch (the node has {children.size})")
        if self.rpart is not None:
            self.rpart.validate(self)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


class SklearnTreeView:
    """A read-only view of a binary tree with scikit-learn's ``tree_`` conventions.

    ``Tree`` itself answers scikit-learn's names that mean the same in both
    (``node_count``, ``children_left``, ``children_right``, ``n_node_samples``,
    ``weighted_n_node_samples``, ``impurity``, ``threshold`` (-2 at leaves, NaN at
    categorical nodes), ``max_depth``, ``n_leaves``, ``n_outputs``, ``max_n_classes``), but
    keeps its own conventions where they differ: ``feature`` is -1 at leaves and ``value``
    holds weighted class counts of shape
    (n_nodes, n_classes), the outputs' blocks end to end for a multi-output tree. This
    view gives scikit-learn's: -2 (TREE_UNDEFINED) at leaves in ``feature`` and
    ``threshold``, and ``value`` of shape (n_nodes, n_outputs, max_n_classes) holding each
    node's class shares of the training weight per output (scikit-learn >= 1.4).
    """

    def __init__(self, tree: Tree):
        self._tree = tree
        self._leaf = tree.kind == LEAF

    def __getattr__(self, name):
        if name in ("node_count", "capacity", "children_left", "children_right", "impurity",
                    "n_node_samples", "weighted_n_node_samples", "max_depth", "n_leaves",
                    "n_outputs", "max_n_classes", "missing_go_to_left"):
            value = getattr(self._tree, name)
            return _read_only(value.copy()) if isinstance(value, np.ndarray) else value
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    @property
    def n_classes(self) -> np.ndarray:
        ptr = getattr(self._tree, "output_ptr", None)
        return np.array([self._tree.n_classes] if ptr is None else np.diff(ptr), dtype=np.intp)

    @property
    def feature(self) -> np.ndarray:
        return _read_only(np.where(self._leaf, -2, self._tree.feature).astype(np.int64))

    @property
    def threshold(self) -> np.ndarray:
        return _read_only(np.where(self._leaf, -2.0, self._tree.threshold))

    @property
    def value(self) -> np.ndarray:
        tree = self._tree
        ptr = getattr(tree, "output_ptr", None)
        ptr = np.array([0, tree.n_classes]) if ptr is None else ptr
        shares = np.zeros((tree.n_nodes, len(ptr) - 1, tree.max_n_classes))
        for k in range(len(ptr) - 1):
            value = tree.value[:, ptr[k]:ptr[k + 1]]
            totals = value.sum(axis=1, keepdims=True)
            shares[:, k, : value.shape[1]] = np.divide(value, totals,
                                                       out=np.zeros_like(value),
                                                       where=totals > 0)
        return _read_only(shares)


@dataclass
class TreeRecorder:
    """Collects nodes as a builder creates them, in any order, and lays them out in pre-order."""

    n_classes: int
    nodes: list = field(default_factory=list)

    def add(self, *, value, impurity, n_samples, weight, empty=False) -> int:
        """Add a leaf; returns its provisional id."""
        self.nodes.append({"empty": bool(empty), "interval_high": np.nan, "interval_class": -1,
            "kind": LEAF, "feature": -1, "threshold": np.nan, "children": [],
            "missing_branch": 0, "category_map": None, "value": np.asarray(value, float),
            "impurity": float(impurity), "n": int(n_samples), "w": float(weight),
        })
        return len(self.nodes) - 1

    def make_split(self, node: int, *, kind: int, feature: int, children: list[int],
                   missing_branch: int, threshold: float = np.nan, category_map=None,
                   interval_high: float = np.nan, interval_class: int = -1) -> None:
        """Turn a recorded leaf into a split node with the given children."""
        record = self.nodes[node]
        record.update(kind=kind, feature=int(feature), threshold=float(threshold),
                      children=list(children), missing_branch=int(missing_branch),
                      category_map=None if category_map is None else np.asarray(category_map),
                      interval_high=float(interval_high), interval_class=int(interval_class))

    def make_leaf(self, node: int) -> None:
        record = self.nodes[node]
        record.update(kind=LEAF, feature=-1, threshold=np.nan, children=[], missing_branch=0,
                      category_map=None)

    def add_subtree(self, tree: Tree, parent: int = -1, branch: int = 0) -> int:
        """Add a whole subtree grown elsewhere (a ``Tree``, its nodes in pre-order, the root
        first) below ``parent``'s ``branch`` (-1: as the root); returns the provisional id
        of its root. Its arrays are copied into the tree in one piece by ``to_tree``."""
        self.nodes.append({"subtree": tree, "children": []})
        node = len(self.nodes) - 1
        if parent >= 0:
            self.nodes[parent]["children"][branch] = node
        return node

    def to_tree(self) -> Tree:
        """Renumber the nodes reachable from node 0 in pre-order and build the arrays."""
        order, stack = [], [0]
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(reversed(self.nodes[node]["children"]))
        records = [self.nodes[old] for old in order]
        sizes = [r["subtree"].n_nodes if "subtree" in r else 1 for r in records]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        new_id = {old: int(starts[i]) for i, old in enumerate(order)}
        parts, run = [], []
        for i, record in enumerate(records):
            if "subtree" not in record:
                run.append(record)
                continue
            if run:
                parts.append(self._records_tree(run, new_id))
                run = []
            parts.append(_shifted(record["subtree"], int(starts[i])))
        if run:
            parts.append(self._records_tree(run, new_id))
        return parts[0] if len(parts) == 1 else _concatenated(parts)

    def _records_tree(self, records: list, new_id: dict) -> Tree:
        """The arrays of consecutive recorded nodes (child ids already the final ones)."""
        n = len(records)
        child_counts = [len(r["children"]) for r in records]
        cat_counts = [0 if r["category_map"] is None else len(r["category_map"]) for r in records]
        child_ids = [new_id[c] for r in records for c in r["children"]]
        cats = [b for r in records if r["category_map"] is not None for b in r["category_map"]]
        value = np.zeros((n, self.n_classes))
        for i, r in enumerate(records):
            value[i] = r["value"]
        return Tree(
            kind=np.array([r["kind"] for r in records], dtype=np.int8),
            feature=np.array([r["feature"] for r in records], dtype=np.int32),
            threshold=np.array([r["threshold"] for r in records], dtype=np.float64),
            child_ptr=np.concatenate([[0], np.cumsum(child_counts)]).astype(np.int64),
            child_ids=np.array(child_ids, dtype=np.int32),
            missing_branch=np.array([r["missing_branch"] for r in records], dtype=np.int32),
            category_ptr=np.concatenate([[0], np.cumsum(cat_counts)]).astype(np.int64),
            category_branch=np.array(cats, dtype=np.int32),
            value=value,
            impurity=np.array([r["impurity"] for r in records], dtype=np.float64),
            n_node_samples=np.array([r["n"] for r in records], dtype=np.int64),
            weighted_n_node_samples=np.array([r["w"] for r in records], dtype=np.float64),
            empty=np.array([r["empty"] for r in records], dtype=np.bool_),
            interval_high=np.array([r["interval_high"] for r in records], dtype=np.float64),
            interval_class=np.array([r["interval_class"] for r in records], dtype=np.int32),
        )


#: The fields ``TreeRecorder`` fills, per node (the pointers and child ids apart).
_NODE_FIELDS = ("kind", "feature", "threshold", "missing_branch", "value", "impurity",
                "n_node_samples", "weighted_n_node_samples", "empty", "interval_high",
                "interval_class")


def _shifted(tree: Tree, offset: int) -> Tree:
    """``tree`` with its child ids moved by ``offset`` (its place in a larger tree)."""
    if offset == 0:
        return tree
    return replace(tree, child_ids=(tree.child_ids + offset).astype(np.int32))


def _concatenated(parts: list) -> Tree:
    """One tree of consecutive blocks of nodes (child ids already the final ones)."""
    fields = {name: np.concatenate([getattr(t, name) for t in parts]) for name in _NODE_FIELDS}
    child_counts = np.concatenate([np.diff(t.child_ptr) for t in parts])
    category_counts = np.concatenate([np.diff(t.category_ptr) for t in parts])
    return Tree(child_ptr=np.concatenate([[0], np.cumsum(child_counts)]).astype(np.int64),
                child_ids=np.concatenate([t.child_ids for t in parts]).astype(np.int32),
                category_ptr=np.concatenate([[0], np.cumsum(category_counts)]).astype(np.int64),
                category_branch=np.concatenate([t.category_branch for t in parts]).astype(
                    np.int32),
                **fields)


def collapse(tree: Tree, to_leaves) -> Tree:
    """A copy of ``tree`` where the nodes in ``to_leaves`` become leaves (subtrees dropped)."""
    to_leaves = {int(i) for i in to_leaves}
    recorder = TreeRecorder(tree.n_classes)
    stack = [(0, -1, 0)]
    kept = []  # old ids in pre-order: the new tree's order
    while stack:
        old, parent, branch = stack.pop()
        kept.append(old)
        new = recorder.add(value=tree.value[old], impurity=tree.impurity[old],
                           n_samples=tree.n_node_samples[old],
                           weight=tree.weighted_n_node_samples[old], empty=tree.empty[old])
        if parent >= 0:
            recorder.nodes[parent]["children"][branch] = new
        children = tree.children(old)
        if tree.kind[old] == LEAF or old in to_leaves:
            continue
        cmap = tree.category_map(old) if tree.kind[old] == CATEGORICAL else None
        recorder.make_split(new, kind=int(tree.kind[old]), feature=int(tree.feature[old]),
                            children=[-1] * len(children),
                            missing_branch=int(tree.missing_branch[old]),
                            threshold=float(tree.threshold[old]), category_map=cmap,
                            interval_high=float(tree.interval_high[old]),
                            interval_class=int(tree.interval_class[old]))
        for b in reversed(range(len(children))):
            stack.append((int(children[b]), new, b))
    out = recorder.to_tree()
    kept = np.asarray(kept, dtype=np.int64)
    if tree.node_class is not None:
        out.node_class = tree.node_class[kept]
    if tree.n_missing is not None:
        out.n_missing = np.where(out.kind == LEAF, 0, tree.n_missing[kept])
    if tree.rpart is not None:
        positions = [np.arange(tree.category_ptr[old], tree.category_ptr[old + 1])
                     for new, old in enumerate(kept.tolist()) if out.kind[new] == CATEGORICAL]
        category_kept = np.concatenate([np.zeros(0, np.int64), *positions])
        out.rpart = tree.rpart.take(kept, out.kind == LEAF, category_kept)
    return out
