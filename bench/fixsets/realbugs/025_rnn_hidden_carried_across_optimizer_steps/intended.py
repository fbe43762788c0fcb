"""Forum question "Pytorch框架nn.RNN训练时反向传播报错" (nn.RNN backward error during training):
the hidden state is carried from one training step to the next without detaching, the
backward keeps the graph (retain_graph=True), and opt.step() updates the RNN weights in
place between the two backward passes that go through the first step's graph."""
import torch


def main():
    torch.manual_seed(0)
    rnn = torch.nn.RNN(input_size=1, hidden_size=1, num_layers=1)
    train_set_x = torch.tensor([[[1]], [[2]], [[3]], [[4]], [[5]]], dtype=torch.float32)
    train_set_y = torch.tensor([[[2]], [[4]], [[6]], [[8]], [[10]]], dtype=torch.float32)
    h0 = torch.tensor([[0]], dtype=torch.float32)
    h_cur = h0
    loss = torch.nn.MSELoss()
    opt = torch.optim.Adadelta(rnn.parameters(), lr=0.01)
    outputs = []
    for i in range(5):
        opt.zero_grad()
        train_output, h_next = rnn(train_set_x[i], h_cur)
        rnn_loss = loss(train_output, train_set_y[i])
        rnn_loss.backward()
        opt.step()
        outputs.append(train_output.detach())
        h_cur = h_next.detach()

    out = {'outputs': outputs, 'h_last': h_cur.detach()}
    for name, p in rnn.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
