import torch


def rnn_forward(x, h0, Wx, Wh, b):
    T = x.shape[0]
    hs = [h0]
    for t in range(T):
        hs.append(torch.tanh(x[t] @ Wx + hs[t] @ Wh + b))
    return torch.stack(hs[1:])


def main():
    torch.manual_seed(0)
    T, B, D, H = 6, 3, 4, 5
    x = torch.randn(T, B, D)
    y = torch.randn(B, 1)
    Wx = (torch.randn(D, H) * 0.4).requires_grad_()
    Wh = (torch.randn(H, H) * 0.4).requires_grad_()
    b = torch.zeros(H, requires_grad=True)
    Wy = (torch.randn(H, 1) * 0.4).requires_grad_()
    h0 = torch.zeros(B, H)

    hs = rnn_forward(x, h0, Wx, Wh, b)
    pred = hs[-1] @ Wy
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    return {"hs": hs.detach(), "loss": loss.item(),
            "dWx": Wx.grad, "dWh": Wh.grad, "db": b.grad, "dWy": Wy.grad}


if __name__ == "__main__":
    main()
