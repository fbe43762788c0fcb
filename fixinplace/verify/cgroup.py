"""A cgroup (v2) for one verification child, where the machine gives one that this process may write (Linux).

Every process the child starts stays in it, whatever it does to its sessions or its parents, unless it is
privileged enough to move itself out; `kill()` ends them all at once (`cgroup.kill`, else each pid), and
`memory.max`, when the memory controller can be enabled there, caps their memory together, shared mappings
included (which RLIMIT_DATA does not count).
"""

from __future__ import annotations

import os
import signal
import time
import uuid


def _mount() -> str:
    """Where the cgroup2 hierarchy is mounted ("" when it is not)."""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                if right.split()[:1] == ["cgroup2"]:
                    return left.split()[4]
    except OSError:
        pass
    return ""


def _own() -> str:
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        pass
    return ""


def _write(path: str, text: str) -> bool:
    try:
        with open(path, "w") as f:
            f.write(text)
        return True
    except OSError:
        return False


class Cgroup:
    """A fresh cgroup below this process's own; `memory` says whether `memory.max` caps it."""

    def __init__(self, path: str, memory: bool) -> None:
        self.path = path
        self.memory = memory

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of it for going over `memory.max`."""
        try:
            with open(os.path.join(self.path, "memory.events")) as f:
                return any(line.split()[:1] == ["oom_kill"] and int(line.split()[1]) > 0 for line in f)
        except (OSError, ValueError, IndexError):
            return False

    def kill(self) -> None:
        """Kill every process in it and remove it."""
        deadline = time.monotonic() + 5.0
        while True:
            if not _write(os.path.join(self.path, "cgroup.kill"), "1"):
                for pid in self._pids():
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:  # busy until the kernel has reaped the killed processes
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)

    def _pids(self) -> list[int]:
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            return []


def create(memory: int | None) -> Cgroup | None:
    """A new cgroup for one child, capped at `memory` bytes when the memory controller allows; None when this
    machine has no cgroup2 hierarchy this process may write."""
    mount, own = _mount(), _own()
    if not mount or not own:
        return None
    parent = os.path.join(mount, own.lstrip("/"))
    path = os.path.join(parent, f"fixinplace-verify-{uuid.uuid4().hex[:12]}")
    try:
        os.mkdir(path)
    except OSError:
        return None
    capped = False
    if memory:
        if not os.path.exists(os.path.join(path, "memory.max")):
            _write(os.path.join(parent, "cgroup.subtree_control"), "+memory")  # refused where processes live
        capped = _write(os.path.join(path, "memory.max"), str(memory))
        _write(os.path.join(path, "memory.swap.max"), "0")
    return Cgroup(path, capped)
