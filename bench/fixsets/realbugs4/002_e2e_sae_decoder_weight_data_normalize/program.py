"""e2e_sae: train an SAE on cached activations (shape of scripts/train_tlens_saes loop)."""
import torch
import torch.nn.functional as F

from sparsifiers import SAE


def calc_sparsity_loss(c: torch.Tensor, p_norm: float = 1.0) -> torch.Tensor:
    return torch.norm(c, p=p_norm, dim=-1).mean()


def main():
    torch.manual_seed(0)
    input_size, n_dict = 6, 12
    sae = SAE(input_size=input_size, n_dict_components=n_dict)
    optimizer = torch.optim.Adam(sae.parameters(), lr=1e-2)
    acts = torch.randn(16, input_size)
    losses = []
    for step in range(4):
        optimizer.zero_grad()
        x_hat, c = sae(acts)
        loss = F.mse_loss(x_hat, acts) + 0.01 * calc_sparsity_loss(c)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    with torch.no_grad():
        x_hat, c = sae(acts)
    return {"losses": losses, "x_hat": x_hat, "c": c,
            "encoder_weight": sae.encoder[0].weight.detach().clone()}


if __name__ == "__main__":
    main()
