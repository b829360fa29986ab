"""rpart's routing of a row through the flat tree: surrogate splits, ``use_surrogates`` and
the node facts rpart's printouts need (docs/architecture.md, "rpart trees").

An rpart tree is an ordinary flat tree (``quercus.tree.Tree``) whose ``rpart`` field holds a
``RpartRouting``. Every primary numeric split is stored as
``threshold = nextafter(cut, -inf)``, so the tree's "x <= threshold -> branch 0" sends
exactly the rows with ``x < cut`` to branch 0, as rpart does (a value equal to the cut goes
to the ">=" side). Branch 0 is therefore the "x < cut" side; ``left_branch`` says which
branch is rpart's LEFT child (node 2k), so rpart's node numbers can be recovered
(``rpart_node_numbers``). Other learners' trees have ``rpart = None`` and their files and
kernels are untouched.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ._kernels._predict import CATEGORICAL, LEAF

__all__ = [
    "RpartRouting",
    "SurrogatesDropped",
    "cut_of",
    "rpart_branch",
    "rpart_node_numbers",
    "threshold_of",
    "warn_surrogates_dropped",
]

_NODE_ARRAYS = {"left_branch": np.int8, "node_risk": np.float64}
_SURROGATE_ARRAYS = {"surrogate_ptr": np.int64, "surrogate_feature": np.int32,
                     "surrogate_cut": np.float64, "surrogate_below": np.int8,
                     "surrogate_category_ptr": np.int64,
                     "surrogate_category_branch": np.int8}


def threshold_of(cut: float) -> float:
    """The flat tree's threshold for rpart's cut: the largest float below it."""
    return float(np.nextafter(float(cut), -np.inf))


def cut_of(threshold: float) -> float:
    """rpart's cut back from a stored threshold (exact inverse of ``threshold_of``)."""
    return float(np.nextafter(float(threshold), np.inf))


