"""Data layer: schemas and codebooks, and the CSV and ARFF readers."""

from quercus._lazy import submodule_attributes
from quercus.data.arff_reader import read_arff
from quercus.data.csv_reader import read_csv
from quercus.data.schema import Codebook, Dataset, FeatureSpec, Schema, infer_schema

# every public submodule is an attribute, imported on first use (quercus/_lazy.py)
__getattr__, __dir__ = submodule_attributes(__name__, __path__, globals())
del submodule_attributes

__all__ = [
    "Codebook",
    "Dataset",
    "FeatureSpec",
    "Schema",
    "infer_schema",
    "read_arff",
    "read_csv",
]
