"""A one-line text progress bar for long fits (the command line draws it on a terminal)."""

from __future__ import annotations

import time
from typing import TextIO


class ProgressBar:
    """Call with a share in [0, 1]; draws ``label [#####.....]  52%`` on ``stream``.

    Nothing is drawn before ``delay`` seconds have passed (short fits stay quiet), and at
    most every ``interval`` seconds after that; ``close`` ends the line if one was drawn.
    """

    def __init__(self, stream: TextIO, label: str = "fitting", width: int = 30,
                 delay: float = 0.5, interval: float = 0.2, clock=time.monotonic):
        self.stream, self.label, self.width = stream, label, width
        self.delay, self.interval, self.clock = delay, interval, clock
        self.started = clock()
        self.last_drawn: float | None = None

    def __call__(self, share: float) -> None:
        now = self.clock()
        if now - self.started < self.delay:
            return
        if self.last_drawn is not None and now - self.last_drawn < self.interval and share < 1:
            return
        self.last_drawn = now
        filled = int(round(max(0.0, min(1.0, share)) * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {share:4.0%}")
        self.stream.flush()

    def close(self) -> None:
        if self.last_drawn is not None:
            self.stream.write("\n")
            self.stream.flush()


class SettledRows:
    """Tells ``callback`` (if any) the share of the training rows that have reached their
    leaf: a grower calls ``settle`` with the rows of each leaf it makes and ``done`` at the
    end (which reports 1.0)."""

    def __init__(self, n_rows: int, callback=None):
        self.n_rows, self.callback, self.settled = n_rows, callback, 0

    def settle(self, rows: int) -> None:
        if self.callback is not None:
            self.settled += rows
            self.callback(min(1.0, self.settled / self.n_rows) if self.n_rows else 1.0)

    def done(self) -> None:
        if self.callback is not None:
            self.callback(1.0)
