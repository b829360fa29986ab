"""Binning kernels against numpy: rows to bins (the grid with fixed steps, the binary
search, both memory layouts), the sample's columns and their sorted distinct values, and
the bin edges against the plain numpy recipe they replace."""

import numpy as np
import pytest

from quercus._kernels import _splits as compiled
from quercus.binning import GRID_CELLS, MAX_STEPS, BinMapper, bin_layout


def _columns(rng, n):
    """Columns that stress the grid: skewed, heavy-tailed, offset by far more than their
    spread, few values, one value, signed zeros, values on the edges themselves."""
    normal = rng.normal(size=n)
    return {
        "normal": normal,
        "rounded": np.round(normal, 1),  # -0.0 and 0.0, few values
        "lognormal": rng.lognormal(sigma=2.0, size=n),
        "pareto": rng.pareto(0.2, size=n),  # edges crowded near 0: a binary search
        "offset": 1e6 + rng.normal(size=n) * 1e-9,  # cells finer than the floats' spacing
        "cauchy": rng.standard_cauchy(n),
        "integers": rng.integers(-3, 4, n).astype(float),
        "two": rng.integers(0, 2, n) * 7.5,
        "constant": np.full(n, 2.5),
        "tiny": rng.normal(size=n) * 1e-300,
        "huge": rng.normal(size=n) * 1e300,
    }


def _expected_bins(edges, values, missing_bin):
    found = np.searchsorted(edges, values, side="left")
    return np.where(np.isnan(values), missing_bin, found)


@pytest.mark.parametrize("max_bins", [255, 16, 3])
def test_bins_are_the_edges_below_each_value_in_both_layouts(max_bins):
    rng = np.random.default_rng(11)
    columns = _columns(rng, 20_000)
    X = np.column_stack(list(columns.values()))
    X[rng.random(X.shape) < 0.03] = np.nan
    mapper = BinMapper(max_bins=max_bins, sample_rows=5_000).fit(
        X, np.zeros(X.shape[1], bool), np.zeros(X.shape[1], int))
    # values on the edges and the grid's points, and the floats either side of them
    layout = bin_layout(mapper.edges_)
    _, _, _, low, scale, _, _ = layout
    probes = []
    for f, edges in enumerate(mapper.edges_):
        points = low[f] + np.arange(GRID_CELLS) / scale[f] if scale[f] else low[f:f + 1]
        extra = np.concatenate([edges, points])
        extra = np.concatenate([extra, np.nextafter(extra, np.inf),
                                np.nextafter(extra, -np.inf)])
        probes.append(rng.permutation(np.resize(extra, 3 * (GRID_CELLS + 256))))
    X = np.vstack([X, np.column_stack(probes)])
    steps = dict(zip(columns, layout[6]))
    assert 0 < steps["normal"] <= MAX_STEPS  # the grid ...
    assert steps["offset"] == 0 and steps["tiny"] > 0  # ... and the binary search
    if max_bins == 255:
        assert steps["pareto"] == 0
    with np.errstate(over="ignore"):  # the huge values are infinite in float32
        narrow = X.astype(np.float32)
    for data in (X, np.asfortranarray(X), narrow, np.asfortranarray(narrow)):
        binned = mapper.transform(data)
        for f, name in enumerate(columns):
            expected = _expected_bins(mapper.edges_[f], data[:, f], mapper.missing_bin_)
            np.testing.assert_array_equal(binned[f], expected, err_msg=name)


def test_both_layouts_bin_as_searchsorted():
    """Both kernels (row-major, column-major) and their numpy twins give searchsorted's
    bins; categorical codes are their bins."""
    rng = np.random.default_rng(3)
    edges = [np.sort(rng.normal(size=k)) for k in (0, 1, 2, 9, 200)]
    edges = [np.unique(e) for e in edges] + [np.zeros(0)]
    categorical = np.array([False] * 5 + [True])
    layout = bin_layout(edges)
    X = rng.normal(size=(5_000, 6)) * 2
    X[:, 5] = rng.integers(0, 4, 5_000)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:50, :5] = np.inf  # past every edge, even on a grid of no width (one edge)
    X[50:100, :5] = -np.inf
    expected = np.vstack([_expected_bins(e, X[:, f], 255) for f, e in enumerate(edges[:5])]
                         + [np.where(np.isnan(X[:, 5]), 255, np.nan_to_num(X[:, 5]))])
    for kernel, data in ((compiled.bin_columns, X), (compiled.bin_columns_t, X.T.copy())):
        out = np.zeros((6, 5_000), dtype=np.uint8)
        kernel(data, *layout, categorical, 255, out)
        np.testing.assert_array_equal(out, expected)


