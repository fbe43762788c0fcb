"""The fixinplace language server (pygls): diagnostics, quick fixes (a fix, unsafe ones included, and an ignore
comment), fix-all and hover, for text documents and for the Python cells of notebook documents (a notebook is
analysed as one text, its code cells joined: `notebooks.py`).

Every analysis is `fixinplace.engine.analyse_source` on the editor's text (never the file on disk), its
diagnostics selected as `check_source` selects them. The fix of a diagnostic is the checked fix `fixinplace fix`
would apply (what `fixinplace.fix.offer` gives: the text rewritten and analysed again), computed only when asked
for, for the diagnostics under a code action's range or under the hover, and kept with the text (`fixes.py`); a
quick fix applies it, fix-all runs `fixinplace.fix.fix_text` exactly as `fixinplace fix` does. A text that does not
parse keeps its last good diagnostics. Nothing imports or runs user code. The event loop only reads messages and
answers: diagnostics are computed in one worker thread (a change in a burst of typing debounces the next analysis
by `DEBOUNCE_S`), each hover and code action in a thread of its own, so that a fix-all that takes a minute on a
large file delays nothing else, and a cancelled request is answered at once. A result computed for a text the
document no longer has is dropped. Messages are read by `framing.serve_messages`, which skips a malformed one
instead of losing its place in the stream; `protocol.py` and `guard.py` keep the lifecycle (`shutdown`, `exit`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Optional, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from urllib.parse import unquote

from fixinplace import __version__
from fixinplace.diagnostics import Applicability, Diagnostic, Severity, blocking
from fixinplace.analysis import project
from fixinplace.engine import SourceError, analyse_source, select_diagnostics
from fixinplace.lsp.convert import UTF16, Layout, fix_title, hover_text, text_lines, to_lsp
from fixinplace.lsp.document import use_source_lines
from fixinplace.lsp.edits import minimal_edits
from fixinplace.lsp.fixes import TextFixes, key as fix_key
from fixinplace.lsp.framing import serve_messages
from fixinplace.lsp.guard import serve_guarded
from fixinplace.lsp.notebooks import NOTEBOOK_SYNC, notebook_source
from fixinplace.lsp.protocol import LifecycleProtocol
from fixinplace.lsp.suppress import ignore_title, verified
from fixinplace.noqa import IgnoreComments
from fixinplace.settings import ConfigError, Settings, load_settings

log = logging.getLogger(__name__)
T = TypeVar("T")

DEBOUNCE_S = 0.3
HOVER_WAIT_S = 0.15  # how long a hover waits for the check of the fix it shows
FIX_ALL_KIND = "source.fixAll.fixinplace"
NOTEBOOK_FIX_ALL_KIND = "notebook.source.fixAll.fixinplace"  # VS Code asks it once per notebook (on save)


@dataclass(frozen=True)
class Source:
    """What is analysed for one open document or notebook: its text (a notebook's cells joined) and where each of
    its lines stands in the editor."""

    key: str  # the text document's URI, or the notebook's
    path: str  # the file path the analysis and the settings take
    text: str
    layout: Layout
    version: int | None  # the text document's version (None for a notebook: each cell has its own)


@dataclass
class DocState:
    """What the server knows about one open document."""

    text: str | None = None  # the text the diagnostics below were computed from (the last text that parsed)
    layout: Layout | None = None  # where that text's lines stand
    diagnostics: list[Diagnostic] = field(default_factory=list)
    hazards: list[Diagnostic] = field(default_factory=list)  # every error and warning of `text`, of every rule
    fixes: TextFixes | None = None  # the checked fixes of `text`'s diagnostics, computed as they are asked for
    published: set[str] = field(default_factory=set)  # the documents given diagnostics (a notebook's cells)
    task: asyncio.Task | None = None  # the pending debounced analysis
    last_change: float = float("-inf")  # when the last change came (time.monotonic())
    analysis_s: float = float("inf")  # how long its last analysis took (unknown: long)
    # The last fix-all: for which (text, settings), and its edits (a future while they are computed).
    fix_all: tuple[tuple[str, Settings], asyncio.Future] | None = None


@dataclass(frozen=True)
class Snapshot:
    """A document as a request found it: all that the work done off the event loop reads."""

    uri: str  # the document asked about (a notebook's cell)
    path: str
    text: str
    settings: Settings
    diagnostics: list[Diagnostic] | None  # those published for `text`; None when not computed yet
    layout: Layout | None = None  # where the lines of `text` stand (by default: all in document `uri`)
    key: str = ""  # the document or notebook whose text `text` is (by default `uri`)
    fixes: TextFixes | None = None  # the fixes of `text`, shared with the other requests (with `diagnostics`)

    def __post_init__(self) -> None:
        if self.layout is None:
            object.__setattr__(self, "layout", Layout(self.uri, text_lines(self.text)))
        if not self.key:
            object.__setattr__(self, "key", self.uri)

    def analysed(self) -> list[Diagnostic] | None:
        """The diagnostics of `text` (analysed now when not computed yet), None when it does not parse."""
        if self.diagnostics is not None:
            return self.diagnostics
        found = FixinplaceServer._analyse(self.text, self.path, self.settings)[0]
        if found is None:
            return None
        diagnostics, hazards = found
        # Not shared: the published analysis is of another text (this one is newer, or its analysis is pending).
        object.__setattr__(self, "diagnostics", diagnostics)
        object.__setattr__(self, "fixes", TextFixes(self.text, self.path, self.settings, hazards,
                                                    self.layout.admits if self.layout is not None else None,
                                                    describe=self.layout.message if self.layout is not None else None))
        return diagnostics

    def text_fixes(self) -> TextFixes | None:
        """The checked fixes of `text`'s diagnostics (analysing it first when needed); None when it does not parse."""
        return self.fixes if self.analysed() is not None else None


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
        super().__init__("fixinplace", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=NOTEBOOK_SYNC, protocol_cls=LifecycleProtocol)
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
    def _analyse(text: str, path: str, settings: Settings
                 ) -> tuple[tuple[list[Diagnostic], list[Diagnostic]] | None, str | None]:
        """((diagnostics, hazards), None): the diagnostics reported (`check_source`) and every error and warning of
        every rule (what a fix is checked against); (None, None) when the text does not parse; (None, reason) when
        the analysis failed.

        Runs in the worker thread: touches no server state."""
        try:
            project.forget()  # the editor's project changes between analyses (files created, renamed)
            every = analyse_source(text, path)
            return (select_diagnostics(every, settings), blocking(every)), None
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

    @property
    def encoding(self) -> str:
        """What positions count, as negotiated at `initialize` ("utf-8", "utf-16" or "utf-32")."""
        workspace = self.protocol._workspace
        encoding = workspace.position_encoding if workspace is not None else None
        return str(getattr(encoding, "value", encoding) or UTF16)

    def is_open(self, uri: str) -> bool:
        """Whether `uri` is an open text document, notebook or notebook cell (pygls would read a document that is
        not open from disk)."""
        workspace = self.protocol._workspace
        if workspace is None:
            return False
        return (unquote(uri) in workspace.text_documents
                or workspace.get_notebook_document(notebook_uri=uri) is not None
                or workspace.get_notebook_document(cell_uri=uri) is not None)

    def known(self, uri: str, request: str) -> bool:
        """Whether `uri` is open; when not, says so in one line (a request about it is answered with nothing)."""
        if self.is_open(uri):
            return True
        log.warning("fixinplace lsp: %s of a document that is not open (no didOpen): %s", request, uri)
        return False

    def key_of(self, uri: str) -> str:
        """The key of the text a document belongs to: a notebook cell's notebook, else the document itself."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def source(self, key: str) -> Source:
        """The current text of an open document or notebook (`KeyError`/`OSError` when it is not open)."""
        notebook = self.workspace.get_notebook_document(notebook_uri=key)
        if notebook is not None:
            text, layout = notebook_source(notebook, self.workspace.get_text_document, self.encoding)
            return Source(key, self.path_of(key), text, layout, None)
        document = self.workspace.get_text_document(key)
        text = document.source
        return Source(key, self.path_of(key), text, Layout(key, text_lines(text), self.encoding), document.version)

    def text_of(self, key: str) -> str | None:
        """The current text of an open document or notebook; None when it is closed."""
        try:
            if self.workspace.get_notebook_document(notebook_uri=key) is not None:
                return self.source(key).text
            return self.workspace.get_text_document(key).source  # (often asked: no layout made)
        except (KeyError, OSError):
            return None

    async def _analyse_document(self, key: str) -> None:
        if key not in self.docs:
            return  # closed meanwhile
        current = self.source(key)
        text = current.text
        state = self.docs.setdefault(key, DocState())
        if state.text == text:
            found: tuple[list[Diagnostic], list[Diagnostic]] | None = (state.diagnostics, state.hazards)
        else:
            settings = self.settings_for(current.path)
            started = time.monotonic()
            found, reason = await asyncio.get_running_loop().run_in_executor(
                self.executor, self._analyse, text, current.path, settings
            )
            state.analysis_s = time.monotonic() - started
            self._report(reason)
        if self.text_of(key) != text:
            return  # the text changed meanwhile; the next analysis publishes
        if found is not None and state.text != text:
            state.text, state.layout = text, current.layout
            state.diagnostics, state.hazards = found
            state.fixes = None  # those of the old text
        self.publish(key, current.version, current.layout.uris())

    def publish(self, key: str, version: int | None = None, uris: list[str] | None = None) -> None:
        """Publish the diagnostics of a document, or of each cell of a notebook (`uris`: its current cells; a cell
        given diagnostics before and no longer in it gets none)."""
        state = self.docs.get(key) or DocState()
        layout = state.layout or Layout(key, text_lines(state.text or ""), self.encoding)
        by_uri: dict[str, list[types.Diagnostic]] = {
            uri: [] for uri in [*(uris if uris is not None else [key]), *state.published]}
        for d in state.diagnostics:
            lsp_d = to_lsp(d, layout)
            uri = layout.position(d.line, d.column)[0]
            by_uri.setdefault(uri, []).append(lsp_d)
        for uri, diagnostics in by_uri.items():
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, version=version if uri == key else None, diagnostics=diagnostics))
        state.published = {uri for uri, diagnostics in by_uri.items() if diagnostics}

    def change_delay(self, key: str) -> float:
        """How long to wait before analysing a document that just changed. A change after a pause in typing, in a
        document whose analysis is quick, is analysed at once: starting early wastes at most an analysis shorter
        than the debounce. Changes in a burst, or in a document whose analysis is slow, wait `DEBOUNCE_S` for the
        next one, so that one analysis follows the burst (a running analysis cannot be stopped)."""
        state = self.docs.setdefault(key, DocState())
        now = time.monotonic()
        isolated = now - state.last_change >= DEBOUNCE_S
        state.last_change = now
        return 0.0 if isolated and state.analysis_s < DEBOUNCE_S else DEBOUNCE_S

    def schedule(self, key: str, delay: float) -> None:
        """(Re)start the analysis of a document or notebook, cancelling a pending one."""
        state = self.docs.setdefault(key, DocState())
        if state.task is not None and not state.task.done():
            state.task.cancel()
        state.task = asyncio.ensure_future(self.analyse(key, delay))

    def close(self, key: str, uris: list[str]) -> None:
        """Forget a document or notebook, and clear the diagnostics of its documents."""
        state = self.docs.pop(key, None)  # with its fix-all run, if any
        if state is not None and state.task is not None:
            state.task.cancel()
        for uri in dict.fromkeys([*uris, *(state.published if state is not None else ())]):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def snapshot(self, uri: str) -> Snapshot:
        """The current text of a document (of the notebook a cell is in), with its settings and, when computed
        already, its diagnostics."""
        key = self.key_of(uri)
        current = self.source(key)
        state = self.docs.get(key)
        settings = self.settings_for(current.path)
        if state is None or state.text != current.text:
            return Snapshot(uri, current.path, current.text, settings, None, current.layout, key)
        fixes = state.fixes
        if fixes is None or fixes.settings != settings or fixes.uris != tuple(current.layout.uris()):
            fixes = state.fixes = TextFixes(current.text, current.path, settings, state.hazards, current.layout.admits,
                                            tuple(current.layout.uris()), describe=current.layout.message)
        return Snapshot(uri, current.path, current.text, settings, state.diagnostics, current.layout, key, fixes)

    def is_current(self, snapshot: Snapshot) -> bool:
        """Whether the document still has the text of `snapshot` (a result computed for another text is dropped:
        its edits and ranges would land in the wrong place)."""
        return self.text_of(snapshot.key) == snapshot.text

    # code actions and hover: computed off the event loop --------------------------------------------------

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        snapshot = self.snapshot(params.text_document.uri)
        only = params.context.only

        def wanted(kind: str) -> bool:
            return not only or any(kind == k or kind.startswith(k + ".") for k in only)

        actions: list[types.CodeAction] = []
        if wanted(types.CodeActionKind.QuickFix):
            actions += await in_thread(quick_fixes, snapshot, params.range)
        # A notebook's fix-all is also given under the notebook kind when asked for it by name (VS Code's
        # `notebook.codeActionsOnSave`); a request for every kind gets it once.
        kinds = [kind for kind in (FIX_ALL_KIND, NOTEBOOK_FIX_ALL_KIND)
                 if wanted(kind) and (kind == FIX_ALL_KIND or (only and snapshot.key != snapshot.uri))]
        if kinds:
            changes = await self.shared_fix_all(snapshot)
            if changes:
                title = "fixinplace: fix all autofixable hazards" + ("" if snapshot.settings.unsafe_fixes else
                                                                     " (safe fixes)")
                actions += [types.CodeAction(title=title, kind=kind, edit=types.WorkspaceEdit(changes=changes))
                            for kind in kinds]
        return actions if self.is_current(snapshot) else []

    async def shared_fix_all(self, snapshot: Snapshot) -> dict[str, list[types.TextEdit]]:
        """The edits of fix-all on the snapshot's text, per document. One computation per text and settings,
        shared: an editor that gives up on a slow fix-all (cancels it) and asks again for the same text gets the
        same run."""
        state = self.docs.setdefault(snapshot.key, DocState())
        key = (snapshot.text, snapshot.settings)
        if state.fix_all is None or state.fix_all[0] != key:
            # The run stops at its next rewrite once the document has another text: nobody can use its edits.
            state.fix_all = (key, in_thread(fix_all_edits, snapshot, lambda: not self.is_current(snapshot)))
        # shield: cancelling this request leaves the run to the requests that share it
        return await asyncio.shield(state.fix_all[1])

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        snapshot = self.snapshot(params.text_document.uri)
        hits = await in_thread(hover_hits, snapshot, params.position)
        fixes = snapshot.fixes
        if hits and fixes is not None and any(fixes.known(d) is None for d in hits):
            # The fix each one gets is checked by analysing the rewritten text: on a large file that takes longer
            # than a hover may. It is waited for up to HOVER_WAIT_S; past that the hover says it is being checked,
            # and the check goes on, for the next hover and the quick fixes.
            checking = in_thread(fixes.offer_all, hits)
            try:
                await asyncio.wait_for(asyncio.shield(checking), HOVER_WAIT_S)
            except asyncio.TimeoutError:
                pass
        if not hits or not self.is_current(snapshot):
            return None
        return hover_of(snapshot, hits)


# The work of a request, done in a thread: it reads its snapshot, never the server's state. -------------------


def quick_fixes(snapshot: Snapshot, rng: types.Range) -> list[types.CodeAction]:
    """For each diagnostic of the document in `rng`: its fix when it has one (an unsafe one too, titled so and never
    preferred: applying it is the user's choice, as `--unsafe-fixes` is), then the action that suppresses it.
    Each action is made once per text (kept with its `TextFixes`): an editor asks on every cursor move."""
    diagnostics = snapshot.analysed()
    fixes_of_text = snapshot.text_fixes()
    if not diagnostics or fixes_of_text is None:
        return []
    uri, text, layout = snapshot.uri, snapshot.text, snapshot.layout
    assert layout is not None
    near = [(d, lsp_d) for d in diagnostics
            if layout.position(d.line, d.column)[0] == uri and _overlaps((lsp_d := to_lsp(d, layout)).range, rng)]
    if not near:
        return []
    cache = fixes_of_text.cache
    fixes = []
    for d, lsp_d in near:
        # Each fix is checked (the text rewritten and analysed again): only for the diagnostics asked about.
        # `offered` gives a diagnostic with no passing safe fix its first passing unsafe one, as `offer` does.
        if ("fix", fix_key(d)) not in cache:
            offered = fixes_of_text.offered(d) if d.severity is not Severity.INFO else None
            fixed = offered.diagnostic if offered is not None else None
            new_text = offered.new_text if offered is not None else None
            changes = layout.edit(text, new_text) if new_text is not None and new_text != text else None
            if offered is not None and offered.others:
                # Repaired where the call runs the writes: an edit of each of those files (their text on disk).
                changes = {Path(path).resolve().as_uri(): minimal_edits(old, new, layout.encoding)
                           for path, old, new in offered.others}
            cache[("fix", fix_key(d))] = types.CodeAction(
                title=fix_title(fixed),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp_d],
                is_preferred=fixed.fix.applicability == Applicability.SAFE,
                edit=types.WorkspaceEdit(changes=changes),
            ) if changes and fixed is not None and fixed.fix is not None else None
        if cache[("fix", fix_key(d))] is not None:
            fixes.append(cache[("fix", fix_key(d))])
    # The ignore actions: one read of the text and one check of the comments for all of those not made yet.
    todo = [(d, lsp_d) for d, lsp_d in near if ("ignore", fix_key(d)) not in cache]
    if todo:
        comments = cache.get("comments") or cache.setdefault("comments", IgnoreComments(text))
        honoured = verified([d for d, _ in todo], comments)  # type: ignore[arg-type]
        for i, (d, lsp_d) in enumerate(todo):
            found = comments.line_for(d) if i in honoured else None  # type: ignore[attr-defined]
            cache[("ignore", fix_key(d))] = types.CodeAction(
                title=ignore_title(d.code),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp_d],
                edit=types.WorkspaceEdit(changes=layout.line_edit(*found)),
            ) if found is not None else None
    ignores = [cache[("ignore", fix_key(d))] for d, _ in near if cache[("ignore", fix_key(d))] is not None]
    return fixes + ignores  # type: ignore[return-value]


def fix_all_edits(snapshot: Snapshot, stale: Callable[[], bool] | None = None) -> dict[str, list[types.TextEdit]]:
    """The edits, per document, that make the text what `fixinplace fix` makes of it (safe fixes only unless the
    settings allow unsafe ones, as `fix` does); none when it does not parse, or when `stale()` turns true before
    the work is done."""
    from fixinplace.fix import FixStopped, fix_text  # deferred: the fix stage (LibCST), not loaded at start

    try:
        fixed = fix_text(snapshot.text, snapshot.path, snapshot.settings, stop=stale,
                         admissible=snapshot.layout.admits if snapshot.layout is not None else None).source
    except (SourceError, FixStopped):
        return {}
    except Exception:  # logged here: the run may have no request left to report it to
        log.exception("fix-all failed")
        return {}
    assert snapshot.layout is not None
    return (snapshot.layout.edit(snapshot.text, fixed) or {}) if fixed != snapshot.text else {}


def hover_hits(snapshot: Snapshot, position: types.Position) -> list[Diagnostic]:
    """The diagnostics at `position` (the text analysed first when it is not yet)."""
    diagnostics = snapshot.analysed()
    if not diagnostics or snapshot.layout is None:
        return []
    at = snapshot.layout.analysed(snapshot.uri, position)
    if at is None:
        return []
    return [d for d in diagnostics if (d.line, d.column) <= at <= (d.end_line, d.end_column)]


def hover_of(snapshot: Snapshot, hits: list[Diagnostic]) -> types.Hover:
    """What the diagnostics `hits` say, each with the fix it gets when that fix is checked already (else: that it is
    being checked)."""
    fixes = snapshot.fixes
    parts = []
    for d in hits:
        known = fixes.known(d) if fixes is not None else None
        parts.append(hover_text(known.diagnostic if known is not None else d, snapshot.layout,
                                pending=known is None and d.severity is not Severity.INFO))
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
        range=to_lsp(hits[0], snapshot.layout).range,
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


def _import_fixes() -> None:
    import fixinplace.fix.checked  # noqa: F401  # deferred: LibCST, imported in the background after start


def create_server() -> FixinplaceServer:
    """A server with every handler registered."""
    server = FixinplaceServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: FixinplaceServer, params: types.InitializeParams) -> None:
        use_source_lines(ls.workspace)
        ls.options = _client_options(params.initialization_options)

    @server.feature(types.INITIALIZED)
    def initialized(ls: FixinplaceServer, params: types.InitializedParams) -> None:
        # The first fix asked for imports LibCST and the codemods (near a second on a loaded machine): imported
        # now, off the event loop and off `initialize`'s answer, while the editor opens its documents.
        threading.Thread(target=_import_fixes, name="fixinplace-import", daemon=True).start()

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
        ls.schedule(ls.key_of(params.text_document.uri), 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FixinplaceServer, params: types.DidChangeTextDocumentParams) -> None:
        if ls.known(params.text_document.uri, "didChange"):
            key = ls.key_of(params.text_document.uri)
            ls.schedule(key, ls.change_delay(key))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: FixinplaceServer, params: types.DidSaveTextDocumentParams) -> None:
        if ls.known(params.text_document.uri, "didSave"):
            ls.schedule(ls.key_of(params.text_document.uri), 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FixinplaceServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri, [params.text_document.uri])

    # Notebooks (LSP 3.17): pygls keeps the cells as text documents; the notebook is analysed as one text, its
    # cells joined in order, and each cell gets the diagnostics of its lines.

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: FixinplaceServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, 0.0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: FixinplaceServer, params: types.DidChangeNotebookDocumentParams) -> None:
        structure = params.change.cells.structure if params.change.cells is not None else None
        for cell in structure.did_close or [] if structure is not None else []:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))
        ls.schedule(params.notebook_document.uri, ls.change_delay(params.notebook_document.uri))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: FixinplaceServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, 0.0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: FixinplaceServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.close(params.notebook_document.uri, [cell.uri for cell in params.cell_text_documents])

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND, NOTEBOOK_FIX_ALL_KIND],
                                resolve_provider=False),
    )
    async def code_action(ls: FixinplaceServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        # async: pygls answers a $/cancelRequest by cancelling the task (RequestCancelled), which stops the wait
        if not ls.known(params.text_document.uri, "codeAction"):
            return None
        try:
            return await ls.code_actions(params)
        except Exception:  # a bug: its traceback says where; the client gets an error, not a silent nothing
            log.exception("code actions failed")
            raise JsonRpcInternalError("fixinplace: the code actions could not be computed (see the server's log)")

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: FixinplaceServer, params: types.HoverParams) -> types.Hover | None:
        if not ls.known(params.text_document.uri, "hover"):
            return None
        try:
            return await ls.hover(params)
        except Exception:
            log.exception("hover failed")
            return None

    return server


def serve(tcp: str | None = None) -> None:
    """Run the server on stdio, or on TCP at `HOST:PORT` (`PORT` alone binds 127.0.0.1)."""
    if tcp:
        server = create_server()
        server.protocol.exit_process = True  # this process is the server's own: `exit` ends it at once
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
        return
    serve_guarded(_serve_io)


def _serve_io() -> None:
    """Serve on stdio and end the process (at `exit`, or at the end of the input)."""
    server = create_server()
    server.protocol.exit_process = True  # this process is the server's own: `exit` ends it at once
    server.start_io()
    # The client closed the input without `exit` (it died): end as `exit` does, without waiting for the work
    # still running, with the code that says whether it shut the server down first.
    server.protocol.end_process()
