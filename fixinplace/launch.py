"""The `fixinplace` command's entry point (and `python -m fixinplace`'s).

`fixinplace lsp` with no option but `--stdio` (how editors start the language server) goes straight to the server:
the command line (typer and `fixinplace.cli`) costs about a tenth of a second that an editor would wait at every
start. Every other command line goes to `fixinplace.cli`.
"""

from __future__ import annotations

import sys

_LANGUAGE_SERVER = (["lsp"], ["lsp", "--stdio"])


def main() -> None:
    """Run the `fixinplace` command with this process's arguments and exit with its status."""
    if sys.argv[1:] in _LANGUAGE_SERVER:
        from fixinplace.lsp.server import serve  # deferred: the language server, started without typer's cost

        serve(None)
        sys.exit(0)
    from fixinplace.cli import main as cli_main  # deferred: the command line (typer), not for the server

    cli_main()
