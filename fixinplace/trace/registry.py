"""The tensors autograd saved for backward, by storage, held only through weak references."""

from __future__ import annotations

import weakref
from typing import Callable, Iterator, List, Optional, Tuple


class SavedRecord:
    """What the tracer knows about one saved tensor: where and by which op it was saved, at which version, and
    the first write seen to it since. Holds no reference to the tensor itself (no cycle through it)."""

    __slots__ = ("version", "frame", "op", "shape", "dtype", "mutation", "mutation_frame", "kind", "now_version",
                 "reported", "__weakref__")

    def __init__(self, version: int, frame, op: Optional[str], shape, dtype) -> None:
        self.version = version
        self.frame = frame  # (filename, line) of the user's statement that saved it, or None
        self.op = op  # the torch op running when it was saved
        self.shape = shape
        self.dtype = dtype
        self.mutation: Optional[str] = None  # the op of the first write seen since the save
        self.mutation_frame = None  # (filename, line) of that write
        self.kind: Optional[str] = None  # "invalidated" | "silent" once a write was seen
        self.now_version: Optional[int] = None  # the tensor's version when the write was seen
        self.reported = False  # confirmed by a backward (or by the end of the trace)


def storage_key(t) -> int:
    """The address of a tensor's storage: equal for a tensor, its views, `.detach()` and `.data`."""
    return t.untyped_storage().data_ptr()


def _byte_span(t) -> tuple:
    """[first, last] byte of the storage a strided tensor can touch."""
    size = t.element_size()
    first = t.storage_offset() * size
    if t.numel() == 0:
        return first, first - 1
    reach = sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()))
    return first, first + (reach + 1) * size - 1


def overlaps(a, b) -> bool:
    """Whether two tensors on the same storage can share a byte (by their extents: conservative for strided ones)."""
    a0, a1 = _byte_span(a)
    b0, b1 = _byte_span(b)
    return a0 <= b1 and b0 <= a1


class Registry:
    """storage address -> [(weak reference to the saved tensor, record)]; an entry goes away with its tensor."""

    def __init__(self) -> None:
        self._by_storage: dict = {}

    def __bool__(self) -> bool:
        return bool(self._by_storage)

    def add(self, key: int, saved, record: SavedRecord) -> None:
        """Register `saved` (the detached tensor that autograd keeps) under its storage address."""
        entries = self._by_storage.setdefault(key, [])
        entries.append((weakref.ref(saved, self._remover(key)), record))

    def _remover(self, key: int) -> Callable:
        by_storage = self._by_storage

        def remove(ref) -> None:
            entries = by_storage.get(key)
            if entries is None:
                return
            entries[:] = [e for e in entries if e[0] is not ref]
            if not entries:
                del by_storage[key]

        return remove

    def lookup(self, key: int) -> List[Tuple[object, SavedRecord]]:
        """The live (tensor, record) pairs saved on the storage at `key`."""
        out = []
        for ref, record in self._by_storage.get(key, ()):
            t = ref()
            if t is not None:
                out.append((t, record))
        return out

    def records(self) -> Iterator[SavedRecord]:
        """Every record whose tensor is still alive."""
        for entries in list(self._by_storage.values()):
            for ref, record in list(entries):
                if ref() is not None:
                    yield record
