"""The background warm-up of kernel families (``_kernel_path.start_warmup``,
``quercus._warmup``) and the cache check that decides a family's pure budget."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quercus import _kernel_path

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty NUMBA_CACHE_DIR; the directory numba would cache the kernels in."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("QUERCUS_KERNELS", raising=False)
    (directory,) = _kernel_path.numba_cache_dirs()
    return Path(directory)


def _index(directory: Path, module: str, age: float = 0.0) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{module}.some_kernel-12.py311.nbi"
    path.write_bytes(b"")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))


def test_a_family_is_cached_when_every_module_has_a_fresh_index(cache):
    assert not _kernel_path.family_cached("cart")
    for module in _kernel_path.FAMILY_MODULES["cart"][:-1]:
        _index(cache, module)
    assert not _kernel_path.family_cached("cart")  # one module is missing
    _index(cache, _kernel_path.FAMILY_MODULES["cart"][-1])
    assert _kernel_path.family_cached("cart")
    # an index older than a kernel source is stale (numba's stamp is the package's hash)
    sources = Path(_kernel_path.__file__).parent / "_kernels"
    age = time.time() - min(p.stat().st_mtime for p in sources.glob("*.py")) + 60
    _index(cache, _kernel_path.FAMILY_MODULES["cart"][0], age=age)
    assert not _kernel_path.family_cached("cart")


def test_numba_agrees_on_the_cache_directory(cache):
    """Our reckoning of the directory, without numba, is where numba writes."""
    code = ("from quercus._kernels.impurity import impurity_of; import numpy as np; "
            "impurity_of(np.array([1.0, 2.0]), 0)")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert any(p.name.startswith("impurity.") for p in cache.glob("*.nbi"))


def _gone_pid() -> str:
    """The pid of a process that has exited."""
    return subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          check=True, capture_output=True, text=True).stdout.strip()


def test_a_cold_family_starts_one_warmup(cache, monkeypatch):
    gone = _gone_pid()
    started = []

    class Popen:
        pid = 4242

        def __init__(self, argv, env, **kwargs):
            started.append((argv, env, kwargs))

        def poll(self):
            return None  # still running

    monkeypatch.setattr(subprocess, "Popen", Popen)
    monkeypatch.setattr(_kernel_path, "_warmup_process", None)
    monkeypatch.setenv("QUERCUS_WARMUP", "1")
    monkeypatch.setattr(_kernel_path, "_warm", {})
    monkeypatch.setattr(_kernel_path, "_spent", {})  # earlier tests' pure seconds
    assert not _kernel_path.cached("c45")
    assert not _kernel_path.cached("cart")
    assert _kernel_path.pure_wanted(344, 7, "c45")
    assert len(started) == 1  # once per process, for every family not cached
    argv, env, kwargs = started[0]
    assert argv[:3] == [sys.executable, "-m", "quercus._warmup"]
    assert sorted(argv[3:]) == sorted(_kernel_path.FAMILY_MODULES)
    assert argv[3] == "c45"  # the family asked for first is warmed up first
    assert env["QUERCUS_KERNELS"] == "compiled"
    lock = Path(env["QUERCUS_WARMUP_LOCK"])
    assert lock.exists() and lock.parent == cache
    assert lock.read_text() == f"todo {' '.join(argv[3:])}\npid 4242\n"  # for waiters
    assert _kernel_path.warmup_state() == (argv[3:], set())  # our child, running
    assert kwargs["start_new_session"] and kwargs["stdout"] == subprocess.DEVNULL
    # another process on the same cache while it runs: no second warm-up
    assert not _kernel_path.start_warmup(["c45"])
    # a lock left over by a warm-up that died long ago is taken over
    old = time.time() - _kernel_path.WARMUP_STALE - 60
    os.utime(lock, (old, old))
    assert _kernel_path.start_warmup(["c45"])
    assert len(started) == 2
    # and so is one whose process has gone, at once
    monkeypatch.setattr(_kernel_path, "_warmup_process", None)
    lock.write_text(f"todo c45\npid {gone}\n")
    assert _kernel_path.start_warmup(["c45"])
    assert len(started) == 3


@pytest.mark.parametrize("setting", ["0", "off", "false"])
def test_the_warmup_can_be_turned_off(cache, monkeypatch, setting):
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("started"))
    monkeypatch.setenv("QUERCUS_WARMUP", setting)
    assert not _kernel_path.start_warmup(["c45"])
    assert not list(cache.glob("*.lock"))


def test_a_cached_family_gets_the_short_budget(cache, monkeypatch):
    monkeypatch.setenv("QUERCUS_WARMUP", "0")
    monkeypatch.setattr(_kernel_path, "COLD_BUDGETS", {"c45": 20.0, "rpart": 12.0})
    monkeypatch.setattr(_kernel_path, "_warm", {})
    for module in _kernel_path.FAMILY_MODULES["rpart"]:
        _index(cache, module)
    monkeypatch.setattr(_kernel_path, "_spent", {"c45": _kernel_path.PURE_BUDGET / 2})
    assert _kernel_path.cached("rpart") and not _kernel_path.cached("c45")
    assert _kernel_path.pure_wanted(344, 7, "rpart")
    monkeypatch.setattr(_kernel_path, "_spent", {"c45": _kernel_path.PURE_BUDGET})
    assert not _kernel_path.pure_wanted(344, 7, "rpart")  # the uncached family's time counts
    assert _kernel_path.pure_wanted(344, 7, "c45")


def test_the_warmup_compiles_what_a_small_fit_needs(cache):
    """``python -m quercus._warmup hist`` fills the cache so that a later small histogram
    CART fit (numeric, categorical and missing values, compiled) and a fit on numeric
    columns alone, with their predictions, compile nothing, and removes its lock."""
    lock = cache / _kernel_path.WARMUP_LOCK
    cache.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "QUERCUS_WARMUP_LOCK": str(lock)}
    subprocess.run([sys.executable, "-m", "quercus._warmup", "hist"], env=env, check=True,
                   timeout=900)
    assert not lock.exists()
    assert _kernel_path.family_cached("hist")
    fit = """
