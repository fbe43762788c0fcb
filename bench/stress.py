"""Stress run: fuzz `check`/`fix` with mutated real files, storm the language server with random edits, and
measure peak memory per source byte. Deterministic for a seed; prints counts and exits 1 on any defect.

    python bench/stress.py [--programs 300] [--edits 300] [--seed 0] [--quick] [--memory-sizes 1,4]

1. Fuzz. `--programs` programs, each a project file (`fixtures/**/*.py`, `bench/fixsets/**/program.py`) with one
   to three mutations: odd characters (form feed, `\\x1c`-`\\x1e`, `\\x85`, U+2028, U+2029, tabs, a non-BMP
   character, `\\r`, `\\r\\n`) anywhere, at a line start, in a comment or a string; every line ending changed;
   tab indentation; lines duplicated or deleted; a 300-600-term `+` chain or 300-600 chained `.abs()` calls; a
   long line; a hazard function full of odd characters; and sometimes bytes: a UTF-8 BOM, a byte that is not
   UTF-8, a latin-1 coding cookie, a NUL byte. When `hypothesmith` is importable (it is not a dependency of the
   project), `--hypothesmith` generated programs are added (half of them with a hazard function appended).
   Each program goes through `engine.check_source`, `fix.checked.fix_text` (twice: the second run must change
   nothing), and `fix.offer`/`apply_offered` (the quick fixes) in this process; `--cli` of them also through
   `python -m fixinplace check --format json` and `fix --apply` (twice) in subprocesses, compared with what this
   process computes for the same bytes. Defects: a crash (anything but `SourceError`, which only text Python
   cannot parse may raise), a fix whose output does not parse, a fix reported where no hazard was, a line no fix
   rewrote that changed or lost a form feed (or another odd character), a second fix run that changes anything, a
   hazard left behind by the fix that claimed it, the CLI disagreeing with this process, or a run over `--limit`.
2. LSP edit storm. `python -m fixinplace lsp` in a subprocess, spoken to over pipes; one document with form
   feeds, U+2028, CRLF and lone-CR lines and non-BMP characters gets `--edits` random incremental edits (UTF-16
   ranges; inserted text with odd characters, line breaks and new hazards; `--past-end` of the positions past
   the end of their line, which LSP reads as the line's end; some two changes in one message). The client applies
   each edit to its own copy, as an editor does, and replays it on the server's document class
   (`fixinplace.lsp.document.SourceDocument`) in this process: the first change that makes the two texts differ is
   named (and the server is then sent the whole text). An edit that leaves text Python cannot parse is often
   undone at once (a real edit too), and at each checkpoint every edit since the last parsable text is undone, so
   that the server's diagnostics, fix-all, quick fix and hover can be compared with `check_source`, `fix_text`
   and `offer`/`apply_offered` run here on the client's text (ranges through `fixinplace.lsp.convert`). Server
   crashes, unanswered requests, tracebacks on its stderr and errors it logs are defects too.
3. Memory (skipped by `--quick`): the rows of `bench/memory.py` for `--memory-sizes` MB of generated source
   (peak RSS of `check --no-cache`, each run alone in a subprocess); printed, not judged.

The first example of each defect kind is saved under `--examples` (default: a folder in the temp directory) and
named in the output.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import difflib
import json
import keyword
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fixinplace.engine import SourceError, check_source, decode_source_bytes  # noqa: E402
from fixinplace.fix.checked import apply_offered, fix_text, offer  # noqa: E402
from fixinplace.settings import Settings  # noqa: E402

# The characters `str.splitlines` breaks at and Python does not, and others that tools get wrong.
ODD = ["\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\t", "\U0001d501", "\xe9"]  # U+1D501 is 𝔁
BREAKS = ["\r", "\r\n", "\n"]
PAST_END = 0.03  # of the positions an edit names: past the end of its line (LSP: it means the end of the line)
#: Characters no fix writes or removes on purpose: a fix may lose them only on the lines it rewrites.
KEPT = ["\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\U0001d501", "\xe9", "\ufeff"]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # lines as Python's tokenizer and LSP end them


def lines_of(text: str) -> list[str]:
    """The lines of a text with their endings; only `\\n`, `\\r\\n` and `\\r` end a line (this module's own
    splitter, kept apart from `fixinplace.lines` so that a bug there does not hide itself)."""
    return _LINE.findall(text)


def parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False


# =================================================================================================================
# 1. Programs


@dataclass
class Program:
    name: str  # where it came from and what was done to it
    data: bytes
    path: str  # the path it is analysed under (the source file's, so that its project imports resolve)
    hazards: int = -1  # how many diagnostics `check_source` gave (-1: it did not get that far)


def source_files() -> list[Path]:
    files = set(ROOT.glob("fixtures/**/*.py")) | set(ROOT.glob("bench/fixsets/**/program.py"))
    return sorted(files)


def _statement_starts(text: str) -> list[int]:
    """0-based indexes of the lines where a statement starts at the line's own indentation (not a decorated def:
    a line inserted there would split it from its decorators); every line when the text does not parse."""
    lines = lines_of(text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return list(range(len(lines)))
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or getattr(node, "decorator_list", None):
            continue
        index = node.lineno - 1
        if index < len(lines):
            line = lines[index]
            if len(line) - len(line.lstrip(" \t")) == node.col_offset:
                out.add(index)
    return sorted(out) or list(range(len(lines)))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\x0c"))]


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):] or "\n"


def _insert_before_statement(rng: random.Random, text: str, make: Callable[[str], str]) -> str:
    """`text` with `make(indentation)` (one or more lines) inserted before a random statement's line."""
    lines = lines_of(text)
    if not lines:
        return make("")
    starts = _statement_starts(text)
    i = rng.choice(starts)
    ending = _ending(lines[i])
    block = make(_indent(lines[i])).replace("\n", ending)
    return "".join(lines[:i]) + block + "".join(lines[i:])


def _name_in(rng: random.Random, text: str) -> str:
    names = [n for n in set(re.findall(r"\b[a-z_][a-z0-9_]*\b", text)) if not keyword.iskeyword(n)]
    return rng.choice(sorted(names)) if names else "x"


def _odd_piece(rng: random.Random, k: int = 3) -> str:
    return "".join(rng.choice(ODD) for _ in range(rng.randint(1, k)))


def m_odd_anywhere(rng: random.Random, text: str) -> str:
    at = rng.randint(0, len(text))
    return text[:at] + rng.choice(ODD + BREAKS) + text[at:]


