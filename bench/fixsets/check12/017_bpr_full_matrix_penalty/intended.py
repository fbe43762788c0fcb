import torch
import torch.nn.functional as F


def bpr_loss(W_user, W_item, users, pos, neg, max_norm=1.0, reg=1e-3):
    u = F.embedding(users, W_user, max_norm=max_norm)
    penalty = reg * (W_user.pow(2).sum() + W_item.clone().pow(2).sum())
    p = F.embedding(pos, W_item, max_norm=max_norm)
    n = F.embedding(neg, W_item, max_norm=max_norm)
    x_upn = (u * p).sum(-1) - (u * n).sum(-1)
    return -F.logsigmoid(x_upn).mean() + penalty


def main():
    torch.manual_seed(0)
    n_users, n_items, dim = 10, 15, 6
    W_user = (torch.randn(n_users, dim) * 0.5).requires_grad_()
    W_item = (torch.randn(n_items, dim) * 0.5).requires_grad_()
    opt = torch.optim.SGD([W_user, W_item], lr=0.1)
    users = torch.randint(0, n_users, (12,))
    pos = torch.randint(0, n_items, (12,))
    neg = torch.randint(0, n_items, (12,))
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = bpr_loss(W_user, W_item, users, pos, neg)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "W_user": W_user.detach().clone(), "W_item": W_item.detach().clone()}


if __name__ == "__main__":
    main()
