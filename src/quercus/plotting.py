"""Decision surfaces: a tree's predicted class (a regression tree's predicted value) over a
grid of two numeric features.

``surface_grid`` needs only numpy and pandas; drawing (``plot_decision_surface``,
``save_decision_surface``) needs matplotlib, the optional extra ``quercus[plot]``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .data.frames import to_python
from .errors import DataError, QuercusError
from .export.conditions import is_regressor
from .export.palette import UNCLASSIFIED_COLOUR, class_colour, tint

__all__ = [
    "PLOT_FORMATS",
    "SurfaceGrid",
    "plot_decision_surface",
    "save_decision_surface",
    "surface_grid",
]

PLOT_FORMATS = ("png", "svg", "pdf")
_MISSING = object()


@dataclass
class SurfaceGrid:
    """A grid over two features and the class (or value) the model predicts at every point.

    Attributes
    ----------
    features : tuple of str
        The horizontal and vertical features.
    xs, ys : ndarray
        Grid coordinates along each axis.
    rows : DataFrame
        The ``len(ys) * len(xs)`` rows predicted, in the model's feature order; row
        ``i * len(xs) + j`` is the point ``(xs[j], ys[i])``.
    held : dict
        The value given to every other feature (None for missing).
    classes : ndarray of int, shape (len(ys), len(xs)), or None
        Index into ``model.classes_`` of the prediction, or -1 where a class-interval tree
        leaves the point unclassified; None for a regression tree.
    values : ndarray of float, shape (len(ys), len(xs)), or None
        A regression tree's prediction (its leaf's mean target); None for a classifier.
    """

    features: tuple[str, str]
    xs: np.ndarray
    ys: np.ndarray
    rows: pd.DataFrame
    held: dict
    classes: np.ndarray | None
    values: np.ndarray | None = None


def _feature_index(schema, feature) -> int:
    names = schema.feature_names
    if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
        if not 0 <= feature < len(names):
            raise DataError(f"feature index {feature} out of range (0..{len(names) - 1})")
        index = int(feature)
    elif feature in names:
        index = names.index(feature)
    else:
        raise DataError(f"unknown feature {feature!r}; the model's features are: "
                        f"{', '.join(map(str, names))}")
    if schema.features[index].is_categorical:
        raise DataError(f"feature {names[index]!r} is categorical; a decision surface needs "
                        "two numeric features")
    return index


def _held_value(spec, column: np.ndarray):
    """Median of a numeric column, most frequent category of a categorical one (ties: the
    first category); None when the column is entirely missing."""
    known = column[~np.isnan(column)]
    if known.size == 0:
        return None
    if not spec.is_categorical:
        return float(np.median(known))
    counts = np.bincount(known.astype(np.int64), minlength=len(spec.codebook.values))
    return spec.codebook.values[int(np.argmax(counts))]


def _axis(column: np.ndarray, name: str, resolution: int, margin: float) -> np.ndarray:
    known = column[np.isfinite(column)]
    if known.size == 0:
        raise DataError(f"feature {name!r} has no known values to span the plot")
    low, high = float(known.min()), float(known.max())
    pad = margin * (high - low) if high > low else 0.5
    return np.linspace(low - pad, high + pad, resolution)


def surface_grid(model, X, features, resolution: int = 200, margin: float = 0.05
                 ) -> SurfaceGrid:
    """Predict the class (a regression tree: the value) over a grid spanning two numeric
    features of ``X``.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model.
    X : DataFrame, ndarray or list of rows
        Rows with the model's features (e.g. the training data); they set the grid's range
        (their span plus ``margin`` on each side) and the values of the other features.
    features : pair of str or int
        The horizontal and vertical features, by name or index.
    resolution : int
        Grid points along each axis.
    margin : float
        Share of each feature's span added on both sides.

    Returns
    -------
    SurfaceGrid
        Every other feature is held at its median in ``X`` (numeric) or its most frequent
        category (categorical); the picture is a slice through the model, exact for a model
        trained on the two features alone.
    """
    model._check_fitted()
    schema = model.schema_
    if len(features) != 2:
        raise DataError(f"a decision surface needs exactly two features; got {len(features)}")
    fx, fy = (_feature_index(schema, f) for f in features)
    if fx == fy:
        raise DataError("the two features of a decision surface must differ")
    if not isinstance(resolution, (int, np.integer)) or resolution < 2:
        raise ValueError(f"resolution must be an int >= 2; got {resolution!r}")
    encoded = schema.encode(X)
    xs = _axis(encoded[:, fx], schema.features[fx].name, resolution, margin)
    ys = _axis(encoded[:, fy], schema.features[fy].name, resolution, margin)
    gx, gy = np.meshgrid(xs, ys)
    columns, held = {}, {}
    for j, spec in enumerate(schema.features):
        if j == fx:
            columns[spec.name] = gx.ravel()
        elif j == fy:
            columns[spec.name] = gy.ravel()
        else:
            held[spec.name] = _held_value(spec, encoded[:, j])
            fill = np.nan if held[spec.name] is None and not spec.is_categorical \
                else held[spec.name]
            columns[spec.name] = np.full(gx.size, fill, dtype=object if spec.is_categorical
                                         else np.float64)
    rows = pd.DataFrame(columns)
    names = (schema.features[fx].name, schema.features[fy].name)
    if is_regressor(model):
        values = np.asarray(model.predict(rows), dtype=np.float64).reshape(gx.shape)
        return SurfaceGrid(names, xs, ys, rows, held, None, values)
    classes = _class_indices(model, rows).reshape(gx.shape)
    return SurfaceGrid(names, xs, ys, rows, held, classes)


def _class_indices(model, rows) -> np.ndarray:
    """Index into ``classes_`` of ``model.predict`` for every row (-1: unclassified)."""
    predicted = model.predict(rows)
    index = {to_python(label): k for k, label in enumerate(model.classes_)}
    out = np.array([index.get(to_python(label), -1) for label in predicted], dtype=np.int64)
    if model.algorithm == "interval":
        out[model.predict_proba(rows).sum(axis=1) == 0.0] = -1
    return out


def _require_matplotlib():
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise QuercusError("drawing a decision surface needs matplotlib; install it with "
                           "pip install 'quercus[plot]'") from None
    return Figure, FigureCanvasAgg


def _rgb(colour: str) -> list[float]:
    return [int(colour[i:i + 2], 16) / 255.0 for i in (1, 3, 5)]


def plot_decision_surface(model, X, y=None, features=None, *, resolution: int = 300,
                          title: str | None = None):
    """A matplotlib Figure of the decision surface over two features, with X's points.

    Parameters
    ----------
    model, X, resolution
        As for ``surface_grid``.
    y : array-like, optional
        Class labels of X: points are coloured by class (grey without labels). For a
        regression tree, the targets of X: the surface is a continuous colour map of the
        predicted value with a colour bar, and the points are coloured by their target on
        the same scale (grey where it is missing).
    features : pair of str or int, optional
        Default: the model's two features when it has exactly two.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Not attached to pyplot (no global state is changed).
    """
    Figure, FigureCanvasAgg = _require_matplotlib()
    features = _default_features(model, features)
    grid = surface_grid(model, X, features, resolution=resolution)
    figure = Figure(figsize=(6.4, 6.0), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    extent = (grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1])
    if grid.values is not None:
        _value_surface(figure, ax, model, X, y, grid, extent)
    else:
        palette = [_rgb(tint(class_colour(k), 0.35)) for k in range(model.n_classes_)]
        image = np.array(palette + [_rgb(UNCLASSIFIED_COLOUR)])[grid.classes]  # -1: last
        ax.imshow(image, origin="lower", interpolation="nearest", aspect="auto",
                  extent=extent)
        _scatter(ax, model, X, y, grid.features)
        _unclassified_patch(ax, grid)
    ax.set_xlabel(grid.features[0])
    ax.set_ylabel(grid.features[1])
    tree = model.tree_
    kind = "regression" if grid.values is not None else model.algorithm
    ax.set_title(title or f"{kind} tree: depth {tree.max_depth}, {tree.n_leaves} leaves")
    if grid.held:
        held = ", ".join(f"{k} = {v}" for k, v in list(grid.held.items())[:4])
        more = ", ..." if len(grid.held) > 4 else ""
        figure.text(0.01, 0.01, f"held: {held}{more}", fontsize=7, color="#555555")
    figure.tight_layout()
    return figure


def _default_features(model, features):
    if features is not None:
        return tuple(features)
    names = model.schema_.feature_names
    if len(names) != 2:
        raise DataError(f"the model has {len(names)} features; choose two with --features "
                        "(or features=...)")
    return tuple(names)


VALUE_COLOURS = "viridis"  # the colour map of a regression tree's surface and points


def _value_surface(figure, ax, model, X, y, grid, extent) -> None:
    """A regression tree's predicted value as a colour map, its colour bar, and X's points
    coloured by their target on the same scale."""
    from matplotlib.colors import Normalize

    px, py, known = _point_coordinates(model, X, grid.features)
    targets = None if y is None else pd.to_numeric(pd.Series(np.asarray(y, dtype=object)),
                                                   errors="coerce").to_numpy(dtype=float)
    span = [grid.values.min(), grid.values.max()]
    if targets is not None and np.isfinite(targets[known]).any():
        span += [np.nanmin(targets[known]), np.nanmax(targets[known])]
    norm = Normalize(vmin=float(min(span)), vmax=float(max(span)))
    image = ax.imshow(grid.values, origin="lower", interpolation="nearest", aspect="auto",
                      extent=extent, cmap=VALUE_COLOURS, norm=norm)
    target = model.schema_.target or "target"
    figure.colorbar(image, ax=ax, label=f"{target}: predicted (surface)"
                    + ("" if targets is None else ", actual (points)"))
    if targets is None:
        ax.scatter(px[known], py[known], s=14, c="#777777", edgecolors="#333333",
                   linewidths=0.4)
        return
    scored = known & np.isfinite(targets)
    ax.scatter(px[scored], py[scored], s=16, c=targets[scored], cmap=VALUE_COLOURS, norm=norm,
               edgecolors="#222222", linewidths=0.5)
    lost = known & ~np.isfinite(targets)
    if lost.any():
        ax.scatter(px[lost], py[lost], s=14, c="#aaaaaa", edgecolors="#333333",
                   linewidths=0.4, label=f"{target} missing")
        ax.legend(loc="upper right", fontsize=8, framealpha=0.8)


def _point_coordinates(model, X, features):
    """X's two plotted columns as floats, and which rows have both."""
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(
        model.schema_.encode(X), columns=model.schema_.feature_names)
    px = pd.to_numeric(frame[features[0]], errors="coerce").to_numpy(dtype=float)
    py = pd.to_numeric(frame[features[1]], errors="coerce").to_numpy(dtype=float)
    return px, py, np.isfinite(px) & np.isfinite(py)


