"""The dataflow analysis on focused programs: exact lines, codes and severities, with the truth run under torch.

Each case is a complete program. `expect` lists every (line, code, severity) the analysis must report at warning
level or above — nothing more. `runtime` is what the program does under the installed torch ("raises", "silent"
for a wrong gradient without an error, "ok"), checked by running it, so that no expectation here is folklore.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from fixinplace.analysis import analyze_module

CASES: dict[str, tuple[str, set, str]] = {}


def case(name: str, runtime: str, expect: set, source: str) -> None:
    CASES[name] = (textwrap.dedent(source).lstrip("\n"), expect, runtime)


case("branch_arms_never_meet", "ok", set(), """
    import torch
    x = torch.randn(3, requires_grad=True)
    flag = x.sum().item() > 100
    if flag:
        y = x.exp()
        loss = y.sum()
    else:
        y = x * 2
        y[0] = 1.0
        loss = y.sum()
    loss.backward()
""")

case("write_in_no_grad_still_bumps_version", "raises", {(5, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    y = torch.sigmoid(x)
    with torch.no_grad():
        y.mul_(2)
    y.sum().backward()
""")

case("allow_mutation_on_saved_tensors", "ok", set(), """
    import torch
    x = torch.randn(3, requires_grad=True)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        y = torch.sigmoid(x)
        y.mul_(2)
        y.sum().backward()
""")

