"""revisit_adv_rec: fit the WMF surrogate with ALS (optim_method="als"), then score the users."""
import torch
from types import SimpleNamespace

from wmf_trainer import WMFTrainer


def main():
    torch.manual_seed(0)
    n_users, n_items = 6, 8
    data = (torch.rand(n_users, n_items) < 0.3).float()
    args = SimpleNamespace(model={"hidden_dims": [3], "weight_alpha": 20, "optim_method": "als"},
                           lr=1e-2, l2=1e-2)
    trainer = WMFTrainer(n_users, n_items, args)
    trainer._initialize()
    for epoch in range(2):
        trainer.train_epoch(data)
    with torch.no_grad():
        scores = trainer.net()
    return {"scores": scores, "P": trainer.net.P.detach().clone(), "Q": trainer.net.Q.detach().clone()}


if __name__ == "__main__":
    main()