def m_odd_line_start(rng: random.Random, text: str) -> str:
    """A form feed opening a statement's line, inside its indentation, or on a line of its own (page breaks)."""
    lines = lines_of(text)
    if not lines:
        return "\x0c" + text
    i = rng.choice(_statement_starts(text))
    line, indent = lines[i], _indent(lines[i])
    how = rng.randrange(3)
    if how == 0:
        lines[i] = "\x0c" + line
    elif how == 1:
        cut = rng.randint(0, len(indent))
        lines[i] = line[:cut] + "\x0c" + line[cut:]
    else:
        lines[i] = "\x0c" + _ending(line) + line
    return "".join(lines)


def m_odd_comment(rng: random.Random, text: str) -> str:
    lines = lines_of(text)
    if not lines:
        return "# " + _odd_piece(rng)
    i = rng.randrange(len(lines))
    body = lines[i].rstrip("\r\n")
    lines[i] = body + "  # c" + _odd_piece(rng, 4) + "d" + lines[i][len(body):]
    return "".join(lines)


def m_odd_string(rng: random.Random, text: str) -> str:
    piece = _odd_piece(rng, 4).replace("\\", "")
    return _insert_before_statement(rng, text, lambda ind: f'{ind}_s = "{piece}" + \'{piece}\'\n')


def m_line_endings(rng: random.Random, text: str) -> str:
    lines = lines_of(text)
    how = rng.randrange(3)
    out = []
    for line in lines:
        body = line.rstrip("\r\n")
        if body == line:
            out.append(line)
            continue
        ending = {0: "\r\n", 1: "\r"}.get(how) or rng.choice(BREAKS)
        out.append(body + ending)
    return "".join(out)


def m_tabs(rng: random.Random, text: str) -> str:
    lines = lines_of(text)
    if rng.random() < 0.7:  # every line: consistent, parses
        return "".join(re.sub(r"^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), line) for line in lines)
    if lines:
        i = rng.randrange(len(lines))
        lines[i] = re.sub(r"^    ", "\t", lines[i])
    return "".join(lines)


def m_duplicate_line(rng: random.Random, text: str) -> str:
    lines = lines_of(text)
    if lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i] if lines[i].endswith(("\n", "\r")) else lines[i] + "\n")
    return "".join(lines)


def m_delete_line(rng: random.Random, text: str) -> str:
    lines = lines_of(text)
    if lines:
        del lines[rng.randrange(len(lines))]
    return "".join(lines)


def m_deep_plus(rng: random.Random, text: str) -> str:
    name, n = _name_in(rng, text), rng.randint(300, 600)
    return _insert_before_statement(rng, text, lambda ind: f"{ind}_deep = " + " + ".join([name] * n) + "\n")


def m_deep_calls(rng: random.Random, text: str) -> str:
    name, n = _name_in(rng, text), rng.randint(300, 600)
    return _insert_before_statement(rng, text, lambda ind: f"{ind}_deep = {name}" + ".abs()" * n + "\n")


def m_long_line(rng: random.Random, text: str) -> str:
    if rng.random() < 0.5:
        n = rng.randint(2000, 6000)
        return _insert_before_statement(rng, text, lambda ind: f"{ind}_long = [" + ", ".join(map(str, range(n))) + "]\n")
    n = rng.randint(20000, 60000)
    return _insert_before_statement(rng, text, lambda ind: f"{ind}# " + "x" * n + "\n")


def m_hazard_block(rng: random.Random, text: str) -> str:
    """A function with a fixable hazard, odd characters around and inside its lines."""
    k = rng.randrange(1000)
    ff = rng.choice(["\x0c", "", "\x0c\n"])
    block = (f"\n{ff}def _hazard{k}(x):  # \u2028{_odd_piece(rng)}\n"
             f"    # {_odd_piece(rng, 4)}\n"
             f"{rng.choice(['', chr(12)])}    y = x.exp()  # \U0001d501\n"
             f"    s = \"{_odd_piece(rng).replace(chr(92), '')}\"; y.add_(1){rng.choice(['', chr(12)])}\n"
             f"    return y\n")
    lines = lines_of(text)
    tops = [i for i in _statement_starts(text) if i < len(lines) and not _indent(lines[i])] + [len(lines)]
    i = rng.choice(tops)
    if i > 0 and not lines[i - 1].endswith(("\n", "\r")):
        lines[i - 1] += "\n"
    return "".join(lines[:i]) + block + "".join(lines[i:])


MUTATIONS: list[tuple[Callable[[random.Random, str], str], int]] = [
    (m_odd_anywhere, 10), (m_odd_line_start, 10), (m_odd_comment, 10), (m_odd_string, 5), (m_line_endings, 8),
    (m_tabs, 4), (m_duplicate_line, 6), (m_delete_line, 6), (m_deep_plus, 3), (m_deep_calls, 3),
    (m_long_line, 3), (m_hazard_block, 10),
]


def b_bom(rng: random.Random, data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def b_not_utf8(rng: random.Random, data: bytes) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + rng.choice([b"\xff", b"\xe9", b"\x80", b"\xc3("]) + data[at:]


def b_latin1(rng: random.Random, data: bytes) -> bytes:
    """A latin-1 coding cookie and a latin-1 byte in a comment: decodes, and `fix` must write latin-1 back."""
    lines = data.splitlines(keepends=True) or [b""]
    i = rng.randrange(len(lines))
    body = lines[i].rstrip(b"\r\n")
    lines[i] = body + b"  # caf\xe9" + lines[i][len(body):]
    return b"# -*- coding: latin-1 -*-\n" + b"".join(lines)


def b_nul(rng: random.Random, data: bytes) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + b"\x00" + data[at:]


BYTE_MUTATIONS = [b_bom, b_bom, b_not_utf8, b_latin1, b_nul]

HAZARD = "\n\ndef _appended(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"


def mutated_programs(n: int, seed: int) -> list[Program]:
    rng = random.Random(seed)
    files = source_files()
    texts = {f: f.read_text(encoding="utf-8") for f in files}
    funcs, weights = zip(*MUTATIONS)
    out = []
    for k in range(n):
        f = rng.choice(files)
        text, done = texts[f], []
        for fn in rng.choices(funcs, weights, k=rng.choice([1, 1, 2, 2, 3])):
            text = fn(rng, text)
            done.append(fn.__name__[2:])
        data = text.encode("utf-8")
        if rng.random() < 0.2:
            bfn = rng.choice(BYTE_MUTATIONS)
            data = bfn(rng, data)
            done.append(bfn.__name__)
        out.append(Program(f"#{k} {f.relative_to(ROOT)} + {', '.join(done)}", data, str(f)))
    return out


def hypothesmith_programs(n: int, seed: int) -> Optional[list[Program]]:
    """`n` programs from hypothesmith's grammar strategy (None when hypothesmith is not installed)."""
    try:
        import hypothesmith
        from hypothesis import HealthCheck, Phase, given
        from hypothesis import seed as hypothesis_seed
        from hypothesis import settings as hypothesis_settings
    except ImportError:
        return None
    if n <= 0:
        return []
    found: list[str] = []

    @hypothesis_seed(seed)
    @hypothesis_settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
                         suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def collect(source: str) -> None:
        found.append(source)

    collect()
    path = str(Path(tempfile.gettempdir()) / "fixinplace-stress-hypothesmith" / "program.py")  # no project around it
    out = []
    for k, source in enumerate(found[:n]):
        if k % 2:
            source = source + HAZARD
        out.append(Program(f"hypothesmith #{k}" + (" + appended hazard" if k % 2 else ""),
                           source.encode("utf-8", "surrogatepass"), path))
    return out


# =================================================================================================================
# Defect tally


@dataclass
class Tally:
    defects: Counter = field(default_factory=Counter)
    stats: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)  # kind -> (program name, detail, data) of its first defect
    log: list = field(default_factory=list)  # (kind, program name, detail) of every defect

    def defect(self, kind: str, name: str, detail: str, data: bytes | None = None) -> None:
        self.defects[kind] += 1
        self.log.append((kind, name, detail))
        self.examples.setdefault(kind, (name, detail, data))

    @property
    def total(self) -> int:
        return sum(self.defects.values())


