"""`fixinplace lsp`: a language server (pygls) over the same analysis and codemods as `check` and `fix`.

`server.py` holds the server and its handlers, `convert.py` turns diagnostics into LSP types (UTF-16 positions),
`edits.py` computes minimal text edits, `framing.py` reads the client's messages (skipping a malformed one),
`suppress.py` makes the "Ignore FIP101 for this line" edit, `notebooks.py` maps a notebook's joined cells (LSP 3.17
notebook documents) to its cells.
Nothing here imports or runs the user's code, nor torch.
"""
