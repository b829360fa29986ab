"""JSON model files: one document holding the parameters, the schema and the flat tree.

Loading only parses JSON; it never executes code from the file.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Callable
from importlib import metadata
from numbers import Integral, Real
from pathlib import Path
from typing import TextIO

import numpy as np

from ..errors import ModelFileError
from ..tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, Tree

__all__ = ["FORMAT", "FORMAT_VERSION", "load_model", "save_model", "write_atomically"]

FORMAT = "quercus-model"
FORMAT_VERSION = 1
ESTIMATOR = "DecisionTreeClassifier"
_ITEMS = "__items__"  # tags a dict stored as [key, value] pairs (keeps non-string keys)


def _quercus_version() -> str:
    try:
        return metadata.version("quercus")
    except metadata.PackageNotFoundError:
        return "unknown"


def _one_line(error: BaseException) -> str:
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
        return {_ITEMS: [[_param_to_json(name, k), _param_to_json(name, v)]
                         for k, v in value.items()]}
    raise ModelFileError(f"parameter {name} = {value!r} cannot be stored in a model file")


def _param_from_json(value):
    if isinstance(value, dict):
        if set(value) != {_ITEMS}:
            raise ValueError("a parameter holds an unknown object")
        return {_hashable(k): _param_from_json(v) for k, v in value[_ITEMS]}
    if isinstance(value, list):
        return [_param_from_json(v) for v in value]
    return value


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def _floats_to_json(values: list) -> list:
    """Replace +-inf (not valid JSON) with the strings "inf" / "-inf"."""
    return [("inf" if v > 0 else "-inf") if isinstance(v, float) and math.isinf(v) else v
            for v in values]


def _floats_from_json(values) -> list:
    if not isinstance(values, list):
        raise TypeError("a tree array is not a list")
    return [float(v) if v in ("inf", "-inf") else v for v in values]


def model_to_dict(model) -> dict:
    """The model-file document of a fitted model (raises NotFittedError if unfitted)."""
    tree = model._check_fitted()
    tree_dict = tree.to_dict()
    for name, values in tree_dict.items():
        if isinstance(values, list):
            tree_dict[name] = _floats_to_json(values)
    params = {name: _param_to_json(name, value) for name, value in model.get_params().items()}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "quercus_version": _quercus_version(),
        "estimator": ESTIMATOR,
        "params": params,
        "schema": model.schema_.to_json(),
        "has_feature_names": hasattr(model, "feature_names_in_"),
        "tree": tree_dict,
    }


def write_atomically(path, write: Callable[[TextIO], None]) -> None:
    """Create or replace the text file ``path`` with what ``write(handle)`` writes.

    The text goes to a temporary file in the same directory, which is flushed, synced and
    renamed over ``path``. On any error the temporary file is removed, an existing file at
    ``path`` is left untouched, and the error propagates.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, temp_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, 0o644)
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise


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
        from .interval_xml import save_xml

        model._check_fitted()
        try:
            return save_xml(model, path)
        except ValueError as error:
            raise ModelFileError(f"cannot write {path}: {_one_line(error)}") from error
    document = model_to_dict(model)

    def write(handle: TextIO) -> None:
        json.dump(document, handle, allow_nan=False, indent=1)
        handle.write("\n")

    try:
        write_atomically(path, write)
    except OSError as error:
        raise ModelFileError(f"cannot write model file {path}: "
                             f"{error.strerror or _one_line(error)}") from error
    except (TypeError, ValueError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise ModelFileError(f"cannot write model file {path}: {_one_line(error)}") from error


def load_model(path):
    """Read a model file written by ``save_model`` (``.xml``: seed 001's XML format).

    Returns
    -------
    DecisionTreeClassifier
        A fitted model that predicts exactly as the saved one.

    Raises
    ------
    ModelFileError
        The file is missing, is not valid JSON, is not a Quercus model file, has an unknown
        format version, or holds inconsistent data.
    """
    path = Path(path)
    if path.suffix.lower() == ".xml":  # seed 001's format
        from .interval_xml import load_xml

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
                             f"{_one_line(error)})") from error
    except RecursionError:
        raise ModelFileError(f"{path} is not a Quercus model file (JSON nested too deeply)") \
            from None
    return model_from_dict(document, path)


