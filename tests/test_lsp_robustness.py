"""`fixinplace lsp` survives malformed messages and long work (issue 14).

The server is a real subprocess spoken to in raw bytes (`lspclient.RawServer`: a malformed message cannot be sent
through an LSP client library), with the answers read back by a thread, so that each wait has its own deadline.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lspclient import RawServer, hazards

ROOT = Path(__file__).resolve().parents[1]
SMALL = (ROOT / "fixtures" / "fix" / "01_clone_before_write_int_index" / "before.py").read_text()
SMALL_WRITE = {"line": 8, "character": 5}  # on its one FIP101 write, `e[0] = 0.0`
REQUEST_CANCELLED = -32800
QUICK = 2.0  # seconds: what "answers at once" means here (a loaded 2-core machine included)


@pytest.fixture
def server(tmp_path: Path):
    raw = RawServer(tmp_path)
    yield raw
    raw.kill()


# --- malformed messages ----------------------------------------------------------------------------------------

# A request glued behind a bad header: its length is unknown, so it is part of the bad message and never answered.
LOST = json.dumps({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}).encode()

MALFORMED = {
    "non-numeric length": (b"Content-Length: abc\r\n\r\n" + LOST, "Content-Length is not a number ('abc')"),
    "negative length": (b"Content-Length: -5\r\n\r\n" + LOST, "Content-Length is not a number ('-5')"),
    "no length": (b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + LOST,
                  "no Content-Length header"),
    "body not JSON": (b"Content-Length: 10\r\n\r\n{not json}", "the body is not JSON"),
    "not a header": (b"hello\r\n", "not a header ('hello')"),
    "not a JSON-RPC message": (b"Content-Length: 3\r\n\r\n[1]", "the body is not a JSON-RPC message ('[1]')"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_message_is_skipped_and_logged_once(server: RawServer, tmp_path: Path, case: str):
    bad, reason = MALFORMED[case]
    server.initialize(tmp_path)
    uri = server.open(tmp_path / "small.py", SMALL)
    server.write(bad)
    server.hover(2, uri, SMALL_WRITE)  # the next valid request, in the same write as the bad bytes
    answer = server.response(2, 10)
    assert answer is not None, "the request after the malformed message got no answer"
    assert "FIP101" in answer["result"]["contents"]["value"]
    assert server.response(99, 0) is None
    server.close()
    lines = server.stderr_lines()  # one line for the bad message, nothing else (no traceback)
    assert len(lines) == 1 and lines[0].startswith("fixinplace lsp: ignored a malformed message: " + reason), lines


# --- long work ---------------------------------------------------------------------------------------------------

# fix-all on this file takes about 25 s (measured: 100 hazards, 600 lines; its fixpoint re-analyses the file once per
# hazard), far longer than any wait below: the test cancels it instead of waiting.
LONG = hazards(100)


def test_long_fix_all_blocks_no_diagnostics_hover_or_cancellation(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    big = server.open(tmp_path / "big.py", LONG)
    assert len(server.diagnostics(big, 30) or []) == 100
    server.fix_all(10, big)
    started = time.monotonic()
    time.sleep(0.3)  # fix-all is under way

    small = server.open(tmp_path / "small.py", SMALL)
    assert server.diagnostics(small, QUICK), "no diagnostics for another document while fix-all runs"
    sent = time.monotonic()
    server.hover(11, small, SMALL_WRITE)
    hover = server.response(11, QUICK)
    assert hover is not None, "no hover while fix-all runs"
    assert "FIP101" in hover["result"]["contents"]["value"]
    latency = time.monotonic() - sent
    print(f"hover latency while fix-all runs: {latency:.3f} s")

    fix_all_answered = server.response(10, 0) is not None  # not after ~1 s, unless fix-all got much faster
    server.send(method="$/cancelRequest", params={"id": 10})
    if not fix_all_answered:
        cancelled = server.response(10, QUICK)
        assert cancelled is not None, "no answer to the cancelled fix-all"
        assert cancelled["error"]["code"] == REQUEST_CANCELLED, cancelled
    print(f"fix-all cancelled after {time.monotonic() - started:.1f} s")
    assert server.close() < 5, "the server's exit waited for the cancelled fix-all"


def test_fix_all_computed_for_an_older_text_is_dropped(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    text = hazards(15)
    uri = server.open(tmp_path / "m.py", text)
    server.fix_all(20, uri)
    # typed while fix-all runs: its edits are for the old text
    server.send(method="textDocument/didChange",
                params={"textDocument": {"uri": uri, "version": 2},
                        "contentChanges": [{"text": "# edited\n" + text}]})
    answer = server.response(20, 60)
    assert answer is not None and answer["result"] == [], "fix-all answered edits for a text the document no longer has"

    server.fix_all(21, uri)  # asked again, for the new text
    answer = server.response(21, 60)
    assert answer is not None and len(answer["result"]) == 1
    assert answer["result"][0]["edit"]["changes"][uri]
    server.close()


def test_cancelled_fix_all_answers_request_cancelled_and_is_asked_again(server: RawServer, tmp_path: Path):
    from fixinplace.fix import fix_text
    from fixinplace.lsp.edits import apply_edits
    from fixinplace.settings import Settings
    from lsprotocol import types

    server.initialize(tmp_path)
    text = hazards(10)
    path = tmp_path / "m.py"
    uri = server.open(path, text)
    server.fix_all(30, uri)
    server.send(method="$/cancelRequest", params={"id": 30})
    cancelled = server.response(30, QUICK)
    assert cancelled is not None and cancelled.get("error", {}).get("code") == REQUEST_CANCELLED, cancelled

    server.fix_all(31, uri)
    answer = server.response(31, 60)
    assert answer is not None and len(answer["result"]) == 1
    edits = [types.TextEdit(range=types.Range(start=types.Position(**e["range"]["start"]),
                                              end=types.Position(**e["range"]["end"])), new_text=e["newText"])
             for e in answer["result"][0]["edit"]["changes"][uri]]
    assert apply_edits(text, edits) == fix_text(text, str(path), Settings(project_root=tmp_path)).source
    server.close()


# --- a fix checked once per text ---------------------------------------------------------------------------------

BIG = hazards(250)  # 1,500 lines: checking one fix (the file analysed again) takes longer than a hover may wait
FAST = 1.0  # seconds: well under one check of a fix on BIG (1.5 s to 5 s), well over a hover's wait (0.15 s)


def test_hover_does_not_wait_for_a_slow_fix_check_and_the_code_action_reuses_it(server: RawServer, tmp_path: Path):
    from fixinplace.engine import check_source
    from fixinplace.fix import offer
    from fixinplace.lsp.convert import fix_title
    from fixinplace.settings import Settings

    server.initialize(tmp_path)
    path = tmp_path / "big.py"
    uri = server.open(path, BIG)
    diagnostics = server.diagnostics(uri, 60)
    assert diagnostics is not None and len(diagnostics) == 250
    write = diagnostics[200]["range"]
    sent = time.monotonic()
    server.hover(2, uri, write["start"])
    first = server.response(2, FAST)
    assert first is not None, "the hover waited for the check of its fix"
    print(f"first hover: {time.monotonic() - sent:.3f} s")
    assert "FIP101" in first["result"]["contents"]["value"]
    # the check goes on: a later hover shows the fix
    deadline, shown = time.monotonic() + 60, first["result"]["contents"]["value"]
    while "Fix: being checked" in shown and time.monotonic() < deadline:
        time.sleep(0.2)
        server.hover(3, uri, write["start"])
        shown = server.response(3, QUICK)["result"]["contents"]["value"]
    line = write["start"]["line"] + 1
    settings = Settings(project_root=tmp_path)
    expected = offer(BIG, str(path), [d for d in check_source(BIG, str(path), settings) if d.line == line], settings)
    assert f"Fix: {expected[0].fix.description}" in shown
    # the quick fix of that write is the checked one, made without checking it again
    sent = time.monotonic()
    actions = server.request(4, "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": write,
                                                            "context": {"diagnostics": [], "only": ["quickfix"]}}, FAST)
    assert actions is not None, "the code action checked the fix again"
    print(f"code action after the hover: {time.monotonic() - sent:.3f} s")
    assert [a["title"] for a in actions["result"]] == [fix_title(expected[0]), "Ignore FIP101 for this line"]
    server.close()
