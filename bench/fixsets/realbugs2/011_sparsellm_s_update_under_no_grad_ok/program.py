"""SparseLLM (BaiTheBest/SparseLLM, issue #13): the reporter got a leaf-in-place error on
`s_batch -= s_learning_rate * s_batch.grad`; in the repository that update runs inside a
@torch.no_grad() pruning function (only the loss is built under torch.enable_grad()), as
do the weight.copy_() and pruning writes on Parameters, so the code is safe as written."""
from types import SimpleNamespace

import torch
import torch.nn as nn

from sparsellm import sparsellm_mlp


class MLP(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.gate_proj = nn.Linear(d, h, bias=False)
        self.up_proj = nn.Linear(d, h, bias=False)
        self.down_proj = nn.Linear(h, d, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(sparsity=0.5, nsamples=2)
    d, h, n = 6, 10, 12
    mlp = MLP(d, h)
    subset = {'mlp.gate_proj': mlp.gate_proj, 'mlp.up_proj': mlp.up_proj,
              'mlp.down_proj': mlp.down_proj}
    X = torch.randn(d, n)
    Y = mlp(X.T).T.detach()
    s, z, p, training_loss = sparsellm_mlp(subset, X, Y, args)
    out = {"s": s, "z": z, "p": p, "train_loss": training_loss['train_loss']}
    for name, prm in mlp.named_parameters():
        out[name] = prm.detach().clone()
    return out


if __name__ == "__main__":
    main()
