"""Which tensors the device-specific kernels save for backward, and which writes break their backward: CPU vs CUDA.

    python bench/cuda/probe_kernels.py --output probe.json [--markdown probe.md] [--devices cpu,cuda]

The table (`fixinplace.tables`, run on CUDA by table_device.py) measures each op in one dtype (float64 where the
op supports it). Several CUDA kernels are chosen by dtype or by a backend switch: flash / memory-efficient / cuDNN
scaled_dot_product_attention (half precision, or float32 for mem-efficient), cuDNN batch norm, convolution and
RNNs, fused LSTM/GRU cells, fused dropout. This script calls a fixed list of such ops and modules on each device in
float64, float32, float16 and bfloat16 (where they run), and records for each call:

* `nodes`: the autograd nodes the call created, and for each its `_saved_*` tensor attributes with the items they
  are (found with fixinplace.tables' version-counter probe: `input:<i>`, `input:<kw>`, `param:<name>`,
  `buffer:<name>`, `output`, `output:<i>`; `?` for a tensor the op made itself such as a mask, a
  log-sum-exp or a cuDNN reserve space);
* `saved`: the union of identified items (what the table would record for that call), for two requires-grad
  configs: `all` (every floating input and parameter) and `first` (only the first input; parameters frozen);
* `writes`: for every candidate item, the call is run afresh (config `all`), that item's version counter is bumped
  (as an in-place write would) and backward is run on the sum of the floating outputs: `raises` (the
  "modified by an inplace operation" error) or `ok`. This is the ground truth the table stands for.

The markdown lists, per case, where CUDA differs from CPU in the same dtype (saved items, write results, nodes).
It also measures the run-to-run spread of nondeterministic CUDA ops (index_put accumulate, index_add_,
scatter_add_, embedding backward, ...), with and without `torch.use_deterministic_algorithms(True)`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import fixinplace.tables as T  # noqa: E402

DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


def _sdpa_ctx(backend_name):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if backend_name is None:
        return contextlib.nullcontext
    return lambda: sdpa_kernel([getattr(SDPBackend, backend_name)])


# --------------------------------------------------------------------------------------------------
# Cases: name -> builder(device, dtype) -> dict(fn, args, kwargs, module, ctx)


def fcase(fn, *shapes_or_values, ctx=None, **kwargs):
    """A function call; a tuple in the arguments is a shape for randn, an ("int", high, shape) an index tensor."""

    def build(device, dtype):
        g = torch.Generator(device="cpu").manual_seed(0)

        def make(v):
            if isinstance(v, tuple) and v and v[0] == "int":
                return torch.randint(0, v[1], v[2], generator=g).to(device)
            if isinstance(v, tuple) and v and v[0] == "pos":
                return (torch.rand(*v[1], generator=g, dtype=torch.float64) + 0.5).to(device, dtype)
            if isinstance(v, tuple) and v and v[0] == "prob":
                return torch.rand(*v[1], generator=g, dtype=torch.float64).to(device, dtype)
            if isinstance(v, tuple) and v and v[0] == "grid":
                return (torch.rand(*v[1], generator=g, dtype=torch.float64) * 2 - 1).to(device, dtype)
            if isinstance(v, tuple) and all(isinstance(i, int) for i in v):
                return torch.randn(*v, generator=g, dtype=torch.float64).to(device, dtype)
            return v

        return {"fn": fn, "args": tuple(make(v) for v in shapes_or_values),
                "kwargs": {k: make(v) for k, v in kwargs.items()}, "module": None, "ctx": ctx}

    return build


def without_grad(builder, *positions):
    """`builder` with the arguments at `positions` never requiring grad."""

    def build(device, dtype):
        return dict(builder(device, dtype), nograd=set(positions))

    return build


def mcase(make_module, *input_shapes, train=True, ctx=None):
    def build(device, dtype):
        torch.manual_seed(0)
        m = make_module().to(device=device, dtype=dtype)
        m.train(train)
        g = torch.Generator(device="cpu").manual_seed(0)
        args = []
        for s in input_shapes:
            if isinstance(s, tuple) and s and s[0] == "int":
                args.append(torch.randint(0, s[1], s[2], generator=g).to(device))
            else:
                args.append(torch.randn(*s, generator=g, dtype=torch.float64).to(device, dtype))
        return {"fn": m, "args": tuple(args), "kwargs": {}, "module": m, "ctx": ctx}

    return build


def _bn_args(training, affine=True, stats=True):
    def fn(x, rm, rv, w, b):
        return F.batch_norm(x, rm, rv, w, b, training=training)

    def build(device, dtype):
        g = torch.Generator().manual_seed(0)
        x = torch.randn(4, 3, 5, 5, generator=g, dtype=torch.float64).to(device, dtype)
        rm = torch.zeros(3, dtype=torch.float64).to(device, dtype) if stats else None
        rv = torch.ones(3, dtype=torch.float64).to(device, dtype) if stats else None
        w = torch.rand(3, generator=g, dtype=torch.float64).to(device, dtype) + 0.5 if affine else None
        b = torch.randn(3, generator=g, dtype=torch.float64).to(device, dtype) if affine else None
        return {"fn": fn, "args": (x, rm, rv, w, b), "kwargs": {}, "module": None, "ctx": None, "nograd": {1, 2}}

    return build


def _sdpa(backend, causal=False, dropout=0.0, mask=False, shape=(2, 4, 16, 64)):
    def fn(q, k, v, *m):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m[0] if m else None, dropout_p=dropout,
                                              is_causal=causal)

    shapes = [shape, shape, shape] + ([(shape[0], shape[1], shape[2], shape[2])] if mask else [])
    return fcase(fn, *shapes, ctx=_sdpa_ctx(backend))


class _LSTMCellWrap(nn.Module):
    """nn.LSTMCell called as cell(x, (h, c)) from forward(x, h, c)."""

    def __init__(self, *a):
        super().__init__()
        self.cell = nn.LSTMCell(*a)

    def forward(self, x, h, c):
        return self.cell(x, (h, c))


CASES = {
    # batch norm (cuDNN on CUDA when weight, bias and running stats are given)
    "F.batch_norm train": _bn_args(True),
    "F.batch_norm eval": _bn_args(False),
    "F.batch_norm train no affine": _bn_args(True, affine=False),
    "F.batch_norm train no stats": _bn_args(True, stats=False),
    "nn.BatchNorm2d train": mcase(lambda: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    "nn.BatchNorm2d eval": mcase(lambda: nn.BatchNorm2d(3), (4, 3, 5, 5), train=False),
    "nn.BatchNorm1d train 3d": mcase(lambda: nn.BatchNorm1d(3), (4, 3, 7)),
    "nn.BatchNorm1d train 2d": mcase(lambda: nn.BatchNorm1d(3), (4, 3)),
    "nn.SyncBatchNorm eval": mcase(lambda: nn.SyncBatchNorm(3), (4, 3, 5, 5), train=False),
    # other norms
    "F.layer_norm": fcase(F.layer_norm, (4, 6, 8), [8], (8,), (8,)),
    "F.group_norm": fcase(F.group_norm, (4, 6, 5), 3, (6,), (6,)),
    "F.instance_norm": fcase(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (4, 3, 5, 5), (3,), (3,)),
    "F.rms_norm": fcase(F.rms_norm, (4, 6, 8), [8], (8,)),
    # the overlay's rms_norm difference (CUDA saves the input when only the weight requires grad), per dtype
    "F.rms_norm input without grad": without_grad(fcase(F.rms_norm, (4, 6, 8), [8], (8,)), 0),
    "F.normalize": fcase(F.normalize, (4, 8)),
    # convolution (cuDNN)
    "F.conv1d": fcase(F.conv1d, (2, 3, 9), (4, 3, 3), (4,)),
    "F.conv2d": fcase(F.conv2d, (2, 3, 8, 8), (4, 3, 3, 3), (4,)),
    "F.conv2d no bias": fcase(F.conv2d, (2, 3, 8, 8), (4, 3, 3, 3)),
    "F.conv2d depthwise": fcase(lambda x, w, b: F.conv2d(x, w, b, groups=3), (2, 3, 8, 8), (3, 1, 3, 3), (3,)),
    "F.conv3d": fcase(F.conv3d, (2, 3, 5, 5, 5), (4, 3, 3, 3, 3), (4,)),
    "F.conv_transpose2d": fcase(F.conv_transpose2d, (2, 3, 6, 6), (3, 4, 3, 3), (4,)),
    "nn.Conv2d": mcase(lambda: nn.Conv2d(3, 4, 3, padding=1), (2, 3, 8, 8)),
    "conv+bn+relu(inplace)": mcase(lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(inplace=True)),
                                   (2, 3, 8, 8)),
    # attention
    "sdpa default": _sdpa(None),
    "sdpa default causal": _sdpa(None, causal=True),
    "sdpa default dropout": _sdpa(None, dropout=0.1),
    "sdpa MATH": _sdpa("MATH"),
    "sdpa MATH causal": _sdpa("MATH", causal=True),
    "sdpa MATH dropout": _sdpa("MATH", dropout=0.1),
    "sdpa MATH mask": _sdpa("MATH", mask=True),
    "sdpa FLASH": _sdpa("FLASH_ATTENTION"),
    "sdpa FLASH causal": _sdpa("FLASH_ATTENTION", causal=True),
    "sdpa FLASH dropout": _sdpa("FLASH_ATTENTION", dropout=0.1),
    "sdpa EFFICIENT": _sdpa("EFFICIENT_ATTENTION"),
    "sdpa EFFICIENT causal": _sdpa("EFFICIENT_ATTENTION", causal=True),
    "sdpa EFFICIENT dropout": _sdpa("EFFICIENT_ATTENTION", dropout=0.1),
    "sdpa EFFICIENT mask": _sdpa("EFFICIENT_ATTENTION", mask=True),
    "sdpa CUDNN": _sdpa("CUDNN_ATTENTION"),
    "sdpa CUDNN causal": _sdpa("CUDNN_ATTENTION", causal=True),
    "nn.MultiheadAttention": mcase(lambda: nn.MultiheadAttention(16, 2, batch_first=True), (2, 5, 16), (2, 5, 16),
                                   (2, 5, 16)),
    "nn.TransformerEncoderLayer": mcase(lambda: nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True),
                                       (2, 5, 16)),
    "nn.TransformerEncoderLayer eval": mcase(lambda: nn.TransformerEncoderLayer(16, 2, 32, batch_first=True),
                                            (2, 5, 16), train=False),
    # dropout
    "F.dropout": fcase(lambda x: F.dropout(x, 0.5, training=True), (8, 16)),
    "F.dropout eval": fcase(lambda x: F.dropout(x, 0.5, training=False), (8, 16)),
    "F.dropout2d": fcase(lambda x: F.dropout2d(x, 0.5, training=True), (2, 4, 5, 5)),
    "F.alpha_dropout": fcase(lambda x: F.alpha_dropout(x, 0.5, training=True), (8, 16)),
    "F.feature_alpha_dropout": fcase(lambda x: F.feature_alpha_dropout(x, 0.5, training=True), (2, 4, 5, 5)),
    "nn.Dropout": mcase(lambda: nn.Dropout(0.5), (8, 16)),
    "torch.bernoulli": fcase(torch.bernoulli, ("prob", (8, 16))),
    # recurrent (cuDNN RNNs; fused cells)
    "nn.LSTM": mcase(lambda: nn.LSTM(8, 16), (5, 3, 8)),
    "nn.LSTM 2 layers bidirectional dropout": mcase(lambda: nn.LSTM(8, 16, num_layers=2, bidirectional=True,
                                                                    dropout=0.1), (5, 3, 8)),
    "nn.LSTM batch_first proj": mcase(lambda: nn.LSTM(8, 16, batch_first=True, proj_size=4), (3, 5, 8)),
    "nn.LSTM eval": mcase(lambda: nn.LSTM(8, 16), (5, 3, 8), train=False),
    "nn.GRU": mcase(lambda: nn.GRU(8, 16), (5, 3, 8)),
    "nn.RNN tanh": mcase(lambda: nn.RNN(8, 16), (5, 3, 8)),
    "nn.RNN relu": mcase(lambda: nn.RNN(8, 16, nonlinearity="relu"), (5, 3, 8)),
    "nn.LSTMCell": mcase(lambda: _LSTMCellWrap(8, 16), (3, 8), (3, 16), (3, 16)),
    "nn.GRUCell": mcase(lambda: nn.GRUCell(8, 16), (3, 8), (3, 16)),
    "nn.RNNCell": mcase(lambda: nn.RNNCell(8, 16), (3, 8), (3, 16)),
    # losses
    "F.cross_entropy": fcase(F.cross_entropy, (6, 5), ("int", 5, (6,))),
    "F.cross_entropy label_smoothing": fcase(lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), (6, 5),
                                             ("int", 5, (6,))),
    "F.nll_loss": fcase(F.nll_loss, (6, 5), ("int", 5, (6,))),
    "F.mse_loss": fcase(F.mse_loss, (6, 5), (6, 5)),
    "F.binary_cross_entropy_with_logits": fcase(F.binary_cross_entropy_with_logits, (6, 5), ("pos", (6, 5))),
    "F.ctc_loss": fcase(lambda lp, tg: F.ctc_loss(lp.log_softmax(2), tg, [10, 10], [4, 3]), (10, 2, 5),
                        ("int", 4, (2, 4))),
    # pooling / sampling / resampling
    "F.max_pool2d": fcase(lambda x: F.max_pool2d(x, 2), (2, 3, 8, 8)),
    "F.avg_pool2d": fcase(lambda x: F.avg_pool2d(x, 2), (2, 3, 8, 8)),
    "F.adaptive_avg_pool2d": fcase(lambda x: F.adaptive_avg_pool2d(x, 3), (2, 3, 8, 8)),
    "F.adaptive_max_pool2d": fcase(lambda x: F.adaptive_max_pool2d(x, 3), (2, 3, 8, 8)),
    "F.grid_sample align_corners": fcase(lambda x, g: F.grid_sample(x, g, align_corners=True), (2, 3, 8, 8),
                                         ("grid", (2, 4, 4, 2))),
    "F.grid_sample": fcase(lambda x, g: F.grid_sample(x, g, align_corners=False), (2, 3, 8, 8),
                           ("grid", (2, 4, 4, 2))),
    "F.affine_grid": fcase(lambda t: F.affine_grid(t, [2, 3, 4, 4], align_corners=False), (2, 2, 3)),
    "F.interpolate bilinear": fcase(lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (2, 3, 4, 4)),
    "F.interpolate nearest": fcase(lambda x: F.interpolate(x, scale_factor=2), (2, 3, 4, 4)),
    "F.pad reflect": fcase(lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"), (2, 3, 4, 4)),
    # dense
    "F.linear": fcase(F.linear, (4, 8), (5, 8), (5,)),
    "torch.addmm": fcase(torch.addmm, (4, 5), (4, 8), (8, 5)),
    "torch.matmul": fcase(torch.matmul, (4, 8), (8, 5)),
    "torch.bmm": fcase(torch.bmm, (2, 4, 8), (2, 8, 5)),
    "torch.einsum": fcase(lambda a, b: torch.einsum("bij,bjk->bik", a, b), (2, 4, 8), (2, 8, 5)),
    "nn.Linear+GELU": mcase(lambda: nn.Sequential(nn.Linear(8, 16), nn.GELU()), (4, 8)),
    # activations
    "F.gelu": fcase(F.gelu, (4, 8)),
    "F.gelu tanh": fcase(lambda x: F.gelu(x, approximate="tanh"), (4, 8)),
    "F.silu": fcase(F.silu, (4, 8)),
    "F.softmax": fcase(lambda x: F.softmax(x, -1), (4, 8)),
    "F.log_softmax": fcase(lambda x: F.log_softmax(x, -1), (4, 8)),
    "torch.sigmoid": fcase(torch.sigmoid, (4, 8)),
    "torch.tanh": fcase(torch.tanh, (4, 8)),
    "F.relu": fcase(F.relu, (4, 8)),
    "F.leaky_relu": fcase(F.leaky_relu, (4, 8)),
    "F.elu": fcase(F.elu, (4, 8)),
    "F.softplus": fcase(F.softplus, (4, 8)),
    "F.mish": fcase(F.mish, (4, 8)),
    "F.hardswish": fcase(F.hardswish, (4, 8)),
    # indexing / scatter (nondeterministic on CUDA)
    "F.embedding": fcase(lambda i, w: F.embedding(i, w), ("int", 10, (4, 3)), (10, 6)),
    "F.embedding padding_idx": fcase(lambda i, w: F.embedding(i, w, padding_idx=0), ("int", 10, (4, 3)), (10, 6)),
    "F.embedding_bag mean": fcase(lambda i, w: F.embedding_bag(i, w, mode="mean"), ("int", 10, (4, 3)), (10, 6)),
    "F.embedding_bag max": fcase(lambda i, w: F.embedding_bag(i, w, mode="max"), ("int", 10, (4, 3)), (10, 6)),
    "index_put accumulate": fcase(lambda x, i, v: x.index_put((i,), v, accumulate=True), (5, 3), ("int", 5, (8,)),
                                  (8, 3)),
    "index_add": fcase(lambda x, i, v: x.index_add(0, i, v), (5, 3), ("int", 5, (8,)), (8, 3)),
    "scatter_add": fcase(lambda x, i, v: x.scatter_add(0, i, v), (5, 3), ("int", 5, (8, 3)), (8, 3)),
    "scatter_reduce amax": fcase(lambda x, i, v: x.scatter_reduce(0, i, v, "amax"), (5, 3), ("int", 5, (8, 3)),
                                 (8, 3)),
    "gather": fcase(lambda x, i: x.gather(0, i), (5, 3), ("int", 5, (8, 3))),
    "index_select": fcase(lambda x, i: x.index_select(0, i), (5, 3), ("int", 5, (8,))),
    "getitem tensor index": fcase(lambda x, i: x[i], (5, 3), ("int", 5, (8,))),
    "torch.take": fcase(torch.take, (5, 3), ("int", 15, (8,))),
    "torch.sort": fcase(lambda x: torch.sort(x, -1), (4, 8)),
    "torch.topk": fcase(lambda x: torch.topk(x, 3), (4, 8)),
    "torch.cumsum": fcase(lambda x: torch.cumsum(x, 0), (4, 8)),
    "torch.cumprod": fcase(lambda x: torch.cumprod(x, 0), (4, 8)),
    "torch.max dim": fcase(lambda x: torch.max(x, 1), (4, 8)),
    "torch.norm": fcase(lambda x: torch.norm(x), (4, 8)),
    "torch.var": fcase(torch.var, (4, 8)),
    "torch.prod": fcase(torch.prod, ("pos", (4, 8))),
    "torch.linalg.solve": fcase(lambda a, b: torch.linalg.solve(a + 4 * torch.eye(4, device=a.device, dtype=a.dtype), b),
                                (4, 4), (4, 2)),
    "torch.linalg.inv": fcase(lambda a: torch.linalg.inv(a + 4 * torch.eye(4, device=a.device, dtype=a.dtype)), (4, 4)),
    "torch.cdist": fcase(torch.cdist, (4, 3), (5, 3)),
    "torch.pow": fcase(torch.pow, ("pos", (4, 8)), 2.5),
    "torch.exp": fcase(torch.exp, (4, 8)),
    "torch.div": fcase(torch.div, (4, 8), ("pos", (4, 8))),
}


# --------------------------------------------------------------------------------------------------
# Measuring


def _candidates(built) -> list[tuple[str, torch.Tensor]]:
    cands: list[tuple[str, torch.Tensor]] = []
    for i, a in enumerate(built["args"]):
        name = ("input" if i == 0 else f"input:{i}") if built["module"] is not None else f"input:{i}"
        cands += [(name, t) for t in T._tensors_in(a)]
    for k in sorted(built["kwargs"]):
        cands += [(f"input:{k}", t) for t in T._tensors_in(built["kwargs"][k])]
    m = built["module"]
    if m is not None:
        cands += [(f"param:{n}", p) for n, p in m.named_parameters()]
        cands += [(f"buffer:{n}", b) for n, b in m.named_buffers()]
    return cands


def _call(builder, device, dtype, config: str, bump: str | None = None):
    """Build afresh, set requires_grad per config, run; with `bump`, bump that item's version and run backward.
    Returns a result dict."""
    built = builder(device, dtype)
    cands = _candidates(built)
    first = cands[0][1] if cands else None
    nograd = {f"input:{i}" for i in built.get("nograd", ())}
    for name, t in cands:
        if not T._grad_able(t) or name.startswith("buffer:") or name in nograd:
            continue  # running stats (batch norm) cannot require grad
        if config == "all":
            t.requires_grad_(True)
        elif config == "first":
            t.requires_grad_(t is first)
    ctx = built["ctx"] or contextlib.nullcontext
    T._seed()
    if device.startswith("cuda"):
        torch.cuda.manual_seed_all(0)
    with ctx(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = built["fn"](*built["args"], **built["kwargs"])
    outputs = T._tensors_in(out)
    res: dict = {"outputs": [f"{str(o.dtype).replace('torch.', '')}{list(o.shape)}" for o in outputs]}
    if not any(o.requires_grad for o in outputs):
        res["differentiable"] = False
        return res, None
    res["differentiable"] = True
    all_cands = cands + [(T._output_name(i), o) for i, o in enumerate(outputs)]
    if bump is None:
        nodes = T._autograd_nodes(outputs, set())
        per_node = []
        items: set[str] = set()
        unknown = 0
        for node in nodes:
            attrs = {}
            for attr in sorted(dir(node)):
                if not attr.startswith("_saved_"):
                    continue
                try:
                    value = getattr(node, attr)
                except Exception:
                    continue
                ts = T._tensors_in(value)
                if not ts:
                    continue
                found = T._probe(all_cands, ts)
                names = []
                for f in found:
                    if f:
                        names.append("|".join(sorted(f)))
                        items |= f
                    else:
                        names.append("?")
                        unknown += 1
                attrs[attr[len("_saved_"):]] = names if len(names) > 1 else names[0]
            per_node.append({"node": type(node).__name__, "saved": attrs})
        res["nodes"] = per_node
        res["saved"] = sorted(items)
        res["unidentified"] = unknown
        res["candidates"] = [n for n, _ in all_cands]
        return res, all_cands
    # write probe
    target = [t for n, t in all_cands if n == bump]
    if not target:
        return {"write": "no such item"}, None
    T._set_version(target[0], target[0]._version + 1)
    loss = sum(o.float().sum() for o in outputs if o.requires_grad)
    try:
        loss.backward()
        return {"write": "ok"}, None
    except RuntimeError as e:
        msg = str(e)
        if "modified by an inplace operation" in msg:
            return {"write": "raises"}, None
        return {"write": "error: " + msg.splitlines()[0][:160]}, None


def measure_case(name, builder, device, dtype) -> dict:
    out: dict = {}
    try:
        res, cands = _call(builder, device, dtype, "all")
    except Exception as e:
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"}
    out["all"] = res
    try:
        out["first"] = _call(builder, device, dtype, "first")[0]
        out["first"].pop("nodes", None)
        out["first"].pop("candidates", None)
    except Exception as e:
        out["first"] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"}
    if cands:
        writes = {}
        for item, _ in cands:
            if item in writes:
                continue
            try:
                writes[item] = _call(builder, device, dtype, "all", bump=item)[0].get("write")
            except Exception as e:
                writes[item] = f"error: {type(e).__name__}: {str(e)[:120]}"
        out["writes"] = writes
    return out


# --------------------------------------------------------------------------------------------------
# Nondeterminism


def nondeterminism(device: str, runs: int = 20) -> dict:
    """Max abs spread over `runs` runs of outputs and gradients (float32), plainly and under
    torch.use_deterministic_algorithms(True) (warn_only: warnings recorded)."""
    n_src, n_dst = 200_000, 64

    def make(kind, g):
        idx = torch.randint(0, n_dst, (n_src,), generator=g).to(device)
        if kind == "index_put accumulate":
            x = torch.zeros(n_dst, 8, device=device)
            v = torch.randn(n_src, 8, generator=g).to(device).requires_grad_(True)
            return (lambda: x.index_put((idx,), v, accumulate=True)), [v]
        if kind == "index_add_":
            x = torch.zeros(n_dst, 8, device=device)
            v = torch.randn(n_src, 8, generator=g).to(device).requires_grad_(True)
            return (lambda: x.clone().index_add_(0, idx, v)), [v]
        if kind == "scatter_add_":
            x = torch.zeros(n_dst, 8, device=device)
            v = torch.randn(n_src, 8, generator=g).to(device).requires_grad_(True)
            i2 = idx[:, None].expand(-1, 8)
            return (lambda: x.clone().scatter_add_(0, i2, v)), [v]
        if kind == "embedding backward":
            w = torch.randn(n_dst, 8, generator=g).to(device).requires_grad_(True)
            return (lambda: F.embedding(idx, w) * torch.arange(n_src, device=device)[:, None] / n_src), [w]
        if kind == "embedding_bag backward":
            w = torch.randn(n_dst, 8, generator=g).to(device).requires_grad_(True)
            return (lambda: F.embedding_bag(idx.view(-1, 4), w, mode="sum")), [w]
        if kind == "index_select backward":
            w = torch.randn(n_dst, 8, generator=g).to(device).requires_grad_(True)
            return (lambda: w.index_select(0, idx) * 1.5), [w]
        if kind == "getitem backward (index_put accumulate)":
            w = torch.randn(n_dst, 8, generator=g).to(device).requires_grad_(True)
            return (lambda: w[idx] * 1.5), [w]
        if kind == "sum (reduction)":
            v = torch.randn(n_src, 8, generator=g).to(device).requires_grad_(True)
            return (lambda: v.sum(0)), [v]
        if kind == "matmul fp32":
            a = torch.randn(512, 4096, generator=g).to(device).requires_grad_(True)
            b = torch.randn(4096, 512, generator=g).to(device)
            return (lambda: a @ b), [a]
        raise KeyError(kind)

    kinds = ["index_put accumulate", "index_add_", "scatter_add_", "embedding backward", "embedding_bag backward",
             "index_select backward", "getitem backward (index_put accumulate)", "sum (reduction)", "matmul fp32"]
    out = {}
    for kind in kinds:
        row = {}
        for det in (False, True):
            try:
                torch.use_deterministic_algorithms(det, warn_only=True)
                outs, grads, warned = [], [], set()
                for r in range(runs):
                    g = torch.Generator().manual_seed(0)
                    fn, leaves = make(kind, g)
                    gw = torch.Generator().manual_seed(1)
                    with warnings.catch_warnings(record=True) as w:
                        warnings.simplefilter("always")
                        y = fn()
                        y.backward(torch.randn(y.shape, generator=gw).to(device))
                        if device.startswith("cuda"):
                            torch.cuda.synchronize()
                    warned |= {str(x.message).splitlines()[0][:160] for x in w if "determinis" in str(x.message)}
                    outs.append(y.detach().double())
                    grads.append(leaves[0].grad.detach().double())
                row["deterministic" if det else "default"] = {
                    "max_spread_output": max(float((o - outs[0]).abs().max()) for o in outs),
                    "max_spread_grad": max(float((gr - grads[0]).abs().max()) for gr in grads),
                    "max_abs_output": float(outs[0].abs().max()),
                    "max_abs_grad": float(grads[0].abs().max()),
                    "warnings": sorted(warned),
                }
            except Exception as e:
                row["deterministic" if det else "default"] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
            finally:
                torch.use_deterministic_algorithms(False)
        out[kind] = row
    return out


# --------------------------------------------------------------------------------------------------
# Report


def compare(results: dict, base: str = "cpu", other: str = "cuda") -> list[str]:
    L = []
    for case, by_dev in results.items():
        lines = []
        for dt in [str(d).replace("torch.", "") for d in DTYPES]:
            a = by_dev.get(base, {}).get(dt)
            b = by_dev.get(other, {}).get(dt)
            if a is None or b is None:
                continue
            if "error" in a or "error" in b:
                if ("error" in a) != ("error" in b):
                    lines.append(f"  - {dt}: {base} {a.get('error', 'runs')} / {other} {b.get('error', 'runs')}")
                continue
            diffs = []
            for cfg in ("all", "first"):
                sa, sb = a.get(cfg, {}).get("saved"), b.get(cfg, {}).get("saved")
                if sa != sb:
                    diffs.append(f"saved[{cfg}] {sa} -> {sb}")
            wa, wb = a.get("writes", {}), b.get("writes", {})
            wd = {k: (wa.get(k), wb.get(k)) for k in sorted(set(wa) | set(wb)) if wa.get(k) != wb.get(k)}
            if wd:
                diffs.append("writes " + ", ".join(f"{k}: {x}->{y}" for k, (x, y) in wd.items()))
            na = [n["node"] for n in a.get("all", {}).get("nodes", [])]
            nb = [n["node"] for n in b.get("all", {}).get("nodes", [])]
            if sorted(na) != sorted(nb):
                diffs.append(f"nodes {sorted(na)} -> {sorted(nb)}")
            ua, ub = a.get("all", {}).get("unidentified"), b.get("all", {}).get("unidentified")
            if ua != ub:
                diffs.append(f"internal saved tensors {ua} -> {ub}")
            if diffs:
                lines.append(f"  - {dt}: " + "; ".join(diffs))
        if lines:
            L.append(f"- **{case}**")
            L += lines
    return L


def dtype_summary(results: dict, device: str) -> list[str]:
    """Within one device: where float32/16/bf16 differ from float64 (another kernel by dtype)."""
    L = []
    for case, by_dev in results.items():
        d = by_dev.get(device, {})
        ref = d.get("float64")
        lines = []
        for dt in ("float32", "float16", "bfloat16"):
            r = d.get(dt)
            if r is None:
                continue
            if ref is None or "error" in ref or "error" in r:
                if (ref or {}).get("error") != r.get("error") and "error" in r:
                    lines.append(f"  - {dt}: {r['error']}")
                continue
            diffs = []
            if ref["all"].get("saved") != r["all"].get("saved"):
                diffs.append(f"saved[all] {ref['all'].get('saved')} -> {r['all'].get('saved')}")
            wd = {k: (ref.get("writes", {}).get(k), r.get("writes", {}).get(k))
                  for k in set(ref.get("writes", {})) | set(r.get("writes", {}))
                  if ref.get("writes", {}).get(k) != r.get("writes", {}).get(k)}
            if wd:
                diffs.append("writes " + ", ".join(f"{k}: {x}->{y}" for k, (x, y) in sorted(wd.items())))
            na = sorted(n["node"] for n in ref["all"].get("nodes", []))
            nb = sorted(n["node"] for n in r["all"].get("nodes", []))
            if na != nb:
                diffs.append(f"nodes {na} -> {nb}")
            if diffs:
                lines.append(f"  - float64 -> {dt}: " + "; ".join(diffs))
        if lines:
            L.append(f"- **{case}**")
            L += lines
    return L


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--devices", default=None, help="comma-separated (default: cpu, and cuda when available)")
    ap.add_argument("--only", default=None, help="comma-separated case names (default: all)")
    ap.add_argument("--no-nondeterminism", action="store_true")
    ns = ap.parse_args()
    devices = ns.devices.split(",") if ns.devices else (["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"])
    cases = {k: v for k, v in CASES.items() if ns.only is None or k in ns.only.split(",")}
    t0 = time.time()
    results: dict = {}
    for case, builder in cases.items():
        results[case] = {}
        for device in devices:
            results[case][device] = {}
            for dtype in DTYPES:
                try:
                    r = measure_case(case, builder, device, dtype)
                except Exception as e:  # pragma: no cover
                    r = {"error": "probe failed: " + "".join(traceback.format_exception_only(type(e), e))[:300]}
                results[case][device][str(dtype).replace("torch.", "")] = r
    meta = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()
            if torch.backends.cudnn.is_available() else None, "devices": devices,
            "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
            "seconds_cases": round(time.time() - t0, 1)}
    nd = {}
    if "cuda" in devices and not ns.no_nondeterminism:
        t1 = time.time()
        nd = nondeterminism("cuda")
        meta["seconds_nondeterminism"] = round(time.time() - t1, 1)
    ns.output.write_text(json.dumps({"meta": meta, "cases": results, "nondeterminism": nd}, indent=1,
                                    sort_keys=True) + "\n")
    L = [f"# Kernel probe: {meta}", ""]
    if len(devices) > 1:
        L += [f"## {devices[0]} vs {devices[1]}, same dtype (saved items, write results, autograd nodes)", ""]
        L += compare(results, devices[0], devices[1]) or ["(no difference)"]
        L.append("")
    for device in devices:
        L += [f"## {device}: float64 vs other dtypes", ""]
        L += dtype_summary(results, device) or ["(no difference)"]
        L.append("")
    if nd:
        L += ["## Nondeterminism on CUDA (float32, 20 runs, max abs spread)", "",
              "| op | default: output spread | default: grad spread | deterministic: output | deterministic: grad |"
              " warnings (deterministic mode) |", "| --- | --- | --- | --- | --- | --- |"]
        for kind, row in nd.items():
            d, t = row.get("default", {}), row.get("deterministic", {})
            L.append(f"| {kind} | {d.get('max_spread_output', d.get('error'))} | {d.get('max_spread_grad')} | "
                     f"{t.get('max_spread_output', t.get('error'))} | {t.get('max_spread_grad')} | "
                     f"{'; '.join(t.get('warnings', []))} |")
    md = "\n".join(L) + "\n"
    if ns.markdown:
        ns.markdown.write_text(md)
    print(md[:4000])
    print(f"probe done in {time.time() - t0:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
