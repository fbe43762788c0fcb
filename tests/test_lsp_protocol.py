"""`fixinplace lsp` keeps the JSON-RPC and LSP lifecycle contract: every request is answered (a malformed one with
an InvalidParams error that names what is wrong, one after `shutdown` with InvalidRequest), a request about a
document that is not open gets null without a traceback, and `exit` ends the process at once (code 0 after
`shutdown`, 1 without), whatever analysis is running.

The server is a real subprocess spoken to in raw JSON-RPC (`lspclient.RawServer`).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from clirun import child_env
from lspclient import RawServer, hazards

ROOT = Path(__file__).resolve().parents[1]
SMALL = (ROOT / "fixtures" / "fix" / "01_clone_before_write_int_index" / "before.py").read_text()
SMALL_WRITE = {"line": 8, "character": 5}  # on its one FIP101 write, `e[0] = 0.0`
WRITE_RANGE = {"start": {"line": 8, "character": 4}, "end": {"line": 8, "character": 14}}
INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32600, -32601, -32602


@pytest.fixture
def server(tmp_path: Path):
    raw = RawServer(tmp_path)
    yield raw
    raw.kill()


def no_traceback(server: RawServer) -> list[str]:
    lines = server.stderr_lines()
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    return lines


# --- 1. every request is answered ---------------------------------------------------------------------------------

# (params, what the error message must name)
MALFORMED_PARAMS = {
    "code action diagnostic without range": (
        "textDocument/codeAction",
        {"textDocument": {"uri": "URI"}, "range": WRITE_RANGE,
         "context": {"diagnostics": [{"message": "x", "code": "FIP101", "source": "fixinplace"}]}},
        "required field missing @ $.params.context.diagnostics[0].range"),
    "hover position not a number": (
        "textDocument/hover", {"textDocument": {"uri": "URI"}, "position": {"line": 8, "character": "five"}},
        "$.params.position.character"),
    "hover without params": ("textDocument/hover", None, "required field missing @ $.params"),
    "code action without context": (
        "textDocument/codeAction", {"textDocument": {"uri": "URI"}, "range": WRITE_RANGE},
        "required field missing @ $.params.context"),
}


@pytest.mark.parametrize("case", MALFORMED_PARAMS, ids=list(MALFORMED_PARAMS))
def test_request_with_malformed_params_gets_invalid_params(server: RawServer, tmp_path: Path, case: str):
    method, params, named = MALFORMED_PARAMS[case]
    server.initialize(tmp_path)
    uri = server.open(tmp_path / "small.py", SMALL)
    if params is not None:
        params = {**params, "textDocument": {"uri": uri}}
    answer = server.request(2, method, params, timeout=10)
    assert answer is not None, "a malformed request got no answer"
    assert answer["error"]["code"] == INVALID_PARAMS, answer
    assert method in answer["error"]["message"] and named in answer["error"]["message"], answer
    # the server goes on: the next request is answered
    hover = server.request(3, "textDocument/hover", {"textDocument": {"uri": uri}, "position": SMALL_WRITE}, 30)
    assert hover is not None and "FIP101" in hover["result"]["contents"]["value"]
    server.close()
    lines = no_traceback(server)
    assert len(lines) == 1, lines
    assert lines[0].startswith("fixinplace lsp: answered a malformed request with an error: "), lines


def test_unknown_request_and_request_after_shutdown_are_answered(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    unknown = server.request(2, "fixinplace/noSuchThing", {})
    assert unknown is not None and unknown["error"]["code"] == METHOD_NOT_FOUND, unknown
    assert server.request(3, "shutdown") is not None
    late = server.request(4, "textDocument/hover", {"textDocument": {"uri": (tmp_path / "a.py").as_uri()},
                                                    "position": {"line": 0, "character": 0}})
    assert late is not None and late["error"]["code"] == INVALID_REQUEST, late
    assert "shut down" in late["error"]["message"]
    server.send(method="exit")
    assert server.proc.wait(10) == 0


# --- 5. a document that is not open -------------------------------------------------------------------------------


def test_requests_about_a_document_never_opened_get_null_without_traceback(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    on_disk = tmp_path / "on_disk.py"
    on_disk.write_text(SMALL)
    for n, path in enumerate([on_disk, tmp_path / "missing.py"]):
        uri = path.as_uri()
        hover = server.request(10 + n, "textDocument/hover", {"textDocument": {"uri": uri}, "position": SMALL_WRITE})
        assert hover is not None and hover["result"] is None, hover
        action = server.request(20 + n, "textDocument/codeAction",
                                {"textDocument": {"uri": uri}, "range": WRITE_RANGE, "context": {"diagnostics": []}})
        assert action is not None and action.get("result") is None and "error" not in action, action
        # notifications about it change nothing and say nothing more than a line
        server.send(method="textDocument/didSave", params={"textDocument": {"uri": uri}})
        server.send(method="textDocument/didChange", params={
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                                "text": "# x\n"}]})
    assert server.diagnostics(on_disk.as_uri(), 1.0) is None, "a document never opened got diagnostics"
    server.close()
    lines = no_traceback(server)
    assert len(lines) <= 8, lines  # at most a line per request or notification
    assert all("not open" in line for line in lines), lines


# --- 3 and 4. exit ------------------------------------------------------------------------------------------------


def test_exit_without_shutdown_exits_with_code_1(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    server.send(method="exit")
    assert server.proc.wait(10) == 1


def test_exit_after_shutdown_exits_with_code_0(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    assert server.request(2, "shutdown") is not None
    server.send(method="exit")
    assert server.proc.wait(10) == 0


# ~1.1 MB of hazards: its analysis takes tens of seconds (more on a loaded machine).
LARGE = hazards(18_000)


@pytest.mark.parametrize("shutdown", [True, False], ids=["shutdown+exit", "exit alone"])
def test_exit_does_not_wait_for_a_running_analysis(server: RawServer, tmp_path: Path, shutdown: bool):
    assert len(LARGE) > 1_000_000
    server.initialize(tmp_path)
    server.open(tmp_path / "large.py", LARGE)
    time.sleep(1.0)  # the analysis is under way
    if shutdown:
        server.send(id=2, method="shutdown")
    sent = time.monotonic()
    server.send(method="exit")
    code = server.proc.wait(30)
    took = time.monotonic() - sent
    print(f"the process ended {took:.3f} s after exit")
    assert code == (0 if shutdown else 1)
    assert took < 1.0, f"exit took {took:.1f} s: it waited for the analysis"


@pytest.mark.parametrize("args", [["lsp"], ["lsp", "--stdio"]])
def test_the_editors_command_starts_the_server_without_the_command_line_parser(tmp_path: Path, args: list[str]):
    # A fresh interpreter, as an editor starts it: the command line (typer) would add a tenth of a second to every
    # start. The input ends at once: the server ends as a killed client leaves it.
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "fixinplace", *args], input="",
                          capture_output=True, text=True, cwd=tmp_path, env=child_env(), timeout=120)
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "pygls.lsp.server" in imported and "typer" not in imported and "pydantic" not in imported
    assert proc.returncode == 1  # the input ended without `shutdown` and `exit`
