"""Writing model files: the JSON document of a fitted model, or seed 001's XML.

Writing needs only a fitted model's attributes, so this module imports no estimator:
``DecisionTreeClassifier.save`` delegates here, and ``model_file`` (which reads files back
into estimators) imports this module, never the other way round.
"""

from __future__ import annotations

import math
from importlib import metadata
from numbers import Integral, Real
from pathlib import Path
from typing import TextIO

import numpy as np

from ..errors import ModelFileError
from .atomic import write_atomically
from .interval_xml import save_xml
from .json_text import dumps_indented
from .rpart_entries import rpart_entries

__all__ = ["ESTIMATOR", "FORMAT", "FORMAT_VERSION", "ITEMS_TAG", "model_to_dict",
           "one_line", "quercus_version", "save_model"]

FORMAT = "quercus-model"
FORMAT_VERSION = 1
ESTIMATOR = "DecisionTreeClassifier"
#: A regression tree's file names its estimator; Quercus versions before regression trees
#: refuse such a file ("unknown estimator"), so the format version stays 1.
REGRESSOR = "DecisionTreeRegressor"
ITEMS_TAG = "__items__"  # tags a dict stored as [key, value] pairs (keeps non-string keys)


def quercus_version() -> str:
    """The installed Quercus version, as written into model files."""
    try:
        return metadata.version("quercus")
    except metadata.PackageNotFoundError:
        return "unknown"


def one_line(error: BaseException) -> str:
    """An exception's message on one line (its type's name if it has none)."""
    return " ".join(str(error).split()) or type(error).__name__


def _param_to_json(name: str, value):
    """A parameter value as JSON data: tuples and arrays become lists, dicts tagged pairs."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, np.random.RandomState):  # used up by fit; prediction needs no seed
        return None
    if isinstance(value, np.generic):
        return _param_to_json(name, value.item())
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real):
        if not math.isfinite(value):
            raise ModelFileError(f"parameter {name} = {value!r} cannot be stored in a model file")
        return float(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_param_to_json(name, v) for v in value]
    if isinstance(value, dict):
        return {ITEMS_TAG: [[_param_to_json(name, k), _param_to_json(name, v)]
                            for k, v in value.items()]}
    raise ModelFileError(f"parameter {name} = {value!r} cannot be stored in a model file")


def _floats_to_json(values: list) -> list:
    """Replace +-inf (not valid JSON) with the strings "inf" / "-inf"."""
    if math.inf not in values and -math.inf not in values:  # one C-level scan (most lists)
        return values
    return [("inf" if v > 0 else "-inf") if isinstance(v, float) and math.isinf(v) else v
            for v in values]


def model_to_dict(model) -> dict:
    """The model-file document of a fitted model (raises NotFittedError if unfitted)."""
    tree = model._check_fitted()
    tree_dict = tree.to_dict()
    for name, values in tree_dict.items():
        if isinstance(values, list):
            tree_dict[name] = _floats_to_json(values)
    chosen = _auto_choice(model)
    params_of = model if chosen is None else chosen  # "auto": saved as the chosen learner
    params = {name: _param_to_json(name, value)
              for name, value in params_of.get_params().items()}
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "quercus_version": quercus_version(),
        "estimator": REGRESSOR if model._estimator_type == "regressor" else ESTIMATOR,
        "params": params,
        "schema": model.schema_.to_json(),
        "has_feature_names": hasattr(model, "feature_names_in_"),
        "tree": tree_dict,
        **rpart_entries(model),  # cp table, rpart's importance: only when the model has them
    }
    if getattr(model, "best_params_", None) is not None:
        document[C45_CV] = c45_cv_to_json(model)
    if getattr(model, "chosen_cp_", None) is not None:  # CART with prune (its cp table:
        document["chosen_cp"] = float(model.chosen_cp_)  # rpart_entries)
    if chosen is not None:
        document["selection"] = _selection_entry(model)
    return document


#: The optional entry of a C4.5 model fitted with ``prune="cv"``: the chosen settings and
#: the table of the search. Readers that predate it ignore it (the tree alone predicts).
C45_CV = "c45_cv"


def c45_cv_to_json(model) -> dict:
    """``best_params_`` and ``cv_results_`` (column by column) as JSON data."""
    table = model.cv_results_
    return {"best_params": {"confidence": float(model.best_params_["confidence"]),
                            "min_samples_leaf": int(model.best_params_["min_samples_leaf"])},
            "cv_results": {str(name): table[name].tolist() for name in table.columns}}


def _auto_choice(model):
    """The refitted winner of an ``algorithm="auto"`` model (None for any other model)."""
    if getattr(model, "algorithm", None) != "auto":
        return None
    return model.best_estimator_


def _selection_entry(model) -> dict:
    """How ``auto`` chose: its one-line account and the candidates' table (older Quercus
    versions ignore this entry; the model loads as the chosen learner)."""
    def cell(value):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, (Real, np.generic)) and not isinstance(value, Integral):
            return None if not math.isfinite(float(value)) else float(value)
        return value.item() if isinstance(value, np.generic) else value

    table = model.selection_
    return {"summary": model.selection_summary_, "chosen": model.chosen_["name"],
            "candidates": [{k: cell(v) for k, v in row.items()}
                           for row in table.to_dict(orient="records")]}


def save_model(model, path) -> None:
    """Write a fitted model to ``path`` as one JSON document, atomically (a path ending in
    ``.xml`` gets seed 001's XML format, for class-interval trees).

    Raises
    ------
    NotFittedError
        The model is not fitted.
    ModelFileError
        The file cannot be written (an existing file is then left untouched).
    """
    if Path(path).suffix.lower() == ".xml":  # seed 001's format, class-interval trees only
        model._check_fitted()
        try:
            return save_xml(model, path)
        except ValueError as error:
            raise ModelFileError(f"cannot write {path}: {one_line(error)}") from error
    document = model_to_dict(model)

    def write(handle: TextIO) -> None:
        # one string, one write: the same text as json.dump, without its many small writes
        handle.write(dumps_indented(document) + "\n")

    try:
        write_atomically(path, write)
    except OSError as error:
        raise ModelFileError(f"cannot write model file {path}: "
                             f"{error.strerror or one_line(error)}") from error
    except (TypeError, ValueError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise ModelFileError(f"cannot write model file {path}: {one_line(error)}") from error