FUZZ_KINDS = [
    "check crash", "check refused parsable text", "fix crash", "fix refused parsable text",
    "fix output does not parse", "fix misreports what it fixed", "fix changed untouched lines", "fix dropped characters", "fix not idempotent",
    "hazard left behind by a fix", "quick fix crash", "quick fix output does not parse", "hang (over the time limit)",
]
CLI_KINDS = ["CLI internal error or traceback", "CLI exit status", "CLI check differs", "CLI fix differs",
             "CLI fix not idempotent"]
LSP_KINDS = ["LSP edit past a line's end misapplied", "LSP document drifts from the client's",
             "LSP text: fix crash", "LSP text: quick fix crash", "LSP diagnostics differ", "LSP fix-all differs", "LSP quick fix differs", "LSP hover missing", "LSP unanswered request",
             "LSP server crashed", "LSP stderr traceback", "LSP error logged"]


def _short(e: BaseException) -> str:
    """One line naming an exception and the ones it was raised while handling (LibCST turns a RecursionError into
    a KeyError whose text cannot be printed)."""
    chain, seen = [], set()
    while e is not None and id(e) not in seen and len(chain) < 4:
        seen.add(id(e))
        try:
            text = str(e)
        except BaseException:  # noqa: BLE001 - its str() may itself overflow the stack
            text = "<str() failed>"
        text = text.splitlines()[0] if text.strip() else ""
        chain.append(f"{type(e).__name__}: {text[:150]}")
        e = e.__cause__ or e.__context__
    return " <- ".join(chain)


# =================================================================================================================
# 1. Fuzzing check and fix in this process


def _base(d) -> tuple[str, str]:
    """What identifies a hazard across versions of a text (positions move when lines are added)."""
    return d.code, (d.facts.text if d.facts is not None else re.sub(r"\d+", "N", d.message))


def _fact_lines(value, out: set[int], depth: int = 0) -> None:
    """Every line a diagnostic's facts name (the save, the module constructor, the backward, ...)."""
    if depth > 6 or value is None:
        return
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.name.endswith("line") and isinstance(v, int) and not isinstance(v, bool) and v > 0:
                out.add(v)
            else:
                _fact_lines(v, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _fact_lines(v, out, depth + 1)


def _touched(text: str, diagnostics) -> set[int]:
    """1-based lines a fix of `diagnostics` may rewrite: each one's lines, related lines and the lines its facts
    name (the save a clone rewrites, the constructor an `inplace=True` fix rewrites), widened to the innermost
    statement holding them."""
    wanted = set()
    for d in diagnostics:
        wanted.update(range(d.line, max(d.line, d.end_line) + 1))
        wanted.update(r.line for r in d.related)
        _fact_lines(d.facts, wanted)
    try:
        spans = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(ast.parse(text)) if isinstance(n, ast.stmt)]
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        spans = []
    out = set()
    for line in wanted:
        holding = [s for s in spans if s[0] <= line <= s[1]]
        lo, hi = min(holding, key=lambda s: s[1] - s[0]) if holding else (line, line)
        out.update(range(lo, hi + 1))
    return out


def _changed_untouched(old: str, new: str, touched: set[int]) -> Optional[str]:
    """The first line of `old` that `new` deletes or rewrites although no fix touched it."""
    a, b = lines_of(old), lines_of(new)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            for i in range(i1, i2):
                if i + 1 not in touched:
                    became = b[j1:j2]
                    return f"line {i + 1} {a[i]!r} became {became[:3]!r}"
    return None


def _dropped(old: str, new: str, touched: set[int]) -> Optional[str]:
    """A kept character (form feed, U+2028, ...) that `new` has fewer of than `old` outside the touched lines."""
    a = lines_of(old)
    on_touched = "".join(a[i - 1] for i in touched if 0 < i <= len(a))
    for c in KEPT:
        lost = old.count(c) - new.count(c)
        if lost > on_touched.count(c):
            return f"{lost} x {c!r} lost ({on_touched.count(c)} on rewritten lines)"
    return None


class Timeout(BaseException):
    """A program over its time limit (not an Exception: the code under test must not catch it)."""


def _alarm(signum, frame):  # noqa: ARG001
    raise Timeout()


