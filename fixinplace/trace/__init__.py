"""`fixinplace trace`: watch a real run and name the line that wrote a tensor autograd had saved for backward.

`with fixinplace.trace():` (this package is callable: `fixinplace.trace()` returns a context manager) runs the
block under the tracer and prints its report to stderr when the block leaves; the `fixinplace trace` command and
the pytest plugin (`fixinplace.pytest_plugin`) run whole programs and test suites under it. torch is imported only
when a trace starts, so that `import fixinplace` works without torch.
"""

from __future__ import annotations

import sys
import types

from fixinplace.trace.report import render


class Trace:
    """A context manager running its block under the tracer; `findings` lists the hazards once it has left."""

    def __init__(self, report: bool = True, output_format: str = "text") -> None:
        self.report = report
        self.output_format = output_format
        self.findings: list = []
        self._tracer = None

    def __enter__(self) -> "Trace":
        from fixinplace.trace.tracer import Tracer, active_tracer  # deferred: torch, imported when a trace starts

        self._tracer = active_tracer() or Tracer()
        self._tracer.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        tracer, self._tracer = self._tracer, None
        tracer.__exit__(*exc)
        self.findings = tracer.findings
        if self.report and self.findings and tracer.depth == 0:
            sys.stderr.write(render(self.findings, self.output_format))
            sys.stderr.flush()


def trace(report: bool = True, output_format: str = "text") -> Trace:
    """A context manager that traces its block: `with fixinplace.trace(): ...`; prints the hazards it saw to
    stderr when the block leaves (`report=False`: only keep them in `.findings`)."""
    return Trace(report=report, output_format=output_format)


class _CallableModule(types.ModuleType):
    """Lets `fixinplace.trace()` work although `fixinplace.trace` is this package once it is imported."""

    __call__ = staticmethod(trace)


sys.modules[__name__].__class__ = _CallableModule
