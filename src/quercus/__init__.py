"""Quercus: learn, inspect and serve decision-tree classifiers."""

from . import datasets
from ._lazy import submodule_attributes
from .criteria import best_split, gain_ratio, impurity, information_gain
from .data import (
    Codebook,
    Dataset,
    FeatureSpec,
    Schema,
    read_arff,
    read_csv,
    read_data,
    read_parquet,
)
from .errors import DataError, ModelFileError, NotFittedError, QuercusError
from .estimator import DecisionTreeClassifier
from .export.model_file import load_model
from .regressor import DecisionTreeRegressor

__version__ = "0.1.0"

# every public submodule is an attribute, imported on first use (quercus/_lazy.py)
__getattr__, __dir__ = submodule_attributes(__name__, __path__, globals())
del submodule_attributes

__all__ = [
    "Codebook",
    "DataError",
    "Dataset",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "FeatureSpec",
    "ModelFileError",
    "NotFittedError",
    "QuercusError",
    "Schema",
    "__version__",
    "best_split",
    "datasets",
    "gain_ratio",
    "impurity",
    "information_gain",
    "load_model",
    "read_arff",
    "read_csv",
    "read_data",
    "read_parquet",
]
