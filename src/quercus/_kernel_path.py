"""Which copy of the kernels a call runs: numba's compiled one, or a pure Python copy.

A small fit or prediction runs the ``_kernels`` modules as plain Python: a second copy of
each module, loaded from the same source with ``njit`` the identity, ``prange`` ``range``
and typed lists Python lists, so it needs neither numba's compiler nor its cache (nor even
``import numba``). The results are the compiled ones bit for bit: inside jitted functions
``array.sum()`` becomes numba's sum in order and ``np.log``/``np.log2``/``np.exp`` of a
number the C library's (numba's; numpy's own scalar log can differ in the last bit).

Orchestrating modules take kernel names through ``kernels(module, *names)``: constants
come from the pure copy; functions and classes become switches that call the copy of the
current mode. ``use_pure(rows, features)`` sets the mode for a block: pure Python when
rows x features is at most ``PURE_MAX_WORK`` and the process has spent less than
``PURE_BUDGET`` seconds in pure blocks (a loop of many small fits then pays numba's set-up
once instead of running slowly for ever). ``QUERCUS_KERNELS=pure`` or ``compiled`` forces
either copy (for testing; ``auto`` is the default).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import contextvars
import importlib
import importlib.util
import marshal
import math
import os
import sys
import time
import types

import numpy as np

PACKAGE = "quercus._kernels"
PURE_PACKAGE = "quercus._pure_kernels"
PURE_MAX_WORK = 8_000  # rows x features (C4.5 on 1000 x 8 takes ~0.5 s pure)
PURE_BUDGET = 2.0  # seconds of pure blocks per process before small inputs go compiled
MODES = ("auto", "pure", "compiled")
PURE_FORMAT = 1  # of the cached transformed code: raise it when _Purify changes

_pure = contextvars.ContextVar("quercus_pure_kernels", default=False)
_spent = [0.0]
_modules: dict[str, types.ModuleType] = {}


def forced_mode() -> str:
    """``QUERCUS_KERNELS``: auto (the default), pure or compiled."""
    mode = os.environ.get("QUERCUS_KERNELS", "auto").strip().lower() or "auto"
    if mode not in MODES:
        raise ValueError(f"QUERCUS_KERNELS must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def pure_wanted(rows: int, features: int) -> bool:
    """Whether a block on rows x features runs the pure copy (see the module docstring)."""
    mode = forced_mode()
    if mode != "auto":
        return mode == "pure"
    return rows * max(features, 1) <= PURE_MAX_WORK and _spent[0] < PURE_BUDGET


@contextlib.contextmanager
def use_pure(rows: int, features: int):
    """Run the block's kernels in the copy ``pure_wanted`` picks (an enclosing pure block
    stays pure)."""
    if _pure.get() or not pure_wanted(rows, features):
        yield
        return
    token = _pure.set(True)
    start = time.perf_counter()
    try:
        yield
    finally:
        _spent[0] += time.perf_counter() - start
        _pure.reset(token)


def running_pure() -> bool:
    """Whether the current block runs the pure copy (then numba need not be imported)."""
    return _pure.get()


class _Switch:
    """A kernel function (or class) that calls the copy of the current mode."""

    __slots__ = ("compiled", "module", "name", "pure_object")

    def __init__(self, module: str, name: str, pure_object):
        self.module, self.name, self.pure_object = module, name, pure_object
        self.compiled = None

    def target(self):
        if _pure.get():
            return self.pure_object
        if self.compiled is None:  # imports numba, on the first compiled call only
            module = importlib.import_module(f"{PACKAGE}.{self.module}")
            self.compiled = getattr(module, self.name)
        return self.compiled

    def __call__(self, *args, **kwargs):
        if _pure.get():  # numpy scalars warn where numba's numbers (inf - inf...) do not
            with np.errstate(all="ignore"):
                return self.pure_object(*args, **kwargs)
        return self.target()(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):  # staticmethod() and inspection ask for __wrapped__ etc.
            raise AttributeError(name)
        return getattr(self.target(), name)

    def __repr__(self) -> str:
        return f"<kernel {self.module}.{self.name}>"


def kernels(module: str, *names: str):
    """The named kernels (functions and classes as switches, constants as values) of
    ``_kernels.<module>``; one name gives the object, several a tuple."""
    pure = pure_module(module)
    found = []
    for name in names:
        value = getattr(pure, name)
        found.append(_Switch(module, name, value) if callable(value) else value)
    return found[0] if len(found) == 1 else tuple(found)


class kernel_module:
    """``_kernels.<name>`` as a module whose attributes are ``kernels(name, attribute)``."""

    def __init__(self, name: str):
        self.name = name

    def __getattr__(self, attribute):
        value = kernels(self.name, attribute)
        setattr(self, attribute, value)
        return value


# -- the pure copy ---------------------------------------------------------------------------
def _njit(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda function: function


class _AnyType:
    """numba's type objects, as the kernels use them: names for typed-list items."""

    def __getattr__(self, name):
        return self

    def __getitem__(self, item):
        return self

    def __call__(self, *args, **kwargs):
        return self


