"""FIP105 shared-array-mutated: an in-place write to a tensor that shares a NumPy array's memory, where the
array is read again."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import ArrayWritten
from fixinplace.diagnostics import Severity
from fixinplace.facts import WriteFacts
from fixinplace.rules.base import Finding, Repairs, Rule


@dataclass(frozen=True)
class SharedArrayMutated(Rule):
    event = ArrayWritten

    def finding(self, event: ArrayWritten) -> Finding:
        source = event.source
        made = f"`{source.call}` at line {source.line}" if source.span else f"`{source.call}`"
        reader = {
            "read_after": f"`{source.root}` is read again afterwards and gets the written values",
            "argument": f"`{source.root}` is an argument: the caller's array is changed",
            "outlives": f"`{source.root}` outlives this call: every later reader of it gets the written values",
        }[event.reader]
        message = (f"in-place write to `{event.label}` also writes the NumPy array `{source.label}`, whose memory it "
                   f"shares ({made}); autograd does not see it and nothing raises, but {reader}")
        if source.doubt:
            message += f" ({source.doubt})"
        message += ". Write a copy (`.clone()` where the tensor is made), or write out of place"
        return Finding(Severity.ERROR if event.certain else Severity.WARNING, message, subject=event.label)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.array(facts) + repairs.recompute_forward(facts)


RULE = SharedArrayMutated(
    code="FIP105",
    name="shared-array-mutated",
    severity=Severity.ERROR,
    found_in=(
        "`torch.from_numpy(a)` / `as_tensor(a)` of an array make a group that records the array "
        "(`Group.array_source`, `CallHandler.array_tensor` in calls/arrays.py); `record_write` on such a "
        "group asks `array_written` whether the array is read afterwards (`liveness.read_after`) or outlives "
        "the function"
    ),
    severity_when=(
        "`error` when the call surely shares the memory and the array's local or argument is read again in "
        "the function that made the tensor; `warning` for an attribute, a global, the caller's argument, or a "
        "call that may copy"
    ),
    summary="In-place write to a tensor that shares a NumPy array's memory, and the array is read again",
    explanation=(
        "`torch.from_numpy(a)` (and `torch.as_tensor(a)` / `torch.asarray(a)` of an array, with no other dtype or "
        "device asked for) makes a tensor that shares `a`'s memory. Writing that tensor in place writes `a`: "
        "autograd does not see it and nothing raises, but every later reader of `a` gets the written values (a "
        "dataset normalised again on each epoch, a replay buffer divided by 255 twice). An error when the array's "
        "variable is read again after the write in the function that made the tensor; a warning when the array "
        "outlives the function (an attribute, a global, the caller's argument), when the argument may be a list "
        "(`as_tensor` copies one), or when an index may have copied it (`a[idx]` with an index array). "
        "`torch.tensor(a)`, `torch.from_numpy(a.copy())` and out-of-place writes leave `a` alone."
    ),
    flagged=(
        "import numpy as np\n"
        "import torch\n"
        "frames = np.full((2, 3), 255.0, dtype=np.float32)\n"
        "for epoch in range(2):\n"
        "    x = torch.from_numpy(frames)\n"
        "    x /= 255.0  # expect: FIP105\n",
        "import numpy as np\n"
        "import torch\n"
        "a = np.zeros(3)\n"
        "t = torch.as_tensor(a)\n"
        "t.add_(1)  # expect: FIP105\n"
        "print(a.sum())\n",
    ),
    clean=(
        "import numpy as np\n"
        "import torch\n"
        "frames = np.full((2, 3), 255.0, dtype=np.float32)\n"
        "for epoch in range(2):\n"
        "    x = torch.from_numpy(frames.copy())  # a copy: writing it leaves frames alone\n"
        "    x /= 255.0\n",
        "import numpy as np\n"
        "import torch\n"
        "a = np.zeros(3)\n"
        "t = torch.from_numpy(a)\n"
        "t.add_(1)  # nothing reads `a` again\n"
        "print(t.sum())\n",
    ),
)
