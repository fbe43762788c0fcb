"""Run a script (`python script.py` style) or a module (`python -m` style) under the tracer and report.

The program runs in this process, as `__main__`, with `sys.argv` set to the script (or module file) and its
arguments; its exceptions print as Python prints them, after the tracer's report.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import importlib.util
import io
import os
import runpy
import sys
import tempfile
import traceback
import types
from typing import List, Optional

from fixinplace.engine import SourceError
from fixinplace.reading import is_notebook
from fixinplace.trace.findings import affected_run
from fixinplace.trace.notebooks import cell_of, compile_notebook, read_notebook
from fixinplace.trace.report import render
from fixinplace.trace.threads import ThreadErrors
from fixinplace.trace.tracer import Tracer

_TRACE_DIR = os.path.dirname(os.path.abspath(__file__))


class TargetError(Exception):
    """The script or module to trace cannot be found (a one-line message naming it)."""


def _check_target(target: str, module: bool) -> None:
    if module:
        try:
            found = importlib.util.find_spec(target)
        except (ImportError, ValueError) as e:
            raise TargetError(f"{target}: cannot find module: {e}") from None
        if found is None:
            raise TargetError(f"{target}: no module of that name")
    elif not os.path.exists(target):
        raise TargetError(f"{target}: no such file")
    elif os.path.isdir(target) and not os.path.exists(os.path.join(target, "__main__.py")):
        raise TargetError(f"{target}: a folder without __main__.py")
    elif os.path.isfile(target) and is_notebook(target):
        try:
            read_notebook(target)
        except SourceError as e:
            raise TargetError(f"{target}: {e}") from None


def _ours(frame: traceback.FrameSummary) -> bool:
    """A frame Python's own traceback would not have: the runner, runpy, the tracer and its mode's dispatch."""
    filename = frame.filename
    return (os.path.abspath(filename).startswith(_TRACE_DIR + os.sep) or filename.endswith("runpy.py")
            or filename.startswith("<frozen runpy")
            or (filename.endswith("overrides.py") and frame.name == "handle_torch_function"))


def _in_cell(frame: traceback.FrameSummary) -> traceback.FrameSummary:
    """A frame of a notebook being traced as its cell and line there (`File "nb.ipynb, cell 4", line 3`)."""
    cell = cell_of(frame.filename, frame.lineno or 0)
    if cell is None:
        return frame
    positions = {}
    if sys.version_info >= (3, 11):  # the caret under the failing expression
        end = frame.end_lineno
        positions = {"end_lineno": end + cell[1] - (frame.lineno or 0) if end else None, "colno": frame.colno,
                     "end_colno": frame.end_colno}
    return traceback.FrameSummary(f"{frame.filename}, cell {cell[0]}", cell[1], frame.name, lookup_line=False,
                                  line=frame.line, **positions)


def print_program_error(error: BaseException) -> None:
    """Print the program's exception as `python script.py` would: without the tracer's own frames."""
    shown = traceback.TracebackException(type(error), error, error.__traceback__)
    pending = [shown]
    while pending:
        te = pending.pop()
        te.stack = traceback.StackSummary.from_list([_in_cell(f) for f in te.stack if not _ours(f)])
        pending += [c for c in (te.__cause__, te.__context__) if c is not None]
    sys.stderr.write("".join(shown.format()))


def _exit_code(e: SystemExit) -> int:
    """The status `python` exits with for this SystemExit (a non-int code is printed and gives 1)."""
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def write_atomic(path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".fixinplace-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _set_path(target: str, module: bool) -> None:
    """sys.path[0] as `python` sets it: the script's folder, or the working folder for `-m` (in place of the
    entry of `fixinplace` itself)."""
    first = os.getcwd() if module else os.path.dirname(os.path.abspath(target))
    if sys.path:
        sys.path[0] = first
    else:
        sys.path.append(first)


def _run(target: str, args: List[str], module: bool) -> None:
    sys.argv = [target, *args]  # for -m, runpy replaces argv[0] with the module's file
    if module:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    elif os.path.isfile(target) and is_notebook(target):
        _run_code(target, compile_notebook(target), file=False)
    elif os.path.isfile(target):
        _run_script(target)
    else:  # a folder or a zip file with a __main__.py
        runpy.run_path(os.path.abspath(target), run_name="__main__")


def _run_script(target: str) -> None:
    """Run a script file as `python target` does: `sys.argv[0]` as given, `__file__` absolute, a
    SourceFileLoader as `__loader__`, no `__spec__` (runpy.run_path would set `sys.argv[0]` to `__file__`)."""
    path = os.path.abspath(target)
    with io.open_code(path) as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    _run_code(path, code, file=True)


def _run_code(path: str, code: types.CodeType, file: bool) -> None:
    """Run compiled code as the `__main__` module (with `__file__` for a script; a notebook's cells have none, as
    in Jupyter)."""
    main = types.ModuleType("__main__")
    main.__dict__.update(__builtins__=builtins)
    if file:
        main.__dict__.update(__file__=path, __cached__=None,
                             __loader__=importlib.machinery.SourceFileLoader("__main__", path))
    previous = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if previous is not None:
            sys.modules["__main__"] = previous


def run_traced(target: str, args: List[str], *, module: bool = False, output_format: str = "text",
               output_file: Optional[str] = None) -> int:
    """Run the program under the tracer, print (or write) the report, then the program's traceback if it died.

    Returns the exit status: the program's own, or 1 when it exited 0 and a hazard was found (or a thread of it
    died of autograd's in-place error), or 2 when it exited 0
    and the report could not be written to `output_file` (it then goes to stderr, after a one-line error). Raises
    `TargetError` when the script or module does not exist (nothing has run then).
    """
    own_path = list(sys.path)
    _set_path(target, module)
    try:
        _check_target(target, module)
    except TargetError:
        sys.path[:] = own_path
        raise
    tracer = Tracer()
    threads = ThreadErrors()  # the tracer's hooks are per thread: at least see what ends the others
    failure: Optional[BaseException] = None
    try:
        with threads, tracer:
            _run(target, args, module)
        code = 0
    except SystemExit as e:
        code = _exit_code(e)
    except KeyboardInterrupt as e:
        failure, code = e, 130
    except BaseException as e:  # the program's own error: reported after the findings, as Python would
        failure, code = e, 1
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    sys.path[:] = own_path  # the report imports fixinplace's own modules (the static fixes)
    report = render(tracer.findings, output_format, thread_errors=threads.errors)
    unwritable = False
    if output_file:
        try:
            write_atomic(output_file, report)
        except OSError as e:  # the report is not lost: it goes to stderr instead
            print(f"fixinplace: error: {output_file}: cannot write the report: {e.strerror or e}", file=sys.stderr)
            unwritable = True
    if unwritable or not output_file:
        sys.stderr.write(report)
    if failure is not None:
        print_program_error(failure)
    sys.stderr.flush()
    if code == 0 and (affected_run(tracer.findings) or any(e.inplace for e in threads.errors)):
        code = 1
    if code == 0 and unwritable:
        code = 2
    return code
