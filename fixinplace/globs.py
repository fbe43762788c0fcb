"""Path globs as `include`, `exclude` and `per-file-ignores` read them (a glob without `/` matches a name, one with
`/` a path relative to the project root, or an absolute path; `**` crosses folders)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache


@lru_cache(maxsize=1024)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """A regex that fully matches what a path glob matches: `*`/`?` stop at `/`, `**` crosses folders."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                if pattern.startswith("**/", i):
                    out.append("(?:.*/)?")
                    i += 3
                else:
                    out.append(".*")
                    i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def posix_path(path: str) -> str:
    """`path` with `/` between its parts."""
    return path.replace(os.sep, "/") if os.sep != "/" else path


@dataclass(frozen=True)
class ExcludeGlob:
    """One glob of `include`, `exclude` or their `extend-` forms."""

    pattern: str
    dir_only: bool
    by_name: bool  # no `/`: matched against the entry's name

    @classmethod
    def parse(cls, raw: str) -> "ExcludeGlob":
        pat = posix_path(raw.strip())
        if pat.startswith("./"):
            pat = pat[2:]
        dir_only = pat.endswith("/")
        pat = pat.rstrip("/") or "/"
        return cls(pat, dir_only, "/" not in pat)

    def matches(self, abs_path: str, rel_path: str | None, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        rx = glob_to_regex(self.pattern)
        if self.by_name:
            return rx.match(name) is not None
        if rel_path is not None and rx.match(rel_path):
            return True
        return rx.match(abs_path) is not None
