"""`python -m fixinplace ...` is the `fixinplace` command."""

from fixinplace.launch import main

main()
