import torch
import torch.nn as nn


def standardize_(x, eps=1e-6):
    mu = x.mean(dim=0, keepdim=True)
    sd = x.std(dim=0, keepdim=True)
    x.sub_(mu).div_(sd + eps)
    return x


def input_attribution(model, raw):
    raw = raw.clone().requires_grad_(True)
    out = model(standardize_(raw))
    out.sum().backward()
    return out.detach(), raw.grad


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Softplus(), nn.Linear(8, 1))
    raw = torch.randn(10, 4) * torch.tensor([1.0, 10.0, 0.1, 3.0]) + 5.0
    out, attribution = input_attribution(model, raw)
    return {"out": out, "attribution": attribution, "raw": raw,
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
