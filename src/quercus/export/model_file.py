"""Model files: reading them back into fitted estimators, and the one module to import
for model files (it re-exports the writer's ``save_model``, ``model_to_dict`` and format
constants).

Loading only parses JSON (or seed 001's XML); it never executes code from the file, and it
checks every index of the tree before the model is used (``model_checks``). The writer,
``model_writer``, imports no estimator, so the estimator's ``save`` delegates to it without
an import circle; this module imports the estimator, the writer and the XML reader.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..data.schema import Schema
from ..errors import ModelFileError
from ..estimator import DecisionTreeClassifier
from ..learners import ALGORITHMS, CRITERIA
from ..regressor import DecisionTreeRegressor
from ..splitting.regression import REGRESSION_CRITERIA
from ..tree import Tree
from .atomic import write_atomically
from .interval_xml import read_xml
from .model_checks import check_tree
from .model_writer import (
    C45_CV,
    ESTIMATOR,
    FORMAT,
    FORMAT_VERSION,
    ITEMS_TAG,
    REGRESSOR,
    model_to_dict,
    one_line,
    quercus_version,
    save_model,
)
from .rpart_entries import read_rpart_entries

__all__ = ["FORMAT", "FORMAT_VERSION", "load_model", "load_xml", "model_from_dict",
           "model_to_dict", "save_model", "write_atomically"]


def _param_from_json(value):
    if isinstance(value, dict):
        if set(value) != {ITEMS_TAG}:
            raise ValueError("a parameter holds an unknown object")
        return {_hashable(k): _param_from_json(v) for k, v in value[ITEMS_TAG]}
    if isinstance(value, list):
        return [_param_from_json(v) for v in value]
    return value


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def _floats_from_json(values) -> list:
    if not isinstance(values, list):
        raise TypeError("a tree array is not a list")
    return [float(v) if v in ("inf", "-inf") else v for v in values]


def _fitted(model: DecisionTreeClassifier, tree: Tree, schema: Schema,
            has_feature_names: bool) -> DecisionTreeClassifier:
    """``model`` (unfitted, with the file's parameters) fitted with the file's tree and
    schema: the one place a model file becomes an estimator."""
    model.tree_ = tree
    model._set_fitted(schema, has_feature_names)
    return model


def load_model(path):
    """Read a model file written by ``save_model`` (``.xml``: seed 001's XML format).

    Returns
    -------
    DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model that predicts exactly as the saved one.

    Raises
    ------
    ModelFileError
        The file is missing, is not valid JSON, is not a Quercus model file, has an unknown
        format version, or holds inconsistent data.
    """
    path = Path(path)
    if path.suffix.lower() == ".xml":  # seed 001's format
        return load_xml(path)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError as error:
        raise ModelFileError(f"model file {path} does not exist") from error
    except OSError as error:
        raise ModelFileError(f"cannot read model file {path}: {error.strerror or error}") \
            from error
    except (UnicodeDecodeError, ValueError) as error:  # JSONDecodeError is a ValueError
        raise ModelFileError(f"{path} is not a Quercus model file (invalid JSON: "
                             f"{one_line(error)})") from error
    except RecursionError:
        raise ModelFileError(f"{path} is not a Quercus model file (JSON nested too deeply)") \
            from None
    return model_from_dict(document, path)


def model_from_dict(document, path="<model>"):
    """Rebuild a fitted model from a model-file document (see ``load_model``)."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a Quercus model file (no \"format\": \"{FORMAT}\")")
    _check_format_version(document, path)
    estimator = document.get("estimator")
    regression = estimator == REGRESSOR
    if estimator != ESTIMATOR and not regression:
        raise ModelFileError(f"{path} holds an unknown estimator {document.get('estimator')!r}")
    for key in ("params", "schema", "has_feature_names", "tree"):
        if key not in document:
            raise ModelFileError(f"{path} is incomplete: no {key!r} entry")
    try:
        params = {str(k): _param_from_json(v) for k, v in dict(document["params"]).items()}
        if regression:
            model = DecisionTreeRegressor(**params)
            if model.criterion not in REGRESSION_CRITERIA:
                raise ValueError(f"unknown criterion {model.criterion!r}")
        else:
            model = DecisionTreeClassifier(**params)
            _check_params(model)
    except (TypeError, ValueError) as error:
        raise ModelFileError(f"{path} has bad estimator parameters: {one_line(error)}") \
            from error
    try:
        schema = Schema.from_json(document["schema"])
    except Exception as error:  # any malformed schema document
        raise ModelFileError(f"{path} has a bad schema: {one_line(error)}") from error
    try:
        raw = _with_later_arrays(dict(document["tree"]))
        _check_integers(raw)
        tree_dict = {k: _floats_from_json(v) if k not in ("n_classes", "rpart") else v
                     for k, v in raw.items()}
        tree = Tree.from_dict(tree_dict)
        check_tree(tree, schema, regression=regression)
    except (KeyError, IndexError, TypeError, ValueError, OverflowError) as error:
        raise ModelFileError(f"{path} has inconsistent tree arrays: {one_line(error)}") \
            from error
    if not isinstance(document["has_feature_names"], bool):
        raise ModelFileError(f"{path} has a bad 'has_feature_names' entry (not true or false)")
    model = _fitted(model, tree, schema, document["has_feature_names"])
    selection = document.get("selection")  # written for a model that algorithm="auto" chose
    if isinstance(selection, dict) and isinstance(selection.get("summary"), str):
        model.selection_summary_ = selection["summary"]
    read_rpart_entries(model, document, path)
    if C45_CV in document:
        _set_c45_cv(model, document[C45_CV], path)
    if "chosen_cp" in document:
        chosen = document["chosen_cp"]
        if type(chosen) not in (int, float) or not chosen >= 0 or "cp_table" not in document:
            raise ModelFileError(f"{path} has a bad 'chosen_cp' entry: {chosen!r} (a number "
                                 f">= 0, with a 'cp_table')")
        model.chosen_cp_ = float(chosen)
    return model


def _set_c45_cv(model, entry, path) -> None:
    """Restore ``best_params_`` and ``cv_results_`` of a C4.5 fitted with ``prune="cv"``."""
    import pandas as pd

    try:
        best = dict(entry["best_params"])
        confidence, leaf = best["confidence"], best["min_samples_leaf"]
        if not (isinstance(confidence, float) and 0.0 < confidence < 1.0):
            raise ValueError(f"confidence {confidence!r} is not in (0, 1)")
        if type(leaf) is not int or leaf < 1:
            raise ValueError(f"min_samples_leaf {leaf!r} is not an int >= 1")
        columns = dict(entry["cv_results"])
        if not all(isinstance(v, list) for v in columns.values()):
            raise ValueError("a cv_results column is not a list")
        table = pd.DataFrame(columns)
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path} has a bad {C45_CV!r} entry: {one_line(error)}") \
            from error
    model.best_params_ = {"confidence": confidence, "min_samples_leaf": leaf}
    model.cv_results_ = table


