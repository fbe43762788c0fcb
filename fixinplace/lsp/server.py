"""The fixinplace language server (pygls): diagnostics, quick fixes, fix-all and hover.

Every analysis is `fixinplace.engine.check_source` on the editor's text (never the file on disk). The fix of a
diagnostic is the checked fix `fixinplace fix` would apply (`fixinplace.fix.offer`: the text rewritten and analysed
again), computed only when asked for: for the diagnostics under a code action's range, or under the hover; a quick
fix applies it, fix-all runs `fixinplace.fix.fix_text` exactly as `fixinplace fix` does. A text that does not parse keeps its last good diagnostics. Nothing imports or runs user
code. The event loop only reads messages and answers: diagnostics are computed in one worker thread (a change
debounces the next analysis by `DEBOUNCE_S`), each hover and code action in a thread of its own, so that a fix-all
that takes a minute on a large file delays nothing else, and a cancelled request is answered at once. A result
computed for a text the document no longer has is dropped. Messages are read by `framing.serve_messages`, which
skips a malformed one instead of losing its place in the stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Optional, TypeVar

from lsprotocol import types
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from fixinplace import __version__
from fixinplace.diagnostics import Diagnostic, Severity
from fixinplace.analysis import project
from fixinplace.engine import SourceError, check_source
from fixinplace.lsp.convert import fix_title, hover_text, text_lines, to_character, to_lsp, to_range
from fixinplace.lsp.document import use_source_lines
from fixinplace.lsp.edits import minimal_edits
from fixinplace.lsp.framing import serve_messages
from fixinplace.settings import ConfigError, Settings, load_settings

log = logging.getLogger(__name__)
T = TypeVar("T")

DEBOUNCE_S = 0.3
FIX_ALL_KIND = "source.fixAll.fixinplace"


@dataclass
class DocState:
    """What the server knows about one open document."""

    text: str | None = None  # the text the diagnostics below were computed from (the last text that parsed)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    task: asyncio.Task | None = None  # the pending debounced analysis
    # The last fix-all: for which (text, settings), and its edits (a future while they are computed).
    fix_all: tuple[tuple[str, Settings], asyncio.Future] | None = None


@dataclass(frozen=True)
class Snapshot:
    """A document as a request found it: all that the work done off the event loop reads."""

    uri: str
    path: str
    text: str
    settings: Settings
    diagnostics: list[Diagnostic] | None  # those published for `text`; None when not computed yet

    def analysed(self) -> list[Diagnostic] | None:
        """The diagnostics of `text` (analysed now when not computed yet), None when it does not parse."""
        if self.diagnostics is not None:
            return self.diagnostics
        return FixinplaceServer._analyse(self.text, self.path, self.settings)[0]


def _client_options(raw: Any) -> dict[str, Any]:
    """select/ignore/unsafe fixes/severity from initializationOptions or didChangeConfiguration settings."""
    if not isinstance(raw, dict):
        return {}
    if isinstance(raw.get("fixinplace"), dict):
        raw = raw["fixinplace"]
    out: dict[str, Any] = {}
    for key in ("select", "ignore"):
        value = raw.get(key)
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[key] = value
    for key in ("unsafeFixes", "unsafe_fixes", "unsafe-fixes"):
        if isinstance(raw.get(key), bool):
            out["unsafe_fixes"] = raw[key]
    if isinstance(raw.get("severity"), str):
        out["severity"] = raw["severity"]
    for key in ("fixStyle", "fix_style", "fix-style"):
        if isinstance(raw.get(key), str):
            out["fix_style"] = raw[key]
    return out


class FixinplaceServer(LanguageServer):
    """The language server with its per-document state and settings."""

    def __init__(self) -> None:
        super().__init__("fixinplace", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.options: dict[str, Any] = {}
        self.docs: dict[str, DocState] = {}
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fixinplace-analysis")

    # transport ----------------------------------------------------------------------------------------------
    # pygls's start_io/start_tcp, with `serve_messages` as the reader loop (pygls's loses its place in the stream
    # after a malformed header: see framing.py). `_stop_event` and `_server` are what pygls's shutdown() stops.

    def start_io(self, stdin: Optional[BinaryIO] = None, stdout: Optional[BinaryIO] = None) -> None:
        """Serve on stdin/stdout until the client exits or closes them."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        try:
            asyncio.run(serve_messages(reader, self.protocol, self._stop_event))
        except BrokenPipeError:
            log.error("fixinplace lsp: the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve on TCP at host:port (one client at a time, as pygls does)."""
        self._stop_event = stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await serve_messages(reader, self.protocol, stop_event)
            self.shutdown()

        async def main() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass

    # settings ---------------------------------------------------------------------------------------------

    def settings_for(self, path: str) -> Settings:
        """`[tool.fixinplace]` of the nearest pyproject.toml, with the client's options over it."""
        root = self.protocol._workspace.root_path if self.protocol._workspace is not None else None
        cwd = Path(root) if root else Path.cwd()
        folder = os.path.dirname(path) if os.path.isabs(path) else str(cwd)
        try:
            base = load_settings(None, [folder], cwd=cwd)
        except ConfigError as e:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=str(e)))
            base = Settings(project_root=cwd)
        try:
            return base.override(
                select=self.options.get("select"),
                ignore=self.options.get("ignore"),
                severity=self.options.get("severity"),
                unsafe_fixes=self.options.get("unsafe_fixes"),
                fix_style=self.options.get("fix_style"),
            )
        except ConfigError as e:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=str(e)))
            return base

    # analysis ---------------------------------------------------------------------------------------------

    @staticmethod
    def path_of(uri: str) -> str:
        return to_fs_path(uri) or uri

    @staticmethod
    def _analyse(text: str, path: str, settings: Settings) -> tuple[list[Diagnostic] | None, str | None]:
        """(diagnostics, None); (None, None) when the text does not parse; (None, reason) when the analysis failed.

        Runs in the worker thread: touches no server state."""
        try:
            project.forget()  # the editor's project changes between analyses (files created, renamed)
            return check_source(text, path, settings), None
        except SourceError:
            return None, None
        except Exception as e:  # never let one document take the server down
            log.exception("analysis failed")
            return None, f"fixinplace: {path}: analysis failed: {e}"

    def _report(self, reason: str | None) -> None:
        if reason:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=reason))

    async def analyse(self, uri: str, delay: float = 0.0) -> None:
        """Analyse the current text of a document (after `delay`) and publish its diagnostics."""
        if delay:
            await asyncio.sleep(delay)
        try:
            await self._analyse_document(uri)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("publishing diagnostics failed")

    async def _analyse_document(self, uri: str) -> None:
        if uri not in self.docs:
            return  # closed meanwhile
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        state = self.docs.setdefault(uri, DocState())
        if state.text == text:
            diagnostics: list[Diagnostic] | None = state.diagnostics
        else:
            path = self.path_of(uri)
            settings = self.settings_for(path)
            diagnostics, reason = await asyncio.get_running_loop().run_in_executor(
                self.executor, self._analyse, text, path, settings
            )
            self._report(reason)
        if self.workspace.get_text_document(uri).source != text:
            return  # the text changed meanwhile; the next analysis publishes
        if diagnostics is not None:
            state.text, state.diagnostics = text, diagnostics
        self.publish(uri, version)

    def publish(self, uri: str, version: int | None = None) -> None:
        state = self.docs.get(uri) or DocState()
        lines = text_lines(state.text or "")
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=version, diagnostics=[to_lsp(d, lines, uri) for d in state.diagnostics]
            )
        )

    def schedule(self, uri: str, delay: float) -> None:
        """(Re)start the analysis of a document, cancelling a pending one."""
        state = self.docs.setdefault(uri, DocState())
        if state.task is not None and not state.task.done():
            state.task.cancel()
        state.task = asyncio.ensure_future(self.analyse(uri, delay))

    def snapshot(self, uri: str) -> Snapshot:
        """The current text of a document, with its settings and, when computed already, its diagnostics."""
        text = self.workspace.get_text_document(uri).source
        state = self.docs.get(uri)
        path = self.path_of(uri)
        known = state.diagnostics if state is not None and state.text == text else None
        return Snapshot(uri, path, text, self.settings_for(path), known)

    def is_current(self, snapshot: Snapshot) -> bool:
        """Whether the document still has the text of `snapshot` (a result computed for another text is dropped:
        its edits and ranges would land in the wrong place)."""
        try:
            return self.workspace.get_text_document(snapshot.uri).source == snapshot.text
        except OSError:  # closed meanwhile, and not on disk
            return False

    # code actions and hover: computed off the event loop --------------------------------------------------

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        snapshot = self.snapshot(params.text_document.uri)
        only = params.context.only

        def wanted(kind: str) -> bool:
            return not only or any(kind == k or kind.startswith(k + ".") for k in only)

        actions: list[types.CodeAction] = []
        if wanted(types.CodeActionKind.QuickFix):
            actions += await in_thread(quick_fixes, snapshot, params.range)
        if wanted(FIX_ALL_KIND):
            edits = await self.shared_fix_all(snapshot)
            if edits:
                actions.append(
                    types.CodeAction(
                        title="fixinplace: fix all autofixable hazards",
                        kind=FIX_ALL_KIND,
                        edit=types.WorkspaceEdit(changes={snapshot.uri: edits}),
                    )
                )
        return actions if self.is_current(snapshot) else []

    async def shared_fix_all(self, snapshot: Snapshot) -> list[types.TextEdit]:
        """The edits of fix-all on the snapshot's text. One computation per text and settings, shared: an editor
        that gives up on a slow fix-all (cancels it) and asks again for the same text gets the same run."""
        state = self.docs.setdefault(snapshot.uri, DocState())
        key = (snapshot.text, snapshot.settings)
        if state.fix_all is None or state.fix_all[0] != key:
            # The run stops at its next rewrite once the document has another text: nobody can use its edits.
            state.fix_all = (key, in_thread(fix_all_edits, snapshot, lambda: not self.is_current(snapshot)))
        # shield: cancelling this request leaves the run to the requests that share it
        return await asyncio.shield(state.fix_all[1])

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        snapshot = self.snapshot(params.text_document.uri)
        found = await in_thread(hover_of, snapshot, params.position)
        return found if self.is_current(snapshot) else None


