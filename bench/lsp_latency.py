"""Latency of `fixinplace lsp` as an editor feels it: initialize, diagnostics after an edit, hover, code action.

    python bench/lsp_latency.py [--lines 1000] [--edits 10] [--requests 10] [--starts 3]

Builds a file by repeating the fix fixtures' functions (renamed), starts `python -m fixinplace lsp` as a
subprocess and measures, in milliseconds (median and p90):

- initialize: from starting the process to the `initialize` answer (Python's start and the server's imports
  included: what an editor waits for), over `--starts` fresh processes;
- diagnostics after an edit: from a one-character `didChange`, sent after a pause longer than the server's
  debounce (`fixinplace.lsp.server.DEBOUNCE_S`: an edit, not a burst of typing), to the `publishDiagnostics` of
  that version;
- hover and code action (quick fixes) on flagged writes, with the analysis warm (the diagnostics of the current
  text published): a hover on each of `--requests` writes; code actions on `--requests` other writes (the first
  request at a write checks its fix), then on the same writes again; then hovers on those writes (their fixes
  checked).

Also prints one bare `check_source` of the file, for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Awaitable, Callable

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fixinplace.engine import check_source  # noqa: E402
from fixinplace.lsp.server import DEBOUNCE_S  # noqa: E402


def build_file(lines: int) -> str:
    """Fixture functions, renamed so that each copy is distinct, until the file has `lines` lines."""
    bodies = []
    for before in sorted((ROOT / "fixtures" / "fix").glob("*/before.py")):
        text = before.read_text(encoding="utf-8")
        body = text.split("import torch\n", 1)[-1].split('\nif __name__ == "__main__":')[0]
        bodies.append(body)
    out, n, count = ["import torch\n"], 1, 0
    while n < lines:
        body = bodies[count % len(bodies)]
        names = set(re.findall(r"^def (\w+)", body, re.M))
        renamed = re.sub(r"\b(" + "|".join(sorted(names)) + r")\b", lambda m: f"{m.group(1)}_{count}", body) if names else body
        out.append(renamed)
        n += renamed.count("\n")
        count += 1
    return "".join(out)


def percentile(values: list[float], q: float) -> float:
    """The `q` quantile of `values` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> str:
    """Median and p90 of millisecond figures, as printed."""
    return f"median {statistics.median(values):7.1f} ms, p90 {percentile(values, 0.9):7.1f} ms (n={len(values)})"


class Session:
    """One server process spoken to by pygls's client, with the diagnostics it publishes awaited per version."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("bench", "0")
        self.waiting: dict[int, asyncio.Future] = {}
        self.last: list[types.Diagnostic] = []

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            future = self.waiting.pop(params.version, None) if params.version is not None else None
            if future is not None and not future.done():
                self.last = list(params.diagnostics)
                future.set_result(time.perf_counter())

    async def start(self) -> float:
        """Start the server and initialize it: the ms from the process start to the answer."""
        t0 = time.perf_counter()
        await self.client.start_io(sys.executable, "-m", "fixinplace", "lsp")
        await self.client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=self.root.as_uri()))
        took = (time.perf_counter() - t0) * 1000
        self.client.initialized(types.InitializedParams())
        return took

    def expect(self, version: int) -> asyncio.Future:
        future = self.waiting[version] = asyncio.get_running_loop().create_future()
        return future

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def timed(call: Callable[[], Awaitable[object]]) -> float:
    """Milliseconds one request takes to be answered."""
    start = time.perf_counter()
    await asyncio.wait_for(call(), 120)
    return (time.perf_counter() - start) * 1000


async def run(lines: int, edits: int, requests: int, starts: int) -> None:
    text = build_file(lines)
    n_lines = text.count("\n")
    check_source(text, "bench.py")  # the first analysis pays for imports and caches: not what is measured
    t0 = time.perf_counter()
    diags = check_source(text, "bench.py")
    bare_ms = (time.perf_counter() - t0) * 1000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "bench.py"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()

        cold = []
        for _ in range(max(0, starts - 1)):
            session = Session(root)
            cold.append(await session.start())
            await session.stop()
        session = Session(root)
        cold.append(await session.start())
        client = session.client

        opened = session.expect(1)
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        await asyncio.wait_for(opened, 120)
        published_count = len(session.last)

        # the edit: a digit in a constant of a line near the middle, toggled
        lines_ = text.splitlines()
        target = next(i for i in range(len(lines_) // 2, len(lines_)) if re.search(r"\d\.\d", lines_[i]))
        col = re.search(r"\d\.\d", lines_[target]).start()
        latencies = []
        for k in range(edits):
            await asyncio.sleep(DEBOUNCE_S + 0.2)  # a pause in typing
            version = k + 2
            future = session.expect(version)
            start = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=target, character=col),
                                      end=types.Position(line=target, character=col + 1)),
                    text=str(k % 10))]))
            end = await asyncio.wait_for(future, 120)
            latencies.append((end - start) * 1000)

        # hover and code action on flagged writes spread over the file (the diagnostics of the current text)
        flagged = [d for d in session.last if d.severity != types.DiagnosticSeverity.Information]
        step = max(1, len(flagged) // max(1, 2 * requests))
        spread = flagged[::step]
        hovered, asked = spread[0::2][:requests], spread[1::2][:requests]  # distinct writes

        def hover(d: types.Diagnostic):
            return lambda: client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=d.range.start))

        def action(d: types.Diagnostic):
            return lambda: client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=d.range,
                context=types.CodeActionContext(diagnostics=[d], only=[types.CodeActionKind.QuickFix])))

        hovers = [await timed(hover(d)) for d in hovered]
        actions = [await timed(action(d)) for d in asked]
        actions_again = [await timed(action(d)) for d in asked]
        hovers_checked = [await timed(hover(d)) for d in asked]
        await session.stop()

    debounce = DEBOUNCE_S * 1000
    print(f"file: {n_lines} lines, {len(diags)} diagnostics (published on open: {published_count})")
    print(f"bare check_source of the file (warm):       {bare_ms:7.1f} ms")
    print(f"initialize, from the process start:          {summary(cold)}")
    print(f"didChange -> publishDiagnostics:             {summary(latencies)} (server debounce: {debounce:.0f} ms)")
    print(f"hover on a flagged write, first:             {summary(hovers)}")
    print(f"code action (quickfix) on a write, first:    {summary(actions)}")
    print(f"code action, the same writes again:          {summary(actions_again)}")
    print(f"hover on those writes (fixes checked):       {summary(hovers_checked)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--requests", type=int, default=10, help="flagged writes hovered and asked for code actions")
    parser.add_argument("--starts", type=int, default=3, help="server processes started to time initialize")
    args = parser.parse_args()
    asyncio.run(run(args.lines, args.edits, args.requests, args.starts))


if __name__ == "__main__":
    main()
