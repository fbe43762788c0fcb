"""Reading a file's bytes: only regular files (and standard input), never more than a cap.

Opening a FIFO blocks until something writes to it, and `/dev/zero` never ends: a path named on the command line,
a project module or a cache entry may be either. A file is stat-ed before it is opened, and read with a size cap.
"""

from __future__ import annotations

import errno
import os
import stat

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


#: The file name suffix of Jupyter notebooks, whose bytes are JSON holding code cells (`fixinplace.notebook`).
NOTEBOOK_SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    """Whether a path names a Jupyter notebook (by its `.ipynb` suffix, in any case)."""
    return str(path).lower().endswith(NOTEBOOK_SUFFIX)


class NotRegularFile(OSError):
    """The path names something other than a regular file (the message says what)."""


class TooLarge(OSError):
    """The file is larger than the cap."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words ("a FIFO", "a character device", ...)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _is_standard_input(info: os.stat_result) -> bool:
    try:
        return os.path.samestat(info, os.fstat(0))
    except OSError:
        return False


def is_regular_file(path: str) -> bool:
    """Whether `path` is a regular file (what a cache may key on: a pipe such as `/dev/stdin` or a device can be
    read only once, so the check itself must be what reads it)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_regular_bytes(path: str, max_size: int) -> bytes:
    """The bytes of the regular file at `path` (or of standard input, named as `/dev/stdin`); raises OSError:
    `NotRegularFile` for a FIFO, a device, a socket or a directory, `TooLarge` past `max_size` bytes."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode) and not _is_standard_input(info):
        raise NotRegularFile(f"not a regular file: {kind_of(info.st_mode)}")
    if info.st_size > max_size:
        raise TooLarge(info.st_size)
    with open(path, "rb") as f:
        data = f.read(max_size + 1)
    if len(data) > max_size:
        raise TooLarge(len(data))
    return data


def os_reason(error: OSError) -> str:
    """Why an OSError happened, in words that fit after "cannot read: " (`no such file or directory`, `file name
    too long`, `too many levels of symbolic links (a symlink loop)`)."""
    reason = (error.strerror or str(error)).lower()
    if error.errno == errno.ELOOP:
        reason += " (a symlink loop)"
    return reason