# The work of a request, done in a thread: it reads its snapshot, never the server's state. -------------------


def quick_fixes(snapshot: Snapshot, rng: types.Range) -> list[types.CodeAction]:
    """A quick fix for each diagnostic in `rng` that has one."""
    diagnostics = snapshot.analysed()
    if not diagnostics:
        return []
    from fixinplace.fix import apply_offered, offer

    uri, path, text, settings = snapshot.uri, snapshot.path, snapshot.text, snapshot.settings
    lines = text_lines(text)
    near = [d for d in diagnostics if d.severity is not Severity.INFO and _overlaps(to_lsp(d, lines, uri).range, rng)]
    actions = []
    # Each fix is checked (the text rewritten and analysed again): only for the diagnostics asked about.
    for d in offer(text, path, near, settings) if near else []:
        if d.fix is None:
            continue
        if d.fix.applicability != "safe" and not settings.unsafe_fixes:
            continue
        lsp_d = to_lsp(d, lines, uri)
        if not _overlaps(lsp_d.range, rng):
            continue
        new_text = apply_offered(text, path, d)
        if new_text is None or new_text == text:
            continue
        actions.append(
            types.CodeAction(
                title=fix_title(d),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp_d],
                is_preferred=d.fix.applicability == "safe",
                edit=types.WorkspaceEdit(changes={uri: minimal_edits(text, new_text)}),
            )
        )
    return actions


