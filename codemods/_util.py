"""Small LibCST helpers shared by the codemods."""

from __future__ import annotations

import libcst as cst


def statement(code: str, module: cst.Module | None) -> cst.BaseStatement:
    """Parse one statement with the module's conventions (indentation is set by where it is inserted)."""
    config = module.config_for_parsing if module is not None else cst.PartialParserConfig()
    return cst.parse_statement(code, config=config)


def code_of(node: cst.CSTNode, module: cst.Module | None) -> str:
    """The source text of a node."""
    return (module or cst.Module(body=[])).code_for_node(node)


def with_leading(first: cst.BaseStatement, original: cst.SimpleStatementLine) -> cst.BaseStatement:
    """`first` takes over the comments and blank lines that stood above `original`."""
    return first.with_changes(leading_lines=original.leading_lines)


def replacing(new: cst.SimpleStatementLine, original: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    """`new` stands where `original` stood: same comments above, same trailing comment and newline."""
    return new.with_changes(leading_lines=original.leading_lines, trailing_whitespace=original.trailing_whitespace)


def torch_name(module: cst.Module | None) -> str | None:
    """The name `torch` is imported under at module level (`import torch`, `import torch as th`)."""
    if module is None:
        return None
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if module.code_for_node(alias.name) == "torch":
                            return alias.asname.name.value if alias.asname else "torch"  # type: ignore[union-attr]
    return None