@dataclass
class RpartRouting:
    """The arrays an rpart tree adds to the flat layout.

    Per node: ``left_branch`` (int8, the branch index of rpart's left child; 0 at leaves),
    ``node_risk`` (rpart's ``dev``). Per entry of the tree's ``category_branch``:
    ``category_absent`` (the level had no rows at the node: it counts as missing). Per split
    node, its surrogates in rpart's order, CSR-style: ``surrogate_ptr`` (n_nodes + 1),
    ``surrogate_feature``, ``surrogate_cut`` (numeric cut, NaN for a categorical surrogate),
    ``surrogate_below`` (the branch a value below the cut takes, -1 for a categorical
    surrogate); a categorical surrogate's side map is
    ``surrogate_category_branch[surrogate_category_ptr[s]:surrogate_category_ptr[s + 1]]``
    (one entry per level: the branch, or -1 for a level absent at the node).
    ``use_surrogates`` is rpart's usesurrogate (0, 1 or 2) used when rows are routed.
    """

    left_branch: np.ndarray
    node_risk: np.ndarray
    category_absent: np.ndarray
    surrogate_ptr: np.ndarray
    surrogate_feature: np.ndarray
    surrogate_cut: np.ndarray
    surrogate_below: np.ndarray
    surrogate_category_ptr: np.ndarray
    surrogate_category_branch: np.ndarray
    use_surrogates: int = 2

    def __post_init__(self):
        for name, dtype in {**_NODE_ARRAYS, **_SURROGATE_ARRAYS}.items():
            setattr(self, name, np.ascontiguousarray(getattr(self, name), dtype=dtype))
        self.category_absent = np.ascontiguousarray(self.category_absent, dtype=np.bool_)

    @property
    def n_surrogates(self) -> int:
        return int(self.surrogate_feature.shape[0])

    def kernel_args(self) -> tuple:
        """The arrays the surrogate kernels take, in their order."""
        return (self.category_absent, self.surrogate_ptr, self.surrogate_feature,
                self.surrogate_cut, self.surrogate_below, self.surrogate_category_ptr,
                self.surrogate_category_branch, int(self.use_surrogates))

    def surrogates_of(self, node: int) -> range:
        """Indices of the node's surrogates, in rpart's order."""
        return range(int(self.surrogate_ptr[node]), int(self.surrogate_ptr[node + 1]))

    def category_sides(self, s: int) -> np.ndarray:
        """A categorical surrogate's branch per level (-1: absent at the node)."""
        lo, hi = self.surrogate_category_ptr[s], self.surrogate_category_ptr[s + 1]
        return self.surrogate_category_branch[lo:hi]

    def with_use_surrogates(self, use_surrogates: int) -> RpartRouting:
        """A copy routing with another usesurrogate setting (0, 1 or 2)."""
        _check_use(use_surrogates)
        return RpartRouting(**{**self.__dict__, "use_surrogates": int(use_surrogates)})

    def take(self, kept: np.ndarray, leaves: np.ndarray, category_kept: np.ndarray
             ) -> RpartRouting:
        """The arrays of a pruned copy: ``kept`` old node ids in the new order, ``leaves``
        (bool per new node) the nodes that are now leaves (their surrogates dropped),
        ``category_kept`` the old ``category_branch`` positions the new tree keeps."""
        ptr, feature, cut, below, cptr, cbranch = [0], [], [], [], [0], []
        for new, old in enumerate(kept.tolist()):
            if not leaves[new]:
                for s in self.surrogates_of(old):
                    feature.append(self.surrogate_feature[s])
                    cut.append(self.surrogate_cut[s])
                    below.append(self.surrogate_below[s])
                    sides = self.category_sides(s)
                    cbranch.extend(sides.tolist())
                    cptr.append(cptr[-1] + len(sides))
            ptr.append(len(feature))
        left = np.where(leaves, 0, self.left_branch[kept])
        return RpartRouting(left, self.node_risk[kept], self.category_absent[category_kept],
                            np.array(ptr), np.array(feature), np.array(cut), np.array(below),
                            np.array(cptr), np.array(cbranch), self.use_surrogates)

    def to_dict(self) -> dict:
        """Plain lists for the model file's ``tree.rpart`` entry."""
        out = {"use_surrogates": int(self.use_surrogates)}
        for name in (*_NODE_ARRAYS, "category_absent", *_SURROGATE_ARRAYS):
            array = getattr(self, name)
            if array.dtype.kind == "f":
                out[name] = [None if np.isnan(v) else float(v) for v in array]
            else:
                out[name] = array.tolist()
        return out

    @classmethod
    def from_dict(cls, data: dict) -> RpartRouting:
        """Inverse of ``to_dict``; TypeError or ValueError naming the entry if malformed."""
        if not isinstance(data, dict):
            raise TypeError("the tree's 'rpart' entry is not an object")
        arrays = {}
        for name in (*_NODE_ARRAYS, "category_absent", *_SURROGATE_ARRAYS):
            values = data.get(name)
            if not isinstance(values, list):
                raise TypeError(f"the tree's rpart entry has no {name!r} list")
            if name in ("surrogate_cut", "node_risk"):
                if not all(v is None or type(v) in (int, float) for v in values):
                    raise TypeError(f"the rpart {name!r} array must hold numbers")
                values = [np.nan if v is None else v for v in values]
            elif name == "category_absent":
                if not all(isinstance(v, bool) for v in values):
                    raise TypeError("the rpart 'category_absent' array must hold true/false")
            elif not all(type(v) is int for v in values):
                raise TypeError(f"the rpart {name!r} array must hold only integers")
            arrays[name] = values
        use = data.get("use_surrogates")
        if type(use) is not int:
            raise TypeError(f"the rpart 'use_surrogates' must be 0, 1 or 2, not {use!r}")
        _check_use(use)
        try:
            return cls(**arrays, use_surrogates=use)
        except OverflowError as error:
            raise ValueError(f"an rpart array holds a value out of range: {error}") from None

    def validate(self, tree, n_categories: np.ndarray | None = None) -> None:
        """Raise ValueError, naming the array and node, unless the arrays fit ``tree``
        (and, given the schema's category counts, the features' codebooks)."""
        n = tree.n_nodes
        for name in _NODE_ARRAYS:
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"rpart '{name}' has {getattr(self, name).shape[0]} entries, "
                                 f"'kind' {n}")
        if self.category_absent.shape[0] != tree.category_branch.shape[0]:
            raise ValueError("rpart 'category_absent' must have one entry per "
                             "'category_branch' entry")
        split = tree.kind != LEAF
        if np.any(split & (np.diff(tree.child_ptr) != 2)):
            raise ValueError("an rpart tree has binary splits only")
        bad = np.flatnonzero((self.left_branch < 0) | (self.left_branch > 1)
                             | (~split & (self.left_branch != 0)))
        if bad.size:
            raise ValueError(f"rpart 'left_branch' of node {int(bad[0])} is "
                             f"{int(self.left_branch[bad[0]])}: 0 or 1 (0 at leaves)")
        bad = np.flatnonzero(~np.isfinite(self.node_risk) | (self.node_risk < 0))
        if bad.size:
            raise ValueError(f"rpart 'node_risk' of node {int(bad[0])} is not a finite "
                             "non-negative number")
        ptr, m = self.surrogate_ptr, self.n_surrogates
        if ptr.shape[0] != n + 1 or ptr[0] != 0 or np.any(np.diff(ptr) < 0) or ptr[-1] != m:
            raise ValueError(f"rpart 'surrogate_ptr' must ascend from 0 to {m} over "
                             f"{n + 1} entries")
        if np.any(~split & (np.diff(ptr) != 0)):
            node = int(np.flatnonzero(~split & (np.diff(ptr) != 0))[0])
            raise ValueError(f"rpart 'surrogate_ptr' of node {node}: a leaf has no surrogates")
        for name in ("surrogate_cut", "surrogate_below"):
            if getattr(self, name).shape[0] != m:
                raise ValueError(f"rpart '{name}' has {getattr(self, name).shape[0]} entries, "
                                 f"'surrogate_feature' {m}")
        cptr = self.surrogate_category_ptr
        if (cptr.shape[0] != m + 1 or cptr[0] != 0 or np.any(np.diff(cptr) < 0)
                or cptr[-1] != self.surrogate_category_branch.shape[0]):
            raise ValueError("rpart 'surrogate_category_ptr' must ascend from 0 to the length "
                             f"of 'surrogate_category_branch' over {m + 1} entries")
        if np.any((self.surrogate_category_branch < -1) | (self.surrogate_category_branch > 1)):
            raise ValueError("rpart 'surrogate_category_branch' entries are 0, 1 or -1")
        owner = np.repeat(np.arange(n), np.diff(ptr))
        for s in range(m):
            node, f = int(owner[s]), int(self.surrogate_feature[s])
            categorical = self.surrogate_below[s] == -1
            if not (categorical or self.surrogate_below[s] in (0, 1)) \
                    or categorical == np.isfinite(self.surrogate_cut[s]):
                raise ValueError(f"rpart surrogate {s} of node {node}: a numeric surrogate "
                                 "has a cut and a branch below it (0 or 1), a categorical one "
                                 "neither")
            if categorical != (cptr[s + 1] > cptr[s]):
                raise ValueError(f"rpart surrogate {s} of node {node}: only a categorical "
                                 "surrogate has a side map")
            if n_categories is not None:
                if not 0 <= f < len(n_categories):
                    raise ValueError(f"rpart 'surrogate_feature' {f} of node {node}: the "
                                     f"model has {len(n_categories)} features")
                if categorical and cptr[s + 1] - cptr[s] != n_categories[f]:
                    raise ValueError(f"rpart surrogate {s} of node {node}: its side map has "
                                     f"{cptr[s + 1] - cptr[s]} entries, feature {f} "
                                     f"{n_categories[f]} categories")
                if not categorical and n_categories[f] != 0:
                    raise ValueError(f"rpart surrogate {s} of node {node}: a numeric cut on "
                                     f"the categorical feature {f}")


