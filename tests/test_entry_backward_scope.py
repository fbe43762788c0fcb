"""The backward assumed of what a function nothing calls returns needs what that function's own run saved (and what
its instance's construction saved), not what another entry point's run left on the same instance: `fit(X)` then
`transform(Y)` differentiated is a second caller's choice on top of the first (peft's IncrementalPCA). Each library
file is checked on its own (nothing in it calls its methods) and labelled by a program that uses it the way its
code is meant to be used: `check` agrees with it (the sequence of two entry points is not reported; a hazard
inside one entry point, or through what its instance's construction saved, is)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
from labels import raises_inplace_error

# name -> (library file, a program using it, whether the program raises "modified by an inplace operation", whether
# `check` of the library reports an error or warning)
LIBRARIES = {
    # A PCA fit on data (no gradient), then used to project what a model computes: it runs.
    "pca": ("""
        import torch


        class PCA:
            def fit(self, X):
                for start in range(0, X.shape[0], 4):
                    self.partial_fit(X[start:start + 4])
                return self

            def partial_fit(self, X):
                X = X - X.mean(dim=0)
                U, S, Vt = torch.linalg.svd(X, full_matrices=False)
                Vt *= torch.sign(Vt[:, :1])
                self.components_ = Vt
                return self

            def transform(self, X):
                return X @ self.components_.T
    """, """
        import torch
        from pca import PCA


        def main():
            pca = PCA().fit(torch.randn(8, 3))
            w = torch.randn(3, requires_grad=True)
            pca.transform(torch.randn(4, 3) * w).sum().backward()
    """, False, False),
    # One entry point that writes what it saved and returns it.
    "scaler": ("""
        import torch


        class Scaler:
            def scale(self, x):
                y = torch.exp(x)
                y *= 2.0
                return y
    """, """
        import torch
        from scaler import Scaler


        def main():
            x = torch.randn(3, requires_grad=True)
            Scaler().scale(x).sum().backward()
    """, True, True),
    # What the construction saved still counts: a tensor computed from a parameter in `__init__`.
    "gate": ("""
        import torch
        import torch.nn as nn


        class Gate(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.randn(3))
                self.g = torch.sin(self.w)

            def forward(self, x):
                with torch.no_grad():
                    self.w.mul_(0.5)
                return x * self.g
    """, """
        import torch
        from gate import Gate


        def main():
            Gate()(torch.randn(3)).sum().backward()
    """, True, True),
}


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("entries")
    for name, (library, program, _, _) in LIBRARIES.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(library).lstrip("\n"), encoding="utf-8")
        (folder / f"use_{name}.py").write_text(textwrap.dedent(program).lstrip("\n"), encoding="utf-8")
    return folder, raises_inplace_error(folder, {name: (f"use_{name}.py", "main()") for name in LIBRARIES})


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_assumed_backward_needs_what_its_entry_saved(name: str, measured: tuple[Path, dict]) -> None:
    folder, raises = measured
    _, _, label, reported = LIBRARIES[name]
    assert raises[name] is label, f"{name}: the label is not what torch does"
    proc = cli("check", "--no-cache", "--format", "json", f"{name}.py", cwd=folder)
    found = [d for d in json.loads(proc.stdout)["diagnostics"] if d["severity"] in ("error", "warning")]
    assert bool(found) is reported, found
