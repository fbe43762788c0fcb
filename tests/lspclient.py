"""Real LSP clients for the tests, `fixinplace lsp` a subprocess in both: pytest-lsp's (`client`), and `RawServer`,
which speaks raw JSON-RPC bytes (for malformed messages, exit codes and timings); and the requests they share."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

TIMEOUT = 10.0
ROOT = Path(__file__).resolve().parents[1]


# The servers run through the fork server of the tests (`forkserver.py`): a fork of an interpreter that imported
# pygls and LibCST once, with this process's pipes as its streams (a fresh `python -m fixinplace lsp` without one).
FORKCLIENT = str(Path(__file__).with_name("forkclient.py"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, FORKCLIENT, "-m", "fixinplace", "lsp"]))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def diagnostics_for(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """Wait for the next publishDiagnostics of `uri`."""

    async def wait():
        while True:
            params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if params.uri == uri:
                return list(params.diagnostics)

    return await asyncio.wait_for(wait(), TIMEOUT)


def open_doc(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


async def code_actions(client: LanguageClient, uri: str, rng: types.Range, only=None) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def checked_hover(client: LanguageClient, uri: str, position: types.Position) -> types.Hover | None:
    """The hover at `position` once the fixes it shows are checked (a hover that comes before the check ends
    says "Fix: being checked"; the check goes on, and a later hover shows the fix)."""

    async def wait():
        while True:
            hover = await client.text_document_hover_async(
                types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position))
            if hover is None or "Fix: being checked" not in hover.contents.value:
                return hover
            await asyncio.sleep(0.1)

    return await asyncio.wait_for(wait(), TIMEOUT * 3)


# A write through `p.detach()`, read afterwards: its only fix is unsafe (a copy: `p` would no longer see the write).
DETACHED = '''import torch


def main():
    x = torch.randn(4, requires_grad=True)
    p = torch.softmax(x, 0)
    target = p.detach()
    target.pow_(2)
    loss = (p * target).sum()
    loss.backward()
    return loss
'''


# --- raw JSON-RPC over the server's stdio ------------------------------------------------------------------


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def hazards(n: int) -> str:
    """A file with `n` functions, each with one FIP101 write (`add_` on the output that `exp` saved)."""
    return "import torch\n\n\n" + "".join(
        f"def f{i}(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n\n\n" for i in range(n)
    )


class RawServer:
    """`python -m fixinplace lsp` in a subprocess; what it writes is collected by two threads."""

    def __init__(self, cwd: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen([sys.executable, FORKCLIENT, "-m", "fixinplace", "lsp"], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        self.stderr: list[bytes] = []
        self.readers = [threading.Thread(target=self._read_stdout, daemon=True),
                        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                return
            self.inbox.put(json.loads(out.read(length)))

    def write(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, **message) -> None:
        self.write(frame({"jsonrpc": "2.0", **message}))

    def wait(self, wanted: Callable[[dict], bool], timeout: float) -> dict | None:
        """The first message from the server that `wanted` accepts (received before or within `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            for message in self.seen:
                if wanted(message):
                    self.seen.remove(message)
                    return message
            try:
                self.seen.append(self.inbox.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                return None

    def response(self, id: int, timeout: float) -> dict | None:
        return self.wait(lambda m: m.get("id") == id and "method" not in m, timeout)

    def diagnostics(self, uri: str, timeout: float) -> list[dict] | None:
        found = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri, timeout)
        return None if found is None else found["params"]["diagnostics"]

    def initialize(self, root: Path, capabilities: dict | None = None) -> dict:
        """Initialize the server (with these client capabilities); its InitializeResult."""
        self.send(id=1, method="initialize", params={"capabilities": capabilities or {}, "rootUri": root.as_uri()})
        answer = self.response(1, 30)
        assert answer is not None, "no answer to initialize"
        self.send(method="initialized", params={})
        return answer["result"]

    def request(self, id: int, method: str, params: dict | None = None, timeout: float = 10) -> dict | None:
        """Send a request and wait for its answer (None when none came within `timeout`)."""
        self.send(id=id, method=method, **({"params": params} if params is not None else {}))
        return self.response(id, timeout)

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.send(method="textDocument/didOpen",
                  params={"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        return uri

    def hover(self, id: int, uri: str, position: dict) -> None:
        self.send(id=id, method="textDocument/hover", params={"textDocument": {"uri": uri}, "position": position})

    def fix_all(self, id: int, uri: str) -> None:
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": 10**6, "character": 0}}
        self.send(id=id, method="textDocument/codeAction",
                  params={"textDocument": {"uri": uri}, "range": whole,
                          "context": {"diagnostics": [], "only": ["source.fixAll.fixinplace"]}})

    def close(self, timeout: float = 10) -> float:
        """Shut the server down as a client does; how long the process took to exit after `exit`."""
        self.send(id=999, method="shutdown")
        assert self.response(999, 10) is not None, "no answer to shutdown"
        self.send(method="exit")
        start = time.monotonic()
        self.proc.stdin.close()
        self.proc.wait(timeout)
        took = time.monotonic() - start
        for reader in self.readers:
            reader.join(5)
        return took

    def stderr_lines(self) -> list[str]:
        return b"".join(self.stderr).decode(errors="replace").splitlines()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