def _check_use(use_surrogates) -> None:
    if use_surrogates not in (0, 1, 2) or isinstance(use_surrogates, bool):
        raise ValueError(f"use_surrogates must be 0, 1 or 2, not {use_surrogates!r}")


def rpart_node_numbers(tree) -> np.ndarray:
    """rpart's node number (root 1, children 2k and 2k + 1) of every flat node."""
    numbers = np.zeros(tree.n_nodes, dtype=np.int64)
    numbers[0] = 1
    left = tree.rpart.left_branch if tree.rpart is not None else np.zeros(tree.n_nodes, np.int8)
    for node in range(tree.n_nodes):  # pre-order: a parent comes before its children
        for branch, child in enumerate(tree.children(node).tolist()):
            numbers[child] = 2 * numbers[node] + (0 if branch == left[node] else 1)
    return numbers


class SurrogatesDropped(UserWarning):
    """An export that cannot express rpart's surrogate splits (ONNX, compiled code)."""


def warn_surrogates_dropped(model, what: str) -> None:
    """Warn, in one line, that ``what`` routes a missing value to the heavier child instead
    of through the surrogates (no-op for trees without them)."""
    tree = getattr(model, "tree_", None)
    if tree is not None and getattr(tree, "rpart", None) is not None:
        warnings.warn(f"{what} cannot express rpart's surrogate splits: a row missing a "
                      "split's value (or holding a level absent there) goes to the child with "
                      "more training rows (docs/rpart.md)", SurrogatesDropped, stacklevel=3)


def rpart_branch(tree, x, node: int) -> int | None:
    """The branch a row (encoded values ``x``) takes at an rpart split node, or None when it
    stops there: the Python twin of ``_kernels._predict.next_node``, for the
    explanations."""
    routing = tree.rpart
    v = float(x[tree.feature[node]])
    if not math.isnan(v):  # present
        if tree.kind[node] != CATEGORICAL:
            return 0 if v <= tree.threshold[node] else 1
        pos = int(tree.category_ptr[node]) + int(v)
        if 0 <= int(v) and pos < tree.category_ptr[node + 1] \
                and not routing.category_absent[pos]:
            return int(tree.category_branch[pos])
    if routing.use_surrogates >= 1:
        for s in routing.surrogates_of(node):
            u = float(x[routing.surrogate_feature[s]])
            if math.isnan(u):
                continue
            below = int(routing.surrogate_below[s])
            if below >= 0:
                return below if u < routing.surrogate_cut[s] else 1 - below
            sides = routing.category_sides(s)
            if 0 <= int(u) < sides.shape[0] and sides[int(u)] >= 0:
                return int(sides[int(u)])
    if routing.use_surrogates == 2:
        n = tree.n_node_samples[tree.children(node)]
        if n[0] != n[1]:
            return 0 if n[0] > n[1] else 1
    return None