def load_xml(path) -> DecisionTreeClassifier:
    """Read a seed-format XML tree (``interval_xml.read_xml``) into a fitted
    ``DecisionTreeClassifier(algorithm="interval")``."""
    schema, tree = read_xml(path)
    return _fitted(DecisionTreeClassifier(algorithm="interval"), tree, schema, False)


def _check_params(model) -> None:
    """Raise ValueError or TypeError for parameters that prediction and printing rely on."""
    if model.algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {model.algorithm!r}")
    if model.criterion is not None and model.criterion not in CRITERIA[model.algorithm]:
        raise ValueError(f"criterion {model.criterion!r} is not one of {model.algorithm}'s")
    if not isinstance(model.laplace, bool):
        raise TypeError(f"laplace must be true or false, got {model.laplace!r}")
    if model.unclassified is not None and not isinstance(model.unclassified, (str, int, float)):
        raise TypeError(f"unclassified must be a single value, got {model.unclassified!r}")


def _check_format_version(document: dict, path) -> None:
    """Refuse a file of another format version, naming the file and both versions.

    Compatibility promise (docs/architecture.md, "Model files"): every file of format
    version 1 .. FORMAT_VERSION loads (tests/test_model_compat.py keeps fixtures of each);
    a newer version is refused, since its meaning may have changed.
    """
    version = document.get("format_version")
    known = isinstance(version, int) and not isinstance(version, bool)
    if known and 1 <= version <= FORMAT_VERSION:
        return
    if known and version > FORMAT_VERSION:
        writer = document.get("quercus_version")
        by = f" (written by Quercus {writer})" if isinstance(writer, str) else ""
        raise ModelFileError(f"{path} has model format version {version}{by}, newer than this "
                             f"Quercus ({quercus_version()}), which reads format version "
                             f"{FORMAT_VERSION}; upgrade Quercus to load it")
    raise ModelFileError(f"{path} has an unknown model format version {version!r}; this "
                         f"Quercus ({quercus_version()}) reads format version "
                         f"{FORMAT_VERSION}")


def _with_later_arrays(raw: dict) -> dict:
    """The tree entry with the arrays added to format version 1 after its first files:
    the class-interval arrays (-1 and missing everywhere before that learner existed) and
    ``empty`` (see ``_with_empty_flags``)."""
    kind = raw.get("kind")
    if ("interval_high" not in raw or "interval_class" not in raw) and isinstance(kind, list):
        if "interval_high" in raw or "interval_class" in raw:
            raise TypeError("the tree has only one of 'interval_high' and 'interval_class'")
        raw = {**raw, "interval_high": [None] * len(kind), "interval_class": [-1] * len(kind)}
    return _with_empty_flags(raw)


def _with_empty_flags(raw: dict) -> dict:
    """The tree entry with a checked ``empty`` array (C4.5 and ID3 leaves that received no
    training rows); files written before that array existed get all False."""
    if "empty" not in raw:
        kind = raw.get("kind")
        if not isinstance(kind, list):
            raise TypeError("the tree has no 'kind' array")
        return {**raw, "empty": [False] * len(kind)}
    empty = raw["empty"]
    if not isinstance(empty, list) or not all(isinstance(v, bool) for v in empty):
        raise TypeError("the 'empty' array must hold only true and false")
    return raw


_INTEGER_ARRAYS = ("kind", "feature", "child_ptr", "child_ids", "missing_branch", "n_missing",
                   "category_ptr", "category_branch", "n_node_samples", "interval_class")


def _check_integers(raw: dict) -> None:
    """Raise TypeError unless the integer arrays (and ``n_classes``) hold only integers
    (numpy would silently truncate 0.5 to 0 or read true as 1)."""
    if type(raw.get("n_classes")) is not int:
        raise TypeError(f"'n_classes' must be an integer, not {raw.get('n_classes')!r}")
    for name in _INTEGER_ARRAYS:
        values = raw.get(name)
        if isinstance(values, list) and not all(type(v) is int for v in values):
            raise TypeError(f"the {name!r} array must hold only integers")
