import torch
import torch.nn as nn


def safe_divide(a: torch.Tensor, b: torch.Tensor, eps=1e-8):
    a = torch.where((a < eps) & (a >= 0), torch.tensor(eps), a)
    a = torch.where((a > -eps) & (a <= 0), torch.tensor(-eps), a)
    b = torch.where((b < eps) & (b >= 0), torch.tensor(eps), b)
    b = torch.where((b > -eps) & (b <= 0), torch.tensor(-eps), b)
    return a / b


class ShadingHead(nn.Module):
    def __init__(self, feat_dim=6):
        super().__init__()
        self.normal_mlp = nn.Linear(feat_dim, 3)
        self.albedo_mlp = nn.Linear(feat_dim, 3)

    def forward(self, feat, light_dir):
        normal = self.normal_mlp(feat)
        albedo = torch.sigmoid(self.albedo_mlp(feat))
        n_dot_l = (normal * light_dir).sum(dim=-1, keepdim=True)
        n_norm = normal.norm(dim=-1, keepdim=True)
        cos = safe_divide(n_dot_l, n_norm)
        return albedo * cos.clamp(min=0)


def main():
    torch.manual_seed(0)
    head = ShadingHead()
    optimizer = torch.optim.Adam(head.parameters(), lr=5e-4)
    feat = torch.randn(16, 6)
    light_dir = torch.nn.functional.normalize(torch.randn(16, 3), dim=-1)
    rgb_gt = torch.rand(16, 3)
    rgb = head(feat, light_dir)
    loss = ((rgb - rgb_gt) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    out = {"rgb": rgb.detach(), "loss": loss.item()}
    for n, p in head.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
