"""Data layer: schemas and codebooks, and the CSV and ARFF readers."""

from quercus.data.arff_reader import read_arff
from quercus.data.csv_reader import read_csv
from quercus.data.schema import Codebook, Dataset, FeatureSpec, Schema, infer_schema

__all__ = [
    "Codebook",
    "Dataset",
    "FeatureSpec",
    "Schema",
    "infer_schema",
    "read_arff",
    "read_csv",
]
