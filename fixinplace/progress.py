"""The progress bar of `check`: a rich bar on stderr, only on a terminal and only once a run has lasted a while.

`ProgressBar.wanted(quiet)` says whether to make one at all (stderr is a terminal, `TERM` is not `dumb`, no
`--quiet`). The bar itself appears only after `delay` seconds (1 s; `FIXINPLACE_PROGRESS_DELAY` overrides it), so
short runs print nothing, and it is cleared when the run ends. rich is imported only when the bar appears.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO


class ProgressBar:
    """Counts checked files and shows a transient rich progress bar once the run has lasted `delay` seconds."""

    def __init__(self, label: str = "Checking", delay: float | None = None, stream: TextIO | None = None) -> None:
        if delay is None:
            try:
                delay = float(os.environ.get("FIXINPLACE_PROGRESS_DELAY", "1.0"))
            except ValueError:
                delay = 1.0
        self.label = label
        self.delay = delay
        self.stream = stream if stream is not None else sys.stderr
        self.total = 0
        self.done = 0
        self.started = time.monotonic()
        self._bar: Any = None
        self._task: Any = None

    @staticmethod
    def wanted(quiet: bool, stream: TextIO | None = None) -> bool:
        """Whether a run should have a progress bar: stderr is a terminal and the user did not ask for quiet."""
        stream = stream if stream is not None else sys.stderr
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        return tty and not quiet and os.environ.get("TERM") != "dumb"

    def start(self, total: int) -> None:
        """The run has `total` files to check."""
        self.total = total
        self.started = time.monotonic()
        self._maybe_show()

    def advance(self, done: int = 1) -> None:
        """`done` more files were checked."""
        self.done += done
        if self._bar is None:
            self._maybe_show()
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)

    def close(self) -> None:
        """Stop and clear the bar (if it was shown)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _maybe_show(self) -> None:
        if self.total == 0 or self.done >= self.total or time.monotonic() - self.started < self.delay:
            return
        from rich.console import Console  # deferred: rich, loaded only when a slow run shows the bar
        from rich.progress import (  # deferred: rich, loaded only when a slow run shows the bar
            BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn)

        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files"),
            TimeElapsedColumn(),
            console=Console(file=self.stream, stderr=self.stream is sys.stderr),
            transient=True,
            refresh_per_second=8,
        )
        self._task = self._bar.add_task(self.label, total=self.total, completed=self.done)
        self._bar.start()
