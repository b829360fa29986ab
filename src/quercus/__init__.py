"""Quercus: learn, inspect and serve decision-tree classifiers."""

from ._lazy import submodule_attributes

__version__ = "0.1.0"

# the public names, each imported from its module on first use, so that ``import quercus``
# alone imports neither numpy nor pandas (quercus/_lazy.py); every public submodule is an
# attribute too, imported on first use
_ATTRIBUTES = {
    "best_split": ".criteria",
    "gain_ratio": ".criteria",
    "impurity": ".criteria",
    "information_gain": ".criteria",
    "Codebook": ".data",
    "Dataset": ".data",
    "FeatureSpec": ".data",
    "Schema": ".data",
    "read_arff": ".data",
    "read_csv": ".data",
    "read_data": ".data",
    "read_parquet": ".data",
    "DataError": ".errors",
    "ModelFileError": ".errors",
    "NotFittedError": ".errors",
    "QuercusError": ".errors",
    "DecisionTreeClassifier": ".estimator",
    "load_model": ".export.model_file",
    "DecisionTreeRegressor": ".regressor",
}
__getattr__, __dir__ = submodule_attributes(__name__, __path__, globals(), _ATTRIBUTES)
del submodule_attributes, _ATTRIBUTES

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
