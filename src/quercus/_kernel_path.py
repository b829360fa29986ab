"""Which copy of the kernels a call runs: numba's compiled one, or a pure Python copy.

A small fit or prediction runs the ``_kernels`` modules as plain Python: a second copy of
each module, loaded from the same source with ``njit`` the identity, ``prange`` ``range``
and typed lists Python lists, so it needs neither numba's compiler nor its cache (nor even
``import numba``). The results are the compiled ones bit for bit: inside jitted functions
``array.sum()`` becomes numba's sum in order and ``np.log``/``np.log2``/``np.exp`` of a
number the C library's (numba's; numpy's own scalar log can differ in the last bit).

Orchestrating modules take kernel names through ``kernels(module, *names)``: constants
come from the pure copy; functions and classes become switches that call the copy of the
current mode. ``use_pure(rows, features, family)`` sets the mode for a block: pure Python
when rows x features is at most ``PURE_MAX_WORK`` and the process has spent less than a
budget in pure blocks (a loop of many small fits then pays for numba once instead of
running slowly for ever). The budget is about what switching would cost: ``PURE_BUDGET``
seconds of all pure blocks when the family's kernels are in numba's cache (loading them
takes a few tenths), the family's own ``COLD_BUDGETS`` seconds, about its compile time,
when they are not, so that a first run on small data does not stop to compile kernels it
can finish without. Instead, the first time a process meets a family
whose kernels are not cached, it starts ``python -m quercus._warmup`` in the background:
a process of its own that compiles those families into the cache on the other core (small
representative fits), so that later processes find them compiled. ``QUERCUS_WARMUP=0``
turns that off. Its lock file tells its plan and progress (``warmup_state``): a family
turns cached in this process when the warm-up is done with it, and a family past its
budget that the warm-up is compiling now stays pure (another core) or waits for it (one
core) instead of compiling the same kernels a second time. ``QUERCUS_KERNELS=pure`` or
``compiled`` forces either copy (for testing; ``auto`` is the default).

A family in ``COMPILED_WHEN_CACHED`` (the optimal tree: 40-140x slower pure) runs pure only
while uncached, and its long pure computations call ``pure_interrupt()``'s check, which
raises ``SwitchToCompiled`` when the budget is spent or the kernels are cached meanwhile;
the caller starts again in a ``compiled_block``. Inside ``compiled_where_cached(family)``
small inputs of a family whose kernels are cached run compiled too, while ``family`` is
cached: a caller that then loads numba anyway (``algorithm="auto"`` with its optimal
candidates) pays a few tenths to load those kernels instead of running them slowly in pure
Python.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import contextvars
import functools
import hashlib
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
PURE_BUDGET = 2.0  # seconds of pure blocks before small inputs go compiled, or ...
#: ... a family's own seconds when its kernels are not in numba's cache: about what
#: compiling them costs on a quiet core (benchmarks/bench_startup.py: 8-20 s cold)
COLD_BUDGETS = {"cart": 10.0, "hist": 8.0, "c45": 20.0, "rpart": 12.0, "optimal": 15.0}
#: Kernel modules whose cached code tells that a family's kernels are in numba's cache.
FAMILY_MODULES = {
    "cart": ("split_numeric", "partition", "predict"),
    "hist": ("histogram", "hist_grow", "binning", "predict"),
    "c45": ("c45_grow", "c45_prune", "c45_store", "predict"),
    "rpart": ("rpart_split", "rpart_fold", "predict_surrogate"),
    "optimal": ("optimal", "optimal_pairs", "predict"),
}
#: Families whose pure copy is too slow to run once their kernels are cached (the optimal
#: tree's search: 40-140x compiled, against the few tenths loading its kernels costs).
COMPILED_WHEN_CACHED = ("optimal",)
WARMUP_LOCK = "quercus-warmup.lock"  # in numba's cache directory, while a warm-up runs
WARMUP_STALE = 900.0  # seconds after which a warm-up's lock is taken to be left over
WARMUP_WAIT = 180.0  # the longest wait for a warm-up compiling the family a block needs
POLL_SECONDS = 0.25  # between looks at the warm-up's progress (its lock file)
MODES = ("auto", "pure", "compiled")
PURE_FORMAT = 1  # of the cached transformed code: raise it when _Purify changes

_pure = contextvars.ContextVar("quercus_pure_kernels", default=False)
_compiled_preferred = contextvars.ContextVar("quercus_compiled_where_cached", default=False)
_block = contextvars.ContextVar("quercus_pure_block", default=None)  # (family, start)

_spent: dict[str | None, float] = {}  # seconds of pure blocks, per family
_warm: dict[str | None, bool] = {}  # family -> its kernels are in numba's cache
_looked: dict[str | None, float] = {}  # family -> when its cache or warm-up was last polled
_modules: dict[str, types.ModuleType] = {}
_warmup_process = None  # the warm-up this process started (subprocess.Popen)
_state_read: list = []  # [when, NUMBA_CACHE_DIR, warmup_state()] of the last read


class SwitchToCompiled(Exception):
    """Raised by ``pure_interrupt``'s check inside a long pure block: the rest of the work
    is better done compiled (the budget is spent, or the warm-up has cached the kernels);
    the caller starts again in a ``compiled_block``."""


def forced_mode() -> str:
    """``QUERCUS_KERNELS``: auto (the default), pure or compiled."""
    mode = os.environ.get("QUERCUS_KERNELS", "auto").strip().lower() or "auto"
    if mode not in MODES:
        raise ValueError(f"QUERCUS_KERNELS must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def pure_wanted(rows: int, features: int, family: str | None = None) -> bool:
    """Whether a block on rows x features of a kernel ``family`` (``FAMILY_MODULES``; None:
    any) runs the pure copy (see the module docstring)."""
    mode = forced_mode()
    if mode != "auto":
        return mode == "pure"
    if rows * max(features, 1) > PURE_MAX_WORK:
        return False
    if family in FAMILY_MODULES and cached(family) and (
            family in COMPILED_WHEN_CACHED or _prefers_compiled()):
        return False
    if family in COLD_BUDGETS and not cached(family):  # its own budget, the compile time
        if _spent.get(family, 0.0) < COLD_BUDGETS[family] or _keep_pure(family):
            return True
        await_warmup(family)  # spent: compiled, from the warm-up's cache if it is near
        return False
    return sum(_spent.values()) < PURE_BUDGET  # cached kernels: one budget for them all


def _prefers_compiled() -> bool:
    preferred = _compiled_preferred.get()
    return preferred is True or (bool(preferred) and cached(preferred))


def cached(family: str) -> bool:
    """Whether the family's kernels are in numba's cache: as this process first found them
    (then ``_check_cache`` warmed the missing ones up in the background), or since, when a
    warm-up or another process has compiled them (looked for every ``POLL_SECONDS``)."""
    if family in FAMILY_MODULES and all(_cython_modules().get(name) is not None
                                        for name in FAMILY_MODULES[family]):
        return True  # compiled at build time: nothing to cache, nothing to warm up
    if family not in _warm:
        _check_cache(family)
    elif not _warm[family]:
        now = time.monotonic()
        if now - _looked.get(family, 0.0) >= POLL_SECONDS:
            _looked[family] = now
            state = warmup_state()
            _warm[family] = (family in state[1] if state is not None
                             else family_cached(family))
    return _warm[family]


def _check_cache(first: str | None = None) -> None:
    """Note which families' kernels numba's cache holds; warm the others up (once), the
    family ``first`` asked for first."""
    cached = cached_modules()
    now = time.monotonic()
    for name in FAMILY_MODULES:
        _warm[name] = family_cached(name, cached)
        _looked[name] = now
    cold = sorted((name for name in FAMILY_MODULES if not _warm[name]),
                  key=lambda name: name != first)
    if cold:
        start_warmup(cold)


def warmup_state(fresh: bool = False) -> tuple[list[str], set[str]] | None:
    """The running warm-up's families, in its order, and those it has finished (its lock
    file: a line ``todo FAMILY...``, its ``pid``, then ``done FAMILY`` lines); None when
    none runs (no lock, a stale one, or its process has gone). Read at most every
    ``POLL_SECONDS`` (a small fit asks at every block), unless ``fresh``."""
    now, where = time.monotonic(), os.environ.get("NUMBA_CACHE_DIR")
    if (not fresh and _state_read and now - _state_read[0] < POLL_SECONDS
            and _state_read[1] == where):
        return _state_read[2]
    state = _read_warmup_state()
    _state_read[:] = [now, where, state]
    return state


def _read_warmup_state():
    directory = _writable_cache_dir()
    if directory is None:
        return None
    lock = os.path.join(directory, WARMUP_LOCK)
    try:
        if time.time() - os.stat(lock).st_mtime > WARMUP_STALE:
            return None
        with open(lock, encoding="utf-8") as file:
            lines = [line.split() for line in file.read().splitlines()]
    except (OSError, ValueError):
        return None
    pid = next((words[1] for words in lines if words[:1] == ["pid"] and len(words) > 1), "")
    if pid.isdigit() and not _alive(int(pid)):  # it died and left its lock
        return None
    todo = next((words[1:] for words in lines if words and words[0] == "todo"), [])
    return todo, {word for words in lines if words[:1] == ["done"] for word in words[1:]}


def _alive(pid: int) -> bool:
    """Whether the warm-up process ``pid`` still runs (this process's own child: not yet
    exited; another's: the pid exists; where that cannot be told, True)."""
    if _warmup_process is not None and _warmup_process.pid == pid:
        return _warmup_process.poll() is None
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, as another user's
        return True
    return True


def warming_now(family: str, state=False) -> bool:
    """Whether the running warm-up is compiling ``family`` now: it is on the warm-up's list,
    not done, and every family before it is (``state``: ``warmup_state()``, if read)."""
    state = warmup_state() if state is False else state
    if state is None:
        return False
    todo, done = state
    return (family in todo and family not in done
            and all(f in done for f in todo[:todo.index(family)]))


def _keep_pure(family: str) -> bool:
    """Past its budget, a family stays pure while the warm-up compiles it on another core
    (the pure copy goes on while it does; with one core, waiting lets the warm-up run)."""
    return (os.cpu_count() or 1) > 1 and warming_now(family)


def await_warmup(family: str) -> bool:
    """Wait while the running warm-up compiles ``family`` now (every family before it in
    its list is done), at most ``WARMUP_WAIT`` seconds: less than compiling here would
    cost. Whether the family is cached at the end."""
    deadline = time.monotonic() + WARMUP_WAIT
    while time.monotonic() < deadline:
        state = warmup_state(fresh=True)
        if state is None:
            break
        if family in state[1]:
            _warm[family] = True
            return True
        if not warming_now(family, state):
            return False  # not being compiled now: compiling here is sooner
        time.sleep(POLL_SECONDS)
    _warm[family] = family_cached(family)
    return _warm[family]


def pure_interrupt():
    """For a long computation in the current pure block: a check to call now and then,
    which raises ``SwitchToCompiled`` once the block's family has spent its cold budget or
    its kernels have been cached meanwhile; None outside a pure block, when the copy is
    forced or when the family has no cold budget (``COLD_BUDGETS``)."""
    block = _block.get()
    if not _pure.get() or block is None or forced_mode() != "auto":
        return None
    family, start = block
    if family not in COLD_BUDGETS:
        return None
    budget = COLD_BUDGETS[family] - _spent.get(family, 0.0)
    last = [time.perf_counter()]

    def check() -> None:
        now = time.perf_counter()
        if now - last[0] < POLL_SECONDS:
            return
        last[0] = now
        if cached(family) or (now - start >= budget and not _keep_pure(family)):
            raise SwitchToCompiled(family)

    return check


@contextlib.contextmanager
def compiled_block(family: str | None = None):
    """Run the block's kernels compiled, even inside a pure block; first wait for a warm-up
    that is compiling the family's kernels now (``await_warmup``)."""
    if family in FAMILY_MODULES and not cached(family):
        await_warmup(family)
    token = _pure.set(False)
    try:
        yield
    finally:
        _pure.reset(token)


@contextlib.contextmanager
def compiled_where_cached(active: bool | str = True):
    """In the block (when ``active``; a family's name: while that family is cached),
    families whose kernels are in numba's cache run compiled at any size (see the module
    docstring); uncached ones keep their budgets."""
    token = _compiled_preferred.set(_compiled_preferred.get() or active or False)
    try:
        yield
    finally:
        _compiled_preferred.reset(token)


@contextlib.contextmanager
def use_pure(rows: int, features: int, family: str | None = None):
    """Run the block's kernels in the copy ``pure_wanted`` picks (an enclosing pure block
    stays pure)."""
    if _pure.get() or not pure_wanted(rows, features, family):
        yield
        return
    token = _pure.set(True)
    start = time.perf_counter()
    block = _block.set((family, start))
    try:
        yield
    finally:
        _spent[family] = _spent.get(family, 0.0) + time.perf_counter() - start
        _block.reset(block)
        _pure.reset(token)


@functools.cache
def _kernel_dir() -> str:
    """The directory of the ``_kernels`` sources (found without importing them)."""
    return os.path.dirname(importlib.util.find_spec(f"{PACKAGE}._jit").origin)


def numba_cache_dirs() -> list[str]:
    """Where numba caches the compiled kernels (``_jit``'s locators, numba's places):
    ``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the source, else the user's cache;
    worked out without importing numba."""
    here = _kernel_dir()
    subpath = f"{os.path.basename(here)}_{hashlib.sha1(here.encode()).hexdigest()}"
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return [os.path.join(chosen, subpath)]
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [os.path.join(here, "__pycache__"), os.path.join(user, "numba", subpath)]


def _newest_source() -> float:
    """The newest modification time of the kernel sources (0 if unreadable)."""
    try:
        return max(entry.stat().st_mtime for entry in os.scandir(_kernel_dir())
                   if entry.name.endswith(".py"))
    except (OSError, ValueError):
        return 0.0


def _writable_cache_dir() -> str | None:
    """The first of numba's cache directories that exists (made if need be) and is
    writable: where numba will write, and where the warm-up keeps its lock."""
    for directory in numba_cache_dirs():
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError:
            continue
        if os.access(directory, os.W_OK):
            return directory
    return None


def warmup_wanted() -> bool:
    """``QUERCUS_WARMUP`` is not 0/off/no/false, the kernel copy is not forced and this
    process runs from a Python interpreter (not a frozen program)."""
    setting = os.environ.get("QUERCUS_WARMUP", "1").strip().lower()
    if setting in ("0", "off", "no", "false") or forced_mode() != "auto":
        return False
    return bool(sys.executable) and not getattr(sys, "frozen", False)  # a Python to run


def start_warmup(families) -> bool:
    """Start ``python -m quercus._warmup FAMILY...`` in the background, detached (its own
    session, no terminal), unless one runs already for this cache (``WARMUP_LOCK``, taken
    over when stale or when its process has gone) or it is turned off; whether it was
    started."""
    if not warmup_wanted():
        return False
    directory = _writable_cache_dir()
    if directory is None:
        return False
    lock = os.path.join(directory, WARMUP_LOCK)
    with contextlib.suppress(OSError):  # left over: stale, or its warm-up has died
        if os.path.exists(lock) and warmup_state(fresh=True) is None:
            os.remove(lock)
    try:
        handle = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        return False
    with contextlib.suppress(OSError):
        os.write(handle, f"todo {' '.join(families)}\n".encode())
    os.close(handle)
    import subprocess

    env = {**os.environ, "QUERCUS_KERNELS": "compiled", "QUERCUS_WARMUP_LOCK": lock}
    global _warmup_process
    try:
        _warmup_process = subprocess.Popen(
            [sys.executable, "-m", "quercus._warmup", *families], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.remove(lock)
        return False
    with contextlib.suppress(OSError, AttributeError), open(lock, "a", encoding="utf-8") as file:
        file.write(f"pid {_warmup_process.pid}\n")
    _state_read.clear()
    return True


def cached_modules() -> set[str]:
    """Kernel modules with an index file (``.nbi``) in numba's cache that is no older than
    the newest kernel source (numba's stamp is the package's hash, ``_jit``: an older
    index is stale)."""
    newest = _newest_source()
    fresh = set()
    if not newest:
        return fresh
    for module, entry in _index_files():
        with contextlib.suppress(OSError):
            if entry.stat().st_mtime >= newest:
                fresh.add(module)
    return fresh


def _index_files():
    """``(module, entry)`` of every index file (``.nbi``) in numba's cache directories."""
    for directory in numba_cache_dirs():
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".nbi"):
                yield entry.name.split(".", 1)[0], entry


def refresh_index(family: str) -> None:
    """Mark the family's cache indexes as fresh (``cached_modules`` goes by their times):
    after a warm-up has run its kernels, numba has checked their stamps and recompiled
    what was stale, but an index it only read keeps its old time, so a kernel source
    rewritten with the same content (a checkout, a reinstall) would leave the family
    looking stale to every later process, each running it pure and warming it up again."""
    modules = FAMILY_MODULES.get(family, ())
    for module, entry in _index_files():
        if module in modules:
            with contextlib.suppress(OSError):
                os.utime(entry.path)


def family_cached(family: str, cached: set[str] | None = None) -> bool:
    """Whether numba's cache holds the family's kernels (``FAMILY_MODULES``); ``cached``:
    ``cached_modules()``, if already read."""
    cached = cached_modules() if cached is None else cached
    return all(module in cached for module in FAMILY_MODULES[family])


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


#: Cython extension modules (issue 39, while the kernels move): each lists in
#: ``REPLACES`` the numba files whose kernels it holds, with the same names.
CYTHON_MODULES = ("_splits", "_regression", "_hist", "_predict", "_c45", "_rpart", "_optimal")
_cython: dict[str, types.ModuleType] = {}


def _cython_modules() -> dict[str, types.ModuleType]:
    """numba file name -> the compiled module replacing it (``QUERCUS_CYTHON``: a comma
    list of the extension modules to use; default: every one that is built)."""
    if not _cython:
        wanted = os.environ.get("QUERCUS_CYTHON")
        names = CYTHON_MODULES if wanted is None else [n for n in wanted.split(",") if n]
        for name in names:
            try:
                extension = importlib.import_module(f"{PACKAGE}.{name}")
            except ImportError:
                continue
            for replaced in getattr(extension, "REPLACES", ()):
                _cython[replaced] = extension
        _cython.setdefault("", None)  # looked once
    return _cython


def kernels(module: str, *names: str):
    """The named kernels (functions and classes as switches, constants as values) of
    ``_kernels.<module>``; one name gives the object, several a tuple."""
    extension = _cython_modules().get(module)
    if extension is not None:
        found = [getattr(extension, name) for name in names]
        return found[0] if len(found) == 1 else tuple(found)
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