case("detach_shares_the_version_counter", "raises", {(4, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    y.detach().zero_()
    y.sum().backward()
""")

case("data_write_is_silent", "silent", {(4, "FIP104", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    y.data.zero_()
    y.sum().backward()
""")

case("transpose_view_of_saved_input", "raises", {(5, "FIP101", "error")}, """
    import torch
    w = torch.randn(3, 3, requires_grad=True)
    x = w * 1
    y = x.log()
    x.t()[0, 1] = 5.0
    y.sum().backward()
""")

case("write_after_backward_is_fine", "ok", set(), """
    import torch
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    y.sum().backward()
    y.data.zero_()
    with torch.no_grad():
        y.add_(1)
""")

case("inplace_relu_after_batchnorm_is_fine", "ok", set(), """
    import torch
    from torch import nn
    bn = nn.BatchNorm1d(4)
    act = nn.ReLU(inplace=True)
    x = torch.randn(8, 4, requires_grad=True)
    h = act(bn(x))
    h.sum().backward()
""")

case("inplace_relu_after_sigmoid_raises", "raises", {(6, "FIP101", "error")}, """
    import torch
    from torch import nn
    act = nn.ReLU(inplace=True)
    x = torch.randn(8, 4, requires_grad=True)
    h = torch.sigmoid(x)
    h = act(h)
    h.sum().backward()
""")

case("batchnorm_running_stats_written_by_user", "raises", {(6, "FIP101", "error")}, """
    import torch
    from torch import nn
    bn = nn.BatchNorm1d(4)
    x = torch.randn(8, 4, requires_grad=True)
    out = bn(x)
    bn.running_mean.zero_()
    out.sum().backward()
""")

# F.batch_norm keeps its running stats for backward whether or not it gets a weight and a bias (measured with them
# left None, not only with op_db's weight-less samples, which are empty tensors and keep nothing). Its own update
# of the stats in a second call does not move their version counter; a write after backward is fine.
case("functional_batch_norm_without_affine_keeps_running_stats", "raises", {(7, "FIP101", "error")}, """
    import torch
    import torch.nn.functional as F
    x = torch.randn(8, 3, requires_grad=True)
    rm, rv = torch.zeros(3), torch.ones(3)
    y = F.batch_norm(x, rm, rv, None, None, training=True)
    y = y + F.batch_norm(x, rm, rv, training=True)
    rv.add_(1)
    y.sum().backward()
    rm.zero_()
""")

case("functional_batch_norm_eval_without_weight_keeps_running_mean", "raises", {(6, "FIP101", "error")}, """
    import torch
    import torch.nn.functional as F
    x = torch.randn(8, 3, requires_grad=True)
    rm, rv, b = torch.zeros(3), torch.ones(3), torch.zeros(3, requires_grad=True)
    y = F.batch_norm(x, rm, rv, weight=None, bias=b, training=False)
    rm.mul_(0.9)
    y.sum().backward()
""")

case("norms_without_weight_keep_bias_or_weight", "raises", {(7, "FIP101", "error"), (8, "FIP101", "error")}, """
    import torch
    import torch.nn.functional as F
    x = torch.randn(4, 6, 5, requires_grad=True)
    w, b = torch.ones(6), torch.zeros(5)
    y = F.group_norm(x, 3, w, None)
    z = F.layer_norm(x, (5,), None, b)
    w.add_(1)
    b.add_(1)
    (y.sum() + z.sum()).backward()
""")

case("resnet_residual_add_after_bn", "ok", set(), """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            identity = x
            out = self.bn(self.conv(x))
            out += identity
            out = self.relu(out)
            return out

    block = Block()
    y = block(torch.randn(2, 4, 5, 5))
    y.sum().backward()
""")

case("module_forward_writes_sigmoid_output", "raises", {(11, "FIP101", "error")}, """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = torch.sigmoid(self.fc(x))
            h[:, 0] = 0.0
            return h

    net = Net()
    net(torch.randn(2, 4)).sum().backward()
""")

case("helper_called_with_a_leaf", "raises", {(4, "FIP102", "error")}, """
    import torch

    def bump(t):
        t.add_(1)
        return t * 2

    w = torch.ones(3, requires_grad=True)
    bump(w).sum().backward()
""")

case("helper_called_with_a_non_leaf", "ok", set(), """
    import torch

    def bump(t):
        t.add_(1)
        return t * 2

    w = torch.ones(3, requires_grad=True)
    bump(w * 1).sum().backward()
""")

# A function that writes its argument, with no caller seen, does what its callers ask: no "possible leaf"
# warning (a seen call that passes a leaf is reported: `helper_called_with_a_leaf`).
case("uncalled_function_argument_write_is_not_reported", "ok", set(), """
    import torch

    def bump(t):
        t.add_(1)
        return t * 2
""")

# An argument annotated as a tensor through Annotated[...] or a jaxtyping array type is a tensor like a bare
# `torch.Tensor` one (both were read as containers: the write to exp's output went unreported).
case("annotated_and_jaxtyping_arguments_are_tensors", "ok",
     {(7, "FIP101", "warning"), (12, "FIP101", "warning"), (17, "FIP101", "warning")}, """
    from typing import Annotated, Optional
    import torch
    Float = dict  # stands in for jaxtyping.Float here: only the annotation's text matters

    def f(x: Annotated[torch.Tensor, (2, 3)]):
        y = x.exp()
        y.mul_(2)
        return y

    def g(x: "Float[torch.Tensor, 'b 3']"):
        y = x.exp()
        y.mul_(2)
        return y

    def h(x: Optional[Annotated[torch.Tensor, "x"]]):
        y = x.exp()
        y.mul_(2)
        return y
""")

case("uncalled_function_saved_output_write", "ok", {(5, "FIP101", "warning")}, """
    import torch

    def f(x):
        y = x.exp()
        y[0] = 0.0
        return y
""")

case("gan_step_before_generator_backward", "raises", {(12, "FIP103", "error")}, """
    import torch
    from torch import nn
    G = nn.Linear(2, 4)
    D = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    z = torch.randn(16, 2)
    fake = G(z)
    loss_d = D(fake.detach()).mean()
    loss_g = -D(fake).mean()
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    loss_g.backward()
""")

case("fused_optimizer_is_silent", "silent", {(12, "FIP104", "error")}, """
    import torch
    from torch import nn
    G = nn.Linear(2, 4)
    D = nn.Linear(4, 1)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-1, fused=True)
    z = torch.randn(16, 2)
    fake = G(z)
    loss_d = D(fake.detach()).mean()
    loss_g = -D(fake).mean()
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    loss_g.backward()
""")

case("training_loop_is_fine", "ok", set(), """
    import torch
    from torch import nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        loss = model(torch.randn(8, 4)).pow(2).mean()
        loss.backward()
        opt.step()
""")

case("manual_sgd_under_no_grad", "ok", set(), """
    import torch
    w = torch.randn(3, requires_grad=True)
    for _ in range(3):
        loss = (w.exp() * 2).sum()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            w.grad.zero_()
""")

case("loop_write_breaks_next_iteration", "raises", {(6, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    h = torch.tanh(x)
    for _ in range(2):
        out = (h * x).sum()
        h.mul_(0.5)
        out.backward(retain_graph=True)
""")

case("fresh_buffers_are_fine", "ok", set(), """
    import torch
    x = torch.randn(4, requires_grad=True)
    buf = torch.zeros(4)
    buf[1:] = 2.0
    out = torch.empty(4)
    torch.mul(buf, 3, out=out)
    y = (x * buf).sum() + out.sum()
    c = x.clone()
    c[0] = 0.0
    (y + c.sum()).backward()
""")

case("masked_fill_before_softmax", "ok", set(), """
    import torch
    q = torch.randn(2, 4, 4, requires_grad=True)
    scores = q @ q.transpose(-1, -2)
    mask = torch.ones(4, 4).triu(1).bool()
    scores.masked_fill_(mask, float("-inf"))
    attn = scores.softmax(-1)
    attn.sum().backward()
""")

case("out_into_saved_tensor", "raises", {(6, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    y = torch.exp(x)
    loss = y.sum()
    with torch.no_grad():
        torch.add(x, 1, out=y)
    loss.backward()
""")

case("mul_by_python_scalar_saves_nothing", "ok", set(), """
    import torch
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y[0] = 10
    (y + 1).sum().backward()
""")

case("leaf_view_write", "raises", {(3, "FIP102", "error")}, """
    import torch
    w = torch.zeros(2, 3, requires_grad=True)
    w[0] = 1.0
""")

case("step_skips_parameters_without_grad", "ok", set(), """
    import torch
    from torch import nn
    trunk, a, b = nn.Linear(4, 6), nn.Linear(6, 1), nn.Linear(6, 1)
    opt = torch.optim.Adam([*trunk.parameters(), *a.parameters(), *b.parameters()], lr=0.01)
    h = torch.relu(trunk(torch.randn(5, 4)))
    loss_a = a(h).pow(2).mean()
    loss_b = b(h).abs().mean()
    opt.zero_grad()
    loss_a.backward(retain_graph=True)
    opt.step()
    opt.zero_grad()
    loss_b.backward()
""")

case("step_over_concatenated_parameter_lists", "raises", {(11, "FIP103", "error")}, """
    import torch
    from torch import nn
    trunk, a, b = nn.Linear(4, 6), nn.Linear(6, 1), nn.Linear(6, 1)
    params = list(trunk.parameters()) + list(a.parameters()) + list(b.parameters())
    opt = torch.optim.Adam(params, lr=0.01)
    h = torch.relu(trunk(torch.randn(5, 4)))
    loss_a = a(h).pow(2).mean() + b(h).abs().mean() * 0.1
    loss_b = b(h).abs().mean()
    opt.zero_grad()
    loss_a.backward(retain_graph=True)
    opt.step()
    opt.zero_grad()
    loss_b.backward()
""")

case("param_groups_as_dicts", "raises", {(9, "FIP103", "error")}, """
    import torch
    from torch import nn
    enc, head = nn.Linear(4, 6), nn.Linear(6, 1)
    opt = torch.optim.SGD([{"params": enc.parameters()}, {"params": head.parameters(), "lr": 0.1}], lr=0.01)
    h = enc(torch.randn(5, 4, requires_grad=True))
    loss_1 = head(h).mean()
    loss_2 = head(h).pow(2).mean()
    loss_1.backward(retain_graph=True)
    opt.step()
    loss_2.backward()
""")

case("sort_values_are_not_saved", "ok", set(), """
    import torch
    x = torch.randn(3, 5, requires_grad=True)
    h = x * torch.linspace(0.5, 1.5, 5)
    vals, order = torch.sort(h, dim=1, descending=True)
    vals[:, 2:] = 0.0
    vals.sum().backward()
""")

case("sort_indices_are_saved", "raises", {(5, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, 5, requires_grad=True)
    h = x * 2.0
    vals, order = h.sort(dim=1)
    order[0, 0] = 1
    vals.sum().backward()
""")

case("max_along_dim_saves_only_indices", "ok", set(), """
    import torch
    x = torch.randn(5, 4, requires_grad=True)
    h = x * 3.0
    m, idx = h.max(dim=1)
    h.sub_(1.0)
    m.clamp_(min=0.0)
    m.sum().backward()
""")

case("full_max_saves_input_and_output", "raises", {(4, "FIP101", "error")}, """
    import torch
    x = torch.randn(5, 4, requires_grad=True)
    m = (x * 3.0).max()
    m.mul_(2)
    m.backward()
""")

case("dropout_in_eval_returns_its_input", "raises", {(5, "FIP101", "error")}, """
    import torch
    import torch.nn.functional as F
    x = torch.randn(4, 3, requires_grad=True)
    h = torch.sigmoid(x)
    F.dropout(h, 0.5, training=False).mul_(2.0)
    h.sum().backward()
""")

case("list_filled_under_branches_is_not_indexed_in_program_order", "ok", set(), """
    import torch
    from torch import nn
    stack = []
    for kind in ["param", "tensor"]:
        if kind == "param":
            stack.append(nn.Parameter(torch.zeros(3)))
        else:
            stack.append(torch.zeros(3))
    last = stack[-1]
    if type(last) is torch.Tensor:
        last.add_(1)
""")

case("uncalled_helper_grad_mode_is_the_callers", "ok", {(6, "FIP102", "warning")}, """
    import torch
    from torch import nn

    def rebuild(w):
        fp = nn.Linear(4, 4)
        fp.weight[0:2, :] = w
        return fp
""")

# A helper defined above its only caller is analysed through that call (grad mode off here), not also on its own
# as if nothing called it (torch/optim/_muon.py: `_zeropower_via_newtonschulz` above `Muon.step`).
case("helper_above_its_no_grad_caller", "ok", set(), """
    import torch

    def scale(t):
        y = t.exp()
        y.mul_(2)
        return y

    @torch.no_grad()
    def update(p):
        p.copy_(scale(p))
""")

# The same helper under a caller whose grad mode is unknown still gets its warning.
case("helper_above_a_caller_with_unknown_grad_mode", "ok", {(5, "FIP101", "warning")}, """
    import torch

    def scale(t):
        y = t.exp()
        y.mul_(2)
        return y

    def update(p):
        return scale(p)
""")

# A method sees module-level functions defined after its class (Python looks globals up at call time).
case("method_calls_a_function_defined_below_the_class", "ok", set(), """
    import torch

    class Opt:
        @torch.no_grad()
        def step(self, p):
            p.copy_(scale(p))

    def scale(t):
        y = t.exp()
        y.mul_(2)
        return y
""")

# After `t.requires_grad = False` (which torch allows only on a leaf) `t` is a leaf that does not require grad:
# writing it is allowed (transformers' DistilBERT `_create_sinusoidal_embeddings(out)`).
case("argument_written_after_requires_grad_off", "ok", set(), """
    import torch

    def fill(out: torch.Tensor):
        out.requires_grad = False
        out[:, 0] = 1.0
        out.detach_()
        return out
""")

case("leaf_written_between_requires_grad_off_and_on", "ok", set(), """
    import torch
    w = torch.ones(3, requires_grad=True)
    w.requires_grad_(False)
    w.mul_(2)
    w.requires_grad_(True)
    (w * w).sum().backward()
""")

# A function named like PyTorch's in-place functions writes its argument because its caller asks it to
# (torch/nn/modules/linear_cross_entropy.py: `_ChunkContext.sumexp_`); a caller passing a leaf is still caught.
case("inplace_named_helper_writes_its_argument_on_request", "ok", set(), """
    import torch

    def fill_(t: torch.Tensor):
        t.uniform_(-1, 1)
        return t
""")

case("inplace_named_helper_called_with_a_leaf", "raises", {(4, "FIP102", "error")}, """
    import torch

    def fill_(t: torch.Tensor):
        t.uniform_(-1, 1)
        return t

    w = torch.ones(3, requires_grad=True)
    fill_(w)
""")

# `cls` of a classmethod called on the class is the class: `Buffers.build()` returns an instance whose methods are
# then run with the caller's grad mode (here off), not on their own as if nothing called them.
case("classmethod_builds_an_instance", "ok", set(), """
    import torch

    class Buffers:
        @classmethod
        def build(cls, n):
            return cls()

        def scale(self, x: torch.Tensor):
            return x.mul_(2)

    @torch.no_grad()
    def run(x):
        ctx = Buffers.build(3)
        return ctx.scale(x)
""")

# The indices of topk/sort/max(dim)/... never require grad: a backward through them needs nothing the values'
# graph saved (transformers MiniMax-M3-VL indexer: amax output written, only topk indices returned).
case("topk_indices_carry_no_graph", "ok", set(), """
    import torch
    x = torch.randn(3, 4, 8, requires_grad=True)
    block_scores = (x * 2).amax(dim=-1)
    block_scores[:, 0] = float("inf")
    top_scores, top_idx = block_scores.topk(2, dim=-1)
    picked = top_idx.masked_fill(top_scores == float("-inf"), -1)
    (x.sum() * picked.sum()).backward()
""")

case("topk_values_still_need_the_amax_output", "raises", {(4, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, 4, 8, requires_grad=True)
    block_scores = (x * 2).amax(dim=-1)
    block_scores[:, 0] = float("inf")
    top_scores, top_idx = block_scores.topk(2, dim=-1)
    top_scores.sum().backward()
""")

# `x is None` / `x is not None` is decided for a parameter whose default None is in force, so the arm that never
# runs is not analysed (transformers ESMFold `_combine_projections(a, b)` with `_inplace_chunk_size=None`) ...
case("default_none_arm_never_runs", "ok", set(), """
    import torch

    def combine(a, b, chunk=None):
        if chunk is not None:
            a[0:1] = torch.matmul(a[0:1], b)
            return a
        return torch.matmul(a, b)

    x = torch.randn(2, 2, requires_grad=True)
    combine(x * 1, x * 1).sum().backward()
""")

case("argument_passed_arm_runs", "raises", {(5, "FIP101", "error")}, """
    import torch

    def combine(a, b, chunk=None):
        if chunk is not None:
            a[0:1] = torch.matmul(a[0:1], b)
            return a
        return torch.matmul(a, b)

    x = torch.randn(2, 2, requires_grad=True)
    combine(x * 1, x * 1, chunk=1).sum().backward()
""")

# ... but a call with `**kwargs` may pass it: its parameters are unknown, not their defaults.
case("argument_passed_through_kwargs_is_not_the_default", "raises", {(5, "FIP101", "error")}, """
    import torch

    def combine(a, b, chunk=None):
        if chunk is not None:
            a[0:1] = torch.matmul(a[0:1], b)
            return a
        return torch.matmul(a, b)

    opts = {"chunk": 1}
    x = torch.randn(2, 2, requires_grad=True)
    combine(x * 1, x * 1, **opts).sum().backward()
""")

# nn.Identity returns its input itself: `h += x` after it writes the linear's output, which nothing saved
# (transformers RegNet/ResNet layers whose last activation is `nn.Identity()`) ...
case("identity_module_returns_its_input", "ok", set(), """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.Identity()

        def forward(self, x):
            h = self.act(self.fc(x))
            h += x
            return h

    block = Block()
    x = torch.randn(2, 4, requires_grad=True)
    block(x).sum().backward()
""")

# ... and after a sigmoid, whose output is saved, the same write is still caught.
case("identity_after_sigmoid_still_caught", "raises", {(12, "FIP101", "error")}, """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.Identity()

        def forward(self, x):
            h = self.act(torch.sigmoid(self.fc(x)))
            h += x
            return h

    block = Block()
    x = torch.randn(2, 4, requires_grad=True)
    block(x).sum().backward()
""")


# A function nobody in the file calls, that builds a graph and runs its backward itself, only works with grad mode
# on: its hazards are as certain as those of code called from `__main__`.
case("uncalled_function_running_its_own_backward", "ok", {(7, "FIP101", "error")}, """
    import torch

    def run():
        u = torch.randn(3, requires_grad=True)
        uexp = u.exp()
        loss = uexp.sum()
        uexp[0] = 666.0
        loss.backward()
""")


def test_uncalled_function_running_its_own_backward_raises_when_called() -> None:
    """The truth behind the case above: called as it is (grad mode on by default), `run` raises."""
    pytest.importorskip("torch")
    scope: dict = {}
    exec(compile(CASES["uncalled_function_running_its_own_backward"][0], "case", "exec"), scope)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        scope["run"]()

# ... but one that only runs the backward of a value its caller built says nothing about its own grad mode.
case("uncalled_function_running_a_callers_backward", "ok", {(5, "FIP101", "warning")}, """
    import torch

    def finish(x, loss):
        y = torch.sigmoid(x)
        y.mul_(2.0)
        loss.backward()
        return y
""")

# Storage objects are no tensors autograd saves (torch's DataLoader collate).
case("storage_objects_are_not_saved", "ok", set(), """
    import torch

    def collate(batch):
        elem = batch[0]
        numel = sum(x.numel() for x in batch)
        storage = elem._typed_storage()._new_shared(numel, device=elem.device)
        out = elem.new(storage).resize_(len(batch), *list(elem.size()))
        return torch.stack(batch, 0, out=out)
""")

case("numpy_copy_is_not_an_alias", "ok", set(), """
    import torch
    w = torch.randn(4, requires_grad=True)
    t = torch.exp(w)
    a = t.detach().numpy().copy()
    a *= 2.0
    b = t.detach().clone().numpy()
    b[0] = 1.0
    t.sum().backward()
""")


# Indexing with tensors keeps the index tensors (integer or boolean) for the backward.
case("getitem_index_tensor_written_before_backward", "raises", {(6, "FIP101", "error")}, """
    import torch
    w = torch.randn(30, 6, requires_grad=True)
    neg = torch.randint(0, 30, (8, 4))
    u = w[neg]
    loss = (u * 2.0).sum()
    neg.add_(1)
    loss.backward()
""")

case("getitem_mask_written_before_backward", "raises", {(6, "FIP101", "error")}, """
    import torch
    w = torch.randn(5, 4, requires_grad=True)
    keep = w.detach() > 0
    picked = w[:, 0][keep[:, 0]]
    loss = picked.sum()
    keep.fill_(True)
    loss.backward()
""")

case("getitem_index_written_without_grad_safe", "ok", set(), """
    import torch
    w = torch.randn(30, 6)
    neg = torch.randint(0, 30, (8, 4))
    u = w[neg]
    neg.add_(1)
""")

# Library calls that write an argument in place, as the table measured: `max_norm` renormalises the weight.
case("embedding_max_norm_second_forward_breaks_tied_projection", "raises", {(7, "FIP101", "error")}, """
    import torch
    from torch import nn
    emb = nn.Embedding(12, 4, max_norm=1.0)
    ids = torch.randint(0, 12, (3,))
    logits = emb(ids) @ emb.weight.t()
    loss = logits.sum()
    emb(ids)
    loss.backward()
""")

case("functional_embedding_max_norm_writes_weight_saved_by_pow", "raises", {(6, "FIP101", "error")}, """
    import torch
    import torch.nn.functional as F
    w = torch.randn(12, 4, requires_grad=True)
    ids = torch.randint(0, 12, (3,))
    penalty = w.pow(2).sum()
    rows = F.embedding(ids, w, max_norm=1.0)
    (penalty + rows.sum()).backward()
""")

case("embedding_max_norm_under_no_grad_still_writes", "raises", {(6, "FIP101", "error"), (8, "FIP101", "error")}, """
    import torch
    from torch import nn
    emb = nn.Embedding(12, 4, max_norm=1.0)
    ids = torch.randint(0, 12, (3,))
    reg = emb.weight.norm()
    loss = emb(ids).sum() + reg
    with torch.no_grad():
        emb(ids)
    loss.backward()
""")

case("embedding_without_max_norm_writes_nothing_safe", "ok", set(), """
    import torch
    from torch import nn
    import torch.nn.functional as F
    emb = nn.Embedding(12, 4)
    ids = torch.randint(0, 12, (3,))
    logits = emb(ids) @ emb.weight.t()
    loss = logits.sum() + F.embedding(ids, emb.weight, max_norm=None).sum()
    emb(ids)
    loss.backward()
""")


# `leaky_relu_`, `relu_`, `elu_` keep the tensor they wrote (measured); `silu_` does not.
case("two_inplace_leaky_relus_in_a_row", "raises", {(4, "FIP101", "error")}, """
    import torch
    from torch import nn
    net = nn.Sequential(nn.Linear(4, 4), nn.LeakyReLU(0.2, inplace=True), nn.LeakyReLU(0.2, inplace=True))
    net(torch.randn(2, 4)).sum().backward()
""")

case("functional_inplace_leaky_relu_then_inplace_write", "raises", {(5, "FIP101", "error")}, """
    import torch
    import torch.nn.functional as F
    w = torch.randn(4, 4, requires_grad=True)
    h = F.leaky_relu(torch.randn(2, 4) @ w, 0.2, inplace=True)
    h.mul_(2.0)
    h.sum().backward()
""")

case("two_inplace_silus_in_a_row_safe", "ok", set(), """
    import torch
    from torch import nn
    net = nn.Sequential(nn.Linear(4, 4), nn.SiLU(inplace=True), nn.SiLU(inplace=True))
    net(torch.randn(2, 4)).sum().backward()
""")

# A loop whose first iteration makes a carried tensor require grad: the save starts in the second iteration,
# the write that breaks it comes in the third.
case("loop_buffer_saved_from_the_second_iteration", "raises", {(8, "FIP101", "error")}, """
    import torch
    w = torch.randn(4, 4, requires_grad=True)
    h = torch.zeros(2, 4)
    mask = torch.empty(2, 4)
    probs = torch.full((2, 4), 0.8)
    n = int(torch.randint(3, 5, ()).item())
    for t in range(n):
        torch.bernoulli(probs, out=mask)
        h = torch.tanh((h * mask) @ w)
    h.sum().backward()
""")


# `model.modules()` of a class defined in the file lists the modules it holds: a max-norm constraint applied to
# them between the forward and the backward writes a weight the second Linear saved.
case("counter_in_a_loop_does_not_decide_a_branch", "raises", {(7, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    step = 0
    for batch in torch.randn(6, 3):
        y = (x + batch).exp()
        if step % 5 == 4:
            y.add_(1)
        y.sum().backward()
        step += 1
""")

case("constants_decide_conditional_expression", "raises", {(5, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    layers = ["exp", "scale"]
    y = x.exp() if layers[0] == "exp" and len(layers) > 1 else x * 2
    y.add_(1)
    y.sum().backward()
""")

for _index, _runtime, _expect in ((0, "ok", set()), (1, "raises", {(8, "FIP101", "error")})):
    case(f"enumerate_index_{_index}_decides_the_branch", _runtime, _expect, f"""
        import torch
        import torch.nn as nn
        blocks = nn.ModuleList([nn.Linear(3, 3), nn.Sigmoid(), nn.Linear(3, 3)])
        x = torch.randn(2, 3)
        for i, block in enumerate(blocks):
            x = block(x)
            if i == {_index}:
                x.mul_(2)
        x.sum().backward()
    """)

for _cut, _runtime, _expect in ((1, "ok", set()), (2, "raises", {(6, "FIP101", "error")})):
    case(f"list_slices_{_cut}_build_the_sequential", _runtime, _expect, f"""
        import torch
        import torch.nn as nn
        layers = [nn.Sigmoid(), nn.ReLU(inplace=True), nn.Linear(3, 3)]
        net = nn.Sequential(*layers[:{_cut}], nn.Linear(3, 3), *layers[{_cut}:])
        x = torch.randn(2, 3, requires_grad=True)
        net(x).sum().backward()
    """)

case("unknown_callee_output_is_not_taken_as_saved", "ok", set(), """
    import functools
    import torch
    x = torch.randn(3, requires_grad=True)
    add_one = functools.partial(torch.add, other=1.0)
    y = add_one(x)
    y.mul_(2)
    y.sum().backward()
""")

case("numpy_results_are_not_tensors", "ok", set(), """
    import numpy as np
    import torch


    def augment(img, x):
        mixed = np.zeros_like(img, dtype=np.float32)
        y = x.exp()
        mixed += img
        return y * torch.from_numpy(mixed)
""")

case("numbers_in_an_unannotated_helper_are_not_tensor_hazards", "ok", set(), """
    def make_divisible(v, divisor=8, min_value=None, round_limit=0.9):
        min_value = min_value or divisor
        new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
        if new_v < round_limit * v:
            new_v += divisor
        return new_v
""")

case("helpers_of_a_no_grad_step_run_with_grad_mode_off", "ok", set(), """
    import torch


    def orthogonalize(X, eps=1e-7):
        X.div_(X.norm().clamp(min=eps))
        return X @ X.T


    def scaled_update(G):
        return orthogonalize(G.clone()) * 0.5


    def single_tensor_step(p, grad, lr):
        p.add_(scaled_update(grad), alpha=-lr)


    def tensors_step(params, grads, lr):
        for p, g in zip(params, grads):
            single_tensor_step(p, g, lr)


    class Orthogonal(torch.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        @torch.no_grad()
        def step(self):
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                tensors_step(params, [p.grad for p in params], group["lr"])


    w = torch.nn.Parameter(torch.randn(2, 2))
    opt = Orthogonal([w])
    (w * 2).sum().backward()
    opt.step()
""")

case("module_list_built_by_append", "raises", {(12, "FIP101", "error")}, """
    import torch
    import torch.nn as nn
    blocks = nn.ModuleList()
    for _ in range(2):
        blocks.append(nn.Sequential(nn.Linear(3, 3), nn.Sigmoid()))
    x = torch.randn(2, 3)
    for i, block in enumerate(blocks):
        x = block(x)
        if i == 0:
            total = x
        else:
            total += x
    total.sum().backward()
""")

case("module_list_pairs_unpacked_in_a_loop", "raises", {(7, "FIP101", "error")}, """
    import torch
    import torch.nn as nn
    layers = nn.ModuleList([nn.ModuleList([nn.Linear(3, 3), nn.Sigmoid()])])
    x = torch.randn(2, 3, requires_grad=True)
    for lin, act in layers:
        y = act(lin(x))
    y.add_(1)
    y.sum().backward()
""")

# Layers built from per-layer options (mlcolvar's FeedForward): `range(len(layers) - 1)`, a comprehension over it,
# `hasattr`/`isinstance` on known values and `options or {}` are decided, so each layer's modules are known.
for _dropout, _runtime, _expect in (("[0.2, 0.4, 0.6]", "raises", {(27, "FIP101", "error")}),
                                    ("[None, None, None]", "ok", set())):
    case(f"per_layer_options_dropout_{_runtime}", _runtime, _expect, """
        import torch
        import torch.nn as nn


        def parse_options(options, n_layers):
            if hasattr(options, "__iter__") and not isinstance(options, str):
                return options
            return [options for _ in range(n_layers - 1)] + [None]


        def build(layers, activation="relu", dropout=None):
            acts = parse_options(activation, len(layers) - 1)
            drops = parse_options(dropout, len(layers) - 1)
            modules = []
            for i in range(len(layers) - 1):
                modules.append(nn.Linear(layers[i], layers[i + 1]))
                if acts[i] == "relu":
                    modules.append(nn.ReLU(True))
                if drops[i] is not None:
                    modules.append(nn.Dropout(p=drops[i], inplace=True))
            return nn.Sequential(*modules)


        options = {"dropout": {dropout}}
        net = build([4, 8, 8, 1], **(options or {}))
        x = torch.randn(5, 4)
        net(x).sum().backward()
    """.replace("{dropout}", _dropout))

for _kind, _runtime, _expect in (("Conv2d", "ok", set()), ("ReLU", "raises", {(10, "FIP101", "error")})):
    case(f"isinstance_of_a_layer_{_kind}", _runtime, _expect, f"""
        import torch
        import torch.nn as nn
        layers = nn.ModuleList([nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.Conv2d(2, 2, 3, padding=1), nn.ReLU()])
        x = torch.randn(1, 1, 4, 4, requires_grad=True)
        mask = torch.ones(1, 1, 4, 4)
        h = x
        for layer in layers:
            h = layer(h)
            if isinstance(layer, nn.{_kind}):
                h *= mask
        h.sum().backward()
    """)

case("sequential_filled_by_add_module", "raises", {(7, "FIP101", "error")}, """
    import torch
    import torch.nn as nn
    body = nn.Sequential()
    body.add_module("fc", nn.Linear(3, 3))
    body.add_module("act", nn.Sigmoid())
    y = body(torch.randn(2, 3))
    y.add_(1)
    y.sum().backward()
""")

case("max_norm_through_modules_before_backward", "raises", {(17, "FIP101", "error")}, """
    import torch
    from torch import nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    def apply_max_norm(model):
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, nn.Linear):
                    m.weight.renorm_(2, 0, 1.0)

    model = MLP()
    loss = model(torch.randn(4, 6)).sum()
    apply_max_norm(model)
    loss.backward()
""")

case("constructors_nested_deeper_than_calls", "raises", {(32, "FIP102", "error")}, """
    import torch
    from torch import nn

    class Dense(nn.Module):
        def __init__(self, d_in, d_out):
            super().__init__()
            self.dense = nn.Linear(d_in, d_out)

    class Layer(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.output = Dense(d, d)

    class Encoder(nn.Module):
        def __init__(self, d, n):
            super().__init__()
            self.layer = nn.ModuleList([Layer(d) for _ in range(n)])

    class Body(nn.Module):
        def __init__(self, d, n):
            super().__init__()
            self.encoder = Encoder(d, n)

    class Model(nn.Module):
        def __init__(self, d=4, n=2):
            super().__init__()
            self.body = Body(d, n)

    def main():
        model = Model()
        for layer, pos in [(0, 1), (1, 2)]:
            model.body.encoder.layer[layer].output.dense.weight[:, pos] -= 0.5

    main()
""")

case("module_list_from_a_generator_zipped_with_a_tensor", "raises", {(13, "FIP102", "error")}, """
    import torch
    from torch import nn

    class Head(nn.Module):
        def __init__(self, ch=(2, 3)):
            super().__init__()
            self.m = nn.ModuleList(nn.Conv2d(c, 6, 1) for c in ch)
            self.stride = torch.tensor([8.0, 16.0])

        def init_biases(self):
            for mi, s in zip(self.m, self.stride):
                b = mi.bias.view(2, -1)
                b[:, 0] += torch.log(8 / (640 / s) ** 2)

    Head().init_biases()
""")

_EVAL_HEAD = """
    import torch
    from torch import nn

    class Head(nn.Module):
        export = False

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            x = self.conv(x)
            self.training |= self.export
            if not self.training:
                y = x.sigmoid()
                y[:, 0:2] = y[:, 0:2] * 2.0
                return y
            return x

    head = Head()
"""
case("eval_mode_decides_the_inference_branch", "raises", {(16, "FIP101", "error")}, _EVAL_HEAD + """
    head.eval()
    head(torch.rand(1, 3, 4, 4)).sum().backward()
""")
case("train_mode_skips_the_inference_branch", "ok", set(), _EVAL_HEAD + """
    head(torch.rand(1, 3, 4, 4)).sum().backward()
""")

case("write_to_a_tensor_whose_data_alias_was_saved", "silent", {(8, "FIP104", "error")}, """
    import torch
    from torch import nn

    w = torch.randn(3, requires_grad=True)
    eps = torch.zeros(3)
    eps.normal_()
    y = (w * eps.data).sum()
    eps.normal_()
    y.backward()
""")

case("noise_buffer_resampled_between_forwards_through_data", "silent", {(12, "FIP104", "error")}, """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class NoisyLinear(nn.Linear):
        def __init__(self, n_in, n_out, sigma_init=0.017):
            super().__init__(n_in, n_out)
            self.sigma_weight = nn.Parameter(torch.full((n_out, n_in), sigma_init))
            self.register_buffer("epsilon_weight", torch.zeros(n_out, n_in))

        def forward(self, x):
            self.epsilon_weight.normal_()
            return F.linear(x, self.weight + self.sigma_weight * self.epsilon_weight.data, self.bias)

    net = NoisyLinear(4, 2)
    x = torch.randn(3, 4)
    q = net(x)
    q_next = net(x).detach()
    (q - q_next).pow(2).mean().backward()
""")

case("module_built_with_an_inplace_flag_writes_on_request", "ok", set(), """
    import torch
    from torch import nn

    class Sigmoid(nn.Module):
        def __init__(self, inplace: bool = False):
            super().__init__()
            self.inplace = inplace

        def forward(self, x):
            return x.sigmoid_() if self.inplace else x.sigmoid()

    def swish(x, inplace: bool = False):
        return x.mul_(x.sigmoid()) if inplace else x.mul(x.sigmoid())

    class Swish(nn.Module):
        def __init__(self, inplace: bool = False):
            super().__init__()
            self.inplace = inplace

        def forward(self, x):
            return swish(x, self.inplace)
""")

case("running_state_updated_after_an_einsum_saved_it", "raises", {(7, "FIP101", "error")}, """
    import torch
    k = torch.randn(2, 3, requires_grad=True)
    q = torch.randn(2, 3, requires_grad=True)
    state = torch.zeros(2, 3)
    outs = []
    for t in range(2):
        state += k * (t + 1)
        outs.append(torch.einsum("nd,nd->n", q, state))
    torch.stack(outs).sum().backward()
""")

for _factory in ("torch.zeros_like(x, requires_grad=True)", "x.new_zeros(3, requires_grad=True)"):
    case(f"leaf_made_by_{_factory.split('(')[0].replace('.', '_')}", "raises", {(5, "FIP102", "error")}, f"""
        import torch

        x = torch.randn(3)
        delta = {_factory}
        delta.clamp_(-0.1, 0.1)
    """)

case("channels_of_an_input_normalised_after_the_forward_saved_it", "raises", {(8, "FIP101", "error")}, """
    import torch
    from torch import nn

    net = nn.Conv2d(3, 4, 3)
    img = torch.rand(2, 3, 8, 8)
    out = net(img)
    for channel, m, s in zip(img.unbind(1), (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)):
        channel.sub_(m).div_(s)
    out.sum().backward()
""")

_DROPOUT_AFTER_SOFTMAX = """
    import torch
    from torch import nn

    class Attention(nn.Module):
        def __init__(self, attn_drop=0.0):
            super().__init__()
            self.attn_drop = nn.Dropout(attn_drop, inplace=True)

        def forward(self, x):
            attn = x.softmax(-1)
            attn = self.attn_drop(attn)
            return attn @ x
"""
case("dropout_of_a_rate_not_known_in_place_after_softmax", "ok", {(11, "FIP101", "warning")},
     _DROPOUT_AFTER_SOFTMAX)
case("dropout_of_rate_zero_in_place_writes_nothing", "ok", set(), _DROPOUT_AFTER_SOFTMAX.replace(
    "nn.Dropout(attn_drop, inplace=True)", "nn.Dropout(0.0, inplace=True)") + """
    Attention()(torch.randn(2, 3, 3, requires_grad=True)).sum().backward()
""")
case("dropout_of_a_known_rate_in_place_after_softmax", "raises", {(11, "FIP101", "error")},
     _DROPOUT_AFTER_SOFTMAX + """
    Attention(0.1)(torch.randn(2, 3, 3, requires_grad=True)).sum().backward()
""")


# A tensor held by a container (dict, list, tuple) is written through the container's subscript: the hazard is
# the tensor's, reported like any other (the write's root is the element, see test_a_write_to_a_container_element_*).
case("write_to_a_dict_element_saved_by_exp", "raises", {(4, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    d = {"a": x.exp()}
    d["a"].add_(1)
    d["a"].sum().backward()
""")
case("write_to_a_list_element_appended_after_exp", "raises", {(5, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    ys = []
    ys.append(x.exp())
    ys[-1].add_(1)
    ys[-1].sum().backward()
""")
case("write_to_a_tuple_element_saved_by_exp", "raises", {(4, "FIP101", "error")}, """
    import torch
    x = torch.randn(3, requires_grad=True)
    t = (x.exp(), 1)
    t[0].add_(1)
    t[0].sum().backward()
""")

#: Cases whose intended program reads a copy where the case reads a `.data` alias: (text, replacement).
COPY_REFERENCES = {
    "write_to_a_tensor_whose_data_alias_was_saved": ("eps.data", "eps.clone()"),
    "noise_buffer_resampled_between_forwards_through_data": ("self.epsilon_weight.data", "self.epsilon_weight.clone()"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_analysis_reports_exactly(name: str) -> None:
    source, expected, _ = CASES[name]
    found = {
        (d.line, d.code, d.severity.value)
        for d in analyze_module(ast.parse(source), source, f"{name}.py")
        if d.severity.value != "info"
    }
    assert found == expected


def _grads_of(source: str, allow_mutation: bool) -> dict:
    import torch

    scope: dict = {}
    torch.manual_seed(0)
    if allow_mutation:
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            exec(compile(source, "case", "exec"), scope)
    else:
        exec(compile(source, "case", "exec"), scope)
    out = {}
    for key, value in scope.items():
        if isinstance(value, torch.Tensor) and value.is_leaf and value.grad is not None:
            out[key] = value.grad.clone()
        elif isinstance(value, torch.nn.Module):
            for pname, param in value.named_parameters():
                if param.grad is not None:
                    out[f"{key}.{pname}"] = param.grad.clone()
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_truth_under_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    source, _, runtime = CASES[name]
    try:
        grads = _grads_of(source, allow_mutation=False)
    except RuntimeError as error:
        assert runtime == "raises", f"raised unexpectedly: {error}"
        return
    assert runtime in ("ok", "silent"), "expected an exception"
    if name in COPY_REFERENCES:
        # A save of a `.data` alias is not version-checked, so torch's mutation-tolerant mode does not clone it
        # either: the intended program reads a copy there instead.
        old, new = COPY_REFERENCES[name]
        assert old in source
        reference = _grads_of(source.replace(old, new), allow_mutation=False)
        same = all(torch.allclose(grads[k], reference[k]) for k in reference if k in grads)
        assert same == (runtime == "ok"), "silent corruption expected"
    elif runtime == "silent" or name.startswith("data_write"):
        reference = _grads_of(source, allow_mutation=True)
        same = all(torch.allclose(grads[k], reference[k]) for k in reference if k in grads)
        assert same == (runtime == "ok"), "silent corruption expected" if runtime == "silent" else "grads differ"


NUMPY_ALIAS_WRITES = {
    "augassign": ("a *= 2.0", "a *= 2.0"),
    "setitem": ("a[...] = 0.0", "a[...] = 0.0"),
    "out": ("np.clip(a, 0.0, 1.0, out=a)", "np.clip(a, 0.0, 1.0, out=a)"),
    "method": ("a.fill(3.0)", "a.fill(3.0)"),
}


@pytest.mark.parametrize("form", sorted(NUMPY_ALIAS_WRITES))
def test_numpy_alias_write_is_a_silent_error(form: str) -> None:
    """A NumPy array from `.numpy()` shares the tensor's memory but not its version counter: writing it after the
    tensor was saved silently changes the gradient (measured against the same program writing a copy), and the
    analysis reports FIP104 `error` at the write, naming the NumPy alias."""
    torch = pytest.importorskip("torch")
    write = NUMPY_ALIAS_WRITES[form][0]
    template = textwrap.dedent("""
        import numpy as np
        import torch
        torch.manual_seed(0)
        w = torch.randn(4, requires_grad=True)
        t = torch.exp(w)
        a = t.detach().numpy(){copy}
        {write}
        (t * t).sum().backward()
    """).lstrip("\n")
    source = template.format(copy="", write=write)
    found = [(d.line, d.code, d.severity.value, d.message)
             for d in analyze_module(ast.parse(source), source, "numpy_alias.py") if d.severity.value != "info"]
    assert [f[:3] for f in found] == [(7, "FIP104", "error")], found
    assert "NumPy array that shares `t`'s memory but not its version counter" in found[0][3]

    def grad(src: str):
        scope: dict = {}
        exec(compile(src, "numpy_alias", "exec"), scope)
        return scope["w"].grad

    assert not torch.allclose(grad(source), grad(template.format(copy=".copy()", write=write)))


def test_chain_of_inplace_calls_is_one_diagnostic() -> None:
    """`x.sub_(m).div_(s)` on a saved tensor: one diagnostic spanning the chain and naming both ops."""
    source = textwrap.dedent("""
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        x = torch.sigmoid(torch.randn(5, 4) @ w)
        x.sub_(0.5).div_(0.2)
        x.pow(2).sum().backward()
    """).lstrip("\n")
    found = [d for d in analyze_module(ast.parse(source), source, "chain.py") if d.severity.value != "info"]
    assert [(d.line, d.column, d.end_column, d.code) for d in found] == [(4, 1, 22, "FIP101")]
    assert found[0].message.startswith("in-place writes to `x` (`sub_`, then `div_`)")


def test_data_write_message_says_the_version_counter_is_not_shared() -> None:
    source = textwrap.dedent("""
        import torch
        w = torch.randn(3, requires_grad=True)
        y = torch.exp(w)
        z = y.data
        z.mul_(2.0)
        y.sum().backward()
    """).lstrip("\n")
    found = [d for d in analyze_module(ast.parse(source), source, "data.py") if d.code == "FIP104"]
    assert found and "shares `y`'s storage (not its version counter)" in found[0].message, found
    assert "storage and version counter" not in found[0].message


def test_info_on_an_argument_of_unknown_provenance_claims_no_safety() -> None:
    source = textwrap.dedent("""
        import torch

        def clip_(x, lo):
            x.clamp_(min=lo)
            return x
    """).lstrip("\n")
    found = [d for d in analyze_module(ast.parse(source), source, "arg.py")]
    assert [(d.line, d.code, d.severity.value) for d in found] == [(4, "FIP900", "info")]
    assert "is safe" not in found[0].message and "a caller the analysis cannot see" in found[0].message


def test_analysis_import_graph_is_one_way():
    """The interpreter builds on op/call handling and the shared frame module; those never import it back."""
    folder = Path(__file__).resolve().parent.parent / "fixinplace" / "analysis"
    for path in [*sorted((folder / "calls").glob("*.py")), *(folder / n for n in ("moves.py", "frame.py", "values.py"))]:
        name = path.name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "fixinplace.analysis.interpreter" not in imported, f"{name} imports the interpreter"


@pytest.mark.parametrize("made, at", [
    ("w = torch.zeros(3, requires_grad=True)", 9),
    ("w = torch.nn.Parameter(torch.ones(3))", 9),
    ("w = torch.ones(3)\n    w.requires_grad_(True)", 5),
])
def test_a_leaf_write_points_at_where_the_leaf_is_made(made: str, at: int) -> None:
    from fixinplace.engine import analyse_source

    source = f"import torch\n\n\ndef main():\n    {made}\n    w.add_(1)\n    return w\n"
    [leaf] = [d for d in analyse_source(source, "m.py") if d.code == "FIP102"]
    made_line = 6 if "requires_grad_" in made else 5
    assert [(r.line, r.column, r.message) for r in leaf.related] == [(made_line, at, "the leaf tensor is created here")]


def test_a_leaf_made_in_another_file_has_no_related_location_in_this_one(tmp_path: Path) -> None:
    from fixinplace.engine import analyse_source

    (tmp_path / "weights.py").write_text("import torch\n\n\ndef make():\n    return torch.zeros(3, requires_grad=True)\n")
    source = "import torch\nfrom weights import make\n\n\ndef main():\n    w = make()\n    w.add_(1)\n    return w\n"
    (tmp_path / "m.py").write_text(source)
    leaves = [d for d in analyse_source(source, str(tmp_path / "m.py")) if d.code == "FIP102"]
    assert leaves and all(not d.related for d in leaves)


@pytest.mark.parametrize("made,write,root,kind", [
    ('d = {"a": x.exp()}', 'd["a"].add_(1)', 'd["a"]', "element"),
    ("d = dict(a=x.exp())", 'd["a"].add_(1)', 'd["a"]', "element"),
    ("ys = [x.exp()]", "ys[-1][0] = 0.0", "ys[-1]", "element"),
    ("ys = [x.exp()]", "ys[0].t()[0] = 0.0", "ys[0]", "element"),
    ("t = (x.exp(), 1)", "t[0].add_(1)", "t[0]", "element"),
    ("y = x.exp()", "y[0].add_(1)", "y", "local"),  # a tensor's subscript is a view: the root is the tensor
    ("y = x.exp()", "y.t()[0] = 0.0", "y", "local"),
])
def test_a_write_to_a_container_element_has_the_element_as_root(made: str, write: str, root: str, kind: str) -> None:
    """The root of a write through a subscript is the tensor it indexes, never a container: a fix built on the root
    name (a clone or rebinding of it) must not touch a dict, list or tuple."""
    source = (f"import torch\nx = torch.randn(3, 3, requires_grad=True)\n{made}\n{write}\n"
              f"{root.split('[')[0] if kind == 'local' else root}.sum().backward()\n")
    [diagnostic] = [d for d in analyze_module(ast.parse(source), source, "case.py") if d.code == "FIP101"]
    assert (diagnostic.line, diagnostic.facts.root, diagnostic.facts.root_kind) == (4, root, kind)


def test_a_step_over_several_submodules_names_each_parameter_once() -> None:
    """An optimizer over the parameters of layers built by one class (`self.net[0].weight` in each) lists each name
    once, the first three, and how many more it updates."""
    source = textwrap.dedent("""
        import torch
        from torch import nn


        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

            def forward(self, x):
                return self.net(x)


        a, b, c = Block(), Block(), Block()
        head = nn.Linear(4, 1)
        opt = torch.optim.SGD([a.net[0].weight, b.net[0].weight, c.net[0].weight, c.net[0].bias, head.weight,
                               head.bias], lr=0.1)
        x = torch.randn(2, 4)
        loss = head(c(b(a(x)))).sum()
        loss.backward(retain_graph=True)
        opt.step()
        loss.backward()
    """)
    found = [d for d in analyze_module(ast.parse(source), source, "steps.py") if d.code == "FIP103"]
    assert found, "the step between the two backwards is reported"
    message = found[0].message
    assert message.startswith("`opt.step()` updates `self.net[0].weight`, `self.net[0].bias`, `head.weight` and 1 "
                              "more parameter in place;"), message
