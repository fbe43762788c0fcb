"""Tensor ops and the saved-tensor table: fresh tensors and their graphs, the events (a save, a write, a
`backward()`), applying a table op (what it saves, writes, returns), ops the table does not know, `out=`
writes, and Python operators on tensors (`a + b`, `-a`, `x op= y`)."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from fixinplace.analysis.values import (
    SCALAR,
    UNKNOWN,
    AutocastDoubt,
    AutocastEffect,
    DictValue,
    Group,
    LeafUse,
    ParamsValue,
    Save,
    ScalarValue,
    SeqValue,
    Site,
    TensorValue,
    Tri,
    UnknownValue,
    Value,
    Write,
    compatible,
    fold_binop,
    next_seq,
    tri_or,
    truth_value,
)

from fixinplace.analysis import dtypes, holders, strings
from fixinplace.analysis.calls.common import NONE_LITERAL, NOT_NONE, ArgFact
from fixinplace.analysis.events import InputReused, LeafWritten, SaveInvalidated, TensorWritten
from fixinplace.analysis.frame import Frame
from fixinplace.analysis.moves import HOME, carry_facts, move_facts, recompute_facts
from fixinplace.facts import WriteForm

BINOP_NAMES = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "and", ast.BitOr: "or",
    ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift",
}
# The in-place Tensor method each augmented assignment amounts to (what torch dispatches `x op= y` to).
AUGASSIGN_INPLACE = {
    "add": "add_", "sub": "sub_", "mul": "mul_", "truediv": "div_", "floordiv": "floor_divide_",
    "mod": "remainder_", "pow": "pow_", "and": "bitwise_and_", "or": "bitwise_or_", "xor": "bitwise_xor_",
    "lshift": "bitwise_left_shift_", "rshift": "bitwise_right_shift_", "matmul": "matmul_",
}
UNARY_NAMES = {ast.USub: "__neg__", ast.Invert: "__invert__", ast.UAdd: "__pos__"}
# Ops returning (values, indices, ...): from this output on, integer tensors that never require grad (measured).
INDEX_OUTPUTS = {name: 1 for name in ("topk", "sort", "kthvalue", "mode", "median", "nanmedian", "cummax", "cummin",
                                      "max", "min", "unique", "unique_consecutive", "frexp")}


def _autocast_casts(casts_on: Mapping[str, bool | None], device: str | None) -> tuple[bool | None, str | None]:
    """Whether a region on `device` casts an op's float32 inputs, from what the tables measured per device: True or
    False, or None when that depends on what the file does not show (a device chosen at run time where the
    measured devices differ, or a device autocast was not measured on), with, for a device chosen at run time,
    the one measured device that keeps the input itself (else None)."""
    if device in casts_on:
        return casts_on[device], None
    seen = set(casts_on.values())
    if device is None and len(seen) == 1:
        return seen.pop(), None
    if True not in seen:
        return False, None
    keeps = [d for d, casts in casts_on.items() if casts is not True]
    return None, keeps[0] if device is None and len(keeps) == 1 else None


class TensorOpsMixin:
    """Tensor ops, the saved-tensor events and operators."""

    def fresh_tensor(self, node: ast.AST, rg: Tri, label: str, leaf: bool = False, origin: str = "fresh",
                     detail: str = "", graph: frozenset = frozenset(), is_tensor: Tri = True) -> TensorValue:
        """A tensor with a version counter of its own."""
        group = Group(label=label, line=getattr(node, "lineno", 0), origin=origin, origin_detail=detail,
                      has_grad=False, created=self._created_at(node) if leaf and rg and detail else None)
        return TensorValue(group=group, rg=rg, leaf_rg=(rg if leaf else False), graph=graph, label=label,
                           is_tensor=is_tensor)

    def _created_at(self, node: ast.AST) -> "tuple[int, int] | None":
        """Where a leaf is made, for the leaf rule's related location (None in another project file)."""
        if self.report.file_of(node):
            return None
        return self.report.span(node)[:2]

    def fact(self, value: Value):
        """What the table needs to know about one argument."""
        if isinstance(value, TensorValue):
            return ArgFact(value.is_tensor, value.rg)
        if isinstance(value, ScalarValue):
            truth = value.truth if value.kind in ("bool", "none") else None  # True/False/None (not `0`)
            if truth is not None and "value" in getattr(ArgFact, "_fields", ()):
                return ArgFact(False, False, NONE_LITERAL if value.is_none else truth)
            if value.is_number and "value" in getattr(ArgFact, "_fields", ()):
                return ArgFact(False, False, NOT_NONE)
            return ArgFact(False, False)
        if isinstance(value, SeqValue):
            tensors = self.interp.tensors_in(value)
            if tensors:
                count = None if value.imprecise or value.open_ended or len(tensors) != len(value.items) \
                    else len(tensors)
                return ArgFact(True, tri_or(*[t.rg for t in tensors]), count=count)
            return ArgFact(False, False)
        if isinstance(value, ParamsValue):
            return ArgFact(True, True)
        return ArgFact(None, None)

    def tensors(self, values) -> list[TensorValue]:
        out: list[TensorValue] = []
        for v in values:
            out.extend(self.interp.tensors_in(v))
            if isinstance(v, ParamsValue):
                out.extend(v.params)
        return out

    def leaf_uses(self, tensors: list[TensorValue]) -> frozenset:
        """Graph markers for the inputs that are leaves requiring grad (their `.grad` gets written)."""
        leaves = [t for t in tensors if t.leaf_rg is True or (t.leaf_rg is None and t.rg is not False)]
        for t in leaves:
            if t.group.hidden_write is not None:
                self.hidden_write_used(t.group)
        return frozenset(t.group.use for t in leaves)

    @staticmethod
    def output_rg(frame: Frame, tensors: list[TensorValue], differentiable: bool = True) -> Tri:
        """Whether an op's output requires grad: some input does, the op is differentiable, grad mode is on."""
        if not tensors or frame.grad_mode is False or not differentiable:
            return False
        rg = tri_or(*[t.rg for t in tensors])
        return None if rg is True and frame.grad_mode is None else rg

    def graph_of(self, tensors: list[TensorValue], rg_out: Tri) -> frozenset:
        """What the backward of an op's output needs: its inputs' saves and the leaves they reach."""
        if rg_out is False or not tensors:
            return frozenset()
        return frozenset().union(*[t.graph for t in tensors]) | self.leaf_uses(tensors)

    def record_save(self, frame: Frame, value: Value, op: str, role: str, node: ast.AST, certain: bool, *,
                    operand: ast.AST | None = None, clonable: bool = False, device: str | None = None,
                    waits_for: tuple = (False, ()), autocast_unknown: AutocastDoubt | None = None) -> list[Save]:
        """Autograd saves `value` (every group it may be) at the groups' current versions.

        `operand` is the saved input's expression inside the op; `clonable` says that `.clone()` there (on the
        op's output for an output save) would be exact; `device`: the op saves it on that device only;
        `waits_for`: what an uncertain save waits for (`_waits_for`); `autocast_unknown`: why it may be a cast copy
        in the autocast region it runs in (it is then uncertain)."""
        self.interp.memo.impure()
        saves = []
        operand_span = self.report.span(operand) if operand is not None else None
        elements: dict[int, tuple] = {}  # a list or tuple argument written out: each tensor's own element
        if isinstance(value, SeqValue) and isinstance(operand, (ast.List, ast.Tuple)) \
                and len(operand.elts) == len(value.items) and not any(isinstance(e, ast.Starred) for e in operand.elts):
            elements = {id(item): self.report.span(e) for item, e in zip(value.items, operand.elts)
                        if isinstance(item, TensorValue)}
        stmts = tuple(self.interp.statements)
        for tensor in self.interp.tensors_in(value):
            span = elements.get(id(tensor), operand_span if isinstance(value, TensorValue) else None)
            for group, group_certain in tensor.all_groups():
                line, col, end_line, end_col = self.report.span(node)
                saves.append(Save(
                    group=group, version=len(group.writes), seq=next_seq(), path=frame.path + tensor.arm_path(group),
                    op=op, role=role,
                    label=tensor.label, line=line, column=col, file=self.report.file_of(node),
                    certain=certain and group_certain and tensor.is_tensor is True and autocast_unknown is None,
                    end_line=end_line, end_column=end_col, operand=span, device=device,
                    grad_mode_unknown=waits_for[0], inputs_unknown=waits_for[1], stmts=stmts,
                    autocast_unknown=autocast_unknown,
                    clonable=clonable and tensor.is_tensor is True and (
                        span is not None if operand is not None else isinstance(value, TensorValue)),
                ))
        return saves

    def record_write(self, frame: Frame, value: Value, site: Site, label: str, *, silent: bool = False,
                     leaf_check: bool = True, certain: bool = True) -> None:
        """An in-place write to `value`: the leaf check, then a version bump on every group it may be.

        (A call being summarised can write only tensors it made itself, which its summary does not return.)"""
        if not isinstance(value, TensorValue) or value.is_tensor is False:
            return
        self.write_sites[id(site)] = site
        certain = certain and value.is_tensor is True
        names = {name for _, name in value.group.names}
        root = site.setting.root
        # A view whose base someone else holds (another name, an attribute, a parameter, buffer or argument) shares
        # the write with it; a view of a temporary does not.
        based_elsewhere = value.view and root and (value.group.origin in ("param", "buffer", "arg") or (
            value.group.named and value.group.label != root))
        runs = site.runs
        kind = site.setting.root_kind
        container = holders.container_of(root) if kind == "element" else ""
        scope, stmt = self.interp.current_scope, self.interp.current_statement
        if len(names) > 1 or value.maybe_groups or based_elsewhere or (
                kind != "other" and holders.held_elsewhere(frame, value, container, root, scope, stmt)):
            runs.aliased = True
        if kind == "element":
            running = {getattr(node, "name", "") for node in self.interp.call_stack[:-1]}
            private = holders.element_private(frame, value, container, scope, stmt, running)
            runs.element_private = runs.element_private is not False and private
        # A NumPy array sharing a tensor's memory is written through, but is no tensor: no tensor rewrite applies.
        runs.target_is_tensor = runs.target_is_tensor is not False and value.is_tensor is True \
            and value.group.origin != "numpy"
        # Unknown only when no execution shows where the tensor comes from (a forward also run from `main` does).
        if any(g.origin in ("arg", "unknown") for g, _ in value.all_groups()):
            runs.target_unknown = not runs.known_target
        else:
            runs.known_target = True
            runs.target_unknown = False
        if value.view:
            runs.through_view = True
        if value.detached:
            runs.through_detach = True
        seen = runs.target_dtype
        runs.target_dtype = (value.dtype or "") if seen is None or seen == (value.dtype or "") else ""
        if value.leaf_rg:
            runs.leaf_kind = value.group.origin
            if value.group.has_grad:
                runs.after_backward = True
        raises = certain and leaf_check and not silent and value.leaf_rg is True and frame.grad_mode is True
        runs.raises_always = runs.raises_always is not False and raises
        if leaf_check and not silent and frame.grad_mode is not False:
            if value.leaf_rg is True:
                self.interp.memo.impure()  # a report names the statements around the call
                why = value.group.origin_detail or "a leaf that requires grad"
                self.report.emit(LeafWritten(site, label, why, certain and frame.grad_mode is True, view=value.view,
                                             created=value.group.created, stmts=tuple(self.interp.statements),
                                             path=frame.path, multi_output_of=value.multi_output_of,
                                             made_without_grad=value.made_without_grad))
            elif value.leaf_rg is None and value.group.rg_switched_at:
                # `if args.freeze: emb.weight.requires_grad = False`, then a write: the leaf error on the paths
                # that leave it requiring grad.
                self.interp.memo.impure()
                why = (f"{value.group.origin_detail or 'a leaf that requires grad'}, whose `requires_grad` is "
                       f"turned off at line {value.group.rg_switched_at} only on some paths")
                self.report.emit(LeafWritten(site, label, why, False, view=value.view, created=value.group.created,
                                             stmts=tuple(self.interp.statements), path=frame.path))
            # An argument whose callers are not seen is not reported as a possible leaf: a function that writes its
            # argument does what its callers ask (logits filters, in-place helpers, `out=` buffers), and a leaf
            # that requires grad passed to it is a hazard of the call, reported where the call is seen.
        stmts = tuple(self.interp.statements)
        if not silent and self.report.emit(TensorWritten(site, label, value, frame.grad_mode, certain, stmts=stmts,
                                                         path=frame.path)):
            self.interp.memo.impure()
        if site.form in (WriteForm.INPLACE_MODULE, WriteForm.INPLACE_KW) and not silent:
            self.note_reused_input(site, stmts)
        for group, group_certain in value.all_groups():
            write = Write(group=group, seq=next_seq(), path=frame.path + value.arm_path(group), site=site,
                          certain=certain and group_certain,
                          silent=silent, label=label, allowed=frame.allow_mutation, stmts=stmts,
                          maybe_not_tensor=value.is_tensor is None)
            group.writes.append(write)
            if group.array_source is not None and not silent:
                self.array_written(frame, site, label, group.array_source, write.certain)
            if group.silent_of is not None:
                base = group.silent_of
                if group.origin == "data" and base.origin == "param" and frame.grad_mode is not False:
                    self.note_hidden_write(base, site, label)
                base.writes.append(Write(group=base, seq=write.seq, path=frame.path, site=site,
                                         certain=write.certain, silent=True, label=label, allowed=frame.allow_mutation,
                                         stmts=stmts, via=group.origin))
            # The other way: `.data` and `.numpy()` aliases of the written tensor see the new values, but their own
            # version counters do not move, so a save of an alias is changed silently.
            for alias in (group.data_group, group.numpy_group):
                if alias is not None:
                    alias.writes.append(Write(group=alias, seq=write.seq, path=frame.path, site=site,
                                              certain=write.certain, silent=True, label=label,
                                              allowed=frame.allow_mutation, stmts=stmts, via="base"))

    def note_reused_input(self, site: Site, stmts: tuple) -> None:
        """An in-place activation whose result is bound to another name (`out = self.conv(x)`, the first layer
        `nn.ReLU(inplace=True)`), when the input's name is read again afterwards (`out += x`): that read gets the
        activated values, not the ones before the call (FIP107)."""
        setting = site.setting
        statement, root = setting.statement, setting.root
        if not (setting.root_kind in ("local", "argument") and root.isidentifier() and setting.read_after
                and statement is not None and statement.shape == "assign" and statement.assigned
                and statement.assigned != root and setting.target == root):
            return
        self.interp.memo.impure()
        self.report.emit(InputReused(site, root, statement.assigned, stmts=stmts))

    def backward(self, frame: Frame, value: Value, node: ast.AST, label: str, *, implicit: bool = False,
                 retain: bool = False, trained: bool = False, since: int = -1,
                 built: tuple[int, int] = (0, 0)) -> None:
        """A backward through `value`: every save it needs must still be at its saved version. `trained`: the
        backward is assumed because a forward is trained, so it never follows what runs only in eval mode;
        `since`: only the saves made from that event on count, and those made between the events of `built`
        (an assumed backward of what one entry point returns: its own run, and its instance's construction)."""
        self.interp.memo.impure()
        where = self.report.file_of(node)
        if where and not implicit:  # a backward in another file of the project: its line is there
            label = f"{label} ({where}:{getattr(node, 'lineno', '?')})"
        for tensor in self.interp.tensors_in(value):
            line = None if implicit or where else getattr(node, "lineno", None)
            saves = sorted((item for item in tensor.graph if isinstance(item, Save)), key=lambda s: s.seq)
            arms = tensor.graph_arms or {}
            for save in saves:
                if save in self.consumed or (save.seq < since and not built[0] <= save.seq < built[1]) \
                        or not compatible(save.path + arms.get(id(save), ()), frame.path):
                    continue
                if trained and self.interp.eval_only(save.path):
                    continue
                for write in save.group.writes:
                    if write.seq <= save.seq or write.allowed:
                        continue
                    if trained and self.interp.eval_only(write.path):
                        continue
                    if not (compatible(write.path, save.path) and compatible(write.path, frame.path)):
                        continue
                    if write.maybe_not_tensor and not save.certain:
                        continue  # a value that may be a number, saved by an op that may not save it: nothing known
                    home = self.report.file_of(write.site.node)
                    moves = {}
                    for facts in (move_facts(self.interp, frame, write, tensor, self.parameters_of),
                                  recompute_facts(self.interp, write, save),
                                  carry_facts(self.interp, frame, write, save)):
                        # A repair edits the written file: its statements must stand there.
                        if facts and self.report.file_of(facts.pop(HOME)) == home:
                            moves.update(facts)
                    self.report.emit(SaveInvalidated(write, save, label, line, save.certain and write.certain,
                                                     moves))
            if not implicit:
                for item in tensor.graph:
                    if isinstance(item, LeafUse):
                        item.group.has_grad = True
            if not retain:
                for save in saves:
                    if set(save.path) <= set(frame.path):
                        self.consumed.add(save)

    def autocast_copy(self, casts_on: Mapping[str, bool | None], target: Value, op: str, frame: Frame,
                      device: str | None = None) -> AutocastEffect:
        """What the autocast region the code runs in does to an input (or parameter) an op keeps: whether what it
        keeps is a cast copy, else why it may be one, and the device the save then exists on. `casts_on`: per device
        the tables measured autocast on, whether it casts this op's float32 inputs; `device`: the one device the
        op keeps it on, if one."""
        ctx = frame.autocast
        casts, keeps_on = _autocast_casts(casts_on, ctx.device) if ctx is not None else (False, None)
        if casts is False:
            return AutocastEffect(False, None, device)
        tensors = self.interp.tensors_in(target)
        found = {t.dtype for t in tensors}
        if found == {"float64"}:
            return AutocastEffect(False, None, device)  # autocast leaves a float64 tensor as it is
        label = tensors[0].label if tensors else "?"
        if ctx.enabled is None:
            return AutocastEffect(False, AutocastDoubt("off", ctx.line, label, op), device)
        if casts is None and keeps_on is None:
            return AutocastEffect(False, AutocastDoubt("device", ctx.line, label, op, device=ctx.device), device)
        # with the region's dtype not known (the device's default), only float32 is certainly cast
        if tensors and all(d in dtypes.AUTOCAST_CASTS and d != ctx.dtype and (ctx.dtype or d == "float32")
                           for d in found):
            if keeps_on is None:
                return AutocastEffect(True, None, device)
            # a region on a device chosen at run time: the input itself is kept on that one device only
            return AutocastEffect(False, None, keeps_on) if device in (None, keeps_on) else \
                AutocastEffect(True, None, device)
        if ctx.dtype is not None and found <= {ctx.dtype, "float64"}:
            return AutocastEffect(False, None, device)
        return AutocastEffect(False, AutocastDoubt("dtype", ctx.line, label, op, dtype=ctx.dtype), device)

    @staticmethod
    def autocast_dtype(casts_on: Mapping[str, bool | None], tensors: list[TensorValue], frame: Frame) -> str | None:
        """The dtype of what an op that autocast casts makes in an enabled region of a known dtype, when known."""
        ctx = frame.autocast
        if ctx is None or ctx.enabled is not True or ctx.dtype is None or \
                _autocast_casts(casts_on, ctx.device)[0] is not True:
            return None
        found = {t.dtype for t in tensors if dtypes.is_floating(t.dtype) or t.dtype is None}
        return ctx.dtype if found and found <= dtypes.AUTOCAST_CASTS | {ctx.dtype} else None

    @staticmethod
    def _waits_for(rg_out: Tri, tensors: list[TensorValue], frame: Frame) -> tuple[bool, tuple]:
        """What an op's uncertain saves wait for that the file does not show: whether grad mode is on where the
        code runs, and whether the inputs of unknown provenance require grad (a save of the op's other operand
        happens only then: `targets * gain` keeps `gain` when `targets` requires grad)."""
        unknown = tuple(t.label for t in tensors if t.rg is None)[:2] if rg_out is None else ()
        return frame.grad_mode is None, unknown

    def apply_op(self, entry, op: str, args: list, kwargs: dict, node: ast.AST, frame: Frame, *,
                 result_is_tensor: Tri = True, inplace_target: TensorValue | None = None,
                 arg_nodes: list | None = None) -> Value:
        """Run an op from the table: outputs, requires-grad, view-ness, and the saves it records.

        `arg_nodes` are the expressions of `args` (None where unknown), so that a save records where its saved
        input is written in the op."""
        at = entry.list_position() if entry is not None and hasattr(entry, "list_position") else None
        if at is not None and len(args) > at and not (len(args) == at + 1 and isinstance(args[at], SeqValue)):
            # `torch.einsum(eq, a, b)` is `torch.einsum(eq, [a, b])`: the measured list is every operand.
            args = [*args[:at], SeqValue(list(args[at:]))]
            arg_nodes = None
        tensors = self.tensors(list(args) + list(kwargs.values()))
        rg_out = self.output_rg(frame, tensors, entry is None or entry.differentiable)
        graph = self.graph_of(tensors, rg_out)
        label = self.text(node)
        facts = [self.fact(a) for a in args]
        kwfacts = {k: self.fact(v) for k, v in kwargs.items()}
        outputs: list[TensorValue]
        view = "never"
        if inplace_target is not None:
            outputs = [inplace_target]
        else:
            first = args[0] if args else None
            if entry is not None:
                view = entry.view_for(facts, kwfacts) if hasattr(entry, "view_for") else entry.view
            count = entry.outputs_for(facts, kwfacts) if entry is not None and hasattr(entry, "outputs_for") else 1
            if isinstance(first, TensorValue) and view == "always":
                made = getattr(entry, "multi_view", False)
                # An op's view may copy for some layouts (`reshape`): only its own several outputs are sure.
                outputs = [first.view_named(label, frame.grad_mode, rg=rg_out, graph=graph, dtype=None,
                                      is_tensor=first.is_tensor if result_is_tensor is None else True,
                                      multi_output_of=op.rpartition(".")[2] if made else first.multi_output_of,
                                      multi_output_sure=made)]
            else:
                outputs = [self.fresh_tensor(node, rg_out, label if count == 1 else f"{label}[{i}]", graph=graph,
                                             is_tensor=result_is_tensor) for i in range(max(count, 1))]
                if count == 1 and entry is not None and result_is_tensor is True:
                    outputs[0].single = True
                if isinstance(first, TensorValue) and view == "sometimes":
                    for out in outputs:
                        out.maybe_groups = tuple(g for g, _ in first.all_groups())
            if entry is not None:
                relation = entry.dtype_for(facts, kwfacts) if hasattr(entry, "dtype_for") else entry.dtype
                outputs[0].dtype = self.autocast_dtype(getattr(entry, "autocast_on", {}), tensors, frame) \
                    or dtypes.of_op(relation, [t.dtype for t in tensors])
        result: Value = outputs[0] if len(outputs) == 1 else SeqValue(list(outputs))
        if rg_out is False:
            if inplace_target is None:
                for out in outputs:
                    out.graph = frozenset()
            return result
        if entry is not None:
            self.library_writes(entry, op, args, kwargs, facts, kwfacts, node, frame, arg_nodes,
                                skip_self=inplace_target is not None)
        new_saves: list[Save] = []
        if entry is not None:
            waits_for = self._waits_for(rg_out, tensors, frame)
            for saved in entry.saves(facts, kwfacts):
                target = self._saved_value(saved.item, args, kwargs, outputs)
                if target is None or (inplace_target is not None and saved.item == "input:0"):
                    continue
                certain = saved.certain and rg_out is True and frame.grad_mode is True
                if saved.item.startswith("output"):
                    role = "output" if len(outputs) == 1 else f"output {saved.item.partition(':')[2] or '0'}"
                elif saved.item == "input:0" or len(tensors) == 1:
                    role = "input"
                elif isinstance(target, SeqValue):
                    role = "operands"
                else:
                    role = f"input `{getattr(target, 'label', '?')}`"
                cast = AutocastEffect(False, None, saved.device) if saved.item.startswith("output") else \
                    self.autocast_copy(getattr(entry, "autocast_on", {}), target, op, frame, saved.device)
                if cast.copy:
                    continue  # autocast keeps a cast copy: the caller's tensor is not saved
                operand, clonable = self._save_site(saved.item, node, arg_nodes, len(outputs), view,
                                                    inplace_target is not None)
                new_saves += self.record_save(frame, target, op, role, node, certain, operand=operand,
                                              clonable=clonable, device=cast.device,
                                              waits_for=(False, ()) if certain else waits_for,
                                              autocast_unknown=cast.doubt)
        else:
            for target in [t for t in tensors if t.is_tensor is True] + outputs:
                role = "output" if target in outputs else f"input `{target.label}`"
                new_saves += self.record_save(frame, target, op, role, node, False)
        for out in outputs:
            out.graph = (graph | out.graph if inplace_target is not None else graph) | frozenset(new_saves)
        if inplace_target is None and len(outputs) > 1 and op in INDEX_OUTPUTS:
            for out in outputs[INDEX_OUTPUTS[op]:]:
                out.rg, out.graph, out.dtype = False, frozenset(), "int64"  # integer indices never require grad
        if inplace_target is not None:
            inplace_target.rg = tri_or(inplace_target.rg, rg_out)
        return result

    def library_writes(self, entry, op: str, args: list, kwargs: dict, facts: list, kwfacts: dict, node: ast.AST,
                       frame: Frame, arg_nodes: list | None, *, skip_self: bool) -> None:
        """The arguments a library call writes in place, as the table measured (`F.embedding(x, w, max_norm=1.0)`
        renormalises `w`): a version bump on each, with no leaf check (torch writes them under no_grad)."""
        for written in entry.writes(facts, kwfacts):
            if not written.certain or (skip_self and written.item == "input:0"):
                continue
            target = self._saved_value(written.item, args, kwargs, [])
            if not isinstance(target, TensorValue):
                continue
            key = written.item.split(":", 1)[1]
            expr = (arg_nodes[int(key)] if key.isdigit() and arg_nodes is not None and int(key) < len(arg_nodes)
                    else self._kw_node(node, key) if isinstance(node, ast.Call) else None)
            pname = entry.signature[int(key)] if key.isdigit() and entry.signature and int(key) < len(
                entry.signature) else key
            why = f"measured under torch: `{op}` called like this bumps the version of its `{pname}`"
            site = self.site(node, WriteForm.LIBRARY, op, written=expr, frame=frame, extra=(("library", why),))
            self.record_write(frame, target, site, self._label(target, expr if expr is not None else node),
                              leaf_check=False)

    def keeps_written(self, frame: Frame, written: TensorValue, op: str, node: ast.AST) -> list[Save]:
        """The save of an in-place op that keeps the tensor it wrote for the backward (`leaky_relu_` keeps its
        result where `leaky_relu` keeps its input; measured by the table), made after its write."""
        certain = written.rg is True and frame.grad_mode is True
        return self.record_save(frame, written, op, "output", node, certain)

    @staticmethod
    def _save_site(item: str, node: ast.AST, arg_nodes: list | None, outputs: int, view: str,
                   inplace: bool) -> tuple[ast.AST | None, bool]:
        """For one saved item of a table op: the saved input's expression, and whether `.clone()` at the save
        is exact (an output: one fresh output of an op that is not in place; an input: one the output does not
        alias, written out in the op)."""
        if item.startswith("output"):
            return None, not inplace and outputs == 1 and view == "never"
        key = item.split(":", 1)[1] if ":" in item else "0"
        operand = None
        if key.isdigit():
            index = int(key)
            if arg_nodes is not None and index < len(arg_nodes):
                operand = arg_nodes[index]
            if index == 0 and (view != "never" or inplace):
                return operand, False
        elif isinstance(node, ast.Call):
            operand = next((kw.value for kw in node.keywords if kw.arg == key), None)
        return operand, operand is not None

    @staticmethod
    def _saved_value(item: str, args: list, kwargs: dict, outputs: list) -> Value | None:
        if item.startswith("output"):
            index = int(item.partition(":")[2] or 0)
            # One abstract output stands for all of them when the table does not say how many there are.
            return outputs[index] if index < len(outputs) else outputs[0]
        key = item.split(":", 1)[1] if ":" in item else "0"
        if key.isdigit():
            index = int(key)
            return args[index] if index < len(args) else None
        return kwargs.get(key)

    def generic_op(self, op: str, args: list, kwargs: dict, node: ast.AST, frame: Frame, *,
                   is_tensor: Tri = None, receiver: TensorValue | None = None) -> Value:
        """A call the analysis cannot see into: it may save any definite tensor argument.

        Its output is not taken as saved: nothing says the callee is an op that keeps its result (most unknown
        callees are layers whose output nothing saved), and a warning must name a concrete way the code breaks.
        Only a tensor `receiver` (`t.unknown_method(...)`) may be aliased by the result.
        """
        values = ([receiver] if receiver is not None else []) + list(args) + list(kwargs.values())
        tensors = self.tensors(values)
        if not tensors:
            return UNKNOWN
        rg_out = self.output_rg(frame, tensors)
        graph = self.graph_of(tensors, rg_out)
        result = self.fresh_tensor(node, rg_out, self.text(node), graph=graph, is_tensor=is_tensor)
        if receiver is not None:
            result.maybe_groups = tuple(g for g, _ in receiver.all_groups())
        if rg_out is False:
            return result
        saves: list[Save] = []
        for target in [t for t in tensors if t.is_tensor is True]:
            saves += self.record_save(frame, target, op, f"input `{target.label}`", node, False)
        result.graph = graph | frozenset(saves)
        return result

    def write_out(self, frame: Frame, out: Value, node: ast.Call, op: str) -> Value:
        """`op(..., out=buf)` writes `buf` in place (autograd refuses out= when an input requires grad)."""
        site = self.site(node, WriteForm.OUT, op, written=self._kw_node(node, "out"), frame=frame)
        self.record_write(frame, out, site, self._label(out, node, kw="out"))
        return out

    def _label(self, value: Value, node: ast.AST, kw: str = "") -> str:
        """How the user wrote the written tensor: the source of its expression (or of the `kw=` argument)."""
        if kw and isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == kw:
                    return self.text(keyword.value)
        if isinstance(node, ast.expr):
            return self.text(node)  # a call's result is a temporary: named by the call
        return getattr(value, "label", None) or self.text(node)

    def binop(self, node: ast.BinOp, left: Value, right: Value, frame: Frame) -> Value:
        name = BINOP_NAMES.get(type(node.op))
        if name is None:
            return UNKNOWN
        if name == "add" and isinstance(left, (SeqValue, ParamsValue)) and isinstance(right, (SeqValue, ParamsValue)):
            return self.concatenate([left, right], node)
        if isinstance(left, TensorValue):
            receiver, other, dunder = left, right, f"__{name}__"
        elif isinstance(right, TensorValue):
            receiver, other, dunder = right, left, f"__r{name}__"
        elif isinstance(left, ScalarValue) and left.is_str and isinstance(node.op, ast.Mod):
            return strings.percent(left, right) or ScalarValue(kind="str")
        elif isinstance(left, ScalarValue) and isinstance(right, ScalarValue):
            return fold_binop(node.op, left, right)
        elif any(isinstance(v, UnknownValue) and v.array for v in (left, right)) and all(
                isinstance(v, ScalarValue) or (isinstance(v, UnknownValue) and v.array) for v in (left, right)):
            return UnknownValue(array=True)  # `np.random.rand(2, 3) * 255`: NumPy arithmetic makes a new array
        else:
            return UNKNOWN
        entry = self.table.method(dunder) if self.table else None
        is_tensor = tri_or(receiver.is_tensor, getattr(other, "is_tensor", None))
        if entry is None:
            return self.generic_op(dunder, [receiver, other], {}, node, frame, is_tensor=is_tensor)
        nodes = [node.left, node.right] if receiver is left else [node.right, node.left]
        return self.apply_op(entry, name, [receiver, other], {}, node, frame, result_is_tensor=is_tensor,
                             arg_nodes=nodes)

    def unaryop(self, node: ast.UnaryOp, operand: Value, frame: Frame) -> Value:
        if isinstance(node.op, ast.Not):
            return truth_value(None if operand.truth is None else not operand.truth) \
                if isinstance(operand, ScalarValue) else SCALAR
        if isinstance(operand, ScalarValue):
            if isinstance(node.op, ast.USub) and operand.is_number and operand.known:
                return ScalarValue(kind="number", constant=-operand.constant)  # type: ignore[operator]
            return ScalarValue(kind=operand.kind if operand.is_number else "")
        if not isinstance(operand, TensorValue):
            return UNKNOWN
        if isinstance(node.op, ast.UAdd):
            return operand
        dunder = UNARY_NAMES[type(node.op)]
        entry = self.table.method(dunder) if self.table else None
        if entry is None:
            return self.generic_op(dunder, [operand], {}, node, frame, is_tensor=operand.is_tensor)
        return self.apply_op(entry, dunder.strip("_"), [operand], {}, node, frame, result_is_tensor=operand.is_tensor,
                             arg_nodes=[node.operand])

    def augassign(self, stmt: ast.AugAssign, frame: Frame) -> None:
        """`x op= y`: in place for tensors (`add_`...), a rebinding for Python numbers."""
        target = stmt.target
        name = BINOP_NAMES.get(type(stmt.op))
        current: Value | None = None
        if isinstance(target, ast.Subscript):
            base = self.interp.eval(target.value, frame)
            if isinstance(base, (SeqValue, DictValue)):
                # `laterals[i - 1] += up`: Python reads the element and calls its `__iadd__`, which writes a tensor
                # element in place (and stores it back where it was).
                current = self.item_of(base, target, frame)
        if isinstance(target, ast.Subscript) and current is None:
            rhs = self.interp.eval(stmt.value, frame)
            if isinstance(base, TensorValue) and base.is_tensor is not None:
                kind = self.index_kind(target.slice, frame)
                site = self.site(stmt, WriteForm.AUGASSIGN, AUGASSIGN_INPLACE.get(name or "", "setitem"),
                                 index_kind=kind, index_text=self.text(target.slice), written=target.value,
                                 frame=frame, operands=[(rhs, stmt.value)])
                self.record_write(frame, base, site, self._label(base, target.value))
                if isinstance(rhs, TensorValue) and frame.grad_mode is not False:
                    base.rg = tri_or(base.rg, rhs.rg)
                    base.graph = base.graph | rhs.graph | self.leaf_uses([rhs])
            else:
                self.interp.eval(target.slice, frame)
            return
        current = self.interp.eval(target, frame) if current is None else current
        rhs = self.interp.eval(stmt.value, frame)
        if isinstance(current, TensorValue) and name is not None and name != "matmul":
            op = AUGASSIGN_INPLACE[name]
            site = self.site(stmt, WriteForm.AUGASSIGN, op, written=target, frame=frame, operands=[(rhs, stmt.value)])
            self.record_write(frame, current, site, self._label(current, target))
            entry = self.table.method(f"__{name}__") if self.table else None
            self.apply_op(entry, name, [current, rhs], {}, stmt, frame, inplace_target=current,
                          arg_nodes=[stmt.target, stmt.value])
            return
        fake = ast.BinOp(left=target, op=stmt.op, right=stmt.value)
        ast.copy_location(fake, stmt)
        fake.end_lineno, fake.end_col_offset = stmt.end_lineno, stmt.end_col_offset
        result = self.binop(fake, current, rhs, frame)
        self.interp.assign(target, result, frame, stmt)
