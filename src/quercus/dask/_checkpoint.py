"""Checkpoints of a cluster fit's growth state, written atomically after each level."""

from __future__ import annotations

import os
import pickle
import tempfile

from ..errors import DataError

_MAGIC = "quercus-dask-checkpoint-1"


def save(path, fingerprint: bytes, state: dict) -> None:
    """Write ``state`` to ``path`` through a temporary file in the same directory."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".quercus-checkpoint-", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            pickle.dump((_MAGIC, fingerprint, state), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def load(path, fingerprint: bytes) -> dict:
    """The state saved at ``path``, refusing a checkpoint of other data or parameters.

    A checkpoint is a pickle: load only files you wrote."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as source:
            magic, saved, state = pickle.load(source)
    except (OSError, pickle.UnpicklingError, ValueError, EOFError) as exc:
        raise DataError(f"{path}: not a readable Quercus checkpoint ({exc})") from None
    if magic != _MAGIC:
        raise DataError(f"{path}: not a Quercus checkpoint")
    if saved != fingerprint:
        raise DataError(f"{path}: the checkpoint was made with other data, bins or "
                        f"parameters")
    return state
