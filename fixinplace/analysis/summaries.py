"""Summaries of function calls, kept per calling context: a call whose context was seen before is not run again.

A call of a file-defined function is summarised when its run had no effect the analysis tracks outside the call:
it saved and reported nothing, wrote only tensors it made itself, loaded no module, read no mutable value from
outside (a tensor, an instance, a default list; a global list or dict is checked to keep its content) and changed
none of its arguments. Such a call is a function of its *context*: the callee,
the abstraction of its arguments (constants, kinds of values, the functions and classes passed), the grad mode
and the limits that decide what it may inline. Its summary is what it returned, the globals it read (checked to
still hold the same values before a summary is used), the statements it ran (the per-file budget is charged
again) and the functions it defined (registered again). Helpers that compute paddings, tuples, configurations
and layer choices (`to_2tuple`, `get_padding`, `_cfg`, `decode_arch_def`) are called thousands of times per
file with a few distinct contexts; each context now runs once.

Summaries live for one file's analysis (`Interpreter`): function values and module scopes are that run's own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from fixinplace.analysis.values import (
    ClassValue,
    DictValue,
    FunctionValue,
    LazyImport,
    ModuleNamespace,
    QualName,
    ScalarValue,
    SeqValue,
    UnknownValue,
    UNKNOWN,
    Value,
)

# `FIXINPLACE_NO_SUMMARIES=1` runs every call (to compare: the diagnostics are the same either way).
ENABLED = os.environ.get("FIXINPLACE_NO_SUMMARIES", "") in ("", "0")
MAX_KEY_ITEMS = 64  # items of an argument list or dict beyond which a call is not summarised
MAX_KEY_DEPTH = 4

# Values a summary may keep and hand out again as they are: never changed once made.
_SHARED = (ScalarValue, UnknownValue, QualName, FunctionValue, ClassValue, LazyImport, ModuleNamespace)


class _NotKeyable(Exception):
    """A value whose abstraction is not a summary key (a tensor, an instance, a module, ...)."""


def value_key(value: Value, depth: int = 0) -> tuple:
    """The part of a calling context one value contributes: equal keys, same behaviour of the callee."""
    if isinstance(value, ScalarValue):
        constant = value.constant
        try:
            hash(constant)
        except TypeError:
            raise _NotKeyable from None
        return ("s", value.kind, type(constant), repr(constant) if isinstance(constant, float) else constant,
                value.is_main, value.is_range, value.truth_known)
    if isinstance(value, UnknownValue):
        return ("u", value is UNKNOWN, value.is_tensor, value.array)
    if isinstance(value, QualName):
        return ("q", value.name)
    if isinstance(value, (FunctionValue, ClassValue, LazyImport)):
        return ("o", id(value))
    if isinstance(value, ModuleNamespace):
        return ("m", id(value.env))
    if depth < MAX_KEY_DEPTH:
        if isinstance(value, SeqValue) and len(value.items) <= MAX_KEY_ITEMS:
            return ("l", value.imprecise, value.open_ended, tuple(value_key(v, depth + 1) for v in value.items))
        if isinstance(value, DictValue) and len(value.items) <= MAX_KEY_ITEMS:
            try:
                return ("d", tuple((type(k), k, value_key(v, depth + 1)) for k, v in value.items.items()))
            except TypeError:
                raise _NotKeyable from None
    raise _NotKeyable


def _content_key(value: Value) -> tuple | None:
    """The key of one list's or dict's content, or None when it holds what cannot be keyed."""
    try:
        return value_key(value)
    except _NotKeyable:
        return None


def context_key(args: list, kwargs: dict) -> tuple | None:
    """The arguments' part of a calling context, or None when one of them cannot be keyed."""
    try:
        return (tuple(value_key(a) for a in args), tuple((k, value_key(v)) for k, v in kwargs.items()))
    except _NotKeyable:
        return None


def summarisable(fn: FunctionValue) -> bool:
    """Whether calls of a function may be summarised: its defaults are values nothing changes (a default list
    is one object shared by every call)."""
    return ENABLED and all(d is None or isinstance(d, _SHARED) for d in (*fn.defaults, *fn.kw_defaults))


def _objects_in(value: Value, out: set[int], depth: int = 0) -> None:
    """The ids of the containers (lists, dicts) a value holds, itself included."""
    if isinstance(value, SeqValue):
        out.add(id(value))
        if depth < MAX_KEY_DEPTH:
            for item in value.items:
                _objects_in(item, out, depth + 1)
    elif isinstance(value, DictValue):
        out.add(id(value))
        if depth < MAX_KEY_DEPTH:
            for item in value.items.values():
                _objects_in(item, out, depth + 1)


def _template(value: Value, args: dict[int, tuple], older: set[int], depth: int = 0):
    """What a summary keeps of a result: a value made anew on each use, with the call's own arguments where the
    result is one of them; None when the result cannot be kept (a tensor, or a container made before the call)."""
    if id(value) in args:
        return ("arg", args[id(value)])
    if isinstance(value, _SHARED):
        return ("same", value)
    if depth >= MAX_KEY_DEPTH or id(value) in older:
        return None
    if isinstance(value, SeqValue):
        items = [_template(v, args, older, depth + 1) for v in value.items]
        if any(item is None for item in items):
            return None
        return ("list", items, value.imprecise, value.open_ended)
    if isinstance(value, DictValue):
        entries = [(k, _template(v, args, older, depth + 1)) for k, v in value.items.items()]
        if any(item is None for _, item in entries):
            return None
        return ("dict", entries)
    return None


def _made(template, args: list, kwargs: dict) -> Value:
    kind = template[0]
    if kind == "same":
        return template[1]
    if kind == "arg":
        where, name = template[1]
        return args[name] if where == "pos" else kwargs[name]
    if kind == "list":
        return SeqValue([_made(t, args, kwargs) for t in template[1]], imprecise=template[2], open_ended=template[3])
    return DictValue({k: _made(t, args, kwargs) for k, t in template[1]})