def fuzz_program(p: Program, tally: Tally, settings: Settings, limit_s: int) -> None:
    use_alarm = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(limit_s)
    try:
        _fuzz_program(p, tally, settings)
    except Timeout:
        tally.defect("hang (over the time limit)", p.name, f"more than {limit_s} s", p.data)
    finally:
        if use_alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def _fuzz_program(p: Program, tally: Tally, settings: Settings) -> None:
    tally.stats["programs"] += 1
    try:
        text, _codec = decode_source_bytes(p.data)
    except SourceError:
        tally.stats["rejected: undecodable bytes"] += 1
        return
    ok = parses(text)
    tally.stats["parsed by Python" if ok else "rejected: Python cannot parse it"] += 1
    try:
        before = check_source(text, p.path, settings)
    except SourceError as e:
        if ok:
            tally.defect("check refused parsable text", p.name, str(e), p.data)
        return
    except Exception as e:
        tally.defect("check crash", p.name, _short(e), p.data)
        return
    if not ok:
        tally.defect("check crash", p.name, "check_source accepted text that ast.parse rejects", p.data)
        return
    p.hazards = len(before)
    tally.stats["diagnostics"] += len(before)
    tally.stats["programs with a diagnostic"] += bool(before)
    try:
        result = fix_text(text, p.path, settings)
    except SourceError as e:
        tally.defect("fix refused parsable text", p.name, str(e), p.data)
        return
    except Exception as e:
        tally.defect("fix crash", p.name, _short(e), p.data)
        return
    if result.unparsable:
        tally.stats["fix: LibCST cannot parse (one-line reason)"] += 1
    tally.stats["fixes applied"] += len(result.applied)
    new = result.source
    if new != text:
        if not parses(new):
            tally.defect("fix output does not parse", p.name, "", p.data)
            return
        # Each applied fix is reported at the hazard of the input it fixed: once each, at a hazard `check` reported
        # (two writes may share one place: two in-place modules of one `Sequential`, so places are counted).
        where = [(d.line, d.column, d.code) for d in result.applied]
        if Counter(where) - Counter((d.line, d.column, d.code) for d in before):
            tally.defect("fix misreports what it fixed", p.name,
                         f"applied at {where}; hazards at {[(d.line, d.column, d.code) for d in before]}", p.data)
            touched = _touched(text, before)
        else:
            touched = _touched(text, result.applied)
        changed = _changed_untouched(text, new, touched)
        if changed:
            tally.defect("fix changed untouched lines", p.name, changed, p.data)
        dropped = _dropped(text, new, touched)
        if dropped:
            tally.defect("fix dropped characters", p.name, dropped, p.data)
    try:
        again = fix_text(new, p.path, settings)
        if again.source != new or again.applied:
            tally.defect("fix not idempotent", p.name, f"a second run applied {len(again.applied)} fixes", p.data)
        after = check_source(new, p.path, settings)
    except Exception as e:
        tally.defect("fix crash", p.name, "on its own output: " + _short(e), p.data)
        return
    expected = Counter(map(_base, before))
    expected.subtract(map(_base, result.applied))
    for base, count in Counter(map(_base, after)).items():
        if count > expected[base]:
            tally.defect("hazard left behind by a fix", p.name, f"{base[0]} `{base[1]}`: {count} after the fix, "
                         f"expected at most {max(0, expected[base])}", p.data)
            break
    blocking = [d for d in before if d.facts is not None]
    if blocking:
        try:
            offered = offer(text, p.path, blocking[:3], settings)
            for d in offered:
                if d.fix is None:
                    continue
                tally.stats["quick fixes applied"] += 1
                quick = apply_offered(text, p.path, d)
                if quick is not None and not parses(quick):
                    tally.defect("quick fix output does not parse", p.name, f"fix of line {d.line}", p.data)
        except Exception as e:
            tally.defect("quick fix crash", p.name, _short(e), p.data)


# --- the same bytes through the real command line ---------------------------------------------------------------


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for name in ("FIXINPLACE_DEBUG", "FORCE_COLOR"):
        env.pop(name, None)
    return env


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fixinplace", *args], cwd=cwd, env=_env(), capture_output=True,
                          timeout=600)


def _expected_fix_bytes(path: str, settings: Settings) -> Optional[bytes]:
    """The bytes `fix --apply` should leave (the file's own when it cannot be fixed); None when the fix crashes
    here too (a defect the in-process run counts)."""
    from fixinplace.fix.files import PatchError, make_patch, read_file

    try:
        source = read_file(path)
        return make_patch(source, fix_text(source.text, path, settings).source).new_data
    except (SourceError, PatchError):
        return Path(path).read_bytes()
    except Exception:
        return None


def _expected_check(path: str, settings: Settings) -> Optional[tuple[list, bool]]:
    """(diagnostics as the JSON report lists them, whether the file is an error), as `check` should report them;
    None when the check crashes here too."""
    try:
        data = Path(path).read_bytes()
        if b"\x00" in data:
            raise SourceError("binary file")
        diagnostics = check_source(decode_source_bytes(data)[0], path, settings)
        return [(d.line, d.column, d.end_line, d.end_column, d.code, d.severity.value, d.message)
                for d in diagnostics], False
    except SourceError:
        return [], True
    except Exception:
        return None


def fuzz_cli(programs: list[Program], tally: Tally, settings: Settings, folder: Path) -> None:
    """The programs through `check --format json` and `fix --apply` (twice), compared with this process. A file the
    CLI reports an internal error for is a defect, and is left out of the comparisons."""
    if not programs:
        return
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for k, p in enumerate(programs):
        path = folder / f"p{k:03d}.py"
        path.write_bytes(p.data)
        paths[str(path)] = p
    tally.stats["through the CLI"] += len(programs)
    names = list(paths)

    def crashed(proc: subprocess.CompletedProcess, what: str) -> set[str]:
        """The files the run reported an internal error for (all of them after a traceback or a bad exit)."""
        out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        bad = set()
        try:  # the JSON report names the file in a field of its own
            lines = [f"{e['path']}: {e['message']}" for e in json.loads(proc.stdout).get("errors", [])]
        except (ValueError, AttributeError, KeyError, TypeError):
            lines = out.splitlines()
        for line in lines:
            if "internal error" in line:
                hit = [n for n in names if line.startswith(n + ":")]
                for n in hit:
                    tally.defect("CLI internal error or traceback", paths[n].name, f"{what}: {line.strip()}",
                                 paths[n].data)
                bad.update(hit)
        if "Traceback" in out:
            tally.defect("CLI internal error or traceback", programs[0].name, f"{what}: a traceback: {out[-400:]}")
            return set(names)
        if proc.returncode not in (0, 1, 2):
            tally.defect("CLI exit status", programs[0].name, f"{what}: exit {proc.returncode}: {out[-400:]}")
            return set(names)
        return bad

    check = _cli(["check", "--no-cache", "--format", "json", "--jobs", "1", *names], folder)
    skip = crashed(check, "check")
    try:
        report = json.loads(check.stdout) if skip != set(names) else None
    except ValueError:
        report = None
        tally.defect("CLI check differs", programs[0].name, "the JSON report does not parse")
    if report is not None:
        got: dict[str, list] = {n: [] for n in names}
        errors = {e["path"] for e in report.get("errors", [])}
        for d in report.get("diagnostics", []):
            got.setdefault(d["path"], []).append(
                (d["line"], d["column"], d["end_line"], d["end_column"], d["code"], d["severity"], d["message"]))
        for n in names:
            expected = _expected_check(n, settings)
            if n in skip or expected is None:
                continue
            want, want_error = expected
            tally.stats["CLI diagnostics compared"] += len(want)
            if (n in errors) != want_error or sorted(got[n]) != sorted(want):
                tally.defect("CLI check differs", paths[n].name,
                             f"CLI: {sorted(got[n])[:2]} error={n in errors}; here: {sorted(want)[:2]} "
                             f"error={want_error}", paths[n].data)
    expected_bytes = {n: _expected_fix_bytes(n, settings) for n in names}
    fix = _cli(["fix", "--apply", *names], folder)
    skip = crashed(fix, "fix --apply")
    for n in names:
        tally.stats["CLI files changed by fix --apply"] += Path(n).read_bytes() != paths[n].data
        if n not in skip and expected_bytes[n] is not None and Path(n).read_bytes() != expected_bytes[n]:
            tally.defect("CLI fix differs", paths[n].name, "fix --apply wrote other bytes than fix_text here",
                         paths[n].data)
    fixed = {n: Path(n).read_bytes() for n in names}
    again = _cli(["fix", "--apply", *names], folder)
    skip |= crashed(again, "fix --apply, again")
    for n in names:
        if n not in skip and Path(n).read_bytes() != fixed[n]:
            tally.defect("CLI fix not idempotent", paths[n].name, "a second fix --apply changed the file",
                         paths[n].data)


