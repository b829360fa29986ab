"""Build the compiled kernels: a few Cython extension modules in ``quercus._kernels``.

The project's metadata is in pyproject.toml; this file only lists the extensions and their
flags (OpenMP, optimisation, Cython's directives), the way scikit-learn's setuptools build
did. ``pip install .``, ``pip install -e .`` and ``pip wheel .`` all compile them; a build
on a machine without a C compiler stops with one line saying what to install.
"""

from __future__ import annotations

import os
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KERNELS = os.path.join("src", "quercus", "_kernels")

#: The extension modules, one per kernel family (``src/quercus/_kernels/<name>.pyx``).
MODULES = ("_openmp", "_splits", "_regression", "_hist", "_predict", "_c45", "_rpart",
           "_optimal")

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "nonecheck": False,
    "cdivision": True,
    "embedsignature": True,
}

NO_COMPILER = ("quercus: building from source needs a C compiler and Python's headers "
               "(Debian/Ubuntu: apt install gcc python3-dev; macOS: xcode-select --install; "
               "Windows: Microsoft C++ Build Tools), or install a prebuilt wheel")


def openmp_flags(compiler_type: str) -> tuple[list[str], list[str]]:
    """Compile and link flags for OpenMP (``QUERCUS_OPENMP=0``: none, serial kernels)."""
    if os.environ.get("QUERCUS_OPENMP", "1") == "0":
        return [], []
    if compiler_type == "msvc":
        return ["/openmp"], []
    if sys.platform == "darwin":  # Apple clang with Homebrew's libomp (cibuildwheel config)
        return ["-Xpreprocessor", "-fopenmp"], ["-lomp"]
    return ["-fopenmp"], ["-fopenmp"]


class BuildKernels(build_ext):
    """``build_ext`` with OpenMP and optimisation flags for the compiler found, and one
    clear line when there is no compiler."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:  # one compiler per core
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        compile_flags, link_flags = openmp_flags(self.compiler.compiler_type)
        # no fused multiply-adds: the arithmetic of the kernels is IEEE's, operation by
        # operation, on every platform (the same trees on x86-64 and arm64)
        msvc = self.compiler.compiler_type == "msvc"
        optimise = ["/O2", "/fp:precise"] if msvc else ["-O3", "-g0", "-ffp-contract=off"]
        for extension in self.extensions:
            extension.extra_compile_args = optimise + compile_flags
            extension.extra_link_args = link_flags
            # linked against libm: an unlinked reference to log binds to glibc's oldest
            # version of it, a wrapper 2.5x slower than the current one (Poisson's sweep
            # took twice numba's time), with the same results
            extension.libraries = [] if msvc else ["m"]
        if self.compiler.compiler_type != "msvc":
            self._check_compiler()
        super().build_extensions()

    def _check_compiler(self):
        executable = self.compiler.compiler_so[0] if self.compiler.compiler_so else "cc"
        if shutil.which(executable) is None:
            raise SystemExit(NO_COMPILER)

    def build_extension(self, extension):
        from setuptools._distutils.errors import CCompilerError, CompileError, LinkError

        try:
            super().build_extension(extension)
        except (CCompilerError, CompileError, LinkError) as error:
            if "Python.h" in str(error) or isinstance(error, CCompilerError):
                raise SystemExit(f"{NO_COMPILER} ({error})") from None
            raise


def extensions() -> list[Extension]:
    from Cython.Build import cythonize

    modules = [Extension(f"quercus._kernels.{name}", [os.path.join(KERNELS, name + ".pyx")])
               for name in MODULES]
    return cythonize(modules, compiler_directives=DIRECTIVES, quiet=True,
                     nthreads=int(os.environ.get("QUERCUS_BUILD_JOBS", "0")) or None)


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildKernels})
