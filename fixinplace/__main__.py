"""`python -m fixinplace ...` is the `fixinplace` command."""

from fixinplace.cli import main

main()
