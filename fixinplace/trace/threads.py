"""Errors that end the program's other threads, which the tracer does not watch (its hooks are per thread)."""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass
from typing import List, Optional


@dataclass
class ThreadError:
    """An exception that ended a thread of the traced program."""

    thread: str
    error: str  # `RuntimeError: one of the variables ...`, first line
    path: Optional[str]
    line: Optional[int]

    @property
    def inplace(self) -> bool:
        """Whether it is autograd's in-place error (a hazard the tracer could not see in that thread)."""
        return "modified by an inplace operation" in self.error or "leaf Variable that requires grad" in self.error

    def to_json(self) -> dict:
        return {"thread": self.thread, "error": self.error, "path": self.path, "line": self.line,
                "inplace_autograd_error": self.inplace}


class ThreadErrors:
    """A context manager that records every exception ending a thread (`threading.excepthook`) while it is
    active, and still lets Python print it as it would."""

    def __init__(self) -> None:
        self.errors: List[ThreadError] = []
        self._previous = None

    def _hook(self, args) -> None:
        if args.exc_type is not SystemExit:
            frames = traceback.extract_tb(args.exc_traceback) if args.exc_traceback else []
            last = frames[-1] if frames else None
            message = str(args.exc_value).splitlines()[0] if str(args.exc_value) else ""
            name = args.thread.name if args.thread is not None else "a thread"
            self.errors.append(ThreadError(name, f"{args.exc_type.__name__}: {message}".rstrip(": "),
                                           last.filename if last else None, last.lineno if last else None))
        (self._previous or threading.__excepthook__)(args)

    def __enter__(self) -> "ThreadErrors":
        self._previous, threading.excepthook = threading.excepthook, self._hook
        return self

    def __exit__(self, *exc) -> None:
        if threading.excepthook == self._hook:
            threading.excepthook = self._previous
