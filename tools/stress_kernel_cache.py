#!/usr/bin/env python3
"""Stress numba's disk cache with processes compiling one kernel at the same moment.

Usage: python tools/stress_kernel_cache.py [--rounds 12] [--processes 8]

Each round starts ``--processes`` fresh processes on an empty cache directory; at the same
instant each compiles a different signature of one small cached kernel (x * 2 + 1 on an
int64, a float64, an int32, ...) and saves it. Then the script reads the cache index and
counts, per round, the signatures missing from it ("lost") and the entries whose data file
holds another signature's machine code ("wrong code": a later call would run code compiled
for other argument types). It does this with numba's own cache file and with Quercus's
(``quercus._kernel_cache.guard``). On our 2-core machine, 12 rounds of 8 processes: with
numba's own file 13 lost entries and 2 entries naming another signature's code, in 9 of the
12 rounds; guarded, none.
Outside the test suite: it takes a minute and its faults are a matter of timing.
"""

from __future__ import annotations

import argparse
import glob
import io
import os
import pickle
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import sys, time
import numpy as np
from numba import njit
from quercus._kernel_cache import guard

@njit(cache=True)
def kernel(x):
    return x * 2 + 1

if sys.argv[2] == "guarded":
    kernel = guard(kernel)
start = float(sys.argv[3])
while time.time() < start:
    time.sleep(0.001)
values = [np.int64(3), np.float64(3.0), np.int32(3), np.float32(3.0), np.complex128(3),
          np.int16(3), np.uint8(3), np.bool_(True)]
kernel(values[int(sys.argv[1]) % len(values)])
'''


def faults(cache: str, processes: int) -> tuple[int, int]:
    """(lost entries, entries naming another signature's code) in ``cache``."""
    lost = wrong = 0
    for index in glob.glob(os.path.join(cache, "**", "*.nbi"), recursive=True):
        with open(index, "rb") as file:
            stream = io.BytesIO(file.read())
        pickle.load(stream)  # numba's version
        _, overloads = pickle.loads(stream.read())
        lost += max(0, processes - len(overloads))
        for key, name in overloads.items():
            with open(os.path.join(os.path.dirname(index), name), "rb") as file:
                signature = pickle.loads(file.read())[3]
            wrong += str(signature.args) != str(key[0])
    return lost, wrong


def run(mode: str, rounds: int, processes: int, work: str) -> tuple[int, int, int]:
    child = os.path.join(work, "child.py")
    with open(child, "w") as file:
        file.write(CHILD)
    lost = wrong = bad_rounds = 0
    for r in range(rounds):
        cache = os.path.join(work, f"cache-{mode}-{r}")
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        start = time.time() + 2.0
        running = [subprocess.Popen([sys.executable, child, str(i), mode, str(start)], env=env)
                   for i in range(processes)]
        for process in running:
            process.wait()
        round_lost, round_wrong = faults(cache, min(processes, 8))
        lost, wrong = lost + round_lost, wrong + round_wrong
        bad_rounds += bool(round_lost or round_wrong)
    return lost, wrong, bad_rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--processes", type=int, default=8)
    args = parser.parse_args()
    print(f"{args.rounds} rounds of {args.processes} processes compiling at once")
    print(f"{'cache file':<14}{'lost':>6}{'wrong code':>12}{'faulty rounds':>15}")
    with tempfile.TemporaryDirectory() as work:
        for mode in ("numba", "guarded"):
            lost, wrong, bad = run(mode, args.rounds, args.processes, work)
            print(f"{mode:<14}{lost:>6}{wrong:>12}{bad:>15}")


if __name__ == "__main__":
    main()
