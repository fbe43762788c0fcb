import torch


def attention_entropy(scores: torch.Tensor) -> tuple:
    p = torch.softmax(scores, dim=-1)
    ent = -(p * torch.log(p + 1e-9)).sum(-1).mean()
    p = p.clamp(min=1e-6)
    return ent, p


def main():
    torch.manual_seed(0)
    scores = torch.randn(4, 8, requires_grad=True)
    ent, p = attention_entropy(scores)
    (-ent).backward()
    return {"entropy": ent.detach(), "p": p.detach(), "grad": scores.grad}


if __name__ == "__main__":
    main()
