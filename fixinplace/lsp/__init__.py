"""`fixinplace lsp`: a language server (pygls) over the same analysis and codemods as `check` and `fix`.

`server.py` holds the server and its handlers, `convert.py` turns diagnostics into LSP types (positions in the
encoding negotiated at `initialize`), `edits.py` computes minimal text edits, `fixes.py` keeps the checked fix of
each diagnostic of a text, `framing.py` reads the client's messages (skipping a malformed one, answering a
malformed request with an error), `protocol.py` and `guard.py` keep the lifecycle (`shutdown`, an `exit` that ends
the process at once), `suppress.py` makes the "Ignore FIP101 for this line" edit, `notebooks.py` maps a
notebook's joined cells (LSP 3.17 notebook documents) to its cells.
Nothing here imports or runs the user's code, nor torch.
"""