class _List(list):
    @staticmethod
    def empty_list(item_type=None, allocated=0):
        return []


class _Dict(dict):
    @staticmethod
    def empty(key_type=None, value_type=None, n_keys=0):
        return {}


_numba = types.ModuleType("numba")
_numba.njit = _numba.jit = _njit
_numba.prange = range
_numba.literal_unroll = lambda values: values
_numba.types = _AnyType()
_numba.typed = types.ModuleType("numba.typed")
_numba.typed.List, _numba.typed.Dict = _List, _Dict


def _sum(values):
    """numba's ``array.sum()``: in order, in the array's type (numpy's is pairwise)."""
    values = np.asarray(values)
    if values.dtype.kind not in "fc":
        return values.sum()
    out = values.dtype.type(0)
    for v in values.flat:
        out += v
    return out


def _math(name: str):
    numpy_function, c_function = getattr(np, name), getattr(math, name)

    def scalar(x):
        if np.ndim(x) == 0 and math.isfinite(x) and (x > 0 or name in ("exp", "expm1")):
            try:
                return np.float64(c_function(x))
            except OverflowError:
                pass
        return numpy_function(x)

    return scalar


_MATH = ("log", "log2", "log10", "log1p", "exp", "expm1")
_HELPERS = {"__pure_sum": _sum, **{f"__pure_{name}": _math(name) for name in _MATH}}


class _Purify(ast.NodeTransformer):
    """Inside jitted functions: ``x.sum()`` -> ``__pure_sum(x)``, ``np.log2(x)`` ->
    ``__pure_log2(x)`` (and the other ``_MATH`` functions)."""

    def __init__(self):
        self.depth = 0

    def visit_FunctionDef(self, node):
        jitted = any("jit" in ast.unparse(d) for d in node.decorator_list)
        self.depth += jitted
        self.generic_visit(node)
        self.depth -= jitted
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if not self.depth or node.keywords:
            return node
        function = node.func
        if (isinstance(function, ast.Attribute) and function.attr == "sum" and not node.args):
            return ast.copy_location(
                ast.Call(ast.Name("__pure_sum", ast.Load()), [function.value], []), node)
        if (isinstance(function, ast.Attribute) and function.attr in _MATH
                and isinstance(function.value, ast.Name) and function.value.id == "np"
                and len(node.args) == 1):
            return ast.copy_location(
                ast.Call(ast.Name(f"__pure_{function.attr}", ast.Load()), node.args, []),
                node)
        return node


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    """``__import__`` of a pure module: numba is the stand-in above, the other kernel
    modules are their pure copies."""
    if level == 0 and (name == "numba" or name.startswith("numba.")):
        return _numba.typed if name == "numba.typed" and fromlist else _numba
    if level == 1 and name:
        return pure_module(name)
    if level == 0 and name.startswith(PACKAGE + ".") and fromlist:
        return pure_module(name[len(PACKAGE) + 1:])
    if level:
        raise ImportError(f"pure kernels: unsupported relative import {name!r}")
    return builtins.__import__(name, globals, locals, fromlist, level)


def pure_module(name: str) -> types.ModuleType:
    """The pure copy of ``_kernels.<name>`` (loaded once)."""
    module = _modules.get(name)
    if module is not None:
        return module
    path = importlib.util.find_spec(f"{PACKAGE}.{name}").origin
    code = _pure_code(path)
    module = types.ModuleType(f"{PURE_PACKAGE}.{name}")
    module.__file__ = path
    module.__package__ = PURE_PACKAGE
    module.__builtins__ = {**vars(builtins), "__import__": _import}
    module.__dict__.update(_HELPERS)
    _modules[name] = module
    sys.modules[module.__name__] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 (our own kernel source)
    except BaseException:
        del _modules[name], sys.modules[module.__name__]
        raise
    return module


def _pure_code(path: str) -> types.CodeType:
    """The transformed module's code, cached beside Python's own bytecode (``__pycache__/
    <name>.cpython-3XX.opt-pure.pyc``, keyed by the source's size and time and by
    ``PURE_FORMAT``): parsing and compiling every kernel module again costs 0.1-0.2 s."""
    stat = os.stat(path)
    key = f"quercus pure kernels {PURE_FORMAT} {stat.st_size} {stat.st_mtime_ns}\n".encode()
    cached = importlib.util.cache_from_source(path, optimization="pure")
    try:
        with open(cached, "rb") as file:
            data = file.read()
        if data.startswith(key):
            return marshal.loads(data[len(key):])
    except (OSError, ValueError, EOFError, TypeError):
        pass
    with open(path, encoding="utf-8") as file:
        tree = _Purify().visit(ast.parse(file.read(), path))
    code = compile(ast.fix_missing_locations(tree), path, "exec")
    if not sys.dont_write_bytecode:
        temporary = f"{cached}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(cached), exist_ok=True)
            with open(temporary, "wb") as file:
                file.write(key + marshal.dumps(code))
            os.replace(temporary, cached)
        except OSError:
            with contextlib.suppress(OSError):
                os.remove(temporary)
    return code
