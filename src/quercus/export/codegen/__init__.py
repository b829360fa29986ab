"""Code generation: a fitted tree as a standalone Python or C function of nested if/else.

``to_source(model, language="python")`` writes a Python module (it imports only ``math``)
with ``predict(row)``, which returns the class label of one row of raw feature values, and
``predict_proba(row)``, which returns its class probabilities in ``CLASSES`` order.
``to_source(model, language="c")`` writes C99 (it includes only ``<math.h>``) with
``int predict(const double *row)``, which returns the class index, and
``void predict_proba(const double *row, double *out)``, both taking the *encoded* row
(``model.schema_.encode``: categorical features as codebook codes, a missing value NAN).

Both follow the tree exactly as ``model.predict`` / ``model.predict_proba`` do:

* every split is an ``if``/``else`` on one feature; a missing value takes the branch the
  tree learned for it (CART, the class-interval tree);
* at a node that sends a missing value down every branch (C4.5 and ID3,
  ``missing_branch == -1``), a row whose value is missing leaves the nested code: the
  generated source then also holds the tree as static tables, and a small explicit-stack
  loop descends every branch from that node, weighting each by its share of the node's
  training weight, as ``quercus._kernels._predict.proba_rows`` does (same order of
  operations, so the same numbers). Rows without such a missing value never touch the
  tables;
* ``predict`` takes the class with the highest probability (the first on a tie) from the
  probabilities without Laplace's correction, as the estimator does; ``predict_proba``
  applies the correction when the model was fitted with ``laplace=True``;
* a class-interval tree (``algorithm="interval"``) gives a row that fits no branch the
  model's ``unclassified_value_`` (Python) or -1 (C), and all-zero probabilities.

A regression tree (``DecisionTreeRegressor``) gives ``predict(row)`` (Python) or
``double predict(const double *row)`` (C) returning its leaf's mean target, the same
double ``model.predict`` gives, and no probability function; a ``TARGET`` constant (a
comment in C) names the target. A node that sends missing values down every branch (not
grown by the regressor, but the flat tree allows it) sends them to its heaviest child, as
``Tree.apply`` does. Invalid input raises the same ``ValueError`` in Python; C returns NAN.

Input validation follows the generated code of Accord.NET's ``DecisionTree.ToExpression``
(seed 002), which throws "Input contains a value outside of expected ranges." but checks
only the categories: Python raises ``ValueError("Input contains a value outside of
expected ranges: ...")`` and C's ``predict`` returns -2 (``predict_proba`` writes NAN to
every probability) when

* a categorical value is not in the feature's codebook (Python: not ``==`` to one of the
  category values; C: not one of the codes 0 .. n-1);
* a numeric value is not a number, or is infinite;
* with ``X=`` (or ``ranges=``), a numeric value lies outside the range of that feature in
  ``X``, the training data: the flat tree does not keep the training ranges, so they are
  only checked when you pass them;
* (Python) the row does not hold one value per feature.

A missing value is always valid (every node knows where it goes): ``None``, a float NaN,
``""`` or ``"?"`` in Python (the values ``Schema.encode`` treats as missing), NAN in C.

Deep trees: the nesting of one generated function is limited (Python refuses more than 100
levels of indentation), so a subtree deeper than ``MAX_NESTING`` levels becomes a helper
function that the parent calls; the code is generated with explicit stacks, never by
recursion.
"""

from __future__ import annotations

from ...errors import NotFittedError
from ...names import LANGUAGES
from ...rpart_routing import warn_surrogates_dropped
from ...tree import Tree
from .c_emitter import CEmitter
from .inputs import check_name, feature_ranges, resolve_ranges
from .model_info import C_INVALID, C_UNCLASSIFIED, MAX_NESTING, MESSAGE, ModelInfo
from .python_emitter import PythonEmitter

__all__ = ["C_INVALID", "C_UNCLASSIFIED", "LANGUAGES", "MAX_NESTING", "MESSAGE",
           "feature_ranges", "to_source"]


def to_source(model, language: str = "python", function_name: str = "predict", *,
              X=None, ranges=None) -> str:
    """Source code of a standalone function that predicts like ``model``.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model (any algorithm).
    language : {"python", "c"}
        ``"python"``: ``def predict(row)`` returning the class label and
        ``def predict_proba(row)`` returning the probabilities, over raw feature values.
        ``"c"``: ``int predict(const double *row)`` returning the class index (-1: a
        class-interval row that fits no branch, -2: invalid input) and
        ``void predict_proba(const double *row, double *out)``, over the encoded row.
        A regression tree's ``predict`` returns the mean target (C: ``double``, NAN for
        invalid input) and there is no probability function.
    function_name : str
        Name of the predict function; the probability function is ``<name>_proba`` and
        every helper starts with ``_<name>_`` (Python) or ``<name>_`` (C, all static).
    X : table, optional
        Training data (anything ``model.schema_.encode`` takes): the generated code then
        also refuses a numeric value outside the range ``[min, max]`` of its column in X.
    ranges : mapping or sequence, optional
        The ranges themselves instead of X: ``{feature name or index: (low, high)}`` or one
        ``(low, high)`` or None per feature; ``None`` for an end means unbounded.

    Returns
    -------
    str
        The source, ending with a newline.

    Raises
    ------
    ValueError
        An unknown language, a function name that is not a plain identifier of the
        language, X and ranges both given, a bad range or a range on a categorical
        feature, or an unclassified value that is not a literal (Python).
    TypeError
        ``ranges`` is neither a mapping nor a sequence.
    NotFittedError
        The model is not fitted.
    """
    warn_surrogates_dropped(model, "generated code")
    if not hasattr(model, "tree_"):
        raise NotFittedError(f"this {type(model).__name__} is not fitted yet; call fit first")
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of: {', '.join(LANGUAGES)}")
    check_name(function_name, language)
    if X is not None and ranges is not None:
        raise ValueError("give X or ranges, not both")
    bounds = feature_ranges(model, X) if X is not None else resolve_ranges(model, ranges)
    tree: Tree = model.tree_
    tree.validate()
    info = ModelInfo.of(model, tree, bounds)
    emitter = (PythonEmitter if language == "python" else CEmitter)(info, function_name)
    return emitter.source()
