"""A real LSP client for the tests: `fixinplace lsp` as a subprocess (pytest-lsp), and the requests they share."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

TIMEOUT = 10.0


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "fixinplace", "lsp"]))
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