def fix_all_edits(snapshot: Snapshot, stale: Callable[[], bool] | None = None) -> list[types.TextEdit]:
    """The edits that make the text what `fixinplace fix` makes of it; none when it does not parse, or when
    `stale()` turns true before the work is done."""
    from fixinplace.fix import FixStopped, fix_text

    try:
        fixed = fix_text(snapshot.text, snapshot.path, snapshot.settings, stop=stale).source
    except (SourceError, FixStopped):
        return []
    except Exception:  # logged here: the run may have no request left to report it to
        log.exception("fix-all failed")
        return []
    return minimal_edits(snapshot.text, fixed) if fixed != snapshot.text else []


def hover_of(snapshot: Snapshot, position: types.Position) -> types.Hover | None:
    """What the diagnostics at `position` say, each with the fix it gets."""
    diagnostics = snapshot.analysed()
    if not diagnostics:
        return None
    lines = text_lines(snapshot.text)
    line, column = to_character(lines, position)
    hits = [d for d in diagnostics if (d.line, d.column) <= (line, column) <= (d.end_line, d.end_column)]
    if not hits:
        return None
    from fixinplace.fix import offer

    hits = offer(snapshot.text, snapshot.path, hits, snapshot.settings)  # the fix each one gets
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(hover_text(d) for d in hits)),
        range=to_range(lines, hits[0]),
    )


def in_thread(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """`fn(*args)` in a new daemon thread, as a future of the running event loop.

    A thread per call rather than an executor: Python cannot stop a thread, so a cancelled request's work (a
    fix-all may take a minute) is left to finish on its own, its result dropped, without holding up later
    requests in a queue or the server's exit (an executor's threads are joined at exit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled meanwhile
            return
        if error is None:
            future.set_result(value)
        else:
            future.set_exception(error)

    def run() -> None:
        try:
            value, error = fn(*args), None
        except BaseException as e:  # handed to the awaiting request
            value, error = None, e
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the loop is closed: the server has stopped
            pass

    threading.Thread(target=run, name=f"fixinplace-{fn.__name__}", daemon=True).start()
    return future


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def create_server() -> FixinplaceServer:
    """A server with every handler registered."""
    server = FixinplaceServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: FixinplaceServer, params: types.InitializeParams) -> None:
        use_source_lines(ls.workspace)
        ls.options = _client_options(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: FixinplaceServer, params: types.DidChangeConfigurationParams) -> None:
        options = _client_options(params.settings)
        if options:
            ls.options = options
        for uri, state in ls.docs.items():
            state.text = None  # re-analyse with the new settings
            ls.schedule(uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FixinplaceServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FixinplaceServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: FixinplaceServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FixinplaceServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.docs.pop(params.text_document.uri, None)  # with its fix-all run, if any
        if state is not None and state.task is not None:
            state.task.cancel()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False),
    )
    async def code_action(ls: FixinplaceServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        # async: pygls answers a $/cancelRequest by cancelling the task (RequestCancelled), which stops the wait
        try:
            return await ls.code_actions(params)
        except Exception:
            log.exception("code actions failed")
            return []

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: FixinplaceServer, params: types.HoverParams) -> types.Hover | None:
        try:
            return await ls.hover(params)
        except Exception:
            log.exception("hover failed")
            return None

    return server


def serve(tcp: str | None = None) -> None:
    """Run the server on stdio, or on TCP at `HOST:PORT` (`PORT` alone binds 127.0.0.1)."""
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
