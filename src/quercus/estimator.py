"""``DecisionTreeClassifier``: the scikit-learn compatible face of every Quercus learner."""

from __future__ import annotations

import inspect
from numbers import Integral

import numpy as np

from . import multi_output
from . import params as P
from . import validation as V
from .data.schema import Schema, infer_schema
from .errors import DataError
from .growing.builders import StoppingRules
from .learners import (
    ALGORITHMS,
    CRITERIA,
    DEFAULT_CRITERION,
    DEFAULT_MIN_SAMPLES_LEAF,
    LEARNERS,
    Settings,
    fit_cart_binned,
)
from .missing_counts import binned_missing_counts, missing_counts
from .multi_output import fit_multi_output, n_outputs_of
from .pruning.cost_complexity import PruningPath, pruning_path
from .tree import LEAF, Tree

__all__ = ["DecisionTreeClassifier"]

#: C4.5's ``predict``: probabilities equal up to this relative distance tie, and a tie goes
#: to the first class. A missing value's probabilities are sums over branches, and two sums
#: that are equal in exact arithmetic can differ in the last bit depending on the order of
#: the terms; J48's order mostly leaves such a tie exact, so its first class wins.
C45_TIE_RTOL = 1e-12


class DecisionTreeClassifier:
    """A decision-tree classifier for numeric and categorical features.

    Parameters
    ----------
    algorithm : {"cart", "id3", "c45", "interval", "optimal", "auto"}, default="cart"
        The learner. ``"cart"``: binary splits, numeric thresholds at midpoints, categorical
        features split by a subset of categories (docs/cart.md). ``"id3"``: one branch per
        category, categorical features only, no pruning. ``"c45"``: C4.5 release 8 as
        Weka's J48 builds it: gain ratio, one branch per category, binary numeric
        thresholds, fractional rows for missing values, pessimistic pruning (docs/c45.md).
        ``"interval"``: seed 001's class-interval tree: one class's [min, max] range on one
        feature per split; a row that fits no branch is unclassified (docs/interval.md).
        ``"optimal"``: the binary tree of least (weighted) training misclassification at
        depth <= ``max_depth`` (3 when None), found by branch and bound (docs/optimal.md).
        ``"auto"``: the best small tree: the candidate learners are compared by inner
        stratified cross-validation (seeded by ``random_state``) and the winner refitted
        on all rows (docs/auto.md); only ``random_state``, ``class_weight`` and
        ``categorical_features`` may be set with it.
    criterion : str or None, default=None
        ``"gini"`` (CART's default), ``"entropy"`` or its scikit-learn name ``"log_loss"``
        for CART and the class-interval tree;
        ``"entropy"`` (information gain, ID3's default) or ``"gain_ratio"`` for ID3; C4.5
        always uses gain ratio.
    max_depth : int or None, default=None
    min_samples_split : int, float or None, default=None
        Int: minimum rows to split a node. Float: a fraction of the training rows. None: 2,
        and for rpart 20 (or 3 x ``min_samples_leaf`` when only that is given). CART and
        rpart only.
    min_samples_leaf : int, float or None, default=None
        Minimum rows in a leaf: 1 for CART, 2 for C4.5 (J48's -M) and round(min_samples_split
        / 3) for rpart (its minbucket) when None. C4.5 counts
        weights and needs it in at least two branches of a split.
    min_weight_fraction_leaf : float, default=0.0
    min_impurity_decrease : float, default=0.0
        A node splits only if its weighted impurity decreases by at least this much.
    max_leaf_nodes : int or None, default=None
        With a limit, the tree grows best first.
    class_weight : dict, "balanced" or None, default=None
    ccp_alpha : float, default=0.0
        Complexity parameter of minimal cost-complexity pruning.
    categorical_features : "auto", list of names or indices, or bool mask, default="auto"
        Which features are categorical; "auto" infers it from the data types.
    confidence : float, default=0.25
        C4.5's confidence factor for pessimistic pruning (J48's -C); smaller prunes more.
    pruning : bool, default=True
        C4.5: prune after growing (``False`` is J48's -U; the tree is still collapsed).
    subtree_raising : bool, default=True
        C4.5: consider replacing a node by its largest branch (``False`` is J48's -S).
    laplace : bool, default=False
        C4.5 and ID3: Laplace-corrected leaf probabilities in ``predict_proba`` (J48's -A);
        ``predict`` still takes the class with the most training weight.
    splitter : {"exact", "best", "random", "hist", "auto"}, default="exact"
        CART's split search. ``"exact"`` (or scikit-learn's name ``"best"``) tries every cut
        between distinct values (the trees of scikit-learn). ``"random"`` scores one cut per
        feature drawn uniformly between the node's smallest and largest value (scikit-learn's
        extra trees; CART only). ``"hist"`` first quantises each numeric feature into at most
        ``max_bins`` bins (quantiles of a sample of rows; one bin per value when there are
        few) and searches histograms: much faster on large data, with thresholds at bin
        edges. ``"auto"``: hist from 2,000,000 rows x features on.
    max_bins : int, default=255
        Bins per numeric feature for ``splitter="hist"`` (at most 255 fit in one byte;
        up to 65535 are stored in two).
    lookahead : bool or "listing", default=False
        Class-interval tree: choose each split by the total score of the best subtrees
        below it (seed 001's "more complex approach"); ``max_depth`` then defaults to 10.
        ``"listing"``: the look-ahead as the seed's program listing computes it (its
        integer-division Gini, its entropy loop, scores carried between candidates), which
        reproduces the seed's iris figures (docs/interval.md).
    unclassified : object, default="auto"
        Class-interval tree: what ``predict`` returns for a row that fits no branch; "auto"
        is -1 for integer class labels and None otherwise.
    binary_categorical_splits : bool, default=False
        C4.5: split a categorical feature in two, one category against all the others
        (``outlook = sunny`` / ``outlook != sunny``), instead of one branch per category
        (J48's -B). A feature can then be split on again further down.
    reduced_error_pruning : bool, default=False
        C4.5: instead of pessimistic pruning, grow on ``n_folds - 1`` stratified folds of
        the rows and prune on the remaining fold, a node becoming a leaf when it makes no
        more errors there than its subtree (J48's -R). Needs ``pruning=True`` and the
        default ``confidence``; ``subtree_raising`` has no effect with it.
    n_folds : int, default=3
        C4.5 with ``reduced_error_pruning``: number of folds; one is held out for pruning
        (J48's -N). Must stay 3 without ``reduced_error_pruning``.
    random_state : None, int or numpy.random.RandomState, default=1
        CART: the draws of ``max_features`` and ``splitter="random"``, as scikit-learn
        takes it (an int gives the same tree every time; None uses numpy's global
        generator). C4.5 with ``reduced_error_pruning``: an int, the seed of the
        ``java.util.Random`` that shuffles the growing folds (J48's -Q); the folds
        themselves are J48's deterministic stratified split.
    max_features : int, float, "sqrt", "log2" or None, default=None
        CART: features searched at each node, drawn at random among those not constant in
        it (None: all; a float: that fraction of them, at least one). Others: None only.
    monotonic_cst : array-like of -1, 0, 1 or None, default=None
        CART, two classes: 1 makes the probability of ``classes_[1]`` non-decreasing in
        that numeric feature, -1 non-increasing, 0 leaves it free (scikit-learn's meaning;
        docs/cart.md). The constrained features may not have missing values.
    max_splits, split_penalty, numeric, categorical, max_subset_categories, missing, \
time_limit, max_gap
        Optimal trees only (docs/optimal.md): at most ``max_splits`` splits (None: no
        limit); minimise errors + ``split_penalty`` * splits; numeric tests ``"exact"``
        (every cut) or ``"bins"`` (``max_bins`` quantile thresholds); categorical tests
        ``"subset"`` (every subset up to ``max_subset_categories`` categories at a node,
        else one category) or ``"one_vs_rest"``; ``missing`` values to a ``"learn"``-ed
        side or always to the ``"false"`` side; ``time_limit`` seconds (None: until
        proven), returning the best tree found; stop once within ``max_gap`` of the
        lower bound.
    cp, max_competitors, max_surrogates, use_surrogates, surrogate_style
        rpart only (docs/rpart.md), as ``rpart.control``'s cp, maxcompete, maxsurrogate,
        usesurrogate (0: a row missing the split's feature stays at the node; 1: it tries
        the surrogate splits; 2: then follows the majority) and surrogatestyle.
    xval : int or array-like of int, default=10
        rpart, and CART with ``prune``: the number of cross-validation folds (rpart: a
        random permutation of fold ids, as R's rpart draws them; CART: stratified; both
        drawn with ``random_state``; rpart: 0 for none), or the fold id 1..K of every row
        of X.
    priors : array-like of float or None, default=None
        rpart and CART: class probabilities in ``classes_`` order, positive, summing to 1
        (None: the observed class shares). Splits weigh the rows of class i by
        ``priors[i]`` over its observed share (with a loss, by the altered priors);
        ``predict_proba`` gives the prior-adjusted probabilities. CART: not with
        ``class_weight`` (docs/cart.md).
    loss : array-like of shape (n_classes, n_classes) or None, default=None
        rpart and CART: the cost of predicting class j (column) for a row of class i
        (row), in ``classes_`` order, non-negative with a zero diagonal; a node predicts
        its class of least expected loss. CART: not with ``class_weight``.
    prune : {None, "min", "1se"} or "cv", default=None
        rpart and CART: prune by ``xval``-fold cross-validation of the misclassification
        risk (the loss, under the priors), as rpart's cp table: ``"min"`` keeps the subtree
        of least cross-validated risk, ``"1se"`` the smallest one within one standard error
        of it (CART: not with ``ccp_alpha``). C4.5: ``"cv"`` chooses the confidence factor
        (and ``min_samples_leaf`` when it is None) from a small grid by 5-fold stratified
        cross-validation on the training rows (folds drawn with ``random_state``), then fits
        on all rows with the best setting (docs/c45.md). None: no pruning by
        cross-validation.

    Attributes
    ----------
    tree_ : quercus.tree.Tree
        The fitted tree as flat arrays; scikit-learn's names (``node_count``,
        ``children_left`` ...) answer too, and ``tree_.sklearn_view`` gives scikit-learn's
        conventions throughout (docs/cart.md).
    max_features_ : int
        Features searched per node.
    n_outputs_ : int
        Always 1.
    schema_ : quercus.data.Schema
        Feature kinds, codebooks and class labels.
    classes_, n_classes_, n_features_in_, feature_names_in_, feature_importances_
    cv_results_ : pandas.DataFrame
        C4.5 with ``prune="cv"``: one row per setting tried, with ``confidence``,
        ``min_samples_leaf``, the mean fold ``accuracy``, its ``std_error``, the mean number
        of ``leaves`` and whether it was ``chosen``.
    best_params_ : dict
        C4.5 with ``prune="cv"``: the chosen ``confidence`` and ``min_samples_leaf``.
    selection_, chosen_, best_estimator_, selection_summary_
        ``algorithm="auto"`` only: the candidates' table (a pandas DataFrame: ``name``,
        ``learner``, ``accuracy``, ``std_error``, ``leaves``, ``fit_seconds``, ``chosen``,
        ``error``), the winner's name and parameters, the winner refitted on all rows
        (whose tree is ``tree_``), and a one-line account of the choice.
    objective_, lower_bound_, gap_, optimal_, n_subproblems_, cache_hits_
        Optimal trees only: the tree's errors (+ penalty) on the training rows, a proven
        lower bound on the optimum, their difference, and whether the tree is proven
        optimal; the number of subproblems searched and answered from the cache.
    cp_table_ : pandas.DataFrame
        CART with ``prune``: the cp table (``CP``, ``nsplit``, ``rel_error``, ``xerror``,
        ``xstd``; risks relative to the root's), one row per subtree of the risk-based
        pruning sequence, largest ``CP`` (the root alone) first.
    chosen_cp_ : float
        CART with ``prune``: the ``CP`` of the row chosen; the tree keeps the splits of
        larger complexity.
    """

    _estimator_type = "classifier"

    def __init__(self, algorithm="cart", criterion=None, max_depth=None, min_samples_split=None,
                 min_samples_leaf=None, min_weight_fraction_leaf=0.0,
                 min_impurity_decrease=0.0, max_leaf_nodes=None, class_weight=None,
                 ccp_alpha=0.0, categorical_features="auto", confidence=0.25, pruning=True,
                 subtree_raising=True, laplace=False, splitter="exact", max_bins=255,
                 lookahead=False, unclassified="auto",
                 binary_categorical_splits=False, reduced_error_pruning=False, n_folds=3,
                 random_state=1, max_features=None, monotonic_cst=None, max_splits=None,
                 split_penalty=0.0, numeric="exact", categorical="subset",
                 max_subset_categories=8, missing="learn", time_limit=None, max_gap=0.0,
                 cp=0.01, max_competitors=4, max_surrogates=5, use_surrogates=2,
                 surrogate_style=0, xval=10, priors=None, loss=None, prune=None):
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.categorical_features = categorical_features
        self.confidence = confidence
        self.pruning = pruning
        self.subtree_raising = subtree_raising
        self.laplace = laplace
        self.splitter = splitter
        self.max_bins = max_bins
        self.lookahead = lookahead
        self.unclassified = unclassified
        self.binary_categorical_splits = binary_categorical_splits
        self.reduced_error_pruning = reduced_error_pruning
        self.n_folds = n_folds
        self.random_state = random_state
        self.max_features = max_features
        self.monotonic_cst = monotonic_cst
        self.max_splits = max_splits
        self.split_penalty = split_penalty
        self.numeric = numeric
        self.categorical = categorical
        self.max_subset_categories = max_subset_categories
        self.missing = missing
        self.time_limit = time_limit
        self.max_gap = max_gap
        self.cp = cp
        self.max_competitors = max_competitors
        self.max_surrogates = max_surrogates
        self.use_surrogates = use_surrogates
        self.surrogate_style = surrogate_style
        self.xval = xval
        self.priors = priors
        self.loss = loss
        self.prune = prune

    # -- scikit-learn protocol -------------------------------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [p for p in signature.parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params) -> DecisionTreeClassifier:
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r}; valid: {', '.join(valid)}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = type(self)().get_params()
        changed = [f"{k}={v!r}" for k, v in self.get_params().items()
                   if not _same(v, defaults[k])]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(),
                    input_tags=InputTags(allow_nan=True, categorical=True, string=True,
                                               sparse=True))

    # -- fitting ---------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None, progress=None) -> DecisionTreeClassifier:
        """Learn a tree from rows X (data frame, array, list of rows or scipy sparse
        matrix) and labels y. A 2-D y of several columns is a multi-output problem (CART;
        ``quercus.multi_output``).

        ``progress``, if given, is called now and then with the share of the work done, from
        0 to 1, never decreasing and ending with 1.0; every algorithm reports it. It is the
        share of the training rows that have reached their leaf (CART, ID3, C4.5, greedy
        class-interval tree; the hist splitter reports a subtree grown whole in one
        compiled call at once, docs/architecture.md), or for the look-ahead class-interval
        tree the share of the root's candidate splits searched. ``quercus train`` draws it as a bar on a terminal.
        """
        P.check_choice("algorithm", self.algorithm, [*ALGORITHMS, "auto"])
        if self.algorithm == "auto":  # the best small tree by inner CV (docs/auto.md)
            from .selection import fit_auto

            return fit_auto(self, X, y, sample_weight, progress=progress)
        criterion = DEFAULT_CRITERION[self.algorithm] if self.criterion is None else self.criterion
        P.check_choice("criterion", criterion, CRITERIA[self.algorithm])
        P.check_prune(self.prune, self.algorithm, self.pruning, self.reduced_error_pruning,
                      self.confidence)
        if _is_dask(X) or _is_dask(y):  # a cluster fit (quercus.dask; docs/distributed.md)
            self._refuse_costs("a Dask fit")
            from . import dask as qdask

            return qdask.fit(self, X, y, sample_weight, progress=progress)
        X = V.check_features(X, fitting=True)
        y = V.check_target(y, type(self).__name__)
        if n_outputs_of(y, self.class_weight) > 1:
            self._refuse_costs("a multi-output fit")
            return fit_multi_output(self, X, y, sample_weight)
        schema = infer_schema(X, y, categorical_features=self.categorical_features)
        X_encoded, has_missing = schema.encode_rows(X)
        y_codes = schema.encode_labels(y)
        if X_encoded.shape[0] != y_codes.shape[0]:
            raise DataError(f"X has {X_encoded.shape[0]} rows but y has {y_codes.shape[0]}")
        weights = P.resolve_sample_weight(sample_weight, X_encoded.shape[0])
        V.check_sample_weight(weights[y_codes >= 0])
        if self.algorithm in ("cart", "interval", "optimal"):  # weight 0: as good as absent
            y_codes = np.where(weights > 0, y_codes, -1).astype(np.int32)
        known = y_codes >= 0  # rows whose label is missing are left out by the learners
        n_known = int(np.count_nonzero(known))
        if n_known == 0:
            raise DataError("no training rows with a known class label")
        n_classes = len(schema.classes)
        factors = np.ones_like(weights)
        factors[known] = P.class_weight_factors(self.class_weight, y_codes[known],
                                                schema.classes.values)
        weights = weights * factors
        if self.algorithm == "rpart":
            from .growing.rpart_settings import fit_rpart_model

            return fit_rpart_model(self, X_encoded, y_codes, weights, schema,
                                   _has_names(X), criterion)
        settings = self._settings(n_known, weights[known], sample_weight is not None,
                                  criterion, schema)
        settings.monotonic_cst = self._monotonic_cst(schema, X_encoded)
        settings.progress = progress
        self._pruning_settings(settings, y_codes, weights, schema)
        if self.algorithm == "optimal":
            settings.optimal = P.resolve_optimal_options(self, settings.rules.max_depth,
                                                         settings.rules.min_samples_leaf)
        self._forget_selection()
        if self.prune == "cv":  # sets cv_results_ and best_params_
            from .pruning.c45_cv import search_for

            settings = search_for(self, X_encoded, y_codes, weights, schema, settings)
        self.tree_ = LEARNERS[self.algorithm](X_encoded, y_codes, weights, schema,
                                              n_classes, settings)
        self.tree_.n_missing = (missing_counts(self.tree_, X_encoded, y_codes >= 0)
                                if has_missing else None)
        self._set_fitted(schema, _has_names(X))
        self._set_pruning_result(settings.pruning_result)
        if settings.result is not None:
            self._set_optimal_result(settings.result)
        if progress is not None and self.algorithm == "optimal":
            progress(1.0)
        return self

    def _forget_selection(self) -> None:
        for name in ("cv_results_", "best_params_"):
            if name in self.__dict__:
                delattr(self, name)

    def _refuse_costs(self, what: str) -> None:
        """Refuse ``prune``, ``priors`` and ``loss`` where they are not supported."""
        for name in ("prune", "priors", "loss"):
            if getattr(self, name) is not None:
                raise ValueError(f"{name} is not supported by {what}; leave {name}=None")

    def _pruning_settings(self, settings: Settings, y_codes: np.ndarray, weights: np.ndarray,
                          schema: Schema) -> None:
        """Priors, loss and ``prune`` (CART; pruning.cv_prune), checked and resolved into
        ``settings``; nothing changes when all three are None."""
        prune = P.check_prune(self.prune, self.algorithm, self.pruning,
                              self.reduced_error_pruning, self.confidence)
        costs = self.priors is not None or self.loss is not None
        if self.algorithm != "cart":
            if costs:
                raise ValueError(f"priors and loss are for algorithm='cart'; "
                                 f"algorithm={self.algorithm!r} takes neither")
            return
        if not costs and prune is None:
            return
        if costs and self.class_weight is not None:
            raise ValueError("class_weight cannot be combined with priors or loss (both "
                             "reweight the classes); give priors instead")
        if prune is not None and settings.ccp_alpha > 0:
            raise ValueError("ccp_alpha cannot be combined with prune (both choose the "
                             "pruning); leave ccp_alpha=0")
        from .class_costs import resolve_class_costs
        from .pruning.cv_prune import resolve_folds

        known = y_codes >= 0
        classes = schema.decode_labels(np.arange(len(schema.classes)))
        settings.class_costs = resolve_class_costs(self.priors, self.loss, y_codes[known],
                                                   weights[known], list(classes))
        if prune is not None:
            settings.prune = prune
            settings.folds = resolve_folds(self.xval, y_codes,
                                           P.check_random_state(self.random_state))

    def _set_pruning_result(self, result) -> None:
        """``cp_table_`` and ``chosen_cp_`` of a CART fit with ``prune`` (else removed)."""
        if result is None:
            for name in ("cp_table_", "chosen_cp_"):
                if name in self.__dict__:
                    delattr(self, name)
            return
        self.cp_table_ = result.table
        self.chosen_cp_ = float(result.table["CP"].iloc[result.row])

    def _set_optimal_result(self, result) -> None:
        """The optimal learner's objective, bound and search statistics."""
        self.objective_ = result.objective
        self.lower_bound_ = result.lower_bound
        self.gap_ = result.gap
        self.optimal_ = result.optimal
        self.n_subproblems_ = result.n_subproblems
        self.cache_hits_ = result.cache_hits

    def fit_binned(self, binned, y_codes, schema: Schema, binner,
                   progress=None) -> DecisionTreeClassifier:
        """Fit CART with ``splitter="hist"`` on rows binned beforehand (no sample weights).

        ``binned`` (n_features, n_rows) is ``binner.transform`` of the encoded rows and
        ``y_codes`` their class codes into ``schema.classes`` (rows with a missing class
        left out). The tree is the one ``fit`` grows with ``splitter="hist"`` when its bins
        get the same edges; ``quercus.data.csv_stream`` bins a CSV file this way as it reads.
        """
        if self.algorithm != "cart" or self.splitter not in ("hist", "auto"):
            raise ValueError("fit_binned needs algorithm='cart' and splitter='hist'")
        P.check_prune(self.prune, self.algorithm, self.pruning, self.reduced_error_pruning,
                      self.confidence)

        self._refuse_costs("fit_binned (rows binned as a file is read)")
        criterion = DEFAULT_CRITERION["cart"] if self.criterion is None else self.criterion
        P.check_choice("criterion", criterion, CRITERIA["cart"])
        y_codes = np.ascontiguousarray(y_codes, dtype=np.int32)
        if y_codes.shape[0] == 0:
            raise DataError("no training rows with a known class label")
        weights = P.class_weight_factors(self.class_weight, y_codes, schema.classes.values)
        settings = self._settings(y_codes.shape[0], weights, False, criterion, schema)
        settings.monotonic_cst = self._monotonic_cst(schema, None)
        if settings.monotonic_cst is not None:  # the binned rows show missing values too
            for f in np.flatnonzero(settings.monotonic_cst):
                if np.any(binned[f] == binner.missing_bin_):
                    raise ValueError(f"Input X contains NaN in the constrained feature "
                                     f"{schema.feature_names[f]!r}; monotonic constraints "
                                     f"are not supported with missing values")
        settings.progress = progress
        self.tree_ = fit_cart_binned(binned, binner, y_codes, weights, schema,
                                     len(schema.classes), settings)
        self.tree_.n_missing = binned_missing_counts(self.tree_, binner, binned,
                                                     schema.categorical_mask)
        self._set_fitted(schema, True)
        return self

    def _settings(self, n_rows: int, weights: np.ndarray, weighted: bool,
                  criterion: str, schema: Schema) -> Settings:
        leaf = self.min_samples_leaf
        if leaf is None:
            leaf = DEFAULT_MIN_SAMPLES_LEAF[self.algorithm]
        min_samples_leaf = P.resolve_count("min_samples_leaf", leaf, n_rows, minimum=1)
        split = 2 if self.min_samples_split is None else self.min_samples_split
        min_samples_split = P.resolve_count("min_samples_split", split, n_rows, minimum=2)
        fraction = P.check_non_negative("min_weight_fraction_leaf",
                                        self.min_weight_fraction_leaf, upper=0.5)
        total = weights.sum() if weighted else n_rows
        rules = StoppingRules(
            max_depth=P.resolve_max_depth(self.max_depth),
            min_samples_split=max(min_samples_split, 2 * min_samples_leaf),
            min_samples_leaf=min_samples_leaf,
            min_weight_leaf=fraction * total,
            min_impurity_decrease=P.check_non_negative("min_impurity_decrease",
                                                       self.min_impurity_decrease),
            max_leaf_nodes=P.resolve_max_leaf_nodes(self.max_leaf_nodes))
        ccp_alpha = P.check_non_negative("ccp_alpha", self.ccp_alpha)
        confidence = P.check_non_negative("confidence", self.confidence, upper=1.0)
        if not 0.0 < confidence < 1.0:
            raise ValueError(f"confidence must be in (0, 1); got {self.confidence!r}")
        splitter = P.check_choice("splitter", self.splitter,
                                  ["exact", "best", "random", "hist", "auto"])
        if splitter == "random" and self.algorithm != "cart":
            raise ValueError(f"splitter='random' is for CART only; algorithm="
                             f"{self.algorithm!r} searches every split")
        self.max_features_ = P.resolve_max_features(self.max_features, schema.n_features)
        if self.max_features is not None and self.algorithm != "cart":
            raise ValueError(f"max_features is for CART only; algorithm={self.algorithm!r} "
                             f"searches every feature (leave max_features=None)")
        if self.max_features_ > schema.n_features:
            raise ValueError(f"max_features must be in (0, n_features]; got "
                             f"{self.max_features!r} for {schema.n_features} features")
        sampled = splitter == "random" or self.max_features_ < schema.n_features
        rng = P.check_random_state(self.random_state) if self.algorithm == "cart" else None
        return Settings(criterion="entropy" if criterion == "log_loss" else criterion,
                        rules=rules, ccp_alpha=ccp_alpha,
                        confidence=confidence, pruning=bool(self.pruning),
                        subtree_raising=bool(self.subtree_raising),
                        lookahead=P.resolve_lookahead(self.lookahead),
                        splitter="exact" if splitter == "best" else splitter,
                        max_features=self.max_features_ if sampled else None,
                        rng=rng if sampled else None,
                        max_bins=P.resolve_max_bins(self.max_bins),
                        binary_categorical_splits=bool(self.binary_categorical_splits),
                        **self._reduced_error_settings(confidence))

    def _reduced_error_settings(self, confidence: float) -> dict:
        """C4.5's reduced-error pruning settings, refusing the combinations J48 refuses."""
        n_folds, seed = self.n_folds, self.random_state
        folds_ok = isinstance(n_folds, Integral) and not isinstance(n_folds, bool)
        if not (folds_ok and n_folds >= 2):
            raise ValueError(f"n_folds must be an int >= 2; got {n_folds!r}")
        seed_ok = isinstance(seed, Integral) and not isinstance(seed, bool)
        if self.algorithm == "c45" and self.reduced_error_pruning and not seed_ok:
            raise ValueError(f"random_state must be an int (a java.util.Random seed); "
                             f"got {seed!r}")
        if self.algorithm == "c45":
            if self.reduced_error_pruning and not self.pruning:
                raise ValueError("reduced_error_pruning=True needs pruning=True "
                                 "(J48: -R and -U cannot be combined)")
            if self.reduced_error_pruning and confidence != 0.25:
                raise ValueError("confidence is not used by reduced_error_pruning; leave it "
                                 "at 0.25 (J48: -R and -C cannot be combined)")
            if not self.reduced_error_pruning and n_folds != 3:
                raise ValueError("n_folds is used only with reduced_error_pruning=True "
                                 "(J48: -N needs -R)")
        return {"reduced_error_pruning": bool(self.reduced_error_pruning),
                "n_folds": int(n_folds), "seed": int(seed) if seed_ok else 1}

    def _monotonic_cst(self, schema: Schema, X_encoded) -> np.ndarray | None:
        """``monotonic_cst`` as int8 per feature (None without a constraint), refusing
        what it cannot mean: another learner than CART, more than two classes, a
        constraint on a categorical feature or on a feature with missing values."""
        cst = P.resolve_monotonic_cst(self.monotonic_cst, schema.n_features)
        if cst is None:
            return None
        if self.algorithm != "cart":
            raise ValueError(f"monotonic_cst is for CART only; algorithm={self.algorithm!r} "
                             f"does not support monotonic constraints")
        if len(schema.classes) > 2:
            raise ValueError("Monotonicity constraints are not supported with multiclass "
                             "classification")
        constrained = np.flatnonzero(cst)
        categorical = [schema.feature_names[f] for f in constrained
                       if schema.categorical_mask[f]]
        if categorical:
            raise ValueError(f"monotonic_cst constrains the categorical feature "
                             f"{categorical[0]!r}; constraints need numeric features")
        if X_encoded is not None and constrained.size:
            missing = np.isnan(X_encoded[:, constrained]).any(axis=0)
            if missing.any():
                name = schema.feature_names[constrained[np.argmax(missing)]]
                raise ValueError(f"Input X contains NaN in the constrained feature {name!r}; "
                                 f"monotonic constraints are not supported with missing "
                                 f"values")
        return cst if constrained.size else None

    def _set_fitted(self, schema: Schema, has_names: bool) -> None:
        """Attributes derived from the schema (also used when a model file is loaded)."""
        self.schema_ = schema
        self.classes_ = schema.decode_labels(np.arange(len(schema.classes)))
        self.n_classes_ = len(self.classes_)
        self.n_features_in_ = schema.n_features
        self.n_outputs_ = 1
        if has_names:
            self.feature_names_in_ = np.array(schema.feature_names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> PruningPath:
        """Effective alphas and total leaf impurities of minimal cost-complexity pruning."""
        reset = {"ccp_alpha": 0.0, **({"prune": None} if self.prune is not None else {})}
        unpruned = type(self)(**{**self.get_params(), **reset})
        unpruned.fit(X, y, sample_weight)
        return pruning_path(unpruned.tree_)

    # -- prediction ------------------------------------------------------------------------
    def _check_fitted(self) -> Tree:
        if not hasattr(self, "tree_"):
            raise V.not_fitted_error(f"this {type(self).__name__} is not fitted yet; call "
                                     f"fit first")
        return self.tree_

    def _encode(self, X) -> np.ndarray:
        return self._encode_rows(X)[0]

    def _encode_rows(self, X) -> tuple[np.ndarray, bool]:
        """The rows encoded by the schema, and whether one may hold a missing value."""
        self._check_fitted()
        X = V.check_features(X, fitting=False)
        V.check_n_features(X, self.n_features_in_, type(self).__name__)
        return self.schema_.encode_rows(X)

    def apply(self, X) -> np.ndarray:
        """Id of the leaf that every row reaches (a Dask collection for a Dask X)."""
        if _is_dask(X):
            from . import dask as qdask

            return qdask.apply(self, X)
        X, missing = self._encode_rows(X)
        return self._check_fitted().apply(X, missing)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the class shares of the training weight at each row's leaf
        (Laplace-corrected with ``laplace=True``); see ``Tree.predict_proba``. A Dask X
        gives a Dask array."""
        if _is_dask(X):
            from . import dask as qdask

            return qdask.predict_proba(self, X)
        if self._multi_output:
            return multi_output.predict_proba(self, self._encode(X))
        X, missing = self._encode_rows(X)
        return self._check_fitted().predict_proba(X, laplace=bool(self.laplace),
                                                  missing=missing)

    @property
    def _multi_output(self) -> bool:
        return getattr(self, "n_outputs_", 1) > 1

    def predict_log_proba(self, X) -> np.ndarray:
        """Natural logarithm of ``predict_proba`` (-inf for a class of probability 0)."""
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return [np.log(p) for p in proba] if self._multi_output else np.log(proba)

    def predict(self, X) -> np.ndarray:
        """The most probable class of every row (ties: the first class).

        A class-interval tree returns ``unclassified`` for a row that fits no branch. With
        a multi-output y the result has one column per output. A Dask X gives a Dask Series
        (DataFrame X) or array.
        """
        if _is_dask(X):
            from . import dask as qdask

            return qdask.predict(self, X)
        if self._multi_output:
            return multi_output.predict(self, self._encode(X))
        X, missing = self._encode_rows(X)
        tree = self._check_fitted()
        labels = tree.predict_labels(X, self.classes_, self._tie_rtol, missing)
        if labels is not None:  # every row gets a class, looked up by the traversal
            return labels
        codes = tree.predict_codes(X, self._tie_rtol)
        lost = codes < 0  # no class has any probability
        has_lost = bool(lost.any())
        predicted = self.classes_.take(np.where(lost, 0, codes) if has_lost else codes)
        if self.algorithm == "interval" and has_lost:
            marker = self.unclassified_value_
            if marker is None or not np.can_cast(np.asarray(marker).dtype, predicted.dtype):
                predicted = predicted.astype(object)
            predicted[lost] = marker
        return predicted

    @property
    def _tie_rtol(self) -> float:
        """Relative distance within which two class probabilities tie in ``predict``
        (ties go to the first class): C4.5 only (``C45_TIE_RTOL``); 0 for the others."""
        return C45_TIE_RTOL if self.algorithm == "c45" else 0.0

    @property
    def unclassified_value_(self):
        """The value ``predict`` gives a row that fits no branch of a class-interval tree."""
        if not isinstance(self.unclassified, str) or self.unclassified != "auto":
            return self.unclassified
        return -1 if np.issubdtype(self.classes_.dtype, np.integer) else None

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of ``predict(X)`` against y."""
        predicted = self.predict(X)
        if self._multi_output:  # a row counts when every output is right
            correct = np.all(predicted == np.asarray(y), axis=1).astype(float)
            return float(np.average(correct, weights=sample_weight))
        truth = np.asarray(y, dtype=object if predicted.dtype == object else None).ravel()
        correct = (predicted == truth).astype(float)
        return float(np.average(correct, weights=sample_weight))

    def decision_path(self, X):
        """Nodes visited by every row, as a scipy sparse CSR indicator matrix."""
        X = self._encode(X)
        return self._check_fitted().decision_path(X)

    def pruned(self, cp: float) -> DecisionTreeClassifier:
        """A copy of this rpart model pruned at complexity ``cp`` (rpart's ``prune(fit,
        cp)``: the internal nodes of complexity above ``cp`` are kept; the cp table keeps
        its rows with CP >= cp; importance is recomputed). The model itself is unchanged.
        (``prune`` is the name of the parameter, so the method is ``pruned``.)"""
        fit = getattr(self, "rpart_fit_", None)
        if fit is None:
            self._check_fitted()
            raise ValueError(f"pruned(cp) needs a model fitted with algorithm='rpart'; this "
                             f"one is {self.algorithm!r}")
        from copy import deepcopy

        from .growing.rpart import prune_rpart
        from .growing.rpart_flat import attach_rpart_fit

        cp = P.check_non_negative("cp", cp)
        return attach_rpart_fit(deepcopy(self), prune_rpart(fit, cp), self.schema_,
                                has_feature_names=hasattr(self, "feature_names_in_"),
                                use_surrogates=self.tree_.rpart.use_surrogates)

    def get_depth(self) -> int:
        return self._check_fitted().max_depth

    def get_n_leaves(self) -> int:
        return self._check_fitted().n_leaves

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised total weighted impurity decrease brought by each feature (rpart:
        its ``variable_importance_``, surrogates included, normalised to sum 1)."""
        tree = self._check_fitted()
        if hasattr(self, "variable_importance_"):
            importances = np.zeros(self.n_features_in_)
            names = list(self.schema_.feature_names)
            for name, value in self.variable_importance_.items():
                importances[names.index(name)] = value
            total = importances.sum()
            return importances / total if total > 0 else importances
        weighted = tree.weighted_n_node_samples * tree.impurity
        importances = np.zeros(self.n_features_in_)
        for node in np.flatnonzero(tree.kind != LEAF):
            children = tree.children(node)
            importances[tree.feature[node]] += weighted[node] - weighted[children].sum()
        importances /= tree.weighted_n_node_samples[0]
        total = importances.sum()
        return importances / total if total > 0 else importances

    def to_source(self, language="python", function_name="predict", **options) -> str:
        """Source of a standalone predict function (Python or C; see
        ``quercus.export.codegen.to_source``)."""
        from .export.codegen import to_source

        return to_source(self, language, function_name, **options)

    def explain(self, X) -> list:
        """For every row, the path to its leaf (each test with the row's value) and the
        leaf's class counts: a list of ``quercus.explain.Explanation``, printable with
        ``str()`` (see ``quercus.explain.explain``)."""
        from .explain import explain

        return explain(self, X)

    # -- model files -----------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the fitted model to a JSON file (atomically; ``.xml``: seed 001's XML, for
        class-interval trees). Read it back with ``quercus.load_model``."""
        # the writer imports no estimator; imported here, not above, because importing any
        # quercus.export module runs quercus/export/__init__, whose model_file imports us
        from .export.model_writer import save_model

        if self._multi_output:
            raise ValueError("a multi-output model cannot be saved: model files (format "
                             "version 1) hold one output")
        save_model(self, path)


def _is_dask(obj) -> bool:
    """A Dask collection, by duck typing (Dask is imported only for one)."""
    return hasattr(obj, "__dask_graph__") and not isinstance(obj, type)


def _has_names(X) -> bool:
    return hasattr(X, "columns")


def _same(a, b) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return a is b