def _scatter(ax, model, X, y, features) -> None:
    """X's points, coloured by their class; points missing either feature are left out."""
    px, py, known = _point_coordinates(model, X, features)
    if y is None:
        ax.scatter(px[known], py[known], s=14, c="#777777", edgecolors="#333333",
                   linewidths=0.4)
        return
    labels = [to_python(v) for v in (y.tolist() if hasattr(y, "tolist") else list(y))]
    for k, label in enumerate(model.classes_):
        mine = known & np.array([v == to_python(label) for v in labels], dtype=bool)
        if mine.any():
            ax.scatter(px[mine], py[mine], s=14, color=class_colour(k), edgecolors="#222222",
                       linewidths=0.4, label=str(label))
    ax.legend(loc="upper right", fontsize=8, framealpha=0.8)


def _unclassified_patch(ax, grid) -> None:
    """A legend entry for the grey area a class-interval tree leaves unclassified."""
    if not np.any(grid.classes < 0):
        return
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    handles.append(Patch(color=UNCLASSIFIED_COLOUR))
    labels.append("unclassified")
    ax.legend(handles, labels, loc="upper right", fontsize=8, framealpha=0.8)


def save_decision_surface(model, X, y, features, path, *, resolution: int = 300,
                          title: str | None = None) -> None:
    """Draw ``plot_decision_surface`` and write it atomically to ``path`` (.png, .svg or
    .pdf, by its suffix)."""
    from .export.atomic import write_atomically

    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in PLOT_FORMATS:
        raise DataError(f"{path}: unknown picture format '.{suffix}'; use "
                        f"{', '.join('.' + f for f in PLOT_FORMATS)}")
    figure = plot_decision_surface(model, X, y, features, resolution=resolution, title=title)
    buffer = io.BytesIO()
    figure.savefig(buffer, format=suffix, dpi=100)
    data = buffer.getvalue()
    write_atomically(path, lambda handle: handle.buffer.write(data))
