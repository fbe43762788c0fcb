"""Models whose structure is computed: layer classes named by strings (`getattr(nn, "Conv{}d".format(dims))`,
f-strings, `%`), layers registered and fetched by computed names (`add_module("gcl_%d" % i, ...)`,
`self._modules[...]`, `setattr`), subclasses of torch layers, containers holding layers the analysis does not
know, and values that are one tensor on one branch arm and another on the other.

Each program's `main()` is run under torch (one child for all): the hazardous ones raise the autograd error
("modified by an inplace operation", or the leaf error), the safe ones run; `check` agrees (an error, or no
error or warning)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
from labels import LEAF_ERROR, raises_inplace_error

HEADER = "import torch\nimport torch.nn as nn\n\n\n"

_BLOCK = """
    def block(dimensions, activation="ReLU", normalization="batch"):
        conv = getattr(nn, {conv})(3, 3, 1)
        norm = getattr(nn, "{{}}Norm{{}}d".format(normalization.capitalize(), dimensions))(3)
        return nn.Sequential(conv, norm, getattr(nn, activation)())


    def main():
        x = block(2)(torch.randn(2, 3, 4, 4))
        x += 1
        x.sum().backward()
"""

_LAYERS = """
    class Layer(nn.Module):
        def forward(self, h, coord):
            coord += h
            return h, coord


    class Net(nn.Module):
        def __init__(self, n_layers=2):
            super().__init__()
            self.n_layers = n_layers
            for i in range(n_layers):
                {register}

        def forward(self, h, x):
            for i in range(self.n_layers):
                h, x = {fetch}(h, x)
            return h, x


    def main():
        x = torch.randn(3).requires_grad_(True)
        h, out = Net()(torch.randn(3), x)
        out.sum().backward()
