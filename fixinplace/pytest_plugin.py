"""pytest plugin: `pytest -p fixinplace.pytest_plugin --fixinplace-trace` runs each test under `fixinplace trace`
(setup, call and teardown).

The hazards each test triggered are listed in the terminal summary (with the test's id); a session whose tests all
passed exits with status 1 when there was any. Without `--fixinplace-trace` the plugin does nothing (torch is not
imported).
"""

from __future__ import annotations

import pytest

_KEY = pytest.StashKey[list]()


def pytest_addoption(parser) -> None:
    """Register `--fixinplace-trace`."""
    group = parser.getgroup("fixinplace")
    group.addoption("--fixinplace-trace", action="store_true", default=False,
                    help="Run each test under fixinplace's tracer and report in-place writes to tensors saved for backward.")


def pytest_configure(config) -> None:
    """Start the list of (test id, findings) when tracing is on."""
    if config.getoption("fixinplace_trace"):
        config.stash[_KEY] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Run the test (its fixtures' setup and teardown included) under the tracer and keep what it found."""
    found = item.config.stash.get(_KEY, None)
    if found is None:
        yield
        return
    from fixinplace.trace.tracer import Tracer  # deferred: the tracer (torch), only with --fixinplace-trace

    tracer = Tracer()
    with tracer:
        yield
    if tracer.findings:
        found.append((item.nodeid, tracer.findings))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Print each test's findings (the `fixinplace trace` text report)."""
    found = config.stash.get(_KEY, None)
    if not found:
        return
    from fixinplace.trace.report import render  # deferred: the trace package, only with --fixinplace-trace

    terminalreporter.section("fixinplace trace")
    for nodeid, findings in found:
        terminalreporter.write_line(nodeid)
        terminalreporter.write(render(findings, "text"))


def pytest_sessionfinish(session, exitstatus) -> None:
    """Exit with 1 when all tests passed but the tracer found a hazard that a backward ran into."""
    found = session.config.stash.get(_KEY, None)
    if found and exitstatus == 0:
        from fixinplace.trace.findings import affected_run  # deferred: the trace package, only with --fixinplace-trace

        if any(affected_run(findings) for _, findings in found):
            session.exitstatus = 1
