"""`exit` ends the server at once, even while an analysis holds the interpreter.

The analysis of a large text spends seconds inside single C calls (`ast.parse` of a 1 MB file: 3 to 8 s) that hold
the GIL: no thread of the server's process, not even the one reading the client's messages, runs until they
return, so an `exit` sent meanwhile would wait for them. So on stdio the server runs in a forked child, and the
process the editor started only forwards its input to it and watches it for `shutdown` and `exit`; at `exit` it
gives the child a moment to end on its own, then kills it, and ends with the code the LSP spec asks for (0 after
`shutdown`, 1 without). Where there is no `fork` (Windows), or threads already run, the server runs in this process
and ends itself at `exit` (`protocol.LifecycleProtocol`), as soon as it gets the interpreter back.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import threading
import time
from typing import Callable

#: How long the child gets to end on its own after `exit` (it answers at once when no analysis holds it).
GRACE_S = 0.2
#: The largest body read for its method: `shutdown` and `exit` are a few dozen bytes; a document is not read.
_SMALL_BODY = 4096
_CONTENT_LENGTH = re.compile(rb"content-length:[ \t]*(\d+)", re.IGNORECASE)


def serve_guarded(serve: Callable[[], None]) -> None:
    """Run `serve()` (a stdio server that ends its process) in a forked child fed this process's input; never
    returns. Runs `serve()` here when the platform cannot fork or threads are running (a fork copies only one)."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        serve()
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the server
        os.close(write_end)
        os.dup2(read_end, 0)
        os.close(read_end)
        try:
            serve()
        finally:
            os._exit(1)  # `serve` ends the process itself; never return into the parent's caller
    os.close(read_end)
    guard = Guard(pid, write_end)
    try:
        guard.run()
    except KeyboardInterrupt:  # Ctrl-C in a terminal: the child got it too, and ends
        guard.outbox.put(None)
        guard._end(wait_s=GRACE_S)


class Guard:
    """Forwards this process's input to the server process `pid` (through `fd`), and ends both at `exit`."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self.shutdown = False  # a `shutdown` request was seen
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        self.buffer = b""  # input not yet framed into a message
        self.skip = 0  # bytes of a large body still to pass over
        self.code: int | None = None  # the exit code decided here, once the child is being killed

    def run(self) -> None:
        """Forward until `exit` or the end of the input, then end this process (never returns)."""
        threading.Thread(target=self._watch, daemon=True).start()
        # A thread writes to the child: a child busy in an analysis does not read, and its pipe fills up; this
        # thread must keep reading the client's input to see `exit`.
        threading.Thread(target=self._forward, daemon=True).start()
        while True:
            try:
                chunk = os.read(0, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.outbox.put(None)  # the child reads the end of its input, and ends
                self._end(wait_s=2.0)
            self.outbox.put(chunk)
            if self._scan(chunk):
                self._end(wait_s=GRACE_S)

    def _scan(self, chunk: bytes) -> bool:
        """Follow the messages through `chunk`: note a `shutdown`; True at an `exit`."""
        if self.skip:
            taken = min(self.skip, len(chunk))
            self.skip -= taken
            chunk = chunk[taken:]
        self.buffer += chunk
        while self.buffer:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                self.buffer = self.buffer[-_SMALL_BODY:]  # no headers are that long: noise, whose tail may start some
                return False
            found = _CONTENT_LENGTH.search(self.buffer[:head_end])
            body_start = head_end + 4
            if found is None:  # a malformed message: the server skips it too
                self.buffer = self.buffer[body_start:]
                continue
            length = int(found.group(1))
            if length > _SMALL_BODY:
                available = len(self.buffer) - body_start
                self.skip = max(0, length - available)
                self.buffer = self.buffer[body_start + min(length, available):]
                continue
            if len(self.buffer) - body_start < length:
                return False  # the rest of the body comes in a later chunk
            body, self.buffer = self.buffer[body_start:body_start + length], self.buffer[body_start + length:]
            method = _method(body)
            if method == "shutdown":
                self.shutdown = True
            elif method == "exit":
                return True
        return False

    def _forward(self) -> None:
        while (chunk := self.outbox.get()) is not None:
            try:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(self.fd, view):]
            except OSError:  # the child has ended
                return
        os.close(self.fd)

    def _watch(self) -> None:
        """End this process as soon as the child ends, with its exit code."""
        _, status = os.waitpid(self.pid, 0)
        if self.code is not None:  # killed here, at `exit`
            os._exit(self.code)
        code = os.waitstatus_to_exitcode(status)
        os._exit(code if code >= 0 else 128 - code)  # killed by signal N: 128 + N, as a shell says

    def _end(self, wait_s: float) -> None:
        """Give the child `wait_s` to end on its own, then kill it; end with 0 after `shutdown`, else 1."""
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            time.sleep(0.01)  # the watcher ends this process when the child ends
        self.code = 0 if self.shutdown else 1
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os._exit(self.code)


def _method(body: bytes) -> str | None:
    """The method of a small JSON-RPC message, None when it has none or is not JSON."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    method = message.get("method") if isinstance(message, dict) else None
    return method if isinstance(method, str) else None
