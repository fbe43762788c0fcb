"""The saved-tensor table: regenerated from the installed torch it must equal the shipped JSON, and
the torch-free query API must say what torch actually does (FACTS.md, cross-checked by running torch)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixinplace.optable import DATA_PATH, NONE as NONE_LITERAL, ArgFact, InplaceMethod, OpTable, Saved

ROOT = Path(__file__).resolve().parents[1]

T = ArgFact(True, True)  # a tensor that requires grad
N = ArgFact(True, False)  # a tensor that does not
S = ArgFact(False, False)  # a Python scalar
U = ArgFact(None, None)  # unknown
NONE_ARG = ArgFact(False, False, NONE_LITERAL)  # the literal None


@pytest.fixture(scope="module")
def table() -> OpTable:
    return OpTable.load()


def items(saved: list[Saved]) -> set[str]:
    return {s.item for s in saved}


def certain(saved: list[Saved]) -> set[str]:
    return {s.item for s in saved if s.certain}


# --------------------------------------------------------------------------------------------------
# The shipped file


@pytest.mark.slow  # 45-85 s: every OpInfo of torch measured again (the tests below read the shipped table)
def test_regenerated_table_matches_shipped(table):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch.testing._internal.common_methods_invocations")
    installed, shipped = torch.__version__, table.torch_version
    if installed != shipped and installed.split("+")[0] == shipped.split("+")[0]:
        # same release, another build (CUDA wheel): the CPU table is for the CPU build
        pytest.skip(f"table built with torch {shipped}, installed {installed}")
    # runs in a fresh interpreter so that no other test's global torch state leaks in
    proc = subprocess.run(
        [sys.executable, "-m", "fixinplace.tables", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_optable_does_not_import_torch():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ImportError('torch is blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from fixinplace.optable import OpTable, ArgFact\n"
        "t = OpTable.load()\n"
        "assert t.function('torch.exp').saves([ArgFact(True, True)], {})\n"
        "assert t.module('Linear').saves(True, True, True)\n"
        "assert 'torch' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_shipped_file_shape(table):
    raw = DATA_PATH.read_text()
    assert len(raw) < 5 * 1024 * 1024
    data = json.loads(raw)
    assert raw == json.dumps(data, indent=1, sort_keys=True) + "\n"  # canonical, so diffs are stable
    assert data["format"] == 4
    assert table.torch_version == data["torch_version"]
    stats = data["stats"]
    assert stats["ops"] > 500 and stats["methods"] > 250 and stats["modules"] > 100
    assert stats["opinfos_skipped"] == len(data["skipped"]["opinfos"])
    # every function/method points at a measured op
    for section in ("functions", "methods"):
        for name, ref in data[section].items():
            assert ref["op"] in data["ops"], (section, name)


def test_load_is_cached():
    assert OpTable.load() is OpTable.load()


# --------------------------------------------------------------------------------------------------
# What ops save (FACTS.md)


@pytest.mark.parametrize(
    "fn",
    ["torch.exp", "torch.sigmoid", "torch.tanh", "torch.relu", "torch.nn.functional.relu", "torch.sqrt",
     "torch.special.expit"],
)
def test_saves_output(table, fn):
    assert table.function(fn).saves([T], {}) == [Saved("output", True)]


def test_softmax_saves_output(table):
    assert table.function("torch.softmax").saves([T, S], {}) == [Saved("output", True)]
    assert table.function("torch.nn.functional.softmax").saves([T], {"dim": S}) == [Saved("output", True)]
    assert table.method("softmax").saves([T, S], {}) == [Saved("output", True)]


@pytest.mark.parametrize("fn", ["torch.log", "torch.sin"])
def test_saves_input(table, fn):
    assert table.function(fn).saves([T], {}) == [Saved("input:0", True)]


def test_pow_by_scalar_saves_input(table):
    assert table.function("torch.pow").saves([T, S], {}) == [Saved("input:0", True)]
    assert table.method("__pow__").saves([T, S], {}) == [Saved("input:0", True)]


def test_add_sub_and_mul_by_scalar_save_nothing(table):
    assert table.function("torch.add").saves([T, T], {}) == []
    assert table.function("torch.sub").saves([T, T], {}) == []
    assert table.method("__add__").saves([T, S], {}) == []
    assert table.method("__sub__").saves([T, T], {}) == []
    assert table.method("__mul__").saves([T, S], {}) == []
    assert table.method("__rmul__").saves([T, S], {}) == []  # 10 * x
    assert table.method("__truediv__").saves([T, S], {}) == []


def test_mul_saves_the_other_operand_per_requires_grad(table):
    mul = table.method("__mul__")
    assert mul.saves([T, N], {}) == [Saved("input:1", True)]
    assert mul.saves([N, T], {}) == [Saved("input:0", True)]
    assert mul.saves([T, T], {}) == [Saved("input:0", True), Saved("input:1", True)]
    assert mul.saves([N, N], {}) == []
    # unknown second operand (tensor or scalar, requires grad or not): possibly saved
    assert mul.saves([T, U], {}) == [Saved("input:0", False), Saved("input:1", False)]
    assert certain(table.function("torch.mul").saves([T, N], {})) == {"input:1"}


def test_einsum_of_several_operands_saves_them_and_of_one_saves_nothing(table):
    """How many tensors a sequence argument holds is measured per sample: `einsum("ij,jk->ik", [a, b])` keeps its
    operands (certainly), `einsum("i->", [a])` keeps nothing; a list of unknown length keeps them possibly."""
    torch = pytest.importorskip("torch")
    einsum = table.function("torch.einsum")
    assert einsum.saves([S, ArgFact(True, True, count=2)], {}) == [Saved("input:1", True)]
    assert einsum.saves([S, ArgFact(True, True, count=1)], {}) == []
    assert einsum.saves([S, T], {}) == [Saved("input:1", False)]
    # and torch agrees: writing an operand after the product breaks its backward, after the sum it does not
    a, b = torch.randn(2, 3, requires_grad=True), torch.randn(3, 4, requires_grad=True)
    x, y = a * 1, b * 1
    two = torch.einsum("ij,jk->ik", x, y)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        two.sum().backward()
    z = a * 1
    one = torch.einsum("ij->", z)
    z.add_(1)
    one.backward()


def test_linear_saves_input_only_if_weight_requires_grad(table):
    linear = table.function("torch.nn.functional.linear")
    assert linear.signature == ["input", "weight", "bias"]
    assert linear.saves([N, T], {}) == [Saved("input:0", True)]
    assert linear.saves([T, N], {}) == [Saved("input:1", True)]
    assert linear.saves([N, T, T], {}) == [Saved("input:0", True)]
    # keyword arguments come back under the caller's keyword
    assert linear.saves([T], {"weight": N}) == [Saved("input:weight", True)]
    assert linear.saves([N], {"weight": T}) == [Saved("input:0", True)]


def test_loss_and_indexing_save_only_index_or_mask(table):
    assert table.function("torch.nn.functional.cross_entropy").saves([T, N], {}) == [Saved("input:1", True)]
    assert table.function("torch.nn.functional.cross_entropy").saves([T], {"target": N}) == [
        Saved("input:target", True)]
    assert table.function("torch.index_select").saves([T, S, N], {}) == [Saved("input:2", True)]
    assert table.method("index_select").saves([T, S, N], {}) == [Saved("input:2", True)]
    assert table.function("torch.nn.functional.embedding").saves([N, T], {}) == [Saved("input:0", True)]
    assert table.function("torch.masked_fill").saves([T, N, S], {}) == [Saved("input:1", True)]
    assert table.method("masked_fill").saves([T, N, S], {}) == [Saved("input:1", True)]


def test_norms_save_bias_and_running_stats(table):
    ln = table.function("torch.nn.functional.layer_norm").saves([T, S, T, T], {})
    assert "input:3" in certain(ln)  # the bias
    bn = table.function("torch.nn.functional.batch_norm").saves([T, N, N, T, T], {"training": S})
    assert {"input:0", "input:1", "input:2"} <= certain(bn)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("form", ["positional", "keyword", "left out"])
def test_batch_norm_without_weight_and_bias_keeps_input_and_running_stats(table, training, form):
    """op_db's only weight-less batch_norm samples are empty tensors, which keep nothing: the table measures the
    weight and bias left None on real samples too (and leaves empty-tensor samples out)."""
    args = {"positional": [T, N, N, NONE_ARG, NONE_ARG], "keyword": [T, N, N], "left out": [T, N, N]}[form]
    kwargs = {"training": ArgFact(False, False, training)}
    if form == "keyword":
        kwargs |= {"weight": NONE_ARG, "bias": NONE_ARG}
    saved = table.function("torch.nn.functional.batch_norm").saves(args, kwargs)
    assert {"input:0", "input:1", "input:2"} <= certain(saved)


def test_norms_without_weight_keep_what_they_keep_with_it(table):
    ln = table.function("torch.nn.functional.layer_norm").saves([T, S, NONE_ARG, N], {})
    assert "input:3" in certain(ln)  # the bias
    gn = table.function("torch.nn.functional.group_norm").saves([T, S, N, NONE_ARG], {})
    assert "input:2" in certain(gn)  # the weight
    bn = table.function("torch.nn.functional.batch_norm").saves([T, N, N, N, NONE_ARG], {"training": S})
    assert {"input:0", "input:1", "input:2", "input:3"} <= certain(bn)


def test_ground_truth_batch_norm_without_weight_keeps_running_stats(table):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x = torch.randn(8, 3, dtype=torch.float64)
    for training in (True, False):
        for written in (1, 2):  # running_mean, running_var
            stats = [torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)]
            y = F.batch_norm(_leaf(x, True), *stats, None, None, training=training)
            stats[written - 1].add_(1)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
            saved = table.function("torch.nn.functional.batch_norm").saves(
                [T, N, N, NONE_ARG, NONE_ARG], {"training": ArgFact(False, False, training)})
            assert f"input:{written}" in certain(saved)


def test_unmatched_call_falls_back_to_uncertain_union(table):
    saved = table.method("__mul__").saves([T, T, T], {})  # no sample has three arguments
    assert saved and not any(s.certain for s in saved)
    assert "input:1" in items(saved)


def test_nothing_saved_when_nothing_requires_grad(table):
    assert table.function("torch.exp").saves([N], {}) == []
    assert table.function("torch.nn.functional.linear").saves([N, N, N], {}) == []


# --------------------------------------------------------------------------------------------------
# Names, views, signatures


@pytest.mark.parametrize(
    "name", ["exp", "__mul__", "__rmul__", "__pow__", "__rpow__", "__matmul__", "__neg__", "__truediv__",
             "__rtruediv__", "__getitem__", "__sub__", "__rsub__", "__add__", "__radd__"],
)
def test_methods_and_operators_are_findable(table, name):
    entry = table.method(name)
    assert entry is not None
    assert entry.differentiable


def test_view_and_alias_ops_share_the_version_counter(table):
    for name in ("view", "t", "transpose", "detach", "expand", "narrow"):
        assert table.method(name).view == "always", name
    assert table.function("torch.t").view == "always"
    assert table.function("torch.transpose").view == "always"
    assert table.function("torch.exp").view == "never"
    getitem = table.method("__getitem__")
    assert getitem.view == "sometimes"  # x[0:2] is a view, x[idx_tensor] a copy
    assert getitem.view_for([T, S], {}) in ("always", "sometimes")
    assert getitem.view_for([T, N], {}) == "never"
    assert not table.method("detach").differentiable


def test_function_signatures_and_inplace_params(table):
    relu = table.function("torch.nn.functional.relu")
    assert relu.inplace_param and relu.signature[:2] == ["input", "inplace"]
    assert not table.function("torch.exp").inplace_param
    assert table.function("torch.mul").signature == ["input", "other"]
    assert table.method("mul").signature == ["self", "other"]
    assert table.function("torch.no_such_thing") is None
    assert table.method("no_such_method") is None


# --------------------------------------------------------------------------------------------------
# In-place methods and functions


def test_inplace_methods(table):
    assert table.inplace_method("add_") == InplaceMethod("add_", True, "add")
    assert table.inplace_method("requires_grad_").data_write is False
    assert table.inplace_method("share_memory_").data_write is False
    for name in ("zero_", "copy_", "fill_", "clamp_", "masked_fill_", "index_add_", "__iadd__", "__imul__",
                 "__itruediv__", "__setitem__", "relu_", "sigmoid_"):
        assert table.inplace_method(name).data_write is True, name
    assert table.inplace_method("__iadd__").out_of_place == "__add__"
    assert table.inplace_method("exp") is None


def test_inplace_functions(table):
    fns = table.inplace_functions()
    assert fns["torch.nn.functional.relu"] == "relu_"
    assert fns["torch.nn.functional.hardtanh"].endswith("_")
    assert "torch.nn.functional.dropout" in fns


# --------------------------------------------------------------------------------------------------
# Modules


def test_module_relu(table):
    relu = table.module("ReLU")
    assert relu.inplace_param and relu.inplace_method == "relu_"
    assert relu.qualname == "torch.nn.ReLU"
    assert relu.saves(True, None, None) == [Saved("output", True)]
    assert relu.saves(False, None, None) == []
    assert table.module("torch.nn.ReLU") is relu


@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_saves_running_stats(table, training):
    bn = table.module("BatchNorm2d")
    assert bn.buffers[:2] == ["running_mean", "running_var"]
    assert bn.parameters == ["weight", "bias"]
    got = certain(bn.saves(True, True, training))
    assert {"buffer:running_mean", "buffer:running_var", "input", "param:weight"} <= got


def test_linear_module(table):
    lin = table.module("Linear")
    assert "param:weight" in certain(lin.saves(True, False, True))
    assert "param:weight" in certain(lin.saves(True, None, None))
    assert items(lin.saves(False, True, True)) == {"input"}
    assert not lin.inplace_param and lin.inplace_method is None


def test_modules_saving_output_are_the_ones_relu_inplace_breaks(table):
    # FACTS: nn.ReLU(inplace=True) raises after sigmoid/tanh/softmax/relu, not after these
    for name in ("Sigmoid", "Tanh", "Softmax", "ReLU"):
        assert "output" in certain(table.module(name).saves(True, True, True)), name
    for name in ("BatchNorm2d", "Conv2d", "Linear", "LayerNorm", "Dropout"):
        assert "output" not in items(table.module(name).saves(True, True, True)), name


def test_other_modules(table):
    assert "param:bias" in certain(table.module("LayerNorm").saves(True, True, True))
    assert table.module("Embedding").saves(False, True, True) == [Saved("input", True)]
    assert table.module("Dropout").inplace_param
    assert table.module("LSTM") is not None and "weight_ih_l0" in table.module("LSTM").parameters
    assert table.module("NoSuchModule") is None


# --------------------------------------------------------------------------------------------------
# Ground truth: write the tensor between forward and backward, see whether backward raises


def _raises_after_write(forward, tensors, write_index):
    torch = pytest.importorskip("torch")
    out = forward(*tensors)
    outs = out if isinstance(out, tuple) else (out,)
    target = outs[0] if write_index == "output" else tensors[write_index]
    with torch.no_grad():
        target.add_(0)  # values unchanged, version bumped
    try:
        sum(o.sum() for o in outs if o.requires_grad).backward()
    except RuntimeError as e:
        assert "modified by an inplace operation" in str(e)
        return True
    return False


def _leaf(t, rg):
    return t.detach().clone().requires_grad_(rg)


def test_ground_truth_matches_table(table):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    torch.manual_seed(0)
    x = torch.randn(4, 3, dtype=torch.float64)
    w = torch.randn(5, 3, dtype=torch.float64)
    c0 = torch.tensor(2.0, dtype=torch.float64)
    idx = torch.tensor([0, 2])
    tgt = torch.tensor([0, 1, 2, 1])

    # (table verdict, ground truth) pairs
    cases = {
        "exp saves output": (
            "output" in items(table.function("torch.exp").saves([T], {})),
            _raises_after_write(torch.exp, [_leaf(x, True)], "output")),
        "exp does not save input": (
            "input:0" in items(table.function("torch.exp").saves([T], {})),
            _raises_after_write(torch.exp, [_leaf(x, True)], 0)),
        "x*c (0-dim c, both require grad) saves c": (
            "input:1" in certain(table.method("__mul__").saves([T, T], {})),
            _raises_after_write(lambda a, b: a * b, [_leaf(x, True), _leaf(c0, True)], 1)),
        "x*c (only c requires grad) does not save c": (
            "input:1" in items(table.method("__mul__").saves([N, T], {})),
            _raises_after_write(lambda a, b: a * b, [_leaf(x, False), _leaf(c0, True)], 1)),
        "10*x saves nothing": (
            bool(table.method("__rmul__").saves([T, S], {})),
            _raises_after_write(lambda a: 10 * a, [_leaf(x, True)], 0)),
        "linear saves its input when only the weight requires grad": (
            "input:0" in certain(table.function("torch.nn.functional.linear").saves([N, T], {})),
            _raises_after_write(F.linear, [_leaf(x, False), _leaf(w, True)], 0)),
        "linear does not save the weight then": (
            "input:1" in items(table.function("torch.nn.functional.linear").saves([N, T], {})),
            _raises_after_write(F.linear, [_leaf(x, False), _leaf(w, True)], 1)),
        "cross_entropy saves the target": (
            "input:1" in certain(table.function("torch.nn.functional.cross_entropy").saves([T, N], {})),
            _raises_after_write(F.cross_entropy, [_leaf(x, True), tgt.clone()], 1)),
        "cross_entropy does not save the input": (
            "input:0" in items(table.function("torch.nn.functional.cross_entropy").saves([T, N], {})),
            _raises_after_write(F.cross_entropy, [_leaf(x, True), tgt.clone()], 0)),
        "index_select saves the index": (
            "input:2" in certain(table.function("torch.index_select").saves([T, S, N], {})),
            _raises_after_write(lambda a, i: torch.index_select(a, 0, i), [_leaf(x, True), idx.clone()], 1)),
        "layer_norm saves its bias": (
            "input:3" in certain(table.function("torch.nn.functional.layer_norm").saves([T, S, T, T], {})),
            _raises_after_write(lambda a, g, b: F.layer_norm(a, (3,), g, b),
                                [_leaf(x, True), _leaf(torch.ones(3, dtype=torch.float64), True),
                                 _leaf(torch.zeros(3, dtype=torch.float64), True)], 2)),
    }
    disagree = {k: v for k, v in cases.items() if v[0] != v[1]}
    assert not disagree, disagree


@pytest.mark.parametrize("training", [True, False])
def test_ground_truth_batchnorm_running_stats(table, training):
    torch = pytest.importorskip("torch")
    bn = torch.nn.BatchNorm2d(3).double().train(training)
    x = torch.randn(2, 3, 4, 4, dtype=torch.float64, requires_grad=True)
    out = bn(x)
    with torch.no_grad():
        bn.running_mean.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    assert "buffer:running_mean" in certain(table.module("BatchNorm2d").saves(True, True, training))


def test_ground_truth_views(table):
    torch = pytest.importorskip("torch")
    x = torch.randn(4, 3)
    probes = {"view": lambda t: t.view(12), "t": lambda t: t.t(), "transpose": lambda t: t.transpose(0, 1),
              "detach": lambda t: t.detach(), "__getitem__": lambda t: t[1:3]}
    for name, f in probes.items():
        y = f(x)
        before = x._version
        y.add_(1)  # a write through the result bumps the input's counter iff they share it
        assert x._version != before, name
        assert table.method(name).view in ("always", "sometimes"), name
    y = x.data  # .data does not share the counter
    before = x._version
    y.add_(1)
    assert x._version == before


# --------------------------------------------------------------------------------------------------
# Matching calls to samples: extra arguments, keywords from the ATen schemas, bool literals, outputs


def B(value):
    """A Python literal the caller wrote (True/False)."""
    return ArgFact(False, False, value)


def test_argfact_two_fields_still_work():
    assert ArgFact(True, True).value is None
    assert ArgFact(True, True) == T


def test_extra_caller_argument_does_not_match_a_sample_without_it(table):
    # h.max(1) saves the indices only; the max(h) sample (input and output) must not join in
    assert table.method("max").saves([T, S], {}) == [Saved("output:1", True)]
    assert table.method("max").saves([T], {}) == [Saved("input:0", True), Saved("output", True)]
    assert table.function("torch.max").saves([T, S], {}) == [Saved("output:1", True)]
    for name, args in [("min", [T, S]), ("median", [T, S]), ("kthvalue", [T, S, S]), ("mode", [T, S]),
                       ("sort", [T]), ("sort", [T, S]), ("topk", [T, S]), ("topk", [T, S, S])]:
        assert table.method(name).saves(args, {}) == [Saved("output:1", True)], (name, args)
    assert "output:1" in certain(table.method("cummax").saves([T, S], {}))


@pytest.mark.parametrize(
    "name, args, kw",
    [("max", [T], {"dim": S}), ("min", [T], {"dim": S}), ("sort", [T], {"dim": S}),
     ("topk", [T, S], {"dim": S}), ("topk", [T], {"k": S}), ("softmax", [T], {"dim": S}),
     ("log_softmax", [T], {"dim": S}), ("sum", [T], {"dim": S}), ("mean", [T], {"dim": S}),
     ("cumsum", [T], {"dim": S}), ("cumprod", [T], {"dim": S}), ("median", [T], {"dim": S}),
     ("kthvalue", [T, S], {"dim": S}), ("cummax", [T], {"dim": S}), ("amax", [T], {"dim": S}),
     ("logsumexp", [T], {"dim": S}), ("argmax", [T], {"dim": S})],
)
def test_keyword_arguments_of_builtins_map_to_positions(table, name, args, kw):
    positional = args + list(kw.values())
    for entry in (table.method(name), table.function("torch." + name)):
        assert entry is not None, name
        assert entry.keywords.get("dim", entry.keywords.get("k")) is not None, (name, entry.keywords)
        assert entry.matching_variants(args, kw), (name, kw)
        assert entry.saves(args, kw) == entry.saves(positional, {}), (name, kw)
        assert entry.outputs_for(args, kw) == entry.outputs_for(positional, {}), (name, kw)


def test_keyword_maps_come_from_schemas_and_signatures(table):
    assert table.method("max").keywords["dim"] == 1 and table.method("max").keywords["keepdim"] == 2
    assert table.method("max").keywords["self"] == 0
    assert table.function("torch.sort").keywords["input"] == 0  # function form: ATen's self is input
    assert table.function("torch.sort").keywords["descending"] == 2
    assert "stable" not in table.function("torch.sort").keywords  # keyword-only in its overload
    assert table.function("torch.nn.functional.dropout").keywords["training"] == 2
    assert table.function("torch.nn.functional.max_pool2d").keywords["return_indices"] == 6
    stats = table.stats
    assert stats["keyword_maps_schema"] > 500 and stats["keyword_maps_inspect"] > 100


def test_sort_keyword_call(table):
    sort = table.function("torch.sort")
    assert sort.saves([T], {"dim": S, "descending": B(True)}) == [Saved("output:1", True)]
    assert sort.saves([T], {"dim": S, "descending": B(True)}) == sort.saves([T, S, B(True)], {})
    assert sort.outputs_for([T], {"dim": S, "descending": B(True)}) == 2


DROPOUTS = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"]


@pytest.mark.parametrize("name", DROPOUTS)
def test_dropout_training_literal_decides_the_alias(table, name):
    f = table.function("torch.nn.functional." + name)
    assert f.view_for([T, S], {"training": B(False)}) == "always"
    assert f.view_for([T, S, B(False)], {}) == "always"  # by position
    # training=True: a new tensor, except that p=0 returns the input itself (measured on op_db's
    # p=0.0 samples where there are some)
    assert f.view_for([T, S], {"training": B(True)}) in ("never", "sometimes")
    assert f.view_for([T, S], {"training": S}) == "sometimes"  # value unknown
    assert f.saves([T, S], {"training": B(False)}) == []


@pytest.mark.parametrize("name", DROPOUTS)
def test_ground_truth_dropout_alias(name):
    torch = pytest.importorskip("torch")
    fn = getattr(torch.nn.functional, name)
    shape = (2, 3, 4) if name == "dropout1d" else (2, 3, 4, 5)
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)

    def shares(p, training):
        return _shares_counter(x, fn(x, p, training=training))

    assert shares(0.5, False)
    assert not shares(0.5, True)


def _shares_counter(a, b):
    torch = pytest.importorskip("torch")
    old = a._version
    torch._C._autograd._unsafe_set_version_counter((a,), (old + 12345,))
    try:
        return b._version == old + 12345
    finally:
        torch._C._autograd._unsafe_set_version_counter((a,), (old,))


def test_ground_truth_dropout_p0_training_returns_input(table):
    torch = pytest.importorskip("torch")
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert _shares_counter(x, torch.nn.functional.dropout(x, 0.0, True))
    assert table.function("torch.nn.functional.dropout").view_for([T, S], {"training": B(True)}) == "sometimes"


def test_outputs_for(table):
    assert table.method("max").outputs_for([T, S], {}) == 2
    assert table.method("max").outputs_for([T], {"dim": S}) == 2
    assert table.method("max").outputs_for([T], {}) == 1
    assert table.method("max").outputs_for([T, T], {}) == 1  # max(a, b)
    assert table.method("min").outputs_for([T, S], {}) == 2
    assert table.method("sort").outputs_for([T], {}) == 2
    assert table.method("topk").outputs_for([T, S], {}) == 2
    assert table.method("exp").outputs_for([T], {}) == 1
    mp = table.function("torch.nn.functional.max_pool2d")
    assert mp.outputs_for([T, S], {}) == 1
    assert mp.outputs_for([T, S], {"return_indices": B(True)}) == 2
    # split/chunk: the count measured on the matching samples, flagged as argument-dependent
    assert table.method("chunk").outputs_vary_for([T, S], {})
    assert table.method("split").outputs_for([T, S], {}) >= 1
    assert not table.method("max").outputs_vary_for([T, S], {})


def test_unmatched_extra_python_values_fall_back_to_samples_without_them(table):
    # F.dropout1d has simple tries only (x alone, and training=False): an added p is ignored, uncertain
    f = table.function("torch.nn.functional.dropout1d")
    assert f.view_for([T, S], {"training": B(False)}) == "always"
    assert f.view_for([T, S], {"training": B(True)}) == "never"
    # an added tensor never matches a sample without it
    assert not table.method("exp").matching_variants([T, T], {})


def test_ground_truth_max_sort_topk():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    h0 = torch.randn(4, 5, dtype=torch.float64)
    cases = {
        "h.max(1) values": (lambda h: h.max(1), "output", False),
        "h.max(1) input": (lambda h: h.max(1), 0, False),
        "h.max(dim=1) input": (lambda h: h.max(dim=1), 0, False),
        "h.max() input": (lambda h: h.max(), 0, True),
        "h.max() output": (lambda h: h.max(), "output", True),
        "h.sort() values": (lambda h: h.sort(), "output", False),
        "torch.sort(h, dim=1, descending=True) values": (
            lambda h: torch.sort(h, dim=1, descending=True), "output", False),
        "h.topk(2) values": (lambda h: h.topk(2), "output", False),
        "h.topk(2) input": (lambda h: h.topk(2), 0, False),
    }
    for label, (fwd, target, raises) in cases.items():
        got = _raises_after_write(lambda a, fwd=fwd: tuple(fwd(a)) if not isinstance(fwd(a), torch.Tensor)
                                  else fwd(a), [_leaf(h0, True)], target)
        assert got == raises, label
    assert len(h0.max(1)) == 2 and len(h0.sort()) == 2 and len(h0.topk(2)) == 2
    assert len(torch.nn.functional.max_pool2d(h0[None, None], 2, return_indices=True)) == 2


def test_library_writes_are_measured(table):
    """`F.embedding(..., max_norm=1.0)` renormalises its weight in place (a version bump torch makes), without it
    nothing is written; a number literal is known not to be None."""
    from fixinplace.optable import NONE, NOT_NONE, Written

    emb = table.function("torch.nn.functional.embedding")
    assert emb.may_write
    number = ArgFact(False, False, NOT_NONE)
    assert emb.writes([N, T], {"max_norm": number}) == [Written("input:1", True)]
    assert emb.writes([], {"input": N, "weight": T, "max_norm": number}) == [Written("input:weight", True)]
    assert not any(w.certain for w in emb.writes([N, T], {"max_norm": ArgFact(False, False, NONE)}))
    assert not any(w.certain for w in emb.writes([N, T], {}))  # max_norm left out: its default, None
    assert table.function("torch.exp").writes([T], {}) == []
    assert not table.function("torch.exp").may_write


def test_module_delegate_is_measured(table):
    """`nn.Embedding`'s forward calls `F.embedding` with its weight and its constructor's arguments."""
    emb = table.module("Embedding")
    assert emb.delegate == "torch.nn.functional.embedding"
    assert emb.delegate_arguments["weight"] == "param:weight"
    assert emb.delegate_arguments["max_norm"] == "ctor:max_norm"
    assert emb.constructor[:4] == ["num_embeddings", "embedding_dim", "padding_idx", "max_norm"]


def test_ground_truth_embedding_max_norm_bumps_the_weight_version():
    torch = pytest.importorskip("torch")
    emb = torch.nn.Embedding(6, 3, max_norm=0.5)
    before = emb.weight._version
    emb(torch.tensor([0, 1]))
    assert emb.weight._version > before
    plain = torch.nn.Embedding(6, 3)
    before = plain.weight._version
    plain(torch.tensor([0, 1]))
    assert plain.weight._version == before


def test_saves_prefer_samples_passing_the_same_arguments(table):
    """`x.norm()` runs with the default `p` (it keeps its input and output), not with a sample's `p=0`."""
    assert certain(table.method("norm").saves([T], {})) == {"input:0", "output"}


def test_inplace_variants_that_keep_what_they_wrote(table):
    """Measured: `leaky_relu_`, `relu_`, `elu_` keep their result for the backward (a second in-place write breaks
    them); `silu_`, `hardtanh_`, `dropout_` do not."""
    for name in ("leaky_relu", "relu", "elu"):
        assert table.inplace_saves_written(f"torch.nn.functional.{name}"), name
    for name in ("silu", "hardtanh", "dropout"):
        assert not table.inplace_saves_written(f"torch.nn.functional.{name}"), name
    assert table.module("LeakyReLU").inplace_saves_written
    assert not table.module("SiLU").inplace_saves_written
