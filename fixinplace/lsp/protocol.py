"""pygls's LSP protocol with the lifecycle the LSP spec asks for.

- `exit` ends the process at once, with exit code 0 after `shutdown` and 1 without it. pygls's `exit` raises
  `SystemExit` inside the event loop: the server's loop swallowed it (code 0 either way), and the interpreter then
  joined the analysis thread, so that `exit` waited up to half a minute for an analysis nobody wants any more.
- A request after `shutdown` is answered with an InvalidRequest error (pygls drops it silently: the client waits
  for its own timeout).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from fixinplace.lsp.framing import INVALID_REQUEST

log = logging.getLogger(__name__)


class LifecycleProtocol(LanguageServerProtocol):
    """The protocol of `FixinplaceServer`: pygls's, with `exit` and the requests after `shutdown` as the spec says."""

    #: Whether `exit` ends the process (`serve`, the `fixinplace lsp` command); False leaves it to pygls (a server
    #: run inside another program, whose process is not its own to end).
    exit_process = False

    def handle_message(self, message: Any) -> None:
        if self._shutdown and _is_request(message) and message.method != types.EXIT:
            self._send_response(message.id, error=types.ResponseError(
                code=INVALID_REQUEST, message=f"{message.method}: the server is shut down (only exit is accepted)"))
            return
        super().handle_message(message)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Any:
        """End the server: at once, whatever analysis or fix is running (its result has nobody to go to)."""
        if not self.exit_process:
            yield from super().lsp_exit(*args)
            return
        self.end_process()

    def end_process(self) -> None:
        """End the process now: exit code 0 after `shutdown`, 1 without it."""
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # closed by the client
                pass
        os._exit(0 if self._shutdown else 1)  # not sys.exit: that joins the worker threads, each busy until its
        # analysis ends


def _is_request(message: Any) -> bool:
    return getattr(message, "id", None) is not None and isinstance(getattr(message, "method", None), str)