def choose_cli(programs: list[Program], k: int, rng: random.Random) -> list[Program]:
    """`k` programs: half of them the first one of each kind of last mutation (so that the bytes mutations go
    through the CLI too), the others drawn from the programs with a diagnostic (so that there is something to fix)."""
    chosen, seen = [], set()
    for p in programs:
        kind = p.name.rsplit(", ", 1)[-1].rsplit("+ ", 1)[-1]
        if kind not in seen and len(chosen) < (k + 1) // 2:
            seen.add(kind)
            chosen.append(p)
    rest = [p for p in programs if p not in chosen]
    fixable = [p for p in rest if p.hazards > 0]
    chosen += rng.sample(fixable, min(len(fixable), k - len(chosen)))
    rest = [p for p in rest if p not in chosen]
    chosen += rng.sample(rest, min(len(rest), k - len(chosen)))
    return chosen


# =================================================================================================================
# 2. LSP edit storm


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def position_of(text: str, offset: int) -> dict:
    """The LSP position (UTF-16 units) of a character offset that is not inside a `\\r\\n`."""
    line, start = 0, 0
    for m in re.finditer(r"\r\n|\r|\n", text[:offset]):
        line, start = line + 1, m.end()
    return {"line": line, "character": utf16_len(text[start:offset])}


def offset_of(text: str, position: dict) -> int:
    """The character offset of an LSP position; a character past the end of its line is the line's end (LSP)."""
    lines = lines_of(text)
    if position["line"] >= len(lines):
        return len(text)
    start = sum(len(x) for x in lines[: position["line"]])
    body = lines[position["line"]].rstrip("\r\n")
    units, column = 0, 0
    while column < len(body) and units < position["character"]:
        units += 2 if ord(body[column]) > 0xFFFF else 1
        column += 1
    return start + column


def apply_change(text: str, change: dict) -> str:
    a, b = offset_of(text, change["range"]["start"]), offset_of(text, change["range"]["end"])
    return text[:a] + change["text"] + text[b:]


def undo_change(before: str, change: dict) -> dict:
    """The change that turns `apply_change(before, change)` back into `before` (its range widened to a whole
    `\\r\\n` when one ends up split: an LSP position cannot point between the two)."""
    after = apply_change(before, change)
    a = offset_of(before, change["range"]["start"])
    b = offset_of(before, change["range"]["end"])
    old = before[a:b]
    start, end = a, a + len(change["text"])
    prefix = suffix = ""
    if 0 < start < len(after) and after[start - 1] == "\r" and after[start] == "\n":
        start, prefix = start - 1, "\r"
    if 0 < end < len(after) and after[end - 1] == "\r" and after[end] == "\n":
        end, suffix = end + 1, "\n"
    undo = {"range": {"start": position_of(after, start), "end": position_of(after, end)},
            "text": prefix + old + suffix}
    assert apply_change(after, undo) == before
    return undo


STORM_DOC = (
    "import torch\r\n"
    "\x0c\n"
    "# page one\u2028still the comment \U0001d501\n"
    "\n"
    "def f(x):\n"
    "    # \U0001d501 form\x0cfeed \x85 \u2029\n"
    "    y = x.exp()\r\n"
    "    s = \"\U0001d501\u2028\"; y.add_(1)\n"
    "    return y\n"
    "\n"
    "\x0c\n"
    "def g(w):\r"
    "    z = w.sigmoid()  # \x1c\x1d\x1e\r"
    "    z.mul_(2)\r"
    "    return z\r"
    "\n"
    "def h(a):\n"
    "    b = a.tanh()\n"
    "    c = b * 2  # \u2028\n"
    "    b[0] = 0.0\n"
    "    return c\n"
)

STORM_PIECES = ODD + BREAKS + [
    "\x0c\n", "# \U0001d501\u2028c\r\n", "  # \x85\x0c", "\U0001d501", "y", "(", ")", ":", " ", "    ", "1",
    "y.add_(1)", "    q = x.exp()\n    q.add_(1)\n", "\r\n    pass\r\n", "'\u2028'",
]


class RawClient:
    """`python -m fixinplace lsp` in a subprocess, spoken to in JSON-RPC over its stdin/stdout."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "fixinplace", "lsp"], cwd=cwd, env=_env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        self.stderr: list[bytes] = []
        self.logged: list[str] = []
        self.readers = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True)]
        for reader in self.readers:
            reader.start()
        self.next_id = 0

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                return
            self.inbox.put(json.loads(out.read(length)))

    def send(self, **message) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> int:
        self.next_id += 1
        self.send(id=self.next_id, method=method, params=params)
        return self.next_id

    def wait(self, wanted: Callable[[dict], bool], timeout: float) -> Optional[dict]:
        deadline = time.monotonic() + timeout
        while True:
            for m in self.seen:
                if wanted(m):
                    self.seen.remove(m)
                    return m
            try:
                m = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if m.get("method") == "window/logMessage" and m["params"].get("type") == 1:
                self.logged.append(m["params"].get("message", ""))
            elif "id" in m and "method" in m:  # a request from the server: answer it
                self.send(id=m["id"], result=None)
            else:
                self.seen.append(m)

    def response(self, id: int, timeout: float) -> Optional[dict]:
        return self.wait(lambda m: m.get("id") == id and "method" not in m, timeout)

    def close(self) -> Optional[int]:
        try:
            self.response(self.request("shutdown", None), 20)
            self.send(method="exit")
            self.proc.stdin.close()
            return self.proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            return None
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for r in self.readers:
                r.join(5)


def _clean(value):
    """JSON with the null fields dropped (the server omits them)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _line_body(text: str, line: int) -> str:
    lines = lines_of(text)
    return lines[line].rstrip("\r\n") if line < len(lines) else ""


