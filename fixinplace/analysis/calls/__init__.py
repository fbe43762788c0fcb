"""What calls, operators, indexing and in-place writes do to abstract tensors (the op semantics).

`CallHandler` is composed of one mixin per thing it models, each in its own module:

- `ops`: tensor ops and the saved-tensor table (saves, writes, `backward()`, operators, `x op= y`);
- `sites`: write sites and the facts the fix stage plans from;
- `aliases`: `.data`, `.numpy()`, `.grad` and the view attributes;
- `arrays`: tensors sharing a NumPy array's memory (`torch.from_numpy`) and writes to them;
- `tensor_methods`: methods called on a tensor;
- `indexing`: reading and writing `x[i]`;
- `modules`: `torch.nn` modules, file-defined classes and `super()`;
- `optimizers`: optimizer construction, `step()` and `zero_grad()`;
- `frameworks`: AMP's GradScaler, Accelerate's Accelerator and Lightning's LightningModule;
- `distributions`: `torch.distributions` objects and what their methods return;
- `autograd_functions`: `apply` of a file-defined `torch.autograd.Function` and its `ctx`;
- `configuration`: `argparse` parsers and what `parse_args()` returns;
- `python_builtins`: Python builtins and dict methods;
- `dispatch`: call expressions, dispatch on the callee, attributes;
- `inlining`: inlining file-defined functions;
- `common`: what several of them share.
"""

from __future__ import annotations

import ast

from fixinplace.analysis.values import Save, Site, Value

from fixinplace.analysis.calls.common import OpTable
from fixinplace.analysis.frame import Evaluator
from fixinplace.analysis.calls.sites import SitesMixin
from fixinplace.analysis.calls.ops import TensorOpsMixin
from fixinplace.analysis.calls.aliases import AliasesMixin
from fixinplace.analysis.calls.arrays import ArraysMixin
from fixinplace.analysis.calls.tensor_methods import TensorMethodsMixin
from fixinplace.analysis.calls.indexing import IndexingMixin
from fixinplace.analysis.calls.modules import ModulesMixin
from fixinplace.analysis.calls.optimizers import OptimizersMixin
from fixinplace.analysis.calls.frameworks import FrameworksMixin
from fixinplace.analysis.calls.distributions import DistributionsMixin
from fixinplace.analysis.calls.autograd_functions import AutogradFunctionsMixin
from fixinplace.analysis.calls.configuration import ConfigurationMixin
from fixinplace.analysis.calls.python_builtins import BuiltinsMixin
from fixinplace.analysis.calls.dispatch import DispatchMixin
from fixinplace.analysis.calls.inlining import InliningMixin


class CallHandler(
    SitesMixin,
    TensorOpsMixin,
    AliasesMixin,
    ArraysMixin,
    TensorMethodsMixin,
    IndexingMixin,
    ModulesMixin,
    OptimizersMixin,
    FrameworksMixin,
    DistributionsMixin,
    AutogradFunctionsMixin,
    ConfigurationMixin,
    BuiltinsMixin,
    DispatchMixin,
    InliningMixin,
):
    """The op semantics; shares the interpreter's state."""

    def __init__(self, interp: Evaluator) -> None:
        self.interp = interp
        self.table = OpTable.load() if OpTable is not None else None
        self.consumed: set[Save] = set()  # the saves themselves: an id can be reused once one is freed
        self.write_sites: dict[int, Site] = {}
        self._sites: dict[tuple, Site] = {}
        self._known_spreads: set[int] = set()  # ids of the calls being run whose `*`/`**` arguments are known
        self._intermediates: set[int] = set()  # ids of the values passed between the modules of a Sequential
        self.wrapped_modules: dict[int, Value] = {}  # the models given to DDP / DataParallel / FSDP, by id

    @property
    def report(self):
        return self.interp.report

    def text(self, node: ast.AST) -> str:
        return self.interp.text(node)
