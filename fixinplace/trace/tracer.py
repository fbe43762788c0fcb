"""The run-time tracer: saved-tensor hooks record every save, a TorchFunctionMode sees every in-place write.

Pack (at each save): record the version, the user's line and the running op; return the tensor detached (a
weak-reference registry keyed by storage finds it again). The function mode, after each writing call, checks the
registry for saves on the written storage: a changed version is an invalidating write, a write that changed no
version (`.data`, fused optimizers on CPU) a silent one. Unpack (at backward) re-checks the version and raises
autograd's error itself, because autograd skips its own check while saved-tensor hooks are active. The tracer
pauses around torch.func transforms, which refuse saved-tensor hooks.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import List, Optional

import torch
from torch.overrides import TorchFunctionMode

from fixinplace.trace import sites
from fixinplace.trace.findings import INVALIDATED, SILENT, Finding, merge, merge_unconfirmed
from fixinplace.trace.mutations import bumps_no_version, classify, written_tensors
from fixinplace.trace.registry import Registry, SavedRecord, overlaps, storage_key
from fixinplace.trace.sites import site_of, user_frame

sites.add_internal_dir(os.path.dirname(torch.__file__))

_Tensor = torch.Tensor
_BACKWARDS = frozenset({"backward", "grad"})  # Tensor.backward, torch.autograd.backward and torch.autograd.grad
_active = threading.local()


def active_tracer() -> Optional["Tracer"]:
    """The tracer running in this thread, if any."""
    return getattr(_active, "tracer", None)


class _WriteMode(TorchFunctionMode):
    """Sees every torch call; names the running op for the pack hook and checks the registry after writes."""

    def __init__(self, tracer: "Tracer") -> None:
        super().__init__()
        self.tracer = tracer

    def __torch_function__(self, func, types, args=(), kwargs=None):
        tracer = self.tracer
        if tracer.paused:
            return func(*args, **(kwargs or {}))
        name, by_name = classify(func)
        if name in _BACKWARDS:  # where the backward was called, for unpack hooks run on the engine's other threads
            tracer.backward_frame = user_frame()
        if not (by_name or kwargs) or not tracer.registry:
            # The mode is off while `func` runs (torch pops it), so calls do not nest here: no stack of op names.
            tracer.op = name
            result = func(*args, **(kwargs or {}))
            tracer.op = None
            return result
        written, label = written_tensors(name, by_name, args, kwargs, _Tensor)
        watched = tracer.saves_on(written) if written else []
        tracer.op = name
        result = func(*args, **(kwargs or {}))
        tracer.op = None
        if watched:
            tracer.after_write(watched, label, bumps_no_version(name))
        return result


class Tracer:
    """Watches a run for writes to tensors saved for backward; `findings` lists the hazards seen."""

    def __init__(self) -> None:
        self.registry = Registry()
        self.findings: List[Finding] = []
        self.op: Optional[str] = None
        self.backward_frame = None  # (filename, line) of the last backward call the function mode saw
        self.paused = False
        self._mode = _WriteMode(self)
        self.depth = 0  # how many `with` blocks are in this tracer (nested traces join the outer one)
        self._original_disable = None

    # saved-tensor hooks ------------------------------------------------------------------------------------

    def _pack(self, t):
        saved = t.detach()
        try:
            key, version = storage_key(t), t._version
        except Exception:  # no storage (sparse, wrapper subclasses) or no version counter: not watched
            return saved
        if key == 0:  # no data (empty or meta tensors): no write can change it, and all would share the key
            return saved
        record = SavedRecord(version, user_frame(), self.op, t.shape, t.dtype)
        self.registry.add(key, saved, record)
        return saved, record

    def _unpack(self, packed):
        if not isinstance(packed, tuple):
            return packed
        saved, record = packed
        version = saved._version
        if version != record.version:
            if record.kind is None:  # a write the function mode did not see (inside a kernel, or while paused)
                record.kind, record.now_version = INVALIDATED, version
            self._report(record, INVALIDATED)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{saved.type()} {list(saved.shape)}], saved by {record.op or 'an op'}, is at version {version}; "
                f"expected version {record.version} instead. (Raised by fixinplace trace, which names the write.)"
            )
        if record.kind == SILENT:
            self._report(record, SILENT)
        return saved

    def _report(self, record: SavedRecord, kind: str) -> None:
        if record.reported:
            return
        record.reported = True
        merge(self.findings, Finding.from_record(record, kind, site_of(user_frame(3) or self.backward_frame)))

    # writes -------------------------------------------------------------------------------------------------

    def saves_on(self, written: list) -> list:
        """[(written tensor, its version before the call, saved tensor, record)] for the saves on their storage."""
        watched = []
        for w in written:
            try:
                key = storage_key(w)
                before = w._version
            except (RuntimeError, NotImplementedError):  # no storage (functorch wrappers), inference tensors
                continue
            for saved, record in self.registry.lookup(key):
                if record.kind is None and saved._version == record.version:
                    watched.append((w, before, saved, record))
        return watched

    def after_write(self, watched: list, label: str, no_bump: bool) -> None:
        """Mark each save the call just wrote: invalidated when its version moved, silent when the written tensor's
        own version moved but the save's did not (`.data`), or the op bumps no version at all (fused optimizers),
        and the written bytes can reach the saved ones."""
        frame = None
        for w, before, saved, record in watched:
            if record.kind is not None:
                continue
            now = saved._version
            if now != record.version:
                kind = INVALIDATED
            elif (w._version != before or no_bump) and overlaps(w, saved):
                kind = SILENT
            else:
                continue
            frame = frame or user_frame(3)
            record.kind, record.mutation, record.mutation_frame, record.now_version = kind, label, frame, now

    # lifetime -----------------------------------------------------------------------------------------------

    def pending(self) -> List[Finding]:
        """Writes to saves that are still alive but no backward has used yet (reported with backward null)."""
        out: List[Finding] = []
        for record in self.registry.records():
            if record.kind is not None and not record.reported:
                merge(out, Finding.from_record(record, record.kind, None))
        return out

    @contextlib.contextmanager
    def _paused_disable(self, error_message: str):
        """torch.func transforms call `disable_saved_tensors_hooks`: step aside (hooks off, mode idle) meanwhile."""
        top = torch._C._autograd._top_saved_tensors_default_hooks(False)
        # Step aside only when ours are the innermost hooks: under the program's own hooks the transform must fail
        # as it does without the tracer.
        pause = not self.paused and top is not None and top[0] == self._pack
        if pause:
            torch._C._autograd._pop_saved_tensors_default_hooks()
            self.paused = True
        try:
            with self._original_disable(error_message):
                yield
        finally:
            if pause:
                self.paused = False
                torch._C._autograd._push_saved_tensors_default_hooks(self._pack, self._unpack)

    def __enter__(self) -> "Tracer":
        if self.depth == 0:
            _active.tracer = self
            self._original_disable = torch.autograd.graph.disable_saved_tensors_hooks
            torch.autograd.graph.disable_saved_tensors_hooks = self._paused_disable
            torch._C._autograd._push_saved_tensors_default_hooks(self._pack, self._unpack)
            self._mode.__enter__()
        self.depth += 1
        return self

    def __exit__(self, *exc) -> None:
        self.depth -= 1
        if self.depth:
            return
        self._mode.__exit__(*exc)
        torch._C._autograd._pop_saved_tensors_default_hooks()
        torch.autograd.graph.disable_saved_tensors_hooks = self._original_disable
        _active.tracer = None
        for finding in self.pending():
            merge_unconfirmed(self.findings, finding)
