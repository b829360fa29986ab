"""Exceptions raised for a user's mistakes.

Every message is one line that names the file, row, column or value at fault; the command
line prints it after ``quercus: error:`` and exits with status 2.
"""

from __future__ import annotations


class QuercusError(Exception):
    """Base class of the errors a user can cause and fix."""


class DataError(QuercusError, ValueError):
    """The data (a file, a column, a value) cannot be used as given."""


class ModelFileError(QuercusError, ValueError):
    """A model file is missing, malformed or of an unknown format version."""


class NotFittedError(QuercusError, AttributeError):
    """The estimator is used before ``fit``."""
