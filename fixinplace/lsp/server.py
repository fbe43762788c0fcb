"""The fixinplace language server (pygls): diagnostics, quick fixes, fix-all and hover.

Every analysis is `fixinplace.engine.check_source` on the editor's text (never the file on disk). The fix of a
diagnostic is the checked fix `fixinplace fix` would apply (`fixinplace.fix.offer`: the text rewritten and analysed
again), computed only when asked for: for the diagnostics under a code action's range, or under the hover; a quick
fix applies it, fix-all runs `fixinplace.fix.fix_text` exactly as `fixinplace fix` does. A text that does not parse keeps its last good diagnostics. Nothing imports or runs user
code. Analyses run in one worker thread so that the event loop keeps answering; a change debounces the next
analysis by `DEBOUNCE_S`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from fixinplace import __version__
from fixinplace.diagnostics import Diagnostic, Severity
from fixinplace.analysis import project
from fixinplace.engine import SourceError, check_source
from fixinplace.lsp.convert import fix_title, hover_text, text_lines, to_character, to_lsp, to_range
from fixinplace.lsp.document import use_source_lines
from fixinplace.lsp.edits import minimal_edits
from fixinplace.settings import ConfigError, Settings, load_settings

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.3
FIX_ALL_KIND = "source.fixAll.fixinplace"


@dataclass
class DocState:
    """What the server knows about one open document."""

    text: str | None = None  # the text the diagnostics below were computed from (the last text that parsed)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    task: asyncio.Task | None = None  # the pending debounced analysis


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

    def analyse_text(self, uri: str, text: str) -> list[Diagnostic] | None:
        """The diagnostics of `text` (on the event loop), or None when it does not parse or the analysis failed."""
        path = self.path_of(uri)
        diagnostics, reason = self._analyse(text, path, self.settings_for(path))
        self._report(reason)
        return diagnostics

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

    def current(self, uri: str) -> tuple[str, list[Diagnostic]] | None:
        """The current text of a document and its diagnostics (None when the current text does not parse)."""
        text = self.workspace.get_text_document(uri).source
        state = self.docs.setdefault(uri, DocState())
        if state.text == text:
            return text, state.diagnostics
        diagnostics = self.analyse_text(uri, text)
        if diagnostics is None:
            return None
        return text, diagnostics

    # code actions -----------------------------------------------------------------------------------------

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        found = self.current(uri)
        if found is None:
            return []
        text, diagnostics = found
        only = params.context.only
        lines = text_lines(text)
        settings = self.settings_for(self.path_of(uri))
        actions: list[types.CodeAction] = []

        def wanted(kind: str) -> bool:
            return not only or any(kind == k or kind.startswith(k + ".") for k in only)

        if wanted(types.CodeActionKind.QuickFix):
            from fixinplace.fix import apply_offered, offer

            near = [d for d in diagnostics if d.severity is not Severity.INFO
                    and _overlaps(to_lsp(d, lines, uri).range, params.range)]
            # Each fix is checked (the text rewritten and analysed again): only for the diagnostics asked about.
            for d in offer(text, self.path_of(uri), near, settings) if near else []:
                if d.fix is None:
                    continue
                if d.fix.applicability != "safe" and not settings.unsafe_fixes:
                    continue
                lsp_d = to_lsp(d, lines, uri)
                if not _overlaps(lsp_d.range, params.range):
                    continue
                new_text = apply_offered(text, self.path_of(uri), d)
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
        if wanted(FIX_ALL_KIND):
            from fixinplace.fix import fix_text

            result = fix_text(text, self.path_of(uri), settings)
            if result.source != text:
                actions.append(
                    types.CodeAction(
                        title="fixinplace: fix all autofixable hazards",
                        kind=FIX_ALL_KIND,
                        edit=types.WorkspaceEdit(changes={uri: minimal_edits(text, result.source)}),
                    )
                )
        return actions

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        found = self.current(uri)
        if found is None:
            return None
        text, diagnostics = found
        lines = text_lines(text)
        line, column = to_character(lines, params.position)
        hits = [d for d in diagnostics if (d.line, d.column) <= (line, column) <= (d.end_line, d.end_column)]
        if not hits:
            return None
        from fixinplace.fix import offer

        hits = offer(text, self.path_of(uri), hits, self.settings_for(self.path_of(uri)))  # the fix each one gets
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(hover_text(d) for d in hits)),
            range=to_range(lines, hits[0]),
        )


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
        state = ls.docs.pop(params.text_document.uri, None)
        if state is not None and state.task is not None:
            state.task.cancel()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False),
    )
    def code_action(ls: FixinplaceServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        try:
            return ls.code_actions(params)
        except Exception:
            log.exception("code actions failed")
            return []

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: FixinplaceServer, params: types.HoverParams) -> types.Hover | None:
        try:
            return ls.hover(params)
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
