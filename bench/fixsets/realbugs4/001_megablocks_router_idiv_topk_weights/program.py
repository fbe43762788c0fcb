"""megablocks LearnedRouter with moe_normalize_expert_weights (before PR #70).

A dense reference MoE layer (the shape of megablocks' torch_moe_test reference) routes
tokens with the learned router and mixes expert MLP outputs with the normalized weights.
"""
import torch

from arguments import Arguments
from router import LearnedRouter


class ReferenceMoE(torch.nn.Module):

    def __init__(self, args):
        super().__init__()
        self.args = args
        self.router = LearnedRouter(args)
        self.w1 = torch.nn.Parameter(torch.empty(args.moe_num_experts, args.hidden_size, args.ffn_hidden_size))
        self.w2 = torch.nn.Parameter(torch.empty(args.moe_num_experts, args.ffn_hidden_size, args.hidden_size))
        with torch.no_grad():
            args.init_method(self.w1)
            args.init_method(self.w2)

    def forward(self, x):
        in_shape = x.shape
        scores, expert_weights, expert_indices = self.router(x)
        x = x.view(-1, in_shape[-1])
        out = torch.zeros_like(x)
        for k in range(self.args.moe_top_k):
            idx = expert_indices[:, k]
            h = torch.bmm(x.unsqueeze(1), self.w1[idx]).squeeze(1)
            h = torch.nn.functional.gelu(h)
            h = torch.bmm(h.unsqueeze(1), self.w2[idx]).squeeze(1)
            out = out + expert_weights[:, k:k + 1] * h
        return out.view(in_shape), scores


def main():
    torch.manual_seed(0)
    args = Arguments()
    model = ReferenceMoE(args)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(2, 5, args.hidden_size)
    target = torch.randn(2, 5, args.hidden_size)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        out, scores = model(x)
        loss = torch.nn.functional.mse_loss(out, target)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return {
        "losses": losses,
        "router_weight": model.router.layer.weight.detach().clone(),
        "w1": model.w1.detach().clone(),
        "w2": model.w2.detach().clone(),
    }


if __name__ == "__main__":
    main()
