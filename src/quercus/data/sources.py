"""Data files on disk: their format by name, and compressed CSV opened as text.

A CSV file may be compressed (``.csv.gz``, ``.csv.bz2``, ``.csv.zip`` holding one file,
``.csv.xz``): pandas decompresses it itself; the ``csv``-module paths (delimiter
detection, the header, line numbers for error messages) open it through
:func:`open_binary`, so every message names the same lines as for the plain file.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import zipfile
import zlib
from pathlib import Path
from typing import IO

from quercus.errors import DataError

#: What reading a damaged or mislabelled compressed file raises (besides UnicodeDecodeError).
READ_ERRORS = (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError, zlib.error)

#: Compression suffixes read for CSV files, and pandas' name of each.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz"}


def compression_of(path: str | os.PathLike) -> str | None:
    """pandas' name of the file's compression (by its suffix), or None."""
    return COMPRESSIONS.get(Path(path).suffix.lower())


def data_format(path: str | os.PathLike) -> str:
    """``"csv"``, ``"arff"`` or ``"parquet"`` by the file name (``x.csv.gz`` is CSV).

    Raises
    ------
    DataError
        For any other name.
    """
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in COMPRESSIONS:
        if len(suffixes) >= 2 and suffixes[-2] in (".csv", ".tsv", ".txt"):
            return "csv"
        raise DataError(f"{path}: compressed data must be a CSV file (name it "
                        f"data.csv{suffixes[-1]})")
    last = suffixes[-1] if suffixes else ""
    if last in (".csv", ".tsv", ".txt"):
        return "csv"
    if last == ".arff":
        return "arff"
    if last in (".parquet", ".pq"):
        return "parquet"
    raise DataError(f"{path}: unknown data format '{last or path}'; use a .csv (optionally "
                    ".gz, .bz2, .zip or .xz), .arff or .parquet file")


def open_binary(name: str) -> IO[bytes]:
    """The file's bytes, decompressed when its name ends in a compression suffix."""
    kind = compression_of(name)
    if kind == "gzip":
        return gzip.open(name, "rb")
    if kind == "bz2":
        return bz2.open(name, "rb")
    if kind == "xz":
        return lzma.open(name, "rb")
    if kind == "zip":
        archive = zipfile.ZipFile(name)
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) != 1:
            archive.close()
            raise DataError(f"{name}: a zip file must hold exactly one file, it holds "
                            f"{len(members)}")
        return archive.open(members[0])
    return open(name, "rb")


def open_text(name: str, **kw) -> IO[str]:
    """The file as UTF-8 text (a byte-order mark skipped), decompressed when needed."""
    kw.setdefault("encoding", "utf-8-sig")
    return io.TextIOWrapper(open_binary(name), **kw)


def read_errors(name: str, error: Exception) -> DataError:
    """A one-line DataError for an error raised while decompressing or reading."""
    if isinstance(error, OSError) and error.strerror:
        return DataError(f"{name}: cannot read the file ({error.strerror})")
    text = " ".join(str(error).split()) or type(error).__name__
    return DataError(f"{name}: cannot read the file ({text})")


def find_bad_byte(name: str) -> DataError | None:
    """A DataError naming the line and column of the first byte that is not UTF-8."""
    try:
        with open_binary(name) as fh:
            for number, line in enumerate(fh, 1):
                try:
                    line.decode("utf-8")  # a byte-order mark is valid UTF-8 too
                except UnicodeDecodeError as exc:
                    offset = exc.start
                    return DataError(f"{name}: line {number}, column {offset + 1}: not UTF-8 "
                                     f"text (byte 0x{line[offset]:02x}: {exc.reason}); save the "
                                     "file as UTF-8")
    except READ_ERRORS as exc:
        return read_errors(name, exc)
    return None
