import math
import torch


class TwoLayerNet:
    def __init__(self, d_in, d_h, d_out):
        self.W1 = torch.empty(d_in, d_h, requires_grad=True)
        self.b1 = torch.empty(d_h, requires_grad=True)
        self.W2 = torch.empty(d_h, d_out, requires_grad=True)
        self.b2 = torch.empty(d_out, requires_grad=True)
        self.reset_parameters()

    def reset_parameters(self):
        for W, b in ((self.W1, self.b1), (self.W2, self.b2)):
            bound = 1.0 / math.sqrt(W.shape[0])
            W.uniform_(-bound, bound)
            b.fill_(0.01)

    def parameters(self):
        return [self.W1, self.b1, self.W2, self.b2]

    def __call__(self, x):
        return torch.relu(x @ self.W1 + self.b1) @ self.W2 + self.b2


def main():
    torch.manual_seed(0)
    net = TwoLayerNet(4, 8, 2)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.randn(16, 4)
    y = torch.randint(0, 2, (16,))
    for _ in range(3):
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in net.parameters()],
            "grads": [p.grad for p in net.parameters()]}


if __name__ == "__main__":
    main()