def model_from_dict(document, path="<model>"):
    """Rebuild a fitted model from a model-file document (see ``load_model``)."""
    from ..data.schema import Schema
    from ..estimator import DecisionTreeClassifier

    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a Quercus model file (no \"format\": \"{FORMAT}\")")
    _check_format_version(document, path)
    if document.get("estimator") != ESTIMATOR:
        raise ModelFileError(f"{path} holds an unknown estimator {document.get('estimator')!r}")
    for key in ("params", "schema", "has_feature_names", "tree"):
        if key not in document:
            raise ModelFileError(f"{path} is incomplete: no {key!r} entry")
    try:
        params = {str(k): _param_from_json(v) for k, v in dict(document["params"]).items()}
        model = DecisionTreeClassifier(**params)
        _check_params(model)
    except (TypeError, ValueError) as error:
        raise ModelFileError(f"{path} has bad estimator parameters: {_one_line(error)}") \
            from error
    try:
        schema = Schema.from_json(document["schema"])
    except Exception as error:  # any malformed schema document
        raise ModelFileError(f"{path} has a bad schema: {_one_line(error)}") from error
    try:
        raw = _with_later_arrays(dict(document["tree"]))
        _check_integers(raw)
        tree_dict = {k: _floats_from_json(v) if k != "n_classes" else v for k, v in raw.items()}
        tree = Tree.from_dict(tree_dict)
        _check_against_schema(tree, schema)
    except (KeyError, IndexError, TypeError, ValueError, OverflowError) as error:
        raise ModelFileError(f"{path} has inconsistent tree arrays: {_one_line(error)}") \
            from error
    if not isinstance(document["has_feature_names"], bool):
        raise ModelFileError(f"{path} has a bad 'has_feature_names' entry (not true or false)")
    model.tree_ = tree
    model._set_fitted(schema, document["has_feature_names"])
    return model


def _check_params(model) -> None:
    """Raise ValueError for parameters that prediction and printing rely on."""
    from ..learners import CRITERIA, LEARNERS

    if model.algorithm not in LEARNERS:
        raise ValueError(f"unknown algorithm {model.algorithm!r}")
    if model.criterion is not None and model.criterion not in CRITERIA[model.algorithm]:
        raise ValueError(f"criterion {model.criterion!r} is not one of {model.algorithm}'s")
    if not isinstance(model.laplace, bool):
        raise ValueError(f"laplace must be true or false, got {model.laplace!r}")


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
                             f"Quercus ({_quercus_version()}), which reads format version "
                             f"{FORMAT_VERSION}; upgrade Quercus to load it")
    raise ModelFileError(f"{path} has an unknown model format version {version!r}; this "
                         f"Quercus ({_quercus_version()}) reads format version "
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


_INTEGER_ARRAYS = ("kind", "feature", "child_ptr", "child_ids", "missing_branch",
                   "category_ptr", "category_branch", "n_node_samples", "interval_class")


def _check_integers(raw: dict) -> None:
    """Raise TypeError unless the integer arrays hold only integers (numpy would silently
    truncate 0.5 to 0 or read true as 1)."""
    for name in _INTEGER_ARRAYS:
        values = raw.get(name)
        if isinstance(values, list) and not all(type(v) is int for v in values):
            raise TypeError(f"the {name!r} array must hold only integers")


def _check_against_schema(tree: Tree, schema) -> None:
    """Raise ValueError where the tree does not fit the schema's features and classes."""
    if tree.n_classes != len(schema.classes):
        raise ValueError(f"the tree has {tree.n_classes} classes, the schema "
                         f"{len(schema.classes)}")
    inner = np.flatnonzero(tree.kind != LEAF)
    features = tree.feature[inner]
    if np.any(features < 0) or np.any(features >= len(schema.features)):
        raise ValueError("a node tests a feature that the schema does not have")
    for node in inner[tree.kind[inner] == CATEGORICAL]:
        spec = schema.features[int(tree.feature[node])]
        if spec.kind != "categorical":
            raise ValueError(f"node {node} splits the numeric feature {spec.name!r} by category")
    if not np.all(np.isfinite(tree.value)) or np.any(tree.value < 0):
        raise ValueError("class weights must be finite and non-negative")
    _check_structure(tree, schema)


def _check_structure(tree: Tree, schema) -> None:
    """What prediction and the exporters assume beyond ``Tree.validate``: the offsets
    ascend from 0, every node but the root is the child of exactly one node (so weighted
    descent visits each node once), numeric and interval nodes have two children, a
    category map has one entry per category, and weights are finite and non-negative."""
    for name in ("child_ptr", "category_ptr"):
        ptr = getattr(tree, name)
        if ptr[0] != 0 or np.any(np.diff(ptr) < 0):
            raise ValueError(f"{name} must ascend from 0")
    if not np.array_equal(np.sort(tree.child_ids), np.arange(1, tree.n_nodes)):
        raise ValueError("child_ids must list every node but the root exactly once")
    n_children = np.diff(tree.child_ptr)
    binary = (tree.kind == NUMERIC) | (tree.kind == INTERVAL)
    if np.any(n_children[binary] != 2):
        node = int(np.flatnonzero(binary & (n_children != 2))[0])
        raise ValueError(f"node {node} is a binary split with {n_children[node]} children")
    map_sizes = np.diff(tree.category_ptr)
    for node in np.flatnonzero(tree.kind == CATEGORICAL):
        n_categories = schema.features[int(tree.feature[node])].n_categories
        if map_sizes[node] != n_categories:
            raise ValueError(f"node {node} maps {map_sizes[node]} categories, its feature has "
                             f"{n_categories}")
    intervals = tree.kind == INTERVAL
    if np.any((tree.interval_class[intervals] < 0)
              | (tree.interval_class[intervals] >= tree.n_classes)):
        raise ValueError("an interval node names a class that the schema does not have")
    weights = tree.weighted_n_node_samples
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("node weights must be finite and non-negative")
