import torch
import torch.nn as nn
import torch.nn.functional as F


def train_epoch(model, opt, sched, batches, accum=2):
    opt.zero_grad(set_to_none=False)
    losses = []
    for i, (xb, yb) in enumerate(batches):
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        losses.append(loss.item())
        if (i + 1) % accum == 0:
            with torch.no_grad():
                for p in model.parameters():
                    p.grad.div_(accum)
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=False)
    return losses


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(7, 16), nn.Dropout(0.1), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    batches = [(torch.randn(6, 7), torch.randint(0, 4, (6,))) for _ in range(4)]
    model.train()
    losses = train_epoch(model, opt, sched, batches)
    return {"losses": losses, "lr": sched.get_last_lr()[0], "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
