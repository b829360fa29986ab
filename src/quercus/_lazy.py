"""Submodules as attributes of their package, imported on first use (PEP 562).

After a plain ``import quercus``, ``quercus.evaluation.cross_validate(...)`` works as the
README writes it: every public submodule (name not starting with ``_``) of ``quercus``,
``quercus.data`` and ``quercus.export`` is an attribute of its package, imported when first
used, so optional dependencies (matplotlib, onnx) are still loaded only when needed.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable


def submodule_attributes(package: str, path: Iterable[str],
                         namespace: dict) -> tuple[Callable, Callable]:
    """``__getattr__`` and ``__dir__`` for a package's ``__init__``: an unknown attribute
    that names a public submodule imports it."""
    names = frozenset(info.name for info in pkgutil.iter_modules(list(path))
                      if not info.name.startswith("_"))

    def __getattr__(name: str):
        if name in names:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | names)

    return __getattr__, __dir__
