import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchClassifier(nn.Module):
    def __init__(self, patch_dim=12, n_patches=4, dim=16, n_classes=3):
        super().__init__()
        self.proj = nn.Linear(patch_dim, dim)
        self.cls_token = nn.Parameter(torch.empty(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.empty(1, n_patches + 1, dim))
        self.norm_scale = nn.Parameter(torch.empty(dim))
        self.head = nn.Linear(dim, n_classes)
        self.reset_parameters()

    def reset_parameters(self):
        self.cls_token.normal_(std=0.02)
        self.pos_embed.normal_(std=0.02)
        self.norm_scale.fill_(1.0)

    def forward(self, patches):
        x = self.proj(patches)
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=1) + self.pos_embed
        x = F.layer_norm(x, x.shape[-1:]) * self.norm_scale
        return self.head(x.mean(dim=1))


def main():
    torch.manual_seed(0)
    model = PatchClassifier()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    patches = torch.randn(6, 4, 12)
    y = torch.randint(0, 3, (6,))
    loss = F.cross_entropy(model(patches), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "cls_token": model.cls_token.detach().clone(),
            "pos_embed": model.pos_embed.detach().clone(),
            "grads": {n: p.grad for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
