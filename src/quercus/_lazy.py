"""Attributes of a package imported on first use (PEP 562).

After a plain ``import quercus``, ``quercus.evaluation.cross_validate(...)`` works as the
README writes it: every public submodule (name not starting with ``_``) of ``quercus``,
``quercus.data`` and ``quercus.export`` is an attribute of its package, imported when first
used, so optional dependencies (matplotlib, onnx) are still loaded only when needed.

A package may also name attributes of its submodules (``quercus.DecisionTreeClassifier``
from ``quercus.estimator``): they too are imported on first use, so that ``import quercus``
alone imports neither numpy nor pandas (``quercus --help`` starts fast, issue 39).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping


def submodule_attributes(package: str, path: Iterable[str], namespace: dict,
                         attributes: Mapping[str, str] | None = None,
                         ) -> tuple[Callable, Callable]:
    """``__getattr__`` and ``__dir__`` for a package's ``__init__``: an unknown attribute
    that names a public submodule imports it; one of ``attributes`` (name -> the submodule
    that defines it, relative to the package, e.g. ``".estimator"``) imports that
    submodule and is kept in ``namespace``, the package's globals."""
    names = frozenset(info.name for info in pkgutil.iter_modules(list(path))
                      if not info.name.startswith("_"))
    attributes = dict(attributes or {})

    def __getattr__(name: str):
        if name in attributes:
            value = getattr(importlib.import_module(attributes[name], package), name)
            namespace[name] = value  # found without __getattr__ from now on
            return value
        if name in names:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | names | set(attributes))

    return __getattr__, __dir__
