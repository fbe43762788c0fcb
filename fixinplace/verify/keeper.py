"""The keeper of the verification child: whatever the user code starts is killed with it (Linux).

`contain()` runs first in the child, before torch and before any user code, and returns in the worker (the judge,
which forks the runners that run user code). Above the worker sits a keeper that runs no user code:

- in a PID namespace of its own when the kernel allows one (root, or unprivileged user namespaces): the keeper
  is its init, which the processes inside cannot signal, and when it exits the kernel kills every process of the
  namespace, whatever session they started or however they daemonised;
- otherwise a subreaper: orphans re-parent to it, and it kills its whole tree from /proc when the worker ends.

The keeper and the worker each lead a session of their own, so that `os.killpg(0, ...)` in user code reaches the
worker and the runner (the job fails), never the keeper. The parent joins the child to a cgroup first when it
could make one (`fixinplace.verify.cgroup`), and checks that the keeper is still alive before it trusts a result.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys

from fixinplace.verify.tree import kill_tree

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWPID = 0x20000000  # <linux/sched.h>


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> bool:
    try:
        return _libc().prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _new_pid_namespace() -> bool:
    """Whether this process's next child starts a new PID namespace (it is then its init)."""
    try:
        libc = _libc()
        if libc.unshare(CLONE_NEWPID) == 0:
            return True
        if os.geteuid() != 0:  # unprivileged: a user namespace first gives the right to make one
            return libc.unshare(0x10000000 | CLONE_NEWPID) == 0  # CLONE_NEWUSER
    except (OSError, AttributeError):
        pass
    return False


def join_cgroup(path: str) -> None:
    """Move this process (and so all it will start) into the cgroup at `path`, when it can."""
    try:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    except OSError:
        pass


def _hold_nothing() -> None:
    """Let go of the parent's pipes: the parent sees them close when the worker dies, not when the keeper does."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)


def _wait_for(worker: int) -> int:
    """Reap children (orphans re-parent here) until `worker` ends; its exit code (negative: its signal)."""
    while True:
        pid, status = os.wait()
        if pid == worker:
            return os.waitstatus_to_exitcode(status)


def _die_like(code: int) -> None:
    if code < 0:  # die of the same signal, so that the parent reports it as the worker's
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


def contain(pid_namespace: bool = True) -> str:
    """Set up the keeper and return in the worker: "pid namespace", "subreaper" or "" (no keeper: off Linux).
    `pid_namespace=False`: a subreaper even where a PID namespace could be made (CUDA fails inside one)."""
    if not sys.platform.startswith("linux"):
        return ""
    if pid_namespace and _new_pid_namespace():
        init = os.fork()
        if init:  # outside the namespace: mirror how its init ends
            _hold_nothing()
            _, status = os.waitpid(init, 0)
            code = os.waitstatus_to_exitcode(status)
            _die_like(code - 128 if code > 128 else code)  # init cannot die of a signal: it exits 128 + signal
        # The namespace's init. Only signals it handles reach it from inside: none (SIG_DFL), not even SIGINT.
        os.setsid()
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the process outside is killed: so is the namespace
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        worker = os.fork()
        if worker == 0:
            os.setsid()
            return "pid namespace"
        _hold_nothing()
        code = _wait_for(worker)
        os._exit(128 - code if code < 0 else code & 0xFF)  # the kernel kills what is left in the namespace
    if not _prctl(PR_SET_CHILD_SUBREAPER, 1):
        return ""
    worker = os.fork()
    if worker == 0:
        os.setsid()
        return "subreaper"
    _hold_nothing()
    code = _wait_for(worker)
    kill_tree(os.getpid(), include_root=False)
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    _die_like(code)
    return ""  # pragma: no cover - not reached
