"""Create or replace a file atomically: the model files, reports, pictures and exports."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

__all__ = ["write_atomically"]


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
