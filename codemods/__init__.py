"""LibCST codemods, one rewrite strategy per module (driven by fixinplace's analysis)."""
