"""A process tree on Linux, from /proc: every process below a pid, and killing them all at once."""

from __future__ import annotations

import os
import signal
import time


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, from /proc; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # the name before `)` may hold spaces
    except (OSError, IndexError):
        return None
    return fields[0].decode(), int(fields[1])


def _descendants(root: int) -> set[int]:
    """Every process below `root` (Linux: from /proc; elsewhere none)."""
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return set()
    children: dict[int, list[int]] = {}
    for pid in pids:
        stat = _stat(pid)
        if stat:
            children.setdefault(stat[1], []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(root: int, include_root: bool = True) -> None:
    """SIGKILL every process below `root`, and `root` unless `include_root` is false (Linux; elsewhere nothing)."""
    if not os.path.isdir("/proc/self"):
        return
    # Each process is stopped first, so that none can start another (or reparent it) while the tree is read; the
    # tree is final once a read finds nothing new after every process found before it had stopped.
    stopped: set[int] = set()
    if include_root:
        _signal(root, signal.SIGSTOP)
        stopped.add(root)
    deadline = time.monotonic() + 2.0
    while True:
        settled = all((_stat(pid) or ("X", 0))[0] in "TtZXx" for pid in stopped)
        new = _descendants(root) - stopped
        for pid in new:
            _signal(pid, signal.SIGSTOP)
        stopped |= new
        if (settled and not new) or time.monotonic() > deadline:  # past it: something sits in the kernel
            break
        if not new:
            time.sleep(0.005)
    for pid in stopped:
        _signal(pid, signal.SIGKILL)
