"""``DecisionTreeRegressor``: CART regression trees with scikit-learn's interface."""

from __future__ import annotations

import warnings

import numpy as np

from . import params as P
from . import validation as V
from .data.schema import infer_schema
from .errors import DataError
from .estimator import DecisionTreeClassifier as _Classifier
from .estimator import _is_dask
from .growing.builders import StoppingRules, grow
from .learners import AUTO_HIST_CELLS
from .missing_counts import binned_missing_counts, missing_counts
from .pruning.cost_complexity import PruningPath, prune, pruning_path
from .splitting.hist_regression import RegressionHistSplitter
from .splitting.regression import REGRESSION_CRITERIA
from .splitting.regression_losses import splitter_class
from .tree import Tree

__all__ = ["DecisionTreeRegressor"]

HIST_CRITERIA = ("squared_error", "friedman_mse")  # what per-bin sums (W, S, Q) rank


class DecisionTreeRegressor:
    """A CART regression tree on numeric and categorical features.

    Each split minimises the criterion's loss over its two children; a leaf predicts the
    weighted mean target of its training rows (the weighted median for absolute error). On
    numeric data the tree is scikit-learn's ``DecisionTreeRegressor`` tree
    (docs/regression.md).

    Parameters
    ----------
    criterion : {"squared_error", "friedman_mse", "absolute_error", "poisson"}, \
default="squared_error"
        "friedman_mse" is another name of "squared_error", as in scikit-learn 1.9 (which
        deprecates it): Friedman's improvement orders a node's cuts as squared error does.
        "absolute_error": the weighted absolute deviation from each side's median;
        "poisson": the half Poisson deviance (targets must be non-negative with a
        positive sum).
    splitter : {"best", "exact", "hist", "auto"}, default="best"
        "best"/"exact": every cut between distinct values is tried. "hist": each numeric
        feature is first quantised into at most ``max_bins`` bins (as the classifier's
        hist splitter) and the cuts between bins are searched in per-bin sums; "auto":
        hist from 2,000,000 rows x features on.
    max_bins : int, default=255
        Bins per numeric feature for ``splitter="hist"``.
    max_depth : int or None, default=None
    min_samples_split : int, float or None, default=None
        None: 2 (rpart: 20).
    min_samples_leaf : int, float or None, default=None
        None: 1 (rpart: round(min_samples_split / 3)).
    min_weight_fraction_leaf : float, default=0.0
    min_impurity_decrease : float, default=0.0
        A node splits only if its weighted squared error decreases by at least this much
        (relative to the whole training weight, as in scikit-learn).
    max_leaf_nodes : int or None, default=None
        With a limit, the tree grows best first.
    ccp_alpha : float, default=0.0
        Complexity parameter of minimal cost-complexity pruning.
    categorical_features : "auto", list of names or indices, or bool mask, default="auto"
        Which features are categorical ("auto": string, category and bool columns). A
        categorical feature is split by the best subset of its categories, found among
        the prefixes of the categories ordered by mean target (exact for squared error;
        Poisson and absolute error: docs/regression.md, "Criteria").
    algorithm : {"cart", "rpart"}, default="cart"
        "rpart": R's ``rpart(method = "anova")`` tree, node for node (docs/rpart.md,
        "Regression trees"), with its surrogate splits and cp table; ``min_samples_split``
        and ``min_samples_leaf`` are then rpart's minsplit and minbucket (defaults 20 and
        round(minsplit / 3)), ``max_depth`` its maxdepth (at most 30).
    cp, max_competitors, max_surrogates, use_surrogates, surrogate_style, xval, prune, \
random_state
        rpart only, as for ``DecisionTreeClassifier(algorithm="rpart")``: rpart.control's
        cp (0.01), maxcompete (4), maxsurrogate (5), usesurrogate (2), surrogatestyle (0),
        xval (10 folds drawn with ``random_state``, 0 for none, or a fold id 1..K per row),
        and ``prune`` None, "min" or "1se" (the cp-table row of least xerror, or the 1-SE
        rule).

    Rows with a missing target (NaN) and rows of ``sample_weight`` 0 are left out. A missing
    feature value follows the side learned at each split, as in scikit-learn.

    Attributes
    ----------
    tree_ : quercus.tree.Tree
        The flat tree; ``value[:, 0]`` holds each node's prediction (weighted mean, or
        median) and ``impurity`` scikit-learn's impurity of the criterion (for squared
        error the weighted variance).
    cp_table_, variable_importance_, rpart_fit_
        rpart only: the cp table (``CP, nsplit, rel_error, xerror, xstd``), rpart's
        unscaled variable importance and the fit's records.
    schema_, n_features_in_, feature_names_in_, n_outputs_, max_features_,
    feature_importances_
    """

    _estimator_type = "regressor"

    def __init__(self, criterion="squared_error", splitter="best", max_depth=None,
                 min_samples_split=None, min_samples_leaf=None, min_weight_fraction_leaf=0.0,
                 min_impurity_decrease=0.0, max_leaf_nodes=None, ccp_alpha=0.0,
                 categorical_features="auto", algorithm="cart", cp=0.01, max_competitors=4,
                 max_surrogates=5, use_surrogates=2, surrogate_style=0, xval=10, prune=None,
                 random_state=1, max_bins=255):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.ccp_alpha = ccp_alpha
        self.categorical_features = categorical_features
        self.algorithm = algorithm
        self.cp = cp
        self.max_competitors = max_competitors
        self.max_surrogates = max_surrogates
        self.use_surrogates = use_surrogates
        self.surrogate_style = surrogate_style
        self.xval = xval
        self.prune = prune
        self.random_state = random_state
        self.max_bins = max_bins

    # the scikit-learn protocol and the tree accessors are the classifier's
    _param_names = classmethod(_Classifier._param_names.__func__)
    get_params = _Classifier.get_params
    set_params = _Classifier.set_params
    __repr__ = _Classifier.__repr__
    _check_fitted = _Classifier._check_fitted
    _encode = _Classifier._encode
    _encode_rows = _Classifier._encode_rows
    apply = _Classifier.apply
    decision_path = _Classifier.decision_path
    get_depth = _Classifier.get_depth
    get_n_leaves = _Classifier.get_n_leaves
    feature_importances_ = _Classifier.feature_importances_

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, RegressorTags, Tags, TargetTags

        return Tags(estimator_type="regressor", target_tags=TargetTags(required=True),
                    regressor_tags=RegressorTags(),
                    input_tags=InputTags(allow_nan=True, categorical=True, string=True,
                                         sparse=True))

    def fit(self, X, y, sample_weight=None) -> DecisionTreeRegressor:
        """Grow a tree from rows X (data frame, array or list of rows) and numeric targets y."""
        P.check_choice("criterion", self.criterion, list(REGRESSION_CRITERIA))
        P.check_choice("splitter", self.splitter, ["best", "exact", "hist", "auto"])
        P.check_choice("algorithm", self.algorithm, ["cart", "rpart"])
        if _is_dask(X) or _is_dask(y):  # a cluster fit (quercus.dask; docs/distributed.md)
            from . import dask as qdask

            return qdask.fit(self, X, y, sample_weight)
        max_bins = P.resolve_max_bins(self.max_bins)
        if self.algorithm == "rpart" and self.splitter not in ("best", "exact"):
            raise ValueError(f"splitter={self.splitter!r} is for CART; rpart searches every "
                             f"cut (splitter='best')")
        X = V.check_features(X, fitting=True)
        target = _targets(y)
        schema = infer_schema(X, categorical_features=self.categorical_features,
                              target=getattr(y, "name", None))
        X_encoded, has_missing = schema.encode_rows(X)
        if X_encoded.shape[0] != target.shape[0]:
            raise DataError(f"X has {X_encoded.shape[0]} rows but y has {target.shape[0]}")
        weights = P.resolve_sample_weight(sample_weight, X_encoded.shape[0])
        V.check_sample_weight(weights)
        if self.algorithm == "rpart":  # R's rpart(method = "anova")
            from .growing.rpart_settings import fit_rpart_regressor

            return fit_rpart_regressor(self, X_encoded, target, weights, schema,
                                       hasattr(X, "columns"))
        keep = ~np.isnan(target) & (weights > 0)
        n_rows = int(np.count_nonzero(keep))
        if n_rows == 0:
            raise DataError("no training rows with a known target")
        rules, ccp_alpha = self._rules(n_rows, weights[keep].sum() if sample_weight is not None
                                       else n_rows)
        options = {"categorical_mask": schema.categorical_mask,
                   "n_categories": schema.n_categories,
                   "min_samples_leaf": rules.min_samples_leaf,
                   "min_weight_leaf": rules.min_weight_leaf}
        X_kept = X_encoded if keep.all() else X_encoded[keep]  # no copy of 1M rows for none
        y_kept, w_kept = target[keep], weights[keep]
        if self.splitter == "hist" or (self.splitter == "auto"
                                       and X_kept.size >= AUTO_HIST_CELLS):
            self._check_hist_criterion()
            splitter = RegressionHistSplitter(X_kept, y_kept, w_kept, max_bins=max_bins,
                                              **options)
        else:
            splitter = splitter_class(self.criterion)(X_kept, y_kept, w_kept, **options)
        self.tree_ = prune(grow(splitter, rules, 1), ccp_alpha)
        self.tree_.n_missing = missing_counts(self.tree_, X_kept) if has_missing else None
        self._set_fitted(schema, hasattr(X, "columns"))
        return self

    def _check_hist_criterion(self) -> None:
        """The histogram splitter sums targets and squared targets: squared error only."""
        if self.criterion not in HIST_CRITERIA:
            raise ValueError(f"splitter='hist' grows squared-error trees only; criterion="
                             f"{self.criterion!r} needs splitter='best'")

    def _rules(self, n_rows: int, total_weight: float) -> tuple[StoppingRules, float]:
        """The stopping rules and ccp_alpha of a fit on n_rows rows of this total weight."""
        min_samples_leaf = P.resolve_count(
            "min_samples_leaf", 1 if self.min_samples_leaf is None else self.min_samples_leaf,
            n_rows, minimum=1)
        min_samples_split = P.resolve_count(
            "min_samples_split", 2 if self.min_samples_split is None else self.min_samples_split,
            n_rows, minimum=2)
        fraction = P.check_non_negative("min_weight_fraction_leaf",
                                        self.min_weight_fraction_leaf, upper=0.5)
        min_decrease = P.check_non_negative("min_impurity_decrease", self.min_impurity_decrease)
        rules = StoppingRules(
            max_depth=P.resolve_max_depth(self.max_depth),
            min_samples_split=max(min_samples_split, 2 * min_samples_leaf),
            min_samples_leaf=min_samples_leaf, min_weight_leaf=fraction * total_weight,
            min_impurity_decrease=min_decrease,
            max_leaf_nodes=P.resolve_max_leaf_nodes(self.max_leaf_nodes))
        return rules, P.check_non_negative("ccp_alpha", self.ccp_alpha)

    def fit_binned(self, binned, y, schema, binner, progress=None) -> DecisionTreeRegressor:
        """Fit with ``splitter="hist"`` on rows binned beforehand (no sample weights).

        ``binned`` (n_features, n_rows) is ``binner.transform`` of the encoded rows and y
        their targets (rows with a missing target are left out). The tree is the one
        ``fit`` grows with ``splitter="hist"`` when its bins get the same edges;
        ``quercus.data.csv_stream`` bins a CSV file this way as it reads.
        """
        if self.splitter not in ("hist", "auto"):
            raise ValueError("fit_binned needs splitter='hist'")
        P.check_choice("criterion", self.criterion, list(REGRESSION_CRITERIA))
        self._check_hist_criterion()
        target = _targets(y)
        keep = ~np.isnan(target)
        n_rows = int(np.count_nonzero(keep))
        if n_rows == 0:
            raise DataError("no training rows with a known target")
        if not keep.all():
            binned = np.ascontiguousarray(binned[:, keep])
        rules, ccp_alpha = self._rules(n_rows, n_rows)
        splitter = RegressionHistSplitter(None, target[keep], np.ones(n_rows), binner=binner,
                                          binned=binned,
                                          categorical_mask=schema.categorical_mask,
                                          n_categories=schema.n_categories,
                                          min_samples_leaf=rules.min_samples_leaf,
                                          min_weight_leaf=rules.min_weight_leaf)
        self.tree_ = prune(grow(splitter, rules, 1, progress=progress), ccp_alpha)
        self.tree_.n_missing = binned_missing_counts(self.tree_, binner, binned,
                                                     schema.categorical_mask)
        self._set_fitted(schema, True)
        return self

    def _set_fitted(self, schema, has_names: bool) -> None:
        """Attributes derived from the schema (also used when a model file is loaded)."""
        self.schema_ = schema
        self.n_features_in_ = schema.n_features
        self.n_outputs_ = 1
        self.max_features_ = schema.n_features
        if has_names:
            self.feature_names_in_ = np.array(schema.feature_names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def predict(self, X) -> np.ndarray:
        """The prediction of each row's leaf (its training rows' mean, or median); a Dask
        Series or Array for a Dask X."""
        if _is_dask(X):
            from . import dask as qdask

            return qdask.predict(self, X)
        tree: Tree = self._check_fitted()
        return tree.leaf_values(*self._encode_rows(X))

    def score(self, X, y, sample_weight=None) -> float:
        """Coefficient of determination R² of ``predict(X)`` against y."""
        truth = _targets(y)
        predicted = self.predict(X)
        w = np.ones_like(truth) if sample_weight is None else np.asarray(sample_weight, float)
        residual = np.sum(w * (truth - predicted) ** 2)
        spread = np.sum(w * (truth - np.average(truth, weights=w)) ** 2)
        if spread == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return float(1.0 - residual / spread)

    def save(self, path) -> None:
        """Write the fitted model to a JSON model file (atomically); read it back with
        ``quercus.load_model``."""
        from .export.model_writer import save_model

        save_model(self, path)

    def explain(self, X) -> list:
        """Each row's path to its leaf, with every node's rows and mean and the predicted
        value (see ``quercus.explain.explain``)."""
        from .explain import explain

        return explain(self, X)

    def pruned(self, cp: float) -> DecisionTreeRegressor:
        """A copy of this rpart model pruned at complexity ``cp`` (rpart's ``prune(fit,
        cp)``); the model itself is unchanged."""
        from .growing.rpart_settings import pruned_regressor

        return pruned_regressor(self, cp)

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> PruningPath:
        """Effective alphas and total leaf impurities of minimal cost-complexity pruning."""
        unpruned = type(self)(**{**self.get_params(), "ccp_alpha": 0.0})
        unpruned.fit(X, y, sample_weight)
        return pruning_path(unpruned.tree_)


def _targets(y) -> np.ndarray:
    """y as a 1-D float64 array, refusing what is not a numeric target."""
    if y is None:
        raise DataError("DecisionTreeRegressor requires y to be passed, but the target y "
                        "is None")
    values = np.asarray(y)
    if values.ndim == 2 and values.shape[1] == 1:
        category = V._sklearn_class("sklearn.exceptions", "DataConversionWarning") or UserWarning
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples,), for example using ravel().",
                      category, stacklevel=3)
        values = values[:, 0]
    if values.ndim != 1:
        raise DataError(f"y must be one numeric target per row; got shape {values.shape}")
    try:
        values = values.astype(np.float64)
    except (TypeError, ValueError):
        raise DataError("y holds values that are not numbers; a regression tree needs a "
                        "numeric target (use DecisionTreeClassifier for class labels)") from None
    if np.isinf(values).any():
        raise DataError("Input y contains infinity; a regression target must be finite")
    return values
