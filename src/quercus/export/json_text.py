"""Indented JSON text, the same bytes as ``json.dumps(value, indent=1, allow_nan=False)``.

``json.dumps`` with an indent runs Python's own encoder, element by element: about 0.2 s
for the model file of a C4.5 tree of 4,000 leaves, most of a fast command's write. The
long parts of Quercus's documents are flat lists of numbers; ``dumps_indented`` encodes
those with the C encoder (no indent, ``", "`` between items, which numbers never contain)
and puts the line breaks in, and walks the rest as the Python encoder does.
"""

from __future__ import annotations

import json

__all__ = ["dumps_indented"]

_NUMBERS = (int, float, bool, type(None))  # exact types whose JSON text holds no ", "
_compact = json.JSONEncoder(allow_nan=False).encode  # the C encoder (no indent)


def dumps_indented(value) -> str:
    """``json.dumps(value, indent=1, allow_nan=False)``, faster on long lists of numbers.

    Raises what ``json.dumps`` raises (TypeError for a value JSON cannot hold, ValueError
    for NaN or infinity); anything but str-keyed dicts, lists, tuples and plain scalars is
    left to ``json.dumps`` whole, so the text is always the same.
    """
    parts: list[str] = []
    try:
        _encode(value, 0, parts)
    except _Unusual:
        return json.dumps(value, indent=1, allow_nan=False)
    return "".join(parts)


class _Unusual(Exception):
    """A value the walk does not mimic (a non-str key, a subclass): json.dumps does it."""


def _encode(value, level: int, parts: list[str]) -> None:
    kind = type(value)
    if kind is dict:
        if not value:
            parts.append("{}")
            return
        inner = "\n" + " " * (level + 1)
        opening = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            parts.append(opening + _compact(key) + ": ")
            _encode(item, level + 1, parts)
            opening = "," + inner
        parts.append("\n" + " " * level + "}")
    elif kind is list or kind is tuple:
        if not value:
            parts.append("[]")
            return
        inner = "\n" + " " * (level + 1)
        if all(type(item) in _NUMBERS for item in value):
            flat = _compact(value)  # "[a, b, c]"
            parts.append("[" + inner + flat[1:-1].replace(", ", "," + inner)
                         + "\n" + " " * level + "]")
            return
        opening = "[" + inner
        for item in value:
            parts.append(opening)
            _encode(item, level + 1, parts)
            opening = "," + inner
        parts.append("\n" + " " * level + "]")
    elif kind in _NUMBERS or kind is str:
        parts.append(_compact(value))
    else:
        raise _Unusual
