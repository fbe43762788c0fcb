"""Latency of `fixinplace lsp`: time from `didChange` to the published diagnostics on a ~2,000-line file.

    python bench/lsp_latency.py [--lines 2000] [--edits 20]

Builds a file by repeating the fix fixtures' functions (renamed), starts `python -m fixinplace lsp` as a
subprocess, opens the file, then sends one-character range edits one at a time and waits for the diagnostics of
each version. Prints the median and p90 in milliseconds, with and without the server's debounce
(`fixinplace.lsp.server.DEBOUNCE_S`), and the time of one bare `check_source` of the file for comparison.
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
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def run(lines: int, edits: int) -> None:
    text = build_file(lines)
    n_lines = text.count("\n")
    t0 = time.perf_counter()
    diags = check_source(text, "bench.py")
    bare_ms = (time.perf_counter() - t0) * 1000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.py"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client = LanguageClient("bench", "0")
        waiting: dict[int, asyncio.Future] = {}

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            future = waiting.pop(params.version, None) if params.version is not None else None
            if future is not None and not future.done():
                future.set_result((time.perf_counter(), len(params.diagnostics)))

        await client.start_io(sys.executable, "-m", "fixinplace", "lsp")
        await client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=Path(tmp).as_uri())
        )
        client.initialized(types.InitializedParams())
        loop = asyncio.get_running_loop()
        waiting[1] = loop.create_future()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        _, published_count = await asyncio.wait_for(waiting[1], 60) if 1 in waiting else (0, 0)
        # the edit: a digit in a constant of a line near the middle, toggled
        lines_ = text.splitlines()
        target = next(i for i in range(len(lines_) // 2, len(lines_)) if re.search(r"\d\.\d", lines_[i]))
        col = re.search(r"\d\.\d", lines_[target]).start()
        latencies = []
        for k in range(edits):
            version = k + 2
            future = waiting[version] = loop.create_future()
            start = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[
                        types.TextDocumentContentChangePartial(
                            range=types.Range(
                                start=types.Position(line=target, character=col),
                                end=types.Position(line=target, character=col + 1),
                            ),
                            text=str(k % 10),
                        )
                    ],
                )
            )
            end, _ = await asyncio.wait_for(future, 60)
            latencies.append((end - start) * 1000)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    median, p90 = statistics.median(latencies), percentile(latencies, 0.9)
    debounce = DEBOUNCE_S * 1000
    print(f"file: {n_lines} lines, {len(diags)} diagnostics (published on open: {published_count})")
    print(f"bare check_source of the file: {bare_ms:.1f} ms")
    print(f"didChange -> publishDiagnostics over {edits} edits (debounce {debounce:.0f} ms included): "
          f"median {median:.1f} ms, p90 {p90:.1f} ms")
    print(f"excluding the debounce: median {median - debounce:.1f} ms, p90 {p90 - debounce:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(run(args.lines, args.edits))


if __name__ == "__main__":
    main()
