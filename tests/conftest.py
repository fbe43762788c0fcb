"""What every test module shares: the `slow` marker and a word on how long the run will take.

The shared helpers for running children (the CLI, torch programs) are in `clirun.py`; the LSP client is in
`lspclient.py`. A run selects `-m "not slow"` by default (pyproject.toml): the slow tests are the full-size versions
of runs whose slice stays in the default run (more hash seeds, more files); `-m slow` runs only them, `-m ""` all.
"""

from __future__ import annotations

import pytest

import forkserver

# Measured on 2 idle cores with 2 workers (`python -m pytest -q`): the whole default run, and the slow part alone.
DEFAULT_RUN_S = 225
SLOW_RUN_S = 120
# Below this many tests a run is a developer's slice: no estimate is printed.
ESTIMATE_FROM_TESTS = 500


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a full-size run whose slice is in the default run (`-m slow` runs them)")


def _estimate(config: pytest.Config, count: int) -> str | None:
    """The line announcing a long run, or None for a short one."""
    if count < ESTIMATE_FROM_TESTS:
        return None
    markexpr = config.getoption("markexpr", "") or ""
    seconds = DEFAULT_RUN_S if "not slow" in markexpr else DEFAULT_RUN_S + SLOW_RUN_S
    if not getattr(config.option, "numprocesses", None):
        seconds *= 1.8  # one process does what two workers shared
    return (f"fixinplace: {count} tests; expect about {max(1, round(seconds / 60))} minutes on 2 idle cores "
            "(most of it is torch children, the language server and the fix fixtures)")


def _announce(config: pytest.Config, count: int) -> None:
    line = _estimate(config, count)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if line and reporter is not None and not getattr(config, "_fixinplace_announced", False):
        config._fixinplace_announced = True
        reporter.write_line(line)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids) -> None:  # noqa: ANN001 (xdist's hook signature)
    """With workers: announce once, when the first worker has collected."""
    _announce(node.config, len(ids))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Without workers: announce after collection."""
    if not hasattr(session.config, "workerinput") and not getattr(session.config.option, "numprocesses", None):
        _announce(session.config, len(session.items))


@pytest.fixture(scope="session", autouse=True)
def fork_server():
    """The fork server of this test process (`forkserver.py`): the language servers and verify's children the
    tests start are forks of an interpreter that imported torch, LibCST and pygls once."""
    server = forkserver.start()
    yield server
    if server is not None:
        server.stop()