def test_sorted_distinct_is_numpys_unique():
    rng = np.random.default_rng(5)
    for trial in range(60):
        n = int(rng.integers(0, 400))
        columns = np.round(rng.normal(size=(4, n)) * 3, int(rng.integers(0, 3)))
        for special, share in ((np.nan, 0.1), (np.inf, 0.03), (-np.inf, 0.03),
                               (5e-324, 0.03), (-5e-324, 0.03), (1e308, 0.02)):
            columns[rng.random(columns.shape) < share] = special
        columns[1] = np.abs(columns[1])  # no -0.0 (np.abs gives +0.0)
        columns[2, :] = np.nan
        columns[3] = np.where(columns[3] == 0, 0.0, columns[3])
        if trial % 2 and n:
            columns[3, 0] = -0.0
        out = np.full_like(columns, 99.0)
        counts = np.zeros(4, dtype=np.int64)
        compiled.sorted_distinct(columns, out, counts)
        for f in range(4):
            column = columns[f]
            if np.any((column == 0) & np.signbit(column)):
                assert counts[f] == -1  # numpy's sort decides which zero: asked apart
                continue
            expected = np.unique(column[~np.isnan(column)])
            assert counts[f] == expected.size
            assert out[f, :counts[f]].tobytes() == expected.tobytes()


def test_sample_columns_are_the_rows_columns():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3_000, 7))
    rows = np.sort(rng.choice(3_000, 700, replace=False))
    features = np.array([6, 0, 3])
    out = np.empty((3, 700))
    compiled.sample_columns(X, rows, features, out)
    np.testing.assert_array_equal(out, X[np.ix_(rows, features)].T)


def _numpy_edges(X, sample_rows, max_bins, seed=0, complete=True):
    """The recipe the edges follow, written plainly: a sorted sample of rows, each
    column's distinct values, midpoints when they fit, else quantiles of them."""
    n = X.shape[0]
    rows = np.arange(n)
    if n > sample_rows:
        rows = np.sort(np.random.default_rng(seed).choice(n, sample_rows, replace=False))
    edges, values_kept = [], {}
    for f in range(X.shape[1]):
        column = X[rows, f]
        values = np.unique(column[~np.isnan(column)])
        if values.size <= max_bins and rows.size == n and complete:
            edges.append(values[:-1] / 2.0 + values[1:] / 2.0)
            values_kept[f] = values
        else:
            quantiles = np.linspace(0, 100, max_bins + 1)[1:-1]
            edges.append(np.unique(np.percentile(values, quantiles, method="midpoint")))
    return edges, values_kept


@pytest.mark.parametrize("sample_rows", [200_000, 3_000])
def test_edges_follow_the_numpy_recipe_in_every_layout(sample_rows):
    rng = np.random.default_rng(9)
    X = np.column_stack(list(_columns(rng, 8_000).values()))
    X[rng.random(X.shape) < 0.02] = np.nan
    flags = np.zeros(X.shape[1], bool)
    narrow = X.copy()
    narrow[:, list(_columns(rng, 1)).index("huge")] /= 1e270  # finite in float32
    narrow = narrow.astype(np.float32)
    for data in (X, np.asfortranarray(X), narrow, np.asfortranarray(narrow)):
        expected, kept = _numpy_edges(data, sample_rows, 64)
        mapper = BinMapper(max_bins=64, sample_rows=sample_rows).fit(data, flags,
                                                                     np.zeros_like(flags))
        for f in range(X.shape[1]):
            assert mapper.edges_[f].tobytes() == expected[f].astype(np.float64).tobytes()
        assert mapper.bin_values_.keys() == kept.keys()
        for f, values in kept.items():
            assert mapper.bin_values_[f].tobytes() == values.tobytes()