def _server_document(uri: str, text: str, version: int):
    from lsprotocol import types

    from fixinplace.lsp.document import SourceDocument

    return SourceDocument(uri, source=text, version=version, sync_kind=types.TextDocumentSyncKind.Incremental)


@dataclass
class Storm:
    client: RawClient
    uri: str
    path: str
    settings: Settings
    text: str
    tally: Tally
    version: int = 1
    sent: int = 0  # random edits sent
    undone: int = 0  # undo edits sent
    pending: list = field(default_factory=list)  # undo changes since the last parsable text, last one last
    checkpoints: int = 0
    replay: object = None  # the server's document class, fed the same changes in this process

    def __post_init__(self) -> None:
        self.replay = _server_document(self.uri, self.text, self.version)

    def change(self, changes: list[dict]) -> None:
        """Send one didChange; apply it here as an editor does, and to a replay of the server's document model
        (`fixinplace.lsp.document.SourceDocument`). A change the replay applies differently is a defect; the
        server is then sent the whole text, so that later comparisons test the rest."""
        from lsprotocol import types
        from pygls.protocol import default_converter

        drifted = None
        for c in changes:
            before = self.text
            self.text = apply_change(self.text, c)
            self.replay.apply_change(default_converter().structure(c, types.TextDocumentContentChangePartial))
            if drifted is None and self.replay.source != self.text:
                drifted = (c, before, self.replay.source)
        self.version += 1
        self.client.send(method="textDocument/didChange",
                         params={"textDocument": {"uri": self.uri, "version": self.version},
                                 "contentChanges": changes})
        if drifted is not None:
            c, before, theirs = drifted
            past = any(p["character"] > utf16_len(_line_body(before, p["line"]))
                       for p in (c["range"]["start"], c["range"]["end"]))
            kind = "LSP edit past a line's end misapplied" if past else "LSP document drifts from the client's"
            self.tally.defect(kind, f"version {self.version}",
                              f"change {json.dumps(c)} on {before!r}: the server's document has {theirs!r}, "
                              f"the client's {self.text!r}", before.encode("utf-8", "surrogatepass"))
            self.version += 1
            self.client.send(method="textDocument/didChange",
                             params={"textDocument": {"uri": self.uri, "version": self.version},
                                     "contentChanges": [{"text": self.text}]})
            self.replay = _server_document(self.uri, self.text, self.version)

    def random_position(self, rng: random.Random) -> dict:
        lines = lines_of(self.text)
        n = len(lines) + (1 if not lines or lines[-1].endswith(("\n", "\r")) else 0)
        line = rng.randrange(n)
        body = lines[line].rstrip("\r\n") if line < len(lines) else ""
        if rng.random() < PAST_END:  # past the end of the line: LSP clamps it to the line's end
            return {"line": line, "character": utf16_len(body) + rng.randint(1, 4)}
        return {"line": line, "character": utf16_len(body[: rng.randint(0, len(body))])}

    def random_change(self, rng: random.Random) -> dict:
        start = self.random_position(rng)
        r = rng.random()
        if r < 0.45:
            end = start
        elif r < 0.8:  # a few characters on, within the line (a surrogate pair is never split)
            lines = lines_of(self.text)
            body = lines[start["line"]].rstrip("\r\n") if start["line"] < len(lines) else ""
            at = offset_of(self.text, start) - offset_of(self.text, {"line": start["line"], "character": 0})
            end = {"line": start["line"], "character": utf16_len(body[: at + rng.randint(1, 6)])}
            if rng.random() < PAST_END:
                end["character"] = utf16_len(body) + rng.randint(1, 4)
        else:  # across one to three line breaks
            lines = lines_of(self.text)
            line = min(start["line"] + rng.randint(1, 3), len(lines))
            body = lines[line].rstrip("\r\n") if line < len(lines) else ""
            end = {"line": line, "character": utf16_len(body[: rng.randint(0, len(body))])}
        if offset_of(self.text, end) < offset_of(self.text, start):
            start, end = end, start
        r = rng.random()
        if r < 0.2:
            text = ""
        elif r < 0.27:  # a new function with a hazard, odd characters in it, at a line start
            start = end = {"line": start["line"], "character": 0}
            k = self.version
            text = (f"def h{k}(x):  # \U0001d501\u2028\n\x0c    y{k} = x.exp()\r\n"
                    f"    y{k}.add_(1)  # \x85\n    return y{k}\n")
        else:
            text = "".join(rng.choice(STORM_PIECES) for _ in range(rng.randint(1, 3)))
        return {"range": {"start": start, "end": end}, "text": text}

    def edit(self, rng: random.Random) -> None:
        """One random edit (sometimes two in one message); undone at once, often, when the text stops parsing."""
        changes = [self.random_change(rng)]
        if rng.random() < 0.1:
            first = apply_change(self.text, changes[0])
            saved, self.text = self.text, first
            changes.append(self.random_change(rng))
            self.text = saved
        undos, text = [], self.text
        for c in changes:
            undos.append(undo_change(text, c))
            text = apply_change(text, c)
        self.change(changes)
        self.sent += len(changes)
        self.pending.extend(undos)
        if parses(self.text):
            self.pending.clear()
        elif rng.random() < 0.5:
            self.undo(len(undos))

    def undo(self, n: int) -> None:
        for _ in range(n):
            self.change([self.pending.pop()])
            self.undone += 1

    def checkpoint(self) -> None:
        """Back to the last parsable text, then compare the server's diagnostics, fix-all and hover with ours."""
        self.undo(len(self.pending))
        assert parses(self.text), "the undo stack did not restore a parsable text"
        self.checkpoints += 1
        tally, client, where = self.tally, self.client, f"checkpoint {self.checkpoints}, version {self.version}"
        data = self.text.encode("utf-8", "surrogatepass")
        from fixinplace.lsp.convert import text_lines, to_lsp
        from pygls.protocol import default_converter

        converter = default_converter()
        diagnostics = check_source(self.text, self.path, self.settings)
        lines = text_lines(self.text)
        want = _clean([converter.unstructure(to_lsp(d, lines, self.uri)) for d in diagnostics])
        published = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                 and m["params"]["uri"] == self.uri and m["params"].get("version") == self.version, 120)
        client.seen = [m for m in client.seen if m.get("method") != "textDocument/publishDiagnostics"]
        if published is None:
            tally.defect("LSP unanswered request", where, "no publishDiagnostics for the last version", data)
        elif _clean(published["params"]["diagnostics"]) != want:
            got = published["params"]["diagnostics"]
            tally.defect("LSP diagnostics differ", where,
                         f"server: {[(g['range'], g.get('code')) for g in got][:3]}; "
                         f"here: {[(w['range'], w.get('code')) for w in want][:3]}", data)
        tally.stats["LSP diagnostics compared"] += len(want)

        whole = {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}
        rid = client.request("textDocument/codeAction", {
            "textDocument": {"uri": self.uri}, "range": whole,
            "context": {"diagnostics": [], "only": ["source.fixAll.fixinplace"]}})
        answer = client.response(rid, 300)
        try:
            fixed = fix_text(self.text, self.path, self.settings).source
        except Exception as e:  # the same text through `fix` crashes: no reference to compare the server with
            tally.defect("LSP text: fix crash", where, _short(e), data)
            fixed = None
        if fixed is None:
            pass
        elif answer is None or "result" not in answer:
            tally.defect("LSP unanswered request", where, f"fix-all: {answer}", data)
        else:
            actions = answer["result"] or []
            if fixed == self.text:
                if actions:
                    tally.defect("LSP fix-all differs", where, "a fix-all action where fix changes nothing", data)
            elif len(actions) != 1:
                tally.defect("LSP fix-all differs", where, f"{len(actions)} fix-all actions", data)
            else:
                tally.stats["LSP fix-alls compared"] += 1
                edits = actions[0]["edit"]["changes"][self.uri]
                spans = sorted(((offset_of(self.text, e["range"]["start"]), offset_of(self.text, e["range"]["end"]),
                                 e["newText"]) for e in edits), reverse=True)
                got = self.text
                for a, b, new in spans:
                    got = got[:a] + new + got[b:]
                if got != fixed:
                    tally.defect("LSP fix-all differs", where, "its edits do not give fix_text's text", data)

        if diagnostics:
            self.quick_fix(diagnostics[-1], lines, where, data)
            d = diagnostics[-1]
            at = to_lsp(d, lines, self.uri).range.start
            rid = client.request("textDocument/hover", {"textDocument": {"uri": self.uri},
                                                        "position": {"line": at.line, "character": at.character}})
            answer = client.response(rid, 300)
            if answer is None:
                tally.defect("LSP unanswered request", where, "hover", data)
            elif not answer.get("result") or d.code not in json.dumps(answer["result"]):
                tally.defect("LSP hover missing", where, f"no {d.code} hover at {at}", data)
            else:
                tally.stats["LSP hovers compared"] += 1


    def quick_fix(self, d, lines, where: str, data: bytes) -> None:
        """The quick fixes the server offers on a diagnostic's range hold the one `offer`/`apply_offered` give."""
        from fixinplace.lsp.convert import to_lsp

        try:
            offered = offer(self.text, self.path, [d], self.settings)[0]
            if offered.fix is None or (offered.fix.applicability != "safe" and not self.settings.unsafe_fixes):
                return
            want = apply_offered(self.text, self.path, offered)
        except Exception as e:
            self.tally.defect("LSP text: quick fix crash", where, _short(e), data)
            return
        if want is None or want == self.text:
            return
        rng = to_lsp(d, lines, self.uri).range
        rid = self.client.request("textDocument/codeAction", {
            "textDocument": {"uri": self.uri},
            "range": {"start": {"line": rng.start.line, "character": rng.start.character},
                      "end": {"line": rng.end.line, "character": rng.end.character}},
            "context": {"diagnostics": [], "only": ["quickfix"]}})
        answer = self.client.response(rid, 300)
        if answer is None or "result" not in answer:
            self.tally.defect("LSP unanswered request", where, f"quick fix: {answer}", data)
            return
        results = []
        for action in answer["result"] or []:
            got = self.text
            spans = sorted(((offset_of(self.text, e["range"]["start"]), offset_of(self.text, e["range"]["end"]),
                             e["newText"]) for e in action["edit"]["changes"][self.uri]), reverse=True)
            for a, b, new in spans:
                got = got[:a] + new + got[b:]
            results.append(got)
        if want not in results:
            self.tally.defect("LSP quick fix differs", where, f"{len(results)} quick fixes, none gives "
                              f"apply_offered's text for line {d.line}", data)
        else:
            self.tally.stats["LSP quick fixes compared"] += 1


