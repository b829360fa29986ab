"""Fitting and predicting CART with a multi-output y (a 2-D y, one label column per
output), as scikit-learn's ``DecisionTreeClassifier`` does: one tree whose leaves hold a
class distribution per output. CART with the exact or random splitter on numeric
features without missing values only; the fitted tree keeps the outputs' class weights end to end in
``tree_.value``, output k in columns ``tree_.output_ptr[k]:tree_.output_ptr[k + 1]``.
"""

from __future__ import annotations

import numpy as np

from . import params as P
from .data.schema import infer_schema
from .errors import DataError
from .growing.builders import grow
from .pruning.cost_complexity import prune
from .splitting.multi_output import MultiOutputSplitter


def n_outputs_of(y, class_weight) -> int:
    """Number of label columns of y (1 for a 1-D y), refusing a list ``class_weight``
    whose length does not match, in scikit-learn's words."""
    shape = np.shape(y) if isinstance(y, (np.ndarray, list, tuple)) else None
    n_outputs = shape[1] if shape is not None and len(shape) == 2 else 1
    if isinstance(class_weight, list) and len(class_weight) != n_outputs:
        raise ValueError("number of elements in class_weight should match number of "
                         "outputs.")
    return n_outputs


def _refuse(model) -> None:
    if model.algorithm != "cart":
        raise ValueError(f"a multi-output y (one label column per output) is for CART only; "
                         f"algorithm={model.algorithm!r} learns one label per row")
    if model.splitter not in ("exact", "best", "random"):
        raise ValueError(f"a multi-output y needs splitter 'exact', 'best' or 'random'; got "
                         f"{model.splitter!r}")
    if model.monotonic_cst is not None:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs")


def fit_multi_output(model, X, y, sample_weight):
    """Grow ``model``'s CART tree on X and the label columns of y; sets the fitted
    attributes (``classes_`` and ``n_classes_`` then hold one entry per output)."""
    _refuse(model)
    Y = np.asarray(y)
    if Y.dtype.kind == "f" and np.isnan(Y).any():
        raise DataError("y has missing labels; a multi-output y must be complete")
    schema = infer_schema(X, Y[:, 0], categorical_features=model.categorical_features)
    if schema.categorical_mask.any():
        name = schema.feature_names[int(np.argmax(schema.categorical_mask))]
        raise DataError(f"feature {name!r} is categorical; a multi-output y needs numeric "
                        f"features")
    X_encoded = schema.encode(X)
    if X_encoded.shape[0] != Y.shape[0]:
        raise DataError(f"X has {X_encoded.shape[0]} rows but y has {Y.shape[0]}")
    if np.isnan(X_encoded).any():
        raise DataError("X has missing values; a multi-output y needs complete features")
    classes, codes = zip(*(np.unique(Y[:, k], return_inverse=True)
                           for k in range(Y.shape[1])), strict=True)
    codes = np.column_stack(codes).astype(np.int64)
    weights = P.resolve_sample_weight(sample_weight, Y.shape[0])
    per_output = (model.class_weight if isinstance(model.class_weight, list)
                  else [model.class_weight] * Y.shape[1])
    for k, class_weight in enumerate(per_output):
        weights = weights * P.class_weight_factors(class_weight, codes[:, k], classes[k])
    kept = weights > 0  # a row of weight 0 is as good as absent
    if not kept.any():
        raise DataError("Sample weights must contain at least one non-zero number: every "
                        "row has weight zero")
    criterion = "gini" if model.criterion is None else model.criterion
    P.check_choice("criterion", criterion, ["gini", "entropy", "log_loss"])
    settings = model._settings(int(kept.sum()), weights[kept], sample_weight is not None,
                               criterion, schema)
    n_classes = [len(c) for c in classes]
    splitter = MultiOutputSplitter(
        X_encoded[kept], codes[kept], weights[kept], n_classes_per_output=n_classes,
        categorical_mask=schema.categorical_mask, n_categories=schema.n_categories,
        criterion=settings.criterion, min_samples_leaf=settings.rules.min_samples_leaf,
        min_weight_leaf=settings.rules.min_weight_leaf, max_features=settings.max_features,
        rng=settings.rng, random_thresholds=settings.splitter == "random")
    tree = prune(grow(splitter, settings.rules, splitter.n_classes), settings.ccp_alpha)
    tree.output_ptr = splitter.offsets
    model.tree_ = tree
    model._set_fitted(schema, hasattr(X, "columns"))
    model.classes_ = list(classes)
    model.n_classes_ = np.array(n_classes, dtype=np.intp)
    model.n_outputs_ = len(n_classes)
    return model


def predict_proba(model, X) -> list[np.ndarray]:
    """Per output, the class shares of the training weight at each row's leaf."""
    leaves = model.tree_.apply(X)
    out = []
    ptr = model.tree_.output_ptr
    for k in range(model.n_outputs_):
        value = model.tree_.value[leaves, ptr[k]:ptr[k + 1]]
        totals = value.sum(axis=1, keepdims=True)
        out.append(np.divide(value, totals, out=np.zeros_like(value), where=totals > 0))
    return out


def predict(model, X) -> np.ndarray:
    """The most probable class of every row for every output, shape (n_rows, n_outputs)."""
    proba = predict_proba(model, X)
    columns = [model.classes_[k].take(np.argmax(p, axis=1)) for k, p in enumerate(proba)]
    common = np.result_type(*[c.dtype for c in columns])
    return np.column_stack([c.astype(common) for c in columns])