@dataclass(eq=False)
class Summary:
    """What one call in one context did that a later call in the same context must repeat."""

    result: tuple  # the result's template (see `_template`)
    reads: dict  # (id of scope, name) -> (scope, name, value): the outside names the call read, and what they held
    # (id of scope, name) -> (scope or None, name, list or dict, its key): the outside lists and dicts it read, and
    # their content (scope None: the value of a project import, which stays what it was resolved to)
    containers: dict
    steps: int  # statements run (charged to the file's budget again on each use)
    defined: list  # functions it defined, in order (registered again on each use)
    keep: tuple  # the callee and the argument objects whose ids are in the key (kept alive)


@dataclass(eq=False)
class _Recording:
    """A call being run whose summary is still possible (what it read: as in `Summary`, the first value kept)."""

    start_steps: int
    start_defined: int
    start_stack: int  # functions running when the call started
    reads: dict = field(default_factory=dict)
    containers: dict = field(default_factory=dict)
    impure: bool = False


class CallMemo:
    """The summaries of one file's analysis, and the calls being recorded."""

    def __init__(self) -> None:
        self.summaries: dict[tuple, Summary] = {}
        self.recording: list[_Recording] = []
        self.runs = 0  # calls run to make a summary (for tests and benches)
        self.uses = 0  # calls answered by a summary

    def impure(self) -> None:
        """Something happened that a summary cannot repeat: no call being recorded is summarised."""
        for rec in self.recording:
            rec.impure = True

    def read(self, scope, name: str, value: Value | None) -> None:
        """A name read from outside the running call: a summary holds while it holds the same value (a list or
        a dict: the same object with the same content)."""
        if not self.recording:
            return
        if value is not None and not isinstance(value, _SHARED):
            self._read_container((id(scope), name), scope, name, value)
            return
        entry = (scope, name, value)
        for rec in self.recording:
            rec.reads.setdefault((id(scope), name), entry)

    def read_resolved(self, value: Value) -> None:
        """What a project import stands for, read from outside the running call (it stays what it was resolved
        to; a list or dict must also keep its content)."""
        if self.recording and not isinstance(value, _SHARED):
            self._read_container((None, id(value)), None, "", value)

    def _read_container(self, where: tuple, scope, name: str, value: Value) -> None:
        """A list or dict read from outside: a summary holds while it keeps its content (anything else read from
        outside makes the calls being recorded impure)."""
        key = _content_key(value) if isinstance(value, (SeqValue, DictValue)) else None
        if key is None:
            self.impure()
            return
        entry = (scope, name, value, key)
        for rec in self.recording:
            rec.containers.setdefault(where, entry)

    def read_fixed(self, value: Value | None) -> None:
        """A value read from outside the running call that nothing rebinds (a class attribute)."""
        if self.recording and value is not None and not isinstance(value, _SHARED):
            self.impure()

    def lookup(self, key: tuple, steps_left: int) -> Summary | None:
        """The summary of a context whose reads still hold, when its statements fit in the budget left."""
        summary = self.summaries.get(key)
        if summary is None or summary.steps > steps_left:
            return None
        for scope, name, value in summary.reads.values():
            if scope.get(name) is not value:
                return None
        for scope, name, value, key in summary.containers.values():
            if (scope is not None and scope.get(name) is not value) or _content_key(value) != key:
                return None
        for rec in self.recording:  # the calls around this one depend on what it read
            for where, entry in summary.reads.items():
                rec.reads.setdefault(where, entry)
            for where, entry in summary.containers.items():
                rec.containers.setdefault(where, entry)
        self.uses += 1
        return summary

    def refused(self, running: int | None) -> None:
        """A call was not inlined because the function at position `running` of the call stack was running, or
        (None) because the file's budget was spent: the calls that started after that function did so because
        of their own context; the others did not."""
        for rec in self.recording:
            if running is None or running < rec.start_stack:
                rec.impure = True

    def start(self, steps: int, defined: int, stack: int) -> _Recording:
        """Record the call starting now (`stop` ends it, `finish` keeps its summary)."""
        rec = _Recording(steps, defined, stack)
        self.recording.append(rec)
        self.runs += 1
        return rec

    def stop(self) -> None:
        """The innermost call being recorded has returned (or raised)."""
        self.recording.pop()

    def finish(self, rec: _Recording, key: tuple, keep: tuple, args: list, kwargs: dict, result: Value,
               steps: int, defined: list) -> None:
        """Keep the summary of a recorded call (`args`, `kwargs`: as passed, before the call bound them), when
        nothing made it impure and its arguments did not change."""
        if rec.impure or context_key(args, kwargs) != key[-1]:
            return
        if any(_content_key(value) != before for _, _, value, before in rec.containers.values()):
            return  # it changed a list or dict it read from outside
        positions: dict[int, tuple] = {}
        older: set[int] = set()
        for index, arg in enumerate(args):
            positions.setdefault(id(arg), ("pos", index))
            _objects_in(arg, older)
        for name, arg in kwargs.items():
            positions.setdefault(id(arg), ("kw", name))
            _objects_in(arg, older)
        for _, _, value, _ in rec.containers.values():
            _objects_in(value, older)
        template = _template(result, positions, older)
        if template is None:
            return
        self.summaries[key] = Summary(template, rec.reads, rec.containers, steps - rec.start_steps,
                                      defined[rec.start_defined:], keep)

    @staticmethod
    def result(summary: Summary, args: list, kwargs: dict) -> Value:
        """The value a summarised call returns for these arguments."""
        return _made(summary.result, args, kwargs)
