"""A non-editable install carries every subpackage and the shipped table (editable installs hide a missing one)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_contains_every_package_and_the_table(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path),
         str(REPO)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    wheel = next(tmp_path.glob("fixinplace-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {str(p.parent.relative_to(REPO)) for root in ("fixinplace", "codemods")
                for p in (REPO / root).rglob("__init__.py")}
    for package in sorted(packages):
        assert f"{package}/__init__.py" in names, package
    assert "fixinplace/data/saved_tensors.json" in names
