"""Turns hazards found by the interpreter into diagnostics with precise messages and positions."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from fixinplace.analysis.events import Event, SafeWrite
from fixinplace.analysis.values import Site
from fixinplace.diagnostics import Diagnostic, Severity
from fixinplace.facts import RemoteWrite, SavedBy, Span, WriteFacts, WriteForm
from fixinplace.lines import shared_line_texts
from fixinplace.rules import RULES_BY_CODE, rule_for
from fixinplace.rules.wording import shorten


@dataclass(slots=True)
class _Pending:
    """A diagnostic being collected: the most severe message, and every save the write invalidated."""

    site: Site
    code: str
    severity: Severity
    message: str
    related: tuple
    subject: str = ""  # the written expression when the message reads "in-place write to `subject`..."
    # (line, column, op, role) -> (Save, backward line, move facts, made in another file than the write's)
    saves: dict = field(default_factory=dict)
    device: str | None = None  # the one device every hazard found at the write exists on; None: every device
    # The most severe (severity, message, related, subject) per device the hazards exist on (None: every device):
    # a write that is an error on CUDA and a warning on the CPU is reported once for each.
    by_device: dict = field(default_factory=dict)
    # A call's diagnostic: the writes it runs in other files (id of the site -> the site, that file's entry, and
    # the saves there the write invalidated, keyed as `saves`), and which one the message kept names.
    remotes: dict = field(default_factory=dict)
    remote_named: int = 0


class Reporter:
    """Collects diagnostics, one per (write site, code), keeping the most severe."""

    def __init__(self, source: str, path: str) -> None:
        self.source = source
        self.path = path
        self.lines = shared_line_texts(source)
        self.found: dict[tuple[int, str], _Pending] = {}  # (id of the site, code)
        # Other project files the analysis ran (display name, ids of their nodes, lines, path): never reported at.
        self._foreign: list[tuple[str, frozenset, tuple, str]] = []
        self._foreign_bytes: dict[str, list[bytes]] = {}
        self._call_sites: dict[int, Site] = {}  # statement id -> the site standing for writes it runs elsewhere
        # The branch statements and expressions whose condition the analysis could not decide (the nodes a path
        # names by id): what a write in another file is conditional on, when a call of this file runs it.
        self.branches: dict[int, ast.AST] = {}
        # The calls that passed `*args`/`**kwargs` whose content the analysis did not know, in some run of them.
        self.unknown_spreads: set[int] = set()

    def add_foreign(self, display: str, node_ids: frozenset, lines: tuple, path: str = "") -> None:
        """Register the nodes of another project file: positions there are not positions in this file."""
        self._foreign.append((display, node_ids, lines, path))

    def _foreign_entry(self, node: ast.AST | None) -> tuple[str, frozenset, tuple, str] | None:
        if node is None or not self._foreign:
            return None
        key = id(node)
        return next((entry for entry in self._foreign if key in entry[1]), None)

    def _line_text(self, node: ast.AST) -> str:
        line = getattr(node, "lineno", 0)
        return shorten(self.lines[line - 1].strip() if 1 <= line <= len(self.lines) else "")

    def file_of(self, node: ast.AST | None) -> str:
        """The display name of the project file a node is in, or "" for the checked file."""
        entry = self._foreign_entry(node)
        return entry[0] if entry else ""

    def byte_lines_of(self, node: ast.AST) -> list[bytes] | None:
        """The UTF-8 lines of the other project file a node is in (None for the checked file)."""
        entry = self._foreign_entry(node)
        if entry is None:
            return None
        if entry[0] not in self._foreign_bytes:
            self._foreign_bytes[entry[0]] = [line.encode("utf-8") for line in entry[2]]
        return self._foreign_bytes[entry[0]]

    # ------------------------------------------------------------------------------------------ positions
    def _char_col(self, line: int, byte_col: int, lines: "list[str] | tuple | None" = None) -> int:
        """ast columns count UTF-8 bytes; diagnostics count characters (1-based)."""
        lines = self.lines if lines is None else lines
        if 1 <= line <= len(lines):
            text = lines[line - 1]
            return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore")) + 1
        return byte_col + 1

    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        """1-based (line, column, end_line, end_column) of a node, columns in characters."""
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        entry = self._foreign_entry(node)
        lines = entry[2] if entry else None
        col = self._char_col(line, getattr(node, "col_offset", 0), lines)
        end_col = self._char_col(end_line, getattr(node, "end_col_offset", None) or 0, lines)
        return line, col, end_line, end_col

    # ------------------------------------------------------------------------------------------ emit
    def add(self, site: Site, code: str, severity: Severity, message: str, related=(),
            save: tuple | None = None, stmts: tuple = (), paths: tuple = (), subject: str = "") -> None:
        """Record one diagnostic at a write site (the most severe one per site and code wins); `save` is a
        (Save, backward line, move facts) the write invalidated; `subject`: the written expression, when the
        message starts "in-place write to `subject`" (a chain of in-place calls names its ops after it). A write
        in another project file, run by a call of this file (`stmts`: the statements being run, outermost first),
        is reported at that call, which keeps the write itself for the fix stage (`_Pending.remotes`); when one of
        `paths` (of the write, and of the save it changed) passes a branch of that file whose condition the call's
        arguments leave undecided, the call runs it only maybe: a warning that names the condition."""
        entry = self._foreign_entry(site.node)
        remote = None
        if entry is not None:
            call = next((s for s in reversed(stmts) if self._foreign_entry(s) is None), None)
            if call is None:
                return  # found while that file's own code ran: reported when that file is checked
            line = getattr(site.node, "lineno", 0)
            guard = self._undecided_guard(paths)
            chain = stmts[[id(s) for s in stmts].index(id(call)):]  # the call, and what it runs down to the write
            if guard is not None and any(self._spreads_unknown(s) for s in chain):
                # What decides it came through `**kwargs` the analysis cannot see (the call's, or a forwarding
                # layer's on the way: `self.processor(self, x, **kwargs)`): the line is the callee's, reported in
                # its own file; a call that only passes options through adds nothing to that.
                return
            if guard is None:
                message = f"this call runs {entry[0]}:{line}, where {message}"
            else:
                message = f"this call may run {entry[0]}:{line}, {guard}; there, {message}"
                severity = min(severity, Severity.WARNING, key=lambda s: s.rank)
            remote = (site, entry, self._remote_save(save, entry))
            site = self._call_sites.setdefault(id(call), Site(node=call, form=WriteForm.CALL, op=site.op,
                                                              text=self._line_text(call)))
            if save is not None and save[0].file:
                save = None  # a save made in another file is the write's file's to clone (`remotes`), not this one's
            subject = ""
        key = (id(site), code)
        pending = self.found.get(key)
        device = save[0].device if save is not None else None
        if pending is None:
            pending = self.found[key] = _Pending(site, code, severity, message, tuple(related), subject, device=device)
            pending.remote_named = id(remote[0]) if remote is not None else 0
        elif severity.rank > pending.severity.rank or (
                severity.rank == pending.severity.rank and pending.device is not None and device is None):
            # The most severe message; of equally severe ones, one of a hazard on every device.
            pending.severity, pending.message, pending.related = severity, message, tuple(related)
            pending.subject = subject
            pending.remote_named = id(remote[0]) if remote is not None else 0
        if remote is not None:
            written = pending.remotes.setdefault(id(remote[0]), (remote[0], remote[1], {}))
            if remote[2] is not None:
                saved = remote[2][0]
                written[2].setdefault((saved.file, saved.line, saved.column, saved.op, saved.role), remote[2])
        if pending.device != device:
            pending.device = None
        best = pending.by_device.get(device)
        if best is None or severity.rank > best[0].rank:
            pending.by_device[device] = (severity, message, tuple(related), subject)
        # The fix stage edits this file only: a save made in another file counts where its repair is a statement
        # of this file moved or run again (an optimizer step, the call of a model whose forward saved it).
        if save is not None and (not save[0].file or save[2]):
            saved = save[0]
            pending.saves.setdefault((saved.file, saved.line, saved.column, saved.op, saved.role),
                                     (*save, bool(saved.file)))

    @staticmethod
    def _remote_save(save: tuple | None, entry: tuple) -> tuple | None:
        """A save (Save, backward line, move facts, made elsewhere) as the write's own file sees it (its moves stand
        in that file: `calls.ops` keeps only those); a save made in another file than the write's only for such a
        move (nothing can be cloned there), else None."""
        if save is None:
            return None
        move = save[2]
        elsewhere = save[0].file != entry[0]
        if elsewhere and not move:
            return None
        return save[0], save[1], move, elsewhere

    def _spreads_unknown(self, statement: ast.AST) -> bool:
        """Whether a statement makes a call that passed `*args`/`**kwargs` of unknown content."""
        return any(isinstance(node, ast.Call) and id(node) in self.unknown_spreads for node in ast.walk(statement))

    def _undecided_guard(self, paths: tuple) -> str | None:
        """How a write in another file depends on a condition there that the analysis could not decide, for the
        message ("only when `cond` (file:line) is true, which this call leaves undecided"), or None when every
        branch of its paths that lies in another file was decided (the call's arguments chose the arms)."""
        for path in paths:
            for (node_id, _), arms in path:
                node = self.branches.get(node_id)
                entry = self._foreign_entry(node)
                if node is None or entry is None:
                    continue
                where = f"{entry[0]}:{getattr(node, 'lineno', '?')}"
                test = getattr(node, "test", None)
                if isinstance(node, (ast.If, ast.IfExp, ast.While)) and test is not None and len(arms) == 1:
                    truth = "true" if 0 in arms else "false"
                    return (f"only when `{shorten(ast.unparse(test), 40)}` ({where}) is {truth}, which this call "
                            f"leaves undecided")
                return f"only on some paths of the branch at {where}, which this call leaves undecided"
        return None

    def emit(self, event: Event) -> bool:
        """Record what the rule that claims an analysis event says about it; whether a rule claimed it."""
        rule = rule_for(event)
        if rule is None:
            return False
        found = rule.finding(event)
        self.add(event.site, rule.code, found.severity, found.message, found.related, save=event.saved,
                 stmts=event.stmts, paths=event.paths, subject=found.subject)
        return True

    def safe_writes(self, sites: dict[int, Site]) -> None:
        """Report the write sites that got no hazard (as the rule of safe writes words them)."""
        flagged = {key[0] for key in self.found}
        for key, site in sites.items():
            if key not in flagged:
                self.emit(SafeWrite(site))

    def diagnostics(self) -> list[Diagnostic]:
        """All diagnostics in source order, each with the facts of its write."""
        out = []
        # A write certain to raise the leaf error never reaches a backward: its saved-tensor hazards are moot.
        raising = {key[0] for key, p in self.found.items()
                   if RULES_BY_CODE[key[1]].raises_at_write and p.severity is Severity.ERROR}
        chains = self._chains()
        for key, pending in self.found.items():
            if key[0] in raising and RULES_BY_CODE[key[1]].needs_backward:
                continue
            links = chains.get(key)
            if links == []:
                continue  # a later link of a chain of in-place calls: reported with its first link
            line, col, end_line, end_col = self.span(pending.site.node)
            ops = ""
            if links:
                # One diagnostic for `x.sub_(m).div_(s)`, spanning the chain and naming each op.
                _, _, end_line, end_col = self.span(links[-1].node)
                ops = ", then ".join(f"`{site.op}`" for site in [pending.site, *links])
            facts = self.facts(pending)
            for severity, text, related, device, subject in self._per_device(pending):
                prefix = f"in-place write to `{subject}`"
                if ops and subject and text.startswith(prefix):
                    text = f"in-place writes to `{subject}` ({ops})" + text[len(prefix):]
                out.append(Diagnostic(
                    path=self.path, line=line, column=col, end_line=end_line, end_column=end_col, code=pending.code,
                    severity=severity, message=text, related=related, facts=facts, device=device,
                ))
        return sorted(out, key=lambda d: (d.line, d.column, d.code, d.device or ""))

    @staticmethod
    def _per_device(pending: _Pending) -> list[tuple]:
        """(severity, message, related, device, subject) of each diagnostic for one write: one when the hazard is
        as severe on every device it exists on; else one per device with what is most severe there (an `nn.LSTM`
        output write: certain on CUDA, whose cuDNN kernel always keeps it, dtype-dependent on the CPU)."""
        def most_severe(device: str) -> tuple | None:
            found = [pending.by_device[d] for d in (None, device) if d in pending.by_device]
            return max(found, key=lambda f: f[0].rank) if found else None  # max keeps the first (None) on ties

        cpu, cuda = most_severe("cpu"), most_severe("cuda")
        if cpu is None or cuda is None or cpu[0].rank == cuda[0].rank:
            return [(pending.severity, pending.message, pending.related, pending.device, pending.subject)]
        return [(severity, text, related, device, subject) for device, (severity, text, related, subject) in
                (("cpu", cpu), ("cuda", cuda))]

    def _chains(self) -> dict[tuple[int, str], list[Site]]:
        """For chains of in-place calls reported under one code (`x.sub_(m).div_(s)`): the first link's key maps to
        the later links' sites, in order; each later link's key maps to []. (Links are found in the order they
        run, the innermost call first.)"""
        by_node = {(id(p.site.node), key[1]): key for key, p in self.found.items()}
        chains: dict[tuple[int, str], list[Site]] = {}
        first_of: dict[tuple[int, str], tuple[int, str]] = {}
        for key, pending in self.found.items():
            node = pending.site.node
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            inner = by_node.get((id(node.func.value), key[1]))
            if inner is None or inner == key:
                continue
            first = first_of.get(inner, inner)
            chains.setdefault(first, []).append(pending.site)
            chains[key] = []
            first_of[key] = first
        return chains

    def facts(self, pending: _Pending) -> WriteFacts:
        """The typed record of a write and of the saves it invalidated (in program order); for a call's
        diagnostic, also the writes it runs in other files (`RemoteWrite`), the one its message names first."""
        remotes = []
        named = pending.remotes.get(pending.remote_named)
        for site, entry, saves in sorted(pending.remotes.values(), key=lambda r: r is not named):
            # What a caller elsewhere sees written is not known here: an argument is never taken as private.
            facts = replace(self._write_facts(site, saves), argument_private=False)
            remotes.append(RemoteWrite(entry[3], entry[0], Span(*self.span(site.node)), facts))
        return replace(self._write_facts(pending.site, pending.saves), remotes=tuple(remotes))

    @staticmethod
    def _write_facts(site: Site, saved: dict) -> WriteFacts:
        """The record of a write site (what it showed when first seen, what its runs wrote) and of the saves it
        invalidated: (Save, backward line, move facts, made in another file than the write's: nothing to clone
        there)."""
        setting, runs = site.setting, site.runs
        saves = sorted(saved.values(), key=lambda item: item[0].seq)
        return WriteFacts(
            form=site.form, op=site.op, text=site.text,
            target=setting.target, root=setting.root, root_kind=setting.root_kind,
            target_is_tensor=bool(runs.target_is_tensor), target_dtype=runs.target_dtype or "",
            aliased=runs.aliased, through_view=runs.through_view, through_detach=runs.through_detach,
            read_after=setting.read_after, argument_private=setting.argument_private,
            returns_other=setting.returns_other,
            chain=setting.chain, chain_exact=setting.chain_exact, chain_promotes=setting.chain_promotes,
            operands=setting.operands, statement=setting.statement,
            grad_mode=setting.grad_mode, grad_on_line=setting.grad_on_line,
            index_kind=setting.index_kind, index_text=setting.index_text, index_parts=setting.index_parts,
            leaf_kind=runs.leaf_kind, after_backward=runs.after_backward, target_unknown=runs.target_unknown,
            raises_always=bool(runs.raises_always),
            element_private=bool(runs.element_private),
            module_ctor=setting.module_ctor, inplace_literal=setting.inplace_literal,
            module_condition=setting.module_condition,
            shares_array=runs.shares_array, extra=setting.extra,
            saves=tuple(
                SavedBy(op=s.op, role=s.role, label=s.group.label, span=Span(s.line, s.column, s.end_line, s.end_column),
                        certain=s.certain, operand=Span(*s.operand) if s.operand and not elsewhere else None,
                        clonable=s.clonable and not elsewhere, backward_line=backward, **move)
                for s, backward, move, elsewhere in saves
            ),
        )
