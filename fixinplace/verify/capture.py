"""Keeping a bounded part of what a child process prints: its head and its tail, and how much was dropped between."""

from __future__ import annotations

import collections
import threading

HEAD = 64 * 1024
TAIL = 64 * 1024
CHUNK = 64 * 1024


class Capped:
    """Reads a binary stream to its end in a thread, keeping at most HEAD + TAIL bytes of it."""

    def __init__(self, stream, head: int = HEAD, tail: int = TAIL) -> None:
        self._head = bytearray()
        self._tail: collections.deque = collections.deque()
        self._tail_size = 0
        self._limits = (head, tail)
        self.dropped = 0
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        head, tail = self._limits
        while True:
            try:
                chunk = stream.read1(CHUNK) if hasattr(stream, "read1") else stream.read(CHUNK)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            room = head - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self._tail.append(chunk)
                self._tail_size += len(chunk)
                while self._tail_size - len(self._tail[0]) >= tail:
                    self._tail_size -= len(self._tail[0])
                    self.dropped += len(self._tail.popleft())

    def join(self, timeout: float) -> None:
        """Wait up to `timeout` seconds for the end of the stream."""
        self._thread.join(timeout)

    def text(self) -> str:
        """What was kept, with a line saying how many bytes were dropped in the middle."""
        tail = b"".join(self._tail)
        middle = f"\n[... {self.dropped} bytes dropped ...]\n".encode() if self.dropped else b""
        return (bytes(self._head) + middle + tail).decode("utf-8", "replace")