"""

# name -> (program defining main(), what main() raises: "saved" (modified by an inplace operation), "leaf" (the
# leaf error) or None)
PROGRAMS = {
    "layer_named_by_format": (_BLOCK.format(conv='"Conv{}d".format(dimensions)'), "saved"),
    "layer_named_by_fstring": (_BLOCK.format(conv='f"Conv{dimensions}d"'), "saved"),
    "layer_named_by_percent": (_BLOCK.format(conv='"Conv%dd" % dimensions'), "saved"),
    "modules_by_computed_name": (_LAYERS.format(register='self.add_module("gcl_%d" % i, Layer())',
                                                fetch='self._modules["gcl_%d" % i]'), "leaf"),
    "setattr_by_computed_name": (_LAYERS.format(register='setattr(self, f"gcl_{i}", Layer())',
                                                fetch='getattr(self, f"gcl_{i}")'), "leaf"),
    # Layers of one kind in a list grown to a length the file does not know, applied by an index it does not
    # know either: whichever one runs, a LayerNorm keeps its input, which the mask then writes (FedDCSR).
    "homogeneous_layers_by_unknown_index": ("""
        class Encoder(nn.Module):
            def __init__(self, width, blocks):
                super().__init__()
                self.norms = nn.ModuleList()
                for _ in range(blocks):
                    self.norms.append(nn.LayerNorm(width))

            def forward(self, x, mask):
                for i in range(len(self.norms)):
                    h = self.norms[i](x)
                    x *= mask
                    x = x + h
                return x


        def main():
            blocks = int(torch.randint(2, 4, ()).item())  # decided when it runs
            encoder = Encoder(4, blocks)
            encoder(torch.randn(2, 4) * 1.0, torch.ones(2, 4)).sum().backward()
    """, "saved"),
    # A subclass of a torch layer: `super().__init__` builds the layer, `super().forward` applies it (Glow's
    # coupling convolutions save `z1`, a view of the `z` that `z2 += shift` writes).
    "subclass_of_a_layer": ("""
        class Conv2d(nn.Conv2d):
            def __init__(self, cin, cout):
                super().__init__(cin, cout, 3, 1, 1)
                self.weight.data.normal_(mean=0.0, std=0.05)

            def forward(self, x):
                return super().forward(x)


        def main():
            z = torch.randn(2, 4, 4, 4, requires_grad=True) * 1
            z1, z2 = z[:, :2], z[:, 2:]
            z2 += Conv2d(2, 2)(z1)
            z2.sum().backward()
    """, "saved"),
    # A layer built from a config dict that is copied on the way (`dict(cfg)`, `cfg.copy()`) and read by computed
    # keys (`cfg.pop(key)`, `cfg.get(key)`): mmcv's `build_activation_layer` choosing a ReLU by name.
    "layer_from_a_copied_config": ("""
        def build_activation_layer(cfg):
            cfg = dict(cfg)
            key = "type"
            layer_type = cfg.pop(key)
            return {"ReLU": nn.ReLU, "Tanh": nn.Tanh, "LeakyReLU": nn.LeakyReLU}[layer_type](**cfg)


        def main():
            act_cfg = dict(type="ReLU")
            options = act_cfg.copy()
            options.setdefault("inplace", False)
            act = build_activation_layer(options)
            h = act(torch.randn(3, requires_grad=True) * 2)
            h += options.get("bias", 1.0)
            h.sum().backward()
    """, "saved"),
    "layer_from_a_copied_config_safe": ("""
        def build_activation_layer(cfg):
            cfg = dict(cfg)
            layer_type = cfg.pop("type")
            return {"ReLU": nn.ReLU, "Identity": nn.Identity}[layer_type](**cfg)


        def main():
            act = build_activation_layer(dict(type="Identity"))
            h = act(torch.randn(3, requires_grad=True) * 2)
            h += 1
            h.sum().backward()
    """, None),
    # `nn.ModuleDict`: layers fetched by attribute (nanoGPT's `self.transformer.wte`), by a computed key, and by
    # iterating its items; the block's `x += ...` writes what its LayerNorm saved.
    "module_dict": ("""
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln = nn.LayerNorm(4)
                self.proj = nn.Linear(4, 4)

            def forward(self, x):
                x += self.proj(self.ln(x))
                return x


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(10, 4), h=nn.ModuleList([Block()])))
                self.heads = nn.ModuleDict([("cls", nn.Linear(4, 2))])
                self.heads["aux"] = nn.Linear(4, 1)

            def forward(self, idx):
                x = self.transformer.wte(idx) + 1
                for block in self.transformer["h"]:
                    x = block(x)
                return sum(head(x).sum() for name, head in self.heads.items())


        def main():
            Net()(torch.randint(0, 10, (2, 3))).backward()
    """, "saved"),
    "module_dict_safe": ("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleDict({"lin": nn.Linear(4, 4), "act": nn.Tanh()})
                self.layers.update({"act": nn.Identity()})

            def forward(self, x):
                h = self.layers.act(self.layers["lin"](x))
                h += 1
                return h


        def main():
            Net()(torch.randn(2, 4)).sum().backward()
    """, None),
    # `nn.ParameterList` / `nn.ParameterDict` hold parameters (a plain tensor given to them becomes one): writing
    # one in place in grad mode is the leaf error.
    "parameter_list": ("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.ws = nn.ParameterList([torch.randn(4) for _ in range(2)])
                self.ws.append(nn.Parameter(torch.ones(4)))

            def forward(self, x):
                for w in self.ws:
                    x = x * w
                return x


        def main():
            net = Net()
            out = net(torch.randn(4))
            net.ws[-1].add_(1)
            out.sum().backward()
    """, "leaf"),
    "parameter_dict": ("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.pd = nn.ParameterDict({"scale": nn.Parameter(torch.ones(4))})
                self.pd["shift"] = nn.Parameter(torch.zeros(4))

            def forward(self, x):
                return x * self.pd["scale"] + self.pd.shift


        def main():
            net = Net()
            out = net(torch.randn(4))
            for name, p in net.pd.items():
                p.mul_(2)
            out.sum().backward()
    """, "leaf"),
    "parameter_dict_safe": ("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.pd = nn.ParameterDict({"scale": nn.Parameter(torch.ones(4))})

            def forward(self, x):
                return x * self.pd["scale"]


        def main():
            net = Net()
            net(torch.randn(4)).sum().backward()
            with torch.no_grad():
                net.pd["scale"].mul_(2)
    """, None),
    # Layers cloned with `copy.deepcopy` (DETR's `_get_clones`) have parameters of their own, and run as the layer
    # they copy; `len()` of a container gives its layers by index; `functools.partial` builds a layer class with
    # some arguments given (timm's `act_layer=partial(nn.ReLU, inplace=...)`).
    "deepcopy_clones": ("""
        import copy


        class Layer(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)
                self.act = nn.ReLU()

            def forward(self, x):
                h = self.act(self.lin(x))
                h += 1
                return h


        def main():
            layers = nn.ModuleList([copy.deepcopy(Layer()) for _ in range(2)])
            x = torch.randn(2, 4)
            for i in range(len(layers)):
                x = layers[i](x)
            x.sum().backward()
    """, "saved"),
    "deepcopy_clones_own_parameters": ("""
        import copy


        def main():
            base = nn.Linear(4, 4)
            first, second = copy.deepcopy(base), copy.deepcopy(base)
            opt = torch.optim.SGD(first.parameters(), lr=0.1)
            x = torch.randn(2, 4)
            loss = second(x).sum()
            first(x).sum().backward()
            opt.step()
            loss.backward()
    """, None),
    "partial_layer_class": ("""
        from functools import partial


        class Layer(nn.Module):
            def __init__(self, act_layer=nn.Tanh):
                super().__init__()
                self.lin = nn.Linear(4, 4)
                self.act = act_layer()

            def forward(self, x):
                return self.act(self.lin(x)) + 1


        def main():
            layer = Layer(act_layer=partial(nn.ReLU, inplace=True))
            h = layer.lin(torch.randn(2, 4))
            h.exp_()
            layer.act(h).sum().backward()
    """, "saved"),
    # A backward of what a call returns, written in one expression: the function builds that graph itself, so it
    # runs in grad mode (as `out = helper(w); out.sum().backward()` does).
    "backward_of_a_call_result": ("""
        def helper(x):
            h = torch.relu(x * 2)
            h += 1
            return h


        def main():
            w = torch.randn(4, requires_grad=True)
            helper(w).sum().backward()
    """, "saved"),
    # A `SimpleNamespace` holds the tensors it is given: the leaf written in place is the one it was built with.
    "simple_namespace": ("""
        def main():
            from types import SimpleNamespace

            params = SimpleNamespace(weight=torch.ones(3), scale=2.0)
            params.weight.requires_grad = True
            params.weight.mul_(params.scale)
    """, "leaf"),
    # A layer the analysis does not know stays in its place in the container: its output is not its input.
    "sequential_of_an_unknown_layer": ("""
        def main():
            import copy

            layers = nn.ModuleList()
            layers.append(copy.deepcopy(nn.Linear(3, 3)))  # a layer the analysis does not follow
            x = torch.randn(3, requires_grad=True)
            y = nn.Sequential(*layers)(x)
            y += 1  # the Linear's output: nothing saved it (and it is not the leaf `x`)
            y.sum().backward()
    """, None),
    # The conv output is what the ReLU writes only when there is no BatchNorm, and BatchNorm saves it only when
    # there is one: the two never meet.
    "arms_never_meet": ("""
        class Backbone(nn.Module):
            def __init__(self, use_bn):
                super().__init__()
                self.use_bn = use_bn
                self.conv = nn.Conv2d(3, 3, 1)
                self.bn = nn.BatchNorm2d(3)
                self.relu = nn.ReLU(inplace=True)

            def forward(self, x):
                x = self.conv(x)
                if self.use_bn:
                    x = self.bn(x)
                return self.relu(x)


        def main():
            use_bn = torch.rand(1).item() < 0.5  # decided when it runs
            Backbone(use_bn)(torch.randn(2, 3, 4, 4)).sum().backward()
            Backbone(not use_bn)(torch.randn(2, 3, 4, 4)).sum().backward()
    """, None),
}


def _program(name: str) -> str:
    return HEADER + textwrap.dedent(PROGRAMS[name][0]).strip("\n") + '\n\n\nif __name__ == "__main__":\n    main()\n'


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    """The programs' folder and what each one's `main()` raises (one child per error message)."""
    folder = tmp_path_factory.mktemp("dynamic")
    for name in PROGRAMS:
        (folder / f"{name}.py").write_text(_program(name), encoding="utf-8")
    leaf = {name for name, (_, label) in PROGRAMS.items() if label == "leaf"}
    saved = raises_inplace_error(folder, {n: (f"{n}.py", "main()") for n in PROGRAMS if n not in leaf})
    leaves = raises_inplace_error(folder, {n: (f"{n}.py", "main()") for n in leaf}, LEAF_ERROR)
    return folder, {**{n: "saved" if r else None for n, r in saved.items()},
                    **{n: "leaf" if r else None for n, r in leaves.items()}}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dynamic_structure(name: str, measured: tuple[Path, dict]) -> None:
    folder, raises = measured
    assert raises[name] == PROGRAMS[name][1], f"{name}: the label is not what torch does"
    proc = cli("check", "--no-cache", "--format", "json", f"{name}.py", cwd=folder)
    found = [(d["code"], d["severity"]) for d in json.loads(proc.stdout)["diagnostics"]
             if d["severity"] in ("error", "warning")]
    expected = {"saved": [("FIP101", "error")], "leaf": [("FIP102", "error")], None: []}[raises[name]]
    assert found == expected, found
