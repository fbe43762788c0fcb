"""Reading the LSP base protocol (headers, a blank line, a JSON body) so that a malformed message costs only itself.

pygls's reader loop (`pygls.io_.run_async`) keeps looking for a `Content-Length` header across messages: after one it
cannot read (`Content-Length: abc`, none at all) the body that follows is glued to the next message's header line,
so that message and every later one are lost; a body that is not JSON logs a traceback. `serve_messages` replaces
that loop (`FixinplaceServer.start_io` and `start_tcp` run it): a malformed message is logged in one line and
dropped, and reading resumes at the next `Content-Length` header.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from typing import Any

from cattrs import transform_error
from lsprotocol import types

log = logging.getLogger(__name__)

#: A larger Content-Length is taken for a corrupt one (reading the body would allocate that much first).
MAX_BODY_BYTES = 1 << 27
#: What a header line looks like (`Name: value`); anything else where a header belongs is not one.
_HEADER = re.compile(rb"([A-Za-z0-9-]+):([^\r\n]*)\r?\n")
_CONTENT_LENGTH = b"content-length:"


#: JSON-RPC error codes of the answers to requests that cannot be read.
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


class Malformed(Exception):
    """A message that could not be read; the text says why. A request that can still be answered (its `id` was
    read) carries that id and the JSON-RPC error code of the answer."""

    def __init__(self, why: str, request_id: int | str | None = None, code: int = INVALID_REQUEST) -> None:
        super().__init__(why)
        self.request_id = request_id
        self.code = code


class MessageReader:
    """The bodies of the messages on a stream, one per `next_body()`."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader  # pygls's StdinAsyncReader, or an asyncio.StreamReader (TCP)
        self.resync = False  # after a malformed message: its rest is dropped up to the next Content-Length header
        self.carried: bytes | None = None  # a line read before the resync started, to be searched for that header

    async def next_body(self) -> bytes | None:
        """The next message's body, None at the end of the input; raises `Malformed` (once per bad message)."""
        length: bytes | None = None
        seen_header = False
        while True:
            line = await self._line()
            if line is None:
                return None
            if self.resync:
                at = line.lower().find(_CONTENT_LENGTH)
                if at < 0:
                    continue
                line, self.resync = line[at:], False
            if not line.strip():
                if seen_header:
                    break
                continue  # a blank line between messages
            header = _HEADER.fullmatch(line)
            if header is None:
                # Not a header: the body of a message whose length was lost, or noise. A header may follow in it.
                self.resync, self.carried = True, line
                raise Malformed(f"not a header ({_short(line)})")
            seen_header = True
            if header.group(1).lower() == b"content-length":
                length = header.group(2).strip()
        if length is None:
            self.resync = True
            raise Malformed("no Content-Length header")
        if not length.isdigit():
            self.resync = True
            raise Malformed(f"Content-Length is not a number ({_short(length)})")
        size = int(length)
        if size > MAX_BODY_BYTES:
            self.resync = True
            raise Malformed(f"Content-Length is too large ({size})")
        try:
            body = await self.reader.readexactly(size)
        except asyncio.IncompleteReadError:  # asyncio.StreamReader at the end of the input
            return None
        return body if len(body) == size else None  # StdinAsyncReader: short at the end of the input

    async def _line(self) -> bytes | None:
        if self.carried is not None:
            line, self.carried = self.carried, None
            return line
        try:
            line = await self.reader.readline()
        except ValueError:  # asyncio.StreamReader: a line past its limit (dropped from its buffer): not a header
            return b"\0\n"
        return line or None


async def serve_messages(reader: Any, protocol: Any, stop_event: threading.Event) -> None:
    """Hand each message read from `reader` to `protocol` (a pygls JsonRPCProtocol), until the end of the input or
    `stop_event`; a malformed message is logged in one line and skipped."""
    messages = MessageReader(reader)
    while not stop_event.is_set():
        try:
            body = await messages.next_body()
            if body is None:
                return
            message = _decode(body, protocol)
        except Malformed as e:
            if e.request_id is not None:
                # A request is always answered: the client would otherwise wait for its own timeout.
                log.warning("fixinplace lsp: answered a malformed request with an error: %s", e)
                protocol._send_response(e.request_id, error=types.ResponseError(code=e.code, message=str(e)))
            else:
                log.warning("fixinplace lsp: ignored a malformed message: %s", e)
            continue
        try:
            protocol.handle_message(message)
        except Exception:  # a bug of the server, not of the message: say where
            log.exception("fixinplace lsp: handling a message failed")


def _decode(body: bytes, protocol: Any) -> Any:
    """The message a body holds, decoded as pygls decodes it (the lsprotocol type its method names); raises
    `Malformed`, with the id to answer when it is a request."""
    try:
        data = json.loads(body)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        raise Malformed(f"the body is not JSON ({e})") from None
    if not isinstance(data, dict) or "jsonrpc" not in data:
        raise Malformed(f"the body is not a JSON-RPC message ({_short(body)})")
    method = data.get("method")
    request_id = data.get("id") if "method" in data else None
    if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
        request_id = None  # a notification (or an id JSON-RPC does not allow): nothing to answer
    if "method" in data and not isinstance(method, str):
        raise Malformed(f"the method is not a string ({_short(json.dumps(method).encode())})", request_id)
    message_type = protocol.get_message_type(method) if isinstance(method, str) else None
    try:
        if message_type is not None:
            # Structured here rather than by pygls's `structure_message`, which logs a traceback for bad params.
            message = protocol._converter.structure(data, message_type)
        else:
            message = protocol.structure_message(data)  # responses, and methods lsprotocol does not know
    except Exception as e:
        where = f"{method}: " if isinstance(method, str) else ""
        raise Malformed(f"invalid params: {where}{_why(e)}", request_id, INVALID_PARAMS) from None
    if not hasattr(message, "jsonrpc"):
        raise Malformed(f"the body is not a JSON-RPC message ({_short(body)})", request_id)
    return message


def _why(error: Exception) -> str:
    """What is wrong with a message, in one line (cattrs names each bad field and where it is)."""
    try:
        reasons = transform_error(error)
    except Exception:  # not a cattrs error
        reasons = []
    return "; ".join(reasons[:3]) + ("; ..." if len(reasons) > 3 else "") if reasons else one_line(error)


def one_line(error: BaseException) -> str:
    """An exception as one line of text."""
    text = " ".join(str(error).split())
    return text or type(error).__name__


def _short(data: bytes) -> str:
    """A readable excerpt of bytes for a log line."""
    text = repr(data.decode("utf-8", "replace").strip())
    return text if len(text) <= 60 else text[:57] + "..."