def lsp_storm(edits: int, seed: int, tally: Tally, checkpoints: Optional[int] = None) -> None:
    from pygls.uris import to_fs_path

    from fixinplace.settings import load_settings

    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="fixinplace-storm-"))
    client = RawClient(folder)
    try:
        uri = (folder / "storm.py").as_uri()
        path = to_fs_path(uri) or uri
        settings = load_settings(None, [str(folder)], cwd=folder)
        rid = client.request("initialize", {"processId": os.getpid(), "rootUri": folder.as_uri(),
                                            "capabilities": {"general": {"positionEncodings": ["utf-16"]}}})
        if client.response(rid, 60) is None:
            tally.defect("LSP unanswered request", "initialize", "no answer")
            return
        client.send(method="initialized", params={})
        client.send(method="textDocument/didOpen", params={"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": STORM_DOC}})
        storm = Storm(client, uri, path, settings, STORM_DOC, tally)
        storm.checkpoint()
        every = max(1, edits // (checkpoints or max(4, edits // 25)))
        for k in range(edits):
            storm.edit(rng)
            if rng.random() < 0.03:
                time.sleep(0.35)  # past the debounce: the server analyses an intermediate text
            if (k + 1) % every == 0 or k + 1 == edits:
                storm.checkpoint()
            if client.proc.poll() is not None:
                break
        tally.stats["LSP edits"] += storm.sent
        tally.stats["LSP undo edits"] += storm.undone
        tally.stats["LSP checkpoints"] += storm.checkpoints
    finally:
        crashed = client.proc.poll() is not None
        status = client.close()
        if crashed or status not in (0, None):
            tally.defect("LSP server crashed", "storm", f"exit status {client.proc.returncode}")
        elif status is None:
            tally.defect("LSP server crashed", "storm", "did not exit after shutdown/exit")
        err = b"".join(client.stderr).decode("utf-8", "replace")
        if "Traceback" in err:
            last = [line for line in err[err.index("Traceback"):].splitlines() if line and not line[0].isspace()]
            tally.defect("LSP stderr traceback", "storm", f"{err.count('Traceback')} tracebacks; the first: "
                         f"{last[0]!s} ... {last[1] if len(last) > 1 else ''}")
        tally.stats["LSP stderr lines"] += len(err.splitlines())
        for message in client.logged:
            tally.defect("LSP error logged", "storm", message)
        shutil.rmtree(folder, ignore_errors=True)


# =================================================================================================================
# 3. Memory


def memory(sizes_mb: list[float]) -> list[str]:
    """The rows of `bench/memory.py` (peak RSS of check per source byte), indented."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import memory as memory_bench

    return ["  " + row for row in memory_bench.rows(sizes_mb)]


# =================================================================================================================


def run_fuzz(programs: int, seed: int, tally: Tally, *, hypothesmith: Optional[int] = None, cli: int = 16,
             limit_s: int = 300, progress: bool = False) -> list[str]:
    """Fuzz check/fix with `programs` mutated files (and hypothesmith programs); returns notes to print."""
    notes = []
    settings = Settings()
    items = mutated_programs(programs, seed)
    generated = hypothesmith_programs(programs // 6 if hypothesmith is None else hypothesmith, seed)
    if generated is None:
        notes.append("hypothesmith is not installed: mutated project files only")
    else:
        notes.append(f"hypothesmith: {len(generated)} generated programs")
        items += generated
    slow = []
    for k, p in enumerate(items):
        start = time.monotonic()
        fuzz_program(p, tally, settings, limit_s)
        slow.append((time.monotonic() - start, p.name))
        if progress and (k + 1) % 50 == 0:
            print(f"  ... {k + 1}/{len(items)} programs, {tally.total} defects", file=sys.stderr, flush=True)
    worst = max(slow) if slow else (0, "")
    notes.append(f"slowest program: {worst[0]:.1f} s ({worst[1]})")
    folder = Path(tempfile.mkdtemp(prefix="fixinplace-stress-cli-"))
    try:
        fuzz_cli(choose_cli(items, cli, random.Random(seed)), tally, settings, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return notes


def describe(tally: Tally) -> str:
    """The defect counts and the first example of each kind, for an assertion message."""
    rows = [f"{tally.total} defects: {dict(tally.defects)}"]
    for kind, (name, detail, _data) in tally.examples.items():
        rows.append(f"  {kind}: {name}: {detail[:400]}")
    return "\n".join(rows)


def save_examples(tally: Tally, folder: Path) -> list[str]:
    rows = []
    for kind, (name, detail, data) in tally.examples.items():
        line = f"  {kind}: {name}: {detail if len(detail) < 500 else detail[:497] + '...'}"
        if data is not None:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / (re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_") + ".py")
            path.write_bytes(data)
            line += f"\n    saved: {path}"
        rows.append(line)
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    global PAST_END
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=300, help="mutated programs to fuzz check/fix with")
    parser.add_argument("--hypothesmith", type=int, default=None,
                        help="hypothesmith programs added when it is installed (default: programs / 6)")
    parser.add_argument("--cli", type=int, default=16, help="programs also run through the CLI")
    parser.add_argument("--edits", type=int, default=300, help="random LSP edits")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="skip the memory measurement")
    parser.add_argument("--memory-sizes", default="1,4", help="MB of generated source to measure (comma-separated)")
    parser.add_argument("--limit", type=int, default=300, help="seconds one program may take before it is a hang")
    parser.add_argument("--all", action="store_true", help="print every defect, not only the first of each kind")
    parser.add_argument("--past-end", type=float, default=PAST_END,
                        help="share of LSP edit positions past the end of their line (valid LSP: the line's end)")
    parser.add_argument("--examples", type=Path, default=Path(tempfile.gettempdir()) / "fixinplace-stress-examples",
                        help="where the first example of each defect kind is saved")
    args = parser.parse_args(argv)

    PAST_END = args.past_end
    tally = Tally()
    started = time.monotonic()
    print(f"stress: seed {args.seed}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    if args.programs:
        t0 = time.monotonic()
        notes = run_fuzz(args.programs, args.seed, tally, hypothesmith=args.hypothesmith, cli=args.cli,
                         limit_s=args.limit, progress=True)
        print(f"\n1. fuzz check/fix ({time.monotonic() - t0:.0f} s)")
        for note in notes:
            print(f"  {note}")
        for key in ["programs", "rejected: undecodable bytes", "rejected: Python cannot parse it", "parsed by Python",
                    "programs with a diagnostic", "diagnostics", "fixes applied", "quick fixes applied",
                    "fix: LibCST cannot parse (one-line reason)", "through the CLI", "CLI diagnostics compared",
                    "CLI files changed by fix --apply"]:
            print(f"  {key:<44}{tally.stats[key]:>7}")
        for kind in FUZZ_KINDS + CLI_KINDS:
            print(f"  defects: {kind:<35}{tally.defects[kind]:>7}")
    if args.edits:
        t0 = time.monotonic()
        lsp_storm(args.edits, args.seed, tally)
        print(f"\n2. LSP edit storm ({time.monotonic() - t0:.0f} s)")
        for key in ["LSP edits", "LSP undo edits", "LSP checkpoints", "LSP diagnostics compared",
                    "LSP fix-alls compared", "LSP quick fixes compared", "LSP hovers compared", "LSP stderr lines"]:
            print(f"  {key:<44}{tally.stats[key]:>7}")
        for kind in LSP_KINDS:
            print(f"  defects: {kind:<35}{tally.defects[kind]:>7}")
    if not args.quick:
        t0 = time.monotonic()
        rows = memory([float(s) for s in args.memory_sizes.split(",") if s.strip()])
        print(f"\n3. memory of check --no-cache ({time.monotonic() - t0:.0f} s)")
        for row in rows:
            print(row)
    if tally.total:
        print("\nfirst example of each defect:")
        for row in save_examples(tally, args.examples):
            print(row)
        if args.all:
            print("\nevery defect:")
            for kind, name, detail in tally.log:
                print(f"  {kind}: {name}: {detail[:300]}")
    print(f"\nstress: {tally.stats['programs']} programs, {tally.stats['LSP edits']} LSP edits: "
          f"{tally.total} defects ({time.monotonic() - started:.0f} s)")
    return 1 if tally.total else 0


if __name__ == "__main__":
    sys.exit(main())
