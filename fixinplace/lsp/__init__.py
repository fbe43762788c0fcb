"""`fixinplace lsp`: a language server (pygls) over the same analysis and codemods as `check` and `fix`.

`server.py` holds the server and its handlers, `convert.py` turns diagnostics into LSP types (UTF-16 positions),
`edits.py` computes minimal text edits. Nothing here imports or runs the user's code, nor torch.
"""
