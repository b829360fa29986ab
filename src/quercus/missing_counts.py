"""How many training rows reached each node with its split feature missing.

A CART-style node sends a row whose tested value is missing down one branch
(``Tree.missing_branch``); the text tree and the rules show ``or missing`` on that branch
where training rows went that way, so that a leaf's support is the number of training rows
its rule matches. The builders do not record it; it is counted once after a fit, by running
the training rows (or their bins) through the finished tree.
"""

from __future__ import annotations

import numpy as np

from .tree import CATEGORICAL, NUMERIC, Tree

__all__ = ["binned_missing_counts", "missing_counts", "representative_rows"]

CHUNK_ROWS = 65_536  # rows per block: the paths of a block take rows x (depth + 1) ints


def _counted(tree: Tree) -> np.ndarray | None:
    """The features whose missing values the tree routes by ``missing_branch``, or None
    when the tree routes them otherwise (rpart's surrogates, C4.5's fractions) or tests
    nothing."""
    if tree.rpart is not None or tree.has_weighted_missing:
        return None
    inner = (tree.kind == NUMERIC) | (tree.kind == CATEGORICAL)
    return np.unique(tree.feature[inner]) if inner.any() else None


def _block_counts(tree: Tree, X: np.ndarray) -> np.ndarray:
    nodes, ptr = tree.decision_paths(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(ptr))
    inner = (tree.kind[nodes] == NUMERIC) | (tree.kind[nodes] == CATEGORICAL)
    nodes, rows = nodes[inner], rows[inner]
    missing = np.isnan(X[rows, tree.feature[nodes]])
    return np.bincount(nodes[missing], minlength=tree.n_nodes).astype(np.int64)


def missing_counts(tree: Tree, X: np.ndarray, keep: np.ndarray | None = None,
                   blocks=None) -> np.ndarray | None:
    """Per node, the rows of the encoded matrix ``X`` (those of ``keep``: the rows the fit
    trained on) that reached it with its split feature missing; None when there are none.
    ``blocks``, instead of X: an iterable of encoded row blocks."""
    tested = _counted(tree)
    if tested is None:
        return None
    if blocks is None:
        blocks = (X[start:start + CHUNK_ROWS] if keep is None
                  else X[start:start + CHUNK_ROWS][keep[start:start + CHUNK_ROWS]]
                  for start in range(0, X.shape[0], CHUNK_ROWS))
    counts = np.zeros(tree.n_nodes, dtype=np.int64)
    for block in blocks:
        if block.shape[0] and np.isnan(block[:, tested]).any():
            counts += _block_counts(tree, block)
    return counts if counts.any() else None


def representative_rows(binner, binned: np.ndarray, categorical_mask) -> np.ndarray:
    """Float rows that every split grown on these bins routes as the binned rows: a bin's
    own value (one bin per value) or upper edge (+inf for the last), a category's code,
    NaN for the missing bin. ``binned``: (n_features, n_rows), ``binner.transform``'s."""
    n_features, n_rows = binned.shape
    out = np.empty((n_rows, n_features))
    for f in range(n_features):
        table = np.full(binner.missing_bin_ + 1, np.nan)
        values = binner.bin_values_.get(f)
        if categorical_mask[f]:
            table[:binner.n_bins_[f]] = np.arange(binner.n_bins_[f])
        elif values is not None:
            table[:values.size] = values
        else:
            edges = binner.edges_[f]
            table[:edges.size] = edges
            table[edges.size] = np.inf
        out[:, f] = table[binned[f]]
    return out


def binned_missing_counts(tree: Tree, binner, binned: np.ndarray,
                          categorical_mask) -> np.ndarray | None:
    """``missing_counts`` of rows given as bins (the histogram fits of a streamed file and
    of a Dask cluster); ``binned``: (n_features, n_rows)."""
    if _counted(tree) is None:
        return None
    missing = binned == binner.missing_bin_
    if not missing.any():
        return None
    blocks = (representative_rows(binner, binned[:, start:start + CHUNK_ROWS],
                                  categorical_mask)
              for start in range(0, binned.shape[1], CHUNK_ROWS))
    return missing_counts(tree, None, blocks=blocks)
