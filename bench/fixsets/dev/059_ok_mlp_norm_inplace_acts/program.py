import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, d_in, n_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, 32)
        self.ln = nn.LayerNorm(32)
        self.fc2 = nn.Linear(32, 32)
        self.bn = nn.BatchNorm1d(32)
        self.drop = nn.Dropout(0.2, inplace=True)
        self.fc3 = nn.Linear(32, 16)
        self.out = nn.Linear(16, n_out)

    def forward(self, x):
        h = F.relu(self.ln(self.fc1(x)), inplace=True)
        h = F.relu(self.bn(self.fc2(h)), inplace=True)
        h = self.drop(self.fc3(h))
        h = F.relu_(h)
        return self.out(h)


def main():
    torch.manual_seed(0)
    net = Net(6, 2)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    x = torch.randn(16, 6)
    y = torch.randint(0, 2, (16,))
    losses = []
    for _ in range(4):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return {"losses": losses, "state": [t.clone().float() for t in net.state_dict().values()]}


if __name__ == "__main__":
    main()
