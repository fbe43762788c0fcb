"""Running the analysis and the rewrites of deeply nested code that CPython compiles.

The analysis and LibCST walk expressions recursively: a 490-term `+` chain or 500 chained calls, which CPython
compiles, go past Python's default recursion limit (1,000 frames). `deep_call` runs such work again in a thread
with a large stack and a high recursion limit, so only the rare deep file pays for it.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

T = TypeVar("T")

#: The stack of the thread that reruns deep work (virtual memory: only the pages used are touched).
STACK_BYTES = 512 * 1024 * 1024
#: Its recursion limit: deep enough for expressions nested thousands of levels (several frames a level), while a
#: runaway recursion still ends in a RecursionError long before the stack is used up.
RECURSION_LIMIT = 60_000

_inside = threading.local()
_limit_lock = threading.Lock()


def deep_call(fn: Callable[..., T], *args, **kwargs) -> T:
    """`fn(*args, **kwargs)`; when it raises RecursionError (or an error raised while handling one), its result (or exception) when run again in a thread
    with a `STACK_BYTES` stack and a `RECURSION_LIMIT` recursion limit."""
    if getattr(_inside, "deep", False):
        return fn(*args, **kwargs)
    try:
        return fn(*args, **kwargs)
    except Exception as e:
        if not _from_recursion(e):
            raise
    outcome: dict = {}

    def run() -> None:
        _inside.deep = True
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as e:  # handed to the caller's thread
            outcome["error"] = e

    with _limit_lock:  # the limit is per interpreter: raised while one deep run goes, restored after it
        previous_limit, previous_size = sys.getrecursionlimit(), threading.stack_size()
        sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
        try:
            threading.stack_size(STACK_BYTES)
            worker = threading.Thread(target=run, name="fixinplace-deep", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous_size)
        worker.join()
        sys.setrecursionlimit(previous_limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _from_recursion(error: BaseException) -> bool:
    """Whether `error` is a RecursionError or was raised while one was handled (LibCST's context managers turn a
    RecursionError in a visitor into a KeyError when they exit)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, RecursionError):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False
