"""Integer class counts per (node slot, feature, bin), and the step that moves rows from
their node slot at one level to the slot of the child they fall in (``quercus.dask``)."""

from __future__ import annotations

from ._jit import njit


@njit(cache=True)
def add_class_counts(binned, y, hist_index, out):
    """out[h, f, b, k] += 1 for every row r with h = hist_index[r] >= 0, b = binned[f, r]
    and k = y[r]. ``binned`` is (n_features, n_rows); out is (n_hists, n_features, bins,
    classes), int32 or int64."""
    n_features, n_rows = binned.shape
    for f in range(n_features):
        row = binned[f]
        for r in range(n_rows):
            h = hist_index[r]
            if h >= 0:
                out[h, f, row[r], y[r]] += 1


@njit(cache=True)
def advance_slots(slots, binned, feature, left_bins, left_slot, right_slot):
    """Move each row from its slot to its child's slot at the next level, in place.

    A slot whose ``feature`` is -1 became a leaf: its rows get slot -1 (settled).
    ``left_bins[s, b]`` is True when bin b of slot s's feature goes left."""
    for r in range(slots.shape[0]):
        s = slots[r]
        if s < 0:
            continue
        f = feature[s]
        if f < 0:
            slots[r] = -1
        elif left_bins[s, binned[f, r]]:
            slots[r] = left_slot[s]
        else:
            slots[r] = right_slot[s]


@njit(cache=True)
def descend(nodes, binned, feature, left_bins, left_id, right_id):
    """Move each row down from its node through every split of the table, in place:
    ``feature[s]`` is -1 for a node that has not split (yet)."""
    for r in range(nodes.shape[0]):
        s = nodes[r]
        while feature[s] >= 0:
            s = left_id[s] if left_bins[s, binned[feature[s], r]] else right_id[s]
        nodes[r] = s