import numpy as np, pandas as pd
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, e): pass
    def on_end(self, e): compiled.append(e.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", Listener())
import quercus
rng = np.random.default_rng(5)
X = pd.DataFrame({"x": rng.normal(size=200), "w": rng.normal(size=200),
                  "island": rng.choice(["Biscoe", "Dream", "Torgersen"], 200)})
X.loc[::17, "x"] = np.nan
y = np.where(X["w"] > 0, "A", np.where(X["island"] == "Dream", "B", "C"))
model = quercus.DecisionTreeClassifier(splitter="hist", random_state=0).fit(X, y)
model.predict(X); model.predict_proba(X)
numeric = X[["x", "w"]]  # numeric splits only: the tree predicts with predict_numeric's kernel
model = quercus.DecisionTreeClassifier(splitter="hist", random_state=0).fit(numeric, y)
model.predict(numeric); model.predict_proba(numeric)
print(compiled)
"""
    env["QUERCUS_KERNELS"] = "compiled"
    result = subprocess.run([sys.executable, "-c", fit], check=False, env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_a_running_warmup_is_read_from_its_lock(cache, monkeypatch):
    """The lock tells which family the warm-up compiles now and which it has cached; an
    uncached family turns cached when the warm-up is done with it, and a process can wait
    for the family being compiled (not for one that comes later or not at all)."""
    import threading

    monkeypatch.setattr(_kernel_path, "_warm", {"optimal": False, "cart": False})
    monkeypatch.setattr(_kernel_path, "POLL_SECONDS", 0.0)
    cache.mkdir(parents=True, exist_ok=True)
    lock = cache / _kernel_path.WARMUP_LOCK
    assert _kernel_path.warmup_state() is None and not _kernel_path.warming_now("optimal")
    lock.write_text("todo optimal cart\n")
    assert _kernel_path.warmup_state() == (["optimal", "cart"], set())
    assert _kernel_path.warming_now("optimal") and not _kernel_path.warming_now("cart")
    assert not _kernel_path.await_warmup("cart")  # optimal comes first: do not wait
    assert not _kernel_path.await_warmup("rpart")  # not on its list
    assert not _kernel_path.cached("optimal")
    with lock.open("a") as file:
        file.write("done optimal\n")
    assert _kernel_path.cached("optimal") and not _kernel_path.cached("cart")
    assert _kernel_path.warming_now("cart")

    def finish():
        time.sleep(0.3)
        with lock.open("a") as file:
            file.write("done cart\n")

    thread = threading.Thread(target=finish)
    started = time.monotonic()
    thread.start()
    assert _kernel_path.await_warmup("cart")
    thread.join()
    assert 0.25 <= time.monotonic() - started < 10 and _kernel_path.cached("cart")
    gone = _gone_pid()
    with lock.open("a") as file:  # a warm-up that died and left its lock: none runs
        file.write(f"pid {gone}\n")
    assert _kernel_path.warmup_state() is None
    lock.write_text(f"todo cart\npid {os.getpid()}\n")  # a live process
    assert _kernel_path.warmup_state() == (["cart"], set())
    old = time.time() - _kernel_path.WARMUP_STALE - 60  # a lock left over long ago
    os.utime(lock, (old, old))
    assert _kernel_path.warmup_state() is None


def test_past_its_budget_a_family_stays_pure_while_the_warmup_compiles_it(cache, monkeypatch):
    monkeypatch.delenv("QUERCUS_KERNELS", raising=False)
    monkeypatch.setattr(_kernel_path, "_warm", {"c45": False})
    monkeypatch.setattr(_kernel_path, "POLL_SECONDS", 0.0)
    monkeypatch.setattr(_kernel_path, "COLD_BUDGETS", {"c45": 20.0})
    monkeypatch.setattr(_kernel_path, "_spent", {"c45": 20.0})
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    cache.mkdir(parents=True, exist_ok=True)
    lock = cache / _kernel_path.WARMUP_LOCK
    assert not _kernel_path.pure_wanted(344, 7, "c45")  # spent, and no warm-up runs
    lock.write_text("todo c45\n")
    assert _kernel_path.pure_wanted(344, 7, "c45")  # the warm-up will cache it soon
    monkeypatch.setattr(os, "cpu_count", lambda: 1)  # one core: waiting lets it run
    monkeypatch.setattr(_kernel_path, "WARMUP_WAIT", 0.3)
    started = time.monotonic()
    assert not _kernel_path.pure_wanted(344, 7, "c45")
    assert time.monotonic() - started >= 0.25
    with lock.open("a") as file:
        file.write("done c45\n")
    assert _kernel_path.cached("c45")
    assert not _kernel_path.pure_wanted(344, 7, "c45")  # cached: the one short budget


def test_the_warmup_notes_each_family_in_its_lock(tmp_path):
    from quercus import _warmup

    lock = tmp_path / "lock"
    lock.write_text("todo nosuch other\n")
    _warmup.warm(["nosuch", "other"], _warmup._note_done(str(lock)))  # unknown: no fits
    assert lock.read_text() == "todo nosuch other\ndone nosuch\ndone other\n"
    assert [p["algorithm"] for p in _warmup.FAMILIES["optimal"]] == ["optimal"] * 4


def test_the_warmup_marks_the_indexes_it_read_fresh(cache, monkeypatch):
    """A kernel source rewritten with the same content leaves numba's cache valid but its
    indexes older than the source: after the warm-up has run the family (numba reading
    them), they are marked fresh, so later processes run it compiled instead of pure and
    warming it up again. A warm-up whose fits failed leaves them as they were."""
    from quercus import _warmup

    sources = Path(_kernel_path.__file__).parent / "_kernels"
    age = time.time() - min(p.stat().st_mtime for p in sources.glob("*.py")) + 60
    for module in _kernel_path.FAMILY_MODULES["cart"]:
        _index(cache, module, age=age)
    assert not _kernel_path.family_cached("cart")
    monkeypatch.setattr(_warmup, "FAMILIES", {"cart": [{"algorithm": "nosuch"}]})
    _warmup.warm(["cart"])  # the fit raises: nothing is marked
    assert not _kernel_path.family_cached("cart")
    monkeypatch.setattr(_warmup, "FAMILIES", {"cart": []})
    _warmup.warm(["cart"])
    assert _kernel_path.family_cached("cart")
    assert not _kernel_path.family_cached("hist")  # only the family warmed


def test_the_optimal_warmup_reaches_the_pair_count_solvers(monkeypatch):
    """Yes/no features are solved by the optimal tree's pair-count kernels, which the mixed
    warm-up data never reaches: the warm-up's binary data must (else a first ``auto`` run
    on a yes/no table compiles them in the user's process). Run pure, counting the calls."""
    import quercus.growing.optimal as search
    from quercus import DecisionTreeClassifier, _warmup

    monkeypatch.setenv("QUERCUS_KERNELS", "pure")
    calls = {"solve_depth2_binary": 0, "solve_depth3_binary": 0}
    for name in calls:
        original = getattr(search, name)

        def counted(*args, _original=original, _name=name):
            calls[_name] += 1
            return _original(*args)

        monkeypatch.setattr(search, name, counted)
    frame, three, two = _warmup.binary_data()
    for params in _warmup.FAMILIES["optimal"]:
        for y in (three, two):
            DecisionTreeClassifier(**params, random_state=0).fit(frame, y)
    assert calls["solve_depth2_binary"] > 0 and calls["solve_depth3_binary"] > 0
    mixed, mixed_three, _ = _warmup.warmup_data()
    calls.update(dict.fromkeys(calls, 0))
    DecisionTreeClassifier(**_warmup.FAMILIES["optimal"][1], random_state=0).fit(
        mixed, mixed_three)
    assert calls["solve_depth2_binary"] == 0  # why the binary data is needed
