"""The ``quercus`` command line: ``main`` parses the arguments and runs the command.

Every user mistake prints one line ``quercus: error: <message>`` to stderr and exits with
status 2. The parser (``cli_parser``) needs argparse alone; the command that runs
(``cli_commands.cmd_<COMMAND>``: calls into the library, printing) is imported after
parsing, so that ``quercus --help``, ``--version`` and argument errors import neither numpy,
pandas nor the library (issue 39, "Start-up").
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Self

from .cli_parser import EXIT_USAGE, build_parser
from .errors import QuercusError

__all__ = ["build_parser", "main"]

EXIT_INTERRUPTED = 130


def _message(error: BaseException) -> str:
    """The error as one line of text."""
    if isinstance(error, OSError) and error.strerror and error.filename:
        return f"{error.filename}: {error.strerror}"
    return " ".join(str(error).split()) or type(error).__name__


class _InterruptWatch:
    """Remembers a Ctrl-C (SIGINT) while a command runs, so that an error a library made of
    it (pandas turns a KeyboardInterrupt inside its file reads into a ParserError) still
    ends as an interruption."""

    def __enter__(self) -> Self:
        self.seen = self.installed = False
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._on_sigint)
            self.installed = True
        return self

    def _on_sigint(self, signum, frame) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def __exit__(self, kind, error, traceback) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, self.previous or signal.SIG_DFL)
        if self.seen and isinstance(error, Exception):
            raise KeyboardInterrupt from error


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with _InterruptWatch():  # a Ctrl-C while the command's modules load is one too
            from . import cli_commands

            return getattr(cli_commands, f"cmd_{args.command}")(args)
    except KeyboardInterrupt:
        print("quercus: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)  # stop Python's own flush from failing
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (QuercusError, ValueError, OSError) as error:
        print(f"quercus: error: {_message(error)}", file=sys.stderr)
        return EXIT_USAGE
