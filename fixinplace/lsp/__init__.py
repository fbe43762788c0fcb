"""`fixinplace lsp`: a language server (pygls) over the same analysis and codemods as `check` and `fix`.

`server.py` holds the server and its handlers, `convert.py` turns diagnostics into LSP types (UTF-16 positions),
`edits.py` computes minimal text edits, `framing.py` reads the client's messages (skipping a malformed one).
Nothing here imports or runs the user's code, nor torch.
"""
